"""The fast path of eager calls (paddle/lowlevel/eager.py): a call seen before runs the
cached program's kernel on the inputs' own arrays. It must give what the program gives,
keep every error of the first call (located at the user's line), write nothing it was
given, stay right under threads, and keep memory bounded."""
import gc
import re
import threading
import tracemalloc

import numpy as np
import pytest

import paddle as pd
from paddle import devices, ops
from paddle.errors import ShapeError
from paddle.lowlevel import eager, eager_programs
from paddle.lowlevel.eager import EagerTensor


def _t(array):
    return ops.convert_to_tensor(array)


def _entry(op_name, attrs, *inputs):
    """The cached program of op `op_name` with these attributes on inputs of these shapes
    and dtypes, outside any forced mode, on the CPU (the key: op, attributes, mode,
    device, then each input's shape and dtype)."""
    specs = tuple(x for v in inputs for x in (v.shape, v.dtype))
    attrs_key = pd.lowlevel.graph.attrs_key(attrs) if attrs else ()
    found = [e for k, e in eager._PROGRAMS.items() if k[0].name == op_name and k[2] is None
             and k[3] is devices.CPU and k[1] == attrs_key and k[4:] == specs]
    assert len(found) == 1, found
    return found[0]


def _line_of(marker):
    """The line number of this file's line that holds `marker` (where an error points)."""
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if marker in text and "_line_of" not in text)


# ---- the kernel on the inputs' own arrays ---------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda a, b: a + b,
    lambda a, b: a * b - b,
    lambda a, b: ops.maximum(a, b) / (abs(b) + 1.0),
    lambda a, b: ops.matmul(a, ops.transpose(b)),
])
def test_cached_calls_give_what_the_graph_gives(make):
    rng = np.random.default_rng(0)
    x = pd.data("x", shape=[None, None])
    y = pd.data("y", shape=[None, None])
    graph = make(x, y)
    for shape in [(2, 4), (3, 3), (2, 4)]:  # new shapes, then one seen before
        a, b = (rng.normal(size=shape).astype(np.float32) for _ in range(2))
        want = pd.eval(graph, {x: a, y: b})
        for _ in range(3):
            got = make(_t(a), _t(b))
            assert isinstance(got, EagerTensor) and got.shape == want.shape
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_the_usual_ops_take_the_fast_path_and_leave_their_inputs_as_they_were():
    a = _t(np.arange(8.0, dtype=np.float32))
    m = _t(np.arange(16.0, dtype=np.float32).reshape(4, 4))
    for _ in range(2):
        np.testing.assert_array_equal((a + a).numpy(), np.arange(8.0) * 2)
        assert _entry("add", {}, a, a).rebound is not None
        assert float(ops.sum(a)) == 28.0
        assert _entry("sum", {"axis": (0,), "keepdims": False}, a).rebound is not None
        np.testing.assert_array_equal(ops.matmul(m, m).numpy(),
                                      np.arange(16.0).reshape(4, 4) @ np.arange(16.0).reshape(4, 4))
        flags = {"transpose_a": False, "transpose_b": False}
        assert _entry("matmul", flags, m, m).rebound is not None
    np.testing.assert_array_equal(a.numpy(), np.arange(8.0))
    assert not np.asarray(a).flags.writeable  # still the caller's read-only array
    out1, out2 = a + a, a + a
    assert not np.shares_memory(np.asarray(out1), np.asarray(out2))  # fresh outputs each call


def test_a_kernel_of_several_calls_runs_through_the_program_and_stays_right():
    # A reduction over two separate axis groups is two C++ calls: no single call to rebind.
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    for _ in range(3):
        got = ops.sum(_t(x), axis=(0, 2))
        np.testing.assert_array_equal(got.numpy(), x.sum(axis=(0, 2)))
    assert _entry("sum", {"axis": (0, 2), "keepdims": False}, _t(x)).rebound is None
    y = x + 1.0
    np.testing.assert_array_equal(ops.sum(_t(y), axis=(0, 2)).numpy(), y.sum(axis=(0, 2)))


def test_a_non_contiguous_array_is_made_contiguous_before_a_kernel_reads_it():
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    t = eager.tensor(x.T)  # a transposed view: kernels read memory in C order
    assert np.asarray(t).flags.c_contiguous
    for _ in range(2):
        np.testing.assert_array_equal((t + t).numpy(), x.T * 2)


