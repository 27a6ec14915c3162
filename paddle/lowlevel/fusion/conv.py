"""A convolution with the relu that follows it: one kernel writes relu(conv2d(x, w) + bias),
the relu applied to each block of output rows while the block is still in cache
(csrc/nn/conv.cpp's `relu` argument), instead of a pass of its own over the whole output.

A float32 or float64 conv2d fuses with a relu that is the one reader of its output (not a
target); the fused node runs at the conv2d's place. The backward is left as it is: relu_grad reads relu's
output, which the fused node writes.

Example:
    >>> from paddle.lowlevel.fusion.conv import FORWARD
    >>> FORWARD
    'fused_conv'
"""
from paddle.lowlevel.fusion.node import FusedNode, FusedOp, computes_exactly, prepare_of
from paddle.lowlevel.fusion.norm import single_readers

FORWARD = "fused_conv"


def fuse_conv_relu(nodes, known, kept, late, kernels):
    """`nodes` with conv2d + relu pairs fused, where the backend has the kernel
    (`fusable([prepare of each member's op])` says whether it stands in for those kernels),
    in float32 and float64 (`computes_exactly`)."""
    forward = kernels.get(FORWARD)
    if not hasattr(forward, "fusable") or not forward.fusable(
            [prepare_of(kernels, "conv2d"), prepare_of(kernels, "relu")]):
        return nodes
    single = single_readers(nodes)
    at, dropped = {}, set()
    for n in nodes:
        if n.op.name != "conv2d" or id(n) in late or (id(n), 0) in kept:
            continue
        relu = single.get((id(n), 0))
        if relu is None or relu.op.name != "relu" or id(relu) in late:
            continue
        if not computes_exactly(known[(id(n), 0)][1]):
            continue
        dropped.add(id(relu))
        at[id(n)] = FusedNode(FusedOp(FORWARD, ["conv2d", "relu"]), n.inputs, dict(n.attrs),
                              relu, [n, relu], keys=[(id(relu), 0)], mode_of=n)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]
