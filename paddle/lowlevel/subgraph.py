"""Subgraphs: a Python function traced once into a graph of its own, and the nested
structures (lists, tuples, dicts of tensors) its arguments and results come in.

`trace(fn, specs, ...)` calls `fn` on placeholder Variables of the given shapes and dtypes
and copies the nodes it built onto placeholders of their own, so that the subgraph reads
nothing of the outer graph: the outer Variables the function used (parameters, other
ops' outputs, inputs) are *captured*, and whoever runs the subgraph passes their values
in. The control-flow ops (paddle/lowlevel/ops/control_flow.py) hold subgraphs as
attributes: their kernels call `Subgraph.run`, their gradients `Subgraph.call`.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.devices import backend_for
    >>> from paddle.lowlevel.subgraph import flatten, trace
    >>> w = pd.constant(np.float32(3.0))
    >>> _, definition = flatten((pd.constant(0.0),))     # one tensor argument
    >>> graph, _ = trace(lambda x: x * w + 1.0, [((), "float32")], definition, "example", ["x"])
    >>> [v.tolist() for v in graph.run([np.float32(2.0)], False, backend_for("cpu"))]
    [7.0]
"""
from paddle.errors import ShapeError
from paddle.lowlevel.executor import Plan
from paddle.lowlevel.graph import NAMES, Variable, apply, as_variable, building_scope, \
    forced_mode
from paddle.lowlevel.op import fmt_shape

# ---- nested structures (Keras's loop variables: lists, tuples, dicts of tensors) --------


def flatten(struct):
    """(leaves, definition) of a nested structure of lists, tuples (named ones too) and
    dicts (in sorted key order, as keras.tree); None is an empty structure."""
    leaves = []

    def walk(s):
        if s is None:
            return ("none",)
        if isinstance(s, dict):
            keys = sorted(s)
            return ("dict", type(s), keys, [walk(s[k]) for k in keys])
        if isinstance(s, (list, tuple)):
            return ("seq", type(s), [walk(x) for x in s])
        leaves.append(s)
        return ("leaf",)
    return leaves, walk(struct)


def unflatten(definition, leaves):
    """The structure `flatten` described, with `leaves` in place of its leaves."""
    leaves = iter(leaves)

    def build(d):
        kind = d[0]
        if kind == "none":
            return None
        if kind == "leaf":
            return next(leaves)
        if kind == "dict":
            return d[1]((k, build(c)) for k, c in zip(d[2], d[3]))
        items = [build(c) for c in d[2]]
        if d[1] in (list, tuple):
            return d[1](items)
        return d[1](*items) if hasattr(d[1], "_fields") else d[1](items)
    return build(definition)


def paths(definition, root):
    """The name of each leaf, as the user would index it: "loop_vars[1]['h']"."""
    out = []

    def walk(d, prefix):
        if d[0] == "leaf":
            out.append(prefix)
        elif d[0] == "dict":
            for k, c in zip(d[2], d[3]):
                walk(c, f"{prefix}[{k!r}]")
        elif d[0] == "seq":
            for i, c in enumerate(d[2]):
                walk(c, f"{prefix}[{i}]")
    walk(definition, root)
    return out


def same_structure(a, b):
    """Whether two definitions describe the same nesting (types of sequences aside)."""
    if a[0] != b[0]:
        return False
    if a[0] == "dict":
        return a[2] == b[2] and all(map(same_structure, a[3], b[3]))
    if a[0] == "seq":
        return len(a[2]) == len(b[2]) and all(map(same_structure, a[2], b[2]))
    return True


def tensors(struct, where):
    """(Variables, definition) of a structure whose leaves are Variables or numbers."""
    leaves, definition = flatten(struct)
    return [as_variable(x, where=where) for x in leaves], definition


# ---- subgraphs --------------------------------------------------------------------------


def _placeholder(shape, dtype, name):
    """An input of a subgraph: a data Variable that only the subgraph's plan feeds (it is
    not registered as a named input of the user's graph)."""
    return Variable._make(NAMES.full(name), tuple(shape), dtype, "data")


def _serial(v):
    """The creation number of an op output or constant (the counter graph.apply and
    constant put at the end of their names), -1 for other Variables: how a trace tells
    the nodes its function built from the outer graph's, without a hook in graph.py."""
    if v.kind not in ("op", "const"):
        return -1
    tail = v.name.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else -1


