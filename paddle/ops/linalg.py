"""`keras.ops.linalg` for paddle: decompositions, solves, determinants, norms, on
matrices or batches of them (leading axes), as Keras on JAX computes them.

The decompositions are ops of their own (paddle/lowlevel/ops/linalg.py: LAPACK on the CPU,
cuSOLVER on CUDA); the rest is composed from them: `inv` is a solve against the identity,
`det` is sign * exp(log|det|), `pinv`, `lstsq` and `matrix_rank` come from the SVD. Bad
values behave as on JAX: a singular matrix gives inf/NaN from `inv`/`solve` and 0 from
`det`, a matrix that is not positive definite gives a Cholesky factor of NaN (Keras on
JAX raises for it only when it runs eagerly). Integer inputs compute in float32.

`eig` (LAPACK geev) gives complex64/complex128 eigenvalues and eigenvectors, as JAX; it has
no gradient.

Example:
    >>> import numpy as np, paddle as pd
    >>> a = np.array([[4.0, 2.0], [2.0, 3.0]], np.float32)
    >>> pd.ops.linalg.cholesky(a).numpy().tolist()
    [[2.0, 0.0], [1.0, 1.4142135381698608]]
"""
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import COMPLEX_DTYPES, Variable, constant
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.ops import linalg as _la
from paddle.lowlevel.ops.linalg import mT
from paddle.lowlevel.ops.math import abs as _abs, cast, exp, greater, greater_equal, pow, \
    sqrt, where, zeros_like
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import max as _max, min as _min, sum as _sum
from paddle.lowlevel.ops.shape import expand_dims, squeeze, transpose
from paddle.ops.convolutions import as_tensor
from paddle.ops.convolutions import float_tensor as _float
from paddle.lowlevel import eager
from paddle.lowlevel.executor import eval as _eval

__all__ = ["cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "logdet", "lstsq",
           "lu_factor", "matrix_rank", "norm", "pinv", "qr", "slogdet", "solve",
           "solve_triangular", "svd"]


# ---- inputs ----------------------------------------------------------------------------------

def _matrix(x, op, square=True):
    x = _float(x, op)
    if x.ndim < 2:
        raise ValueError(at_user(f"{op}: expected a matrix or a batch of matrices (rank >= "
                                 f"2), received shape {x.shape}"))
    m, n = x.shape[-2:]
    if m is None or n is None:
        raise ShapeError(at_user(f"{op}: expected known matrix sizes (the last two axes), "
                                 f"received shape {x.shape}"))
    if square and m != n:
        raise ValueError(at_user(f"{op}: expected square matrices, received shape {x.shape}"))
    return x


def _broadcast_batch(a, b, op):
    """a and b with the same batch dims (NumPy broadcasting of all but the last two)."""
    ba, bb = a.shape[:-2], b.shape[:-2]
    try:
        np.broadcast_shapes(tuple(1 if d is None else d for d in ba),
                            tuple(1 if d is None else d for d in bb))
    except ValueError:
        raise ShapeError(at_user(f"{op}: the batch dims of a {a.shape} and b {b.shape} do not "
                                 f"broadcast")) from None
    if ba == bb:
        return a, b
    # adding the other's zeros (a (..., 1, 1) slice) broadcasts with gradients intact
    a = a + zeros_like(b[..., :1, :1])
    b = b + zeros_like(a[..., :1, :1])
    return a, b


def _rhs(a, b, op, vectors="1-D"):
    """b as (..., n, k) and whether it was a vector: a 1-D b (jnp.linalg.solve), or also a
    b of one axis less than a (vectors="batched": jax.scipy.linalg.solve_triangular)."""
    b = _float(b, op)
    if b.dtype != a.dtype:
        a, b = cast(a, "float64"), cast(b, "float64")
    vector = b.ndim == 1 or (vectors == "batched" and b.ndim == a.ndim - 1)
    if vector:
        b = expand_dims(b, -1)
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ShapeError(at_user(f"{op}: expected b of shape (..., {a.shape[-1]}) or (..., "
                                 f"{a.shape[-1]}, k) for a of shape {a.shape}, received shape "
                                 f"{b.shape if not vector else b.shape[:-1]}"))
    a, b = _broadcast_batch(a, b, op)
    return a, b, vector


def _symmetrized(a):
    """(a + a^T) / 2, as JAX's cholesky and eigh read their input."""
    return (a + mT(a)) * 0.5


# ---- solves and inverses ---------------------------------------------------------------------

