"""CPU kernels of the softmax family (paddle/lowlevel/ops/activations.py; csrc/softmax.cpp)."""
from functools import partial

from paddle import _C
from paddle.devices.cpu.table import kernel


@kernel("softmax", "log_softmax")
def _softmax(node, ins, outs, ctx):
    return partial(_C.softmax, ins[0], outs[0], ins[0].shape[-1], node.op.name == "log_softmax")
