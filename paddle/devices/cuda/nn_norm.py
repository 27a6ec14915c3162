"""CUDA kernels of batch_norm, dropout and embedding (csrc/cuda/norm.cu, sampling.cu,
embedding.cu).

Batch normalization is two launches each way: a block per channel reduces the statistics
(in double, two passes, as csrc/nn/norm.cpp) and folds them into per-channel coefficients
kept in a small workspace, then an elementwise kernel applies them. Dropout draws its mask
from a seed in device memory that the host writes before each run (sampling.py). An
embedding id outside the table is recorded on the device and reported by the run's
`check`, the same IndexError as on the CPU.
"""
import numpy as np

from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.sampling import DROPOUT, stream_for
from paddle.devices.cuda.table import kernel
from paddle.lowlevel.random import next_seed
from paddle.lowlevel.shapes import around

BLOCK = 256  # threads of the per-channel kernels (csrc/cuda/norm.cu's PD_BLOCK)
MAX_CHANNEL_BLOCKS = 1 << 15



def _channels(x, outer, C, inner):
    return x.reshape(outer, C, inner)


def _stats_ref(x, scale, offset, mm, mv, mean, inv_std, a, b, outer, C, inner, momentum, eps,
               training):
    count = outer * inner
    if training:
        x3 = _channels(x, outer, C, inner)
        mu = x3.sum(axis=(0, 2), dtype=np.float64) / count if count else np.zeros(C)
        dev = x3.astype(np.float64) - mu[None, :, None]
        var = (dev * dev).sum(axis=(0, 2)) / count if count else np.zeros(C)
        mean[...] = mu
        inv_std[...] = 1.0 / np.sqrt(var + eps)
        if count:
            mm[...] = mm.astype(np.float64) * momentum + mu * (1.0 - momentum)
            mv[...] = mv.astype(np.float64) * momentum + var * (1.0 - momentum)
    else:
        mean[...] = mm
        inv_std[...] = 1.0 / np.sqrt(mv.astype(np.float64) + eps)
    a[...] = inv_std * scale
    b[...] = offset - mean * a


def _affine_ref(x, a, b, y, outer, C, inner):
    y3 = _channels(y, outer, C, inner)
    y3[...] = _channels(x, outer, C, inner) * a[None, :, None] + b[None, :, None]


def _grad_stats_ref(x, scale, mean, inv_std, g, dscale, doffset, k, p, q, outer, C, inner,
                    training):
    count = outer * inner
    g3 = _channels(g, outer, C, inner).astype(np.float64)
    sg = g3.sum(axis=(0, 2))
    sgx = (g3 * (_channels(x, outer, C, inner) - mean.astype(np.float64)[None, :, None])) \
        .sum(axis=(0, 2))
    inv = inv_std.astype(np.float64)
    kc = scale.astype(np.float64) * inv
    dscale[...] = sgx * inv
    doffset[...] = sg
    k[...] = kc
    if training and count:
        pc = -kc * inv * inv * sgx / count
        p[...] = pc
        q[...] = -kc * sg / count - pc * mean.astype(np.float64)
    else:
        p[...] = 0
        q[...] = 0


def _grad_apply_ref(x, g, k, p, q, dx, outer, C, inner):
    c = (slice(None), None)
    dx3 = _channels(dx, outer, C, inner)
    dx3[...] = k[c] * _channels(g, outer, C, inner) + p[c] * _channels(x, outer, C, inner) + q[c]


STATS = Kernel("norm.cu", "batch_norm_stats", _stats_ref)
AFFINE = Kernel("norm.cu", "channel_affine", _affine_ref)
GRAD_STATS = Kernel("norm.cu", "batch_norm_grad_stats", _grad_stats_ref)
GRAD_APPLY = Kernel("norm.cu", "batch_norm_grad_apply", _grad_apply_ref)


