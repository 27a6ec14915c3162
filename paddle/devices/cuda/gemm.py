"""Every matrix product of the CUDA backend: `product(ctx, a, b, out)`, matmul's semantics
(batch dimensions broadcast, as `numpy.matmul(a, b, out=out)`) as one capture-safe
cuBLAS call (paddle/devices/cuda/cublas.py).

The operands are views as the kernels hold them (transposed, sliced, reshaped, broadcast).
cuBLAS reads column-major matrices with a leading dimension and a batch stride, so a
row-major product `C = A B` is asked as `C^T = B^T A^T`: a row-major operand is its own
transpose read column-major, a column-major one (a transposed view) is read with `OP_T`.
A view with no such layout (no unit stride in either matrix dimension, batch dimensions
that no single stride walks) is copied into a buffer made at prepare time, inside the run;
an output with no row-major layout gets the product in such a buffer and a copy.

Example (the simulated device runs the same arguments through NumPy):
    >>> import numpy as np, paddle as pd
    >>> from paddle.devices import cuda
    >>> a, b = pd.data("a", shape=[2, 3, 4]), pd.data("b", shape=[4, 5])
    >>> with cuda.simulated():
    ...     y = pd.eval(pd.matmul(a, b), {a: np.ones((2, 3, 4)), b: np.ones((4, 5))},
    ...                 device="gpu")
    >>> y.shape, float(y[1, 2, 3])
    ((2, 3, 5), 4.0)
"""
import ctypes
import math

import numpy as np

from paddle.devices.cuda import cublas
from paddle.devices.cuda.raw import sequence

_LIBRARY = []  # the process's Cublas, made at the first product prepared on a GPU


def _library():
    if not _LIBRARY:
        _LIBRARY.append(cublas.Cublas())
    return _LIBRARY[0]


_SIMULATED = cublas.SimulatedCublas()


def _where(ctx):
    node = ctx.node
    return f"{node.op.name} (built at {node.location or '?'})" if node is not None else "matmul"


def _batch(shape, strides):
    """(count, stride) walking the batch dimensions with one stride, or None."""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    count = math.prod(shape)
    if not dims:
        return count, 0
    stride = dims[-1][1]
    expected = stride
    for n, s in reversed(dims):
        if s != expected:
            return None
        expected = s * n
    return count, stride


def _matrix(rows, cols, s0, s1):
    """('row', ld) or ('col', ld) for a rows x cols matrix with element strides (s0, s1),
    or None when cuBLAS cannot read it in place."""
    if (cols <= 1 or s1 == 1) and (rows <= 1 or s0 >= max(cols, 1)):
        return "row", (s0 if rows > 1 else max(cols, 1))
    if (rows <= 1 or s0 == 1) and (cols <= 1 or s1 >= max(rows, 1)):
        return "col", (s1 if cols > 1 else max(rows, 1))
    return None