# ---- errors on the cached path are the first call's ----------------------------------------

def _message(fn):
    with pytest.raises((ShapeError, TypeError)) as info:
        fn()
    return type(info.value), str(info.value)


def test_shape_and_dtype_errors_after_cached_calls_name_the_users_line():
    a, b = _t(np.ones(8, np.float32)), _t(np.ones(8, np.float32))
    for _ in range(3):
        a + b  # cached
    wrong_shape, wrong_dtype = _t(np.ones(3, np.float32)), _t(np.ones(8, np.int32))
    first = _message(lambda: a + wrong_shape)  # line: shape-error
    again = _message(lambda: a + wrong_shape)  # line: shape-again
    line, line_again = _line_of("# line: shape-error"), _line_of("# line: shape-again")
    assert first[0] is ShapeError and again[0] is ShapeError
    assert f"(at test_eager_fast_path.py:{line})" in first[1]
    assert again[1] == first[1].replace(f":{line})", f":{line_again})")
    kind, text = _message(lambda: a + wrong_dtype)  # line: dtype-error
    assert kind is ShapeError and "dtypes differ" in text  # (Op.fail: a ShapeError)
    assert f"(at test_eager_fast_path.py:{_line_of('# line: dtype-error')})" in text
    # The failures cached nothing: the good call still runs, the bad ones still fail.
    np.testing.assert_array_equal((a + b).numpy(), np.full(8, 2.0))
    with pytest.raises(ShapeError, match="dtypes differ"):
        a + wrong_dtype
    bools = _t(np.ones(8, bool))
    for _ in range(2):  # the dtype rule's own TypeError, on every call
        with pytest.raises(TypeError, match=r"add: expected numeric inputs, received bool "
                                            r"\(at test_eager_fast_path.py:\d+\)"):
            bools + bools


def test_a_matmul_shape_error_on_a_cached_op_names_the_users_line():
    m = _t(np.ones((4, 4), np.float32))
    ops.matmul(m, m)
    ops.matmul(m, m)
    with pytest.raises(ShapeError) as info:
        ops.matmul(m, _t(np.ones((3, 4), np.float32)))  # line: matmul-error
    assert re.search(rf"\(at test_eager_fast_path.py:{_line_of('# line: matmul-error')}\)",
                     str(info.value))


def test_a_kernels_error_at_run_time_names_the_op_and_the_users_line():
    x = _t(np.arange(3.0, dtype=np.float32))
    ops.take(x, _t(np.array([1])))
    with pytest.raises(IndexError) as info:
        ops.take(x, _t(np.array([5])))  # line: index-error
    text = str(info.value)
    assert "outside [-3, 3)" in text and "(in take_along_axis)" in text
    assert f"(at test_eager_fast_path.py:{_line_of('# line: index-error')})" in text


def test_string_inputs_are_refused_whatever_is_cached():
    a = _t(np.ones(2, np.float32))
    a + a
    with pytest.raises(TypeError, match="expected a Variable or numbers"):
        a + np.array(["x", "y"])


def test_no_frame_is_read_on_a_cached_call(monkeypatch):
    a = _t(np.ones(4, np.float32))
    a + a

    def refuse():
        raise AssertionError("the user's line was computed on a call that succeeded")
    monkeypatch.setattr(eager, "user_location", refuse)
    monkeypatch.setattr(pd.lowlevel.graph, "user_location", refuse)
    for _ in range(3):
        np.testing.assert_array_equal((a + a).numpy(), np.full(4, 2.0))


# ---- threads and memory ---------------------------------------------------------------------

