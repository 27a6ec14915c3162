"""CPU kernels of conv2d and its two adjoints (csrc/nn/conv.cpp).

prepare turns the node's attributes and the concrete shapes into the C++ geometry spec,
sizes the block of output positions each GEMM works on, and asks for the workspace
(column buffers, per-thread filter-gradient copies) as a part of the plan's arena, shared
with what is not live while the convolution runs (paddle/lowlevel/executor.py).
"""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu import elementwise
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import axis_pads

# A block's column buffer and output rows should stay in a core's L2 cache (1-2 MiB on
# current CPUs) while its GEMM runs: thin layers are limited by the output, wide ones by
# the columns; bigger blocks amortize the BLAS's packing of the filters.
COLUMN_BYTES = 1 << 20
OUTPUT_BYTES = 1 << 18
# ... but a product of fewer rows than this runs the BLAS well below its rate (its packing
# of the filters, K x cout, is paid again for every block): deep layers (K = 9 x 256 or 9 x
# 512) ran at 110-135 GFLOP/s on one core in blocks of 50-110 positions, 150-170 in blocks
# of about 400 (benchmarks/conv_shapes.py), even though their columns then outgrow L2.
MIN_POSITIONS = 384
TAPS = 32  # csrc/nn/conv.cpp's kMaxTaps: shorter windows on one group skip the BLAS


def conv_spec(x_shape, f_shape, y_shape, attrs, itemsize):
    """int64 spec of csrc/nn/conv.cpp for input x_shape (NHWC), filters and output."""
    n, h, w, c = x_shape
    kh, kw, cg, co = f_shape
    oh, ow = y_shape[1:3]
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilation"]
    pt, _ = axis_pads(attrs["padding"], 0, h, kh, sh, dh)
    pl, _ = axis_pads(attrs["padding"], 1, w, kw, sw, dw)
    positions, threads, groups = n * oh * ow, _C.omp_threads(), attrs["groups"]
    k = kh * kw * cg
    # Windows of at most TAPS values on one group, and depthwise ones, skip the BLAS.
    blas = groups == 1 and k > TAPS or groups > 1 and cg > 1 or k == cg == c
    # Big enough blocks for the BLAS, at least two per thread to balance the load (unless
    # that makes the products too short: then one per thread).
    target = max(64, min(COLUMN_BYTES // (k * itemsize), OUTPUT_BYTES // (co * itemsize)))
    balanced = -(-positions // (2 * threads))
    if blas:
        target = max(target, MIN_POSITIONS)
        balanced = max(balanced, min(MIN_POSITIONS, -(-positions // threads)))
    target = max(min(target, balanced), 1)
    return np.array([n, h, w, c, oh, ow, co, kh, kw, sh, sw, dh, dw, pt, pl, attrs["groups"],
                     target], dtype=np.int64)


def _workspace(spec, dtype, filter_grad, ctx):
    """The kernel's workspace: a part of the plan's arena (see `_workspace_bytes`)."""
    return ctx.workspace(max(_C.conv2d_workspace(spec, filter_grad), 1), dtype)


def _workspace_bytes(x_at, f_at, y_at, filter_grad):
    """The `workspace(node, in_specs, out_specs)` of a prepare function: the bytes its
    workspace takes, from the (shape, dtype) of the input x, filters f and output y (each
    `(list, index)`: 0 for the inputs, 1 for the outputs), so that the planner gives every
    convolution's workspace a place in the arena, shared with what is not live during it."""
    def size(node, ins, outs):
        (x, dt), (f, _), (y, _) = [(ins, outs)[side][i] for side, i in (x_at, f_at, y_at)]
        itemsize = np.dtype(dt).itemsize
        spec = conv_spec(x, f, y, node.attrs, itemsize)
        return max(_C.conv2d_workspace(spec, filter_grad), 1) * itemsize
    return size


def _none(like):
    """The empty array that stands for an absent optional operand in csrc/nn/conv.cpp."""
    return np.empty(0, dtype=like.dtype)


@kernel("conv2d")
def _conv2d(node, ins, outs, ctx, relu=False, residual=None):
    x, f = ins[:2]
    bias = ins[2] if len(ins) > 2 else _none(x)
    y = outs[0]
    spec = conv_spec(x.shape, f.shape, y.shape, node.attrs, x.itemsize)
    return partial(_C.conv2d, x, f, bias, y, spec, _workspace(spec, x.dtype, False, ctx), relu,
                   _none(x) if residual is None else residual)


_conv2d.workspace = _workspace_bytes((0, 0), (0, 1), (1, 0), False)


# conv2d + relu, conv2d + add and conv2d + add + relu, fused (paddle/lowlevel/fusion/conv.py):
# the same kernel, the residual added and relu applied to each block of output rows while
# it is in cache. With an add, the residual is the node's last input.
@kernel("fused_conv")
def _fused_conv(node, ins, outs, ctx):
    members = node.op.members
    if "add" in members:
        return _conv2d(node, ins[:-1], outs, ctx, relu="relu" in members, residual=ins[-1])
    return _conv2d(node, ins, outs, ctx, relu=True)


_fused_conv.workspace = _conv2d.workspace
# It stands in for these kernels only (a replaced one runs as itself).
_fused_conv.fusable = lambda prepares: prepares in (
    [_conv2d, elementwise._unary], [_conv2d, elementwise._binary],
    [_conv2d, elementwise._binary, elementwise._unary])


@kernel("conv2d_backprop_input", "conv2d_transpose")
def _backprop_input(node, ins, outs, ctx):
    g, f = ins[:2]
    dx = outs[0]
    spec = conv_spec(dx.shape, f.shape, g.shape, node.attrs, g.itemsize)
    return partial(_C.conv2d_backprop_input, g, f, dx, spec,
                   _workspace(spec, g.dtype, False, ctx))


_backprop_input.workspace = _workspace_bytes((1, 0), (0, 1), (0, 0), False)


@kernel("conv2d_backprop_filter")
def _backprop_filter(node, ins, outs, ctx):
    x, g = ins[:2]
    df = outs[0]
    db = outs[1] if len(outs) > 1 else _none(x)
    spec = conv_spec(x.shape, df.shape, g.shape, node.attrs, x.itemsize)
    return partial(_C.conv2d_backprop_filter, x, g, df, db, spec,
                   _workspace(spec, x.dtype, True, ctx))


_backprop_filter.workspace = _workspace_bytes((0, 0), (1, 0), (0, 1), True)
