"""`pd.ops.nn`: Keras's `keras.ops.nn` namespace: activations, normalizations, losses,
`moments`, `psnr`, `multi_hot` and `dot_product_attention`, with Keras's names, signatures,
defaults and numbers. (The convolutions, poolings and CTC are added beside these.)

Everything here is composed from paddle's ops, so each function has the kernels of its
parts on every device and a gradient of any order. Integer and bool inputs of the
activations are computed as float32 (Keras's symbolic rule keeps an integer dtype its
backends cannot compute).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.array([-4.0, 0.0, 4.0], np.float32))
    >>> pd.ops.nn.relu6(x * 2.0).numpy().tolist()
    [0.0, 0.0, 6.0]
    >>> pd.ops.nn.hard_sigmoid(x).numpy().tolist()
    [0.0, 0.5, 1.0]
"""
import math

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, Variable, as_dtype, as_variable, constant
from paddle.lowlevel.ops import activations as _act
from paddle.lowlevel.ops.math import (abs, cast, equal, exp, greater, greater_equal, less,
                                      less_equal, log, maximum, minimum, sqrt, square, tanh,
                                      where)
from paddle.lowlevel.ops.math import relu as _relu
from paddle.lowlevel.ops.math import sigmoid as _sigmoid
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import max as reduce_max
from paddle.lowlevel.ops.reduce import mean, sum
from paddle.lowlevel.ops.shape import concat, expand_dims, reshape, split, squeeze, transpose
from paddle.lowlevel.shapes import located, normalize_axes, normalize_axis, real_number
from paddle.ops.numpy_math import log10, logsumexp  # noqa: F401 - logsumexp: pd.ops.nn's
from paddle.ops.promotion import float_operands as _float_operands
from paddle.ops.promotion import tensor as _tensor

__all__ = [
    "relu", "relu6", "sigmoid", "sparse_sigmoid", "softplus", "softsign", "silu", "swish",
    "log_sigmoid", "leaky_relu", "hard_sigmoid", "hard_silu", "hard_swish", "elu", "selu",
    "gelu", "celu", "glu", "tanh_shrink", "hard_tanh", "hard_shrink", "soft_shrink",
    "threshold", "squareplus", "sparse_plus", "sparsemax", "softmax", "log_softmax",
    "one_hot", "multi_hot", "moments", "batch_normalization", "layer_normalization",
    "rms_normalization", "normalize", "psnr", "binary_crossentropy",
    "categorical_crossentropy", "sparse_categorical_crossentropy", "dot_product_attention"]

EPSILON = 1e-7  # keras.backend.epsilon()


def _float(x, where):
    (x,) = _float_operands(where, x)
    return x


def _number(value, what, where):
    with located():
        try:
            return real_number(value, what, where)
        except TypeError as e:
            raise TypeError(at_user(str(e))) from None


# ---- activations --------------------------------------------------------------------------

def relu(x):
    """max(x, 0).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.relu(np.array([-1.0, 2.0], np.float32)).numpy().tolist()
        [0.0, 2.0]
    """
    x = _tensor(x, "relu")
    return _relu(x if x.dtype in ("int32", "int64") else _float(x, "relu"))


def relu6(x):
    """min(max(x, 0), 6).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.relu6(np.array([-1.0, 7.0], np.float32)).numpy().tolist()
        [0.0, 6.0]
    """
    return minimum(maximum(_float(x, "relu6"), 0.0), 6.0)


def sigmoid(x):
    """1 / (1 + exp(-x)).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.sigmoid(np.array([0.0], np.float32)).numpy().tolist()
        [0.5]
    """
    return _sigmoid(_float(x, "sigmoid"))


def sparse_sigmoid(x):
    """0 below -1, 1 above 1, (x + 1) / 2 between.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.sparse_sigmoid(np.array([-2.0, 0.0, 2.0], np.float32)).numpy().tolist()
        [0.0, 0.5, 1.0]
    """
    x = _float(x, "sparse_sigmoid")
    return where(less_equal(x, -1.0), 0.0, where(greater_equal(x, 1.0), 1.0, (x + 1.0) * 0.5))