def test_two_threads_adding_arrays_of_different_shapes_get_right_results():
    errors, rounds = [], 3000

    def hammer(shape, start):
        try:
            x = _t(np.full(shape, start, np.float32))
            one = _t(np.ones(shape, np.float32))
            for i in range(rounds):
                y = x + one
                if not (y.shape == shape and (y.numpy() == start + 1).all()):
                    errors.append((shape, i, y.numpy()))
                    return
                z = ops.sum(y)
                if float(z) != (start + 1) * np.prod(shape):
                    errors.append((shape, i, float(z)))
                    return
        except Exception as e:  # noqa: BLE001 (reported below, with the thread's shape)
            errors.append((shape, repr(e)))

    # Each thread its own shapes, and one shape shared by both (one cached program).
    threads = [threading.Thread(target=hammer, args=args)
               for args in [((8,), 1.0), ((3, 5), 2.0), ((16,), 3.0), ((16,), 5.0)]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_the_copying_path_is_right_under_threads():
    # sum over axes (0, 2): two C++ calls, run through the program's own buffers (locked).
    errors = []

    def hammer(value):
        x = _t(np.full((2, 3, 4), value, np.float32))
        for _ in range(1000):
            got = ops.sum(x, axis=(0, 2)).numpy()
            if not (got == value * 8).all():
                errors.append((value, got))
                return
    threads = [threading.Thread(target=hammer, args=(v,)) for v in (1.0, 2.0, 3.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_memory_stays_bounded_over_a_hundred_thousand_eager_calls():
    a, b = _t(np.ones(8, np.float32)), _t(np.ones(8, np.float32))
    dense = pd.layers.Dense(4)
    x = _t(np.ones((1, 4), np.float32))
    for _ in range(100):
        a + b
        dense(x)
    gc.collect()
    programs = len(eager._PROGRAMS)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for i in range(100_000):
            y = a + b
            if i % 10 == 0:
                dense(x)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert len(eager._PROGRAMS) == programs
    assert y.numpy().tolist() == [2.0] * 8
    assert grown < 200_000, grown


# ---- eager layer calls ------------------------------------------------------------------------

def test_an_eager_layer_call_checks_its_input_every_time_naming_the_users_line():
    dense = pd.layers.Dense(2)
    x = np.ones((1, 4), np.float32)
    for _ in range(3):
        assert dense(x).shape == (1, 2)
    with pytest.raises(ShapeError) as info:
        dense(np.ones((1, 3), np.float32))  # line: dense-error
    assert "expected the last axis of the input to be 4" in str(info.value)
    assert f"(at test_eager_fast_path.py:{_line_of('# line: dense-error')})" in str(info.value)


class _Penalized(pd.layers.Layer):
    def call(self, inputs):
        self.add_loss(ops.sum(inputs))
        return inputs * 2.0


class _Outer(pd.layers.Layer):
    def call(self, inputs):
        return inputs + 1.0


def test_losses_are_those_of_the_latest_outermost_call():
    inner = _Penalized()
    x = np.ones((1, 3), np.float32)
    for _ in range(3):
        inner(x)
        assert [float(v) for v in inner.losses] == [3.0]
    outer = _Outer()
    outer(x)
    assert outer.losses == []
    outer.inner = inner  # a layer holding losses of its own calls, attached later
    assert [float(v) for v in outer.losses] == [3.0]
    outer(x)  # an outermost call clears the losses of the layers inside it
    assert outer.losses == [] and inner.losses == []


def test_buffers_are_swapped_only_where_the_prepared_call_shows_them_all():
    from functools import partial
    from types import SimpleNamespace

    from paddle import _C
    from paddle.devices.cpu.layouts import layout

    a, b, out = (np.zeros(4, np.float32) for _ in range(3))
    spec = layout((4,), (4,), (4,))

    def program(*args):
        return SimpleNamespace(feeds=[a, b], results=[out],
                               compute=[partial(_C.binary, *args)])
    run = eager_programs._rebound(program(0, a, b, out, spec))  # code 0: add
    x, y = np.arange(4.0, dtype=np.float32), np.ones(4, np.float32)
    np.testing.assert_array_equal(run([x, y])[0], x + y)
    assert not out.any()  # the program's own buffer is left alone
    # A list holding a buffer, a view of one, an object: they may read the program's
    # buffers, so those programs keep running on them.
    assert eager_programs._rebound(program(0, a, b, out, [spec, a])) is None
    assert eager_programs._rebound(program(0, a, b, out, a[:2])) is None
    assert eager_programs._rebound(program(0, a, b, out, object())) is None
    twice = eager_programs._rebound(program(0, a, a, out, spec))  # one feed read twice, one unread
    np.testing.assert_array_equal(twice([x, y])[0], x + x)
    over = SimpleNamespace(feeds=[a, b], results=[a],  # the output written over a feed
                           compute=[partial(_C.binary, 0, a, b, a, spec)])
    assert eager_programs._rebound(over) is None
