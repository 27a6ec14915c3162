"""The GPU's runner: one run of a program as one CUDA graph launch (paddle/backend/cuda/graph.py).

The calls of a run are the compute calls, one device-side copy of the results into
buffers of their own (the updates that follow may overwrite what the results were read
from), then the update calls. Around them, on the host: the kernels' `before_run` hooks,
the feeds uploaded (by the program, before), the results downloaded, the deferred checks
read, the `after_run` hooks. Simulated (NumPy), the same sequence runs op by op.

A run callable may also come in parts (paddle/backend/cuda/raw.py `staged`): attributes
`host` (host work before the launches), `device` (the launches alone) and `check` (reads
back what the device recorded and raises). Only the `device` parts are captured; every
`host` part runs before the graph is launched, every `check` after it, in call order.
"""
from paddle.backend.cuda.graph import Capture
from paddle.backend.runner import Runner


def _parts(fn):
    """(host, device, check) of a run callable (host and check None when it is whole)."""
    if hasattr(fn, "host") or hasattr(fn, "check"):
        return getattr(fn, "host", None), getattr(fn, "device", fn), getattr(fn, "check", None)
    return None, fn, None


class DeviceRunner(Runner):
    """Runner for a CudaBackend: a snapshot of the results between compute and updates."""

    def __init__(self, dev, compute, updates, results, hooks):
        super().__init__(dev, compute, updates, results, hooks)
        xp = dev.xp
        n = len(compute)
        self.hosts, self.checks, sequence = [], [], []

        def add(index, fn):
            host, device, check = _parts(fn)
            if host is not None:
                self.hosts.append((index, host))
            if check is not None:
                self.checks.append((index, check))
            sequence.append((index, device))
        for index, fn in enumerate(compute):
            add(index, fn)
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
        for index, fn in enumerate(updates, n):
            add(index, fn)
        self.sequence = sequence
        self.capture = None if dev.simulated else Capture(
            sequence, dev.stream, hooks.labels, hooks.uncapturable, dev.graph_memory)

    def run(self):
        self.at = -1
        with self.dev.activated():
            for fn in self.hooks.before:
                fn()
            for self.at, fn in self.hosts:
                fn()
            if self.capture is None:
                for self.at, fn in self.sequence:
                    fn()
            else:
                self.capture.run(self)
            results = [None if b is None else self.dev.download(b) for b in self.snapshots]
            for self.at, fn in self.checks:
                fn()
            self.check()
            for fn in self.hooks.after:
                fn()
        return results
