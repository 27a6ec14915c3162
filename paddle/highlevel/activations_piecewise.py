"""Keras 3's newer activations, composed from paddle's ops: the piecewise ones (`celu`,
`hard_shrink`, `soft_shrink`, `hard_tanh`, `hard_silu`, `sparse_plus`, `sparse_sigmoid`,
`threshold`), the smooth ones (`log_sigmoid`, `squareplus`, `tanh_shrink`), the gated
`glu` and the sparse probability map `sparsemax`.

`pd.activations` re-exports them and knows their names (`activation="hard_silu"`).
Their gradients come from the ops they are made of. At the kinks they are JAX's (Keras's
reference backend) except `sparse_sigmoid`'s, whose docstring says how.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.array([-2.0, -0.5, 0.25, 3.0], np.float32))
    >>> pd.eval(pd.activations.hard_tanh(x)).tolist()
    [-1.0, -0.5, 0.25, 1.0]
"""
import numbers

from paddle.lowlevel.graph import FLOATS, as_variable
from paddle.lowlevel.ops import activations as _ops
from paddle.lowlevel.ops.math import abs as _abs
from paddle.lowlevel.ops.math import (cast, exp, greater, greater_equal, less, less_equal,
                                      maximum, minimum, relu, sigmoid, sqrt, square, tanh,
                                      where)
from paddle.lowlevel.ops.reduce import sum as _sum
from paddle.lowlevel.ops.shape import expand_dims, split

__all__ = ["celu", "glu", "hard_shrink", "hard_silu", "hard_swish", "hard_tanh",
           "log_sigmoid", "soft_shrink", "sparse_plus", "sparse_sigmoid", "sparsemax",
           "squareplus", "tanh_shrink", "threshold"]


def _float(x, name):
    x = as_variable(x, where=name)
    if x.dtype not in FLOATS:
        raise TypeError(f"activations.{name}: expected a float input, received {x.dtype}")
    return x


def _number(value, name, what, positive=False, nonnegative=False):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or value != value or \
            (positive and not value > 0) or (nonnegative and not value >= 0):
        rule = " > 0" if positive else " >= 0" if nonnegative else ""
        raise ValueError(f"activations.{name}: expected {what} as a number{rule}, received "
                         f"{value!r}")
    return float(value)


def _axis(axis, x, name):
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral) or \
            not -x.ndim <= axis < x.ndim:
        raise ValueError(f"activations.{name}: expected axis as an integer in [-{x.ndim}, "
                         f"{x.ndim}) for an input of shape {x.shape}, received {axis!r}")
    return int(axis) % x.ndim


def celu(x, alpha=1.0):
    """Continuously differentiable elu: x where x > 0, alpha * (exp(x / alpha) - 1) else.

    Args:
        x: a float Variable (or array).
        alpha: the scale of the negative part (> 0).

    Example:
        >>> import paddle as pd
        >>> [round(v, 4) for v in pd.eval(pd.activations.celu([-1.0, 0.0, 2.0], 2.0)).tolist()]
        [-0.7869, 0.0, 2.0]
    """
    x = _float(x, "celu")
    alpha = _number(alpha, "celu", "alpha", positive=True)
    # exp of min(x, 0): the branch not taken must stay finite, or its zero gradient times
    # an infinite exp would be NaN.
    return where(greater(x, 0.0), x, (exp(minimum(x, 0.0) / alpha) - 1.0) * alpha)


def glu(x, axis=-1):
    """Gated linear unit: the input cut in two halves a, b along `axis`, a * sigmoid(b).

    Args:
        x: a float Variable whose `axis` has an even, known size.
        axis: the axis cut in two (-1).
    Returns:
        A Variable with half the size along `axis`.

    Example:
        >>> import paddle as pd
        >>> [round(v, 4) for v in pd.eval(pd.activations.glu([[1.0, 2.0, 0.0, 3.0]]))[0].tolist()]
        [0.5, 1.9051]
    """
    x = _float(x, "glu")
    axis = _axis(axis, x, "glu")
    size = x.shape[axis]
    if size is None or size % 2:
        raise ValueError(f"activations.glu: expected an even, known size along axis {axis}, "
                         f"received an input of shape {x.shape}")
    a, b = split(x, 2, axis=axis)
    return a * sigmoid(b)


def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, 0 elsewhere.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.hard_shrink([-1.0, 0.25, 0.5, 0.75])).tolist()
        [-1.0, 0.0, 0.0, 0.75]
    """
    x = _float(x, "hard_shrink")
    threshold = _number(threshold, "hard_shrink", "threshold", nonnegative=True)
    return where(greater(_abs(x), threshold), x, 0.0)


def soft_shrink(x, threshold=0.5):
    """x - threshold above threshold, x + threshold below -threshold, 0 between.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.soft_shrink([-1.0, 0.25, 0.75])).tolist()
        [-0.5, 0.0, 0.25]
    """
    x = _float(x, "soft_shrink")
    threshold = _number(threshold, "soft_shrink", "threshold", nonnegative=True)
    return where(greater(x, threshold), x - threshold,
                 where(less(x, -threshold), x + threshold, 0.0))


def hard_tanh(x):
    """x clipped to [-1, 1] (derivative 1 at the ends).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.hard_tanh([-3.0, 0.5, 2.0])).tolist()
        [-1.0, 0.5, 1.0]
    """
    x = _float(x, "hard_tanh")
    return minimum(maximum(x, -1.0), 1.0)


def hard_silu(x):
    """x * hard_sigmoid(x) = x * relu6(x + 3) / 6 (also named hard_swish).

    Example:
        >>> import paddle as pd
        >>> [round(v, 4) for v in pd.eval(pd.activations.hard_silu([-1.0, 1.5, 4.0])).tolist()]
        [-0.3333, 1.125, 4.0]
    """
    x = _float(x, "hard_silu")
    # relu6's derivative is 0 at both ends (as JAX's relu6, Keras's reference): so the
    # derivative is 0 at x = -3 and 1 at x = 3.
    gate = where(less_equal(x, -3.0), 0.0, where(greater_equal(x, 3.0), 1.0, x / 6.0 + 0.5))
    return x * gate


hard_swish = hard_silu


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), computed stably.

    Example:
        >>> import paddle as pd
        >>> [round(v, 4) for v in pd.eval(pd.activations.log_sigmoid([-50.0, 0.0, 2.0])).tolist()]
        [-50.0, -0.6931, -0.1269]
    """
    x = _float(x, "log_sigmoid")
    return -_ops.softplus(-x)


