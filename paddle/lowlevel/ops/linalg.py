"""Dense linear algebra ops on batches of matrices (..., m, n): the decompositions LAPACK
(CPU, csrc/linalg.cpp) and cuSOLVER (CUDA, through CuPy) compute, each with its gradient
built from ops (the standard formulas: Giles 2008, Murray 2016, Townsend 2016).

The primitives: `linalg_solve` (a x = b), `linalg_solve_triangular`, `linalg_cholesky`,
`linalg_slogdet`, `linalg_lu` (no gradient), `linalg_eigh`, `linalg_eig` (complex results, no
gradient), `linalg_svd`, `linalg_qr`.
Everything else of `keras.ops.linalg` (inv, det, norm, pinv, lstsq, ...) is composed from
these in paddle/ops/linalg.py. Batch dims must agree exactly here; the public functions
broadcast them first.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel.ops.linalg import solve
    >>> solve(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([[2.0], [2.0]])).numpy().tolist()
    [[1.0], [0.5]]
"""
import numpy as np

from paddle.lowlevel.graph import FLOATS, apply, as_variable, constant
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import where, zeros_like
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import sum as _sum
from paddle.lowlevel.ops.shape import expand_dims, transpose


# ---- helpers built from ops ----------------------------------------------------------------

def mT(x):
    """x with its last two axes swapped."""
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, tuple(perm))


def eye_like(x, n):
    return constant(np.eye(n), dtype=x.dtype)


def tril(x, k=0):
    """The lower triangle of the last two axes (below the k-th diagonal kept)."""
    m, n = x.shape[-2:]
    return x * constant(np.tril(np.ones((m, n)), k), dtype=x.dtype)


def triu(x, k=0):
    m, n = x.shape[-2:]
    return x * constant(np.triu(np.ones((m, n)), k), dtype=x.dtype)


def diag_embed(v):
    """(..., n) -> (..., n, n) with v on the diagonal."""
    n = v.shape[-1]
    return expand_dims(v, -1) * eye_like(v, n)


def _diff_inverse(w):
    """F[..., i, j] = 1 / (w_j - w_i) off the diagonal, 0 on it (w: (..., n))."""
    n = w.shape[-1]
    eye = eye_like(w, n)
    diff = expand_dims(w, -2) - expand_dims(w, -1) + eye
    return where(eye > 0.0, 0.0, 1.0 / diff)


def _alive(node):
    """The node's outputs, recomputed (a second node on the same inputs) when the caller
    dropped one of them: a node holds its outputs only weakly."""
    outs = node.outputs
    if any(o is None for o in outs):
        outs = apply(node.op, list(node.inputs), dict(node.attrs))
    return outs


# ---- shape rules ---------------------------------------------------------------------------

class MatrixOp(Op):
    def matrix(self, x, label="a", square=True):
        shape, dtype = x
        if dtype not in FLOATS:
            raise TypeError(f"{self.name}: expected a float32 or float64 matrix, received {dtype}")
        if len(shape) < 2:
            self.fail("expected a matrix or a batch of matrices (rank >= 2)", (label, shape))
        if square and None not in shape[-2:] and shape[-1] != shape[-2]:
            self.fail("expected square matrices", (label, shape))
        if None in shape[-2:]:
            self.fail("expected known matrix sizes (the last two axes)", (label, shape))
        return shape


@register
class Solve(MatrixOp):
    """x = a^-1 b for a (..., n, n), b (..., n, k) of the same batch dims."""

    name = "linalg_solve"

    def infer(self, a, b):
        sa = self.matrix(a)
        sb = self.matrix(b, "b", square=False)
        if a[1] != b[1]:
            self.fail(f"expected one dtype, received {a[1]} and {b[1]}", ("a", sa), ("b", sb))
        if sb[-2] != sa[-1] or len(sa) != len(sb) or any(
                p is not None and q is not None and p != q for p, q in zip(sa[:-2], sb[:-2])):
            self.fail("expected b (..., n, k) with a's batch dims and n rows", ("a", sa),
                      ("b", sb))
        return sb, b[1]

    def grad(self, node, g):
        a = node.inputs[0]
        x = _alive(node)[0]
        gb = solve(mT(a), g[0])
        return [-matmul(gb, x, transpose_b=True), gb]


