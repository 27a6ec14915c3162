"""eval: from targets to a compiled plan to kernel calls.

The first `pd.eval` of a set of targets walks back from them to the nodes they need and
orders them (a Plan; an inference plan folds batch norms into their convolutions). Each
new combination of feed shapes then specializes the plan: shapes are inferred concretely,
the fusion pass merges elementwise chains (paddle/lowlevel/fusion/), every intermediate
gets a place in one arena (places reused once their last reader has run), and every node's
kernel is prepared on its buffers. Running is then
a loop of prepared C++ calls: no allocation, no shape work, no dict lookups.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 2])
    >>> y = pd.sum(x * x, axis=1)
    >>> pd.eval(y, {x: np.array([[1.0, 2.0], [3.0, 4.0]])}).tolist()
    [5.0, 25.0]
"""
import difflib
import math
import weakref
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

from paddle import devices
from paddle.devices import mirrors
from paddle.devices.context import KernelContext
from paddle.devices.runner import Hooks, Runner
from paddle.errors import FeedError, ShapeError, at_user
from paddle.lowlevel.graph import NAMES, Variable, converted
from paddle.lowlevel import fusion, kept_values, lent_feeds, stored_state
from paddle.lowlevel.fusion.fold_batch_norm import fold as fold_batch_norm
from paddle.lowlevel.strings import host_feeds
from paddle.lowlevel.op import fmt_shape

MAX_SPECIALIZATIONS = 8

# One run at a time, whatever the thread: a program's buffers are shared by every call, so
# two threads running the same plan overwrote each other's feeds and intermediates between
# kernel calls. Large kernels let go of the GIL while they compute (csrc/common.h,
# GilRelease), so without this lock two runs would also write the same buffers at once.
# The same lock guards the stored values (stored_state.py): a run sees one set of them.
_RUN_LOCK = stored_state.LOCK


def eval(targets, feeds=None, training=False, device=None):  # noqa: A001
    """Compute target Variables, running only the ops they need.

    Args:
        targets: a Variable (one array comes back) or a list of them (a list comes back;
            an update op from `minimize` gives None).
        feeds: {pd.data Variable or its name: array} for every input the targets need.
        training: run dropout and batch normalization in training mode.
        device: 'cpu' or 'gpu[:N]'; the default device (pd.set_device) when None.

    Raises:
        FeedError: an input the targets need was not fed, or was fed the wrong shape/dtype.

    Example:
        >>> import paddle as pd
        >>> a = pd.constant(2.0)
        >>> pd.eval([a * 3.0, a + 1.0])
        [array(6., dtype=float32), array(3., dtype=float32)]
    """
    single = isinstance(targets, Variable)
    if not single and not isinstance(targets, (list, tuple)):
        raise TypeError(f"eval: expected a Variable or a list of them as targets, received "
                        f"{type(targets).__name__}")
    targets = [targets] if single else list(targets)
    for t in targets:
        if not isinstance(t, Variable):
            raise TypeError(f"eval: expected Variables as targets, received {type(t).__name__}")
    if not targets:
        return []
    _check_feed_keys(feeds)
    plan = plan_for(targets, bool(training), device)
    _check_feed_names(feeds, plan)
    results = plan.run(feeds or {})
    return results[0] if single else results


def _check_feed_keys(feeds):
    """Feeds are {pd.data Variable or its name: value}: anything else would be ignored."""
    if feeds is None:
        return
    if not isinstance(feeds, Mapping):
        raise TypeError(f"eval: expected feeds as a dict {{pd.data Variable or name: array}}, "
                        f"received {type(feeds).__name__}")
    for k in feeds:
        if isinstance(k, Variable):
            if k.kind != "data":
                raise FeedError(f"eval: only pd.data inputs can be fed, received {k.name!r} "
                                f"(a {k.kind} Variable) as a key")
        elif not isinstance(k, str):
            raise TypeError(f"eval: feeds are keyed by pd.data Variables or their names, "
                            f"received the key {k!r}")


