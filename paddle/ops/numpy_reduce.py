"""Keras's reductions and orderings of `keras.ops.numpy`: sum/mean/max/min, all/any,
amax/amin, prod, argmax/argmin/argsort/sort/argpartition, cumsum/cumprod, unique,
searchsorted, digitize, isin (the statistics are in numpy_stats.py).

Built from the reductions (paddle/lowlevel/ops/reduce.py) and the ordering ops
(paddle/lowlevel/ops/sort.py: a stable argsort, take_along_axis, cumsum, cumprod), so each
has those ops' kernels and gradients: sort and the quantiles differentiate through the
gather of the sorted positions, prod through its own rule (zeros included).

Index results are int32, as Keras gives them; `argpartition` follows JAX's order (NumPy's
inside each part may differ).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    >>> pd.eval(pd.ops.sort(x)).tolist()
    [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]
    >>> pd.eval(pd.ops.median(x, axis=1)).tolist()
    [2.0, 4.0]
"""
import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.graph import (CONSTANT_CLASS, EAGER_FAST, FLOATS, Variable, apply, as_dtype,
                                   attrs_key, constant)
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import reduce as _r
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops import sort as _o
from paddle.lowlevel.ops.math import cast, where
from paddle.ops._arrays import axes_of, axis_of, fail, floats, known, promoted, tensor

__all__ = [
    "all", "amax", "amin", "any", "argmax", "argmin", "argpartition", "argsort",
    "count_nonzero", "cumprod", "cumsum", "diff", "digitize", "isin", "max", "mean", "min",
    "nanargmax", "nanargmin", "nancumprod", "nancumsum", "prod", "ptp", "searchsorted", "sort",
    "sum", "trapezoid", "unique"]


# ---- helpers ----------------------------------------------------------------------------

def _isnan(x):
    return _m.not_equal(x, x)  # true only for NaN


def _fill_nan(x, value):
    """x with NaN replaced by `value` (ints and bools have none)."""
    if x.dtype not in FLOATS:
        return x
    return where(_isnan(x), _m.zeros_like(x) + value, x)


def _numeric(x, where_):
    x = tensor(x, where_)
    return cast(x, "int32") if x.dtype == "bool" else x


def _all_nan(x, axes, keepdims):
    """Whether every element along `axes` is NaN (bool, reduced)."""
    return _m.equal(_r.min(cast(_isnan(x), "int32"), axis=axes, keepdims=keepdims), 1)


# ---- Keras's sum, mean, max, min --------------------------------------------------------

def sum(x, axis=None, keepdims=False):  # noqa: A001
    """The sum along `axis` (an int, a tuple, None: all); bool counts as int32.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.sum(pd.constant([[True, True], [False, True]]), axis=1)).tolist()
        [2, 1]
    """
    if x.__class__ is CONSTANT_CLASS[0] and keepdims.__class__ is bool:
        out = _fast_reduce(OPS["sum"], x, axis, keepdims)
        if out is not None:
            return out
    x = _numeric(x, "sum")
    axes = axes_of(x, axis, "sum")
    return _r.sum(x, axis=axes, keepdims=keepdims) if axes else x


# {(axis as given: None or an int, rank, keepdims, mean): the attributes of the reduction
# sum or mean makes of them, as graph.EAGER_FAST keys hold them}
_REDUCED = {}


def _fast_reduce(op, x, axis, keepdims, mean=False):
    """The reduction `op` of the eager tensor x over `axis` (None or an int in range) when
    graph.EAGER_FAST has the call: the one op sum (mean) makes of these arguments on an x
    of a dtype it keeps (a bool x, an integer x for mean, is cast first: their keys are
    never added, as the reduction refuses those dtypes), without building it; else None."""
    rank = len(x.shape)
    if not rank or (axis is not None and (axis.__class__ is not int or not -rank <= axis < rank)):
        return None
    attrs = _REDUCED.get((axis, rank, keepdims, mean))
    if attrs is None:
        axes = tuple(range(rank)) if axis is None else (axis % rank,)
        attrs = {"axis": axes, "keepdims": keepdims}
        if mean:
            attrs["mean"] = True
        attrs = _REDUCED[(axis, rank, keepdims, mean)] = attrs_key(attrs)
    fast = EAGER_FAST.get((op, attrs, x.shape, x.dtype))
    return None if fast is None else fast(x)


