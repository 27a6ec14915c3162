"""The eager dispatch fast path (graph.EAGER_FAST, filled by paddle/lowlevel/eager.py):
an op function called on eager tensors whose op, attributes, shapes and dtypes were seen
before goes straight to a kernel that makes its output (csrc/fresh.h), skipping _pair,
graph.apply and eager.run. It must give exactly what the full path gives, keep every
check (errors name the user's line), step aside wherever the full path does something
else (a trace, a profile, another run mode, weak floats to settle), and stay right under
threads."""
import threading

import numpy as np
import pytest

import paddle as pd
from paddle import _C, ops
from paddle.devices.cpu.fresh import FRESH
from paddle.devices.cpu.layouts import layout
from paddle.devices.default import _DEVICE
from paddle.devices.mirrors import _MIRRORS
from paddle.devices.runner import RECORDERS
from paddle.errors import ShapeError
from paddle.lowlevel import eager, graph
from paddle.lowlevel.eager import EagerTensor
from paddle.lowlevel.ops import math as lowlevel_math


def _t(array, dtype=None):
    return ops.convert_to_tensor(array, dtype)


def _line_of(marker):
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if marker in text and "_line_of" not in text)


def _fast_keys(op_name):
    return [k for k in graph.EAGER_FAST if k[0].name == op_name]


@pytest.fixture(autouse=True)
def host_state():
    """The state in which the fast path runs, checked: no profile, no trace, no forced run
    mode, the CPU. Device copies of host arrays that earlier tests keep alive (the fast
    path steps aside while any exists) are set aside while a test runs."""
    state = {"profiles": list(RECORDERS), "tracing": eager._TRACING[0],
             "modes": list(graph._MODE), "device": _DEVICE[0]}
    assert state == {"profiles": [], "tracing": 0, "modes": [None], "device": "cpu"}, state
    saved = dict(_MIRRORS)
    _MIRRORS.clear()
    try:
        yield
    finally:
        _MIRRORS.update(saved)


@pytest.fixture
def no_full_path():
    """After calling it, an eager call that reaches eager.run fails: what runs took the
    fast path."""
    def refuse(*args, **kwargs):
        raise AssertionError("the call took the full path")

    def refusing():
        graph.EAGER_RUN[0] = refuse
    yield refusing
    graph.EAGER_RUN[0] = eager.run


# ---- the same values as the graph ---------------------------------------------------------

_RNG = np.random.default_rng(0)
_F = _RNG.normal(size=(3, 4)).astype(np.float32)
_CASES = [
    # (name, function of two operands, the operands as NumPy arrays)
    ("broadcast rows", lambda a, b: a + b, _F, _F[:1]),
    ("broadcast a vector", lambda a, b: a * b - a, _F, _F[0]),
    ("outer broadcast", lambda a, b: ops.maximum(a, b), _F[:, :1], _F[:1]),
    ("0-d with a vector", lambda a, b: a / b, np.array(2.5, np.float32), _F[0] + 3.0),
    ("two 0-d", lambda a, b: a - b, np.array(1.5, np.float64), np.array(0.25, np.float64)),
    ("float64", lambda a, b: a @ b, _F.astype(np.float64), _F.T.astype(np.float64)),
    ("int32", lambda a, b: a * b + a, np.arange(12, dtype=np.int32).reshape(3, 4),
     np.arange(4, dtype=np.int32)),
    ("int64", lambda a, b: ops.minimum(a, b), np.arange(6, dtype=np.int64),
     np.full(6, 3, np.int64)),
    ("bool compare", lambda a, b: ops.equal(a, b), np.array([True, False, True]),
     np.array([True, True, False])),
    ("comparisons", lambda a, b: (a > b), _F, _F[0]),
    ("matmul of vectors", lambda a, b: ops.matmul(a, b), _F[0], _F[1]),
    ("matmul batch", lambda a, b: ops.matmul(a, b), np.stack([_F, _F]), _F.T.copy()),
]


@pytest.mark.parametrize("name, make, x, y", _CASES, ids=[c[0] for c in _CASES])
def test_fast_calls_give_what_the_graph_gives(name, make, x, y):
    a_in = pd.data("a", shape=x.shape, dtype=x.dtype.name)
    b_in = pd.data("b", shape=y.shape, dtype=y.dtype.name)
    want = pd.eval(make(a_in, b_in), {a_in: x, b_in: y})
    a, b = _t(x, x.dtype.name), _t(y, y.dtype.name)
    results = [make(a, b) for _ in range(4)]  # the first through the full path, then fast
    for got in results:
        assert isinstance(got, EagerTensor)
        assert got.dtype == want.dtype.name and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
        assert not np.asarray(got).flags.writeable
    arrays = [np.asarray(r) for r in results]
    assert not any(np.shares_memory(p, q) for p in arrays for q in arrays if p is not q)


