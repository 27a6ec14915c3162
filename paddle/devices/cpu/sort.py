"""CPU kernels of the ordering ops (paddle/lowlevel/ops/sort.py): csrc/sort.cpp, on x viewed
as [outer, n, inner] around the op's axis."""
from functools import partial

from paddle import _C
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import around


@kernel("argsort")
def _argsort(node, ins, outs, ctx):
    x = ins[0]
    a = node.attrs["axis"] % x.ndim
    outer, n, inner = around(x.shape, a)
    return partial(_C.argsort, x, outs[0], outer, n, inner, node.attrs["descending"],
                   outs[0].shape[a])


@kernel("cumsum", "cumprod")
def _cumulate(node, ins, outs, ctx):
    x = ins[0]
    outer, n, inner = around(x.shape, node.attrs["axis"] % x.ndim)
    return partial(_C.cumulate, node.op.code, x, outs[0], outer, n, inner)


@kernel("diff")
def _diff(node, ins, outs, ctx):
    x = ins[0]
    outer, n, inner = around(x.shape, node.attrs["axis"] % x.ndim)
    return partial(_C.diff, x, outs[0], outer, n, inner)


@kernel("take_along_axis")
def _take_along_axis(node, ins, outs, ctx):
    x, idx = ins
    a = node.attrs["axis"] % x.ndim
    outer, n, inner = around(x.shape, a)
    return partial(_C.take_along_axis, x, idx, outs[0], outer, n, idx.shape[a], inner,
                   node.attrs.get("wrap", False))


@kernel("take_along_axis_grad")
def _take_along_axis_grad(node, ins, outs, ctx):
    g, idx, _ = ins
    out = outs[0]
    a = node.attrs["axis"] % out.ndim
    outer, n, inner = around(out.shape, a)
    return partial(_C.take_along_axis_grad, g, idx, out, outer, n, idx.shape[a], inner,
                   node.attrs.get("wrap", False))


@kernel("searchsorted")
def _searchsorted(node, ins, outs, ctx):
    seq, values = ins
    return partial(_C.searchsorted, seq, values, outs[0], node.attrs["side"] == "right")
