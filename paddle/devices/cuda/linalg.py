"""CUDA kernels of the linear algebra ops (paddle/lowlevel/ops/linalg.py): cuSOLVER through
CuPy (`cupy.linalg`, `cupyx.scipy.linalg`), NumPy's LAPACK when the backend is simulated.

These library calls allocate their results and read cuSOLVER's status on the host, so the
kernels declare themselves not capturable (the plan runs op by op). Failures follow JAX, as
the CPU kernels do: NaN factors for a matrix that is not positive definite, inf/NaN from a
singular solve, sign 0 and -inf from a singular slogdet.
"""
import numpy as np

from paddle import _C
from paddle.devices.cuda.table import kernel

_REASON = "cuSOLVER (through CuPy) allocates its results and reads its status on the host"


def _matrices(x):
    return x.reshape((-1,) + x.shape[-2:])


def _simulated(xp):
    return xp is np


def _solve_each(xp, a, b, out, solve):
    """out[i] = solve(a[i], b[i]) over the batch; a singular matrix gives NaN (NumPy raises
    where LAPACK's getrs would divide by zero)."""
    av, bv, ov = _matrices(a), _matrices(b), _matrices(out)
    for i in range(av.shape[0]):
        try:
            xp.copyto(ov[i], solve(av[i], bv[i]))
        except np.linalg.LinAlgError:
            ov[i].fill(np.nan)


@kernel("linalg_solve")
def _solve(node, ins, outs, ctx):
    xp, (a, b), out = ctx.xp, ins, outs[0]
    ctx.not_capturable(_REASON)
    if _simulated(xp):
        return lambda: _solve_each(xp, a, b, out, np.linalg.solve)
    return lambda: xp.copyto(out, xp.linalg.solve(a, b))


@kernel("linalg_solve_triangular")
def _solve_triangular(node, ins, outs, ctx):
    xp, (a, b), out = ctx.xp, ins, outs[0]
    lower = node.attrs["lower"]
    ctx.not_capturable(_REASON)
    if _simulated(xp):
        def solve(m, rhs):
            return np.linalg.solve(np.tril(m) if lower else np.triu(m), rhs)
    else:
        from cupyx.scipy.linalg import solve_triangular  # optional: only a real GPU gets here

        def solve(m, rhs):
            return solve_triangular(m, rhs, lower=lower)
    return lambda: _solve_each(xp, a, b, out, solve)


def _cholesky_each(xp, a, out):
    av, ov = _matrices(a), _matrices(out)
    for i in range(av.shape[0]):
        try:
            xp.copyto(ov[i], np.linalg.cholesky(np.tril(av[i]) + np.tril(av[i], -1).T))
        except np.linalg.LinAlgError:
            ov[i].fill(np.nan)


def _cholesky_gpu(xp, a, out):
    sym = xp.tril(a) + xp.swapaxes(xp.tril(a, -1), -1, -2)
    low = xp.tril(xp.linalg.cholesky(sym))
    # cuSOLVER leaves a partial factor where potrf fails: a factor that does not give the
    # matrix back (or is not finite) marks the failure, which JAX reports as NaN.
    err = xp.abs(low @ xp.swapaxes(low, -1, -2) - sym).max(axis=(-2, -1))
    scale = xp.abs(sym).max(axis=(-2, -1))
    bad = ~(err <= 1e3 * np.finfo(a.dtype).eps * a.shape[-1] * scale)
    xp.copyto(out, xp.where(bad[..., None, None], xp.nan, low))


@kernel("linalg_cholesky")
def _cholesky(node, ins, outs, ctx):
    xp, a, out = ctx.xp, ins[0], outs[0]
    ctx.not_capturable(_REASON)
    if _simulated(xp):
        return lambda: _cholesky_each(xp, a, out)
    return lambda: _cholesky_gpu(xp, a, out)


@kernel("linalg_slogdet")
def _slogdet(node, ins, outs, ctx):
    xp, a = ctx.xp, ins[0]
    ctx.not_capturable(_REASON)

    def run():
        sign, logdet = xp.linalg.slogdet(a)
        xp.copyto(outs[0], sign)
        xp.copyto(outs[1], logdet)
    return run


