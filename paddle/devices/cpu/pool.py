"""CPU kernels of max and average pooling and their gradients (csrc/nn/pool.cpp)."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu import elementwise
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import axis_pads


def pool_spec(x_shape, y_shape, attrs):
    """int64 spec of csrc/nn/pool.cpp for NHWC input and output shapes."""
    n, h, w, c = x_shape
    (kh, kw), (sh, sw) = attrs["pool_size"], attrs["strides"]
    pt, _ = axis_pads(attrs["padding"], 0, h, kh, sh, 1)
    pl, _ = axis_pads(attrs["padding"], 1, w, kw, sw, 1)
    return np.array([n, h, w, c, y_shape[1], y_shape[2], kh, kw, sh, sw, pt, pl], dtype=np.int64)


@kernel("max_pool2d")
def _max_pool(node, ins, outs, ctx):
    y, where = outs
    return partial(_C.max_pool2d, ins[0], y, where, pool_spec(ins[0].shape, y.shape, node.attrs))


@kernel("avg_pool2d")
def _avg_pool(node, ins, outs, ctx):
    return partial(_C.avg_pool2d, ins[0], outs[0],
                   pool_spec(ins[0].shape, outs[0].shape, node.attrs))


@kernel("max_pool2d_grad")
def _max_pool_grad(node, ins, outs, ctx, relu_y=None, pool_y=None):
    g, where = ins[:2]
    dx = outs[0]
    none = np.empty(0, dx.dtype)
    return partial(_C.max_pool2d_grad, g, where, dx, pool_spec(dx.shape, g.shape, node.attrs),
                   none if relu_y is None else relu_y, none if pool_y is None else pool_y)


# max_pool2d_grad + relu_grad, fused (paddle/lowlevel/fusion/pool.py): the same kernel,
# relu's mask applied to each image's dx in cache, or, where the relu output is the
# pooling's input (attrs["mask"] == "pool_y"), each window's gradient masked by the
# pooling's output. (A second output, if any, only lends its shape to shape-only readers:
# never written.)
@kernel("fused_pool_grad")
def _fused_pool_grad(node, ins, outs, ctx):
    if node.attrs.get("mask") == "pool_y":
        return _max_pool_grad(node, ins[:3], outs[:1], ctx, pool_y=ins[3])
    return _max_pool_grad(node, ins[:3], outs[:1], ctx, relu_y=ins[3])


# It stands in for these kernels only (a replaced one runs as itself).
_fused_pool_grad.fusable = lambda prepares: prepares == [_max_pool_grad, elementwise._binary]


@kernel("max_pool2d_select")
def _max_pool_select(node, ins, outs, ctx):
    gg, where = ins
    spec = pool_spec(gg.shape, outs[0].shape, node.attrs)
    return partial(_C.max_pool2d_select, gg, where, outs[0], spec)


@kernel("avg_pool2d_grad")
def _avg_pool_grad(node, ins, outs, ctx):
    g = ins[0]
    spec = pool_spec(outs[0].shape, g.shape, node.attrs)
    return partial(_C.avg_pool2d_grad, g, outs[0], spec)
