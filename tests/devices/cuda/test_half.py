"""Half precision on the CUDA backend (issue 27 item 4): products through cuBLAS with half
operands and float32 accumulation (CUBLAS_COMPUTE_32F), elementwise kernels in the half
type, the other kernels on float32 scratch buffers (reductions accumulate in float32), and
a GPU that cannot compute a half type refused with the device, the op and what it needs.
Checked on the simulated device, and on the real call's arguments through a stand-in
for the library."""
import ctypes
import types

import numpy as np
import pytest

import paddle as pd
from paddle.devices import cpu, cuda
from paddle.devices.cuda import cublas, gemm
from paddle.devices.cuda.table import HALF_NATIVE

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("dtype, code", [(np.dtype(np.float16), cublas.CUDA_R_16F),
                                         (BF16, cublas.CUDA_R_16BF)])
def test_a_half_product_is_one_gemm_with_float32_accumulation(dtype, code):
    a, b = _rand(2, 3, 40), _rand(40, 5, seed=1)
    x, w = pd.data("hx", (2, 3, 40)), pd.data("hw", (40, 5))
    y = pd.matmul(pd.cast(x, dtype.name), pd.cast(w, dtype.name))
    with cuda.simulated():
        got = pd.eval(y, {x: a, w: b}, device="gpu")
    assert got.dtype == dtype
    assert gemm._SIMULATED.types == (code, cublas.COMPUTE_32F)
    a16, b16 = a.astype(dtype).astype(np.float32), b.astype(dtype).astype(np.float32)
    np.testing.assert_array_equal(got, (a16 @ b16).astype(dtype))  # rounded once
    np.testing.assert_array_equal(pd.eval(y, {x: a, w: b}), got)  # the CPU's, exactly


def test_the_real_binding_gets_half_types_and_compute_32f():
    calls = []

    def gemm_ex(*args):
        calls.append(args)
        return 0
    lib = cublas.Cublas.__new__(cublas.Cublas)
    lib.lib = types.SimpleNamespace(cublasGemmStridedBatchedEx=gemm_ex)
    alpha = ctypes.c_float(1.0)
    for dtype, code in ((np.float16, cublas.CUDA_R_16F), (BF16, cublas.CUDA_R_16BF),
                        (np.float32, cublas.CUDA_R_32F)):
        lib.gemm(None, cublas.OP_N, cublas.OP_N, 4, 2, 3, ctypes.byref(alpha), 1, 4, 0, 2, 3,
                 0, ctypes.byref(alpha), 3, 4, 0, 1, dtype=dtype)
        args = calls[-1]
        assert (args[8], args[12], args[17]) == (code, code, code)  # A, B, C
        assert args[21] == cublas.COMPUTE_32F  # float32 accumulation, float alpha/beta
    lib.lib = types.SimpleNamespace(cublasGemmStridedBatchedEx=lambda *a: 15)
    with pytest.raises(cublas.CublasError, match="matmul: cuBLAS cublasGemmStridedBatchedEx returned CUBLAS_STATUS_NOT_SUPPORTED"):
        lib.gemm(None, 0, 0, 1, 1, 1, None, 0, 1, 0, 0, 1, 0, None, 0, 1, 0, 1,
                 dtype=np.float16)


def test_which_kernels_compute_in_half_and_which_in_float32():
    for name in ("matmul", "add", "exp", "greater", "where", "cast"):
        assert cuda.KERNELS[name].native == HALF_NATIVE, name
    for name in ("sum", "softmax", "conv2d", "batch_norm"):
        if name in cuda.KERNELS:
            assert cuda.KERNELS[name].native == (), name
    assert cpu.KERNELS["matmul"].native == () and cpu.KERNELS["add"].native == ()


def test_elementwise_and_reductions_on_the_gpu_equal_the_cpus():
    a, b = _rand(6, 7), _rand(6, 7, seed=3)
    x, y = pd.data("ex", (6, 7)), pd.data("ey", (6, 7))
    for dtype in ("float16", "bfloat16"):
        hx, hy = pd.cast(x, dtype), pd.cast(y, dtype)
        outs = [hx * hy + 1.5, pd.exp(hx), pd.maximum(hx, hy), pd.sum(hx * hy, axis=1),
                pd.softmax(hx)]
        cpu_values = pd.eval(outs, {x: a, y: b})
        with cuda.simulated():
            gpu_values = pd.eval(outs, {x: a, y: b}, device="gpu")
        for c, g in zip(cpu_values, gpu_values):
            assert g.dtype.name == dtype
            np.testing.assert_array_equal(g, c)


def test_a_gpu_that_cannot_compute_a_half_type_says_so():
    device = types.SimpleNamespace(compute_capability="75")
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(Device=lambda i: device))
    gpu = cuda.CudaBackend(0, fake_cupy, None)
    with pytest.raises(TypeError, match=r"matmul: bfloat16 on gpu:0 needs a GPU of compute "
                                        r"capability 8\.0 or newer \(this one is 7\.5\)"):
        gpu.check_half("bfloat16", "matmul")
    gpu.check_half("float16", "matmul")  # 7.5 computes float16

    def no_bfloat16(shape, dtype):
        raise TypeError(f"Unsupported dtype {dtype}")
    device.compute_capability, gpu._capability = "90", None
    fake_cupy.empty = no_bfloat16
    with pytest.raises(TypeError, match=r"bfloat16 on gpu:0 needs CuPy >= 14 with ml_dtypes"):
        gpu.check_half("bfloat16", "exp")
