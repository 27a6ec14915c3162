"""CPU kernel of layer normalization's fused forward (paddle/lowlevel/fusion/layer_norm.py;
csrc/layer_norm.cpp): one C++ call per node, writing the outputs the plan needs."""
from functools import partial

from paddle import _C
from paddle.devices.cpu import elementwise, reduce
from paddle.devices.cpu.table import kernel

SLOTS = 9  # csrc/layer_norm.cpp's Slot


def slot_arguments(node, ins, outs):
    """(x, scale or None, offset or None, [an output array or None per slot]): the node's
    `slots` pair each output with its slot and whether it is written (a buffer the plan
    reads only the shape of is not)."""
    a = node.attrs
    x, rest = ins[0], list(ins[1:])
    scale = rest.pop(0) if a["scale"] else None
    offset = rest.pop(0) if a["offset"] else None
    slots = [None] * SLOTS
    for (slot, write), out in zip(a["slots"], outs):
        if write:
            slots[slot] = out
    return x, scale, offset, slots


@kernel("fused_layer_norm")
def _fused_layer_norm(node, ins, outs, ctx):
    x, scale, offset, slots = slot_arguments(node, ins, outs)
    return partial(_C.layer_norm, x, scale, offset, slots, node.attrs["cols"],
                   node.attrs["eps"])


# It stands in for these kernels only: mean, sub, square, mean, add, sqrt, div (then mul
# and add); a replaced one runs as itself.
_MEMBERS = {"sum": reduce._reduce, "sub": elementwise._binary, "square": elementwise._unary,
            "add": elementwise._binary, "sqrt": elementwise._unary,
            "div": elementwise._binary, "mul": elementwise._binary}
_ORDER = ["sum", "sub", "square", "sum", "add", "sqrt", "div", "mul", "add"]
_fused_layer_norm.fusable = lambda prepares: prepares == [
    _MEMBERS[name] for name in _ORDER[:len(prepares)]]


# x's gradient (fusion/layer_norm.py GRADIENT): from gy, y0 and d, one call.
@kernel("fused_layer_norm_grad")
def _fused_layer_norm_grad(node, ins, outs, ctx):
    gy, y0, d = ins
    return partial(_C.layer_norm_grad, gy, y0, d, outs[0], node.attrs["cols"])


# It stands in for these kernels only (the gradient's members by op; sum_to and
# broadcast_to, views here, by their own kernels as registered).
_GRAD_MEMBERS = {"div": elementwise._binary, "mul": elementwise._binary,
                 "add": elementwise._binary, "neg": elementwise._unary,
                 "sum_to": reduce._sum_to, "broadcast_to": elementwise._broadcast_to,
                 "count": reduce._count}
_fused_layer_norm_grad.fusable = lambda members: all(
    _GRAD_MEMBERS.get(name) is prepare for name, prepare in members)
