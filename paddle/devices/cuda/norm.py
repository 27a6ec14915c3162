"""CUDA kernels of batch_norm and its gradient (csrc/cuda/norm.cu).

Batch normalization is two launches each way: a block per channel reduces the statistics
(in double, two passes, as csrc/nn/norm.cpp) and folds them into per-channel coefficients
kept in a small workspace, then an elementwise kernel applies them.
"""
import numpy as np

from paddle.devices.cuda import elementwise
from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.table import kernel
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


# batch_norm + relu and relu_grad + batch_norm_grad as the fusion pass pairs them
# (paddle/lowlevel/fusion/norm.py). On CUDA they run the single ops' launches in turn (relu
# in place on the normalized values; relu_grad into a scratch buffer): no launch is saved
# yet (an epilogue in csrc/cuda/norm.cu would), but the pairs stay one node on every device.
@kernel("fused_batch_norm")
def _fused_batch_norm(node, ins, outs, ctx):
    y, xp = outs[0], ctx.xp
    zero = y.dtype.type(0)
    # max(y, 0) lets NaN through, as relu's kernel does
    return sequence([_batch_norm(node, ins, outs, ctx), lambda: xp.maximum(y, zero, out=y)])


@kernel("fused_batch_norm_grad")
def _fused_batch_norm_grad(node, ins, outs, ctx):
    x, scale, mean, inv_std, relu_y, g = ins
    masked = ctx.empty(g.shape, g.dtype)
    relu_grad = elementwise.relu_grad_kernel(ctx)
    apply = _batch_norm_grad(node, [x, scale, mean, inv_std, masked], outs, ctx)
    return sequence([lambda: relu_grad(relu_y, g, masked), apply])


_fused_batch_norm.fusable = lambda prepares: prepares == [_batch_norm, elementwise.ELEMENTWISE]
_fused_batch_norm_grad.fusable = lambda prepares: prepares == [elementwise.ELEMENTWISE,
                                                               _batch_norm_grad]
