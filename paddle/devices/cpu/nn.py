"""CPU kernels of dropout and embedding (paddle/lowlevel/ops/nn.py; csrc/nn/norm.cpp,
csrc/nn/embedding.cpp)."""
from functools import partial

from paddle import _C
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.random_state import next_seed


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