def mean(x, axis=None, keepdims=False):
    """The mean along `axis` (ints and bool give float32).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.mean(pd.constant([1, 2]))))
        1.5
    """
    if x.__class__ is CONSTANT_CLASS[0] and keepdims.__class__ is bool:
        out = _fast_reduce(OPS["sum"], x, axis, keepdims, mean=True)
        if out is not None:
            return out
    x = floats(tensor(x, "mean"))
    axes = axes_of(x, axis, "mean")
    return _r.mean(x, axis=axes, keepdims=keepdims) if axes else x


def _bounded(x, axis, keepdims, initial, reduce_, bound, where_):
    x = tensor(x, where_)
    axes = axes_of(x, axis, where_)
    if initial is not None and not isinstance(initial, (int, float, np.number)):
        fail(TypeError, f"{where_}: expected a number as initial, received {initial!r}")
    if initial is not None and 0 in [x.shape[a] for a in axes]:
        shape = [1 if a in axes else d for a, d in enumerate(x.shape)] if keepdims else \
            [d for a, d in enumerate(x.shape) if a not in axes]
        return _s.reshape(_m.zeros_like(_r.sum(x, axis=axes)), shape) + \
            cast(constant(initial), x.dtype)
    out = _extreme(x, axes, keepdims, reduce_, where_)
    return out if initial is None else bound(out, cast(constant(initial), out.dtype))


def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    """The largest element along `axis`, at least `initial` when given.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.max(pd.constant([[1, 5], [3, 2]]), axis=1, initial=4)).tolist()
        [5, 4]
    """
    return _bounded(x, axis, keepdims, initial, _r.max, _m.maximum, "max")


def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    """The smallest element along `axis`, at most `initial` when given.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.min(pd.constant([[1, 5], [3, 2]]), axis=0)).tolist()
        [1, 2]
    """
    return _bounded(x, axis, keepdims, initial, _r.min, _m.minimum, "min")


# ---- logical and extreme ----------------------------------------------------------------

def _truth(x, axis, keepdims, reduce_, where_):
    x = tensor(x, where_)
    axes = axes_of(x, axis, where_)
    nonzero = _m.not_equal(x, _m.zeros_like(x)) if x.dtype != "bool" else x
    # max / min reduce bools as they are (csrc/reduce.cpp): no cast to int32 and back
    return reduce_(nonzero, axis=axes, keepdims=keepdims) if axes else nonzero


def all(x, axis=None, keepdims=False):  # noqa: A001
    """Whether every element along `axis` is nonzero (bool).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.all(pd.constant([[1, 0], [1, 1]]), axis=1)).tolist()
        [False, True]
    """
    return _truth(x, axis, keepdims, _r.min, "all")


def any(x, axis=None, keepdims=False):  # noqa: A001
    """Whether some element along `axis` is nonzero (bool).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.any(pd.constant([[1, 0], [0, 0]]), axis=1)).tolist()
        [True, False]
    """
    return _truth(x, axis, keepdims, _r.max, "any")


def _extreme(x, axis, keepdims, reduce_, where_):
    x = tensor(x, where_)
    axes = axes_of(x, axis, where_)
    if not axes:
        return x
    return reduce_(x, axis=axes, keepdims=keepdims)  # bool too (max / min of bytes)


def amax(x, axis=None, keepdims=False):
    """The largest element along `axis` (NaN if one is NaN).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.amax(pd.constant([[1, 5], [3, 2]]), axis=0)).tolist()
        [3, 5]
    """
    return _extreme(x, axis, keepdims, _r.max, "amax")


def amin(x, axis=None, keepdims=False):
    """The smallest element along `axis` (NaN if one is NaN).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.amin(pd.constant([[1, 5], [3, 2]]), axis=0)).tolist()
        [1, 2]
    """
    return _extreme(x, axis, keepdims, _r.min, "amin")


def ptp(x, axis=None, keepdims=False):
    """max - min along `axis`.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.ptp(pd.constant([[1, 5], [3, 2]]), axis=1)).tolist()
        [4, 1]
    """
    x = _numeric(x, "ptp")
    return amax(x, axis, keepdims) - amin(x, axis, keepdims)


