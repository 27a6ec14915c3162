"""CPU kernels of the elementwise ops (paddle/lowlevel/ops/math.py)."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu.layouts import broadcast_strides, contiguous_strides, copy_spec, layout
from paddle.devices.cpu.table import kernel


@kernel(family="unary")
def _unary(node, ins, outs, ctx):
    return partial(_C.unary, node.op.code, ins[0], outs[0])


@kernel(family="binary")
def _binary(node, ins, outs, ctx):
    return partial(_C.binary, node.op.code, ins[0], ins[1], outs[0],
                   layout(outs[0].shape, ins[0].shape, ins[1].shape))


@kernel(family="compare")
def _compare(node, ins, outs, ctx):
    return partial(_C.compare, node.op.code, ins[0], ins[1], outs[0],
                   layout(outs[0].shape, ins[0].shape, ins[1].shape))


@kernel(family="predicate")
def _predicate(node, ins, outs, ctx):
    return partial(_C.predicate, node.op.code, ins[0], outs[0])


@kernel("where")
def _where(node, ins, outs, ctx):
    return partial(_C.where, *ins, outs[0], layout(outs[0].shape, *(a.shape for a in ins)))


@kernel("cast")
def _cast(node, ins, outs, ctx):
    return partial(_C.cast, ins[0], outs[0])


@kernel("full_like")
def _full_like(node, ins, outs, ctx):
    return partial(_C.fill, outs[0], float(node.attrs["value"]))


@kernel("broadcast_to")
def _broadcast_to(node, ins, outs, ctx):
    out = outs[0]
    spec = copy_spec(out.shape, broadcast_strides(out.shape, ins[0].shape),
                     contiguous_strides(out.shape))
    return partial(_C.strided_copy, ins[0], out, spec)


@kernel("fused_elementwise")
def _fused_elementwise(node, ins, outs, ctx):
    # A fused group (paddle/lowlevel/fusion/elementwise.py): its program, as an int64
    # array, runs in blocks over the output (csrc/elementwise.cpp).
    a, out = node.attrs, outs[0]
    last = out.shape[-1] if out.ndim else 1
    return partial(_C.fused_elementwise, list(ins), a["reads"], a["array"], a["temps"],
                   np.dtype(a["dtype"]).num, out, max(last, 1))


# The CPU's fused kernel runs every unary, binary, compare, predicate and where op, in every
# compute dtype the pass offers (float32, float64, int32, int64), where the op's kernel is
# still one of the above.
_fused_elementwise.fusable = lambda name, dtype, prepare: prepare in (_unary, _binary,
                                                                      _compare, _predicate,
                                                                      _where)


# The color conversions (paddle/lowlevel/ops/color.py): one pass over the pixels
# (csrc/color.cpp), the conversion's code as the C++ enum's.
_COLOR_CODES = {"rgb_to_hsv": 0, "hsv_to_rgb": 1}


@kernel("rgb_to_hsv", "hsv_to_rgb")
def _color_convert(node, ins, outs, ctx):
    return partial(_C.color_convert, _COLOR_CODES[node.op.name], ins[0], outs[0])
