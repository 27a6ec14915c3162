"""CPU kernels of the softmax family (paddle/lowlevel/ops/activations.py; csrc/softmax.cpp)."""
from functools import partial

from paddle import _C
from paddle.devices.cpu import elementwise, reduce
from paddle.devices.cpu.table import kernel


@kernel("softmax", "log_softmax")
def _softmax(node, ins, outs, ctx):
    return partial(_C.softmax, ins[0], outs[0], ins[0].shape[-1], node.op.name == "log_softmax")


@kernel("logsumexp")
def _logsumexp(node, ins, outs, ctx):
    return partial(_C.logsumexp, ins[0], outs[0], ins[0].shape[-1])


# Softmax's gradient, y * (g - sum(g * y)), as the fusion pass groups it
# (paddle/lowlevel/fusion/softmax.py): one pass per row (csrc/softmax.cpp).
@kernel("fused_softmax_grad")
def _fused_softmax_grad(node, ins, outs, ctx):
    y, g = ins
    return partial(_C.softmax_grad, y, g, outs[0], y.shape[-1])


# It stands in for these kernels only (mul, sum, sub, mul; a replaced one runs as itself).
_fused_softmax_grad.fusable = lambda prepares: prepares == [
    elementwise._binary, reduce._reduce, elementwise._binary, elementwise._binary]
