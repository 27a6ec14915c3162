"""The GPU's runner: one run of a program as one CUDA graph launch (paddle/backend/cuda/graph.py).

The calls of a run are the compute calls, one device-side copy of the results into
buffers of their own (the updates that follow may overwrite what the results were read
from), the gate of the updates (`Hooks.gate`: no update writes after a failed index
check), then the update calls. Around them, on the host: the kernels' `before_run` hooks,
the feeds uploaded (by the program, before), the results downloaded, the deferred checks
read, the `after_run` hooks. Simulated (NumPy), the same sequence runs op by op.
"""
from paddle.backend.cuda.graph import Capture
from paddle.backend.runner import Runner


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
