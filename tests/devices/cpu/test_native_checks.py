"""paddle._C checks what it is given, itself: the crashes and silent garbage found by calling
it directly (issue 10, finding 4), each probed in a fresh interpreter so that a crash fails
the test instead of ending the test run."""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import paddle as pd

ROOT = str(Path(pd.__file__).resolve().parent.parent)


def run_fresh(code, env=None):
    """Runs code in a new interpreter (after PRELUDE); returns its stdout. A death by a
    signal or any error fails the test with the child's stderr."""
    full = PRELUDE + textwrap.dedent(code)
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    environ.update(env or {})
    # From ROOT: `python -c` puts the working directory first on sys.path, and from a
    # checkout's root that is the uncompiled source tree.
    done = subprocess.run([sys.executable, "-c", full], capture_output=True, text=True,
                          env=environ, timeout=300, cwd=ROOT)
    assert done.returncode == 0, (f"the child ended with status {done.returncode} "
                                  f"(negative: killed by that signal):\n{done.stderr[-3000:]}")
    return done.stdout


# What the children start with; raises(): the call must raise `kind` with a message
# matching `pattern`.
PRELUDE = """
import re
import numpy as np
import paddle as pd
def raises(kind, pattern, fn, *args):
    try:
        fn(*args)
    except kind as e:
        assert re.search(pattern, str(e)), f"{type(e).__name__}: {e}"
        return
    raise AssertionError(f"{fn.__name__} accepted the call")
"""


def test_a_spec_whose_three_times_rank_wraps_32_bits_is_refused():
    # int(p[0]) * 3 + 3 wrapped to 5 in int arithmetic: 5 values passed for rank 0x55555556,
    # and the copy read shapes and strides far past the spec (SIGSEGV).
    out = run_fresh("""
        spec = np.array([0x55555556, 1, 1, 1, 0], np.int64)
        raises(ValueError, r"^strided_copy: argument 'spec' declares rank 1431655766, "
                           r"expected 1 to 64", pd._C.strided_copy,
               np.ones(4, np.float32), np.ones(4, np.float32), spec)
        spec = np.array([2**32 + 1, 4, 1, 1, 0, 0], np.int64)  # int(p[0]) truncated to 1
        raises(ValueError, r"declares rank 4294967297", pd._C.strided_copy,
               np.ones(4, np.float32), np.ones(4, np.float32), spec)
        print("ok")
    """)
    assert out == "ok\n"


@pytest.mark.parametrize("fn,layout", [
    ("binary", [0x55555556, 1, 1]),   # 1 + rank * 3 wraps to 3
    ("where", [0x40000000]),          # 1 + rank * 4 wraps to 1
    ("compare", [2**32 + 1, 4, 1, 1]),
])
def test_a_layout_whose_rank_wraps_32_bits_is_refused(fn, layout):
    out = run_fresh(f"""
        a = np.ones(4, np.float32)
        args = {{"binary": (0, a, a, a.copy()), "compare": (0, a, a, np.ones(4, bool)),
                 "where": (np.ones(4, bool), a, a, a.copy())}}["{fn}"]
        raises(ValueError, r"^{fn}: argument 'layout' declares rank", pd._C.{fn}, *args,
               np.array({layout}, np.int64))
        print("ok")
    """)
    assert out == "ok\n"


@pytest.mark.parametrize("call", [
    "pd._C.strided_copy(src, dst, np.array([1, 4, 1, 1, 0, 0], np.int64))",
    "pd._C.gather(src.reshape(1, 4, 1), np.zeros(2, np.int64), dst[:2].reshape(1, 2, 1), 1, 4, 1)",
    "pd._C.embedding(np.zeros(2, np.int64), src.reshape(4, 1), dst[:2].reshape(2, 1))",
    "pd._C.fill(dst, 1.0)",
    "pd._C.cast(src, dst)",
])
def test_object_arrays_are_refused(call):
    # Their PyObject pointers were copied without reference counts: the objects were freed
    # while the copy still pointed at them (use after free).
    out = run_fresh(f"""
        src = np.array([object() for _ in range(4)], object)
        dst = np.empty(4, object)
        raises(TypeError, r"argument '\\w+' expected an array of bool, int32, int64, float32 or "
                          r"float64 in native byte order, received dtype object",
               lambda: {call})
        del src
        import gc; gc.collect()
        print(all(v is None for v in dst))
    """)
    assert out == "True\n"


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i8", "float16", "uint8", "int8", "uint64",
                                   "complex64", "longdouble", "S4", "datetime64[s]"])
