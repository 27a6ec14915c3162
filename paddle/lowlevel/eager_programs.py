"""The cached one-node programs of eager calls (paddle/lowlevel/eager.py) and the three
ways their kernel is called: through the program (its own buffers, copied in and out,
under its lock), on the caller's arrays (`_rebound`: the prepared call with the buffers
swapped, under the lock), or making its output (`_fresh`: the kernel's entry that
allocates a read-only result, csrc/fresh.h; no lock), the one the eager fast path
(graph.EAGER_FAST) calls.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel.eager_programs import one_node_program
    >>> from paddle.lowlevel.op import OPS
    >>> x = pd.ops.convert_to_tensor(np.ones(3, np.float32), "float32")
    >>> spec = OPS["add"].infer((x.shape, x.dtype), (x.shape, x.dtype))
    >>> entry = one_node_program(OPS["add"], [x, x], {}, spec, None, pd.devices.CPU)
    >>> entry.fresh(x.value, x.value).tolist(), entry.run([x.value, x.value])[0].tolist()
    ([2.0, 2.0, 2.0], [2.0, 2.0, 2.0])
"""
import threading
import weakref
from functools import partial
from types import BuiltinFunctionType

import numpy as np

from paddle.devices.cpu.fresh import FRESH
from paddle.devices.runner import RECORDERS
from paddle.lowlevel import graph
from paddle.lowlevel.executor import Plan, Program
from paddle.lowlevel.graph import Node, Variable
from paddle.lowlevel.lent_feeds import plain_setting


def one_node_program(op, inputs, attrs, specs, mode, device):
    """A one-node program of `op` on fed inputs of these exact shapes and dtypes."""
    fed = [Variable._make(f"in{i}", v.shape, v.dtype, "data", location="")
           for i, v in enumerate(inputs)]
    saved = graph._MODE[-1]
    graph._MODE[-1] = mode
    try:
        node = Node(op, fed, attrs, "")
    finally:
        graph._MODE[-1] = saved
    single = not isinstance(specs, list)
    outs = [Variable._make(f"out{i}", tuple(s), d, "op", node, i, location="")
            for i, (s, d) in enumerate([specs] if single else specs)]
    node.outputs_ref = tuple(weakref.ref(v) for v in outs)  # OneNode keeps them
    plan = Plan(outs, bool(mode), device)
    return OneNode(Program(plan, [v.shape for v in fed], share=False), outs, specs, single,
                    op.writes_inputs)


class OneNode:
    """A cached one-node program. On the host, with no hooks to honour, it runs its
    prepared kernel directly: on the inputs' own arrays into fresh outputs when the kernel
    is one C++ call whose buffers can be swapped (`_rebound`), else with feeds copied in
    and results copied out, one caller at a time. Anything else (a GPU, deferred checks, a
    profile) goes through Program.run.

    The program's buffers are shared by every call of the same op on the same shapes, from
    any thread, and the kernels let go of the GIL while they compute: its own lock keeps
    two threads from running it at once (the executor's lock would also make an eager op
    in a reader thread wait for a whole training step)."""

    __slots__ = ("program", "outs", "specs", "single", "writes_state", "direct",
                 "rebound", "fresh", "out_dtypes", "lock")

    def __init__(self, program, outs, specs, single, writes_state):
        self.program, self.outs, self.specs = program, outs, specs
        self.single, self.writes_state = single, writes_state
        self.out_dtypes = tuple(v.dtype for v in outs)
        runner, hooks = program.runner, program.runner.hooks
        self.direct = program.device.is_host and not (
            hooks.before or hooks.after or hooks.checks or hooks.state or program.updates
            or program.fed_checks or runner.gate is not None)
        self.rebound = _rebound(program) if self.direct and not writes_state else None
        self.fresh = _fresh(program) if self.rebound is not None and single else None
        self.lock = threading.Lock()  # the program's own buffers serve one run at a time

    def run(self, arrays):
        """The program's results on `arrays` (host arrays of its feeds' shapes and dtypes)."""
        program = self.program
        with self.lock:
            if not self.direct or RECORDERS:
                return program.run(arrays)
            try:
                for buf, a in zip(program.feeds, arrays):
                    np.copyto(buf, a)
                for fn in program.compute:
                    fn()
            except Exception:
                return program.run(arrays)  # again, for the error that names the op
            return [b.copy() for b in program.results]