def _check_feed_names(feeds, plan):
    """A name key that names no live pd.data input would be ignored: it raises, naming the
    key, the closest name the targets need ('xx' for 'x') and what they need. Names of live
    inputs the targets do not need are allowed (one feed dict for several evals); while an
    input is left unfed, Plan.run reports that instead, naming the keys that matched
    nothing."""
    if not feeds:
        return
    needed = [v.name for v in plan.data]
    if any(v not in feeds and v.name not in feeds for v in plan.data):
        return  # an input is unfed: Plan.run says so, naming the keys that matched nothing
    for key in _unknown_names(feeds):
        near = difflib.get_close_matches(key, needed, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        wanted = ", ".join(map(repr, needed)) or "no input"
        raise FeedError(at_user(f"eval: the feed key {key!r} names no pd.data input{hint}; "
                                f"the targets need {wanted}"))


def _unknown_names(feeds):
    """The name keys of `feeds` that name no live pd.data input."""
    return [k for k in feeds if isinstance(k, str) and k not in NAMES.data]


def plan_for(targets, training, device):
    """The cached Plan for these targets on `device` ('cpu', 'gpu:N', None: the default),
    built on first use; kept on one of the targets so that it lives exactly as long as the
    graph does."""
    device = devices.backend_for(device)
    key = (tuple(id(t) for t in targets), training, device)
    for t in targets:
        plan = t.__dict__.get("_plans", {}).get(key)
        if plan is not None and plan.matches(targets):
            return plan
    plan = Plan(targets, training, device)
    holder = _plan_holder(targets, plan)
    if holder is not None:
        holder.__dict__.setdefault("_plans", {})[key] = plan
    return plan


def _plan_holder(targets, plan):
    """A target the plan can be kept on without a reference cycle: an op output that no node
    of the plan reads (the plan holds its nodes, their inputs and its leaves, so kept on
    anything it reaches, graph and plan would wait for the garbage collector). The last
    such target; None when the targets are all leaves (their plans are cheap to rebuild)."""
    read = {id(v) for n in plan.nodes for v in n.inputs}
    free = [t for t in targets if t.node is not None and id(t) not in read]
    return free[-1] if free else None


def topological_nodes(targets, inputs_of=None):
    """Nodes the targets need, inputs before users; stateful nodes (updates) last.
    `inputs_of(node)`: the order in which a node's inputs are visited (its own order when
    None)."""
    order, seen = [], set()
    stack = [(t.node, False) for t in reversed(targets) if t.node is not None]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for v in reversed(node.inputs if inputs_of is None else inputs_of(node)):
            if v.node is not None and id(v.node) not in seen:
                stack.append((v.node, False))
    late = late_nodes(order)
    return [n for n in order if id(n) not in late] + [n for n in order if id(n) in late]


def run_order(targets):
    """The order a plan runs its nodes in: `topological_nodes` with each node's inputs
    visited shallowest first (the fewest ops on their longest path from the leaves).
    An update op reads every gradient, the first layer's first: visited in that order,
    that gradient pulled in the whole backward pass before any filter gradient, so every
    layer's activations and output gradients stayed alive to the end of the backward (on
    ResNet-50, a third of the plan's memory). Shallowest first, each gradient is computed
    as soon as the backward pass reaches its layer, and its operands are freed there."""
    depth = {}
    for node in topological_nodes(targets):
        depth[id(node)] = 1 + max((depth[id(v.node)] for v in node.inputs
                                   if v.node is not None), default=0)

    def shallow_first(node):
        return sorted(node.inputs, key=lambda v: 0 if v.node is None else depth[id(v.node)])
    return topological_nodes(targets, shallow_first)


def late_nodes(order):
    """Ids of the nodes of a topological order that run in the update phase: the stateful
    ones (updates, assign) and every node that reads what one of them produced (a weight
    constraint reads its weight after the update through `after_updates`)."""
    late = set()
    for n in order:
        if n.op.stateful or any(v.node is not None and id(v.node) in late for v in n.inputs):
            late.add(id(n))
    return late


class Plan:
    """The ordered nodes for a set of targets, specialized per combination of feed shapes."""

    def __init__(self, targets, training, device):
        self.target_refs = [weakref.ref(t) for t in targets]
        self.training = training
        self.device = device  # its backend (paddle/devices)
        self.kernels = devices.kernels_for(device)
        # Planner passes on the graph's nodes: they replace nodes of the plan, never the
        # graph's (the fusion pass runs per program, at concrete shapes).
        self.nodes = fold_batch_norm(run_order(targets), training, keep=targets)
        self.late = late_nodes(self.nodes)  # the update phase, after the results are copied
        # Inputs the nodes read: data (fed), parameters and constants (their own arrays).
        leaves, seen = [], set()
        for v in [*targets, *(i for n in self.nodes for i in n.inputs)]:
            if v.node is None and id(v) not in seen:
                seen.add(id(v))
                leaves.append(v)
        self.data = [v for v in leaves if v.kind == "data"]
        self.stored = [v for v in leaves if v.kind != "data"]
        self.targets = [(t.node, t.index) if t.node is not None else t for t in targets]
        for n in self.nodes:
            if n.op.name not in self.kernels and not n.op.view:
                raise NotImplementedError(f"{n.op.name}: no kernel on device {device.name} "
                                          f"(built at {n.location or '?'})")
        self.specialized = OrderedDict()
        # Buffers of the values its programs keep between runs (kept_values.py), by key:
        # they depend on no feed, so the programs of every feed shape share them.
        self.kept_buffers = {}

    def matches(self, targets):
        return all(ref() is t for ref, t in zip(self.target_refs, targets))

    def run(self, feeds):
        with _RUN_LOCK:
            return self._run(feeds)

    def _run(self, feeds):
        try:
            arrays = self._check_feeds(feeds)
        except FeedError as e:
            if self.device.is_host:
                raise
            raise FeedError(f"{e} (for a run on {self.device.name})") from None
        fuses = fusion.enabled()
        key = (tuple(a.shape for a in arrays), fuses)
        program = self.specialized.get(key)
        if program is None:
            program = Program(self, [a.shape for a in arrays], fuses,
                              owner=(weakref.ref(self), key))
            self.specialized[key] = program
            if len(self.specialized) > MAX_SPECIALIZATIONS:
                self.specialized.popitem(last=False)
        else:
            self.specialized.move_to_end(key)
        return program.run(arrays)

    def _check_feeds(self, feeds):
        feeds = host_feeds(self.data, feeds)  # inputs computed from fed strings, on the host
        by_name = None
        arrays = []
        for v in self.data:
            if v in feeds:
                value = feeds[v]
            else:
                if by_name is None:
                    by_name = {k: val for k, val in feeds.items() if isinstance(k, str)}
                if v.name not in by_name:
                    unknown = _unknown_names(feeds)
                    also = (f"; the feed keys {', '.join(map(repr, unknown))} name no "
                            "pd.data input") if unknown else ""
                    raise FeedError(f"eval: the targets need the input {v.name!r} "
                                    f"(shape {fmt_shape(v.shape)}, {v.dtype}, created at "
                                    f"{v.location or '?'}), which was not fed{also}")
                value = by_name[v.name]
            arrays.append(check_feed(v, value))
        return arrays


def check_feed(var, value):
    """The fed value as an array of the input's dtype; FeedError naming the input if it
    does not fit its shape or cannot be converted safely."""
    if hasattr(value, "__cuda_array_interface__"):  # a CuPy (or other GPU) array
        raise FeedError(f"input {var.name!r}: expected a host array (NumPy, a list or a "
                        f"number), received a {type(value).__module__}."
                        f"{type(value).__name__} in GPU memory; paddle copies feeds to the "
                        "device itself")
    try:
        array = np.asarray(value)
    except Exception as e:  # ragged lists and the like
        raise FeedError(f"input {var.name!r}: cannot convert the fed value to an array ({e})") \
            from None
    if array.dtype.kind not in ("biufc" if var.dtype.startswith("complex") else "biuf"):
        raise FeedError(f"input {var.name!r}: expected numbers ({var.dtype}), received an "
                        f"array of {array.dtype}")
    if array.dtype != var.dtype:
        if not np.can_cast(array.dtype, var.dtype, "same_kind"):
            raise FeedError(f"input {var.name!r}: expected {var.dtype}, received {array.dtype} "
                            "(cast it first)")
        array = converted(array, var.dtype, f"input {var.name!r}", FeedError)
    if array.ndim != len(var.shape) or any(d is not None and d != a
                                           for d, a in zip(var.shape, array.shape)):
        raise FeedError(f"input {var.name!r}: expected shape {fmt_shape(var.shape)}, received "
                        f"{fmt_shape(array.shape)}")
    return array


def _key(v):
    """Where a Variable's value is found in a program: (node, output index), or the leaf."""
    return (id(v.node), v.index) if v.node is not None else id(v)


class Program:
    """A plan specialized to concrete shapes: buffers allocated, kernels prepared.

    Each node output lives in a storage: its own buffer or, for a view, its input's. Every
    storage's lifetime is known here, from the node that writes it to the last that reads
    it, so all of them, and the kernels' workspaces, are offsets into one buffer, the arena
    (`arena_offsets`): two buffers share bytes only when their lifetimes do not meet. The
    targets' buffers live to the end of the compute calls. A program that runs no other
    program inside its own (no control-flow op) shares its backend's arena with the others
    (a training and a predict program need one arena between them): runs take turns under
    the run lock, and each leaves nothing in the arena that a later run reads. Buffers are
    the device's (`plan.device`): stored values (parameters, constants) are their copies
    there (paddle/devices/mirrors.py; on the CPU the host arrays themselves), fed values
    are uploaded once per run into feed buffers of the program's own.

    `share=False` gives the program an arena of its own (eager one-op programs, which run
    outside the lock). `owner`: (weak reference to the plan, key in its `specialized`), so
    that a program on a shared arena that a larger one replaced can be dropped (`evict`):
    the plan prepares it again, on the larger arena, when next run.

    With `fuses`, the fusion pass (paddle/lowlevel/fusion/) merges nodes once the shapes
    are known: a fused node's outputs are keyed as the outputs of the nodes it replaces
    (`_output_keys`), and the values it keeps inside get no buffer.
    """

    def __init__(self, plan, feed_shapes, fuses=False, share=True, owner=None):
        self.owner = owner
        with plan.device.activated():
            self._prepare(plan, feed_shapes, fuses, share)

    def plan(self):
        """The plan this program specializes, if it still lives (None: not known)."""
        return self.owner[0]() if self.owner is not None else None

    def evict(self):
        """Drop this program from its plan, so that its arena is freed (once nothing runs
        it); the plan prepares it again when next run."""
        plan = self.plan()
        if plan is not None and plan.specialized.get(self.owner[1]) is self:
            del plan.specialized[self.owner[1]]

    def _prepare(self, plan, feed_shapes, fuses, share):
        dev = self.device = plan.device
        self.feeds = [dev.empty(s, v.dtype, f"input {v.name!r}")
                      for v, s in zip(plan.data, feed_shapes)]
        value = {id(v): b for v, b in zip(plan.data, self.feeds)}
        value.update((id(v), mirrors.on_device(v._value, dev, f"{v.kind} {v.name!r}"))
                     for v in plan.stored)
        # Host arrays to keep current on the device before each run, and which of them a
        # run may write (parameters: updates, assign, batch-norm statistics).
        self.stored = [v._value for v in plan.stored]
        self.written = [v._value for v in plan.stored if v.kind == "param"]
        specs, aliasing, known = self._infer(plan, value)
        targets = [_target_var(t) for t in plan.targets]
        nodes = fusion.fuse(plan.nodes, known, {_key(t) for t in targets}, plan.late,
                            plan.kernels) if fuses else plan.nodes
        self.order = nodes  # the nodes in run order, fused ones and views included
        storage, last = {}, {}
        for t, node in enumerate(nodes):
            for n, i in enumerate(node.inputs):
                if n not in node.op.shape_only:  # a shape is known without the buffer
                    last[storage.get(_key(i), _key(i))] = t
            for own in _output_keys(node):
                storage[own] = storage.get(_key(node.inputs[0]), _key(node.inputs[0])) \
                    if id(node) in aliasing else own
        pinned = {storage.get(_key(t), _key(t)) for t in targets}
        placed = self._placed(plan, nodes, specs, storage, pinned, dev)
        # A run that writes no stored value keeps what it computes from them alone.
        self.writes_stored = any(n.op.stateful or n.op.writes_inputs or n.op.runs_programs
                                 for n in nodes)
        kept = set() if self.writes_stored or not dev.is_host else \
            kept_values.kept_nodes(nodes, _key, _output_keys, aliasing)
        for node in nodes:
            if id(node) in kept:
                for key in _output_keys(node):
                    if key not in placed:
                        buf = plan.kept_buffers.get(key)
                        shape, dtype = tuple(known[key][0]), np.dtype(known[key][1])
                        if buf is None or (buf.shape, buf.dtype) != (shape, dtype):
                            buf = plan.kept_buffers[key] = dev.empty(
                                shape, dtype, f"the kept value of {node.op.name}")
                        placed[key] = buf
        self.intervals = self._lifetimes(nodes, plan.kernels, known, aliasing, placed, pinned,
                                         last)
        offsets, size = arena_offsets(self.intervals)
        shared = share and not any(n.op.runs_programs for n in nodes)
        try:
            self.arena = _arena(dev, size, self if shared else None)
        except MemoryError:
            self._name_too_large(plan, nodes, dev)
            raise
        self.buffers = {k: _at(self.arena, offsets[k], *self.intervals[k][2:])
                        for k in offsets}
        self.steps, self.nodes, step_ins = [], [], []
        hooks = Hooks()
        for node in nodes:
            keys = _output_keys(node)
            ins = [value[_key(i)] for i in node.inputs]
            if id(node) in aliasing:
                outs = [_viewed(ins[0], *specs[id(node)][0])]
            else:
                outs = [placed[key] if key in placed else self.buffers[key] for key in keys]
                training = plan.training if node.mode is None else node.mode
                ctx = KernelContext(dev, training, node, hooks, len(self.steps),
                                    self.buffers.get(("workspace", id(node))))
                self.steps.append(_kernel(plan.kernels, node)(node, ins, outs, ctx))
                self.nodes.append(node)
                step_ins.append([a for n, a in enumerate(ins) if n not in node.op.shape_only])
                hooks.shapes.append(([tuple(i.shape) for i in ins],
                                     [tuple(o.shape) for o in outs], outs[0].dtype.name
                                     if outs else (ins[0].dtype.name if ins else None)))
            value.update(zip(keys, outs))
        self.stored += hooks.state
        self.written += hooks.state
        # Update ops (stateful, and what reads their results: late_nodes) come last in the
        # plan; results are copied between the two.
        first_update = sum(1 for n in self.nodes if id(n) not in plan.late)
        self.compute, self.updates = self.steps[:first_update], self.steps[first_update:]
        self.results = [None if isinstance(t, tuple) and id(t[0]) in plan.late else
                        value[(id(t[0]), t[1]) if isinstance(t, tuple) else id(t)]
                        for t in plan.targets]
        hooks.labels = [n.op.name for n in self.nodes]
        hooks.nodes = self.nodes
        self.runner = dev.runner(self.compute, self.updates, self.results, hooks)
        # Per feed, how a run lends the caller's array to the calls that read it (a large
        # array read in place, paddle/lowlevel/lent_feeds.py); None: it is copied.
        self.lendable = [lent_feeds.lendable(f, self.steps, step_ins, self.results)
                         if type(self.runner) is Runner else None for f in self.feeds]
        indices = [i for i, n in enumerate(self.nodes) if id(n) in kept]
        self.kept = kept_values.Kept(self.steps, indices) \
            if indices and type(self.runner) is Runner else None
        self.fed_checks = [(fed, limit, error, index)
                           for index, idx, limit, error in hooks.fed_checks
                           for fed in [self._fed_source(plan, self.nodes[index], idx, value,
                                                        aliasing)] if fed is not None]

    @staticmethod
    def _lifetimes(nodes, kernels, known, aliasing, placed, pinned, last):
        """{buffer key: (first step, last step, shape, dtype)} of every buffer the arena
        holds: each node output that is its own storage (not a view, not placed), live from
        the node that writes it to the last node that reads its values (or those of a view
        of it: an input an op reads only the shape of, `Op.shape_only`, does not count); the
        targets' buffers to the end (their values are copied out after the compute calls);
        and each kernel's workspace (a prepare function's `workspace(node, in_specs,
        out_specs)` in bytes), live during its node only."""
        end = len(nodes)
        lives = {}
        for t, node in enumerate(nodes):
            if id(node) in aliasing:
                continue
            keys = _output_keys(node)
            for key in keys:
                if key not in placed:
                    stop = end if key in pinned else max(t, last.get(key, t))
                    shape, dtype = known[key]
                    lives[key] = (t, stop, tuple(shape), dtype)
            ask = getattr(kernels.get(getattr(node.op, "kernel", node.op.name)), "workspace",
                          None)
            nbytes = ask(node, [known[_key(i)] for i in node.inputs],
                         [known[k] for k in keys]) if ask is not None else 0
            if nbytes:
                lives[("workspace", id(node))] = (t, t, (int(nbytes),), "uint8")
        return lives

    def _name_too_large(self, plan, fused, dev):
        """When the arena cannot be allocated: the MemoryError of the largest buffer that
        does not fit alone, naming the op that makes it (the arena's error names no op)."""
        nodes = {id(n): n for n in [*plan.nodes, *fused]}
        for key, (_, _, shape, dtype) in sorted(self.intervals.items(),
                                                key=lambda kv: -nbytes_of(*kv[1][2:])):
            node = nodes[key[1] if key[0] == "workspace" else key[0]]
            what = "the workspace of " if key[0] == "workspace" else ""
            dev.empty(shape, dtype, f"{what}{node.op.name} (built at {node.location or '?'})")
            return  # the largest fits alone: the arena's own error stands

    @staticmethod
    def _fed_source(plan, node, idx, value, aliasing):
        """(feed index, casts) when the buffer `idx` that `node` reads holds a feed's values,
        element for element: the feed itself, or the feed through views and casts (float
        labels cast to int64), whose dtypes `casts` lists in order. None otherwise."""
        span = memory_span(idx)
        v = next((i for i in node.inputs if memory_span(value[_key(i)]) == span and
                  value[_key(i)].size == idx.size), None)
        casts = []
        while v is not None and v.node is not None:
            if v.node.op.name == "cast":
                casts.insert(0, np.dtype(v.dtype))
            elif id(v.node) not in aliasing:
                return None
            v = v.node.inputs[0]
        for k, data in enumerate(plan.data):
            if data is v:
                return k, casts
        return None

    @staticmethod
    def _placed(plan, nodes, specs, storage, pinned, dev):
        """{storage: buffer} for the outputs some kernel wants computed straight into a
        buffer of its own: a prepare function with an `input_buffers(node, device)`
        attribute returns {input index: buffer} (arrays of `device`, the plan's backend;
        the update op of a distributed run: the gradients go into the flat buffer that
        averages them over the ranks, so no copy packs them).
        Only an op's own output of the same shape and dtype is placed, each storage once;
        placed buffers are never handed to another output. Two nodes whose buffers overlap
        (two optimizers' updates sharing one averaging buffer) are not both placed: each
        node's buffers must stay its own until it runs."""
        placed, taken = {}, []
        for node in nodes:
            ask = getattr(plan.kernels.get(node.op.name), "input_buffers", None)
            wanted = (ask(node, dev) if ask is not None else None) or {}
            spans = [memory_span(b) for b in wanted.values()]
            if any(lo < end and start < hi for lo, hi in spans for start, end in taken):
                continue
            taken += spans
            for i, buf in wanted.items():
                v = node.inputs[i]
                key = _key(v)
                if v.node is None or storage.get(key, key) != key or key in placed \
                        or key in pinned or id(v.node) not in specs:
                    continue
                if specs[id(v.node)][v.index] == (tuple(buf.shape), np.dtype(buf.dtype).name):
                    placed[key] = buf
        return placed

    @staticmethod
    def _infer(plan, leaves):
        """Concrete (shape, dtype) of every node output, the nodes whose output is their
        first input's buffer (views, and ops that are identities at these shapes: a sum_to
        or broadcast_to that changes nothing), and (shape, dtype) of every value by key."""
        known = {k: (b.shape, b.dtype.name) for k, b in leaves.items()}
        specs, aliasing = {}, set()
        for node in plan.nodes:
            ins = [known[_key(i)] for i in node.inputs]
            try:
                out = node.op.infer(*ins, **node.attrs)
            except ShapeError as e:  # fed sizes that do not fit: say which line built the op
                raise ShapeError(f"{e} (with the fed shapes; built at {node.location or '?'})") \
                    from None
            out = [(tuple(s), d) for s, d in (out if isinstance(out, list) else [out])]
            specs[id(node)] = out
            known.update(((id(node), k), spec) for k, spec in enumerate(out))
            if node.keys is not None:  # a pass's node: the values of the nodes it replaces
                known.update(zip(node.keys, out))
            if node.op.view or node.op.aliases(ins, out):
                aliasing.add(id(node))
        return specs, aliasing, known

    def run(self, arrays):
        """Feeds in (one copy each, or a large host array lent: `lendable`), the prepared
        calls (those of values kept from an earlier run left out: `kept`), the results out
        (NumPy arrays)."""
        dev = self.device
        try:
            for (k, casts), limit, error, index in self.fed_checks:
                self.runner.at = index  # (names the op if it raises)
                _check_indices(arrays[k], casts, limit, error)
            self.runner.at = -1
            at = mirrors.writes()
            steps = self.steps if self.kept is None else self.kept.steps(self.steps)
            with dev.activated():
                mirrors.sync(self.stored, dev)
                for buf, a, found in zip(self.feeds, arrays, self.lendable):
                    if found is not None and lent_feeds.can_lend(a):
                        steps = lent_feeds.lent(steps, found, a)
                    else:
                        dev.upload(buf, a)
            if steps is self.steps:
                results = self.runner.run()
            else:
                cut = len(self.compute)
                results = self.runner.run(steps[:cut], steps[cut:])
            if self.kept is not None:
                self.kept.ran(at)
            return results
        except Exception as e:
            step = self.runner.at
            if not 0 <= step < len(self.nodes):
                raise
            node = self.nodes[step]
            where = f"in {node.op.name}" + (f", built at {node.location}" if node.location else "")
            try:
                error = type(e)(f"{e} ({where})")
            except Exception:
                if isinstance(e, MemoryError):  # CuPy's OutOfMemoryError takes sizes
                    raise MemoryError(f"{e} ({where}, on device {dev.name})") from None
                raise e from None
            raise error from None
        finally:
            mirrors.written(self.written, dev)
            if self.writes_stored:
                mirrors.stored_written()


def _check_indices(fed, casts, limit, error):
    """Raise `error(value, position)` for the first element of the host array `fed`, cast
    to each dtype of `casts` in turn (as the device's cast op does), outside [0, limit)."""
    flat = fed.reshape(-1)
    with np.errstate(invalid="ignore"):  # NaN to an integer: caught by the range check
        for dtype in casts:
            flat = flat.astype(dtype, casting="unsafe")
    if flat.size and (flat.min() < 0 or flat.max() >= limit):
        i = int(np.argmax((flat < 0) | (flat >= limit)))
        raise error(int(flat[i]), i)


def memory_span(array):
    """[start, end) of the memory of a contiguous NumPy or CuPy array."""
    face = getattr(array, "__cuda_array_interface__", None) or array.__array_interface__
    start = face["data"][0]
    return start, start + array.nbytes


def _target_var(t):
    """A plan target as something _key understands: a leaf Variable or a stand-in."""
    if isinstance(t, tuple):
        return _Output(*t)
    return t


class _Output:
    def __init__(self, node, index):
        self.node, self.index = node, index


def _output_keys(node):
    """The keys of a node's outputs; a planner pass's node (a fused node, a folded batch
    norm) has those of the outputs it computes for the nodes it replaces (`keys`)."""
    keys = node.keys
    return keys if keys is not None else [(id(node), k) for k in range(len(node.outputs_ref))]


def _kernel(kernels, node):
    """The prepare function of a node's kernel (a fused node names its backend kernel)."""
    return kernels[getattr(node.op, "kernel", node.op.name)]


# Offsets in the arena are multiples of this many bytes: a cache line, and a full AVX-512
# vector, for every buffer.
ALIGN = 64
# The arena each backend's programs share, for the programs that never run another
# program inside their own run: those are run one at a time (the run lock), so what one
# leaves in the arena is never read by another. Per backend: (a weak reference to the
# arena, the programs on it, weakly).
_SHARED = {}


def nbytes_of(shape, dtype):
    """The bytes of an array of `shape` and `dtype`, rounded up to ALIGN."""
    n = math.prod(shape) * np.dtype(dtype).itemsize
    return -(-n // ALIGN) * ALIGN


def arena_offsets(lives):
    """({key: offset}, size): a place in one buffer for each of `lives` ({key: (first,
    last, shape, dtype)}, steps inclusive) such that two whose lifetimes meet never share
    a byte. Greedy by size (the largest placed first, each in the smallest gap that the
    already placed and overlapping ones leave, else above them all), as TensorFlow Lite's
    arena planner does; the size is then close to the largest set of values live at once.

    Example:
        >>> arena_offsets({"a": (0, 1, (16,), "float32"), "b": (2, 3, (16,), "float32"),
        ...                "c": (1, 2, (8,), "float64")})
        ({'a': 0, 'b': 0, 'c': 64}, 128)
    """
    order = sorted(lives, key=lambda k: (-nbytes_of(*lives[k][2:]), lives[k][0]))
    placed, offsets, size = [], {}, 0
    for key in order:
        first, last = lives[key][:2]
        need = nbytes_of(*lives[key][2:])
        busy = sorted((off, off + n) for f, l, off, n in placed if f <= last and first <= l)
        best, at = None, 0
        for lo, hi in busy:
            if lo - at >= need and (best is None or lo - at < best[1]):
                best = (at, lo - at)
            at = max(at, hi)
        offset = best[0] if best is not None else at
        offsets[key] = offset
        placed.append((first, last, offset, need))
        size = max(size, offset + need)
    return {key: offsets[key] for key in lives}, size


def _arena(dev, size, program):
    """A buffer of at least `size` bytes on `dev`, starting at an ALIGN boundary: for a
    `program` that shares (None: one of its own), the backend's shared arena when it is
    large enough, else a new one that replaces it; the programs on the one replaced are
    evicted from their plans, so that it is freed and they are prepared again on the new
    one when next run (a process that trains a small model, then a large one, holds one
    arena of the large one's size, not both); the other specializations of the new
    program's own plan (other batch sizes) are kept on the old one, not prepared again."""
    held = _SHARED.get(dev)
    arena = held[0]() if held is not None else None
    if program is not None and arena is not None and arena.nbytes >= size:
        held[1].add(program)
        return arena
    users = [program]
    if program is not None and held is not None:
        for old in list(held[1]):
            if old.plan() is program.plan():
                users.append(old)  # kept: a plan's specializations are not re-prepared
            else:
                old.evict()
        arena = held = None  # the old arena goes with the last program that holds it
    raw = dev.empty((size + ALIGN,), np.uint8, f"the buffers of a plan ({size:,} bytes)")
    start = -_address(raw) % ALIGN
    arena = raw[start:start + size]
    if program is not None:
        try:
            _SHARED[dev] = (weakref.ref(arena), weakref.WeakSet(users))
        except TypeError:  # an array type without weak references: nothing is shared
            pass
    return arena


def _address(array):
    face = getattr(array, "__cuda_array_interface__", None) or array.__array_interface__
    return face["data"][0]


def _viewed(array, shape, dtype):
    """`array`'s buffer as `shape` and `dtype`: a view's output (a bitcast changes the dtype,
    its bytes staying where they are)."""
    if array.dtype.name == dtype:
        return array.reshape(shape)
    return array.reshape(-1).view(dtype).reshape(shape)


def _at(arena, offset, shape, dtype):
    """The array of `shape` and `dtype` at `offset` bytes into the arena."""
    dtype = np.dtype(dtype)
    n = math.prod(shape) * dtype.itemsize
    return arena[offset:offset + n].view(dtype).reshape(shape)
