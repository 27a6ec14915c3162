"""`pd.ops.nn`: Keras's `keras.ops.nn` namespace: activations, normalizations, losses,
`moments`, `psnr`, `multi_hot`, `depth_to_space`, `space_to_depth` and
`dot_product_attention`, with Keras's names, signatures,
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
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import as_dtype, as_variable, constant
from paddle.lowlevel.ops import activations as _act
from paddle.lowlevel.ops.math import (abs, cast, equal, exp, greater, greater_equal, less,
                                      less_equal, maximum, minimum, sqrt, square, tanh, where)
from paddle.lowlevel.ops.math import relu as _relu
from paddle.lowlevel.ops.math import sigmoid as _sigmoid
from paddle.lowlevel.ops.reduce import max as reduce_max
from paddle.lowlevel.ops.reduce import sum
from paddle.lowlevel.ops.shape import expand_dims, reshape, split, transpose
from paddle.lowlevel.shapes import located, normalize_axes, normalize_axis
from paddle.ops.attention import dot_product_attention  # noqa: F401
from paddle.ops.crossentropy import (  # noqa: F401
    binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy)
from paddle.ops.numpy_math import logsumexp
from paddle.ops.normalization import (  # noqa: F401
    batch_normalization, layer_normalization, moments, normalize, psnr, rms_normalization)
from paddle.ops.promotion import Named as _Named
from paddle.ops.promotion import axis_of as _axis
from paddle.ops.promotion import float_tensor as _float
from paddle.ops.promotion import number as _number
from paddle.ops.promotion import tensor as _tensor
from paddle.ops.convolutions import (  # noqa: F401  (keras.ops.nn gathers them)
    adaptive_average_pool, adaptive_max_pool, average_pool, conv, conv_transpose,
    depthwise_conv, max_pool, separable_conv)
from paddle.ops.complex import polar  # noqa: F401  (keras.ops.nn.polar)
from paddle.ops.ctc import ctc_decode, ctc_loss  # noqa: F401
from paddle.ops.patches import fold, unfold  # noqa: F401

__all__ = [
    "relu", "relu6", "sigmoid", "sparse_sigmoid", "softplus", "softsign", "silu", "swish",
    "log_sigmoid", "leaky_relu", "hard_sigmoid", "hard_silu", "hard_swish", "elu", "selu",
    "gelu", "celu", "glu", "tanh_shrink", "hard_tanh", "hard_shrink", "soft_shrink",
    "threshold", "squareplus", "sparse_plus", "sparsemax", "softmax", "log_softmax",
    "one_hot", "multi_hot", "moments", "batch_normalization", "layer_normalization",
    "rms_normalization", "normalize", "psnr", "binary_crossentropy", "depth_to_space",
    "space_to_depth",
    "categorical_crossentropy", "sparse_categorical_crossentropy", "dot_product_attention",
    # the convolution, pooling and CTC family (paddle/ops/convolutions.py, ctc.py)
    'adaptive_average_pool', 'adaptive_max_pool', 'average_pool', 'conv', 'conv_transpose', 'ctc_decode', 'ctc_loss', 'depthwise_conv', 'max_pool', 'separable_conv',
    # im2col and col2im (paddle/ops/patches.py)
    "fold", "unfold", "polar"]


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
    # relu(x / 2 + 1 / 2)^2 is (x + 1)^2 / 4 above -1 (the same rounding: halving is
    # exact) and 0 below: 6 elementwise passes where two selects took 7.
    return where(greater_equal(x, 1.0), x, square(_relu(x * 0.5 + 0.5)))


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


# ---- rearrangements -----------------------------------------------------------------------

def _blocks(name, x, block_size, data_format):
    """x as a Variable with its (batch, height, width, channels) sizes, after the checks."""
    x = _tensor(x, name)
    if not isinstance(block_size, (int, np.integer)) or isinstance(block_size, bool) or \
            block_size < 1:
        raise ValueError(at_user(f"{name}: expected `block_size` as an integer >= 1, received "
                                 f"{block_size!r}"))
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(at_user(f"{name}: expected data_format 'channels_last' or "
                                 f"'channels_first', received {data_format!r}"))
    if x.ndim != 4 or None in x.shape[1:]:
        with located():
            raise ShapeError(f"{name}: expected a 4-D input with known sizes but the batch, "
                             f"received shape {x.shape}")
    n, c = x.shape[0], x.shape[3 if data_format == "channels_last" else 1]
    h, w = x.shape[1:3] if data_format == "channels_last" else x.shape[2:]
    return x, int(block_size), (n, h, w, c)


def depth_to_space(x, block_size, data_format="channels_last"):
    """Pixel shuffle: channels moved into `block_size` x `block_size` spatial blocks, as
    Keras's `keras.ops.nn.depth_to_space` ((N, H, W, C) -> (N, H*b, W*b, C / b**2)).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(4.0).reshape(1, 1, 1, 4)
        >>> pd.ops.nn.depth_to_space(x, 2).numpy()[0, :, :, 0].tolist()
        [[0.0, 1.0], [2.0, 3.0]]
    """
    x, b, (n, h, w, c) = _blocks("depth_to_space", x, block_size, data_format)
    if c % (b * b):
        with located():
            raise ShapeError(f"depth_to_space: expected channels divisible by block_size**2 = "
                             f"{b * b}, received shape {x.shape}")
    new_c = c // (b * b)
    if data_format == "channels_last":
        x = transpose(reshape(x, (n, h, w, b, b, new_c)), (0, 1, 3, 2, 4, 5))
        return reshape(x, (n, h * b, w * b, new_c))
    x = transpose(reshape(x, (n, new_c, b, b, h, w)), (0, 1, 4, 2, 5, 3))
    return reshape(x, (n, new_c, h * b, w * b))


def space_to_depth(x, block_size, data_format="channels_last"):
    """Pixel unshuffle, the inverse of `depth_to_space` ((N, H, W, C) ->
    (N, H/b, W/b, C * b**2)), as Keras's `keras.ops.nn.space_to_depth`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(4.0).reshape(1, 2, 2, 1)
        >>> pd.ops.nn.space_to_depth(x, 2).numpy().tolist()
        [[[[0.0, 1.0, 2.0, 3.0]]]]
    """
    x, b, (n, h, w, c) = _blocks("space_to_depth", x, block_size, data_format)
    if h % b or w % b:
        with located():
            raise ShapeError(f"space_to_depth: expected height and width divisible by "
                             f"block_size = {b}, received shape {x.shape}")
    if data_format == "channels_last":
        x = transpose(reshape(x, (n, h // b, b, w // b, b, c)), (0, 1, 3, 2, 4, 5))
        return reshape(x, (n, h // b, w // b, c * b * b))
    x = transpose(reshape(x, (n, c, h // b, b, w // b, b)), (0, 1, 3, 5, 2, 4))
    return reshape(x, (n, c * b * b, h // b, w // b))