def solve(a, b):
    """x with a @ x = b, as `keras.ops.linalg.solve` (jnp.linalg.solve).

    Args:
        a: (..., n, n).
        b: (..., n, k), or a vector (n,) (JAX 0.5's rule: a batch of vectors is written
            (..., n, 1)).

    Returns:
        x of b's shape (batch dims broadcast); inf/NaN for a singular a.

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = np.array([[2.0, 0.0], [1.0, 1.0]])
        >>> pd.ops.linalg.solve(a, np.array([2.0, 3.0])).numpy().tolist()
        [1.0, 2.0]
    """
    a = _matrix(a, "solve")
    a, b, vector = _rhs(a, b, "solve")
    x = _la.solve(a, b)
    return squeeze(x, -1) if vector else x


def solve_triangular(a, b, lower=False):
    """x with a @ x = b reading only a's lower (lower=True) or upper triangle, as
    `keras.ops.linalg.solve_triangular`; b is (..., n, k), or (..., n) vectors when it
    has one axis less than a.

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = np.array([[2.0, 9.0], [1.0, 1.0]])
        >>> pd.ops.linalg.solve_triangular(a, np.array([2.0, 3.0]), lower=True).numpy().tolist()
        [1.0, 2.0]
    """
    a = _matrix(a, "solve_triangular")
    a, b, vector = _rhs(a, b, "solve_triangular", vectors="batched")
    x = _la.solve_triangular(a, b, lower=bool(lower))
    return squeeze(x, -1) if vector else x


