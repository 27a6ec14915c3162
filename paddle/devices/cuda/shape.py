"""CUDA kernels of the shape ops that move data (paddle/lowlevel/ops/shape.py): copies
between views made once, when the program is prepared.

Views (reshape, flatten, squeeze, expand_dims) have no kernel: the plan aliases buffers.
scatter_add (gather's and embedding's adjoint) is a CUDA C kernel of atomic additions
(csrc/cuda/scatter.cu), so a training step that gathers stays capturable in a CUDA graph.
"""
import numpy as np

from paddle.devices.cuda.checks import index_check, outside, take
from paddle.devices.cuda.raw import Kernel
from paddle.devices.cuda.table import kernel
from paddle.lowlevel.shapes import around


def _sequence(calls):
    if len(calls) == 1:
        return calls[0]

    def run():
        for c in calls:
            c()
    return run


def _copy(xp, dst, src):
    return lambda: xp.copyto(dst, src)


@kernel("transpose")
def _transpose(node, ins, outs, ctx):
    return _copy(ctx.xp, outs[0], ins[0].transpose(node.attrs["perm"]))


def _pieces(shape, axis, sizes):
    """Index tuples of consecutive pieces along `axis`."""
    start = 0
    for s in sizes:
        yield (slice(None),) * axis + (slice(start, start + s),)
        start += s


@kernel("concat")
def _concat(node, ins, outs, ctx):
    out = outs[0]
    axis = node.attrs["axis"] % out.ndim
    pieces = _pieces(out.shape, axis, [x.shape[axis] for x in ins])
    return _sequence([_copy(ctx.xp, out[ix], x) for x, ix in zip(ins, pieces)])


@kernel("split")
def _split(node, ins, outs, ctx):
    x = ins[0]
    axis = node.attrs["axis"] % x.ndim
    pieces = _pieces(x.shape, axis, [o.shape[axis] for o in outs])
    return _sequence([_copy(ctx.xp, o, x[ix]) for o, ix in zip(outs, pieces)])


def _index(index):
    """The op's index attribute (ints and (start, stop, step) triples) as a NumPy index. The
    trailing Ellipsis keeps an all-integer index a view: NumPy's x[1, 2] is a scalar copy
    (read when the kernel is prepared), x[1, 2, ...] a 0-d view read when it runs."""
    return tuple(ix if isinstance(ix, int) else slice(*ix) for ix in index) + (Ellipsis,)


@kernel("slice")
def _slice(node, ins, outs, ctx):
    view = ins[0][_index(node.attrs["index"])]
    return _copy(ctx.xp, outs[0].reshape(view.shape), view)


@kernel("slice_grad")
def _slice_grad(node, ins, outs, ctx):
    g, out, xp = ins[0], outs[0], ctx.xp
    view = out[_index(node.attrs["index"])]
    src = g.reshape(view.shape)

    def run():
        out.fill(0)
        xp.copyto(view, src)
    return run


@kernel("gather")
def _gather(node, ins, outs, ctx):
    x, idx = ins
    out, xp = outs[0], ctx.xp
    axis = node.attrs["axis"] % x.ndim
    check = index_check(ctx, idx, x.shape[axis], outside("gather", x.shape[axis]))

    def run():
        check()
        take(xp, x, idx, axis, out)
    return run


@kernel("reverse")
def _reverse(node, ins, outs, ctx):
    x = ins[0]
    return _copy(ctx.xp, outs[0], ctx.xp.flip(x, node.attrs["axis"] % x.ndim))


def _scatter_add_ref(g, idx, out, outer, k, inner, n):
    """NumPy version of csrc/cuda/scatter.cu's scatter_add (out zeroed before)."""
    np.add.at(out.reshape(outer, n, inner), (slice(None), idx.reshape(-1)),
              g.reshape(outer, k, inner))


SCATTER_ADD = Kernel("scatter.cu", "scatter_add", _scatter_add_ref)


@kernel("scatter_add")
def _scatter_add(node, ins, outs, ctx):
    g, idx, _ = ins
    out, xp = outs[0], ctx.xp
    axis = node.attrs["axis"] % out.ndim
    outer, n, inner = around(out.shape, axis)
    check = index_check(ctx, idx, n, outside("scatter_add", n))
    # Clipped indices for the accumulation itself: an index outside never writes outside.
    safe = ctx.empty(idx.shape, "int64")
    add = SCATTER_ADD.bind(xp, g.dtype, g.size, g, safe, out, outer, idx.size, inner, n)

    def run():
        check()
        xp.clip(idx, 0, n - 1, out=safe)
        out.fill(0)
        add()
    return run


@kernel("one_hot")
def _one_hot(node, ins, outs, ctx):
    idx, out, xp = ins[0], outs[0], ctx.xp
    depth, loss = node.attrs["depth"], node.attrs.get("labels_of")
    if loss is None:
        error = outside("one_hot", depth)
    else:  # a loss's class labels: say so, as the CPU kernel does
        def error(v, i):
            return ValueError(f"{loss}: class labels must lie in [0, {depth}), the class axis "
                              f"of the scores (one_hot: index {v} at position {i} is outside "
                              f"[0, {depth}))")
    check = index_check(ctx, idx, depth, error)
    classes = ctx.empty((depth,), "int64")
    classes[...] = ctx.xp.arange(depth)
    hits = ctx.empty(idx.shape + (depth,), bool)
    column = idx[..., None]

    def run():
        check()
        xp.equal(column, classes, out=hits)
        xp.copyto(out, hits, casting="unsafe")
    return run


@kernel("pad")
def _pad(node, ins, outs, ctx):
    x, out, xp = ins[0], outs[0], ctx.xp
    value = node.attrs["constant_values"]
    inner = out[tuple(slice(b, b + d) for (b, _), d in zip(node.attrs["paddings"], x.shape))]

    def run():
        out.fill(value)
        xp.copyto(inner, x)
    return run
