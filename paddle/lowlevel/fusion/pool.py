"""The gradient of a max pooling with the relu gradient that follows it (a convolution's
`relu` before a MaxPooling2D, in the backward pass): one kernel routes each window's
gradient to its arg-max and then masks each image's input gradient by the relu's output
while the image is still in cache (csrc/nn/pool.cpp's `relu_y` argument), instead of a
pass of its own over the whole gradient.

A max_pool2d_grad fuses with the relu_grad that reads its output, when that relu_grad is
its one reader (not a target) and the relu output it reads has the same shape and dtype.
The fused node runs at the relu_grad's place (where the relu output is ready).

Where that relu output is the pooling's own input (a Conv2D with relu, then MaxPooling2D),
its value at each window's arg-max is the pooling's output there: the fused kernel then
masks each window's gradient by the pooling's output (attrs["mask"] = "pool_y"; for 2x2
windows a quarter of the bytes) and never reads the relu output, which can be freed once
the forward pooling has read it.

Example:
    >>> from paddle.lowlevel.fusion.pool import BACKWARD
    >>> BACKWARD
    'fused_pool_grad'
"""
from paddle.lowlevel.fusion.node import (FusedNode, FusedOp, computes_exactly, key,
                                         one_reader, prepare_of, readers_of)

BACKWARD = "fused_pool_grad"


def fuse_max_pool_grad_relu_grad(nodes, known, kept, late, kernels):
    """`nodes` with max_pool2d_grad + relu_grad pairs fused, where the backend has the
    kernel (`fusable([prepare of each member's op])` says whether it stands in for them)."""
    backward = kernels.get(BACKWARD)
    if not hasattr(backward, "fusable") or not backward.fusable(
            [prepare_of(kernels, "max_pool2d_grad"), prepare_of(kernels, "relu_grad")]):
        return nodes
    readers = readers_of(nodes)
    at, dropped = {}, set()
    for n in nodes:
        if n.op.name != "max_pool2d_grad" or id(n) in late or (id(n), 0) in kept:
            continue
        grad = one_reader(readers, (id(n), 0))
        if grad is None or grad.op.name != "relu_grad" or id(grad) in late:
            continue
        y, g = grad.inputs
        if key(g) != (id(n), 0) or known[key(y)] != known[(id(n), 0)]:
            continue
        if not computes_exactly(known[(id(n), 0)][1]):
            continue
        shapes_read = [(id(n), 0)] if readers[(id(n), 0)][1] else []
        dropped.add(id(n))
        mask, attrs = y, dict(n.attrs)
        pooled = _pool_output(n, y, known)
        if pooled is not None:
            mask, attrs["mask"] = pooled, "pool_y"
        op = FusedOp(BACKWARD, ["max_pool2d_grad", "relu_grad"])
        op.shape_only = n.op.shape_only  # (the pooling's input lends only its shape)
        at[id(grad)] = FusedNode(op, [*n.inputs, mask], attrs, grad, [n, grad],
                                 keys=[(id(grad), 0), *shapes_read], mode_of=n)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]


def _pool_output(grad, y, known):
    """The forward max_pool2d's output y_pool when `y`, the relu output that masks `grad`
    (a max_pool2d_grad node: inputs g, where, the pooling's input), is that pooling's
    input; else None."""
    where, x = grad.inputs[1], grad.inputs[2]
    pool = where.node
    if pool is None or pool.op.name != "max_pool2d" or where.index != 1 or key(x) != key(y) \
            or key(pool.inputs[0]) != key(y):
        return None
    pooled = pool.outputs[0]
    if pooled is None or known.get((id(pool), 0)) != (known[key(where)][0], known[key(y)][1]):
        return None  # (no output Variable left, or not of where's shape and y's dtype)
    return pooled
