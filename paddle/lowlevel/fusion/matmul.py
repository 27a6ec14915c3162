"""A matrix product with the bias add and the relu that follow it (a Dense layer's
`relu(x @ w + b)`, or `x @ w + b`): one kernel runs the product and then, on each thread's
part of the output while it is still in cache, adds the bias and takes the relu
(csrc/matmul.cpp's `bias` and `relu` arguments), instead of a pass of its own over the
whole output.

A matmul whose second operand is a matrix fuses with an add of a bias along the output's
last axis (N values, the same dtype) that is the one reader of its output (not a target),
and with the relu that is the one reader of that sum (when the sum is not a target): the
product and the bias, or the three. (A bias alone in the product's epilogue costs no pass
of its own; left to the elementwise pass it would cost one, shared with what follows: the
same count of passes at worst, one fewer at best: the attention's projections and a Dense
layer without activation, whose sum is read by a residual add and by nothing else that
could chain.) The fused node runs
at its last member's place (a bias computed after the product, a cast, is ready there).
Backward, a matmul whose output is the gradient a relu_grad masks (`relu_grad(y, product)`,
the relu_grad its one reader, y of the product's shape and dtype) fuses with it: the mask
is applied to each thread's part of the product in cache (csrc/matmul.cpp's `relu_y`),
the node named fused_matmul[matmul+relu_grad] and run at the relu_grad's place (y is
ready there). A Dense layer with relu passes its gradient back so: the product of the
next layer's gradient by its kernel, masked.

The forward's gradients are otherwise left as they are: relu_grad reads relu's output, which the fused node writes;
the product's gradients read only its operands. The gradient of the add does read the
product, but only its shape (`sum_to(g, product)`, `Op.shape_only`): such reads do not
count, and the fused node lists the product (and the sum) among its outputs all the same,
so that they have a buffer of their shape, which it never writes (a buffer read only for
its shape is not kept live past its writer anyway: see the executor's lifetimes).

Example:
    >>> from paddle.lowlevel.fusion.matmul import FORWARD
    >>> FORWARD
    'fused_matmul'
"""
from paddle.lowlevel.fusion.node import (FusedNode, FusedOp, computes_exactly, key,
                                         one_reader, prepare_of, readers_of)

FORWARD = "fused_matmul"


def _bias_of(product, add, known):
    """The bias operand of `add` (which reads `product`'s output) if it adds N values along
    the last axis of a product by a matrix, in the product's dtype; else None."""
    shape, dtype = known[(id(product), 0)]
    if len(known[key(product.inputs[1])][0]) != 2 or known[(id(add), 0)] != (shape, dtype):
        return None
    for i, v in enumerate(add.inputs):
        if v.node is product and v.index == 0:
            other = add.inputs[1 - i]
            return other if known[key(other)] == ((shape[-1],), dtype) else None
    return None


def fuse_matmul_bias_relu(nodes, known, kept, late, kernels):
    """`nodes` with matmul + add + relu groups fused, where the backend has the kernel
    (`fusable([prepare of each member's op])` says whether it stands in for them)."""
    forward = kernels.get(FORWARD)
    if not hasattr(forward, "fusable"):
        return nodes
    readers = readers_of(nodes)
    at, dropped = {}, set()
    for n in nodes:
        if n.op.name != "matmul" or id(n) in late or (id(n), 0) in kept:
            continue
        add = one_reader(readers, (id(n), 0))
        if add is None or add.op.name != "add" or id(add) in late:
            continue
        bias = _bias_of(n, add, known)
        if bias is None:
            continue
        if not computes_exactly(known[(id(n), 0)][1]):
            continue
        relu = one_reader(readers, (id(add), 0))
        with_relu = relu is not None and relu.op.name == "relu" and \
            (id(add), 0) not in kept and id(relu) not in late
        members = [n, add, relu] if with_relu else [n, add]
        if not forward.fusable([prepare_of(kernels, m.op.name) for m in members]):
            continue
        last = members[-1]
        shapes_read = [(id(m), 0) for m in members[:-1] if readers[(id(m), 0)][1]]
        dropped.update(id(m) for m in members[:-1])
        at[id(last)] = FusedNode(FusedOp(FORWARD, [m.op.name for m in members]),
                                 [*n.inputs, bias], dict(n.attrs), last, members,
                                 keys=[(id(last), 0), *shapes_read], mode_of=n)
    if not at:
        return _fuse_relu_grad(nodes, known, kept, late, kernels)
    return _fuse_relu_grad([at.get(id(n), n) for n in nodes if id(n) not in dropped], known,
                           kept, late, kernels)


def _product_behind(v, readers, known, kept, late):
    """(the matmul, [the nodes between]) when `v` is a matmul's output seen through views
    and ops that are identities at these shapes (the gradient rules' sum_to and
    reshape_like), each value on the way read by the next node alone and not a target;
    else None. Such nodes keep the elements' order: a mask over v masks the product."""
    between = []
    while v.node is not None and v.node.op.name != "matmul":
        n = v.node
        if id(n) in late or key(v) in kept or one_reader(readers, key(v)) is None or \
                n.op.stateful or not n.inputs:
            return None
        ins = [known[key(i)] for i in n.inputs]
        outs = [known[(id(n), k)] for k in range(len(n.outputs_ref))]
        if len(outs) != 1 or not (n.op.view or n.op.aliases(ins, outs)) or \
                ins[0][1] != outs[0][1]:
            return None
        between.append(n)
        v = n.inputs[0]
    if v.node is None or id(v.node) in late or key(v) in kept or v.index != 0 or \
            one_reader(readers, key(v)) is None:
        return None
    return v.node, between[::-1]


def _fuse_relu_grad(nodes, known, kept, late, kernels):
    """`nodes` with each matmul whose output only a relu_grad reads (as its gradient
    operand, through views) fused with it, where the kernel stands in for the two."""
    forward = kernels.get(FORWARD)
    if not forward.fusable([prepare_of(kernels, "matmul"), prepare_of(kernels, "relu_grad")]):
        return nodes
    readers = readers_of(nodes)
    present = {id(n) for n in nodes}
    at, dropped = {}, set()
    for grad in nodes:
        if grad.op.name != "relu_grad" or id(grad) in late:
            continue
        y, g = grad.inputs
        found = _product_behind(g, readers, known, kept, late)
        if found is None:
            continue
        product, between = found
        members = [product, *between, grad]
        if any(id(m) not in present or id(m) in dropped for m in members) or \
                known[key(y)] != known[key(g)] or key(y) == key(g) or \
                not computes_exactly(known[key(g)][1]):
            continue
        shapes_read = [(id(m), 0) for m in members[:-1] if readers[(id(m), 0)][1]]
        dropped.update(id(m) for m in members[:-1])
        at[id(grad)] = FusedNode(FusedOp(FORWARD, ["matmul", "relu_grad"]),
                                 [*product.inputs, y], dict(product.attrs), grad, members,
                                 keys=[(id(grad), 0), *shapes_read], mode_of=product)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]
