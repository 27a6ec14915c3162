"""CPU kernels of batch_norm, dropout and embedding (csrc/nn/norm.cpp, embedding.cpp)."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.random import next_seed
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


@kernel("dropout")
def _dropout(node, ins, outs, ctx):
    x, (y, mask) = ins[0], outs
    if not ctx.training:
        return partial(_C.dropout, x, y, mask, 0.0, 0)
    rate = node.attrs["rate"]
    # A fresh seed every run, from paddle's random state: reproducible under pd.seed.
    return lambda: _C.dropout(x, y, mask, rate, next_seed())


@kernel("embedding")
def _embedding(node, ins, outs, ctx):
    ids, table = ins
    return partial(_C.embedding, ids, table, outs[0])