class Subgraph:
    """A traced function: its placeholder `inputs` (the arguments, then one per captured
    outer Variable), its `outputs`, and the outer Variables it `captured`.

    `run(arrays, training, device)` computes the outputs on host arrays through the
    subgraph's own plan; `call(variables)` copies its nodes onto other Variables (how
    gradients inline it); `infer(specs)` gives the outputs' specs for input specs.
    """

    def __init__(self, args, outputs, start, what):
        self.what = what
        captured, order = self._walk(args, outputs, start)
        self.captured = captured
        copies = {id(a): a for a in args}
        caps = [_placeholder(c.shape, c.dtype, "captured") for c in captured]
        copies.update((id(c), p) for c, p in zip(captured, caps))
        self.inputs = list(args) + caps
        self.outputs = [copies.get(id(o), o) for o in _copy_nodes(order, copies, outputs)]
        self.nodes = _order(self.outputs, {id(v) for v in self.inputs})
        self._plans = {}

    @staticmethod
    def _walk(args, outputs, start):
        """The outer Variables the traced nodes read (captured: every non-constant one, so
        parameters get their gradients) and the traced nodes in topological order."""
        inner = {id(a) for a in args}
        captured, seen_caps, order, seen = [], set(), [], set()
        stack = [(v, False) for v in reversed(outputs)]
        while stack:
            v, expanded = stack.pop()
            if id(v) in inner and not expanded:
                continue
            traced = v.node is not None and _serial(v) > start
            if not traced:
                if v.kind != "const" and id(v) not in seen_caps:
                    seen_caps.add(id(v))
                    captured.append(v)
                continue
            if expanded:
                order.append(v.node)
                continue
            if id(v.node) in seen:
                continue
            seen.add(id(v.node))
            stack.append((v, True))
            stack.extend((i, False) for i in reversed(v.node.inputs))
        return captured, order

    def call(self, variables):
        """The outputs computed from `variables` (one per input) by copies of the nodes."""
        copies = {id(p): v for p, v in zip(self.inputs, variables)}
        return [copies.get(id(o), o) for o in _copy_nodes(self.nodes, copies, self.outputs)]

    def infer(self, specs):
        """(shape, dtype) of each output for these (shape, dtype) of the inputs."""
        known = {id(p): (tuple(s), d) for p, (s, d) in zip(self.inputs, specs)}
        for node in self.nodes:
            ins = [known.get(id(i), (i.shape, i.dtype)) for i in node.inputs]
            out = node.op.infer(*ins, **node.attrs)
            for k, spec in enumerate(out if isinstance(out, list) else [out]):
                ref = node.outputs_ref[k]()
                if ref is not None:
                    known[id(ref)] = (tuple(spec[0]), spec[1])
        return [known.get(id(o), (o.shape, o.dtype)) for o in self.outputs]

    def run(self, arrays, training, device):
        """The outputs' values (host arrays) for these input values, on `device`."""
        key = (training, id(device))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = Plan(self.outputs, training, device)
        # The values come from the op's own buffers, of the dtypes and ranks the shape rule
        # checked: a program made for these shapes runs them without the feed checks
        # (the plan makes it, checking, the first time); the run lock is already held.
        fed = [arrays[i] for i in self._fed_order(plan)]
        program = plan.specialized.get(tuple(a.shape for a in fed))
        if program is None:
            return plan.run(dict(zip(self.inputs, arrays)))
        return program.run(fed)

    def _fed_order(self, plan):
        """The position in `inputs` of each input the plan reads, in the plan's order."""
        order = self.__dict__.get("_order_of", {}).get(id(plan))
        if order is None:
            where = {id(p): i for i, p in enumerate(self.inputs)}
            order = [where[id(v)] for v in plan.data]
            self.__dict__.setdefault("_order_of", {})[id(plan)] = order
        return order


def _order(outputs, stop):
    """The nodes between the Variables of `stop` and `outputs`, inputs first."""
    order, seen = [], set()
    stack = [(o, False) for o in reversed(outputs)]
    while stack:
        v, expanded = stack.pop()
        if v.node is None or id(v) in stop:
            continue
        if expanded:
            order.append(v.node)
            continue
        if id(v.node) in seen:
            continue
        seen.add(id(v.node))
        stack.append((v, True))
        stack.extend((i, False) for i in reversed(v.node.inputs))
    return order


def _copy_nodes(nodes, copies, outputs):
    """Apply each node's op again on the copies of its inputs, in order, filling `copies`
    (id of an old Variable -> its copy); the copies of `outputs`."""
    for node in nodes:
        ins = [copies.get(id(i), i) for i in node.inputs]
        with forced_mode(node.mode), building_scope(node.scope, absolute=True):
            made = apply(node.op, ins, node.attrs, location=node.location)
        made = made if isinstance(made, list) else [made]
        for ref, new in zip(node.outputs_ref, made):
            old = ref()
            if old is not None:
                copies[id(old)] = new
    return [copies.get(id(o), o) for o in outputs]


def trace(fn, specs, definition, what, names):
    """Call `fn` on placeholders of `specs` (one per leaf of `definition`, passed as the
    structure's top-level items) and make a Subgraph of what it returns.

    Returns:
        (subgraph, definition of fn's result).
    """
    start = next(NAMES.op_counter)
    args = [_placeholder(s, d, n.replace("[", "_").replace("]", "").replace("'", ""))
            for (s, d), n in zip(specs, names)]
    structure = unflatten(definition, args)
    result = fn(*structure)
    outputs, out_definition = tensors(result, what)
    return Subgraph(args, outputs, start, what), out_definition


def compatible(a, b):
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def merge(a, b):
    return tuple(x if x == y else None for x, y in zip(a, b))


def check_invariant(op, carries, results, names):
    """Raise ShapeError naming the carry whose shape or dtype the body changes."""
    if len(results) != len(carries):
        op.fail(f"the body returns {len(results)} carries, expected {len(carries)} "
                f"(as many as {names[0].split('[')[0] if names else 'the loop variables'})")
    for name, (cs, cd), (rs, rd) in zip(names, carries, results):
        if cd != rd or not compatible(cs, rs):
            raise ShapeError(f"{op.name}: the body changes the carry {name} from "
                             f"{fmt_shape(cs)} {cd} to {fmt_shape(rs)} {rd}; a carry keeps "
                             "its shape and dtype from one step to the next")


def describe(definition):
    return repr(unflatten(definition, ["T"] * _count(definition))).replace("'T'", "T")


def _count(d):
    if d[0] == "leaf":
        return 1
    if d[0] == "none":
        return 0
    return sum(_count(c) for c in (d[3] if d[0] == "dict" else d[2]))
