"""Symbolic gradients: walk back from the outputs and build each node's gradient from ops.

Because gradients are ordinary Variables, `gradients` of a gradient works (second order).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[3])
    >>> y = pd.sum(x * x)
    >>> gx, = pd.gradients(y, [x])
    >>> pd.eval(gx, {x: np.array([1.0, 2.0, 3.0])}).tolist()
    [2.0, 4.0, 6.0]
"""
from paddle.lowlevel.executor import topological_nodes
from paddle.lowlevel.graph import FLOATS, Variable, as_variable, building_scope, forced_mode
from paddle.lowlevel.ops.math import add, broadcast_to, ones_like
from paddle.lowlevel.ops.shape import COMPLEX_PARTS, bitcast


def gradients(ys, xs, grad_ys=None):
    """d(sum of ys)/d(x) for each x, as Variables built from ops.

    Args:
        ys: a Variable or list of Variables to differentiate.
        xs: a Variable or list of Variables to differentiate with respect to.
        grad_ys: optional gradients flowing into each y (default: ones).

    Returns:
        A list with one gradient per x, or None for an x that ys do not depend on.
    """
    for what, value in (("ys", ys), ("xs", xs)):
        if not isinstance(value, (Variable, list, tuple)):
            raise TypeError(f"gradients: expected a Variable or a list of them as {what}, "
                            f"received {type(value).__name__}")
    ys = [ys] if isinstance(ys, Variable) else list(ys)
    xs = [xs] if isinstance(xs, Variable) else list(xs)
    for v in ys + xs:
        if not isinstance(v, Variable):
            raise TypeError(f"gradients: expected Variables, received {type(v).__name__}")
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    # One gradient (a Variable, a number, an array) or a list with one per y.
    grad_ys = list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys]
    if len(grad_ys) != len(ys):
        raise ValueError(f"gradients: {len(ys)} ys but {len(grad_ys)} grad_ys")
    for y in ys:
        if y.dtype not in FLOATS:
            raise TypeError(f"gradients: cannot differentiate {y.name!r} of dtype {y.dtype}")

    nodes = topological_nodes(ys)
    wanted = set(map(id, xs))
    depends = set(wanted)  # ids of Variables and nodes that depend on some x
    for node in nodes:
        if any(id(i) in depends or id(i.node) in depends for i in node.inputs):
            depends.add(id(node))

    grads = {}  # id(Variable) -> list of gradient Variables
    for y, gy in zip(ys, grad_ys):
        # A given gradient broadcasts to y's shape (a scalar 1.0, a row...); sum_to below
        # can only reduce, never expand.
        g = ones_like(y) if gy is None else broadcast_to(as_variable(gy, like=y,
                                                                     where="gradients"), y)
        grads.setdefault(id(y), []).append(g)
    for node in reversed(nodes):
        if id(node) not in depends:
            continue
        outs = node.outputs
        out_grads = [_total(grads.get(id(o))) if o is not None else None for o in outs]
        if all(g is None for g in out_grads):
            continue
        # A forward op's forced mode holds for its gradient; its scope names the gradient.
        with forced_mode(node.mode), building_scope(node.scope, absolute=True):
            in_grads = node.op.grad(node, out_grads)
        for x, g in zip(node.inputs, in_grads):
            if g is not None and (id(x) in wanted or id(x.node) in depends):
                grads.setdefault(id(x), []).append(g)
    return [_total(grads.get(id(x))) for x in xs]


def _total(parts):
    if not parts:
        return None
    total = parts[0]
    if total.dtype in COMPLEX_PARTS:  # add takes no complex values: sum their float pairs
        pairs = [bitcast(p, COMPLEX_PARTS[total.dtype]) for p in parts]
        return bitcast(_total(pairs), total.dtype)
    for p in parts[1:]:
        total = add(total, p)
    return total