def test_the_usual_calls_are_in_the_fast_table_and_skip_the_full_path(no_full_path):
    a, b = _t(np.ones(8, np.float32)), _t(np.arange(8, dtype=np.float32))
    m = _t(np.eye(4, dtype=np.float32))
    calls = [lambda: a + b, lambda: a * 2.0, lambda: 3 - b, lambda: ops.sum(b),
             lambda: ops.mean(b), lambda: ops.sum(m, axis=1), lambda: pd.sum(b),
             lambda: ops.matmul(m, m), lambda: m @ m, lambda: -a, lambda: ops.exp(b),
             lambda: a == b, lambda: a < b, lambda: a != b]
    want = [f().numpy() for f in calls]  # seen once, through the full path
    for name in ("add", "mul", "sub", "sum", "matmul", "neg", "exp", "equal", "less"):
        assert _fast_keys(name), name
    no_full_path()
    for f, w in zip(calls, want):
        np.testing.assert_array_equal(f().numpy(), w)


def test_inputs_are_left_as_they_were_and_read_only_arrays_are_fine():
    x = np.arange(6.0, dtype=np.float32)
    x.flags.writeable = False
    a = _t(x)
    for _ in range(3):
        np.testing.assert_array_equal((a + a).numpy(), x * 2)
    np.testing.assert_array_equal(a.numpy(), np.arange(6.0))
    np.testing.assert_array_equal(x, np.arange(6.0))


def test_non_contiguous_numpy_inputs_are_read_in_their_own_order():
    x = np.arange(24.0, dtype=np.float32).reshape(4, 6)
    for view in (x.T, x[:, ::2], x[::-1]):
        t = _t(view)
        for _ in range(3):
            np.testing.assert_array_equal((t * t).numpy(), view * view)
            np.testing.assert_array_equal(ops.sum(t, axis=0).numpy(), view.sum(axis=0))
            # a NumPy operand goes through the full path: a constant of its values
            np.testing.assert_array_equal((t + view).numpy(), view + view)


# ---- Python numbers ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_python_numbers_take_the_tensors_dtype_as_the_graph_does(dtype):
    x = np.arange(1, 5).astype(dtype)
    v = pd.data("v", shape=[4], dtype=dtype)
    t = _t(x, dtype)
    cases = [lambda a: a + 2, lambda a: 3 * a, lambda a: a - 1, lambda a: 7 - a,
             lambda a: ops.maximum(a, 2), lambda a: a > 2]
    if dtype.startswith("float"):
        cases += [lambda a: a * 0.5, lambda a: 1.5 / a, lambda a: a ** 2.0]
    for make in cases:
        want = pd.eval(make(v), {v: x})
        for _ in range(3):
            got = make(t)
            assert got.dtype == want.dtype.name
            np.testing.assert_array_equal(got.numpy(), want)


def test_a_float_beside_integers_is_refused_every_time_at_the_users_line():
    t = _t(np.arange(3, dtype=np.int32), "int32")
    t + 1  # cached: int32 with an int
    messages = []
    for _ in range(3):
        with pytest.raises(ShapeError, match="dtypes differ") as info:
            t + 1.5  # line: int-plus-float
        messages.append(str(info.value))
    line = _line_of("# line: int-plus-float")
    assert all(f"(at test_eager_dispatch.py:{line})" in m for m in messages)


def test_minus_zero_and_nan_keep_their_own_values():
    t = _t(np.ones(3, np.float32))
    for _ in range(3):
        assert np.signbit((t * -0.0).numpy()).all()
        assert not np.signbit((t * 0.0).numpy()).any()
        assert np.isnan((t + float("nan")).numpy()).all()
        assert ((t + 2.0).numpy() == 3.0).all()


def test_numbers_out_of_the_tensors_range_are_refused_every_time():
    t = _t(np.arange(3, dtype=np.int32), "int32")
    for _ in range(3):
        with pytest.raises(ValueError, match="outside the int32 range"):
            t + 2 ** 40
    f = _t(np.ones(2, np.float32))
    for _ in range(2):
        with pytest.raises(ValueError, match="outside the float32 range"):
            f * 1e300


