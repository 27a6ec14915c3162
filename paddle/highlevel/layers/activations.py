"""Activation layers: ReLU, LeakyReLU, PReLU, ELU, Softmax (Keras 3 arguments and rules).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.array([[-2.0, -0.5, 0.5, 8.0]], np.float32)
    >>> pd.layers.ReLU(max_value=6.0)(x).tolist()
    [[0.0, 0.0, 0.5, 6.0]]
    >>> pd.layers.LeakyReLU(negative_slope=0.5)(x).tolist()
    [[-1.0, -0.25, 0.5, 8.0]]
"""
import numbers

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.graph import as_variable
from paddle.lowlevel.ops.activations import elu, leaky_relu, softmax
from paddle.lowlevel.ops.math import cast, clip, exp, greater, relu
from paddle.lowlevel.ops.reduce import max as reduce_max, sum as reduce_sum
from paddle.highlevel import regularizers
from paddle.highlevel.layers.base import InputSpec, Layer, regularizer_config


def _real(value, layer, name, ok=lambda v: True, expected="a number"):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not ok(value):
        raise ValueError(f"{layer}: expected {name} {expected}, received {value!r}")
    return float(value)


def relu_keras(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras 3's `activations.relu`: x above `threshold` (else 0), capped at `max_value`,
    minus `negative_slope * relu(threshold - x)` below it."""
    if negative_slope and max_value is None and threshold == 0:
        return leaky_relu(x, negative_slope)
    negative_part = relu(threshold - x) if threshold else relu(-x)
    y = x * cast(greater(x, threshold), x.dtype) if threshold else relu(x)
    if max_value is not None:
        y = clip(y, 0.0, max_value)
    return y - negative_part * negative_slope if negative_slope else y


class ReLU(Layer):
    """Rectified linear unit with Keras 3's options:
    `f(x) = max_value` for `x >= max_value`, `x` for `threshold <= x < max_value`,
    `negative_slope * (x - threshold)` below (the slope part as Keras computes it).

    Args:
        max_value: cap of the output (>= 0), None for none.
        negative_slope: slope below the threshold (>= 0).
        threshold: values at or below it are not passed (0 by default).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.ReLU(threshold=1.0)(np.array([[0.5, 2.0]], np.float32)).tolist()
        [[0.0, 2.0]]
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value = None if max_value is None else _real(
            max_value, "ReLU", "max_value", lambda v: v >= 0, ">= 0 or None")
        self.negative_slope = _real(negative_slope, "ReLU", "negative_slope", lambda v: v >= 0,
                                    ">= 0")
        self.threshold = _real(threshold, "ReLU", "threshold")

    def call(self, inputs, training=False):
        return relu_keras(inputs, self.negative_slope, self.max_value, self.threshold)

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}


