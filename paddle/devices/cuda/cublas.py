"""cuBLAS called directly, so that matrix products can be captured in a CUDA graph.

CuPy's own cuBLAS wrappers refuse to run while a stream is capturing (CuPy 14:
`NotImplementedError: calling cuBLAS API during stream capture is currently unsupported`),
so a step with a product could never become one graph. paddle calls the library CuPy loaded
through ctypes instead, on a handle of its own per device, with a workspace of its own:
NVIDIA's guide for graph capture asks for `cublasSetWorkspace` after each
`cublasSetStream`, so that cuBLAS takes no memory of its own while it is captured.

One entry point, `Cublas.gemm` (`cublasGemmStridedBatchedEx`): every product of the CUDA
backend, batched and broadcast ones included, is one such call (float16 and bfloat16
operands with CUBLAS_COMPUTE_32F: tensor cores, float32 accumulation) (paddle/devices/cuda/gemm.py
lays the operands out for it). Every call's status is checked: an error raises naming the
function, the status and the op.

`SimulatedCublas` has the same interface on NumPy arrays: the simulated device runs it, so
CI checks the arguments paddle gives cuBLAS (layouts, leading dimensions, strides,
transposes) against what the product must be, without a GPU; it also refuses any call that
would read or write outside its arrays, as the GPU would fault.

Example:
    >>> import numpy as np
    >>> from paddle.devices.cuda.cublas import OP_N, SimulatedCublas
    >>> a, b, c = np.ones((2, 3)), np.ones((3, 4)), np.empty((2, 4))
    >>> lib = SimulatedCublas()  # c^T (4 x 2) = b^T (4 x 3) a^T (3 x 2), column-major
    >>> lib.gemm(None, OP_N, OP_N, 4, 2, 3, 1.0, b, 4, 0, a, 3, 0, 0.0, c, 4, 0, 1)
    >>> c.tolist()
    [[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]]
"""
import ctypes
import glob
import os

import numpy as np

from paddle.devices import half

OP_N, OP_T = 0, 1  # cublasOperation_t
WORKSPACE_BYTES = 32 << 20  # NVIDIA's recommendation for Hopper (4 MiB suffices before it)
_INT_MAX = (1 << 31) - 1

# cudaDataType_t and cublasComputeType_t values (library_types.h, cublas_api.h)
CUDA_R_32F, CUDA_R_64F, CUDA_R_16F, CUDA_R_16BF = 0, 1, 2, 14
COMPUTE_32F, COMPUTE_64F = 68, 70

# dtype -> (cudaDataType of the operands, cublasComputeType_t, ctypes type of alpha/beta).
# float32 computes in plain float32 (CUBLAS_COMPUTE_32F, no TF32), as the CPU does. The
# half types are read and written in half and accumulate in float32 (COMPUTE_32F, float
# alpha and beta): the tensor-core path of mixed precision, as Keras on JAX/XLA asks it.
TYPES = {np.dtype(np.float32): (CUDA_R_32F, COMPUTE_32F, ctypes.c_float),
         np.dtype(np.float64): (CUDA_R_64F, COMPUTE_64F, ctypes.c_double),
         np.dtype(np.float16): (CUDA_R_16F, COMPUTE_32F, ctypes.c_float)}
if half.bfloat16_available():
    TYPES[np.dtype("bfloat16")] = (CUDA_R_16BF, COMPUTE_32F, ctypes.c_float)
_ALGO_DEFAULT = -1  # CUBLAS_GEMM_DEFAULT

STATUS = {0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED",
          3: "CUBLAS_STATUS_ALLOC_FAILED", 7: "CUBLAS_STATUS_INVALID_VALUE",
          8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
          13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR",
          15: "CUBLAS_STATUS_NOT_SUPPORTED", 16: "CUBLAS_STATUS_LICENSE_ERROR"}


class CublasError(RuntimeError):
    """A cuBLAS call returned an error status."""


def check_status(status, function, where):
    """Raise CublasError naming `function`, the status and `where` unless status is 0."""
    if status != 0:
        raise CublasError(f"{where}: cuBLAS {function} returned {STATUS.get(status, 'status')} "
                          f"({status})")


def fits_int(*values):
    """Whether every value fits cuBLAS's 32-bit `int` arguments."""
    return all(0 <= v <= _INT_MAX for v in values)