def test_the_constants_of_numbers_are_bounded(monkeypatch):
    monkeypatch.setattr(lowlevel_math, "_SCALARS", {})
    monkeypatch.setattr(lowlevel_math, "MAX_SCALARS", 5)
    t = _t(np.zeros(2, np.float32))
    for k in range(20):
        assert ((t + float(k)).numpy() == k).all()
    assert len(lowlevel_math._SCALARS) == 5


# ---- weak floats ------------------------------------------------------------------------------

def test_weak_floats_settle_as_on_the_full_path():
    weak64 = _t(np.ones(3))  # float64, weak: takes the other operand's float dtype
    strong32 = _t(np.full(3, 2.0, np.float32), "float32")
    weak32 = _t(np.ones(3, np.float32))
    for _ in range(3):
        got = weak64 + strong32
        assert got.dtype == "float32" and not got._weak
        np.testing.assert_array_equal(got.numpy(), np.full(3, 3.0))
        both = weak64 + weak64
        assert both.dtype == "float64" and both._weak
        mixed = weak32 + strong32
        assert mixed.dtype == "float32" and not mixed._weak
        assert (weak32 * 2.0)._weak is False  # a number's constant is not weak
        assert ops.sum(weak64)._weak and ops.exp(weak32)._weak


# ---- what the fast path steps aside for ---------------------------------------------------------

def test_inside_a_trace_ops_on_tensors_build_graph_nodes():
    a = _t(np.ones(3, np.float32))
    for _ in range(2):
        a + a, ops.sum(a), a * 2.0
    with eager.tracing():
        nodes = [a + a, ops.sum(a), a * 2.0, ops.matmul(ops.reshape(a, (1, 3)),
                                                        ops.reshape(a, (3, 1)))]
    assert all(type(v) is pd.Variable and v.kind == "op" for v in nodes)
    assert [float(v) for v in (pd.eval(nodes[1]),)] == [3.0]


def test_a_profile_sees_the_kernels_of_cached_calls():
    a = _t(np.ones(4, np.float32))
    for _ in range(3):
        a + a
    with pd.profiler.profile() as prof:
        np.testing.assert_array_equal((a + a).numpy(), np.full(4, 2.0))
    assert "add" in {e.op for e in prof.events}


def test_each_run_mode_has_its_own_entry():
    from paddle.lowlevel.graph import forced_mode
    x = _t(np.ones((2, 1000), np.float32))
    for _ in range(2):
        assert float(ops.sum(x)) == 2000.0
        with forced_mode(True):
            assert float(ops.sum(x)) == 2000.0
    key = next(k for k in graph.EAGER_FAST if k[0].name == "sum" and k[2] == (2, 1000))
    assert set(graph.EAGER_FAST[key].calls) == {None, True}


def test_half_floats_and_programs_of_several_calls_keep_the_full_path():
    h = _t(np.ones(4, np.float16), "float16")
    for _ in range(2):
        assert (h + h).dtype == "float16"
    assert not [k for k in _fast_keys("add") if k[3] == "float16"]
    x = _t(np.ones((2, 3, 4), np.float32))
    for _ in range(2):
        assert ops.sum(x, axis=(0, 2)).numpy().tolist() == [8.0, 8.0, 8.0]
    assert not [k for k in _fast_keys("sum") if k[2] == (2, 3, 4) and
                k[1][0][2] == (0, 2)]


# ---- errors on cached keys ------------------------------------------------------------------

def test_shape_errors_beside_cached_calls_name_the_users_line():
    a, m = _t(np.ones(8, np.float32)), _t(np.ones((4, 4), np.float32))
    for _ in range(3):
        a + a, ops.matmul(m, m), ops.sum(a)
    with pytest.raises(ShapeError) as info:
        a + _t(np.ones(3, np.float32))  # line: add-error
    assert f"(at test_eager_dispatch.py:{_line_of('# line: add-error')})" in str(info.value)
    with pytest.raises(ShapeError) as info:
        ops.matmul(m, _t(np.ones((3, 2), np.float32)))  # line: matmul-error
    assert f"(at test_eager_dispatch.py:{_line_of('# line: matmul-error')})" in str(info.value)
    with pytest.raises(ShapeError) as info:
        ops.sum(a, axis=1)  # line: sum-error
    assert f"test_eager_dispatch.py:{_line_of('# line: sum-error')}" in str(info.value)
    with pytest.raises(TypeError, match="expected numeric inputs, received bool"):
        b = _t(np.ones(2, bool))
        b + b


# ---- threads ------------------------------------------------------------------------------------

