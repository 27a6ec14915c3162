"""CUDA kernel of matmul: products go to cuBLAS through `gemm.product` (batched and
broadcast included, capturable in a CUDA graph); float16 and bfloat16 operands run on the
tensor cores with float32 accumulation (CUBLAS_COMPUTE_32F)."""
import numpy as np

from paddle.devices.cuda import elementwise, gemm
from paddle.devices.cuda.raw import sequence
from paddle.devices.cuda.table import HALF_NATIVE, kernel


@kernel("matmul", half_native=HALF_NATIVE)
def _matmul(node, ins, outs, ctx):
    a, b = ins[:2]
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


# matmul + bias add (+ relu), or matmul + relu_grad, as the fusion pass groups them
# (paddle/lowlevel/fusion/matmul.py). On CUDA: the product, then the bias and relu, or
# relu's mask, in place on it (no launch saved yet: an epilogue of the product would); the
# group stays one node on every device. Its other outputs, if any, only lend their shape to
# shape-only readers: never written.
@kernel("fused_matmul", half_native=HALF_NATIVE)
def _fused_matmul(node, ins, outs, ctx):
    y, bias, xp = outs[0], ins[2], ctx.xp
    zero = y.dtype.type(0)
    if node.op.members[-1] == "relu_grad":  # ins[2] is relu's output: mask the product
        routed = ctx.empty(y.shape, y.dtype)  # (relu_grad's kernel does not run in place)
        relu_grad = elementwise.relu_grad_kernel(ctx)
        return sequence([_matmul(node, ins[:2], [routed], ctx),
                         lambda: relu_grad(ins[2], routed, y)])
    product = _matmul(node, ins[:2], outs[:1], ctx)

    relu = len(node.op.members) == 3  # matmul, add, relu; else matmul and add

    def epilogue():
        xp.add(y, bias, out=y)
        if relu:
            xp.maximum(y, zero, out=y)  # lets NaN through, as relu's kernel does
    return sequence([product, epilogue])


_fused_matmul.fusable = lambda prepares: prepares in (
    [_matmul, elementwise.ELEMENTWISE], [_matmul, elementwise.ELEMENTWISE,
                                         elementwise.ELEMENTWISE])
