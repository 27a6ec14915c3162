"""CUDA kernels of the reductions (paddle/lowlevel/ops/reduce.py, and sum_to of math.py):
CuPy's reductions with `out=`."""
import numpy as np

from paddle.devices.cuda.table import kernel
from paddle.lowlevel.shapes import normalize_axes


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
    if code == "prod":
        return lambda: xp.prod(x, axis=axis, dtype=out.dtype, out=view)
    if scale == 1.0:
        return lambda: xp.sum(x, axis=axis, dtype=out.dtype, out=view)
    factor = out.dtype.type(scale)

    def run():
        xp.sum(x, axis=axis, dtype=out.dtype, out=view)
        xp.multiply(view, factor, out=view)
    return run


@kernel("sum", "max", "min", "prod")
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
