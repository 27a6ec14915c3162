"""CUDA kernels of the ordering ops (paddle/lowlevel/ops/sort.py): CuPy's stable argsort,
cumsum and cumprod; diff on two views of x; take_along_axis and its adjoint through flat
positions into x (negative indices + n with `wrap`), the adjoint on scatter.cu's atomic
scatter_add (repeated positions accumulate); searchsorted on CuPy's."""
import numpy as np

from paddle.devices.cuda.checks import index_check, outside
from paddle.devices.cuda.shape import SCATTER_ADD
from paddle.devices.cuda.table import kernel
from paddle.lowlevel.shapes import around


@kernel("argsort")
def _argsort(node, ins, outs, ctx):
    x, out, xp = ins[0], outs[0], ctx.xp
    axis = node.attrs["axis"] % x.ndim
    # with k (top_k): the first k of the full order
    first = (slice(None),) * axis + (slice(0, out.shape[axis]),)
    if node.attrs["descending"]:
        # A stable ascending sort of a decreasing map of x: -x for floats (NaN stays last,
        # as on the CPU), ~x = -x - 1 for integers (no overflow at the smallest one).
        key = ctx.empty(x.shape, x.dtype)
        flip = xp.negative if x.dtype.kind == "f" else xp.invert

        def run():
            flip(x, out=key)
            xp.copyto(out, xp.argsort(key, axis=axis, kind="stable")[first])
        return run
    return lambda: xp.copyto(out, xp.argsort(x, axis=axis, kind="stable")[first])


@kernel("cumsum", "cumprod")
def _cumulate(node, ins, outs, ctx):
    x, out, xp = ins[0], outs[0], ctx.xp
    axis = node.attrs["axis"] % x.ndim
    scan = xp.cumsum if node.op.name == "cumsum" else xp.cumprod
    return lambda: scan(x, axis=axis, dtype=out.dtype, out=out)


@kernel("diff")
def _diff(node, ins, outs, ctx):
    x, out, xp = ins[0], outs[0], ctx.xp
    outer, n, inner = around(x.shape, node.attrs["axis"] % x.ndim)
    blocks = x.reshape(outer, n, inner)
    hi, lo = blocks[:, 1:], blocks[:, :-1]  # views: no copies
    target = out.reshape(outer, n - 1, inner)
    return lambda: xp.subtract(hi, lo, out=target)


def _flat_positions(ctx, idx, shape, axis, op, wrap=False):
    """(check, fill, flat): `fill()` writes into `flat` the position in x (of `shape`) that
    each index reads, the index (with `wrap`, a negative one + n) clipped into its axis
    (`check` reports those outside [0, n), or [-n, n) with wrap)."""
    xp = ctx.xp
    outer, n, inner = around(shape, axis)
    k = idx.shape[axis]
    o = np.arange(outer, dtype=np.int64)[:, None, None]
    i = np.arange(inner, dtype=np.int64)[None, None, :]
    base = ctx.empty((outer, k, inner), "int64")
    base[...] = xp.asarray(np.broadcast_to(o * n * inner + i, (outer, k, inner)))
    flat = ctx.empty((outer, k, inner), "int64")
    negative = ctx.empty((outer, k, inner), bool) if wrap else None
    rows = idx.reshape(outer, k, inner)
    start = -n if wrap else 0
    check = index_check(ctx, idx, n, outside(op, n, start), start)

    def fill():
        check()
        if wrap:  # flat = rows + n where rows < 0
            xp.less(rows, 0, out=negative)
            xp.multiply(negative, n, out=flat)
            xp.add(flat, rows, out=flat)
            xp.clip(flat, 0, n - 1, out=flat)
        else:
            xp.clip(rows, 0, n - 1, out=flat)
        xp.multiply(flat, inner, out=flat)
        xp.add(flat, base, out=flat)
    return fill, flat.reshape(-1)


@kernel("take_along_axis")
def _take_along_axis(node, ins, outs, ctx):
    x, idx = ins
    out, xp = outs[0], ctx.xp
    fill, flat = _flat_positions(ctx, idx, x.shape, node.attrs["axis"] % x.ndim,
                                 "take_along_axis", node.attrs.get("wrap", False))
    source, target = x.reshape(-1), out.reshape(-1)

    def run():
        fill()
        xp.take(source, flat, out=target)
    return run


@kernel("take_along_axis_grad")
def _take_along_axis_grad(node, ins, outs, ctx):
    g, idx, _ = ins
    out, xp = outs[0], ctx.xp
    fill, flat = _flat_positions(ctx, idx, out.shape, node.attrs["axis"] % out.ndim,
                                 "take_along_axis_grad", node.attrs.get("wrap", False))
    add = SCATTER_ADD.bind(xp, g.dtype, g.size, g.reshape(-1), flat, out.reshape(-1), 1,
                           flat.size, 1, out.size)

    def run():
        fill()
        out.fill(0)
        add()
    return run


@kernel("searchsorted")
def _searchsorted(node, ins, outs, ctx):
    # CuPy's binary search per value (NaN last, as NumPy), int64 positions copied into
    # the int32 output
    seq, values = ins
    out, xp, side = outs[0], ctx.xp, node.attrs["side"]
    return lambda: xp.copyto(out, xp.searchsorted(seq, values, side=side), casting="unsafe")
