"""CPU kernels of batch_norm and its gradient (csrc/nn/norm.cpp)."""
from functools import partial

from paddle import _C
from paddle.devices.cpu import elementwise
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import around


@kernel("batch_norm")
def _batch_norm(node, ins, outs, ctx, relu=False):
    x, scale, offset, mm, mv = ins
    if ctx.training and not (mm.flags.writeable and mv.flags.writeable):
        raise ValueError(f"batch_norm: a training run updates moving_mean and "
                         f"moving_variance in place: pass parameters (pd.Variable), not "
                         f"constants ({node.inputs[3].name!r}, {node.inputs[4].name!r})")
    outer, c, inner = around(x.shape, node.attrs["axis"])
    return partial(_C.batch_norm, x, scale, offset, mm, mv, *outs, outer, c, inner,
                   node.attrs["momentum"], node.attrs["epsilon"], bool(ctx.training), relu)


@kernel("batch_norm_grad")
def _batch_norm_grad(node, ins, outs, ctx):
    x = ins[0]
    outer, c, inner = around(x.shape, node.attrs["axis"])
    return partial(_C.batch_norm_grad, *ins, *outs, outer, c, inner, bool(ctx.training))


# batch_norm + relu and relu_grad + batch_norm_grad, fused (paddle/lowlevel/fusion/norm.py):
# the same kernels, relu as the forward's epilogue, relu's mask read by the gradient.
@kernel("fused_batch_norm")
def _fused_batch_norm(node, ins, outs, ctx):
    return _batch_norm(node, ins, outs, ctx, relu=True)


@kernel("fused_batch_norm_grad")
def _fused_batch_norm_grad(node, ins, outs, ctx):
    x, scale, mean, inv_std, relu_y, g = ins
    outer, c, inner = around(x.shape, node.attrs["axis"])
    return partial(_C.batch_norm_grad, x, scale, mean, inv_std, g, *outs, outer, c, inner,
                   bool(ctx.training), relu_y)


# They stand in for these kernels only (a replaced one runs as itself).
_fused_batch_norm.fusable = lambda prepares: prepares == [_batch_norm, elementwise._unary]
_fused_batch_norm_grad.fusable = lambda prepares: prepares == [elementwise._binary,
                                                               _batch_norm_grad]