@register
class SolveTriangular(MatrixOp):
    """x = a^-1 b reading only a's lower (lower=True) or upper triangle."""

    name = "linalg_solve_triangular"

    def infer(self, a, b, lower):
        return OPS["linalg_solve"].infer(a, b)

    def grad(self, node, g):
        a = node.inputs[0]
        lower = node.attrs["lower"]
        x = _alive(node)[0]
        gb = solve_triangular(mT(a), g[0], lower=not lower)
        ga = -matmul(gb, x, transpose_b=True)
        return [tril(ga) if lower else triu(ga), gb]


@register
class Cholesky(MatrixOp):
    """The lower factor l of a = l l^T, from a's lower triangle; NaN when a is not
    positive definite (as JAX)."""

    name = "linalg_cholesky"

    def infer(self, a):
        return self.matrix(a), a[1]

    def grad(self, node, g):
        low = _alive(node)[0]
        # a_bar = L^-T phi(L^T l_bar) L^-1, phi: the lower triangle, half the diagonal
        p = tril(matmul(low, g[0], transpose_a=True))
        p = p - 0.5 * diag_embed(_diagonal(p))
        left = solve_triangular(mT(low), p, lower=False)                    # L^-T P
        return [mT(solve_triangular(mT(low), mT(left), lower=False))]     # (L^-T (L^-T P)^T)^T


@register
class Slogdet(MatrixOp):
    """(sign, log|det a|) per matrix: sign 0 and -inf for a singular one."""

    name = "linalg_slogdet"

    def infer(self, a):
        shape = self.matrix(a)
        return [(shape[:-2], a[1]), (shape[:-2], a[1])]

    def grad(self, node, g):
        a = node.inputs[0]
        if g[1] is None:
            return [None]
        inv_t = solve(mT(a), _batch_eye(a))
        return [expand_dims(expand_dims(g[1], -1), -1) * inv_t]


@register
class LU(MatrixOp):
    """LU with partial pivoting: the packed factors (unit lower L below the diagonal, U on
    and above) and the 0-based row swaps (int32), as scipy.linalg.lu_factor."""

    name = "linalg_lu"

    def infer(self, a):
        shape = self.matrix(a, square=False)
        return [(shape, a[1]), (shape[:-2] + (min(shape[-2:]),), "int32")]


