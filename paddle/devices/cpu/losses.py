"""CPU kernels of the fused losses and metrics (paddle/lowlevel/ops/losses.py):
softmax_cross_entropy and in_top_k (csrc/softmax.cpp), which check their labels in C++."""
from functools import partial

from paddle import _C
from paddle.devices.cpu.table import kernel


@kernel("softmax_cross_entropy")
def _softmax_xent(node, ins, outs, ctx):
    return partial(_C.softmax_cross_entropy, ins[0], ins[1], outs[0], ins[0].shape[-1])


@kernel("in_top_k")
def _in_top_k(node, ins, outs, ctx):
    return partial(_C.in_top_k, ins[0], ins[1], outs[0], ins[0].shape[-1], node.attrs["k"])
