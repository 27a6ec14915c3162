"""CPU kernels of the linear algebra ops (paddle/lowlevel/ops/linalg.py): LAPACK through
csrc/linalg.cpp, one call per batch of matrices."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu.table import kernel


def _batch(shape):
    return int(np.prod(shape[:-2], dtype=np.int64))


@kernel("linalg_solve")
def _solve(node, ins, outs, ctx):
    a, b = ins
    return partial(_C.linalg_solve, a, b, outs[0], _batch(a.shape), a.shape[-1], b.shape[-1])


@kernel("linalg_solve_triangular")
def _solve_triangular(node, ins, outs, ctx):
    a, b = ins
    return partial(_C.linalg_solve_triangular, a, b, outs[0], _batch(a.shape), a.shape[-1],
                   b.shape[-1], node.attrs["lower"])


@kernel("linalg_cholesky")
def _cholesky(node, ins, outs, ctx):
    a = ins[0]
    return partial(_C.linalg_cholesky, a, outs[0], _batch(a.shape), a.shape[-1])


@kernel("linalg_slogdet")
def _slogdet(node, ins, outs, ctx):
    a = ins[0]
    return partial(_C.linalg_slogdet, a, outs[0], outs[1], _batch(a.shape), a.shape[-1])


@kernel("linalg_lu")
def _lu(node, ins, outs, ctx):
    a = ins[0]
    return partial(_C.linalg_lu, a, outs[0], outs[1], _batch(a.shape), *a.shape[-2:])


@kernel("linalg_eigh")
def _eigh(node, ins, outs, ctx):
    a = ins[0]
    return partial(_C.linalg_eigh, a, outs[0], outs[1], _batch(a.shape), a.shape[-1])


@kernel("linalg_eig")
def _eig(node, ins, outs, ctx):
    a = ins[0]
    # The complex outputs as the float pairs the LAPACK binding writes (NumPy's layout).
    pairs = [o.view(a.dtype) for o in outs]
    return partial(_C.linalg_eig, a, pairs[0], pairs[1], _batch(a.shape), a.shape[-1])


@kernel("linalg_svd")
def _svd(node, ins, outs, ctx):
    a, job = ins[0], node.attrs["job"]
    if job == 0:
        none = np.empty(0, a.dtype)
        return partial(_C.linalg_svd, a, none, outs[0], none, _batch(a.shape), *a.shape[-2:], 0)
    return partial(_C.linalg_svd, a, outs[0], outs[1], outs[2], _batch(a.shape), *a.shape[-2:],
                   job)


@kernel("linalg_qr")
def _qr(node, ins, outs, ctx):
    a = ins[0]
    return partial(_C.linalg_qr, a, outs[0], outs[1], _batch(a.shape), *a.shape[-2:],
                   node.attrs["complete"])
