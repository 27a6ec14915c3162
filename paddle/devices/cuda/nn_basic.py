"""CUDA kernels of matmul, reductions, the softmax family, losses and metrics.

Products go to cuBLAS through `gemm.product` (batched and broadcast included, capturable in
a CUDA graph); reductions are
CuPy's with `out=`; the softmax family is written as the CPU loops compute it (max, shifted
exp, sum, one reciprocal), on scratch buffers made once per program.
"""
import numpy as np

from paddle.devices.cuda import gemm
from paddle.devices.cuda.checks import index_check, label_outside, take
from paddle.devices.cuda.table import kernel
from paddle.lowlevel.shapes import normalize_axes


@kernel("matmul")
def _matmul(node, ins, outs, ctx):
    a, b = ins
    out = outs[0]
    ta, tb = node.attrs["transpose_a"], node.attrs["transpose_b"]
    a = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    if ta:
        a = a.swapaxes(-1, -2)
    if tb:
        b = b.swapaxes(-1, -2)
    if a.ndim > 2 and b.ndim == 2 and not ta:
        # A batch of x against one shared matrix is one big product: rows stack up.
        a = a.reshape(-1, a.shape[-1])
    result = out.reshape(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) +
                         (a.shape[-2], b.shape[-1]))
    return gemm.product(ctx, a, b, result)


def _reduced(out, x_shape, axes):
    """`out` viewed without the reduced axes (keepdims or not, the same buffer)."""
    return out.reshape(tuple(d for i, d in enumerate(x_shape) if i not in axes))


def _reduction(xp, code, x, out, axes, scale):
    if not axes:  # nothing to reduce (size-1 axes): a copy
        view = out.reshape(x.shape)
        return lambda: xp.copyto(view, x)
    view = _reduced(out, x.shape, axes)
    axis = tuple(axes)
    # The arrays' own methods: on an H200, CuPy 14.2's module-level `cupy.min(x, axis=...,
    # out=...)` raised a TypeError (NumPy's `equal` on a dtype) where `max` did not.
    if code == "max":
        return lambda: x.max(axis=axis, out=view)
    if code == "min":
        return lambda: x.min(axis=axis, out=view)
    if scale == 1.0:
        return lambda: xp.sum(x, axis=axis, dtype=out.dtype, out=view)
    factor = out.dtype.type(scale)

    def run():
        xp.sum(x, axis=axis, dtype=out.dtype, out=view)
        xp.multiply(view, factor, out=view)
    return run


@kernel("sum", "max", "min")
def _reduce(node, ins, outs, ctx):
    x, out = ins[0], outs[0]
    axes = sorted(normalize_axes(node.op, node.attrs.get("axis"), x.ndim))
    scale = 1.0
    if node.attrs.get("mean"):
        count = int(np.prod([x.shape[a] for a in axes]))
        scale = 1.0 / count if count else float("nan")
    # Size-1 axes change nothing: leave them out, as the CPU passes do.
    axes = [a for a in axes if x.shape[a] != 1]
    return _reduction(ctx.xp, node.op.name, x, out, axes, scale)


@kernel("sum_to")
def _sum_to(node, ins, outs, ctx):
    g, out = ins[0], outs[0]
    target = (1,) * (g.ndim - out.ndim) + out.shape
    axes = [i for i, (t, d) in enumerate(zip(target, g.shape)) if t == 1 and d != 1]
    return _reduction(ctx.xp, "sum", g, out.reshape(target), axes, 1.0)


@kernel("count")
def _count(node, ins, outs, ctx):
    axes = normalize_axes(node.op, node.attrs.get("axis"), ins[0].ndim)
    out, value = outs[0], float(np.prod([ins[0].shape[a] for a in axes]))
    return lambda: out.fill(value)