class LeakyReLU(Layer):
    """`x` for x > 0, `negative_slope * x` otherwise (Keras 3 default slope 0.3).

    Args:
        negative_slope: the slope below 0 (>= 0). Keras 2's `alpha` is accepted too.
    """

    def __init__(self, negative_slope=0.3, alpha=None, **kwargs):
        super().__init__(**kwargs)
        if alpha is not None:
            negative_slope = alpha
        self.negative_slope = _real(negative_slope, "LeakyReLU", "negative_slope",
                                    lambda v: v >= 0, ">= 0")

    def call(self, inputs, training=False):
        return leaky_relu(inputs, self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class PReLU(Layer):
    """Leaky ReLU with a learned slope per element: `relu(x) - alpha * relu(-x)`.

    Args:
        alpha_initializer: the slopes' initializer ("zeros": a plain ReLU at first).
        alpha_regularizer: a `pd.regularizers` penalty on the slopes (added to the loss).
        alpha_constraint: a `pd.constraints` name, object or callable, applied to the slopes
            after each optimizer update.
        shared_axes: axes (counted from 1, the batch being 0) along which one slope is
            shared, e.g. `[1, 2]` for one slope per channel of an image.

    Example:
        >>> import paddle as pd
        >>> layer = pd.layers.PReLU(shared_axes=[1, 2])
        >>> _ = layer(pd.layers.Input(shape=(8, 8, 3)))
        >>> layer.alpha.shape
        (1, 1, 3)
    """

    weight_constraints = {"alpha_constraint": "alpha"}

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None,
                 shared_axes=None, **kwargs):
        super().__init__(alpha_constraint=alpha_constraint, **kwargs)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        try:
            self.alpha_initializer = initializers.get(alpha_initializer)
        except (TypeError, ValueError) as e:
            raise type(e)(f"PReLU: alpha_initializer: {e}") from None
        if shared_axes is not None and not isinstance(shared_axes, (list, tuple)):
            shared_axes = [shared_axes]
        if shared_axes is not None and not all(
                isinstance(a, int) and not isinstance(a, bool) and a >= 1 for a in shared_axes):
            raise ValueError(f"PReLU: expected shared_axes as axes >= 1 (the batch axis is 0), "
                             f"received {shared_axes!r}")
        self.shared_axes = None if shared_axes is None else list(shared_axes)

    def build(self, input_shape):
        shape = list(input_shape[1:])
        for a in self.shared_axes or ():
            if a > len(shape):
                raise ShapeError(at_user(f"{self.name}: shared axis {a} is not an axis of "
                                         f"inputs of shape {tuple(input_shape)}"))
            shape[a - 1] = 1
        if None in shape:
            raise ShapeError(at_user(f"{self.name}: expected known sizes on the axes that do "
                                     f"not share a slope, received shape {tuple(input_shape)}"))
        self.alpha = self.add_weight("alpha", tuple(shape), self.alpha_initializer,
                                     regularizer=self.alpha_regularizer)
        self.input_spec = InputSpec(ndim=len(input_shape), axes={
            i: d for i, d in enumerate(input_shape) if i and d is not None and
            i not in (self.shared_axes or ())})

    def call(self, inputs, training=False):
        return relu(inputs) - self.alpha * relu(-inputs)

    def get_config(self):
        return {**super().get_config(),
                "alpha_initializer": initializers.serialize(self.alpha_initializer),
                "shared_axes": self.shared_axes,
                **regularizer_config(self, ("alpha_regularizer",))}


class ELU(Layer):
    """`x` for x > 0, `alpha * (exp(x) - 1)` otherwise.

    Args:
        alpha: the scale of the negative part.
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = _real(alpha, "ELU", "alpha")

    def call(self, inputs, training=False):
        return elu(inputs, self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class Softmax(Layer):
    """Softmax along `axis` (an int or a list of axes); with a `mask` (1 keep, 0 drop),
    masked positions get a large negative score first, as in Keras.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.zeros((1, 4), np.float32)
        >>> pd.layers.Softmax()(x).tolist()
        [[0.25, 0.25, 0.25, 0.25]]
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if not axes or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
            raise ValueError(f"Softmax: expected an integer axis or a list of them, received "
                             f"{axis!r}")
        self.axis = axis if isinstance(axis, int) else list(axis)

    def call(self, inputs, mask=None, training=False):
        x = inputs
        if mask is not None:
            mask = as_variable(mask, where=self.name)
            x = x + (1.0 - cast(mask, x.dtype)) * (-1e9 if x.dtype == "float32" else -1e300)
        if isinstance(self.axis, int):
            return softmax(x, self.axis)
        return _softmax_over(x, self.axis, self.name)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _softmax_over(x, axes, name):
    """Softmax over several axes: exp(x - max) / sum over them."""
    rank = x.ndim
    if not all(-rank <= a < rank for a in axes):
        raise ShapeError(at_user(f"{name}: axes {axes} are not all axes of an input of rank "
                                 f"{rank}"))
    axes = tuple(sorted({a % rank for a in axes}))
    e = exp(x - reduce_max(x, axis=axes, keepdims=True))
    return e / reduce_sum(e, axis=axes, keepdims=True)