def _loaded_path(stem):
    """The path of a shared library this process has loaded whose name starts with `stem`
    (Linux: /proc/self/maps), or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                path = line.split(maxsplit=5)[-1].strip()
                if os.path.basename(path).startswith(stem):
                    return path
    except OSError:
        pass
    return None


def library_path():
    """The libcublas that CuPy uses (loaded by CuPy first), else the one NVIDIA's
    path finder or the CUDA toolkit provides. RuntimeError saying what to install if none."""
    import cupy  # optional: only a real GPU gets here
    cupy.cuda.device.get_cublas_handle()  # makes CuPy load its libcublas
    path = _loaded_path("libcublas.so")
    if path:
        return path
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib  # optional (cuda-pathfinder)
        return load_nvidia_dynamic_lib("cublas").abs_path
    except Exception:  # not installed, or an older cuda-pathfinder
        pass
    major = cupy.cuda.runtime.runtimeGetVersion() // 1000
    roots = [os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"]
    for root in filter(None, roots):
        for found in sorted(glob.glob(os.path.join(root, "lib*", f"libcublas.so.{major}*"))):
            return found
    raise RuntimeError(f"GPU: cuBLAS (libcublas.so.{major}) was not found: install "
                       f"nvidia-cublas for CUDA {major} (pip) or the CUDA toolkit")


class Cublas:
    """The cuBLAS functions paddle calls, through ctypes, with a handle and a workspace per
    device (made at the first product prepared there, kept for the process)."""

    def __init__(self, path=None):
        self.lib = ctypes.CDLL(path or library_path())
        for name in ("cublasCreate_v2", "cublasSetStream_v2", "cublasSetWorkspace_v2",
                     "cublasGemmStridedBatchedEx"):
            getattr(self.lib, name).restype = ctypes.c_int
        self.lib.cublasGemmStridedBatchedEx.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
            ctypes.c_longlong, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_int, ctypes.c_int, ctypes.c_int]
        self._devices = {}  # device index -> (handle, workspace array)

    def handle(self, device, where):
        """The handle of GPU `device` (an index), made with its workspace on first use."""
        found = self._devices.get(device)
        if found is None:
            import cupy  # optional: only a real GPU gets here
            with cupy.cuda.Device(device):
                handle = ctypes.c_void_p()
                check_status(self.lib.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate",
                             where)
                workspace = cupy.empty(WORKSPACE_BYTES, np.uint8)
            found = self._devices[device] = (handle, workspace)
        return found

    def bind(self, device, stream, where):
        """A callable that points the device's handle at `stream` and its workspace (before
        each product: capture-safe host calls that launch nothing)."""
        handle, workspace = self.handle(device, where)
        lib, stream_ptr = self.lib, ctypes.c_void_p(stream.ptr)
        space, size = ctypes.c_void_p(workspace.data.ptr), ctypes.c_size_t(workspace.nbytes)

        def attach():
            check_status(lib.cublasSetStream_v2(handle, stream_ptr), "cublasSetStream", where)
            check_status(lib.cublasSetWorkspace_v2(handle, space, size), "cublasSetWorkspace",
                         where)
        return handle, attach

    def gemm(self, handle, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
             beta, c, ldc, stride_c, count, dtype=np.float32, where="matmul"):
        """C = alpha op(A) op(B) + beta C for `count` column-major matrices (cuBLAS's
        arguments; a, b, c are device pointers, alpha and beta ctypes scalars)."""
        data, compute, _ = TYPES[np.dtype(dtype)]
        check_status(self.lib.cublasGemmStridedBatchedEx(
            handle, transa, transb, m, n, k, alpha, a, data, lda, stride_a, b, data, ldb,
            stride_b, beta, c, data, ldc, stride_c, count, compute, _ALGO_DEFAULT),
            "cublasGemmStridedBatchedEx", where)


class SimulatedCublas:
    """`Cublas.gemm` on NumPy arrays (the simulated device): the same arguments, with the
    arrays standing for the pointers (each array's first element is where the pointer
    points). Raises CublasError for what cuBLAS refuses (a leading dimension too small)
    and IndexError for a read or write outside the arrays. It computes in the compute type
    the real call would be given (half operands: float32 products and sums, rounded to
    half once, into C) and keeps the latest call's (data type, compute type) in `types`."""

    types = None

    def gemm(self, handle, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
             beta, c, ldc, stride_c, count, dtype=None, where="matmul"):
        dtype = np.dtype(c.dtype if dtype is None else dtype)
        if dtype not in TYPES or not a.dtype == b.dtype == c.dtype == dtype:
            check_status(7, "cublasGemmStridedBatchedEx", where)  # CUBLAS_STATUS_INVALID_VALUE
        self.types = TYPES[dtype][:2]
        compute = np.float64 if self.types[1] == COMPUTE_64F else np.float32
        ra, ca = (m, k) if transa == OP_N else (k, m)
        rb, cb = (k, n) if transb == OP_N else (n, k)
        if lda < max(1, ra) or ldb < max(1, rb) or ldc < max(1, m) or min(m, n, k, count) < 0:
            check_status(7, "cublasGemmStridedBatchedEx", where)
        A = _column_major(a, ra, ca, lda, stride_a, count, where)
        B = _column_major(b, rb, cb, ldb, stride_b, count, where)
        C = _column_major(c, m, n, ldc, stride_c, count, where)
        opa = (A if transa == OP_N else A.swapaxes(1, 2)).astype(compute)
        opb = (B if transb == OP_N else B.swapaxes(1, 2)).astype(compute)
        product = np.asarray(alpha, compute) * (opa @ opb)
        if float(beta) != 0.0:  # as cuBLAS: beta == 0 never reads C (NaN there stays out)
            product += np.asarray(beta, compute) * C.astype(compute)
        C[...] = product.astype(C.dtype)


def _column_major(array, rows, cols, ld, stride, count, where):
    """The `count` column-major rows x cols matrices at `array`'s first element (leading
    dimension ld, batch stride `stride`, in elements) as a (count, rows, cols) view."""
    if min(rows, cols, count) == 0:
        return np.empty((count, rows, cols), array.dtype)
    size = array.itemsize
    last = (count - 1) * stride + (rows - 1) + (cols - 1) * ld  # the farthest element
    low, high = _bounds(_base(array))
    start = array.__array_interface__["data"][0]
    if stride < 0 or start < low or start + (last + 1) * size > high:
        raise IndexError(f"{where}: a cuBLAS operand of {count} x {rows} x {cols} (leading "
                         f"dimension {ld}, batch stride {stride}) reaches outside its array")
    return np.lib.stride_tricks.as_strided(array, (count, rows, cols),
                                           (stride * size, size, ld * size))


def _bounds(array):
    """The first and one-past-the-last byte addresses of a C- or F-contiguous array."""
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        raise ValueError("the simulated cuBLAS reads arrays that own contiguous memory")
    low = array.__array_interface__["data"][0]
    return low, low + array.nbytes


def _base(array):
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array