@kernel("batch_norm")
def _batch_norm(node, ins, outs, ctx):
    xp, (x, scale, offset, mm, mv), (y, mean, inv_std) = ctx.xp, ins, outs
    if ctx.training and any(v.kind == "const" or not getattr(a.flags, "writeable", True)
                            for v, a in zip(node.inputs[3:5], (mm, mv))):
        raise ValueError(f"batch_norm: a training run updates moving_mean and "
                         f"moving_variance in place: pass parameters (pd.Variable), not "
                         f"constants ({node.inputs[3].name!r}, {node.inputs[4].name!r})")
    outer, C, inner = around(x.shape, node.attrs["axis"])
    coefficients = ctx.empty((2, C), x.dtype)
    a, b = coefficients[0], coefficients[1]
    stats = STATS.bind(xp, x.dtype, BLOCK, x, scale, offset, mm, mv, mean, inv_std, a, b,
                       outer, C, inner, float(node.attrs["momentum"]),
                       float(node.attrs["epsilon"]), bool(ctx.training),
                       blocks=min(C, MAX_CHANNEL_BLOCKS))
    return sequence([stats, AFFINE.bind(xp, x.dtype, x.size, x, a, b, y, outer, C, inner)])


@kernel("batch_norm_grad")
def _batch_norm_grad(node, ins, outs, ctx):
    xp, (x, scale, mean, inv_std, g), (dx, dscale, doffset) = ctx.xp, ins, outs
    outer, C, inner = around(x.shape, node.attrs["axis"])
    coefficients = ctx.empty((3, C), x.dtype)
    k, p, q = coefficients
    stats = GRAD_STATS.bind(xp, x.dtype, BLOCK, x, scale, mean, inv_std, g, dscale, doffset,
                            k, p, q, outer, C, inner, bool(ctx.training),
                            blocks=min(C, MAX_CHANNEL_BLOCKS))
    return sequence([stats, GRAD_APPLY.bind(xp, x.dtype, x.size, x, g, k, p, q, dx, outer, C,
                                            inner)])


@kernel("dropout")
def _dropout(node, ins, outs, ctx):
    xp, x, (y, mask) = ctx.xp, ins[0], outs
    if not ctx.training:
        return sequence([lambda: xp.copyto(y, x), lambda: mask.fill(1)])
    rate = float(node.attrs["rate"])
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1), received {rate}")
    stream = stream_for(ctx, next_seed)
    draw = DROPOUT.bind(xp, x.dtype, x.size, x, y, mask, stream.seed, x.size, rate)
    return stream.run(draw)


def _shape_str(shape):
    return "(" + ", ".join(str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


def _embedding_ref(ids, table, out, bad, flag, k, rows, dim):
    flat = ids.reshape(-1)
    outside = (flat < 0) | (flat >= rows)
    out.reshape(k, dim)[...] = np.where(outside[:, None], 0, table[np.clip(flat, 0, rows - 1)])
    if outside.any():
        bad[0] = min(int(bad[0]), int(np.flatnonzero(outside)[0]))
        flag[0] = 1


EMBEDDING = Kernel("embedding.cu", "embedding", _embedding_ref)


@kernel("embedding")
def _embedding(node, ins, outs, ctx):
    xp, (ids, table), out = ctx.xp, ins, outs[0]
    if ids.dtype != np.int64 or table.ndim != 2:
        raise TypeError(f"embedding: expected int64 ids and a 2-D table, received "
                        f"{ids.dtype} ids and a table of shape {_shape_str(table.shape)}")
    rows, dim, k = table.shape[0], table.shape[1], ids.size
    bad, flag = ctx.empty((1,), np.uint64), ctx.empty((1,), np.int32)
    lookup = EMBEDDING.bind(xp, table.dtype, k * max(dim, 1), ids, table, out, bad, flag, k,
                            rows, dim)

    def outside(bad_id, j):
        """csrc/nn/embedding.cpp's IndexError for the first id outside the table."""
        return IndexError(f"embedding: id {bad_id} at position {j} is outside the table's "
                          f"{rows} rows [0, {rows}): ids is {_shape_str(ids.shape)}, table is "
                          f"{_shape_str(table.shape)}")

    dev = ctx.device  # (not ctx, which holds the hooks that hold `error`: no cycle)

    def error():
        j = int(dev.download(bad)[0])
        return outside(int(dev.download(ids.reshape(-1)[j:j + 1])[0]), j)
    ctx.check(flag, error)
    ctx.check_indices(ids, rows, outside)
    return sequence([lambda: bad.fill(k), lambda: flag.fill(0), lookup])
