"""Activations as Keras's `keras.activations`: functions of a Variable, and `get`,
`serialize`, `deserialize` for names in layer arguments and configs.

Every function takes a Variable, a NumPy array or a number and returns a Variable built
from paddle's ops (so it differentiates and runs on the same kernels as the rest).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.array([-2.0, 0.5, 8.0], np.float32))
    >>> pd.eval(pd.activations.relu(x, max_value=6.0)).tolist()
    [0.0, 0.5, 6.0]
    >>> pd.activations.get("swish") is pd.activations.silu, pd.activations.serialize(pd.activations.gelu)
    (True, 'gelu')
"""
import numbers

from paddle.lowlevel.graph import FLOATS, as_variable
from paddle.lowlevel.layer_functions import register_activations
from paddle.lowlevel.ops import activations as _ops
from paddle.lowlevel.ops.math import abs as _abs
from paddle.lowlevel.ops.math import exp as _exp
from paddle.lowlevel.ops.math import maximum, minimum, where
from paddle.lowlevel.ops.math import sigmoid as _sigmoid_op
from paddle.lowlevel.ops.math import tanh as _tanh_op
from paddle.lowlevel.ops.math import relu as _relu
from paddle.lowlevel.ops.math import greater

__all__ = ["celu", "elu", "exponential", "gelu", "glu", "hard_shrink", "hard_sigmoid",
           "hard_silu", "hard_swish", "hard_tanh", "leaky_relu", "linear", "log_sigmoid",
           "log_softmax", "mish", "relu", "relu6", "selu", "sigmoid", "silu", "soft_shrink",
           "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid", "sparsemax",
           "squareplus", "swish", "tanh", "tanh_shrink", "threshold", "get", "serialize",
           "deserialize"]


def _float(x, name):
    x = as_variable(x, where=name)
    if x.dtype not in FLOATS:
        raise TypeError(f"activations.{name}: expected a float input, received {x.dtype}")
    return x


def _number(value, name, what):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError(f"activations.{name}: expected {what} as a number, received "
                         f"{value!r}")
    return float(value)


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """max(x, 0), with Keras's options: a slope below `threshold`, a cap at `max_value`.

    Args:
        x: a float Variable (or array).
        negative_slope: slope for values below the threshold (0: plain relu).
        max_value: the largest output (None: no cap).
        threshold: values below it are cut (or scaled by negative_slope).
    """
    x = _float(x, "relu")
    slope = _number(negative_slope, "relu", "negative_slope")
    cut = _number(threshold, "relu", "threshold")
    if slope == 0.0 and cut == 0.0:
        y = _relu(x)
    else:
        y = where(greater(x, cut), x, slope * (x - cut) if slope else x * 0.0)
    if max_value is not None:
        y = minimum(y, _number(max_value, "relu", "max_value"))
    return y


def relu6(x):
    """min(max(x, 0), 6)."""
    return relu(x, max_value=6.0)


def leaky_relu(x, negative_slope=0.2):
    """x where x > 0, negative_slope * x elsewhere (Keras's default slope 0.2)."""
    return _ops.leaky_relu(_float(x, "leaky_relu"),
                           _number(negative_slope, "leaky_relu", "negative_slope"))


def elu(x, alpha=1.0):
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    return _ops.elu(_float(x, "elu"), _number(alpha, "elu", "alpha"))


def selu(x):
    """Scaled elu with Keras's constants (self-normalizing networks)."""
    alpha, scale = 1.67326324, 1.05070098
    return scale * _ops.elu(_float(x, "selu"), alpha)