def count_nonzero(x, axis=None):
    """How many elements along `axis` are nonzero (int32).

    Example:
        >>> import paddle as pd
        >>> int(pd.eval(pd.ops.count_nonzero(pd.constant([0.0, 2.0, 3.0]))))
        2
    """
    x = tensor(x, "count_nonzero")
    axes = axes_of(x, axis, "count_nonzero")
    ones = cast(_m.not_equal(x, _m.zeros_like(x)), "int32")
    return _r.sum(ones, axis=axes) if axes else ones


# ---- products and running sums ----------------------------------------------------------

def _count_dtype(x, dtype, where_):
    if dtype is not None:
        return as_dtype(dtype, where_)
    return "int32" if x.dtype == "bool" else x.dtype


def prod(x, axis=None, keepdims=False, dtype=None):
    """The product of the elements along `axis` (bool counts as int32), a reduction; its
    gradient is the product of the other elements, zeros included.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.prod(pd.constant([[1, 2], [3, 4]]), axis=1)).tolist()
        [2, 12]
    """
    x = tensor(x, "prod")
    x = cast(x, _count_dtype(x, dtype, "prod"))
    axes = axes_of(x, axis, "prod")
    if not axes:
        return x
    sizes = [x.shape[a] for a in axes]
    if 0 in sizes:
        out = _r.sum(_m.zeros_like(x), axis=axes, keepdims=keepdims)
        return out + cast(constant(1), out.dtype)
    return _r.prod(x, axis=tuple(axes), keepdims=keepdims)


def _running(x, axis, dtype, op, where_, nan_value=None):
    x = tensor(x, where_)
    x = cast(x, _count_dtype(x, dtype, where_))
    if nan_value is not None:
        x = _fill_nan(x, nan_value)
    if axis is None:
        x, axis = _s.reshape(x, [-1]), 0
    return op(x, axis_of(x, axis, where_))


def cumsum(x, axis=None, dtype=None):
    """Running sum along `axis` (None: of the flattened x); bool counts as int32.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.cumsum(pd.constant([[1, 2], [3, 4]]))).tolist()
        [1, 3, 6, 10]
    """
    return _running(x, axis, dtype, _o.cumsum, "cumsum")


def cumprod(x, axis=None, dtype=None):
    """Running product along `axis` (None: of the flattened x); the gradient is exact where
    x has no zeros.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.cumprod(pd.constant([1, 2, 3]))).tolist()
        [1, 2, 6]
    """
    return _running(x, axis, dtype, _o.cumprod, "cumprod")


def nancumsum(x, axis=None, dtype=None):
    """cumsum with NaN counted as 0.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.eval(pd.ops.nancumsum(pd.constant([1.0, np.nan, 2.0]))).tolist()
        [1.0, 1.0, 3.0]
    """
    return _running(x, axis, dtype, _o.cumsum, "nancumsum", 0.0)


def nancumprod(x, axis=None, dtype=None):
    """cumprod with NaN counted as 1.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.eval(pd.ops.nancumprod(pd.constant([2.0, np.nan, 3.0]))).tolist()
        [2.0, 2.0, 6.0]
    """
    return _running(x, axis, dtype, _o.cumprod, "nancumprod", 1.0)


