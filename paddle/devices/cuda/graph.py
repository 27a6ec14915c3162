"""A program's run as one CUDA graph: captured once, then replayed with one launch.

`Capture.run` goes through three stages:
1. the first run calls the sequence one by one: the warm-up, in which CuPy compiles and
   caches its kernels, cuBLAS creates its handle and workspace and the memory pool grows
   (none of which may happen inside a capture);
2. the second run records the sequence on the device's stream
   (`stream.begin_capture()` ... `stream.end_capture()`) and launches the graph;
3. every later run launches the graph again.

Memory that a call allocates while it is captured (a library's workspace or temporary)
comes from a memory pool of the graph's own, kept alive with the graph: the replays write
those addresses again, so they must never be handed to anyone else.

A capture that fails (a call synchronized with the host or allocated memory, a library
that cannot be captured, or a kernel that declared itself uncapturable with
`ctx.not_capturable`) is abandoned: one warning (GraphCaptureWarning) names the op and
the reason, and that program runs op by op from then on. Nothing ran during the failed
capture, so running the sequence op by op right after gives the same step.
"""
import contextlib
import warnings


class GraphCaptureWarning(RuntimeWarning):
    """A program runs op by op on the GPU because its calls could not be captured."""


_WARNED = set()  # (op, reason) pairs already reported: a warning per cause, not per program


class Capture:
    """The CUDA-graph stages of one program (see the module docstring).

    Args:
        sequence: [(call index, callable)] in run order (index -1: not an op's call).
        stream: the device's CuPy stream (anything with begin_capture / end_capture,
            and whose end_capture returns something with launch(stream)).
        labels: op name per call index, for the warning.
        uncapturable: [(call index, reason)] declared by kernels.
        memory: a callable giving (pool, context): the graph's private memory pool, and
            a context in which allocations come from it (None: no private pool).
    """

    def __init__(self, sequence, stream, labels, uncapturable=(), memory=None):
        self.sequence, self.stream, self.labels = sequence, stream, labels
        self.memory, self.pool = memory, None
        self.graph = None
        self.runs = 0
        self.fallback = None  # (op, reason) once capturing was given up
        if uncapturable:
            index, reason = uncapturable[0]
            self._give_up(index, reason)

    def run(self, runner):
        """One run: the graph when there is one, else op by op (tracking `runner.at`)."""
        if self.graph is not None:
            self.graph.launch(self.stream)
            return
        if self.runs and self.fallback is None:
            self.graph = self._capture()
            if self.graph is not None:
                self.runs += 1
                self.graph.launch(self.stream)
                return
        self.runs += 1
        for runner.at, fn in self.sequence:
            fn()

    def _capture(self):
        pool, context = self.memory() if self.memory else (None, contextlib.nullcontext())
        with context:
            graph = self._record()
        if graph is not None:
            self.pool = pool  # lives as long as the graph that reads its addresses
        return graph

    def _record(self):
        at = -1
        self.stream.begin_capture()
        try:
            for at, fn in self.sequence:
                fn()
        except Exception as e:
            try:  # leave capture mode; the half-recorded graph is dropped
                self.stream.end_capture()
            except Exception:
                pass
            self._give_up(at, f"{type(e).__name__}: {e}")
            return None
        try:
            return self.stream.end_capture()
        except Exception as e:  # the capture was invalidated by a call that raised nothing
            self._give_up(None, f"{type(e).__name__}: {e}")
            return None

    def _give_up(self, index, reason):
        op = self.labels[index] if index is not None and 0 <= index < len(self.labels) else \
            ("the results' copy" if index == -1 else "an unknown op")
        self.fallback = (op, reason)
        if (op, reason) not in _WARNED:
            _WARNED.add((op, reason))
            warnings.warn(f"GPU: this program runs op by op, not as one CUDA graph: {op} "
                          f"cannot be captured ({reason})", GraphCaptureWarning, stacklevel=4)
