"""Keras's reductions, orderings and statistics of `keras.ops.numpy`: all/any, amax/amin,
prod, argmax/argmin/argsort/sort, cumsum/cumprod, the nan* family, quantiles, var/std,
searchsorted, histogram, correlate, ...

Built from the reductions (paddle/lowlevel/ops/reduce.py) and the ordering ops
(paddle/lowlevel/ops/sort.py: a stable argsort, take_along_axis, cumsum, cumprod), so each
has those ops' kernels and gradients: sort and the quantiles differentiate through the
gather of the sorted positions, prod through cumprod (exact where x has no zeros).

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
from paddle.lowlevel.graph import FLOATS, Variable, apply, as_dtype, constant
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import reduce as _r
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops import sort as _o
from paddle.lowlevel.ops.math import cast, where
from paddle.lowlevel.ops.matmul import matmul as _matmul
from paddle.ops._arrays import (axes_of, axis_of, fail, floats, known, result_type, tensor,
                                to_last)

__all__ = [
    "all", "amax", "amin", "any", "argmax", "argmin", "argpartition", "argsort", "average",
    "bincount", "correlate", "count_nonzero", "cumprod", "cumsum", "diff", "digitize",
    "histogram", "isin", "median", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
    "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile",
    "nanstd", "nansum", "nanvar", "percentile", "prod", "ptp", "quantile", "searchsorted",
    "sort", "std", "trapezoid", "var", "sum", "mean", "max", "min", "corrcoef",
    "unique"]


# ---- helpers ----------------------------------------------------------------------------

def _keep(out, x, axes, keepdims):
    """out (x reduced over `axes`) with size-1 axes put back where they were, if keepdims."""
    if not keepdims:
        return out
    for a in axes:
        out = _s.expand_dims(out, a)
    return out


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
    x = _numeric(x, "sum")
    axes = axes_of(x, axis, "sum")
    return _r.sum(x, axis=axes, keepdims=keepdims) if axes else x


def mean(x, axis=None, keepdims=False):
    """The mean along `axis` (ints and bool give float32).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.mean(pd.constant([1, 2]))))
        1.5
    """
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
    nonzero = cast(_m.not_equal(x, _m.zeros_like(x)), "int32") if x.dtype != "bool" else \
        cast(x, "int32")
    if not axes:
        return cast(nonzero, "bool")
    return cast(reduce_(nonzero, axis=axes, keepdims=keepdims), "bool")


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
    if x.dtype == "bool":
        return cast(reduce_(cast(x, "int32"), axis=axes, keepdims=keepdims), "bool")
    return reduce_(x, axis=axes, keepdims=keepdims)


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
    """The product of the elements along `axis` (bool counts as int32), as the last entry of
    a running product; its gradient is exact where x has no zeros.

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
    rows = to_last(x, axes)
    out = _o.cumprod(rows, rows.ndim - 1)[(Ellipsis, -1)]
    return _keep(out, x, axes, keepdims)


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
    `sorted_sequence` to keep it sorted ('left': before equal elements, 'right': after).
    One stable sort of both together: each value's position counts the sequence's
    elements sorted before it.

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
    dtype = result_type(seq.dtype, values.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    seq, flat = cast(seq, dtype), _s.reshape(cast(values, dtype), [-1])
    m = known(flat, [0], "searchsorted")[0]
    n = known(seq, [0], "searchsorted")[0]
    if m == 0 or n == 0:
        return cast(_m.zeros_like(cast(values, "float32")), "int32")
    # Ties: the values first ('left': before the sequence's equal elements) or last.
    parts = [flat, seq] if side == "left" else [seq, flat]
    marks = [np.zeros(m), np.ones(n)] if side == "left" else [np.ones(n), np.zeros(m)]
    order = _o.argsort(_s.concat(parts, axis=0), 0)
    from_seq = _o.take_along_axis(constant(np.concatenate(marks)), order, 0)
    before = _o.cumsum(from_seq, 0)  # at a value: the sequence's elements sorted before it
    back = apply(OPS["take_along_axis_grad"], [before, order, cast(order, "float64")],
                 {"axis": 0})  # before[p] written at the original position order[p]
    mine = back[:m] if side == "left" else back[n:]
    return _s.reshape(cast(mine, "int32"), list(values.shape) if None not in values.shape
                      else [-1])


def digitize(x, bins):
    """int32 index of the bin of each element: i with bins[i-1] <= x < bins[i] for
    increasing bins (bins[i-1] > x >= bins[i] for decreasing constant ones), as np.digitize.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.digitize(pd.constant([0.5, 1.0, 3.5]), [1.0, 2.0, 3.0])).tolist()
        [0, 1, 3]
    """
    decreasing = not isinstance(bins, Variable) and np.asarray(bins).size > 1 and \
        np.all(np.diff(np.asarray(bins)) < 0)
    bins = tensor(bins, "digitize")
    if decreasing:
        n = bins.shape[0]
        return cast(constant(n), "int32") - searchsorted(_s.reverse(bins, 0), x, side="left")
    return searchsorted(bins, x, side="right")


def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of x1 is among the elements of x2 (bool): x2 sorted, each
    element of x1 looked up in it with searchsorted.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.isin(pd.constant([1, 2, 3]), [2, 5])).tolist()
        [False, True, False]
    """
    x1, x2 = tensor(x1, "isin"), tensor(x2, "isin")
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = cast(x1, dtype), _s.reshape(cast(x2, dtype), [-1])
    n = known(x2, [0], "isin")[0]
    if n == 0:
        found = _m.less(_m.zeros_like(cast(x1, "int32")), 0)
    else:
        table = sort(x2)
        at = _m.minimum(cast(searchsorted(table, x1), "int64"), n - 1)
        found = _m.equal(_s.gather(table, _s.reshape(at, [-1])), _s.reshape(x1, [-1]))
        found = _s.reshape(found, list(x1.shape) if None not in x1.shape else [-1])
    return _m.equal(cast(found, "int32"), 0) if invert else found


def bincount(x, weights=None, minlength=0, sparse=False):
    """How many times each value 0..minlength-1 occurs in the 1-D (or, per row, 2-D)
    non-negative int x, or the sum of their `weights`. The length must be known when the
    graph is built: `minlength` gives it, and a value >= minlength raises when the graph
    runs (NumPy and Keras would lengthen the result).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.bincount(pd.constant([0, 1, 1, 3]), minlength=4)).tolist()
        [1, 2, 0, 1]
    """
    x = tensor(x, "bincount")
    if sparse:
        fail(ValueError, "bincount: sparse=True is not supported (paddle has no sparse tensors)")
    if x.dtype not in ("int32", "int64") or x.ndim not in (1, 2):
        fail(TypeError, f"bincount: expected a 1-D or 2-D integer x, received {x.dtype} of "
                        f"shape {x.shape}")
    if not isinstance(minlength, (int, np.integer)) or minlength <= 0:
        fail(ValueError, f"bincount: the length of the result depends on the values of x; "
                         f"give it as minlength > 0, received minlength={minlength!r}")
    if weights is None:
        return _r.sum(_s.one_hot(x, int(minlength), dtype="int32"), axis=-2)
    weights = tensor(weights, "bincount")
    dtype = weights.dtype if weights.dtype != "bool" else "int32"
    counts = _s.one_hot(x, int(minlength), dtype=dtype)
    return _r.sum(counts * _s.expand_dims(cast(weights, dtype), -1), axis=-2)


def histogram(x, bins=10, range=None):  # noqa: A002 (Keras's name)
    """(counts, edges): how many elements of x fall in each of `bins` equal bins between
    `range` (default: x's min and max), the last bin closed; counts are float32 and the
    edges computed as Keras on JAX does (so 5.0 falls below an edge of 5.0000005 below).

    Example:
        >>> import paddle as pd
        >>> counts, edges = pd.ops.histogram(pd.constant([1.0, 2.0, 2.0, 5.0, 7.0]), bins=3)
        >>> pd.eval(counts).tolist(), pd.eval(edges).tolist()
        ([3.0, 1.0, 1.0], [1.0, 3.0, 5.000000476837158, 7.0])
    """
    x = floats(tensor(x, "histogram"))
    if x.ndim != 1:
        fail(ValueError, f"histogram: expected a 1-D tensor, received shape {x.shape}")
    if not isinstance(bins, (int, np.integer)) or bins <= 0:
        fail(ValueError, f"histogram: expected a number of bins > 0, received {bins!r}")
    if range is None:
        low, high = _r.min(x), _r.max(x)
    else:
        if len(range) != 2 or range[0] > range[1]:
            fail(ValueError, f"histogram: expected range (low, high) with low <= high, "
                             f"received {range!r}")
        low, high = (cast(tensor(v, "histogram"), x.dtype) for v in range)
    t = constant(np.linspace(0.0, 1.0, int(bins) + 1), dtype=x.dtype)
    edges = low * (1.0 - t) + high * t  # JAX's linspace: its float32 edges, its bins
    at_least = cast(_m.greater_equal(_s.expand_dims(x, 0), _s.expand_dims(edges, 1)),
                    "float32")
    above = _r.sum(at_least, axis=1)  # how many are >= each edge
    beyond = cast(_m.greater(x, _s.reshape(edges[-1:], [1])), "float32")
    counts = above[:-1] - above[1:]
    last = _s.concat([_m.zeros_like(counts[:-1]), _s.reshape(above[-1:] - _r.sum(beyond), [1])],
                     axis=0)
    return counts + last, edges


def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D tensors (np.correlate): sums of x1 shifted against
    x2, through a gather of x1's windows and a matrix product; ints give float32.

    Example:
        >>> import paddle as pd
        >>> x, v = pd.constant([1.0, 2.0, 3.0]), pd.constant([0.0, 1.0])
        >>> pd.eval(pd.ops.correlate(x, v)).tolist()
        [2.0, 3.0]
    """
    x1, x2 = tensor(x1, "correlate"), tensor(x2, "correlate")
    if x1.ndim != 1 or x2.ndim != 1:
        fail(ShapeError, f"correlate: expected two 1-D tensors, received shapes {x1.shape} and "
                         f"{x2.shape}")
    if mode not in ("valid", "same", "full"):
        fail(ValueError, f"correlate: expected mode 'valid', 'same' or 'full', received "
                         f"{mode!r}")
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "float64" if dtype in ("float64", "int64") else "float32"
    a, v = cast(x1, dtype), cast(x2, dtype)
    n, m = known(a, [0], "correlate")[0], known(v, [0], "correlate")[0]
    if n == 0 or m == 0:
        fail(ValueError, "correlate: expected non-empty inputs")
    swapped = m > n
    if swapped:
        a, v, n, m = v, a, m, n
    if mode == "valid":
        left = right = 0
    elif mode == "full":
        left = right = m - 1
    else:
        left, right = m // 2, m - 1 - m // 2
    padded = _s.pad(a, [(left, right)]) if left or right else a
    k = n + left + right - m + 1
    windows = _s.gather(padded, constant(np.arange(k)[:, None] + np.arange(m)[None, :]))
    out = _m.mul(windows, _s.reshape(v, [1, -1]))
    out = _r.sum(out, axis=1)
    return _s.reverse(out, 0) if swapped else out


# ---- statistics -------------------------------------------------------------------------

def corrcoef(x):
    """Pearson correlation coefficients of the rows of x (variables; columns are
    observations), clipped to [-1, 1]; ints give float32.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.corrcoef(pd.constant([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))).tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    x = floats(tensor(x, "corrcoef"))
    if x.ndim not in (1, 2):
        fail(ShapeError, f"corrcoef: expected a 1-D or 2-D tensor, received shape {x.shape}")
    rows = _s.reshape(x, [1, -1]) if x.ndim == 1 else x
    centered = rows - _r.mean(rows, axis=1, keepdims=True)
    cov = _matmul(centered, centered, transpose_b=True)
    scale = _m.sqrt(_r.sum(_m.square(centered), axis=1))
    out = _m.clip(cov / (_s.expand_dims(scale, 1) * _s.expand_dims(scale, 0)), -1.0, 1.0)
    return _s.reshape(out, []) if x.ndim == 1 else out


def _moments(x, axis, keepdims, where_, nan):
    x = floats(tensor(x, where_))
    axes = axes_of(x, axis, where_)
    if nan:
        valid = cast(_m.equal(x, x), x.dtype)
        x0 = _fill_nan(x, 0.0)
        count = _r.sum(valid, axis=axes, keepdims=True)
        mean = _r.sum(x0, axis=axes, keepdims=True) / count
        dev = _fill_nan(_m.square(x - mean), 0.0)
        var = _r.sum(dev, axis=axes, keepdims=True) / count
    else:
        mean = _r.mean(x, axis=axes, keepdims=True)
        var = _r.mean(_m.square(x - mean), axis=axes, keepdims=True)
    squeeze = (lambda v: v) if keepdims else (lambda v: _s.squeeze(v, axes) if axes else v)
    return squeeze(mean), squeeze(var)


def var(x, axis=None, keepdims=False):
    """The variance along `axis` (ints give float32).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.var(pd.constant([1.0, 2.0, 3.0, 4.0]))))
        1.25
    """
    return _moments(x, axis, keepdims, "var", False)[1]


def std(x, axis=None, keepdims=False):
    """The standard deviation along `axis` (ints give float32).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.std(pd.constant([1.0, 3.0]))))
        1.0
    """
    return _m.sqrt(_moments(x, axis, keepdims, "std", False)[1])


def nanvar(x, axis=None, keepdims=False):
    """var ignoring NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanvar(pd.constant([1.0, np.nan, 3.0]))))
        1.0
    """
    return _moments(x, axis, keepdims, "nanvar", True)[1]


def nanstd(x, axis=None, keepdims=False):
    """std ignoring NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanstd(pd.constant([1.0, np.nan, 3.0]))))
        1.0
    """
    return _m.sqrt(_moments(x, axis, keepdims, "nanstd", True)[1])


def nanmean(x, axis=None, keepdims=False):
    """The mean ignoring NaN (ints give float32).

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanmean(pd.constant([1.0, np.nan, 3.0]))))
        2.0
    """
    return _moments(x, axis, keepdims, "nanmean", True)[0]


def nansum(x, axis=None, keepdims=False):
    """The sum ignoring NaN (bool counts as int32).

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nansum(pd.constant([1.0, np.nan, 3.0]))))
        4.0
    """
    x = _numeric(x, "nansum")
    axes = axes_of(x, axis, "nansum")
    return _r.sum(_fill_nan(x, 0.0), axis=axes, keepdims=keepdims) if axes else x


def nanprod(x, axis=None, keepdims=False):
    """The product ignoring NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanprod(pd.constant([2.0, np.nan, 3.0]))))
        6.0
    """
    x = _numeric(x, "nanprod")
    return prod(_fill_nan(x, 1.0), axis, keepdims)


def _nan_extreme(x, axis, keepdims, reduce_, fill, where_):
    x = _numeric(x, where_)
    axes = axes_of(x, axis, where_)
    if x.dtype not in FLOATS or not axes:
        return _extreme(x, axes, keepdims, reduce_, where_)
    out = reduce_(_fill_nan(x, fill), axis=axes, keepdims=keepdims)
    return where(_all_nan(x, axes, keepdims), _m.zeros_like(out) + np.nan, out)


def nanmax(x, axis=None, keepdims=False):
    """The largest element ignoring NaN (NaN where all are).

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanmax(pd.constant([1.0, np.nan, 3.0]))))
        3.0
    """
    return _nan_extreme(x, axis, keepdims, _r.max, -np.inf, "nanmax")


def nanmin(x, axis=None, keepdims=False):
    """The smallest element ignoring NaN (NaN where all are).

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanmin(pd.constant([1.0, np.nan, 3.0]))))
        1.0
    """
    return _nan_extreme(x, axis, keepdims, _r.min, np.inf, "nanmin")


def average(x, axis=None, weights=None):
    """The mean along `axis`, weighted by `weights` (x's shape, or 1-D along `axis`).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.average(pd.constant([1.0, 3.0]), weights=pd.constant([3.0, 1.0]))))
        1.5
    """
    x = tensor(x, "average")
    if weights is None:
        return _r.mean(floats(x), axis=axes_of(x, axis, "average"))
    weights = tensor(weights, "average")
    dtype = result_type(x.dtype, weights.dtype, float)
    x, weights = cast(x, dtype), cast(weights, dtype)
    axes = axes_of(x, axis, "average")
    if weights.shape != x.shape:
        if axis is None or weights.ndim != 1 or len(axes) != 1:
            fail(ShapeError, f"average: expected weights of x's shape {x.shape}, or 1-D along "
                             f"one axis, received shape {weights.shape}")
        weights = _s.reshape(weights, [-1] + [1] * (x.ndim - 1 - axes[0]))
        total = _r.sum(_m.ones_like(x) * weights, axis=axes)
    else:
        total = _r.sum(weights, axis=axes)
    return _r.sum(x * weights, axis=axes) / total


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x, q, axis, method, keepdims, where_, nan, scale=1.0):
    x = floats(tensor(x, where_))
    if method not in _METHODS:
        fail(ValueError, f"{where_}: expected method in {_METHODS}, received {method!r}")
    if not isinstance(q, Variable):
        qs = np.asarray(q, np.float64) / scale
        if qs.ndim > 1 or (qs < 0).any() or (qs > 1).any() or np.isnan(qs).any():
            fail(ValueError, f"{where_}: expected q (a number or 1-D) in [0, "
                             f"{'100' if scale != 1.0 else '1'}], received {q!r}")
        q = constant(qs, dtype="float64")
    else:
        q = cast(q, "float64") / scale
        if q.ndim > 1:
            fail(ShapeError, f"{where_}: expected a scalar or 1-D q, received shape {q.shape}")
    axes = axes_of(x, axis, where_)
    rows = to_last(x, axes) if axes else _s.expand_dims(x, -1)
    last = rows.ndim - 1
    n = known(rows, [last], where_)[0]
    if n == 0:
        fail(ShapeError, f"{where_}: cannot take a quantile of no elements (shape {x.shape})")
    ordered = _o.take_along_axis(rows, _o.argsort(rows, last), last)
    if nan:
        count = _r.sum(cast(_m.equal(rows, rows), "float64"), axis=last, keepdims=True)
    else:
        count = _m.zeros_like(cast(rows[..., :1], "float64")) + float(n)
    qv = _s.reshape(q, list(q.shape) + [1] * rows.ndim)
    pos = _m.maximum(qv * (count - 1.0), 0.0)  # q.shape + lead + (1,)
    lo = cast(pos, "int64")  # pos >= 0: the cast truncates, a floor
    top = cast(_m.maximum(count - 1.0, 0.0), "int64")
    hi = _m.minimum(lo + 1, top + _m.zeros_like(lo))
    frac = pos - cast(lo, "float64")
    wide = ordered
    if q.ndim:  # one row of sorted values per q
        base = _s.expand_dims(ordered, 0)
        wide = _m.broadcast_to(base, _m.zeros_like(base) + _m.zeros_like(cast(lo, base.dtype)))
    if method in ("lower", "higher", "nearest"):
        if method == "lower":
            pick = lo
        elif method == "higher":
            pick = where(_m.greater(frac, 0.0), hi, lo)
        else:  # NumPy's round half to even
            lo_even = _m.equal(lo - _half(lo) * 2, 0)
            up = _m.greater(frac, 0.5)
            tie = _m.equal(frac, 0.5)
            pick = where(up, hi, where(tie, where(lo_even, lo, hi), lo))
        out = _o.take_along_axis(wide, pick, wide.ndim - 1)
    else:
        a = _o.take_along_axis(wide, lo, wide.ndim - 1)
        b = _o.take_along_axis(wide, hi, wide.ndim - 1)
        t = cast(frac, x.dtype) if method == "linear" else \
            cast(where(_m.greater(frac, 0.0), _m.zeros_like(frac) + 0.5, frac), x.dtype)
        out = a + (b - a) * t
    out = _s.squeeze(out, -1)
    broken = _r.max(cast(_m.not_equal(rows, rows), "int32"), axis=last) if not nan else \
        cast(_m.equal(_s.squeeze(count, -1), 0.0), "int32")
    out = where(_m.greater(broken + _m.zeros_like(cast(out, "int32")), 0),
                _m.zeros_like(out) + np.nan, out)
    if keepdims:
        for a in axes:
            out = _s.expand_dims(out, a + q.ndim)
    return out


def _half(v):
    """v // 2 for non-negative int64 v (through float64: exact below 2**53)."""
    return cast(cast(v, "float64") * 0.5, "int64")


def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The q-th quantiles (q in [0, 1], a number or 1-D) of x along `axis`, interpolated by
    `method` as np.quantile ('linear', 'lower', 'higher', 'midpoint', 'nearest'); NaN where
    a NaN is among the elements.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.quantile(pd.constant([1.0, 2.0, 3.0, 4.0]), [0.25, 0.5])).tolist()
        [1.75, 2.5]
    """
    return _quantile(x, q, axis, method, keepdims, "quantile", False)


def percentile(x, q, axis=None, method="linear", keepdims=False):
    """quantile with q in percent ([0, 100]).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.percentile(pd.constant([1.0, 2.0, 3.0]), 50)))
        2.0
    """
    return _quantile(x, q, axis, method, keepdims, "percentile", False, 100.0)


def median(x, axis=None, keepdims=False):
    """The median along `axis` (the mean of the two middle elements for even counts).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.median(pd.constant([4.0, 1.0, 3.0, 2.0]))))
        2.5
    """
    return _quantile(x, 0.5, axis, "linear", keepdims, "median", False)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """quantile ignoring NaN (NaN where all are).

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanquantile(pd.constant([1.0, np.nan, 3.0]), 0.5)))
        2.0
    """
    return _quantile(x, q, axis, method, keepdims, "nanquantile", True)


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """percentile ignoring NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanpercentile(pd.constant([1.0, np.nan, 3.0]), 50)))
        2.0
    """
    return _quantile(x, q, axis, method, keepdims, "nanpercentile", True, 100.0)


def nanmedian(x, axis=None, keepdims=False):
    """median ignoring NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.ops.nanmedian(pd.constant([1.0, np.nan, 3.0, 8.0]))))
        3.0
    """
    return _quantile(x, 0.5, axis, "linear", keepdims, "nanmedian", True)

