"""CUDA kernels of max and average pooling and their gradients (csrc/cuda/pool.cu).

The geometry is csrc/nn/pool.cpp's spec, computed by the CPU backend's `pool_spec`; each
kernel's NumPy reference below walks the same windows in the same order with whole-array
operations (one pass per window position), so a simulated run checks the index logic.
"""
import numpy as np

from paddle.devices.cpu.pool import pool_spec
from paddle.devices.cuda import elementwise
from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.table import kernel


def _windows(OH, OW, KH, KW, sh, sw, pt, pl, H, W):
    """Per window position (kh, kw): its input rows and columns for every output row and
    column, and where they fall inside the input (the clipped window)."""
    top, left = np.arange(OH) * sh - pt, np.arange(OW) * sw - pl
    for kh in range(KH):
        ih = top + kh
        for kw in range(KW):
            iw = left + kw
            inside = ((ih >= 0) & (ih < H))[:, None] & ((iw >= 0) & (iw < W))[None, :]
            yield kh * KW + kw, np.clip(ih, 0, H - 1), np.clip(iw, 0, W - 1), inside


def _max_forward_ref(x, y, where, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl):
    x = x.reshape(N, H, W, C)
    best = np.zeros((N, OH, OW, C), x.dtype)
    at = np.zeros((N, OH, OW, C), np.int32)
    seen = np.zeros((1, OH, OW, 1), bool)
    for pos, ih, iw, inside in _windows(OH, OW, KH, KW, sh, sw, pt, pl, H, W):
        s = x[:, ih][:, :, iw]
        inside = inside[None, :, :, None]
        take = inside & (~seen | (s > best) | (np.isnan(s) & ~np.isnan(best)))
        best = np.where(take, s, best)
        at = np.where(take, np.int32(pos), at)
        seen = seen | inside
    y.reshape(best.shape)[...] = best
    where.reshape(at.shape)[...] = at


def _avg_forward_ref(x, y, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl):
    x = x.reshape(N, H, W, C)
    total = np.zeros((N, OH, OW, C), x.dtype)
    count = np.zeros((1, OH, OW, 1), x.dtype)
    for _, ih, iw, inside in _windows(OH, OW, KH, KW, sh, sw, pt, pl, H, W):
        total += np.where(inside[None, :, :, None], x[:, ih][:, :, iw], 0)
        count += inside[None, :, :, None]
    y.reshape(total.shape)[...] = total * (1 / count).astype(x.dtype)


def _covering(H, OH, KH, sh, pt):
    """For each input row h and window offset k (highest first, so output rows come in
    increasing order): the output row whose window holds h at offset k, and whether one
    does."""
    for kh in reversed(range(KH)):
        start = np.arange(H) + pt - kh
        oh = start // sh
        yield kh, np.clip(oh, 0, OH - 1), (start % sh == 0) & (oh >= 0) & (oh < OH)


def _gather_ref(g, dx, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl, weight):
    """dx[n, h, w, c] = sum over the windows (oh, ow) holding (h, w) at offset (kh, kw) of
    g[n, oh, ow, c] * weight(kh, kw, oh, ow, n, c), in window order as the kernels add."""
    g = g.reshape(N, OH, OW, C)
    d = np.zeros((N, H, W, C), dx.dtype)
    rows = list(_covering(H, OH, KH, sh, pt))
    cols = list(_covering(W, OW, KW, sw, pl))
    for kh, oh, row_ok in rows:
        for kw, ow, col_ok in cols:
            ok = (row_ok[:, None] & col_ok[None, :])[None, :, :, None]
            d += np.where(ok, g[:, oh][:, :, ow] * weight(kh, kw, oh, ow), 0)
    dx.reshape(d.shape)[...] = d


def _max_grad_ref(g, where, dx, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl):
    at = where.reshape(N, OH, OW, C)
    _gather_ref(g, dx, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl,
                lambda kh, kw, oh, ow: at[:, oh][:, :, ow] == kh * KW + kw)


def _clipped_count(OH, OW, KH, KW, sh, sw, pt, pl, H, W):
    top, left = np.arange(OH) * sh - pt, np.arange(OW) * sw - pl
    rows = np.minimum(top + KH, H) - np.maximum(top, 0)
    cols = np.minimum(left + KW, W) - np.maximum(left, 0)
    return rows[:, None] * cols[None, :]


