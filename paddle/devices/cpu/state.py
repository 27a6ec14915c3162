"""CPU kernel of assign (paddle/lowlevel/ops/state.py): a broadcasting copy into the
parameter's own array (csrc/copy.cpp strided_copy)."""
from functools import partial

from paddle import _C
from paddle.devices.cpu.layouts import broadcast_strides, contiguous_strides, copy_spec
from paddle.devices.cpu.table import kernel


@kernel("assign")
def _assign(node, ins, outs, ctx):
    target, value = ins
    if not target.flags.writeable:
        raise ValueError(f"assign: {node.inputs[0].name!r} is not writable")
    spec = copy_spec(target.shape, broadcast_strides(target.shape, value.shape),
                     contiguous_strides(target.shape))
    return partial(_C.strided_copy, value, target, spec)
