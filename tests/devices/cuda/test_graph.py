"""The CUDA-graph stages of a program (paddle/devices/cuda/graph.py), with a stand-in for
CuPy's stream: warm-up op by op, capture then launch, replay; the fallback and its one
warning when a call cannot be captured."""
import warnings

import pytest

from paddle.devices.cuda import graph


class FakeGraph:
    def __init__(self, stream, calls):
        self.stream, self.calls = stream, calls

    def launch(self, stream):
        assert stream is self.stream
        self.stream.log.append("launch")
        for fn in self.calls:  # a replay runs what was recorded
            fn()


class FakeStream:
    """Records calls made between begin_capture and end_capture instead of running them."""

    def __init__(self, invalidate=False):
        self.log, self.capturing, self.recorded, self.invalidate = [], False, [], invalidate

    def begin_capture(self):
        assert not self.capturing
        self.capturing, self.recorded = True, []
        self.log.append("begin")

    def end_capture(self):
        assert self.capturing
        self.capturing = False
        self.log.append("end")
        if self.invalidate:
            raise RuntimeError("cudaErrorStreamCaptureInvalidated")
        return FakeGraph(self, self.recorded)


def calls(stream, names, fail=None):
    """Calls that log their name when run, and record themselves when captured."""
    def make(name):
        def fn():
            if stream.capturing:
                if name == fail:
                    raise RuntimeError("operation not permitted when stream is capturing")
                stream.recorded.append(fn)
            else:
                stream.log.append(name)
        return fn
    return [(i, make(n)) for i, n in enumerate(names)]


class Tracker:
    at = -1


def test_warm_up_then_capture_then_replay():
    stream = FakeStream()
    capture = graph.Capture(calls(stream, ["a", "b"]), stream, ["matmul", "add"])
    capture.run(Tracker())
    assert stream.log == ["a", "b"]  # run 1: op by op (kernels compile, pools grow)
    stream.log.clear()
    capture.run(Tracker())
    assert stream.log == ["begin", "end", "launch", "a", "b"]  # run 2: captured, launched
    stream.log.clear()
    capture.run(Tracker())
    assert stream.log == ["launch", "a", "b"]  # later runs: one launch
    assert capture.fallback is None


def test_allocations_while_capturing_come_from_the_graphs_own_pool():
    stream = FakeStream()
    log = []

    class Routed:
        def __enter__(self):
            log.append(("in", stream.capturing))

        def __exit__(self, *a):
            log.append(("out", stream.capturing))
    pool = object()
    capture = graph.Capture(calls(stream, ["a"]), stream, ["matmul"],
                            memory=lambda: (pool, Routed()))
    capture.run(Tracker())
    assert log == [] and capture.pool is None  # the warm-up allocates as usual
    capture.run(Tracker())
    # Routed before the capture began and until it ended; the pool is kept with the graph.
    assert log == [("in", False), ("out", False)] and capture.pool is pool
    assert stream.log[-4:] == ["begin", "end", "launch", "a"]


def test_a_call_that_cannot_be_captured_falls_back_with_one_warning():
    graph._WARNED.clear()
    stream = FakeStream()
    seq = calls(stream, ["a", "b", "c"], fail="b")
    capture = graph.Capture(seq, stream, ["matmul", "gather", "add"])
    capture.run(Tracker())
    stream.log.clear()
    with pytest.warns(graph.GraphCaptureWarning, match="gather cannot be captured.*not permitted"):
        capture.run(Tracker())
    # Capture mode was left, and the step ran op by op: nothing ran while capturing.
    assert stream.log == ["begin", "end", "a", "b", "c"] and not stream.capturing
    assert capture.fallback[0] == "gather"
    stream.log.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        capture.run(Tracker())  # no capture again, no second warning
        other = graph.Capture(calls(stream, ["a", "b"], fail="b"), stream, ["matmul", "gather"])
        other.run(Tracker())
        with pytest.warns(graph.GraphCaptureWarning):  # a new cause warns once more
            pass_ = graph.Capture(calls(stream, ["x"], fail="x"), stream, ["softmax"])
            pass_.run(Tracker())
            pass_.run(Tracker())
    assert stream.log[:3] == ["a", "b", "c"]


def test_an_invalidated_capture_falls_back_and_names_no_op():
    graph._WARNED.clear()
    stream = FakeStream(invalidate=True)
    capture = graph.Capture(calls(stream, ["a"]), stream, ["matmul"])
    capture.run(Tracker())
    with pytest.warns(graph.GraphCaptureWarning, match="an unknown op.*Invalidated"):
        capture.run(Tracker())
    assert capture.graph is None and stream.log[-1] == "a"


def test_a_kernel_that_declares_itself_uncapturable_never_captures():
    graph._WARNED.clear()
    stream = FakeStream()
    with pytest.warns(graph.GraphCaptureWarning, match="apply_updates cannot be captured "
                                                       r"\(allreduce on the host\)"):
        capture = graph.Capture(calls(stream, ["a", "b"]), stream, ["matmul", "apply_updates"],
                                [(1, "allreduce on the host")])
    for _ in range(3):
        capture.run(Tracker())
    assert "begin" not in stream.log and stream.log.count("b") == 3


def test_the_failing_call_is_tracked_op_by_op():
    stream = FakeStream()
    tracker = Tracker()

    def boom():
        raise ValueError("bad")
    capture = graph.Capture([(0, lambda: None), (1, boom)], stream, ["a", "b"])
    with pytest.raises(ValueError):
        capture.run(tracker)
    assert tracker.at == 1