def _layout(x):
    """(kind, ld, count, batch stride) of a (..., rows, cols) view, or None."""
    strides = [s // x.itemsize for s in x.strides]
    if any(s * x.itemsize != t for s, t in zip(strides, x.strides)):
        return None
    matrix = _matrix(x.shape[-2], x.shape[-1], strides[-2], strides[-1])
    batch = _batch(x.shape[:-2], strides[:-2])
    if matrix is None or batch is None or batch[1] < 0:
        return None
    return matrix + batch


class _Operand:
    """A product's operand as cuBLAS reads (or, for the output, writes) it: `x` in place, or
    a row-major buffer of its shape with `copy`, the step filling it from x (an input) or x
    from it (the output: run after the product)."""

    def __init__(self, ctx, x, output=False):
        self.view, self.copy = x, None
        self.layout = _layout(x)
        if output and self.layout is not None and (  # written as row-major batches
                self.layout[0] != "row" or
                (self.layout[2] > 1 and self.layout[3] < x.shape[-2] * self.layout[1])):
            self.layout = None  # (a column-major view, or batches that overlap)
        if self.layout is None:
            buffer, xp = ctx.empty(x.shape, x.dtype), ctx.xp
            self.copy = (lambda: xp.copyto(x, buffer)) if output else \
                (lambda: xp.copyto(buffer, x))
            self.view, self.layout = buffer, _layout(buffer)


def product(ctx, a, b, out):
    """The run step writing `a @ b` into `out` (arrays of ctx.xp; batch dimensions
    broadcast, as numpy.matmul): one cuBLAS call, plus the copies of any operand cuBLAS
    cannot read or write in place. Checks at prepare time; the step never allocates."""
    xp, where = ctx.xp, _where(ctx)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]:
        raise ValueError(f"{where}: expected matrices (..., M, K) and (..., K, N), received "
                         f"{a.shape} and {b.shape}")
    if not (a.dtype == b.dtype == out.dtype) or a.dtype not in cublas.TYPES:
        raise TypeError(f"{where}: a product on {ctx.device.name} takes operands of one "
                        f"float dtype, float32 or float64 (or float16, bfloat16: float32 "
                        f"accumulation), received {a.dtype}, {b.dtype} into {out.dtype}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    if tuple(out.shape) != tuple(batch) + (M, N):
        raise ValueError(f"{where}: the product of {a.shape} and {b.shape} is "
                         f"{tuple(batch) + (M, N)}, the output is {out.shape}")
    count = math.prod(batch)
    if min(M, N, count) == 0:
        return lambda: None
    if K == 0:
        return lambda: out.fill(0)
    A = _Operand(ctx, xp.broadcast_to(a, tuple(batch) + (M, K)))
    B = _Operand(ctx, xp.broadcast_to(b, tuple(batch) + (K, N)))
    C = _Operand(ctx, out, output=True)
    # C^T (N x M) = op(B^T) (N x K) op(A^T) (K x M), column-major.
    transa = cublas.OP_N if B.layout[0] == "row" else cublas.OP_T
    transb = cublas.OP_N if A.layout[0] == "row" else cublas.OP_T
    lda, ldb, ldc = B.layout[1], A.layout[1], C.layout[1]
    sa, sb, sc = B.layout[3], A.layout[3], C.layout[3]
    if not cublas.fits_int(M, N, K, lda, ldb, ldc, count):
        raise ValueError(f"{where}: a product of {a.shape} by {b.shape} exceeds cuBLAS's "
                         f"32-bit sizes")
    call = _call(ctx, transa, transb, N, M, K, B.view, lda, sa, A.view, ldb, sb, C.view, ldc,
                 sc, count, where)
    steps = [s for s in (A.copy, B.copy, call, C.copy) if s is not None]
    return steps[0] if len(steps) == 1 else sequence(steps)


def _call(ctx, transa, transb, m, n, k, a, lda, sa, b, ldb, sb, c, ldc, sc, count, where):
    dtype = c.dtype
    if ctx.device.simulated:
        lib = _SIMULATED
        return lambda: lib.gemm(None, transa, transb, m, n, k, 1.0, a, lda, sa, b, ldb, sb,
                                0.0, c, ldc, sc, count, dtype, where)
    lib = _library()
    handle, attach = lib.bind(ctx.device.index, ctx.device.stream, where)
    scalar = cublas.TYPES[dtype][2]
    one, zero = scalar(1.0), scalar(0.0)
    alpha, beta = _address(one), _address(zero)
    pa, pb, pc = a.data.ptr, b.data.ptr, c.data.ptr

    def run():
        attach()
        lib.gemm(handle, transa, transb, m, n, k, alpha, pa, lda, sa, pb, ldb, sb, beta, pc,
                 ldc, sc, count, dtype, where)
    run.scalars = (one, zero)  # alpha and beta live as long as the step
    run.arrays = (a, b, c)  # so do the buffers behind the pointers
    return run


def _address(scalar):
    return ctypes.cast(ctypes.pointer(scalar), ctypes.c_void_p)
