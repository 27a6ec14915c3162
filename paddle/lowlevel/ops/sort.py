"""Ordering and scans along one axis: argsort, take_along_axis (and its adjoint), cumsum,
cumprod; searchsorted (a binary search per value in a sorted 1-D sequence). Sorting, top-k, quantiles and products over axes (paddle/ops/numpy_array.py) are
built from these.

argsort is stable; NaN sorts last in both directions (as NumPy's argsort of x and of -x).
cumprod's gradient is sum_{j>=i} g_j * y_j / x_i: exact where x has no zeros (a zero gives
inf or NaN there; JAX's gradient is finite at zeros).

Example:
    >>> import paddle as pd
    >>> from paddle.lowlevel.ops.sort import argsort, cumsum, take_along_axis
    >>> x = pd.constant([[3.0, 1.0, 2.0]])
    >>> order = argsort(x, axis=1)
    >>> pd.eval(order).tolist(), pd.eval(take_along_axis(x, order, 1)).tolist()
    ([[1, 2, 0]], [[1.0, 2.0, 3.0]])
    >>> pd.eval(cumsum(x, axis=1)).tolist()
    [[3.0, 4.0, 6.0]]
"""
from paddle.lowlevel.graph import FLOATS, apply, as_variable
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.shape import pad, reverse
from paddle.lowlevel.shapes import is_int, normalize_axis


def _numeric(op, x):
    if x[1] == "bool":
        raise TypeError(f"{op.name}: expected a numeric input, received bool")


@register
class ArgSort(Op):
    """int64 positions that sort x along `axis` (stable; `descending` keeps ties in order);
    with `k`, only the first k of them (a partial sort: top_k)."""

    name = "argsort"

    def infer(self, x, axis=-1, descending=False, k=None):
        _numeric(self, x)
        a = normalize_axis(self, axis, len(x[0]), x[0])
        if k is None:
            return x[0], "int64"
        if not is_int(k) or k < 0 or (x[0][a] is not None and k > x[0][a]):
            self.fail(f"expected k in [0, {x[0][a]}] (the size of axis {a}), received {k!r}",
                      ("x", x[0]))
        return x[0][:a] + (int(k),) + x[0][a + 1:], "int64"

    def grad(self, node, g):
        return [None]


@register
class TakeAlongAxis(Op):
    """out[..., j, ...] = x[..., idx[..., j, ...], ...] along `axis`; idx (int32 or int64,
    read as it is) has x's rank and x's sizes on the other axes. With `wrap`, negative
    indices count from the end of the axis (in the kernel's one pass: no normalized copy
    of the indices)."""

    name = "take_along_axis"

    def infer(self, x, idx, axis, wrap=False):
        if idx[1] not in ("int32", "int64"):
            raise TypeError(f"take_along_axis: expected int32 or int64 indices, received "
                            f"{idx[1]}")
        a = normalize_axis(self, axis, len(x[0]), x[0])
        if len(idx[0]) != len(x[0]) or any(
                p is not None and q is not None and p != q
                for i, (p, q) in enumerate(zip(x[0], idx[0])) if i != a):
            self.fail(f"indices must have x's rank and x's sizes outside axis {a}",
                      ("x", x[0]), ("indices", idx[0]))
        return idx[0], x[1]

    def grad(self, node, g):
        x, idx = node.inputs
        return [apply(OPS["take_along_axis_grad"], [g[0], idx, x], dict(node.attrs)), None]


@register
class TakeAlongAxisGrad(Op):
    """Zeros shaped like `like`, with g added at the positions take_along_axis read."""

    name = "take_along_axis_grad"

    def infer(self, g, idx, like, axis, wrap=False):
        if g[1] not in FLOATS:
            raise TypeError(f"take_along_axis_grad: expected a float gradient, received {g[1]}")
        return like[0], g[1]

    def grad(self, node, g):
        return [apply(OPS["take_along_axis"], [g[0], node.inputs[1]], dict(node.attrs)),
                None, None]


_SEARCHED = ("float32", "float64", "int32", "int64")


@register
class SearchSorted(Op):
    """int32 positions at which each of `values` (any shape) goes into the 1-D increasing
    `seq` (NaN last, as NumPy sorts it): 'left' before equal elements, 'right' after; one
    binary search per value. seq and values share one dtype (float32, float64, int32 or
    int64); no gradient (an integer output)."""

    name = "searchsorted"

    def infer(self, seq, values, side):
        if len(seq[0]) != 1:
            self.fail("expected a 1-D sorted sequence", ("sorted_sequence", seq[0]))
        if seq[1] not in _SEARCHED or values[1] != seq[1]:
            raise TypeError(f"searchsorted: expected a sequence and values of one dtype among "
                            f"{_SEARCHED}, received {seq[1]} and {values[1]}")
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: expected side 'left' or 'right', received "
                             f"{side!r}")
        if seq[0][0] is not None and seq[0][0] > 2 ** 31 - 1:
            self.fail("expected a sequence of at most 2**31 - 1 elements (int32 positions)",
                      ("sorted_sequence", seq[0]))
        return values[0], "int32"

    def grad(self, node, g):
        return [None, None]