def test_threads_on_the_fast_path_get_their_own_results():
    errors, rounds = [], 2000

    def hammer(value, shape):
        try:
            x = _t(np.full(shape, value, np.float32))
            m = _t(np.full((3, 3), value, np.float32))
            for i in range(rounds):
                y = x * 2.0 + x
                if not (y.numpy() == 3 * value).all():
                    errors.append((value, i, y.numpy()))
                    return
                if float(ops.sum(y)) != 3 * value * np.prod(shape):
                    errors.append((value, i, "sum"))
                    return
                if not (ops.matmul(m, m).numpy() == 3 * value * value).all():
                    errors.append((value, i, "matmul"))
                    return
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append((value, repr(e)))

    threads = [threading.Thread(target=hammer, args=(v, s)) for v, s in
               [(1.0, (8,)), (2.0, (8,)), (3.0, (5, 4)), (4.0, (70_000,))]]  # one big: no GIL
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# ---- the kernels that make their output (csrc/fresh.h) -----------------------------------------

def test_fresh_kernels_compute_what_their_bindings_do():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b = np.full(3, 2.0, np.float32)
    out = np.empty_like(a)
    spec = layout((2, 3), (2, 3), (3,))
    _C.binary(2, a, b, out, spec)  # code 2: mul
    got = FRESH[_C.binary](out, 2, a, b, spec)
    np.testing.assert_array_equal(got, out)
    assert got.flags.c_contiguous and not got.flags.writeable and got.base is None
    total = FRESH[_C.reduce](np.empty((), np.float64), 0, a.astype(np.float64), 1, 6, 1, 1.0)
    assert total.shape == () and float(total) == 15.0
    empty = FRESH[_C.reduce](np.empty(2, np.float32), 0, np.empty(0, np.float32), 2, 0, 1, 1.0)
    assert empty.tolist() == [0.0, 0.0]  # a sum over an empty axis writes its zeros
    like = np.broadcast_to(np.empty((), np.float32), (2, 2))  # a template of one element
    spec = np.array([1, 2, 2, 0, 0, 0, 0, 0], np.int64)  # K = 0: a product of nothing
    for _ in range(3):
        z = FRESH[_C.matmul](like, np.empty((2, 0), np.float32), np.empty((0, 2), np.float32),
                             spec)
        assert z.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_fresh_kernels_check_their_arguments():
    a = np.ones(3, np.float32)
    spec = layout((3,), (3,), (3,))
    binary = FRESH[_C.binary]
    with pytest.raises(TypeError, match="binary_fresh: expected 5 arguments, received 4"):
        binary(a, 0, a, a)
    with pytest.raises(TypeError, match="binary_fresh: arguments of the wrong types"):
        binary(a, 0, a, [1.0, 2.0, 3.0], spec)  # a list is not converted
    with pytest.raises(TypeError, match="argument 'like' expected an array of bool"):
        binary(np.empty(3, object), 0, a, a, spec)
    with pytest.raises(TypeError, match="argument 'like' expected a NumPy array"):
        binary((3,), 0, a, a, spec)
    with pytest.raises(ValueError, match="binary: unknown op code 99"):
        binary(a, 99, a, a, spec)
    with pytest.raises(ValueError, match="argument 'out' expected 3 elements, received 2"):
        binary(np.empty(2, np.float32), 0, a, a, spec)
    with pytest.raises(TypeError, match="argument 'b' expected dtype float32"):
        binary(a, 0, a, a.astype(np.float64), spec)
    with pytest.raises(ValueError, match="layout exceeds operand"):
        binary(a, 0, a, a[:2], spec)


def test_on_the_simulated_gpu_cached_cpu_calls_step_aside():
    from paddle.devices import cuda
    a = _t(np.arange(4.0, dtype=np.float32), "float32")
    for _ in range(2):
        a + a
    key = next(k for k in graph.EAGER_FAST if k[0].name == "add" and k[2] == (4,)
               and k[3] == "float32" and k[4] == (4,))
    before = pd.get_device()
    with cuda.simulated():
        pd.set_device("gpu")
        try:
            assert graph.EAGER_FAST[key](a, a) is None  # another device: the full path
            for _ in range(2):
                np.testing.assert_array_equal((a + a).numpy(), [0.0, 2.0, 4.0, 6.0])
                np.testing.assert_array_equal((a * 2.0 - 1.0).numpy(), [-1.0, 1.0, 3.0, 5.0])
        finally:
            pd.set_device(before)
    np.testing.assert_array_equal((a + a).numpy(), [0.0, 2.0, 4.0, 6.0])
