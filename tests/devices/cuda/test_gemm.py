"""Products of the CUDA backend (paddle/devices/cuda/gemm.py): every layout a kernel hands
over (transposed, sliced, reshaped, broadcast views; outputs that are views) becomes the
right cuBLAS call, checked on the simulated cuBLAS, which runs the same arguments on NumPy
and refuses a leading dimension cuBLAS would refuse or a read outside the arrays; no
product anywhere in the backend goes through CuPy's cuBLAS wrappers (which cannot be
captured); on a GPU the same cases against NumPy, replayed from a CUDA graph."""
import types

import numpy as np
import pytest

import paddle as pd
from paddle.devices import cuda
from paddle.devices.cuda import cublas, gemm


def _rand(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _cases(xp, dtype):
    """(name, a, b, out) views, as the kernels hold them; out starts as NaN."""
    r = lambda *s: xp.asarray(_rand(*s, dtype=dtype, seed=len(s) + sum(s)))  # noqa: E731
    nan = lambda *s: xp.full(s, np.nan, dtype)  # noqa: E731
    big = r(7, 9)
    out_t = nan(5, 3)
    return [
        ("plain", r(3, 4), r(4, 5), nan(3, 5)),
        ("a transposed", r(4, 3).T, r(4, 5), nan(3, 5)),
        ("b transposed", r(3, 4), r(5, 4).T, nan(3, 5)),
        ("both transposed", r(4, 3).T, r(5, 4).T, nan(3, 5)),
        ("row slices (leading dimension > columns)", big[1:4, 2:6], big[2:6, 1:6], nan(3, 5)),
        ("a column (one row stride)", r(4, 1), r(1, 6), nan(4, 6)),
        ("a row times a matrix", r(1, 4), r(4, 2), nan(1, 2)),
        ("batched", r(2, 3, 4), r(2, 4, 5), nan(2, 3, 5)),
        ("batch against one matrix", r(2, 3, 4), r(4, 5), nan(2, 3, 5)),
        ("one matrix against a batch", r(3, 4), r(2, 4, 5), nan(2, 3, 5)),
        ("batched transposed", r(2, 4, 3).swapaxes(1, 2), r(2, 5, 4).swapaxes(1, 2),
         nan(2, 3, 5)),
        ("two broadcast batch axes (copied)", r(2, 1, 3, 4), r(1, 3, 4, 5), nan(2, 3, 3, 5)),
        ("every other column (copied)", r(3, 8)[:, ::2], r(4, 5), nan(3, 5)),
        ("reversed rows (copied)", r(3, 4)[::-1], r(4, 5), nan(3, 5)),
        ("output transposed (written through a buffer)", r(3, 4), r(4, 5), out_t.T),
        ("output row slice", r(2, 4), r(4, 5), nan(4, 7)[1:3, 1:6]),
        ("empty product (K = 0)", r(3, 0), r(0, 2), nan(3, 2)),
        ("no rows", r(0, 4), r(4, 2), nan(0, 2)),
    ]


def _context(device, xp):
    return types.SimpleNamespace(
        xp=xp, device=device, node=None, training=False,
        empty=lambda shape, dtype: device.empty(tuple(shape), np.dtype(dtype), "test"))


def _expected(a, b, xp):
    if xp is np:
        return np.matmul(a, b)
    return np.matmul(xp.asnumpy(a), xp.asnumpy(b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_layout_gives_numpys_product_on_the_simulated_cublas(dtype):
    with cuda.simulated():
        ctx = _context(cuda.backend(0), np)
        for name, a, b, out in _cases(np, dtype):
            want = np.matmul(a, b)
            gemm.product(ctx, a, b, out)()
            np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5, err_msg=name)


def test_the_simulated_cublas_refuses_what_cublas_refuses():
    lib, a, b, c = cublas.SimulatedCublas(), np.ones(12), np.ones(12), np.empty(12)
    with pytest.raises(cublas.CublasError, match="CUBLAS_STATUS_INVALID_VALUE"):
        lib.gemm(None, cublas.OP_N, cublas.OP_N, 3, 4, 2, 1.0, a, 2, 0, b, 2, 0, 0.0, c, 3,
                 0, 1)  # lda 2 < m 3
    with pytest.raises(IndexError, match="outside its array"):
        lib.gemm(None, cublas.OP_N, cublas.OP_N, 3, 4, 2, 1.0, a, 3, 0, b, 2, 0, 0.0, c, 3,
                 6, 2)  # the second C matrix starts at element 6 and ends past 12
    with pytest.raises(IndexError, match="outside its array"):
        lib.gemm(None, cublas.OP_N, cublas.OP_N, 3, 4, 2, 1.0, a[8:], 3, 0, b, 2, 0, 0.0, c,
                 3, 0, 1)  # A's 6 elements from element 8 of 12


def test_a_failed_status_names_the_function_the_status_and_the_op():
    with pytest.raises(cublas.CublasError, match=r"dense \(built at m.py:3\): cuBLAS "
                       r"cublasGemmStridedBatchedEx returned CUBLAS_STATUS_NOT_SUPPORTED"):
        cublas.check_status(15, "cublasGemmStridedBatchedEx", "dense (built at m.py:3)")


def test_mismatched_operands_and_dtypes_are_refused_at_prepare():
    with cuda.simulated():
        ctx = _context(cuda.backend(0), np)
        with pytest.raises(ValueError, match=r"\(3, 4\) and \(5, 2\)"):
            gemm.product(ctx, np.ones((3, 4)), np.ones((5, 2)), np.empty((3, 2)))
        with pytest.raises(TypeError, match="float32 or float64"):
            gemm.product(ctx, np.ones((3, 4), np.int64), np.ones((4, 2), np.int64),
                         np.empty((3, 2), np.int64))


def _no_cupy_blas(monkeypatch):
    """Make every NumPy BLAS entry point the backend could reach through `xp` raise (on a
    GPU, `xp` is CuPy and these are CuPy's cuBLAS wrappers, which capture refuses)."""
    def refuse(*args, **kwargs):
        raise AssertionError("a product went through xp's BLAS wrapper, not gemm.product")
    for name in ("matmul", "dot", "tensordot", "einsum", "inner", "vdot"):
        monkeypatch.setattr(np, name, refuse)


def test_no_product_of_the_backend_calls_the_array_modules_blas(monkeypatch, simulated_gpu):
    from paddle.lowlevel.ops.conv import conv2d
    from paddle.lowlevel.ops.recurrent import gru, lstm
    rng = np.random.default_rng(0)
    c = lambda *shape: pd.constant(rng.standard_normal(shape) * 0.5)  # noqa: E731
    x = pd.data("gemm_x", shape=[None, 5, 6, 4])
    seq = pd.data("gemm_seq", shape=[None, 4, 3])
    shapes = [(3, 3, 4, 6), (3, 3, 3, 4), (1, 1, 4, 2)]
    filters = [pd.data(f"gemm_f{i}", shape=s) for i, s in enumerate(shapes)]
    h = pd.relu(conv2d(x, filters[0], padding="same"))
    h = conv2d(h, filters[1], strides=2, groups=2)  # grouped im2col products
    h = conv2d(h, filters[2])                       # pointwise: no columns
    dense = pd.fc(pd.reshape(h, [-1, 2 * 2 * 2]), size=3)
    lstm_out = lstm(seq, c(3, 20), c(5, 20), c(20), return_sequences=True)
    gru_out = gru(seq, c(3, 15), c(5, 15), c(2, 15), return_sequences=True)
    loss = (pd.sum(dense * dense) + pd.sum(pd.matmul(seq, seq, transpose_b=True)) +
            pd.sum(lstm_out * lstm_out) + pd.sum(gru_out * gru_out))
    targets = [loss] + pd.gradients(loss, [x, seq] + filters)
    feeds = {x: rng.standard_normal((2, 5, 6, 4)), seq: rng.standard_normal((2, 4, 3)),
             **{f: rng.standard_normal(s) * 0.5 for f, s in zip(filters, shapes)}}
    want = pd.eval(targets, feeds, device="cpu")
    calls = []
    real = gemm._SIMULATED.gemm
    monkeypatch.setattr(gemm._SIMULATED, "gemm",
                        lambda *a, **k: calls.append(k.get("where", a[-1])) or real(*a, **k))
    _no_cupy_blas(monkeypatch)
    got = pd.eval(targets, feeds, device="gpu")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
    ops = {where.split(" ")[0] for where in calls}
    assert {"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "matmul", "lstm",
            "lstm_grad", "gru", "gru_grad"} <= ops, ops


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_layout_matches_numpy_on_the_gpu_and_replays_from_a_graph(dtype):
    import cupy
    dev = cuda.backend(0)
    ctx = _context(dev, cupy)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    with dev.activated():
        cases = _cases(cupy, dtype)
        steps = [gemm.product(ctx, a, b, out) for _, a, b, out in cases]
        for (name, a, b, out), step in zip(cases, steps):
            step()
            np.testing.assert_allclose(out.get(), _expected(a, b, cupy), rtol=tol, atol=tol,
                                       err_msg=name)
        dev.stream.synchronize()
        for _, a, b, out in cases:
            out.fill(np.nan)
        dev.stream.begin_capture()
        for step in steps:
            step()
        replay = dev.stream.end_capture()
        for _, a, _, _ in cases:  # the graph reads the inputs' memory anew
            if a.size and a.base is None:
                a *= 2
        replay.launch(dev.stream)
        dev.stream.synchronize()
        for name, a, b, out in cases:
            np.testing.assert_allclose(out.get(), _expected(a, b, cupy), rtol=tol, atol=tol,
                                       err_msg=f"{name} (replayed)")


def test_a_gpu_product_keeps_its_buffers_alive(monkeypatch):
    """The cuBLAS call holds raw pointers: the step must hold the arrays behind them, or a
    buffer only the product reads is freed and its memory handed to another program (seen
    on an H200: two CNNs trained in turn, an illegal address in the second)."""
    import gc
    import weakref

    class FakeArray:
        dtype = np.dtype(np.float32)

        def __init__(self, ptr):
            self.data = types.SimpleNamespace(ptr=ptr)

    class FakeLibrary:
        calls = []

        def bind(self, device, stream, where):
            return "handle", lambda: None

        def gemm(self, *args):
            self.calls.append(args)

    library = FakeLibrary()
    monkeypatch.setattr(gemm, "_LIBRARY", [library])
    device = types.SimpleNamespace(simulated=False, index=0, stream=None, name="gpu:0")
    ctx = types.SimpleNamespace(device=device, node=None)
    arrays = [FakeArray(ptr) for ptr in (256, 512, 768)]
    alive = [weakref.ref(a) for a in arrays]
    step = gemm._call(ctx, cublas.OP_N, cublas.OP_N, 2, 3, 4, *arrays[:1], 2, 0, arrays[1],
                      4, 0, arrays[2], 2, 0, 1, "dense (built at m.py:1)")
    del arrays
    gc.collect()
    assert all(ref() is not None for ref in alive)
    step()
    assert [library.calls[0][i] for i in (7, 10, 14)] == [256, 512, 768]