def _avg_grad_ref(g, dx, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl):
    inv = (1 / _clipped_count(OH, OW, KH, KW, sh, sw, pt, pl, H, W)).astype(dx.dtype)
    _gather_ref(g, dx, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl,
                lambda kh, kw, oh, ow: inv[oh][:, ow][None, :, :, None])


def _select_ref(gg, where, out, N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl):
    gg = gg.reshape(N, H, W, C)
    pos = where.reshape(N, OH, OW, C).astype(np.int64)
    h = (np.arange(OH) * sh - pt)[None, :, None, None] + np.where(pos >= 0, pos // KW, -1)
    w = (np.arange(OW) * sw - pl)[None, None, :, None] + np.where(pos >= 0, pos % KW, -1)
    inside = (pos >= 0) & (pos < KH * KW) & (h >= 0) & (h < H) & (w >= 0) & (w < W)
    n = np.arange(N)[:, None, None, None]
    c = np.arange(C)[None, None, None, :]
    picked = gg[n, np.clip(h, 0, H - 1), np.clip(w, 0, W - 1), c]
    out.reshape(picked.shape)[...] = np.where(inside, picked, 0)


MAX_FORWARD = Kernel("pool.cu", "max_pool_forward", _max_forward_ref)
AVG_FORWARD = Kernel("pool.cu", "avg_pool_forward", _avg_forward_ref)
MAX_GRAD = Kernel("pool.cu", "max_pool_grad", _max_grad_ref)
MAX_SELECT = Kernel("pool.cu", "max_pool_select", _select_ref)
AVG_GRAD = Kernel("pool.cu", "avg_pool_grad", _avg_grad_ref)


def _spec(x_shape, y_shape, attrs):
    return [int(v) for v in pool_spec(x_shape, y_shape, attrs)]


@kernel("max_pool2d")
def _max_pool(node, ins, outs, ctx):
    (x,), (y, where) = ins, outs
    return MAX_FORWARD.bind(ctx.xp, x.dtype, y.size, x, y, where,
                            *_spec(x.shape, y.shape, node.attrs))


@kernel("avg_pool2d")
def _avg_pool(node, ins, outs, ctx):
    (x,), (y,) = ins, outs
    return AVG_FORWARD.bind(ctx.xp, x.dtype, y.size, x, y, *_spec(x.shape, y.shape, node.attrs))


@kernel("max_pool2d_grad")
def _max_pool_grad(node, ins, outs, ctx):
    g, where, _ = ins
    dx = outs[0]
    return MAX_GRAD.bind(ctx.xp, g.dtype, dx.size, g, where, dx,
                         *_spec(dx.shape, g.shape, node.attrs))


@kernel("max_pool2d_select")
def _max_pool_select(node, ins, outs, ctx):
    gg, where = ins
    out = outs[0]
    return MAX_SELECT.bind(ctx.xp, gg.dtype, out.size, gg, where, out,
                           *_spec(gg.shape, out.shape, node.attrs))


@kernel("avg_pool2d_grad")
def _avg_pool_grad(node, ins, outs, ctx):
    g, dx = ins[0], outs[0]
    return AVG_GRAD.bind(ctx.xp, g.dtype, dx.size, g, dx, *_spec(dx.shape, g.shape, node.attrs))


# max_pool2d_grad + relu_grad as the fusion pass pairs them (paddle/lowlevel/fusion/pool.py).
# On CUDA: the pooling's gradient into a scratch buffer, then relu_grad from it (no launch
# saved yet); the pair stays one node on every device. A second output, if any, only lends
# its shape to shape-only readers: never written.
# With attrs["mask"] == "pool_y" (paddle/lowlevel/fusion/pool.py: the relu output is the
# pooling's input), the mask is the pooling's output: g masked by it first, then routed.
@kernel("fused_pool_grad")
def _fused_pool_grad(node, ins, outs, ctx):
    dx, mask = outs[0], ins[3]
    relu_grad = elementwise.relu_grad_kernel(ctx)
    if node.attrs.get("mask") == "pool_y":
        g = ins[0]
        gated = ctx.empty(g.shape, g.dtype)
        return sequence([lambda: relu_grad(mask, g, gated),
                         _max_pool_grad(node, [gated, *ins[1:3]], outs[:1], ctx)])
    routed = ctx.empty(dx.shape, dx.dtype)
    return sequence([_max_pool_grad(node, ins[:3], [routed], ctx),
                     lambda: relu_grad(mask, routed, dx)])


_fused_pool_grad.fusable = lambda prepares: prepares == [_max_pool_grad,
                                                         elementwise.ELEMENTWISE]
