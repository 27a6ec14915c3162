"""Softmax's gradient as one kernel: the four nodes Softmax.grad emits,
`y * (g - sum(g * y, axis=-1, keepdims=True))` (mul, sum, sub, mul), become one node that
reads y and g once per row and keeps the row in cache between its two passes (csrc/
softmax.cpp `softmax_grad`), where the unfused ops write and read three full-size
intermediates.

The four nodes fuse when y is a softmax's output, the sum is over the last axis with
keepdims (not a mean), y and g have the output's shape and a float dtype, and the three
intermediates are read once, by the group, and are not targets. The fused node runs at the
last mul's place (y and g exist by then and nothing writes them in between: each is an op's
output, written once). Chains of other ops that compute the same value are not matched:
only the form the gradient rule builds.

Example:
    >>> from paddle.lowlevel.fusion.softmax import KERNEL, MEMBERS
    >>> KERNEL, MEMBERS
    ('fused_softmax_grad', ('mul', 'sum', 'sub', 'mul'))
"""
from paddle.lowlevel.fusion.node import (FusedNode, FusedOp, key as _key, one_reader,
                                         prepare_of, readers_of)

KERNEL = "fused_softmax_grad"
MEMBERS = ("mul", "sum", "sub", "mul")
FLOATS = ("float32", "float64")


def _match(root, known, inner):
    """(y, g, [t, s, d, root]) where `root` is the last mul of softmax's gradient, else None.
    `inner(v)`: whether the value v may live inside the group (read once, not a target, its
    node still listed and not of the update phase)."""
    if root.op.name != "mul":
        return None
    for y, d in (root.inputs, reversed(root.inputs)):
        if y.node is None or y.node.op.name != "softmax" or d.node is None or \
                d.node.op.name != "sub" or not inner(d):
            continue
        g, s = d.node.inputs
        sum_node = s.node
        if sum_node is None or sum_node.op.name != "sum" or not inner(s):
            continue
        attrs = sum_node.attrs
        shape = known[_key(y)][0]
        if not attrs.get("keepdims") or attrs.get("mean") or \
                attrs.get("axis") not in (-1, len(shape) - 1):
            continue
        t = sum_node.inputs[0]
        if t.node is None or t.node.op.name != "mul" or not inner(t) or \
                {_key(v) for v in t.node.inputs} != {_key(g), _key(y)} or _key(g) == _key(y):
            continue
        if known[_key(g)] != known[_key(y)] or known[(id(root), 0)] != known[_key(y)] or \
                known[_key(y)][1] not in FLOATS:
            continue
        return y, g, [t.node, sum_node, d.node, root]
    return None


def fuse_softmax_grad(nodes, known, kept, late, kernels):
    """`nodes` with softmax's gradient fused where the backend has the kernel and its
    `fusable([prepare of each member's op])` says it stands in for the members' kernels."""
    kernel = kernels.get(KERNEL)
    if not hasattr(kernel, "fusable") or \
            not kernel.fusable([prepare_of(kernels, name) for name in MEMBERS]):
        return nodes
    readers = readers_of(nodes)
    present = {id(n) for n in nodes}

    def inner(v):  # read once, for its values (a shape-only reader would need its buffer)
        return v.node is not None and id(v.node) in present and id(v.node) not in late and \
            one_reader(readers, _key(v)) is not None and not readers[_key(v)][1] and \
            _key(v) not in kept

    at, dropped = {}, set()
    for n in nodes:
        if id(n) in late or id(n) in dropped:
            continue
        match = _match(n, known, inner)
        if match is None or any(id(m) in dropped or id(m) in at for m in match[2]):
            continue
        y, g, members = match
        dropped.update(id(m) for m in members[:-1])
        at[id(n)] = FusedNode(FusedOp(KERNEL, MEMBERS), [y, g], {}, n, members)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]
