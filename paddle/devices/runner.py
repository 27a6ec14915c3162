"""Running a program's prepared calls, one step at a time, on the host.

A program hands its backend's `runner` the prepared calls of its compute ops and of its
update ops (the stateful ones, run last), the buffers holding the results, and the hooks
its kernels asked for (`Hooks`). A run calls the compute calls, copies the results out,
calls the updates, then evaluates the deferred checks: every value a run returns is from
before its updates. Where the update kernels asked for the gate (`Hooks.proceed`), a call
between the two phases sets it from the compute calls' check flags, so a run whose checks
failed raises without having written a parameter or slot, as when a CPU kernel raises.
`at` holds the index of the call being run, so the executor can name the op an error came
from. The CUDA backend's runner (paddle/devices/cuda/runner.py) keeps
this order but replays the calls as one CUDA graph.
"""


import time

# The profiles being recorded (paddle.profiler): while one is active, a run's calls are
# wrapped by a clock (`timed`); otherwise the runners pay one empty-list test per run.
RECORDERS = []


class HostClock:
    """Times calls on the host, where kernels run synchronously (the CPU, the simulated
    GPU): (call index, start, end) in perf_counter nanoseconds."""

    def __init__(self):
        self.spans = []

    def timed(self, index, fn):
        """`fn` timed as call `index` each time it runs."""
        def call():
            start = time.perf_counter_ns()
            fn()
            self.spans.append((index, start, time.perf_counter_ns()))
        return call

    def finish(self):
        return self.spans


def record(device, hooks, spans):
    """Hand a timed run's spans to every active profile."""
    for recorder in RECORDERS:
        recorder.add_run(device, hooks, spans)


class Hooks:
    """What a program's kernels asked for beside their run callables (see `KernelContext`).

    before / after: host callables run around each run, never captured in a CUDA graph
        (a learning rate read from a schedule, an iteration counter);
    checks: (call index, flag buffer of one element, error factory): after the run, a flag
        that is not zero raises the factory's exception, attributed to that call's op;
    fed_checks: (call index, index buffer, limit, error factory): index checks that the
        program runs on the host, before the run, where the buffer is a feed's;
    state: host arrays (optimizer slots) that the kernels use on the device: made current
        there before each run, and marked as written by the device after it;
    uncapturable: (call index, reason) of kernels that cannot run inside a CUDA graph;
    labels: the op name of each call (compute, then updates), for messages;
    nodes, shapes: the node of each call and ([input shapes], [output shapes], dtype), for
        profiles;
    proceed: None, or the device bool (shape ()) that the update kernels write under: True
        unless a check flag of the compute calls is set (`gate`).
    """

    def __init__(self):
        self.before, self.after, self.checks, self.state, self.uncapturable = [], [], [], [], []
        self.fed_checks = []
        self.labels, self.nodes, self.shapes = [], [], []
        self.proceed = None

    def gate(self, xp, computed):
        """The call that sets `proceed` to "no check flag of the first `computed` calls is
        set", on the device (no host sync, so a CUDA graph captures it); None when no update
        kernel asked for the gate, or no compute call has a check (it stays open)."""
        proceed = self.proceed
        flags = [flag.reshape(()) for index, flag, _ in self.checks if index < computed]
        if proceed is None or not flags:
            return None

        def run():
            proceed.fill(False)
            for flag in flags:
                xp.logical_or(proceed, flag, out=proceed)
            xp.logical_not(proceed, out=proceed)
        return run


class Runner:
    """The host's runner: the calls in a loop (one C++ call per op)."""

    def __init__(self, dev, compute, updates, results, hooks):
        self.dev = dev
        self.compute, self.updates = compute, updates
        self.results = results
        self.hooks = hooks
        self.gate = hooks.gate(dev.xp, len(compute))
        self.at = -1  # index of the call running (compute first, then updates)

    def run(self, compute=None, updates=None):
        """Run once; the results as NumPy arrays (None for an update target). `compute`,
        `updates`: this run's calls in place of the prepared ones, the same calls on other
        inputs (a caller's array lent in place of a feed's buffer, paddle/lowlevel/
        lent_feeds.py)."""
        compute = self.compute if compute is None else compute
        updates = self.updates if updates is None else updates
        if not RECORDERS:
            return self._run(compute, self.gate, updates)
        clock, n = HostClock(), len(compute)  # profiled: each call timed
        results = self._run([clock.timed(i, fn) for i, fn in enumerate(compute)],
                            self.gate and clock.timed(-1, self.gate),
                            [clock.timed(i, fn) for i, fn in enumerate(updates, n)])
        record(self.dev.name, self.hooks, clock.finish())
        return results

    def _run(self, compute, gate, updates):
        self.at = -1
        for fn in self.hooks.before:
            fn()
        for self.at, fn in enumerate(compute):
            fn()
        results = [None if b is None else self.dev.download(b) for b in self.results]
        if gate is not None:
            gate()
        for self.at, fn in enumerate(updates, len(compute)):
            fn()
        self.check()
        for fn in self.hooks.after:
            fn()
        return results

    def check(self):
        """Raise the error of the first deferred check whose flag is set."""
        for index, flag, error in self.hooks.checks:
            if self.dev.download(flag).any():
                self.at = index
                raise error()