def sparse_plus(x):
    """0 for x <= -1, (x + 1) ** 2 / 4 for -1 < x < 1, x for x >= 1: a softplus with a
    bounded smooth part (continuously differentiable).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.sparse_plus([-2.0, 0.0, 0.5, 3.0])).tolist()
        [0.0, 0.25, 0.5625, 3.0]
    """
    x = _float(x, "sparse_plus")
    inner = minimum(maximum(x, -1.0), 1.0)
    # at x >= 1 the quadratic reaches 1 and relu(x - 1) adds the rest: x.
    return square(inner + 1.0) * 0.25 + relu(x - 1.0)


def sparse_sigmoid(x):
    """0 for x <= -1, (x + 1) / 2 for -1 < x < 1, 1 for x >= 1 (derivative 1/2 at the
    kinks x = -1 and x = 1; JAX splits the tie there and gives 1/4).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.sparse_sigmoid([-2.0, 0.0, 0.5, 3.0])).tolist()
        [0.0, 0.5, 0.75, 1.0]
    """
    x = _float(x, "sparse_sigmoid")
    return minimum(maximum(x + 1.0, 0.0), 2.0) * 0.5


def squareplus(x, b=4):
    """(x + sqrt(x ** 2 + b)) / 2: a smooth relu without exponentials.

    Args:
        x: a float Variable (or array).
        b: how smooth the bend at 0 is (>= 0; 0 gives relu).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.squareplus([-1.5, 0.0, 1.5])).tolist()
        [0.5, 1.0, 2.0]
    """
    x = _float(x, "squareplus")
    b = _number(b, "squareplus", "b", nonnegative=True)
    return (x + sqrt(square(x) + b)) * 0.5


def tanh_shrink(x):
    """x - tanh(x).

    Example:
        >>> import paddle as pd
        >>> [round(v, 4) for v in pd.eval(pd.activations.tanh_shrink([-1.0, 0.0, 2.0])).tolist()]
        [-0.2384, 0.0, 1.036]
    """
    x = _float(x, "tanh_shrink")
    return x - tanh(x)


def threshold(x, threshold, default_value):
    """x where x > threshold, default_value elsewhere (both arguments required, as Keras).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.threshold([-1.0, 0.5, 2.0], 0.5, -9.0)).tolist()
        [-9.0, -9.0, 2.0]
    """
    x = _float(x, "threshold")
    cut = _number(threshold, "threshold", "threshold")
    default = _number(default_value, "threshold", "default_value")
    return where(greater(x, cut), x, default)


def sparsemax(x, axis=-1):
    """Sparsemax (Martins & Astudillo, 2016): the Euclidean projection of x onto the
    probability simplex along `axis`, max(x - tau, 0), with tau chosen so each slice sums
    to 1. Unlike softmax it gives exact zeros.

    tau is found without sorting: an entry z_j is in the support when
    1 + c_j * z_j > s_j, where c_j counts the entries >= z_j and s_j sums them; then
    tau = (sum of the support - 1) / (its size). This compares every pair of entries along
    `axis` (memory n ** 2 per slice), fine for class counts, not for long axes.

    (Keras 3.15.1 computes tau from the sum of the cumulative sums over the support, so
    its outputs do not sum to 1 when two or more entries are kept; paddle gives the
    projection.)

    Args:
        x: a float Variable (or array).
        axis: the axis of each distribution (-1).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.activations.sparsemax([[1.0, 0.5, 0.0], [0.3, -1.0, 2.0]])).tolist()
        [[0.75, 0.25, 0.0], [0.0, 0.0, 1.0]]
    """
    x = _float(x, "sparsemax")
    axis = _axis(axis, x, "sparsemax")
    rows = expand_dims(x, axis + 1)   # z_j along axis, the others along axis + 1
    cols = expand_dims(x, axis)       # z_i along axis + 1
    at_least = cast(less_equal(rows, cols), x.dtype)  # [j, i]: z_i >= z_j
    count = _sum(at_least, axis=axis + 1)
    total = _sum(at_least * cols, axis=axis + 1)
    support = cast(greater(count * x + 1.0, total), x.dtype)
    size = _sum(support, axis=axis, keepdims=True)
    tau = (_sum(support * x, axis=axis, keepdims=True) - 1.0) / size
    return relu(x - tau)
