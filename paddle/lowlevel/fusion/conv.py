"""A convolution with what follows it in a residual network: one kernel writes
relu(conv2d(x, w) + bias), conv2d(x, w) + bias + residual, or relu(conv2d(x, w) + bias +
residual), the add and the relu applied to each block of output rows while the block is
still in cache (csrc/nn/conv.cpp's `residual` and `relu` arguments), instead of passes of
their own over the whole output.

A float32 or float64 conv2d fuses with a relu, or an `add` of another value of the same
shape and dtype (a residual connection, no broadcast), that is the one reader of its
output (not a target); an add so fused takes with it a relu that is the one reader of its
own output. In inference plans, fold_batch_norm.py has already replaced a conv2d +
batch_norm pair by one conv2d computing the batch_norm's output (its `keys`), so
Conv-BN-ReLU and the Conv-BN-Add-ReLU at the end of a ResNet block fuse as well. The
fused node runs at its last member's place (where the residual is ready). The backward is
left as it is: relu_grad reads relu's output, which the fused node writes, and neither
conv2d's gradients nor add's read the convolution's output.

Example:
    >>> from paddle.lowlevel.fusion.conv import FORWARD
    >>> FORWARD
    'fused_conv'
"""
from paddle.lowlevel.fusion.node import (FusedNode, FusedOp, computes_exactly, key,
                                         one_reader, prepare_of, readers_of)

FORWARD = "fused_conv"


def _output_key(n):
    """The key its readers find n's output 0 at: a folded convolution's (fold_batch_norm.py)
    is the batch_norm output it computes (its `keys`)."""
    return n.keys[0] if n.keys is not None else (id(n), 0)


def _single(readers, k, kept, late):
    """The one node reading the values at key k (others may read its shape), if k is not a
    target and that node is not an update; else None."""
    n = one_reader(readers, k)
    if n is None or k in kept or id(n) in late:
        return None
    return n


def _shape_reads(readers, ks):
    """The keys among ks that some node reads the shape of (an add's gradient: sum_to to
    each operand's shape): the fused node lists them among its outputs, unwritten
    (fusion/node.py readers_of)."""
    return [k for k in ks if readers[k][1]]


def fuse_conv_relu(nodes, known, kept, late, kernels):
    """`nodes` with conv2d + relu, conv2d + add and conv2d + add + relu groups fused, where
    the backend has the kernel (`fusable([prepare of each member's op])` says whether it
    stands in for those kernels), in float32 and float64 (`computes_exactly`)."""
    forward = kernels.get(FORWARD)
    if not hasattr(forward, "fusable"):
        return nodes
    conv, relu_op, add_op = (prepare_of(kernels, name) for name in ("conv2d", "relu", "add"))
    readers = readers_of(nodes)
    at, dropped, claimed = {}, set(), set()
    for n in nodes:
        out = _output_key(n)
        if n.op.name != "conv2d" or id(n) in late or out in kept or \
                not computes_exactly(known[out][1]):
            continue
        after = _single(readers, out, kept, late)
        if after is None or id(after) in claimed:
            continue
        if after.op.name == "relu" and forward.fusable([conv, relu_op]):
            # at the convolution's place, as its inputs need not live longer
            dropped.add(id(after))
            at[id(n)] = FusedNode(FusedOp(FORWARD, ["conv2d", "relu"]), n.inputs,
                                  dict(n.attrs), after, [n, after],
                                  keys=[(id(after), 0), *_shape_reads(readers, [out])],
                                  mode_of=n)
            continue
        if after.op.name != "add":
            continue
        a, b = (key(v) for v in after.inputs)
        residual = after.inputs[1] if a == out else after.inputs[0]
        if a == b or known[key(residual)] != known[out]:
            continue  # conv + conv, or a broadcast
        relu = _single(readers, (id(after), 0), kept, late)
        if relu is not None and relu.op.name == "relu" and \
                forward.fusable([conv, add_op, relu_op]):
            members, last = [n, after, relu], relu
        elif forward.fusable([conv, add_op]):
            members, last = [n, after], after
        else:
            continue
        dropped.update(id(m) for m in members[:-1])
        claimed.update(id(m) for m in members[1:])  # (the add's other input may be a conv)
        inner = [out, (id(after), 0)][:len(members) - 1]
        at[id(last)] = FusedNode(FusedOp(FORWARD, [m.op.name for m in members]),
                                 [*n.inputs, residual], dict(n.attrs), last, members,
                                 keys=[(id(last), 0), *_shape_reads(readers, inner)],
                                 mode_of=n)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]
