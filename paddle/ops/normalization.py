"""`pd.ops.nn`'s statistics and normalizations (Keras's `moments`, `batch_normalization`,
`layer_normalization`, `rms_normalization`, `normalize`, `psnr`), composed from ops.

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.ops.nn.layer_normalization(np.array([[1.0, 3.0]]), epsilon=0.0).numpy().tolist()
    [[-1.0, 1.0]]
"""
import math

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import Variable, as_variable
from paddle.lowlevel.ops.math import abs, cast, maximum, minimum, sqrt, square
from paddle.lowlevel.ops.reduce import mean, sum
from paddle.lowlevel.ops.shape import expand_dims, reshape
from paddle.lowlevel.shapes import located, normalize_axes
from paddle.ops.numpy_math import log10
from paddle.ops.promotion import EPSILON
from paddle.ops.promotion import Named as _Named
from paddle.ops.promotion import axis_of as _axis
from paddle.ops.promotion import float_operands as _float_operands
from paddle.ops.promotion import float_tensor as _float
from paddle.ops.promotion import number as _number


def moments(x, axes, keepdims=False, synchronized=False):
    """(mean, variance) of x over `axes`.

    Args:
        x: a float tensor (integers are computed as float32).
        axes: an int or a list of ints.
        keepdims: keep the reduced axes with size 1.
        synchronized: across replicas; refused, as Keras on JAX refuses it.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m, v = pd.ops.nn.moments(np.array([1.0, 3.0], np.float32), axes=[0])
        >>> m.numpy().tolist(), v.numpy().tolist()
        (2.0, 1.0)
    """
    if synchronized:
        raise NotImplementedError(at_user("moments: synchronized=True (statistics across "
                                          "replicas) is not supported, as with Keras on JAX"))
    x = _float(x, "moments")
    with located():
        axes = normalize_axes(_Named("moments"), axes, x.ndim, x.shape)
    mu = mean(x, axis=axes, keepdims=True)
    variance = mean(square(x - mu), axis=axes, keepdims=keepdims)
    return (mu if keepdims else mean(x, axis=axes)), variance


