"""CPU kernels of the elementwise ops (paddle/lowlevel/ops/math.py)."""
from functools import partial

from paddle import _C
from paddle.devices.cpu import KERNELS, copy_spec, broadcast_strides, contiguous_strides, kernel, layout
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops.math import Binary, Compare, Unary


def _unary(node, ins, outs, ctx):
    return partial(_C.unary, node.op.code, ins[0], outs[0])


def _binary(node, ins, outs, ctx):
    return partial(_C.binary, node.op.code, ins[0], ins[1], outs[0],
                   layout(outs[0].shape, ins[0].shape, ins[1].shape))


def _compare(node, ins, outs, ctx):
    return partial(_C.compare, node.op.code, ins[0], ins[1], outs[0],
                   layout(outs[0].shape, ins[0].shape, ins[1].shape))


for _name, _op in OPS.items():
    if isinstance(_op, Unary):
        KERNELS[_name] = _unary
    elif isinstance(_op, Binary):
        KERNELS[_name] = _binary
    elif isinstance(_op, Compare):
        KERNELS[_name] = _compare


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
