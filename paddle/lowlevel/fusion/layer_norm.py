"""Layer normalization's forward as one kernel: the ops pd.layer_norm builds over trailing
axes,

    mu = mean(x), c = x - mu, sq = square(c), var = mean(sq), e = var + epsilon,
    d = sqrt(e), y0 = c / d, then optionally y1 = y0 * scale and y = y1 + offset,

become one node that reads each row of x once into cache and writes only the values the
plan needs (csrc/layer_norm.cpp): the result, and in training what the gradient reads (c,
d, y0), where the ops write and read eight full-size or row-sized values.

Each member's output is, in the fused node, one of:
    - written: a node outside the group reads its values, or it is a target;
    - given a buffer but not written: outside nodes read only its shape (`Op.shape_only`:
      the gradients' sum_to and broadcast_to against it), so the buffer is never read;
    - left out: only the group reads it.
The group fuses when the reductions are means with keepdims over the input's last axes
(the same axes both times), epsilon is a scalar constant, the scale and offset (when
present) are shaped like those axes, every node outside the group that reads a member's
output runs after the group's last node (where the fused node runs), and no member belongs
to the update phase. The gradients stay the ops' (the graph is unchanged).

Backward, the 24 nodes the gradient rules build for x's gradient from the normalized
values' gradient gy (GRADIENT below: through div, sqrt, the two means, square and sub)
become one node, fused_layer_norm_grad, computing per row
    dx = (gy - mean(gy) - y0 * mean(gy * y0)) / d
from gy, y0 and d in two passes over the row (csrc/layer_norm.cpp `layer_norm_grad`).
It is matched node for node from the forward group's values, fuses when no node outside
it reads one of its inner values, and runs at the place of its last node, named after the
location and layer of its first. It is fused
before the forward, whose values the fused gradient no longer reads (c) are then not
written.

Example:
    >>> from paddle.lowlevel.fusion.layer_norm import KERNEL, SLOTS
    >>> KERNEL, SLOTS[0], SLOTS[-1]
    ('fused_layer_norm', 'mean', 'offset')
"""
from types import SimpleNamespace

import numpy as np

from paddle.lowlevel.fusion.node import FusedNode, FusedOp, key as _key, prepare_of, reads_of
from paddle.lowlevel.shapes import normalize_axes

KERNEL = "fused_layer_norm"
GRAD_KERNEL = "fused_layer_norm_grad"
# The members' outputs in csrc/layer_norm.cpp's order (its Slot enum).
SLOTS = ("mean", "centered", "square", "variance", "shifted", "std", "normalized", "scale",
         "offset")
FLOATS = ("float32", "float64")
# Written / given a buffer only / left out (see the module's docstring).
WRITE, SHAPE = True, False


class _Matcher:
    def __init__(self, nodes, known):
        self.known, self.readers = known, reads_of(nodes)

    def reader(self, node, name, first=None):
        """The node of op `name` reading output 0 of `node` (as its input 0, when `first`)."""
        for r, k in self.readers.get((id(node), 0), ()):
            if r.op.name == name and (first is None or (k == 0) == first):
                return r
        return None

    def mean_axes(self, node, rank):
        a = node.attrs
        if node.op.name != "sum" or not a.get("mean") or not a.get("keepdims"):
            return None
        return tuple(normalize_axes(SimpleNamespace(name="mean"), a.get("axis"), rank))

    def param(self, node, v, shape):
        """Whether `v`, the other operand of `node`, is shaped like the normalized axes."""
        vshape, dtype = self.known[_key(v)]
        core = tuple(vshape)
        while core and core[0] == 1 and len(core) > len(shape):
            core = core[1:]
        return core == tuple(shape) and dtype == self.known[(id(node), 0)][1]

    def match(self, mean):
        """The members (mean ... last), inputs and attributes of the group starting at the
        `mean` node, or None."""
        x = mean.inputs[0]
        shape, dtype = self.known[_key(x)]
        rank = len(shape)
        axes = self.mean_axes(mean, rank)
        if dtype not in FLOATS or not axes or axes != tuple(range(rank - len(axes), rank)):
            return None
        sub = self.reader(mean, "sub", first=False)
        if sub is None or _key(sub.inputs[0]) != _key(x):
            return None
        square = self.reader(sub, "square")
        var = self.reader(square, "sum") if square is not None else None
        if var is None or self.mean_axes(var, rank) != axes:
            return None
        shift = self.reader(var, "add", first=True)
        if shift is None:
            return None
        eps = shift.inputs[1]
        if eps.node is not None or getattr(eps, "kind", None) != "const" or \
                np.size(eps._value) != 1:
            return None
        std = self.reader(shift, "sqrt")
        div = self.reader(std, "div", first=False) if std is not None else None
        if div is None or _key(div.inputs[0]) != (id(sub), 0):
            return None
        members, inputs = [mean, sub, square, var, shift, std, div], [x]
        normalized = tuple(shape[a] for a in axes)
        scaled = self._affine(div, "mul", normalized)
        if scaled is not None:
            members.append(scaled)
            inputs.append(scaled.inputs[1])
            offset = self._affine(scaled, "add", normalized)
            if offset is not None:
                members.append(offset)
                inputs.append(offset.inputs[1])
        attrs = {"cols": int(np.prod(normalized, dtype=np.int64)),
                 "eps": float(np.asarray(eps._value).reshape(())),
                 "scale": scaled is not None, "offset": len(members) == 9}
        return members, inputs, attrs

    def _affine(self, node, name, normalized):
        for r, k in self.readers.get((id(node), 0), ()):
            if r.op.name == name and k == 0 and self.param(r, r.inputs[1], normalized):
                return r
        return None


