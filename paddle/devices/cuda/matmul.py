"""CUDA kernel of matmul: products go to cuBLAS through `gemm.product` (batched and
broadcast included, capturable in a CUDA graph); float16 and bfloat16 operands run on the
tensor cores with float32 accumulation (CUBLAS_COMPUTE_32F)."""
import numpy as np

from paddle.devices.cuda import gemm
from paddle.devices.cuda.table import HALF_NATIVE, kernel


@kernel("matmul", half_native=HALF_NATIVE)
def _matmul(node, ins, outs, ctx):
    a, b = ins
    out = outs[0]
    ta, tb = node.attrs["transpose_a"], node.attrs["transpose_b"]
    a = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    if ta:
        a = a.swapaxes(-1, -2)
    if tb:
        b = b.swapaxes(-1, -2)
    if a.ndim > 2 and b.ndim == 2 and not ta:
        # A batch of x against one shared matrix is one big product: rows stack up.
        a = a.reshape(-1, a.shape[-1])
    result = out.reshape(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) +
                         (a.shape[-2], b.shape[-1]))
    return gemm.product(ctx, a, b, result)
