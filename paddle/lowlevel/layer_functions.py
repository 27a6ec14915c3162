"""Layer functions: ops that create their own parameters from the input shape.

`pd.fc` and the high-level `Dense` layer share `parameter` (creation under the namespace,
or fetching under reuse=True) and `dense` (the computation).

Example:
    >>> import paddle as pd
    >>> x = pd.data("x", shape=[None, 784])
    >>> with pd.namespace("mlp"):
    ...     h = pd.fc(x, size=128, act="relu")
    >>> h.shape, pd.get_variable("mlp/fc_0/w").shape
    ((None, 128), (784, 128))
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.graph import (NAMES, Variable, as_dtype, as_variable, initial_value,
                                   reused_parameter)
from paddle.lowlevel.ops import activations
from paddle.lowlevel.ops.matmul import matmul

ACTIVATIONS = {name: getattr(activations, name) for name in activations.__all__}
ACTIVATIONS["linear"] = None


def register_activations(table):
    """Adds {name: function} to the names `fc` takes (not replacing one it has). The
    catalogue of Keras's activations (paddle/highlevel/activations.py, built from these
    ops) registers its names here when it is imported, as `import paddle` does, so
    `pd.fc(act=...)` takes every name `Dense(activation=...)` takes, and the low level
    imports nothing of the high level."""
    for name, fn in table.items():
        ACTIVATIONS.setdefault(name, fn)


def activation(act):
    """The activation function for a name, a callable, or None (identity)."""
    if act is None or callable(act):
        return act
    if isinstance(act, str) and act.lower() in ACTIVATIONS:
        return ACTIVATIONS[act.lower()]
    raise ValueError(f"activation: unknown {act!r}; expected one of "
                     f"{', '.join(sorted(ACTIVATIONS))}, a callable or None")


def parameter(full_name, shape, dtype="float32", initializer="glorot_uniform", trainable=True):
    """The parameter named `full_name`: created and initialized, or under reuse=True the
    existing one (which must have this shape)."""
    shape = tuple(int(d) for d in shape)
    if NAMES.reusing():
        return reused_parameter(full_name, shape)
    init = initializers.get(initializer)
    dtype = as_dtype(dtype)
    var = Variable._make(full_name, shape, dtype, "param",
                         value=initial_value(init, shape, dtype, repr(full_name)))
    var.trainable = bool(trainable)
    var.name = NAMES.claim(full_name, var)  # two layers given the same name: kernel_1
    NAMES.params[var.name] = var
    return var


def dense(x, kernel, bias=None, act=None):
    """act(x @ kernel + bias) over the last axis of x."""
    y = matmul(x, kernel)
    if bias is not None:
        y = y + bias
    f = activation(act)
    return f(y) if f is not None else y


def fc(input, size, act=None, bias=True, name=None, kernel_initializer="glorot_uniform",
       bias_initializer="zeros"):
    """A fully connected layer: creates `<ns>/fc_<k>/w` (in, size) and `/b` (size,).

    Args:
        input: a float Variable whose last axis is known.
        size: number of output units.
        act: activation name ('relu', 'softmax', ...) or callable, None for linear.
        bias: add a bias.
        name: scope name instead of 'fc' (numbered: name_0, name_1, ...).

    Raises:
        ShapeError: the input's last axis is unknown.
    """
    x = as_variable(input, where="fc")
    if not isinstance(size, (int, np.integer)) or size <= 0:
        raise ValueError(at_user(f"fc: expected a positive size, received {size!r}"))
    if x.ndim < 1 or x.shape[-1] is None:
        raise ShapeError(at_user(f"fc: expected an input with a known last axis, received "
                                 f"shape {x.shape}"))
    scope = NAMES.scope(name or "fc", None)
    w = parameter(f"{scope}/w", (x.shape[-1], int(size)), x.dtype, kernel_initializer)
    NAMES.taken.setdefault(scope, w)  # the scope is taken while its weight lives
    b = parameter(f"{scope}/b", (int(size),), x.dtype, bias_initializer) if bias else None
    return dense(x, w, b, act)