# x's gradient as the gradient rules build it from gy, the gradient of the normalized values
# y0 = c / d (c = x - mu, d = sqrt(var + eps), var = mean(sq), sq = square(c)): (name, op,
# inputs) in run order; a name in quotes of the forward's (FORWARD_NAMES) or bound at its
# first use (gy), a number a scalar constant.
FORWARD_NAMES = ("x", "mu", "c", "sq", "var", "e", "d", "y0")
GRADIENT = (
    ("u", "div", ("gy", "d")), ("u2", "sum_to", ("u", "c")),       # through c / d: c
    ("p", "mul", ("gy", "y0")), ("q", "neg", ("p",)), ("r", "div", ("q", "d")),
    ("gd", "sum_to", ("r", "d")),                                    # and d
    ("ge1", "mul", ("gd", 0.5)), ("ge", "div", ("ge1", "d")),        # sqrt
    ("gvx", "sum_to", ("ge", "var")),                                # + eps
    ("gvb", "broadcast_to", ("gvx", "sq")), ("n1", "count", ("sq",)),  # the mean
    ("i1", "div", (1.0, "n1")), ("gsq", "mul", ("gvb", "i1")),
    ("t", "mul", ("gsq", "c")), ("t2", "mul", ("t", 2.0)),           # square
    ("gc", "add", ("u2", "t2")),
    ("gx1", "sum_to", ("gc", "x")), ("ngc", "neg", ("gc",)),         # x - mu
    ("gmu", "sum_to", ("ngc", "mu")), ("gmb", "broadcast_to", ("gmu", "x")),
    ("n2", "count", ("x",)), ("i2", "div", (1.0, "n2")), ("gm", "mul", ("gmb", "i2")),
    ("dx", "add", ("gx1", "gm")))


def _constant(v, value):
    return v.node is None and getattr(v, "kind", None) == "const" and \
        np.size(v._value) == 1 and float(np.asarray(v._value).reshape(())) == value


def _match_gradient(forward, readers):
    """The gradient nodes (GRADIENT's order) and gy for a forward group's first seven
    members, or None."""
    bound = {name: (forward[0].inputs[0] if name == "x" else None)
             for name in FORWARD_NAMES}
    values = {name: _key(v) for name, v in bound.items() if v is not None}
    for name, p in zip(FORWARD_NAMES[1:], forward[:7]):
        values[name] = (id(p), 0)
    found = {}
    for name, op, args in GRADIENT:
        anchor = next(a for a in args if isinstance(a, str) and a in values)
        match = None
        for r, _ in readers.get(values[anchor], ()):
            if r.op.name != op or len(r.inputs) != len(args) or \
                    any(r is f for f in found.values()):
                continue
            ok = True
            for a, v in zip(args, r.inputs):
                if isinstance(a, float):
                    ok = _constant(v, a)
                elif a in values:
                    ok = values[a] == _key(v)
                else:
                    ok = a == "gy" and _key(v) not in values.values()
                if not ok:
                    break
            if ok:
                match = r
                break
        if match is None:
            return None
        for a, v in zip(args, match.inputs):
            if isinstance(a, str) and a not in values:
                values[a], bound[a] = _key(v), v
        values[name] = (id(match), 0)
        found[name] = match
    return [found[name] for name, _, _ in GRADIENT], bound["gy"]