def softplus(x):
    """log(1 + exp(x)), stable for large |x|.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.softplus(np.array([0.0], np.float64)).numpy().round(6).tolist()
        [0.693147]
    """
    return _act.softplus(_float(x, "softplus"))


def softsign(x):
    """x / (1 + |x|).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.softsign(np.array([1.0], np.float32)).numpy().tolist()
        [0.5]
    """
    x = _float(x, "softsign")
    return x / (abs(x) + 1.0)


def silu(x):
    """x * sigmoid(x) (also called swish).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.silu(np.array([0.0], np.float32)).numpy().tolist()
        [0.0]
    """
    x = _float(x, "silu")
    return x * _sigmoid(x)


swish = silu


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.log_sigmoid(np.array([0.0], np.float64)).numpy().round(6).tolist()
        [-0.693147]
    """
    return -_act.softplus(-_float(x, "log_sigmoid"))


def leaky_relu(x, negative_slope=0.2):
    """x where x > 0, else negative_slope * x.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.leaky_relu(np.array([-1.0, 1.0])).numpy().round(6).tolist()
        [-0.2, 1.0]
    """
    return _act.leaky_relu(_float(x, "leaky_relu"), negative_slope)


def hard_sigmoid(x):
    """relu6(x + 3) / 6.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.hard_sigmoid(np.array([0.0], np.float32)).numpy().tolist()
        [0.5]
    """
    return relu6(_float(x, "hard_sigmoid") + 3.0) * (1.0 / 6.0)


def hard_silu(x):
    """x * hard_sigmoid(x) (also called hard_swish).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.hard_silu(np.array([3.0], np.float32)).numpy().tolist()
        [3.0]
    """
    x = _float(x, "hard_silu")
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.elu(np.array([1.0], np.float32)).numpy().tolist()
        [1.0]
    """
    return _act.elu(_float(x, "elu"), alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """scale * elu(x, alpha) with Klambauer et al.'s constants.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.selu(np.array([1.0], np.float64)).numpy().round(6).tolist()
        [1.050701]
    """
    return _act.elu(_float(x, "selu"), _SELU_ALPHA) * _SELU_SCALE


def gelu(x, approximate=True):
    """x * Phi(x): the tanh approximation by default, as Keras (`approximate=False`: exact,
    with erf). `pd.gelu`, the low level's, defaults to the exact form.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.gelu(np.array([1.0], np.float64)).numpy().round(6).tolist()
        [0.841192]
    """
    if not isinstance(approximate, (bool, np.bool_)):
        raise TypeError(at_user(f"gelu: expected `approximate` as a bool, received "
                                f"{approximate!r}"))
    return _act.gelu(_float(x, "gelu"), approximate=bool(approximate))


def celu(x, alpha=1.0):
    """max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.celu(np.array([2.0, 0.0], np.float32)).numpy().tolist()
        [2.0, 0.0]
    """
    x = _float(x, "celu")
    alpha = _number(alpha, "alpha", "celu")
    if alpha == 0:
        raise ValueError(at_user("celu: expected a nonzero `alpha`, received 0"))
    return maximum(x, 0.0) + (exp(minimum(x, 0.0) / alpha) - 1.0) * alpha


def glu(x, axis=-1):
    """a * sigmoid(b), where a and b are the halves of x along `axis` (even size).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.glu(np.array([[2.0, 0.0]], np.float32)).numpy().tolist()
        [[1.0]]
    """
    x = _float(x, "glu")
    with located():
        a = normalize_axis(_Named("glu"), axis, x.ndim, x.shape)
        if x.shape[a] is not None and x.shape[a] % 2:
            raise ShapeError(f"glu: expected an even size along axis {axis}, received shape "
                             f"{x.shape}")
    first, second = split(x, 2, axis=a)
    return first * _sigmoid(second)


def tanh_shrink(x):
    """x - tanh(x).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.tanh_shrink(np.array([0.0], np.float32)).numpy().tolist()
        [0.0]
    """
    x = _float(x, "tanh_shrink")
    return x - tanh(x)


def hard_tanh(x):
    """x clipped to [-1, 1].

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.hard_tanh(np.array([-2.0, 0.5], np.float32)).numpy().tolist()
        [-1.0, 0.5]
    """
    return minimum(maximum(_float(x, "hard_tanh"), -1.0), 1.0)


def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, else 0.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.hard_shrink(np.array([-1.0, 0.2], np.float32)).numpy().tolist()
        [-1.0, 0.0]
    """
    x = _float(x, "hard_shrink")
    threshold = _number(threshold, "threshold", "hard_shrink")
    return where(greater(abs(x), threshold), x, 0.0)


def soft_shrink(x, threshold=0.5):
    """x - threshold above threshold, x + threshold below -threshold, 0 between.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.soft_shrink(np.array([-1.0, 0.2, 1.0], np.float32)).numpy().tolist()
        [-0.5, 0.0, 0.5]
    """
    x = _float(x, "soft_shrink")
    t = _number(threshold, "threshold", "soft_shrink")
    return where(greater(x, t), x - t, where(less(x, -t), x + t, 0.0))


def threshold(x, threshold, default_value):
    """x where x > threshold, else default_value.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.threshold(np.array([0.5, 2.0], np.float32), 1.0, -1.0).numpy().tolist()
        [-1.0, 2.0]
    """
    x = _float(x, "threshold")
    t = _number(threshold, "threshold", "threshold")
    default_value = _number(default_value, "default_value", "threshold")
    return where(greater(x, t), x, default_value)


def squareplus(x, b=4):
    """(x + sqrt(x**2 + b)) / 2, a smooth relu (b >= 0).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.squareplus(np.array([0.0], np.float32)).numpy().tolist()
        [1.0]
    """
    x = _float(x, "squareplus")
    b = _number(b, "b", "squareplus")
    if b < 0:
        raise ValueError(at_user(f"squareplus: expected b >= 0, received {b}"))
    return (x + sqrt(square(x) + b)) * 0.5


def sparse_plus(x):
    """0 below -1, x above 1, (x + 1)**2 / 4 between.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.sparse_plus(np.array([-2.0, 0.0, 2.0], np.float32)).numpy().tolist()
        [0.0, 0.25, 2.0]
    """
    x = _float(x, "sparse_plus")
    return where(less_equal(x, -1.0), 0.0,
                 where(greater_equal(x, 1.0), x, square(x + 1.0) * 0.25))


class _Named:
    def __init__(self, name):
        self.name = name


def _axis(name, axis, x):
    with located():
        return normalize_axis(_Named(name), axis, x.ndim, x.shape)


def sparsemax(x, axis=-1):
    """The Euclidean projection of x onto the probability simplex along `axis` (Martins and
    Astudillo, 2016): sparse probabilities. The support is found by comparing every pair of
    elements along the axis (memory of n**2 per row, for n classes).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.sparsemax(np.array([[1.0, 0.0, 3.0]], np.float32)).numpy().tolist()
        [[0.0, 0.0, 1.0]]
    """
    x = _float(x, "sparsemax")
    a = _axis("sparsemax", axis, x)
    last = x.ndim - 1
    if a != last:
        perm = list(range(x.ndim))
        perm[a], perm[last] = perm[last], perm[a]
        return transpose(sparsemax(transpose(x, perm)), perm)
    rows, cols = expand_dims(x, -1), expand_dims(x, -2)   # z_i down, z_j across
    above = cast(greater_equal(cols, rows), x.dtype)       # [i, j]: z_j >= z_i
    count = sum(above, axis=-1)                           # |{j: z_j >= z_i}|
    total = sum(above * cols, axis=-1)                    # sum of those z_j
    support = cast(greater(count * x + 1.0, total), x.dtype)
    k = sum(support, axis=-1, keepdims=True)
    tau = (sum(support * x, axis=-1, keepdims=True) - 1.0) / k
    return _relu(x - tau)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis` (an int, a tuple of ints, or None: all axes).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.softmax(np.zeros((1, 2), np.float32)).numpy().tolist()
        [[0.5, 0.5]]
    """
    x = _float(x, "softmax")
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return _act.softmax(x, axis=axis)
    return exp(log_softmax(x, axis=axis))


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis` (an int, a tuple of ints, or None: all axes).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.log_softmax(np.zeros((1, 2), np.float64)).numpy().round(6).tolist()
        [[-0.693147, -0.693147]]
    """
    x = _float(x, "log_softmax")
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return _act.log_softmax(x, axis=axis)
    with located():
        axes = normalize_axes(_Named("log_softmax"), axis, x.ndim, x.shape)
    return x - logsumexp(x, axis=axes, keepdims=True)


# ---- encodings ----------------------------------------------------------------------------

def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """Keras's `keras.ops.one_hot`: a new axis `axis` of size `num_classes` holding 1 at each
    class id of x and 0 elsewhere. Ids outside [0, num_classes) (and non-integer float ids)
    give rows of zeros, as Keras on JAX; float ids are compared as numbers. Dense only.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.one_hot(np.array([2, -1]), 3).numpy().tolist()
        [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
        >>> pd.ops.one_hot(np.array([1, 0]), 2, axis=0).numpy().tolist()
        [[0.0, 1.0], [1.0, 0.0]]
    """
    if sparse:
        raise ValueError(at_user("one_hot: paddle has no sparse tensors: expected "
                                 "sparse=False, received sparse=True"))
    if not isinstance(num_classes, (int, np.integer)) or isinstance(num_classes, bool) or \
            num_classes < 1:
        raise ValueError(at_user(f"one_hot: expected `num_classes` as an integer >= 1, "
                                 f"received {num_classes!r}"))
    x = as_variable(x, where="one_hot")
    if x.dtype == "bool":
        x = cast(x, "int32")
    out_axis = _axis("one_hot", axis, _Rank(x.ndim + 1))
    ids = constant(np.arange(int(num_classes)), dtype=x.dtype)
    hot = cast(equal(expand_dims(x, -1), ids), _out_dtype(dtype, "one_hot"))
    if out_axis == x.ndim:
        return hot
    perm = list(range(x.ndim))
    perm.insert(out_axis, x.ndim)
    return transpose(hot, perm)


class _Rank:
    """A stand-in with `ndim`/`shape` for axis checks of an output not built yet."""

    def __init__(self, ndim):
        self.ndim, self.shape = ndim, None


def _out_dtype(dtype, where):
    return "float32" if dtype is None else as_dtype(dtype, where)


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Keras's `keras.ops.multi_hot`: for each row of class ids (the last axis of rank-2
    inputs, or a 1-D input), 1 for each class present and 0 elsewhere. `num_tokens` is the
    old name of `num_classes`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.multi_hot(np.array([0, 4]), num_classes=5).numpy().tolist()
        [1.0, 0.0, 0.0, 0.0, 1.0]
    """
    if num_classes is None and "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if kwargs:
        raise TypeError(at_user(f"multi_hot: unexpected arguments {sorted(kwargs)}"))
    if num_classes is None:
        raise ValueError(at_user("multi_hot: expected `num_classes`, received None"))
    x = as_variable(inputs, where="multi_hot")
    hot = one_hot(x, num_classes, axis=axis, dtype="float32", sparse=sparse)
    return cast(reduce_max(hot, axis=1 if x.ndim > 1 else 0), _out_dtype(dtype, "multi_hot"))


# ---- statistics and normalizations --------------------------------------------------------

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


# ---- losses -------------------------------------------------------------------------------

def _same_shape(where, target, output):
    if target.shape != output.shape:
        with located():
            raise ShapeError(f"{where}: expected target and output of one shape, received "
                             f"target.shape={target.shape}, output.shape={output.shape}")


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy of probabilities (clipped to [1e-7, 1 - 1e-7]) or
    logits (Keras's `keras.ops.binary_crossentropy`; no reduction).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.binary_crossentropy(np.array([1.0], np.float64), np.array([0.5])).numpy().round(6).tolist()
        [0.693147]
    """
    target, output = _float_operands("binary_crossentropy", target, output)
    _same_shape("binary_crossentropy", target, output)
    if from_logits:
        return target * _act.softplus(-output) + (1.0 - target) * _act.softplus(output)
    output = minimum(maximum(output, EPSILON), 1.0 - EPSILON)
    return -(target * log(output) + (1.0 - target) * log(1.0 - output))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of one-hot (or soft) targets along `axis`; probabilities are
    renormalized and clipped to [1e-7, 1 - 1e-7] (Keras's `categorical_crossentropy`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> t, p = np.array([[0.0, 1.0]]), np.array([[0.5, 0.5]])
        >>> pd.ops.nn.categorical_crossentropy(t, p).numpy().round(6).tolist()
        [0.693147]
    """
    target, output = _float_operands("categorical_crossentropy", target, output)
    _same_shape("categorical_crossentropy", target, output)
    if output.ndim < 1:
        with located():
            raise ShapeError("categorical_crossentropy: expected target and output of rank "
                             ">= 1, received scalars")
    a = _axis("categorical_crossentropy", axis, output)
    return -sum(target * _log_prob(output, a, from_logits), axis=a)


def _log_prob(output, axis, from_logits):
    if from_logits:
        return _act.log_softmax(output, axis=axis)
    output = output / sum(output, axis=axis, keepdims=True)
    return log(minimum(maximum(output, EPSILON), 1.0 - EPSILON))


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of integer class ids (shaped like output without `axis`, or with a
    trailing 1) against probabilities or logits (Keras's `sparse_categorical_crossentropy`;
    ids outside the classes contribute 0, as Keras on JAX).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.sparse_categorical_crossentropy(np.array([1]), np.array([[0.5, 0.5]])).numpy().round(6).tolist()
        [0.693147]
    """
    (output,) = _float_operands("sparse_categorical_crossentropy", output)
    target = as_variable(target, where="sparse_categorical_crossentropy")
    if target.dtype in FLOATS:
        target = cast(target, "int32")
    if target.ndim == output.ndim and target.ndim and target.shape[-1] == 1:
        target = squeeze(target, -1)
    if output.ndim < 1:
        with located():
            raise ShapeError("sparse_categorical_crossentropy: expected output of rank >= 1, "
                             "received a scalar")
    a = _axis("sparse_categorical_crossentropy", axis, output)
    expected = output.shape[:a] + output.shape[a + 1:]
    if target.ndim != len(expected) or any(t is not None and e is not None and t != e
                                           for t, e in zip(target.shape, expected)):
        with located():
            raise ShapeError(f"sparse_categorical_crossentropy: expected target of shape "
                             f"{expected} (output without axis {axis}), received "
                             f"target.shape={target.shape}, output.shape={output.shape}")
    if output.shape[a] is None:
        with located():
            raise ShapeError(f"sparse_categorical_crossentropy: expected a known number of "
                             f"classes (axis {axis}), received output.shape={output.shape}")
    hot = one_hot(target, output.shape[a], axis=a, dtype=output.dtype)
    return -sum(hot * _log_prob(output, a, from_logits), axis=a)


# ---- attention ----------------------------------------------------------------------------

def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """softmax(query . key * scale + bias, masked) . value over 4-D inputs laid out as
    (batch, time, heads, depth), as Keras's `keras.ops.dot_product_attention`.

    Args:
        query: (B, T, N, H). key: (B, S, K, H) and value: (B, S, K, Hv), where K divides N
            (grouped-query attention when K < N).
        bias: broadcastable to (B, N, T, S), added to the logits.
        mask: bool, broadcastable to (B, N, T, S): False hides a key from a query.
        scale: multiplies the logits (default 1 / sqrt(H)).
        is_causal: hide the keys after each query (query t sees keys s <= t).
        flash_attention: None or False (True asks for a fused GPU kernel paddle lacks).
        attn_logits_soft_cap: if set, logits become logits / (1 + |logits| / cap), the
            formula Keras documents (Keras's JAX CPU path ignores it).

    Returns:
        (B, T, N, Hv).

    Example:
        >>> import numpy as np, paddle as pd
        >>> q = np.zeros((1, 2, 1, 4), np.float32)
        >>> v = np.arange(8, dtype=np.float32).reshape(1, 2, 1, 4)
        >>> pd.ops.nn.dot_product_attention(q, q, v).numpy()[0, :, 0].tolist()
        [[2.0, 3.0, 4.0, 5.0], [2.0, 3.0, 4.0, 5.0]]
    """
    if flash_attention:
        raise ValueError(at_user("dot_product_attention: flash_attention=True needs a fused "
                                 "attention kernel, which paddle does not have: pass None or "
                                 "False"))
    q, k, v = _float_operands("dot_product_attention", query, key, value)
    for label, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim != 4:
            with located():
                raise ShapeError(f"dot_product_attention: expected 4-D query, key and value "
                                 f"(batch, time, heads, depth), received {label}.shape="
                                 f"{t.shape}")
    n, kh = q.shape[2], k.shape[2]
    if None in (n, kh) or n % kh or k.shape[2] != v.shape[2] or q.shape[3] != k.shape[3]:
        with located():
            raise ShapeError(f"dot_product_attention: expected query heads divisible by key "
                             f"heads, equal key and value heads and equal query and key "
                             f"depths, received query.shape={q.shape}, key.shape={k.shape}, "
                             f"value.shape={v.shape}")
    if scale is None:
        if q.shape[3] is None:
            with located():
                raise ShapeError(f"dot_product_attention: expected a known depth to derive "
                                 f"the scale, received query.shape={q.shape}")
        scale = 1.0 / math.sqrt(q.shape[3])
    scale = _number(scale, "scale", "dot_product_attention")
    groups = n // kh
    if groups > 1:  # each key head serves `groups` query heads: repeat it
        k = _repeat_heads(k, groups)
        v = _repeat_heads(v, groups)
    logits = matmul(transpose(q, (0, 2, 1, 3)), transpose(k, (0, 2, 3, 1))) * scale
    if attn_logits_soft_cap is not None:
        cap = _number(attn_logits_soft_cap, "attn_logits_soft_cap", "dot_product_attention")
        logits = logits / (abs(logits) * (1.0 / cap) + 1.0)
    if bias is not None:
        (b,) = _float_operands("dot_product_attention", bias)
        logits = logits + cast(b, logits.dtype)
    keep = None
    if mask is not None:
        keep = as_variable(mask, where="dot_product_attention")
        keep = keep if keep.dtype == "bool" else cast(keep, "bool")
    if is_causal:
        t, s = q.shape[1], k.shape[1]
        if t is None or s is None:
            with located():
                raise ShapeError(f"dot_product_attention: is_causal needs known query and key "
                                 f"lengths, received query.shape={q.shape}, key.shape={k.shape}")
        causal = constant(np.tril(np.ones((t, s), bool)))
        keep = causal if keep is None else where(keep, causal, False)
    if keep is not None:
        logits = where(keep, logits, -0.7 * float(np.finfo(logits.dtype).max))
    probs = _act.softmax(logits, axis=-1)
    return transpose(matmul(probs, transpose(v, (0, 2, 1, 3))), (0, 2, 1, 3))


def _repeat_heads(t, groups):
    """(B, S, K, H) -> (B, S, K * groups, H), each head repeated `groups` times in a row."""
    b, s, kh, h = t.shape
    if b is None and s is None:
        with located():
            raise ShapeError(f"dot_product_attention: grouped heads need a known batch size or "
                             f"key length, received key.shape={t.shape}")
    stacked = concat([expand_dims(t, 3)] * groups, axis=3)
    return reshape(stacked, [b, s, kh * groups, h])