class Cumulative(Op):
    code = None

    def infer(self, x, axis):
        _numeric(self, x)
        normalize_axis(self, axis, len(x[0]), x[0])
        return x


def _reverse_cumsum(g, axis):
    return reverse(cumsum(reverse(g, axis), axis), axis)


@register
class CumSum(Cumulative):
    name = "cumsum"
    code = 0

    def grad(self, node, g):
        return [_reverse_cumsum(g[0], node.attrs["axis"])]


@register
class CumProd(Cumulative):
    name = "cumprod"
    code = 1

    def grad(self, node, g):
        x, y = node.inputs[0], node.outputs[0]
        return [_reverse_cumsum(g[0] * y, node.attrs["axis"]) / x]


@register
class Diff(Op):
    """out[..., j, ...] = x[..., j + 1, ...] - x[..., j, ...] along `axis`, read in place
    (no sliced copies); the axis loses one element."""

    name = "diff"

    def infer(self, x, axis):
        _numeric(self, x)
        a = normalize_axis(self, axis, len(x[0]), x[0])
        if x[0][a] == 0:
            self.fail(f"expected a non-empty axis {a}", ("x", x[0]))
        return tuple(d - 1 if i == a and d is not None else d for i, d in enumerate(x[0])), x[1]

    def grad(self, node, g):
        # x[j] enters out[j - 1] with + and out[j] with -: g shifted one way minus the other.
        rank = node.inputs[0].ndim
        a = node.attrs["axis"] % rank
        before = [(1, 0) if i == a else (0, 0) for i in range(rank)]
        after = [(0, 1) if i == a else (0, 0) for i in range(rank)]
        return [pad(g[0], before) - pad(g[0], after)]


def diff(x, axis):
    """x[1:] - x[:-1] along `axis` (a non-empty one), without slicing copies.

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.ops.sort import diff
        >>> pd.eval(diff(pd.constant([[1, 4, 9], [2, 2, 5]]), 1)).tolist()
        [[3, 5], [0, 3]]
    """
    x = as_variable(x, where="diff")
    return apply(OPS["diff"], [x], {"axis": int(axis) if is_int(axis) else axis})


def argsort(x, axis=-1, descending=False, k=None):
    """int64 positions that sort x along `axis`, stable (ties keep their order); NaN last.
    With `k`: the first k positions only, by a partial sort (what top_k needs)."""
    x = as_variable(x, where="argsort")
    return apply(OPS["argsort"], [x], {"axis": int(axis) if is_int(axis) else axis,
                                       "descending": bool(descending), "k": k})


def take_along_axis(x, indices, axis, wrap=False):
    """x[..., indices[..., j, ...], ...] along `axis` (indices in [0, n), with `wrap` in
    [-n, n), negative ones counted from the end: others raise at eval; indices of x's rank
    and x's sizes on the other axes)."""
    x = as_variable(x, where="take_along_axis")
    indices = as_variable(indices, where="take_along_axis")
    attrs = {"axis": int(axis) if is_int(axis) else axis}
    if wrap:
        attrs["wrap"] = True
    return apply(OPS["take_along_axis"], [x, indices], attrs)


def searchsorted(sorted_sequence, values, side="left"):
    """int32 insertion positions of `values` in the 1-D increasing `sorted_sequence` (same
    dtype: float32, float64, int32 or int64), by a binary search per value; NaN counts as
    above everything (NumPy's order).

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.ops.sort import searchsorted
        >>> seq = pd.constant([1.0, 2.0, 2.0, 4.0])
        >>> pd.eval(searchsorted(seq, pd.constant([2.0, 3.0]), "left")).tolist()
        [1, 3]
        >>> pd.eval(searchsorted(seq, pd.constant([2.0, 3.0]), "right")).tolist()
        [3, 3]
    """
    seq = as_variable(sorted_sequence, where="searchsorted")
    values = as_variable(values, where="searchsorted")
    return apply(OPS["searchsorted"], [seq, values], {"side": side})


def cumsum(x, axis):
    """Running sum along `axis` (x's dtype)."""
    x = as_variable(x, where="cumsum")
    return apply(OPS["cumsum"], [x], {"axis": int(axis) if is_int(axis) else axis})


def cumprod(x, axis):
    """Running product along `axis` (x's dtype)."""
    x = as_variable(x, where="cumprod")
    return apply(OPS["cumprod"], [x], {"axis": int(axis) if is_int(axis) else axis})