@kernel("argmax")
def _argmax(node, ins, outs, ctx):
    x, xp = ins[0], ctx.xp
    axis = node.attrs["axis"] % x.ndim
    out = outs[0].reshape(x.shape[:axis] + x.shape[axis + 1:])
    return lambda: xp.argmax(x, axis=axis, out=out)


def _rows(x):
    cols = x.shape[-1]
    return x.reshape(-1, cols)


@kernel("softmax", "log_softmax")
def _softmax(node, ins, outs, ctx):
    x, y, xp = _rows(ins[0]), _rows(outs[0]), ctx.xp
    mx = ctx.empty((x.shape[0], 1), x.dtype)
    s = ctx.empty((x.shape[0], 1), x.dtype)
    one = x.dtype.type(1)
    if node.op.name == "log_softmax":
        def run():  # x - (max + log(sum(exp(x - max))))
            xp.max(x, axis=1, keepdims=True, out=mx)
            xp.subtract(x, mx, out=y)
            xp.exp(y, out=y)
            xp.sum(y, axis=1, keepdims=True, out=s)
            xp.log(s, out=s)
            xp.add(mx, s, out=s)
            xp.subtract(x, s, out=y)
        return run

    def run():  # exp(x - max) times one reciprocal of the row's sum
        xp.max(x, axis=1, keepdims=True, out=mx)
        xp.subtract(x, mx, out=y)
        xp.exp(y, out=y)
        xp.sum(y, axis=1, keepdims=True, out=s)
        xp.divide(one, s, out=s)
        xp.multiply(y, s, out=y)
    return run


def _picked(ctx, x, labels, check_name):
    """A callable writing x[r, labels[r]] into a buffer (returned too), with the check of
    the labels against the class axis."""
    xp = ctx.xp
    rows, cols = x.shape
    flat_labels = labels.reshape(-1)
    base = ctx.empty((rows,), "int64")
    ctx.device.upload(base, np.arange(rows, dtype=np.int64) * cols)
    where = ctx.empty((rows,), "int64")
    picked = ctx.empty((rows,), x.dtype)
    check = index_check(ctx, flat_labels, cols, label_outside(check_name, cols))
    flat_x = x.reshape(-1)

    def run():
        check()
        xp.add(base, flat_labels, out=where)
        take(xp, flat_x, where, 0, picked)
    return run, picked


@kernel("softmax_cross_entropy")
def _softmax_xent(node, ins, outs, ctx):
    # loss[r] = logsumexp(x[r]) - x[r, label[r]]
    x, xp = _rows(ins[0]), ctx.xp
    loss = outs[0].reshape(-1)
    pick, picked = _picked(ctx, x, ins[1], "softmax_cross_entropy")
    shifted = ctx.empty(x.shape, x.dtype)
    mx = ctx.empty((x.shape[0],), x.dtype)
    s = ctx.empty((x.shape[0],), x.dtype)

    def run():
        pick()
        xp.max(x, axis=1, out=mx)
        xp.subtract(x, mx[:, None], out=shifted)
        xp.exp(shifted, out=shifted)
        xp.sum(shifted, axis=1, out=s)
        xp.log(s, out=s)
        xp.add(mx, s, out=s)
        xp.subtract(s, picked, out=loss)
    return run


@kernel("in_top_k")
def _in_top_k(node, ins, outs, ctx):
    # 1 where fewer than k scores of the row are above the label's (ties count for it).
    x, xp, k = _rows(ins[0]), ctx.xp, node.attrs["k"]
    out = outs[0].reshape(-1)
    pick, picked = _picked(ctx, x, ins[1], "accuracy")
    above = ctx.empty(x.shape, bool)
    count = ctx.empty((x.shape[0],), "int64")
    hit = ctx.empty((x.shape[0],), bool)

    def run():
        pick()
        xp.greater(x, picked[:, None], out=above)
        xp.sum(above, axis=1, out=count)
        xp.less(count, k, out=hit)
        xp.copyto(out, hit, casting="unsafe")
    return run
