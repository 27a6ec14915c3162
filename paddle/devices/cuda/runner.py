"""The GPU's runner: one run of a program as one CUDA graph launch (paddle/devices/cuda/graph.py).

The calls of a run are the compute calls, one device-side copy of the results into
buffers of their own (the updates that follow may overwrite what the results were read
from), the gate of the updates (`Hooks.gate`: no update writes after a failed index
check), then the update calls. Around them, on the host: the kernels' `before_run` hooks,
the feeds uploaded (by the program, before), the results downloaded, the deferred checks
read, the `after_run` hooks. Simulated (NumPy), the same sequence runs op by op.

While a profile is recorded (paddle.profiler), runs go op by op instead of replaying the
graph, each call between two CUDA events: the times are the kernels' own on the device.
"""
import time

from paddle.devices.cuda.graph import Capture
from paddle.devices.runner import RECORDERS, HostClock, Runner, record


class DeviceRunner(Runner):
    """Runner for a CudaBackend: a snapshot of the results between compute and updates."""

    def __init__(self, dev, compute, updates, results, hooks):
        super().__init__(dev, compute, updates, results, hooks)
        xp = dev.xp
        n = len(compute)
        sequence = list(enumerate(compute))
        if updates and any(b is not None for b in results):
            self.snapshots = [None if b is None else dev.empty(b.shape, b.dtype, "a result")
                              for b in results]
            pairs = [(s, b) for s, b in zip(self.snapshots, results) if b is not None]

            def snapshot():
                for s, b in pairs:
                    xp.copyto(s, b)
            sequence.append((-1, snapshot))
        else:
            self.snapshots = results
        if self.gate is not None:
            sequence.append((-1, self.gate))
        sequence += list(enumerate(updates, n))
        self.sequence = sequence
        self.capture = None if dev.simulated else Capture(
            sequence, dev.stream, hooks.labels, hooks.uncapturable, dev.graph_memory)

    def run(self):
        if not RECORDERS:
            return self._run(self.sequence, self.capture)
        clock = HostClock() if self.dev.simulated else EventClock(self.dev)
        results = self._run([(i, clock.timed(i, fn)) for i, fn in self.sequence], None)
        record(self.dev.name, self.hooks, clock.finish())  # profiled: op by op, each timed
        return results

    def _run(self, sequence, capture):
        self.at = -1
        with self.dev.activated():
            for fn in self.hooks.before:
                fn()
            if capture is None:
                for self.at, fn in sequence:
                    fn()
            else:
                capture.run(self)
            results = [None if b is None else self.dev.download(b) for b in self.snapshots]
            self.check()
            for fn in self.hooks.after:
                fn()
        return results


class EventClock:
    """Times calls on a GPU with CUDA events on the device's stream: (call index, start,
    end) in nanoseconds on the host's perf_counter clock (the device's elapsed times laid
    from the first event, which is taken with the host's time)."""

    def __init__(self, dev):
        self.cuda, self.stream, self.marks = dev.xp.cuda, dev.stream, []
        self.origin = self.cuda.Event()
        self.origin.record(self.stream)
        self.host = time.perf_counter_ns()

    def timed(self, index, fn):
        """`fn` between two events, as call `index`, each time it runs."""
        def call():
            start, end = self.cuda.Event(), self.cuda.Event()
            start.record(self.stream)
            fn()
            end.record(self.stream)
            self.marks.append((index, start, end))
        return call

    def finish(self):
        self.stream.synchronize()
        ns = lambda event: self.host + int(  # noqa: E731
            self.cuda.get_elapsed_time(self.origin, event) * 1e6)
        return [(index, ns(start), ns(end)) for index, start, end in self.marks]
