"""CPU kernels of batch_norm and its gradient (csrc/nn/norm.cpp)."""
from functools import partial

from paddle import _C
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import around


@kernel("batch_norm")
def _batch_norm(node, ins, outs, ctx):
    x, scale, offset, mm, mv = ins
    if ctx.training and not (mm.flags.writeable and mv.flags.writeable):
        raise ValueError(f"batch_norm: a training run updates moving_mean and "
                         f"moving_variance in place: pass parameters (pd.Variable), not "
                         f"constants ({node.inputs[3].name!r}, {node.inputs[4].name!r})")
    outer, c, inner = around(x.shape, node.attrs["axis"])
    return partial(_C.batch_norm, x, scale, offset, mm, mv, *outs, outer, c, inner,
                   node.attrs["momentum"], node.attrs["epsilon"], bool(ctx.training))


@kernel("batch_norm_grad")
def _batch_norm_grad(node, ins, outs, ctx):
    x = ins[0]
    outer, c, inner = around(x.shape, node.attrs["axis"])
    return partial(_C.batch_norm_grad, *ins, *outs, outer, c, inner, bool(ctx.training))