def diff(a, n=1, axis=-1):
    """The n-th difference along `axis` (a[1:] - a[:-1], n times; bool: not_equal).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.diff(pd.constant([1, 4, 9, 16]), n=2)).tolist()
        [2, 2]
    """
    x = tensor(a, "diff")
    if not isinstance(n, (int, np.integer)) or n < 0:
        fail(ValueError, f"diff: expected an order n >= 0, received {n!r}")
    ax = axis_of(x, axis, "diff")
    lead = (slice(None),) * ax
    for _ in range(int(n)):
        if x.dtype in ("float32", "float64", "int32", "int64") and x.shape[ax]:
            # a known, non-empty axis: one kernel reading x in place, no sliced copies
            x = _o.diff(x, ax)
            continue
        hi, lo = x[lead + (slice(1, None),)], x[lead + (slice(None, -1),)]
        x = _m.not_equal(hi, lo) if x.dtype == "bool" else hi - lo
    return x


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of y along `axis` by the trapezoidal rule, at sample points x (a 1-D
    tensor, or y's shape) or spaced `dx` apart.

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.trapezoid(pd.constant([1.0, 2.0, 3.0]))))
        4.0
    """
    y = floats(tensor(y, "trapezoid"))
    a = axis_of(y, axis, "trapezoid")
    lead = (slice(None),) * a
    mid = (y[lead + (slice(1, None),)] + y[lead + (slice(None, -1),)]) * 0.5
    if x is None:
        return _r.sum(mid, axis=a) * cast(tensor(dx, "trapezoid"), y.dtype)
    x = cast(tensor(x, "trapezoid"), y.dtype)
    if x.ndim == 1:
        d = x[1:] - x[:-1]
        d = _s.reshape(d, [-1] + [1] * (y.ndim - 1 - a))
    else:
        d = diff(x, axis=a)
    return _r.sum(mid * d, axis=a)


# ---- ordering ---------------------------------------------------------------------------

def _ordered(x, axis, where_):
    x = tensor(x, where_)
    if axis is None:
        x, axis = _s.reshape(x, [-1]), 0
    if x.ndim == 0:
        fail(ShapeError, f"{where_}: expected a tensor of rank >= 1, received a scalar")
    return x, axis_of(x, axis, where_)


def unique(x, sorted=True, return_index=False, return_inverse=False,  # noqa: A002
           return_counts=False, axis=None, size=None, fill_value=None):
    """The distinct elements of the flattened x, sorted, in a tensor of `size` (Keras's
    static-size form, which graph mode needs: the count of distinct values depends on the
    data); missing places hold `fill_value` (default: the smallest element, as JAX).
    With return_index / return_inverse / return_counts, also (int32) the first position of
    each, the place of each element among them, and how many times each occurs. The
    result is always sorted (as on JAX), whatever `sorted` says.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.unique(pd.constant([3, 1, 3, 2]), size=4, fill_value=-1)).tolist()
        [1, 2, 3, -1]
    """
    x = tensor(x, "unique")
    if axis is not None:
        fail(ValueError, f"unique: only axis=None (the flattened x) is supported, received "
                         f"axis={axis!r}")
    if not isinstance(size, (int, np.integer)) or size <= 0:
        fail(ValueError, f"unique: the number of distinct elements depends on the data; give "
                         f"it as size > 0 (Keras's static-size form), received size={size!r}")
    flat = _s.reshape(x, [-1])
    n = known(flat, [0], "unique")[0]
    if n == 0:
        fail(ValueError, "unique: expected at least one element")
    k = int(size)
    order = _o.argsort(cast(flat, "int32") if flat.dtype == "bool" else flat, 0)
    ordered = _o.take_along_axis(flat, order, 0)
    first = _s.concat([_m.equal(ordered[:1], ordered[:1]),
                       _m.not_equal(ordered[1:], ordered[:-1])], axis=0) if n > 1 else \
        _m.equal(ordered, ordered)
    starts = cast(first, "int64")
    place = _o.cumsum(starts, 0) - 1
    slot = where(first, _m.minimum(place, k), _m.zeros_like(place) + k)  # k: thrown away

    def gathered(values):  # per distinct value: `values` at its first element
        return _scatter(cast(values, "float64"), slot, k)

    count = _r.sum(starts)
    filled = _m.less(constant(np.arange(k, dtype=np.int64)), count)
    fill = amin(flat) if fill_value is None else cast(constant(fill_value), flat.dtype)
    values = where(filled, cast(gathered(ordered), flat.dtype), _m.zeros_like(
        cast(filled, flat.dtype)) + fill)
    out = [values]
    if return_index:
        index = cast(gathered(order), "int32")
        out.append(where(filled, index, _m.zeros_like(index) + index[:1]))
    if return_inverse:
        inverse = apply(OPS["take_along_axis_grad"],  # place[i] written at order[i]
                        [cast(place, "float64"), order, cast(flat, "float64")], {"axis": 0})
        out.append(_s.reshape(cast(inverse, "int32"), list(x.shape) if None not in x.shape
                              else [-1]))
    if return_counts:
        counts = _scatter(_m.ones_like(cast(starts, "float64")),
                          where(_m.less(place, k), place, _m.zeros_like(place) + k), k)
        out.append(cast(counts, "int32"))
    return out[0] if len(out) == 1 else tuple(out)


def _scatter(rows, positions, k):
    """The sums of float64 `rows` at `positions` in [0, k], without the last (k: discarded)."""
    like = constant(np.zeros(k + 1))
    return apply(OPS["scatter_add"], [rows, positions, like], {"axis": 0})[:k]


def argsort(x, axis=-1):
    """int32 positions that sort x along `axis` (None: flattened), stable, NaN last.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.argsort(pd.constant([3.0, 1.0, 2.0]))).tolist()
        [1, 2, 0]
    """
    x, a = _ordered(x, axis, "argsort")
    return cast(_o.argsort(_numeric(x, "argsort"), a), "int32")


def sort(x, axis=-1):
    """x sorted along `axis` (None: flattened), NaN last; the gradient goes back to each
    element's place.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.sort(pd.constant([3, 1, 2]))).tolist()
        [1, 2, 3]
    """
    x, a = _ordered(x, axis, "sort")
    order = _o.argsort(_numeric(x, "sort"), a)
    return _o.take_along_axis(x, order, a)


def argpartition(x, kth, axis=-1):
    """int32 positions that put the kth element of x (along `axis`) in its sorted place,
    smaller ones before and larger after, in JAX's order: the kth + 1 smallest sorted (ties
    by position), then the others by position.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.argpartition(pd.constant([3, 1, 2, 0]), 1)).tolist()
        [3, 1, 0, 2]
    """
    x, a = _ordered(x, axis, "argpartition")
    n = known(x, [a], "argpartition")[0]
    if not isinstance(kth, (int, np.integer)) or isinstance(kth, bool) or not -n <= kth < n:
        fail(ValueError, f"argpartition: expected an integer kth in [-{n}, {n}), received "
                         f"{kth!r}")
    k = int(kth) % n + 1
    bottom = _o.argsort(_numeric(x, "argpartition"), a, k=k)
    if k == n:
        return cast(bottom, "int32")
    taken = apply(OPS["take_along_axis_grad"],  # 1 at the positions in bottom
                  [_m.ones_like(cast(bottom, "float32")), bottom,
                   _m.zeros_like(cast(x, "float32"))], {"axis": a})
    rest = _o.argsort(1.0 - taken, a, descending=True, k=n - k)  # the others, by position
    return cast(_s.concat([bottom, rest], axis=a), "int32")


def _arg(x, axis, keepdims, where_, smallest, nan_skip=False):
    x = _numeric(x, where_)
    if nan_skip and x.dtype in FLOATS:
        x = _fill_nan(x, np.inf if smallest else -np.inf)
    if smallest:  # argmin as argmax of a decreasing map: -x, or -1 - x for integers
        x = -x if x.dtype in FLOATS else cast(constant(-1), x.dtype) - x
    if axis is None:
        out = _r.argmax(_s.reshape(x, [-1]), axis=0)
        out = _s.reshape(out, [1] * x.ndim) if keepdims else out
    else:
        a = axis_of(x, axis, where_)
        out = _r.argmax(x, axis=a, keepdims=keepdims)
    return cast(out, "int32")


def argmax(x, axis=None, keepdims=False):
    """int32 index of the largest element along `axis` (None: of the flattened x), the first
    on ties; NaN counts as the largest.

    Example:
        >>> import paddle as pd
        >>> int(pd.eval(pd.ops.argmax(pd.constant([[1, 5], [7, 2]]))))
        2
    """
    return _arg(x, axis, keepdims, "argmax", False)


def argmin(x, axis=None, keepdims=False):
    """int32 index of the smallest element along `axis` (None: of the flattened x).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.argmin(pd.constant([[1, 5], [7, 2]]), axis=1)).tolist()
        [0, 1]
    """
    return _arg(x, axis, keepdims, "argmin", True)


def nanargmax(x, axis=None, keepdims=False):
    """argmax ignoring NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> int(pd.eval(pd.ops.nanargmax(pd.constant([1.0, np.nan, 3.0]))))
        2
    """
    return _arg(x, axis, keepdims, "nanargmax", False, nan_skip=True)


def nanargmin(x, axis=None, keepdims=False):
    """argmin ignoring NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> int(pd.eval(pd.ops.nanargmin(pd.constant([np.nan, 1.0, 3.0]))))
        1
    """
    return _arg(x, axis, keepdims, "nanargmin", True, nan_skip=True)


def searchsorted(sorted_sequence, values, side="left"):
    """int32 positions at which `values` would be inserted into the 1-D increasing
    `sorted_sequence` to keep it sorted ('left': before equal elements, 'right': after),
    by a binary search per value (NaN counts as above everything, as NumPy sorts it).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.searchsorted(pd.constant([1, 3, 5]), pd.constant([3, 6]))).tolist()
        [1, 3]
    """
    seq = tensor(sorted_sequence, "searchsorted")
    values = tensor(values, "searchsorted")
    if seq.ndim != 1:
        fail(ShapeError, f"searchsorted: expected a 1-D sorted_sequence, received shape "
                         f"{seq.shape}")
    if side not in ("left", "right"):
        fail(ValueError, f"searchsorted: expected side 'left' or 'right', received {side!r}")
    dtype = promoted(seq, values)
    # The search runs on float32, float64, int32 or int64: the narrower dtypes widen
    # exactly (bool, int8, uint8 to int32; float16, bfloat16 to float32).
    dtype = {"bool": "int32", "int8": "int32", "uint8": "int32", "float16": "float32",
             "bfloat16": "float32"}.get(dtype, dtype)
    return _o.searchsorted(cast(seq, dtype), cast(values, dtype), side)


def digitize(x, bins):
    """int32 index of the bin of each element: i with bins[i-1] <= x < bins[i] for
    increasing bins (bins[i-1] > x >= bins[i] for non-increasing constant ones), as np.digitize.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.digitize(pd.constant([0.5, 1.0, 3.5]), [1.0, 2.0, 3.0])).tolist()
        [0, 1, 3]
    """
    # NumPy's monotonicity: non-increasing (repeats allowed), and not constant
    steps = None if isinstance(bins, Variable) else np.diff(np.asarray(bins).reshape(-1))
    decreasing = steps is not None and bool(np.all(steps <= 0)) and bool(np.any(steps < 0))
    bins = tensor(bins, "digitize")
    if decreasing:
        n = bins.shape[0]
        # NumPy: len(bins) - searchsorted(bins[::-1], x, 'right') (x equal to bins[i] is
        # in bin i + 1: bins[i] > x >= bins[i + 1] is bin i + 1)
        return cast(constant(n), "int32") - searchsorted(_s.reverse(bins, 0), x, side="right")
    return searchsorted(bins, x, side="right")


# isin with at most this many values compares each element with each value.
_FEW_VALUES = 16


def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of x1 is among the elements of x2 (bool): x2 sorted once, each
    element of x1 looked up in it by a binary search (searchsorted).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.isin(pd.constant([1, 2, 3]), [2, 5])).tolist()
        [False, True, False]
    """
    x1, x2 = tensor(x1, "isin"), tensor(x2, "isin")
    dtype = promoted(x1, x2)
    x1, x2 = cast(x1, dtype), _s.reshape(cast(x2, dtype), [-1])
    n = known(x2, [0], "isin")[0]
    if n == 0:
        found = _m.less(_m.zeros_like(cast(x1, "int32")), 0)
    elif n <= _FEW_VALUES:
        # A few values: x1 == x2[0] or x1 == x2[1] or ..., one fused pass over x1 (the
        # sort and search below is a sort of all of x1 with them)
        found = None
        for k in range(n):
            hit = _m.equal(x1, x2[k])
            found = hit if found is None else where(hit, True, found)
    else:
        table = sort(x2)
        at = _m.minimum(cast(searchsorted(table, x1), "int64"), n - 1)
        found = _m.equal(_s.gather(table, _s.reshape(at, [-1])), _s.reshape(x1, [-1]))
        found = _s.reshape(found, list(x1.shape) if None not in x1.shape else [-1])
    return _m.equal(cast(found, "int32"), 0) if invert else found
