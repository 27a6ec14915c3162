"""Keras's statistics of `keras.ops.numpy`: var/std, the nan* reductions, average,
quantile/percentile/median (and their nan* forms), corrcoef, histogram, bincount,
correlate.

Quantiles sort with the stable argsort op (NaN last) and gather the two neighbours of each
position with take_along_axis, so they differentiate through the sorted positions; the
nan* forms count the non-NaN elements of each row instead of the axis size.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant([[1.0, np.nan, 3.0], [4.0, 5.0, 9.0]])
    >>> pd.eval(pd.ops.nanmedian(x, axis=1)).tolist()
    [2.0, 5.0]
"""
import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import reduce as _r
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops import sort as _o
from paddle.lowlevel.ops.math import cast, where
from paddle.lowlevel.ops.matmul import matmul as _matmul
from paddle.ops._arrays import (axes_of, fail, floats, known, promoted, result_type, tensor,
                                to_last)
from paddle.ops.numpy_reduce import _all_nan, _extreme, _fill_nan, _numeric, prod

__all__ = [
    "average", "bincount", "corrcoef", "correlate", "histogram", "median", "nanmax", "nanmean",
    "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum",
    "nanvar", "percentile", "quantile", "std", "var"]


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
    dtype = promoted(x1, x2)
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
    dtype = result_type(promoted(x, weights), float)
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
    # q along the last axis, beside each row's sorted values: the picks read `ordered` in
    # place (memory O(rows * (n + len(q))), no copy of the sorted rows per q)
    qv = _s.reshape(q, [1] * last + [-1 if q.ndim else 1])
    pos = _m.maximum(qv * (count - 1.0), 0.0)  # lead + (len(q),)
    lo = cast(pos, "int64")  # pos >= 0: the cast truncates, a floor
    top = cast(_m.maximum(count - 1.0, 0.0), "int64")
    hi = _m.minimum(lo + 1, top + _m.zeros_like(lo))
    frac = pos - cast(lo, "float64")
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
        out = _o.take_along_axis(ordered, pick, last)
    else:
        a = _o.take_along_axis(ordered, lo, last)
        b = _o.take_along_axis(ordered, hi, last)
        t = cast(frac, x.dtype) if method == "linear" else \
            cast(where(_m.greater(frac, 0.0), _m.zeros_like(frac) + 0.5, frac), x.dtype)
        out = a + (b - a) * t
    broken = _r.max(cast(_m.not_equal(rows, rows), "int32"), axis=last, keepdims=True) \
        if not nan else cast(_m.equal(count, 0.0), "int32")
    out = where(_m.greater(broken + _m.zeros_like(cast(out, "int32")), 0),
                _m.zeros_like(out) + np.nan, out)
    # q's axis first (NumPy's layout), or gone for a scalar q
    out = _s.transpose(out, [last] + list(range(last))) if q.ndim else _s.squeeze(out, -1)
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