def _along(v, x, axis, what, where):
    """A 1-D per-channel tensor reshaped to broadcast along `axis` of x."""
    v = as_variable(v, like=x, where=where)
    if v.dtype != x.dtype:
        v = cast(v, x.dtype)
    if v.ndim != 1 or (v.shape[0] is not None and x.shape[axis] is not None and
                       v.shape[0] != x.shape[axis]):
        with located():
            raise ShapeError(f"{where}: expected `{what}` of shape ({x.shape[axis]},) (axis "
                             f"{axis} of x), received {v.shape}; x is {x.shape}")
    shape = [1] * x.ndim
    shape[axis] = -1
    return reshape(v, shape)


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, with the 1-D statistics and
    parameters laid along `axis` (Keras's `keras.ops.batch_normalization`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([[1.0, 2.0]], np.float32)
        >>> pd.ops.nn.batch_normalization(x, np.array([1.0, 0.0], np.float32),
        ...     np.array([1.0, 4.0], np.float32), axis=-1, epsilon=0.0).numpy().tolist()
        [[0.0, 1.0]]
    """
    x = _float(x, "batch_normalization")
    a = _axis("batch_normalization", axis, x)
    epsilon = _number(epsilon, "epsilon", "batch_normalization")
    m = _along(mean, x, a, "mean", "batch_normalization")
    v = _along(variance, x, a, "variance", "batch_normalization")
    inv = 1.0 / sqrt(v + epsilon)
    if scale is not None:
        inv = inv * _along(scale, x, a, "scale", "batch_normalization")
    res = -m * inv
    if offset is not None:
        res = res + _along(offset, x, a, "offset", "batch_normalization")
    return x * inv + res


def _param_over(v, x, axes, what, where):
    """gamma/beta/scale: shaped like x's normalized axes (reshaped to broadcast), or
    broadcastable to x already."""
    v = as_variable(v, like=x, where=where)
    if v.dtype != x.dtype:
        v = cast(v, x.dtype)
    normalized = tuple(x.shape[a] for a in axes)
    if v.ndim != x.ndim and v.shape == normalized and list(axes) != [x.ndim - 1]:
        return reshape(v, [x.shape[i] if i in axes else 1 for i in range(x.ndim)])
    return v


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """x normalized over `axis` (an int or a list), then scaled by gamma and shifted by
    beta (Keras's `keras.ops.layer_normalization`; `rms_scaling=True` divides by the root
    of the variance without centering). epsilon defaults to 1e-7 (keras.backend.epsilon()).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([[1.0, 3.0]], np.float32)
        >>> pd.ops.nn.layer_normalization(x, epsilon=0.0).numpy().tolist()
        [[-1.0, 1.0]]
    """
    rms_scaling = bool(kwargs.pop("rms_scaling", False))
    if kwargs:
        raise TypeError(at_user(f"layer_normalization: unexpected arguments {sorted(kwargs)}"))
    x = _float(x, "layer_normalization")
    epsilon = EPSILON if epsilon is None else _number(epsilon, "epsilon", "layer_normalization")
    with located():
        axes = normalize_axes(_Named("layer_normalization"), axis, x.ndim, x.shape)
    mu = mean(x, axis=axes, keepdims=True)
    variance = mean(square(x - mu), axis=axes, keepdims=True)
    inv = 1.0 / sqrt(variance + epsilon)
    if rms_scaling:
        out = x * inv
        return out if gamma is None else out * _param_over(gamma, x, axes, "gamma",
                                                           "layer_normalization")
    if gamma is not None:
        inv = inv * _param_over(gamma, x, axes, "gamma", "layer_normalization")
    res = -mu * inv
    if beta is not None:
        res = res + _param_over(beta, x, axes, "beta", "layer_normalization")
    return x * inv + res


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """x / sqrt(mean(x**2 over axis) + epsilon) * scale (Keras's
    `keras.ops.rms_normalization`; epsilon defaults to 1e-7).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.rms_normalization(np.array([[3.0, 4.0]], np.float64), epsilon=0.0).numpy().round(6).tolist()
        [[0.848528, 1.131371]]
    """
    x = _float(x, "rms_normalization")
    epsilon = EPSILON if epsilon is None else _number(epsilon, "epsilon", "rms_normalization")
    with located():
        axes = normalize_axes(_Named("rms_normalization"), axis, x.ndim, x.shape)
    out = x / sqrt(mean(square(x), axis=axes, keepdims=True) + epsilon)
    if scale is not None:
        out = out * _param_over(scale, x, axes, "scale", "rms_normalization")
    return out


def normalize(x, axis=-1, order=2, epsilon=None):
    """x / max(norm(x), epsilon) along `axis`, for the L`order` norm (order an int >= 1;
    epsilon defaults to 1e-7).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.normalize(np.array([[3.0, 4.0]])).numpy().round(6).tolist()
        [[0.6, 0.8]]
    """
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(at_user(f"normalize: expected `order` as an int >= 1, received "
                                 f"order={order!r}"))
    x = _float(x, "normalize")
    if x.ndim == 0:
        x = expand_dims(x, 0)
    epsilon = EPSILON if epsilon is None else _number(epsilon, "epsilon", "normalize")
    if order == 2:
        inv = 1.0 / sqrt(sum(square(x), axis=axis, keepdims=True))
        return x * minimum(inv, 1.0 / epsilon)
    if order == 1:
        norm = sum(abs(x), axis=axis, keepdims=True)
    else:
        norm = sum(abs(x) ** float(order), axis=axis, keepdims=True) ** (1.0 / order)
    return x / maximum(norm, epsilon)


def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio: 20 log10(max_val) - 10 log10(mean((x1 - x2)**2)).

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.ops.nn.psnr(np.zeros(4, np.float32), np.full(4, 0.1, np.float32), 1.0).numpy())
        20.0
    """
    a, b = _float_operands("psnr", x1, x2)
    if a.shape != b.shape:
        with located():
            raise ShapeError(f"psnr: expected x1 and x2 of one shape, received {a.shape} and "
                             f"{b.shape}")
    peak = _number(max_val, "max_val", "psnr") if not isinstance(max_val, Variable) else None
    top = 20.0 * math.log10(peak) if peak is not None else log10(cast(max_val, a.dtype)) * 20.0
    return top - log10(mean(square(a - b))) * 10.0