@register
class Eigh(MatrixOp):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices, from the
    lower triangle."""

    name = "linalg_eigh"

    def infer(self, a):
        shape = self.matrix(a)
        return [(shape[:-1], a[1]), (shape, a[1])]

    def grad(self, node, g):
        w, v = _alive(node)
        gw, gv = g
        inner = diag_embed(gw) if gw is not None else zeros_like(node.inputs[0])
        if gv is not None:
            inner = inner + _diff_inverse(w) * matmul(v, gv, transpose_a=True)
        return [matmul(matmul(v, inner), v, transpose_b=True)]


@register
class Eig(MatrixOp):
    """Eigenvalues and right eigenvectors (columns, unit norm, largest component real) of
    general square matrices: complex64 from float32, complex128 from float64 (LAPACK geev,
    as JAX and NumPy). It has no gradient (JAX's eig has none for its eigenvectors)."""

    name = "linalg_eig"
    takes_complex = True
    COMPLEX = {"float32": "complex64", "float64": "complex128"}

    def infer(self, a):
        shape = self.matrix(a)
        if a[1] not in self.COMPLEX:
            raise TypeError(f"{self.name}: expected a float32 or float64 matrix, received "
                            f"{a[1]}")
        out = self.COMPLEX[a[1]]
        return [(shape[:-1], out), (shape, out)]


@register
class SVD(MatrixOp):
    """a = u diag(s) vt. job 0: [s] only; 1: reduced u (m, k), vt (k, n); 2: full u (m, m),
    vt (n, n); k = min(m, n), s descending."""

    name = "linalg_svd"

    def infer(self, a, job):
        shape = self.matrix(a, square=False)
        m, n = shape[-2:]
        k, batch = min(m, n), shape[:-2]
        s = (batch + (k,), a[1])
        if job == 0:
            return [s]
        cu, rv = (m, n) if job == 2 else (k, k)
        return [(batch + (m, cu), a[1]), s, (batch + (rv, n), a[1])]

    def grad(self, node, g):
        a = node.inputs[0]
        job = node.attrs["job"]
        m, n = a.shape[-2:]
        if job == 0:
            u, _, vt = svd_op(a, 1)
            return [matmul(u * expand_dims(g[0], -2), vt)]
        if job == 2 and m != n:
            self.fail("no gradient for full_matrices=True of a non-square matrix (as JAX); "
                      "use full_matrices=False", ("a", a.shape))
        u, s, vt = _alive(node)
        return [_svd_grad(u, s, vt, *g)]


def _svd_grad(u, s, vt, gu, gs, gvt):
    """Townsend's formula for the reduced SVD (distinct non-zero singular values)."""
    v = mT(vt)
    k = s.shape[-1]
    inner = diag_embed(gs) if gs is not None else 0.0 * diag_embed(s)
    f = _diff_inverse(s * s)
    s_row = expand_dims(s, -2)                    # (..., 1, k): scales columns
    s_col = expand_dims(s, -1)                    # (..., k, 1): scales rows
    extra = None
    if gu is not None:
        ut_gu = matmul(u, gu, transpose_a=True)
        inner = inner + (f * (ut_gu - mT(ut_gu))) * s_row
        if u.shape[-2] > k:   # the part of gu outside u's span
            rest = gu - matmul(u, ut_gu)
            extra = matmul(rest / s_row, vt)
    if gvt is not None:
        gv = mT(gvt)
        vt_gv = matmul(v, gv, transpose_a=True)
        inner = inner + s_col * (f * (vt_gv - mT(vt_gv)))
        if v.shape[-2] > k:
            rest = gv - matmul(v, vt_gv)
            term = matmul(u / s_row, rest, transpose_b=True)
            extra = term if extra is None else extra + term
    out = matmul(matmul(u, inner), vt)
    return out if extra is None else out + extra


@register
class QR(MatrixOp):
    """a = q r: complete=False gives q (m, k), r (k, n); complete=True q (m, m), r (m, n)."""

    name = "linalg_qr"

    def infer(self, a, complete):
        shape = self.matrix(a, square=False)
        m, n = shape[-2:]
        k = m if complete else min(m, n)
        return [(shape[:-2] + (m, k), a[1]), (shape[:-2] + (k, n), a[1])]

    def grad(self, node, g):
        a = node.inputs[0]
        m, n = a.shape[-2:]
        if m < n or (node.attrs["complete"] and m != n):
            self.fail("gradient only for m >= n and the reduced decomposition (as JAX's "
                      "tall case)", ("a", a.shape))
        q, r = _alive(node)
        gq = g[0] if g[0] is not None else zeros_like(q)
        gr = g[1] if g[1] is not None else zeros_like(r)
        # a_bar = (gq + q copyltu(M)) r^-T, M = r gr^T - gq^T q
        mm = matmul(r, gr, transpose_b=True) - matmul(gq, q, transpose_a=True)
        copyltu = tril(mm, -1) + mT(tril(mm, -1)) + diag_embed(_diagonal(mm))
        b = gq + matmul(q, copyltu)
        return [mT(solve_triangular(r, mT(b), lower=False))]


def _diagonal(x):
    """(..., n, n) -> (..., n)."""
    return _sum(x * eye_like(x, x.shape[-1]), axis=-1)


def _batch_eye(a):
    return zeros_like(a) + eye_like(a, a.shape[-1])


# ---- functions -------------------------------------------------------------------------------

def _operand(x, where, like=None):
    return as_variable(x, like=like, where=where)


def solve(a, b):
    """x with a x = b, for a (..., n, n) and b (..., n, k) of the same batch dims."""
    a = _operand(a, "linalg_solve")
    return apply(OPS["linalg_solve"], [a, _operand(b, "linalg_solve", like=a)])


def solve_triangular(a, b, lower=False):
    """x with a x = b reading only one triangle of a (..., n, n); b (..., n, k)."""
    a = _operand(a, "linalg_solve_triangular")
    b = _operand(b, "linalg_solve_triangular", like=a)
    return apply(OPS["linalg_solve_triangular"], [a, b], {"lower": bool(lower)})


def cholesky_op(a):
    return apply(OPS["linalg_cholesky"], [_operand(a, "linalg_cholesky")])


def slogdet_op(a):
    return apply(OPS["linalg_slogdet"], [_operand(a, "linalg_slogdet")])


def lu_op(a):
    return apply(OPS["linalg_lu"], [_operand(a, "linalg_lu")])


def eigh_op(a):
    return apply(OPS["linalg_eigh"], [_operand(a, "linalg_eigh")])


def eig_op(a):
    return apply(OPS["linalg_eig"], [_operand(a, "linalg_eig")])


def svd_op(a, job):
    out = apply(OPS["linalg_svd"], [_operand(a, "linalg_svd")], {"job": int(job)})
    return out if job else out[0]


def qr_op(a, complete):
    return apply(OPS["linalg_qr"], [_operand(a, "linalg_qr")], {"complete": bool(complete)})
