"""Batch normalization with the relu that follows it: forward, one kernel writes
relu(batch_norm(x)) (no pass over the normalized values); backward, relu's gradient is
folded into batch_norm_grad, which reads relu's output to mask its incoming gradient (no
masked gradient is written and read back). csrc/nn/norm.cpp's kernels, with their `relu`
and `relu_y` arguments.

A batch_norm fuses with a relu that is the one reader of its output (not a target); the
fused node runs at the batch_norm's place (the moving statistics are written when they
were). A batch_norm_grad fuses with the relu_grad that computes its incoming gradient when
that gradient has no other reader and is not a target; it runs at the batch_norm_grad's
place.

Example:
    >>> from paddle.lowlevel.fusion.norm import FORWARD, BACKWARD
    >>> FORWARD, BACKWARD
    ('fused_batch_norm', 'fused_batch_norm_grad')
"""
from paddle.lowlevel.fusion.node import FusedNode, FusedOp, prepare_of

FORWARD, BACKWARD = "fused_batch_norm", "fused_batch_norm_grad"


def _key(v):
    return (id(v.node), v.index) if v.node is not None else id(v)


def single_readers(nodes):
    """{value key: the node reading it} for the values read exactly once (the executor's
    keys: (id(node), output index), or id(leaf))."""
    readers, count = {}, {}
    for n in nodes:
        for v in n.inputs:
            count[_key(v)] = count.get(_key(v), 0) + 1
            readers[_key(v)] = n
    return {k: n for k, n in readers.items() if count[k] == 1}


def fuse_batch_norm_relu(nodes, known, kept, late, kernels):
    """`nodes` with batch_norm + relu and relu_grad + batch_norm_grad pairs fused, where the
    backend has the kernels (`fusable([prepare of each member's op])` says whether it
    stands in for those kernels)."""
    forward, backward = kernels.get(FORWARD), kernels.get(BACKWARD)
    if not (hasattr(forward, "fusable") or hasattr(backward, "fusable")):
        return nodes
    single = single_readers(nodes)
    present = {id(n) for n in nodes}
    at, dropped = {}, set()
    for n in nodes:
        if id(n) in late or id(n) in dropped:
            continue
        if n.op.name == "batch_norm" and hasattr(forward, "fusable"):
            relu = single.get((id(n), 0))
            if relu is not None and relu.op.name == "relu" and (id(n), 0) not in kept \
                    and id(relu) not in late and forward.fusable(
                        [prepare_of(kernels, "batch_norm"), prepare_of(kernels, "relu")]):
                dropped.add(id(relu))
                at[id(n)] = FusedNode(
                    FusedOp(FORWARD, ["batch_norm", "relu"], writes_inputs=True), n.inputs,
                    dict(n.attrs), relu, [n, relu],
                    keys=[(id(relu), 0), (id(n), 1), (id(n), 2)], mode_of=n)
        elif n.op.name == "batch_norm_grad" and hasattr(backward, "fusable"):
            g = n.inputs[4]
            grad = g.node
            if grad is None or grad.op.name != "relu_grad" or id(grad) not in present \
                    or single.get(_key(g)) is not n or _key(g) in kept or id(grad) in late:
                continue
            shape = known[_key(n.inputs[0])][0]
            if any(known[_key(v)][0] != shape for v in grad.inputs) or not backward.fusable(
                    [prepare_of(kernels, "relu_grad"),
                     prepare_of(kernels, "batch_norm_grad")]):
                continue
            dropped.add(id(grad))
            at[id(n)] = FusedNode(FusedOp(BACKWARD, ["relu_grad", "batch_norm_grad"]),
                                  [*n.inputs[:4], *grad.inputs], dict(n.attrs), n, [grad, n])
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]