def _rebound(program):
    """The prepared kernel of a one-node program called on other buffers, as a function of
    the input arrays giving fresh output arrays; None where swapping buffers is not exact.

    The prepared call is a partial of one C++ function (the precomputation, layouts
    included, done once); the caller's arrays replace the program's feed buffers and fresh
    arrays its result buffers. Callers hold the program's lock: a kernel lets go of the GIL
    while it computes, and a workspace among the settings is the program's own. Only
    where that is exact: every result buffer is an argument of the call itself, every
    other argument is a plain setting sharing no memory with a feed or a result (a view, or an object holding a buffer, would still read the program's
    buffer), and the inputs are C-contiguous arrays of the program's shapes and dtypes
    (the cache key's; eager tensors hold C-contiguous arrays).
    """
    found = _buffers_of(program)
    if found is None:
        return None
    call, fed, out = found
    feeds, results = program.feeds, program.results
    func, args, keywords = call.func, call.args, call.keywords
    # Each output starts as a copy of the program's buffer: what a run leaves unwritten
    # reads as it did when the program's own buffer was copied out.
    slots = [p for p, _ in fed] + [p for p, _ in out]
    first = slots[0] if slots else 0
    usual = (slots == list(range(first, first + len(slots))) and not keywords
             and [k for _, k in fed] == list(range(len(feeds)))
             and [j for _, j in out] == list(range(len(results))))
    if usual and len(results) == 1:  # (settings..., inputs in order, output, settings...)
        prefix, suffix, result = args[:first], args[first + len(slots):], results[0]

        def run_one(arrays):
            array = result.copy()
            func(*prefix, *arrays, array, *suffix)
            return [array]
        return run_one

    def run(arrays):
        values = list(args)
        for position, k in fed:
            values[position] = arrays[k]
        outs = [b.copy() for b in results]
        for position, j in out:
            values[position] = outs[j]
        func(*values, **keywords)
        return outs
    return run


def _buffers_of(program):
    """(call, fed, out) of a one-node program whose buffers can be swapped (see _rebound):
    its one prepared call, and the (argument position, feed) and (argument position,
    result) pairs of the buffers among its arguments; None where swapping is not exact."""
    if len(program.compute) != 1 or any(r is None for r in program.results):
        return None
    call = program.compute[0]
    if not isinstance(call, partial) or not isinstance(call.func, BuiltinFunctionType):
        return None
    feeds, results = list(program.feeds), list(program.results)
    buffers = feeds + results
    for i, b in enumerate(buffers):
        if any(np.shares_memory(b, c) for c in buffers[i + 1:]):
            return None  # an output written over an input, or results sharing memory
    fed, out = [], []
    for position, arg in enumerate(call.args):
        slot = next((k for k, b in enumerate(buffers) if arg is b), None)
        if slot is None:
            if not plain_setting(arg, buffers):
                return None
        elif slot < len(feeds):
            fed.append((position, slot))
        else:
            out.append((position, slot - len(feeds)))
    if not all(plain_setting(v, buffers) for v in call.keywords.values()):
        return None
    if sorted(j for _, j in out) != list(range(len(results))):
        return None  # a result the call does not write itself
    return call, fed, out


_KERNEL_DTYPES = ("float32", "float64", "int64", "int32", "bool")  # csrc/common.h's five


def _fresh(program):
    """The kernel of a one-node program as a function of its input arrays that gives a
    fresh, read-only output array: the kernel's entry that makes its output
    (paddle/devices/cpu/fresh.py), called with the program's settings and a one-element
    template of the output's shape and dtype. No buffer of the
    program's is read or written and the settings are only read, so it needs no lock.
    None where the kernel has no such entry, the program has several results, or its call
    is not (settings..., each input once and in order, the output, settings...)."""
    found = _buffers_of(program)
    if found is None:
        return None
    call, fed, out = found
    fresh = FRESH.get(call.func)
    result = program.results[0]
    if fresh is None or len(out) != 1 or call.keywords or \
            result.dtype.name not in _KERNEL_DTYPES:
        return None
    n = len(program.feeds)
    positions = [p for p, _ in fed] + [out[0][0]]
    first = positions[0]
    if positions != list(range(first, first + n + 1)) or [k for _, k in fed] != list(range(n)):
        return None
    # The template: one element seen with the result's shape (not the program's buffer,
    # which may be a big arena this function would keep alive).
    like = np.broadcast_to(np.empty((), result.dtype), result.shape)
    return _calling(fresh, like, call.args[:first], n, call.args[first + n + 1:])


def _calling(fresh, like, prefix, n, suffix):
    """fresh(like, *prefix, *arrays, *suffix) as a function of the n input arrays, spelled
    out for the usual forms (unpacking into a call costs a tenth of a microsecond)."""
    if not suffix:
        return partial(fresh, like, *prefix)  # unary, cast
    if n == 2 and len(suffix) == 1:  # binary, compare (a code first), matmul
        setting = suffix[0]
        if not prefix:
            return lambda a, b: fresh(like, a, b, setting)
        if len(prefix) == 1:
            code = prefix[0]
            return lambda a, b: fresh(like, code, a, b, setting)
    if n == 1 and len(prefix) == 1:  # reduce
        code = prefix[0]
        return lambda x: fresh(like, code, x, *suffix)
    head = (like,) + tuple(prefix)
    return lambda *arrays: fresh(*head, *arrays, *suffix)