def _lu_reference(a, lu, piv):
    """NumPy reference of getrf (partial pivoting), for the simulated backend only."""
    m, n = a.shape
    lu[...] = a
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        piv[j] = p
        if p != j:
            lu[[j, p]] = lu[[p, j]]
        if lu[j, j] != 0:
            lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])


@kernel("linalg_lu")
def _lu(node, ins, outs, ctx):
    xp, a = ctx.xp, ins[0]
    ctx.not_capturable(_REASON)
    av, lv = _matrices(a), _matrices(outs[0])
    pv = outs[1].reshape(-1, outs[1].shape[-1])
    if _simulated(xp):
        def run():
            for i in range(av.shape[0]):
                _lu_reference(av[i], lv[i], pv[i])
        return run
    from cupyx.scipy.linalg import lu_factor  # optional: only a real GPU gets here

    def run_gpu():
        for i in range(av.shape[0]):
            lu, piv = lu_factor(av[i], check_finite=False)
            xp.copyto(lv[i], lu)
            xp.copyto(pv[i], piv.astype(np.int32))
    return run_gpu


@kernel("linalg_eigh")
def _eigh(node, ins, outs, ctx):
    xp, a = ctx.xp, ins[0]
    ctx.not_capturable(_REASON)

    def run():
        w, v = xp.linalg.eigh(a, UPLO="L")
        xp.copyto(outs[0], w)
        xp.copyto(outs[1], v)
    return run


def _eig_on_host(xp, a, outs, host, batch, n):
    """a's eigendecomposition by the CPU kernel's LAPACK geev: a copied into the host
    buffers, the results copied back. Outside any CUDA graph: its kernel is not capturable."""
    a_host, w_host, v_host = host
    if _simulated(xp):
        np.copyto(a_host, a)
    else:
        a.get(out=a_host)
    _C.linalg_eig(a_host, w_host.view(a_host.dtype), v_host.view(a_host.dtype), batch, n)
    for o, r in zip(outs, (w_host, v_host)):
        if _simulated(xp):
            np.copyto(o, r)
        else:
            o.set(r)


@kernel("linalg_eig")
def _eig(node, ins, outs, ctx):
    # Neither cuSOLVER nor CuPy has a general (non-symmetric) eigendecomposition: the
    # matrices go to the host, the CPU kernel's LAPACK geev (paddle._C.linalg_eig) computes
    # them, and the results come back through host buffers made here, once.
    xp, a = ctx.xp, ins[0]
    ctx.not_capturable("the general eigendecomposition runs on the host (LAPACK geev): "
                       "cuSOLVER has none")
    batch, n = int(np.prod(a.shape[:-2], dtype=np.int64)), a.shape[-1]
    host = [np.empty(x.shape, x.dtype) for x in (a, *outs)]
    return lambda: _eig_on_host(xp, a, outs, host, batch, n)


@kernel("linalg_svd")
def _svd(node, ins, outs, ctx):
    xp, a, job = ctx.xp, ins[0], node.attrs["job"]
    ctx.not_capturable(_REASON)

    def run():
        if job == 0:
            xp.copyto(outs[0], xp.linalg.svd(a, compute_uv=False))
            return
        u, s, vt = xp.linalg.svd(a, full_matrices=job == 2)
        for o, r in zip(outs, (u, s, vt)):
            xp.copyto(o, r)
    return run


@kernel("linalg_qr")
def _qr(node, ins, outs, ctx):
    xp, a = ctx.xp, ins[0]
    mode = "complete" if node.attrs["complete"] else "reduced"
    ctx.not_capturable(_REASON)
    av, qv, rv = _matrices(a), _matrices(outs[0]), _matrices(outs[1])

    def run():
        for i in range(av.shape[0]):
            q, r = xp.linalg.qr(av[i], mode=mode)
            xp.copyto(qv[i], q)
            xp.copyto(rv[i], r)
    return run
