"""CPU kernels of matmul, reductions, the softmax family, losses and metrics."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu.layouts import reduce_passes
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import normalize_axes


@kernel("matmul")
def _matmul(node, ins, outs, ctx):
    a, b = ins
    ta, tb = node.attrs["transpose_a"], node.attrs["transpose_b"]
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    m, k = (sa[-1], sa[-2]) if ta else (sa[-2], sa[-1])
    n = sb[-2] if tb else sb[-1]
    batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    # Offsets of each batch's matrix in a and b; broadcast dims repeat one offset.
    a_idx = np.broadcast_to(np.arange(int(np.prod(sa[:-2]))).reshape(sa[:-2] or ()), batch)
    b_idx = np.broadcast_to(np.arange(int(np.prod(sb[:-2]))).reshape(sb[:-2] or ()), batch)
    a_off = a_idx.reshape(-1) * (sa[-1] * sa[-2])
    b_off = b_idx.reshape(-1) * (sb[-1] * sb[-2])
    # A batch of x against one shared matrix is one big product: rows stack up.
    if len(batch) and sb[:-2] == () and not ta:
        a_off, m = a_off[:1], m * a_off.size
    spec = np.array([a_off.size, m, n, k, int(ta), int(tb), *a_off, *b_off[:a_off.size]],
                    dtype=np.int64)
    return partial(_C.matmul, a, b, outs[0], spec)


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


@kernel("sum", "max", "min")
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


@kernel("softmax", "log_softmax")
def _softmax(node, ins, outs, ctx):
    return partial(_C.softmax, ins[0], outs[0], ins[0].shape[-1], node.op.name == "log_softmax")


@kernel("softmax_cross_entropy")
def _softmax_xent(node, ins, outs, ctx):
    return partial(_C.softmax_cross_entropy, ins[0], ins[1], outs[0], ins[0].shape[-1])


@kernel("in_top_k")
def _in_top_k(node, ins, outs, ctx):
    return partial(_C.in_top_k, ins[0], ins[1], outs[0], ins[0].shape[-1], node.attrs["k"])
