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
        if RECORDERS:
            return self.run_timed(HostClock() if self.dev.simulated else EventClock(self.dev))
        self.at = -1
        with self.dev.activated():
            for fn in self.hooks.before:
                fn()
            if self.capture is None:
                for self.at, fn in self.sequence:
                    fn()
            else:
                self.capture.run(self)
            results = [None if b is None else self.dev.download(b) for b in self.snapshots]
            self.check()
            for fn in self.hooks.after:
                fn()
        return results

    def run_timed(self, clock):
        """One run op by op (no graph), each call timed; the spans go to the profiles."""
        self.at = -1
        with self.dev.activated():
            for fn in self.hooks.before:
                fn()
            for self.at, fn in self.sequence:
                clock.time(self.at, fn)
            results = [None if b is None else self.dev.download(b) for b in self.snapshots]
            self.check()
            for fn in self.hooks.after:
                fn()
        record(self.dev.name, self.hooks, clock.finish())
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

    def time(self, index, fn):
        start, end = self.cuda.Event(), self.cuda.Event()
        start.record(self.stream)
        fn()
        end.record(self.stream)
        self.marks.append((index, start, end))

    def finish(self):
        self.stream.synchronize()
        ns = lambda event: self.host + int(  # noqa: E731
            self.cuda.get_elapsed_time(self.origin, event) * 1e6)
        return [(index, ns(start), ns(end)) for index, start, end in self.marks]