def test_other_dtypes_and_byte_orders_are_refused(dtype):
    # Big-endian float32 has float32's type number: unary(neg) of [0, 1, 2, 3] gave
    # [-0, -4.6e-41, -8.97e-44, -2.3e-41].
    x = np.zeros(4, dtype)
    with pytest.raises(TypeError, match=rf"^unary: argument 'x' expected an array of bool, "
                                        rf"int32, int64, float32 or float64 in native byte "
                                        rf"order, received dtype {re.escape(str(np.dtype(dtype)))}$"):
        pd._C.unary(0, x, np.empty(4, np.float32))
    with pytest.raises(TypeError, match=r"^binary: argument 'b' expected an array"):
        pd._C.binary(0, np.ones(4, np.float32), x, np.empty(4, np.float32),
                     np.array([1, 4, 1, 1], np.int64))


def test_operands_of_another_supported_dtype_are_refused():
    with pytest.raises(TypeError, match=r"^binary: argument 'b' expected dtype float32, "
                                        r"received float64$"):
        pd._C.binary(0, np.ones(4, np.float32), np.ones(4), np.empty(4, np.float32),
                     np.array([1, 4, 1, 1], np.int64))


def test_an_optimizer_slot_on_read_only_memory_is_refused(tmp_path):
    # The slots were checked as inputs but written in place: a read-only memmap segfaulted
    # adam, and a bytes object's buffer was changed under Python's feet.
    out = run_fresh(f"""
        path = {str(tmp_path / "m.bin")!r}
        np.zeros(4, np.float32).tofile(path)
        ones = lambda: [np.ones(4, np.float32)]
        m = np.memmap(path, np.float32, "r", shape=(4,))
        raises(ValueError, r"^adam: argument 'm\\[0\\]' is read-only", pd._C.adam, ones(), ones(),
               [m], [np.zeros(4, np.float32)], [], 0.1, 0.9, 0.999, 1e-7, 1.0, 0.0)
        raw = bytes(16)
        v = np.frombuffer(raw, np.float32)
        raises(ValueError, r"^adam: argument 'v\\[0\\]' is read-only", pd._C.adam, ones(), ones(),
               [np.zeros(4, np.float32)], [v], [], 0.1, 0.9, 0.999, 1e-7, 1.0, 0.0)
        assert raw == bytes(16)
        raises(ValueError, r"^adam: argument 'v_hat\\[0\\]' is read-only", pd._C.adam, ones(),
               ones(), [np.zeros(4, np.float32)], [np.zeros(4, np.float32)],
               [np.frombuffer(raw, np.float32)], 0.1, 0.9, 0.999, 1e-7, 1.0, 0.0, True)
        raises(ValueError, r"^adam: argument 'v_hat' has 0 arrays", pd._C.adam, ones(), ones(),
               [np.zeros(4, np.float32)], [np.zeros(4, np.float32)], [], 0.1, 0.9, 0.999, 1e-7,
               1.0, 0.0, True)
        ro = np.zeros(4, np.float32); ro.flags.writeable = False
        raises(ValueError, r"^sgd: argument 'velocity\\[0\\]' is read-only", pd._C.sgd,
               ones(), ones(), [ro], 0.1, 0.9, False)
        raises(ValueError, r"^rmsprop: argument 'ms\\[0\\]' is read-only", pd._C.rmsprop,
               ones(), ones(), [ro], [ro], [ro], 0.1, 0.9, 0.0, 1e-7, False)
        raises(ValueError, r"^adamax: argument 'u\\[0\\]' is read-only", pd._C.adamax,
               ones(), ones(), [np.zeros(4, np.float32)], [ro], 0.1, 0.9, 0.999, 1e-7, 1.0)
        raises(ValueError, r"^decay_weights: argument 'params\\[0\\]' is read-only",
               pd._C.decay_weights, [ro], 0.1)
        raises(ValueError, r"^adagrad: argument 'acc\\[0\\]' is read-only", pd._C.adagrad,
               ones(), ones(), [ro], 0.1, 1e-7)
        print("ok")
    """)
    assert out == "ok\n"