def gelu(x, approximate=False):
    """Gaussian error linear unit (exact with erf, or the tanh approximation)."""
    return _ops.gelu(_float(x, "gelu"), approximate=bool(approximate))


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`."""
    return _ops.softmax(_float(x, "softmax"), axis=axis)


def log_softmax(x, axis=-1):
    """log(softmax(x)) along `axis`, computed stably."""
    return _ops.log_softmax(_float(x, "log_softmax"), axis=axis)


def softplus(x):
    """log(1 + exp(x)), computed stably."""
    return _ops.softplus(_float(x, "softplus"))


def softsign(x):
    """x / (|x| + 1)."""
    x = _float(x, "softsign")
    return x / (_abs(x) + 1.0)


def silu(x):
    """x * sigmoid(x) (also called swish)."""
    return _ops.silu(_float(x, "silu"))


swish = silu


def mish(x):
    """x * tanh(softplus(x))."""
    x = _float(x, "mish")
    return x * _tanh_op(_ops.softplus(x))


def hard_sigmoid(x):
    """Keras 3's piecewise-linear sigmoid: relu6(x + 3) / 6."""
    x = _float(x, "hard_sigmoid")
    return minimum(maximum(x / 6.0 + 0.5, 0.0), 1.0)


def exponential(x):
    """exp(x)."""
    return _exp(_float(x, "exponential"))


def linear(x):
    """The identity (also what None and "linear" mean in a layer's activation)."""
    return as_variable(x, where="activations.linear")


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return _sigmoid_op(_float(x, "sigmoid"))


def tanh(x):
    """Hyperbolic tangent."""
    return _tanh_op(_float(x, "tanh"))


# Keras 3's newer ones live in their own module (piecewise, gated and sparse maps).
from paddle.highlevel.activations_piecewise import (  # noqa: E402
    celu, glu, hard_shrink, hard_silu, hard_swish, hard_tanh, log_sigmoid, soft_shrink,
    sparse_plus, sparse_sigmoid, sparsemax, squareplus, tanh_shrink, threshold)

# The names a layer's `activation=` takes (each works with the input alone).
ALL = {fn.__name__: fn for fn in (celu, elu, exponential, gelu, glu, hard_shrink, hard_sigmoid,
                                  hard_silu, hard_tanh, leaky_relu, linear, log_sigmoid,
                                  log_softmax, mish, relu, relu6, selu, sigmoid, silu,
                                  soft_shrink, softmax, softplus, softsign, sparse_plus,
                                  sparse_sigmoid, sparsemax, squareplus, tanh, tanh_shrink)}
ALL["swish"] = silu
ALL["hard_swish"] = hard_silu
# Names `get` knows whose functions need more than the input (Keras's threshold needs its
# threshold and default_value: a layer cannot call it with the input alone, in Keras too).
WITH_ARGUMENTS = {"threshold": threshold}
register_activations(ALL)  # pd.fc(act=...) takes these names too


def get(identifier):
    """The activation function for a name, a callable (returned as it is) or None
    (`linear`).

    Raises:
        ValueError: an unknown name (the message lists the known ones).
        TypeError: neither a name nor a callable.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        fn = ALL.get(identifier.lower()) or WITH_ARGUMENTS.get(identifier.lower())
        if fn is None:
            raise ValueError(f"activation: unknown {identifier!r}; expected "
                             f"one of {', '.join(sorted(ALL))}, a callable or None")
        return fn
    if isinstance(identifier, dict) and "config" in identifier:  # Keras 3's saved form
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"activations.get: expected a name or a callable, received "
                    f"{identifier!r}")


def serialize(activation):
    """The name of an activation (what configs store); a custom function gives its
    `__name__`, looked up again in `custom_objects` when loading."""
    if activation is None:
        return "linear"
    if not callable(activation):
        raise TypeError(f"activations.serialize: expected a function, received "
                        f"{activation!r}")
    return getattr(activation, "__name__", repr(activation))


def deserialize(config, custom_objects=None):
    """The activation for a name (or Keras 3's {'class_name': 'function', 'config':
    name}); names in `custom_objects` come first."""
    if isinstance(config, dict):
        config = config.get("config")
    if isinstance(config, str) and custom_objects and config in custom_objects:
        return custom_objects[config]
    if not isinstance(config, str):
        raise TypeError(f"activations.deserialize: expected a name, received {config!r}")
    return get(config)