def inv(x):
    """The inverse of square matrices (a solve against the identity), as
    `keras.ops.linalg.inv`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]])).numpy().tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    a = _matrix(x, "inv")
    return _la.solve(a, zeros_like(a) + constant(np.eye(a.shape[-1]), dtype=a.dtype))


# ---- factorizations --------------------------------------------------------------------------

def cholesky(x, upper=False):
    """The Cholesky factor of symmetric positive definite matrices, as
    `keras.ops.linalg.cholesky`: lower L with x = L L^T (upper=True: L^T). The input is
    read as (x + x^T) / 2; a matrix that is not positive definite gives NaN.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 2.0]]), upper=True).numpy().tolist()
        [[2.0, 1.0], [0.0, 1.0]]
    """
    low = _la.cholesky_op(_symmetrized(_matrix(x, "cholesky")))
    return mT(low) if upper else low


def cholesky_inverse(x, upper=False):
    """The inverse of A from its Cholesky factor x (A = x x^T, or x^T x when upper), as
    `keras.ops.linalg.cholesky_inverse`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.linalg.cholesky_inverse(np.array([[2.0, 0.0], [1.0, 1.0]])).numpy().tolist()
        [[0.5, -0.5], [-0.5, 1.0]]
    """
    a = _matrix(x, "cholesky_inverse")
    inv_chol = _la.solve_triangular(a, zeros_like(a) + constant(np.eye(a.shape[-1]),
                                                                dtype=a.dtype),
                                    lower=not upper)
    if upper:
        return matmul(inv_chol, inv_chol, transpose_b=True)
    return matmul(inv_chol, inv_chol, transpose_a=True)


def lu_factor(x):
    """LU with partial pivoting, as `keras.ops.linalg.lu_factor` (scipy's lu_factor): the
    packed factors (unit lower L under the diagonal, U on and above) and the 0-based row
    swaps (int32). It has no gradient here.

    Example:
        >>> import numpy as np, paddle as pd
        >>> lu, piv = pd.ops.linalg.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> lu.numpy().round(4).tolist(), piv.numpy().tolist()
        ([[3.0, 4.0], [0.3333, 0.6667]], [1, 1])
    """
    return tuple(_la.lu_op(_matrix(x, "lu_factor", square=False)))


def eig(x):
    """Eigenvalues and right eigenvectors (columns) of general square matrices, as
    `keras.ops.linalg.eig` on JAX (LAPACK geev): complex64 from float32 (and integers),
    complex128 from float64; each eigenvector has unit norm and its largest component
    real. It has no gradient.

    Raises:
        ValueError: x is not a (batch of) square matrices.
        TypeError: x is complex (paddle's eig takes real matrices only).

    Example:
        >>> import numpy as np, paddle as pd
        >>> w, v = pd.ops.linalg.eig(np.array([[0.0, -1.0], [1.0, 0.0]], np.float32))
        >>> w.dtype, w.numpy().tolist()
        ('complex64', [1j, -1j])
    """
    if isinstance(x, Variable) and x.dtype in COMPLEX_DTYPES or \
            not isinstance(x, Variable) and np.asarray(x).dtype.kind == "c":
        raise TypeError(at_user(f"eig: expected a real (float or integer) matrix, received "
                                f"{getattr(x, 'dtype', np.asarray(x).dtype)} values: paddle's "
                                f"eig takes real matrices only (JAX's takes complex ones too)"))
    return tuple(_la.eig_op(_matrix(x, "eig")))


def eigh(x):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices, read as
    (x + x^T) / 2, as `keras.ops.linalg.eigh`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> w, v = pd.ops.linalg.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
        >>> w.numpy().round(6).tolist()
        [1.0, 3.0]
    """
    return tuple(_la.eigh_op(_symmetrized(_matrix(x, "eigh"))))


def svd(x, full_matrices=True, compute_uv=True):
    """Singular value decomposition x = u diag(s) vh, as `keras.ops.linalg.svd`.

    Returns:
        (u, s, vh), or s alone when compute_uv is False; s descending. Gradients need
        full_matrices=False unless the matrices are square (as JAX).

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = np.array([[3.0, 0.0], [0.0, -4.0]])
        >>> pd.ops.linalg.svd(a, compute_uv=False).numpy().tolist()
        [4.0, 3.0]
    """
    a = _matrix(x, "svd", square=False)
    if not compute_uv:
        return _la.svd_op(a, 0)
    return tuple(_la.svd_op(a, 2 if full_matrices else 1))


def qr(x, mode="reduced"):
    """QR decomposition, as `keras.ops.linalg.qr`: mode "reduced" gives q (m, k), r (k, n)
    with k = min(m, n); "complete" q (m, m), r (m, n).

    Example:
        >>> import numpy as np, paddle as pd
        >>> q, r = pd.ops.linalg.qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
        >>> np.abs(r.numpy()).round(4).tolist()
        [[5.0, 2.2], [0.0, 0.4]]
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(at_user(f"qr: expected mode 'reduced' or 'complete', received "
                                 f"{mode!r}"))
    return tuple(_la.qr_op(_matrix(x, "qr", square=False), mode == "complete"))


# ---- determinants ----------------------------------------------------------------------------

def slogdet(x):
    """(sign, log|det|) of square matrices (sign 0 and -inf for a singular one), as
    `keras.ops.slogdet`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> sign, logdet = pd.ops.slogdet(np.array([[0.0, 2.0], [1.0, 0.0]]))
        >>> float(sign.numpy()), round(float(logdet.numpy()), 6)
        (-1.0, 0.693147)
    """
    return tuple(_la.slogdet_op(_matrix(x, "slogdet")))


def det(x):
    """Determinants of square matrices (sign * exp(log|det|)), as `keras.ops.linalg.det`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> round(float(pd.ops.linalg.det(np.array([[1.0, 2.0], [3.0, 4.0]])).numpy()), 5)
        -2.0
    """
    sign, logdet = _la.slogdet_op(_matrix(x, "det"))
    return sign * exp(logdet)


def logdet(x):
    """log(det(x)) of positive definite matrices (the log|det| of slogdet), as
    `keras.ops.logdet`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> round(float(pd.ops.logdet(np.array([[2.0, 0.0], [0.0, 3.0]])).numpy()), 5)
        1.79176
    """
    return _la.slogdet_op(_matrix(x, "logdet"))[1]


# ---- norms and what the SVD gives ------------------------------------------------------------

def _axes(x, axis, op):
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    if not 1 <= len(axes) <= 2 or not all(isinstance(a, numbers.Integral) and
                                          -x.ndim <= a < x.ndim for a in axes):
        raise ValueError(at_user(f"{op}: expected axis as one or two axes of a rank-{x.ndim} "
                                 f"tensor, received {axis!r}"))
    axes = tuple(int(a) % x.ndim for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(at_user(f"{op}: expected two different axes, received {axis!r}"))
    return axes


def _vector_norm(x, ord, axis, keepdims):
    a = _abs(x)
    if ord is None or ord == 2:
        return sqrt(_sum(x * x, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return _max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum(cast(greater(a, 0.0), x.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(a, axis=axis, keepdims=keepdims)
    return pow(_sum(pow(a, float(ord)), axis=axis, keepdims=keepdims), 1.0 / float(ord))


def _moved_last(x, axes):
    """x with the two `axes` moved last (in that order)."""
    rest = [a for a in range(x.ndim) if a not in axes]
    return transpose(x, tuple(rest) + axes)


def _matrix_norm(x, ord, axes, keepdims):
    r, c = axes
    a = _abs(x)
    if ord in ("fro", "f", None):
        y = sqrt(_sum(x * x, axis=axes, keepdims=True))
    elif ord in (1, -1):
        sums = _sum(a, axis=r, keepdims=True)
        y = _max(sums, axis=c, keepdims=True) if ord == 1 else _min(sums, axis=c, keepdims=True)
    elif ord in (np.inf, -np.inf):
        sums = _sum(a, axis=c, keepdims=True)
        y = _max(sums, axis=r, keepdims=True) if ord == np.inf else \
            _min(sums, axis=r, keepdims=True)
    else:  # 2, -2, "nuc": from the singular values of the matrices on axes (r, c)
        s = _la.svd_op(_moved_last(x, axes), 0)
        y = _max(s, axis=-1) if ord == 2 else _min(s, axis=-1) if ord == -2 else \
            _sum(s, axis=-1)
        for a in sorted(axes):
            y = expand_dims(y, a)
    return y if keepdims else squeeze(y, axes)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norms, as `keras.ops.linalg.norm` (jnp.linalg.norm).

    Args:
        x: tensor; int64 computes in float32, as Keras.
        ord: vector norms: None/2, 1, inf, -inf, 0 (count of non-zeros), any p;
            matrix norms (two axes): None/"fro", "nuc", 1, -1, 2, -2, inf, -inf.
        axis: None (the whole tensor as a vector for ord=None; a matrix when 2-D), an axis
            (vector norm) or two (matrix norm).
        keepdims: keep the reduced axes with size 1.

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.ops.linalg.norm(np.array([3.0, 4.0])).numpy())
        5.0
    """
    op = "norm"
    x = _float(x, op)
    axes = _axes(x, axis, op)
    if axes is None:
        if ord is None:
            y = sqrt(_sum(x * x))
            if keepdims:
                for a in range(x.ndim):
                    y = expand_dims(y, 0)
            return y
        if x.ndim not in (1, 2):
            raise ValueError(at_user(f"{op}: an ord needs axis for a rank-{x.ndim} tensor "
                                     f"(ord={ord!r})"))
        axes = tuple(range(x.ndim))
    if len(axes) == 1:
        if isinstance(ord, str) or (not isinstance(ord, numbers.Real) and ord is not None):
            raise ValueError(at_user(f"{op}: {ord!r} is not a vector norm order"))
        return _vector_norm(x, ord, axes[0], keepdims)
    if ord not in (None, "fro", "f", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        raise ValueError(at_user(f"{op}: expected a matrix norm order (None, 'fro', 'nuc', "
                                 f"1, -1, 2, -2, inf, -inf), received {ord!r}"))
    return _matrix_norm(x, ord, axes, keepdims)


def _svd_cutoff(s, rcond, rows, cols, default_scale):
    """rcond * max singular value, per matrix (rcond None: default_scale * max(m, n) * eps)."""
    eps = float(np.finfo(s.dtype).eps)
    rcond = default_scale * max(rows, cols) * eps if rcond is None else float(rcond)
    return _max(s, axis=-1, keepdims=True) * rcond


def pinv(x, rcond=None):
    """Moore-Penrose pseudo-inverse from the SVD, as `keras.ops.linalg.pinv` (singular
    values up to rcond * the largest dropped; default 10 * max(m, n) * eps).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.linalg.pinv(np.array([[2.0, 0.0], [0.0, 0.0]])).numpy().tolist()
        [[0.5, 0.0], [0.0, 0.0]]
    """
    a = _matrix(x, "pinv", square=False)
    u, s, vt = _la.svd_op(a, 1)
    cutoff = _svd_cutoff(s, rcond, *a.shape[-2:], default_scale=10.0)
    keep = greater(s, cutoff)
    s_inv = where(keep, 1.0 / where(keep, s, 1.0), 0.0)
    return matmul(mT(vt) * expand_dims(s_inv, -2), u, transpose_b=True)


def matrix_rank(x, tol=None):
    """The number of singular values above tol (default: the largest times max(m, n) *
    eps), int32, as `keras.ops.linalg.matrix_rank`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> int(pd.ops.linalg.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]])).numpy())
        1
    """
    a = _matrix(x, "matrix_rank", square=False)
    s = _la.svd_op(a, 0)
    if tol is None:
        cutoff = _svd_cutoff(s, None, *a.shape[-2:], default_scale=1.0)
    else:
        cutoff = as_tensor(tol)
        cutoff = expand_dims(cast(cutoff, s.dtype), -1) if cutoff.ndim else cast(cutoff, s.dtype)
    return cast(_sum(cast(greater(s, cutoff), "int32"), axis=-1), "int32")


def lstsq(a, b, rcond=None):
    """The least-squares solution of a @ x = b from the SVD, as `keras.ops.linalg.lstsq`
    (jnp.linalg.lstsq: singular values below rcond * the largest dropped; default
    max(m, n) * eps).

    Args:
        a: (m, n) matrix.
        b: (m,) or (m, k).

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> pd.ops.linalg.lstsq(a, np.array([1.0, 1.0, 3.0])).numpy().round(5).tolist()
        [1.33333, 1.33333]
    """
    op = "lstsq"
    a = _matrix(a, op, square=False)
    b = _float(b, op)
    if a.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ShapeError(at_user(f"{op}: expected a (m, n) and b (m,) or (m, k) with the same "
                                 f"m, received shapes {a.shape} and {b.shape}"))
    if b.dtype != a.dtype:
        a, b = cast(a, "float64"), cast(b, "float64")
    vector = b.ndim == 1
    if vector:
        b = expand_dims(b, -1)
    u, s, vt = _la.svd_op(a, 1)
    keep = greater_equal(s, _svd_cutoff(s, rcond, *a.shape, default_scale=1.0))
    s_inv = where(keep, 1.0 / where(keep, s, 1.0), 0.0)
    x = matmul(vt, matmul(u, b, transpose_a=True) * expand_dims(s_inv, -1), transpose_a=True)
    return squeeze(x, -1) if vector else x


# ---- forward-mode derivative -----------------------------------------------------------------

def jvp(fun, primals, tangents, has_aux=False):
    """The Jacobian-vector product of `fun` at `primals` along `tangents`, as
    `keras.ops.linalg.jvp`, computed as two reverse passes (the vector-Jacobian product
    with a stand-in cotangent u is linear in u; its gradient with respect to u, weighted
    by the tangents, is J t).

    Args:
        fun: builds one output tensor (or (output, aux) when has_aux) from the primals.
        primals, tangents: tuples (or lists) of tensors of matching shapes.

    Returns:
        (output, J @ tangents), or (output, J @ tangents, aux) when has_aux.

    Example:
        >>> import numpy as np, paddle as pd
        >>> primals, tangents = (np.array([3.0]),), (np.array([1.0]),)
        >>> out, tangent = pd.ops.linalg.jvp(lambda x: x * x, primals, tangents)
        >>> tangent.numpy().tolist()
        [6.0]
    """
    op = "jvp"
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)) or \
            len(primals) != len(tangents):
        raise ValueError(at_user(f"{op}: expected primals and tangents as tuples of one "
                                 f"length, received {type(primals).__name__} and "
                                 f"{type(tangents).__name__}"))
    xs = [as_tensor(p) for p in primals]
    ts = [as_tensor(t) for t in tangents]
    # Values given: the products are still taken on a graph (built here, run once below).
    concrete = not eager.is_tracing() and all(eager.is_concrete(v) for v in xs + ts)
    with eager.tracing():
        for x, t in zip(xs, ts):
            if x.shape != t.shape:
                raise ShapeError(at_user(f"{op}: expected each tangent of its primal's shape, "
                                         f"received {t.shape} for {x.shape}"))
        result = fun(*xs)
        out, aux = result if has_aux else (result, None)
        if not isinstance(out, Variable):
            raise TypeError(at_user(f"{op}: expected fun to return one tensor"
                                    f"{' (and aux)' if has_aux else ''}, received "
                                    f"{type(out).__name__}"))
        # u: a stand-in cotangent; the gradient is linear in it, so its value never matters
        u = zeros_like(out) + 0.0
        vjps = gradients(out, xs, grad_ys=u)
        terms = [v for v in vjps if v is not None]
        if not terms:
            tangent_out = zeros_like(out)
        else:
            weighted = [_sum(v * cast(t, v.dtype)) for v, t in zip(vjps, ts) if v is not None]
            total = weighted[0]
            for w in weighted[1:]:
                total = total + w
            tangent_out = gradients(total, [u])[0]
            tangent_out = zeros_like(out) if tangent_out is None else tangent_out
    if concrete:
        out, tangent_out = (eager.tensor(_eval(v)) for v in (out, tangent_out))
        if isinstance(aux, Variable) and not isinstance(aux, eager.EagerTensor):
            aux = eager.tensor(_eval(aux))
    return (out, tangent_out, aux) if has_aux else (out, tangent_out)