def test_batch_norm_moving_statistics_are_written_only_when_writable():
    x, c = np.ones((2, 3, 1), np.float32), np.ones(3, np.float32)
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    outs = [np.empty((2, 3, 1), np.float32), np.empty(3, np.float32), np.empty(3, np.float32)]
    with pytest.raises(ValueError, match=r"^batch_norm: argument 'moving_mean' is read-only"):
        pd._C.batch_norm(x, c, c, ro, c.copy(), *outs, 2, 3, 1, 0.9, 1e-3, True)
    # Inference only reads them.
    pd._C.batch_norm(x, c, c, ro, c.copy(), *outs, 2, 3, 1, 0.9, 1e-3, False)


@pytest.mark.parametrize("name,make", [
    ("non-contiguous", lambda: np.ones(8, np.float32)[::2]),
    ("misaligned", lambda: np.frombuffer(bytearray(17), np.float32, 4, offset=1)),
])
def test_arrays_the_kernels_cannot_index_flat_are_refused(name, make):
    reason = {"non-contiguous": "is not C-contiguous", "misaligned": "is not aligned"}[name]
    with pytest.raises(ValueError, match=rf"^unary: argument 'out' {reason}"):
        pd._C.unary(0, np.ones(4, np.float32), make())


def test_array_arguments_must_be_arrays():
    # A list was converted to a temporary array: an output written there was lost.
    with pytest.raises(TypeError, match="incompatible function arguments"):
        pd._C.unary(0, np.ones(4, np.float32), [0.0] * 4)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        pd._C.fill(None, 1.0)


def test_thread_counts_are_capped():
    # set_omp_threads(100000) was accepted; the next large kernel died creating threads.
    limit = pd._C.thread_limit()
    assert 8 <= limit <= 1024
    for bad in (0, -1, limit + 1, 100000):
        with pytest.raises(ValueError, match=rf"^set_omp_threads: expected n from 1 to {limit} "
                                             rf"\(4 per hardware thread, at least 8, at most "
                                             rf"1024\), received {bad}$"):
            pd._C.set_omp_threads(bad)
    out = run_fresh("""
        pd._C.set_omp_threads(pd._C.thread_limit())
        x = np.ones(1 << 20, np.float32)
        y = np.empty_like(x)
        pd._C.unary(2, x, y)
        print(pd._C.omp_threads() == pd._C.thread_limit(), np.allclose(y, np.e))
    """)
    assert out == "True True\n"


def test_a_huge_omp_num_threads_is_capped_in_the_kernels():
    # The setting is per thread and comes from the environment too: kernels cap it themselves.
    out = run_fresh("""
        x = np.ones(1 << 20, np.float32)
        y = np.empty_like(x)
        pd._C.unary(2, x, y)
        print(pd._C.omp_threads() == pd._C.thread_limit())
    """, env={"OMP_NUM_THREADS": "100000"})
    assert out == "True\n"


def test_an_unknown_op_code_is_refused_before_the_parallel_region():
    # unary threw 'unknown op code' inside its OpenMP region: std::terminate (SIGABRT).
    out = run_fresh("""
        x = np.ones(1 << 20, np.float32)
        for fn, args in [(pd._C.unary, (x, np.empty_like(x))),
                         (pd._C.reduce, (x, np.empty(1, np.float32), 1, 1 << 20, 1, 1.0))]:
            raises(ValueError, r"unknown op code 99, expected 0 to", fn, 99, *args)
        lay = np.array([1, 1 << 20, 1, 1], np.int64)
        for fn, out in [(pd._C.binary, np.empty_like(x)), (pd._C.compare, np.empty(x.size, bool))]:
            raises(ValueError, r"unknown op code -1, expected 0 to", fn, -1, x, x, out, lay)
        print("ok")
    """)
    assert out == "ok\n"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2.0**63, -2.0**63 - 4096])
def test_fill_refuses_a_value_an_integer_array_cannot_hold(value):
    with pytest.raises(ValueError, match=r"^fill: argument 'value' .* does not fit in int64"):
        pd._C.fill(np.zeros(3, np.int64), value)


def test_fill_stores_a_bool_as_0_or_1():
    b = np.zeros(3, np.bool_)
    pd._C.fill(b, 2.5)
    assert b.view(np.uint8).tolist() == [1, 1, 1]


def test_rnn_refuses_an_unknown_kind_naming_the_function():
    x = np.ones((1, 1, 1), np.float32)
    with pytest.raises(ValueError, match=r"^rnn_forward: argument 'kind' expected 0 \(LSTM\), "
                                         r"1 or 2 \(GRU\), received 7"):
        pd._C.rnn_forward(7, x, x, x, x, x, x, x, x, x, x, x)
