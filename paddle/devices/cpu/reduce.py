"""CPU kernels of the reductions (paddle/lowlevel/ops/reduce.py, and sum_to of math.py):
one C++ reduce call per pass over the reduced axes (layouts.reduce_passes)."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu.layouts import reduce_passes
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import normalize_axes


def _run_passes(code, x, out, passes, scale):
    """One C++ reduce call per pass; intermediate results go to buffers made here, once."""
    if not passes:  # nothing to reduce (size-1 axes): a copy
        return partial(np.copyto, out, x.reshape(out.shape))
    calls, src = [], x
    for i, (outer, red, inner) in enumerate(passes):
        last = i == len(passes) - 1
        dst = out if last else np.empty(outer * inner, dtype=x.dtype)
        calls.append(partial(_C.reduce, code, src, dst, outer, red, inner,
                             scale if last else 1.0))
        src = dst
    if len(calls) == 1:
        return calls[0]
    return lambda: [c() for c in calls]


@kernel("sum", "max", "min", "prod")
def _reduce(node, ins, outs, ctx):
    x, out = ins[0], outs[0]
    axes = normalize_axes(node.op, node.attrs.get("axis"), x.ndim)
    scale = 1.0
    if node.attrs.get("mean"):
        count = int(np.prod([x.shape[a] for a in axes]))
        scale = 1.0 / count if count else float("nan")
    return _run_passes(node.op.code, x, out, reduce_passes(x.shape, axes), scale)


@kernel("sum_to")
def _sum_to(node, ins, outs, ctx):
    g, out = ins[0], outs[0]
    target = (1,) * (g.ndim - out.ndim) + out.shape
    axes = [i for i, (t, d) in enumerate(zip(target, g.shape)) if t == 1 and d != 1]
    return _run_passes(0, g, out, reduce_passes(g.shape, axes), 1.0)


@kernel("count")
def _count(node, ins, outs, ctx):
    axes = normalize_axes(node.op, node.attrs.get("axis"), ins[0].ndim)
    return partial(_C.fill, outs[0], float(np.prod([ins[0].shape[a] for a in axes])))


@kernel("argmax")
def _argmax(node, ins, outs, ctx):
    x = ins[0]
    a = node.attrs["axis"] % x.ndim
    outer, inner = int(np.prod(x.shape[:a])), int(np.prod(x.shape[a + 1:]))
    return partial(_C.argmax, x, outs[0], outer, x.shape[a], inner)
