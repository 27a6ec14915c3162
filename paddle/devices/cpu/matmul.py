"""CPU kernel of matmul (csrc/matmul.cpp, through the BLAS): the batch offsets of both
operands computed once per plan."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu import elementwise
from paddle.devices.cpu.table import kernel


@kernel("matmul")
def _matmul(node, ins, outs, ctx, bias=None, relu=False, relu_y=None):
    a, b = ins[:2]
    ta, tb = node.attrs["transpose_a"], node.attrs["transpose_b"]
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    m, k = (sa[-1], sa[-2]) if ta else (sa[-2], sa[-1])
    n = sb[-2] if tb else sb[-1]
    batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    # Offsets of each batch's matrix in a and b; broadcast dims repeat one offset.
    a_idx = np.broadcast_to(np.arange(int(np.prod(sa[:-2]))).reshape(sa[:-2] or ()), batch)
    b_idx = np.broadcast_to(np.arange(int(np.prod(sb[:-2]))).reshape(sb[:-2] or ()), batch)
    a_off = a_idx.reshape(-1) * (sa[-1] * sa[-2])
    b_off = b_idx.reshape(-1) * (sb[-1] * sb[-2])
    # A batch of x against one shared matrix is one big product: rows stack up.
    if len(batch) and sb[:-2] == () and not ta:
        a_off, m = a_off[:1], m * a_off.size
    spec = np.array([a_off.size, m, n, k, int(ta), int(tb), *a_off, *b_off[:a_off.size]],
                    dtype=np.int64)
    if bias is None and not relu and relu_y is None:  # the product alone: the eager fast
        return partial(_C.matmul, a, b, outs[0], spec)        # path's form too
    empty = np.empty(0, outs[0].dtype)
    return partial(_C.matmul, a, b, outs[0], spec, empty if bias is None else bias, relu,
                   empty if relu_y is None else relu_y)


# matmul + add of a bias (+ relu), or matmul + relu_grad, fused (paddle/lowlevel/fusion/
# matmul.py): the same kernel, the bias (and relu), or relu's mask, applied to each
# thread's part of the product in cache. (Its other outputs, if any, only lend their shape
# to shape-only readers: never written.)
@kernel("fused_matmul")
def _fused_matmul(node, ins, outs, ctx):
    if node.op.members[-1] == "relu_grad":
        return _matmul(node, ins[:2], outs[:1], ctx, relu_y=ins[2])
    return _matmul(node, ins[:2], outs[:1], ctx, bias=ins[2],
                   relu=len(node.op.members) == 3)


# It stands in for these kernels only (a replaced one runs as itself): [matmul, add] and
# [matmul, relu_grad] are both [_matmul, _binary].
_fused_matmul.fusable = lambda prepares: prepares in (
    [_matmul, elementwise._binary], [_matmul, elementwise._binary, elementwise._unary])