def _fuse_gradients(nodes, known, kept, late, kernels):
    """`nodes` with each layer normalization's x-gradient fused (see the module's
    docstring), where the backend has the kernel and it stands in for the members'."""
    kernel = kernels.get(GRAD_KERNEL)
    if not hasattr(kernel, "fusable"):
        return nodes
    m = _Matcher(nodes, known)
    position = {id(n): t for t, n in enumerate(nodes)}
    at, dropped = {}, set()
    for n in nodes:
        if n.op.name != "sum" or id(n) in late:
            continue
        forward = m.match(n)
        found = _match_gradient(forward[0], m.readers) if forward is not None else None
        if found is None:
            continue
        members, gy = found
        ids = {id(p) for p in members}
        root = members[-1]
        if any(i in late or i in dropped or i not in position for i in ids) or \
                any((id(p), 0) in kept for p in members[:-1]) or \
                any(id(r) not in ids for p in members[:-1]
                    for r, _ in m.readers.get((id(p), 0), ())) or \
                known[_key(gy)] != known[(id(root), 0)] or \
                not kernel.fusable([(p.op.name, prepare_of(kernels, p.op.name))
                                    for p in members]):
            continue
        # y0 and d as the members read them: p = gy * y0, u = gy / d
        y0, d = members[2].inputs[1], members[0].inputs[1]
        dropped.update(ids - {id(root)})
        # It stands at the place of x's gradient (its last node) but takes the location
        # and layer of its first, gy / d: the last is the sum of x's two gradient terms,
        # which the gradients' accumulation builds outside the layer.
        at[id(root)] = FusedNode(FusedOp(GRAD_KERNEL, ["layer_norm_grad"]), [gy, y0, d],
                                 {"cols": forward[2]["cols"]}, members[0],
                                 sorted(members, key=lambda p: position[id(p)]),
                                 keys=[(id(root), 0)], mode_of=root)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]


def fuse_layer_norm(nodes, known, kept, late, kernels):
    """`nodes` with layer normalization's gradient, then its forward, fused (see the
    module's docstring)."""
    nodes = _fuse_gradients(nodes, known, kept, late, kernels)
    return _fuse_forward(nodes, known, kept, late, kernels)


def _fuse_forward(nodes, known, kept, late, kernels):
    """`nodes` with layer normalization's forward fused where the backend has the kernel
    and its `fusable([prepare of each member's op])` says it stands in for the members'."""
    kernel = kernels.get(KERNEL)
    if not hasattr(kernel, "fusable"):
        return nodes
    m = _Matcher(nodes, known)
    position = {id(n): t for t, n in enumerate(nodes)}
    at, dropped = {}, set()
    for n in nodes:
        if n.op.name != "sum" or id(n) in dropped or id(n) in late:
            continue
        match = m.match(n)
        if match is None:
            continue
        members, inputs, attrs = match
        ids = {id(p) for p in members}
        if any(i in late or i in dropped or i not in position for i in ids) or \
                not kernel.fusable([prepare_of(kernels, p.op.name) for p in members]):
            continue
        root = members[-1]
        slots = _slots(members, m.readers, kept, ids, position, position[id(root)])
        if slots is None:
            continue
        keys = [(id(members[s]), 0) for s, _ in slots]
        dropped.update(ids - {id(root)})
        at[id(root)] = FusedNode(FusedOp(KERNEL, [p.op.name for p in members]), inputs,
                                 {**attrs, "slots": tuple(slots)}, root, members, keys=keys)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]


def _slots(members, readers, kept, ids, position, root_at):
    """[(slot, WRITE or SHAPE)] of the members' outputs the plan sees, the root's always
    written; None when a reader outside the group runs before the group's last node."""
    slots = []
    for s, p in enumerate(members):
        outside = [(r, k) for r, k in readers.get((id(p), 0), ()) if id(r) not in ids]
        if any(position.get(id(r), -1) <= root_at for r, _ in outside):
            return None
        values = (id(p), 0) in kept or p is members[-1] or \
            any(k not in r.op.shape_only for r, k in outside)
        if values:
            slots.append((s, WRITE))
        elif outside:
            slots.append((s, SHAPE))
    return slots
