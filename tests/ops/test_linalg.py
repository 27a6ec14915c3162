"""pd.ops.linalg against numpy.linalg (and numbers computed once with Keras 3.15 on JAX),
the decompositions' gradient checks, JAX's answers for singular and indefinite input,
batching, dtypes and errors. Runs on the CPU (LAPACK) and the simulated CUDA backend."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(3)
la = pd.ops.linalg


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def spd(*batch, n=4):
    a = RNG.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


def close(got, want, atol=1e-4):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, atol=atol, rtol=1e-4)


def test_solves_and_inverse(device):
    a, b = rand(2, 4, 4) + 4 * np.eye(4, dtype=np.float32), rand(2, 4, 3)
    close(la.solve(a, b), np.linalg.solve(a, b))
    close(la.solve(a[0], b[0, :, 0]), np.linalg.solve(a[0], b[0, :, 0]))   # a vector b
    close(la.solve(a, b[0]), np.linalg.solve(a, b[0]))      # b's batch broadcast
    close(la.inv(a), np.linalg.inv(a))
    low = np.tril(a)
    close(la.solve_triangular(a, b, lower=True), np.linalg.solve(low, b))
    close(la.solve_triangular(a, b[:, :, 0]),                # (..., n): a batch of vectors
          np.linalg.solve(np.triu(a), b[:, :, :1])[..., 0])


def test_determinants(device):
    a = rand(3, 4, 4)
    sign, logdet = np.linalg.slogdet(a)
    got_sign, got_log = pd.ops.slogdet(a)
    close(got_sign, sign)
    close(got_log, logdet)
    close(la.det(a), np.linalg.det(a), atol=1e-3)
    pos = spd(2)
    close(pd.ops.logdet(pos), np.linalg.slogdet(pos)[1])


def test_singular_and_indefinite_inputs_as_jax(device):
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
    assert la.det(singular).numpy() == 0.0
    sign, logdet = pd.ops.slogdet(singular)
    assert sign.numpy() == 0.0 and logdet.numpy() == -np.inf
    assert not np.isfinite(la.inv(singular).numpy()).any()
    assert not np.isfinite(la.solve(singular, np.ones((2, 1), np.float32)).numpy()).any()
    batch = np.stack([spd(n=3), -np.eye(3, dtype=np.float32)])
    factors = la.cholesky(batch).numpy()
    np.testing.assert_allclose(factors[0], np.linalg.cholesky(batch[0]), atol=1e-5)
    assert np.isnan(factors[1]).all()


def test_cholesky_family(device):
    a = spd(2)
    low = np.linalg.cholesky(a)
    close(la.cholesky(a), low)
    close(la.cholesky(a, upper=True), np.swapaxes(low, -1, -2))
    # JAX reads (a + a^T) / 2: an asymmetric input factors its symmetric part
    skew = a + np.array([[0.0, 1.0, 0, 0], [-1.0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    close(la.cholesky(skew.astype(np.float32)), low)
    close(la.cholesky_inverse(low[0]), np.linalg.inv(a[0]))
    close(la.cholesky_inverse(low[0].T.copy(), upper=True), np.linalg.inv(a[0]))


def test_eigh_svd_qr_lu(device):
    a = spd(2)
    w, v = la.eigh(a)
    close(w, np.linalg.eigvalsh(a))
    close(v.numpy() @ (w.numpy()[..., None] * np.swapaxes(v.numpy(), -1, -2)), a, atol=1e-3)
    x = rand(2, 5, 3)
    u, s, vt = la.svd(x)
    assert u.shape == (2, 5, 5) and vt.shape == (2, 3, 3)
    close(s, np.linalg.svd(x, compute_uv=False))
    u, s, vt = la.svd(x, full_matrices=False)
    close((u.numpy() * s.numpy()[..., None, :]) @ vt.numpy(), x)
    close(la.svd(x, compute_uv=False), np.linalg.svd(x, compute_uv=False))
    q, r = la.qr(x)
    assert q.shape == (2, 5, 3) and r.shape == (2, 3, 3)
    close(q.numpy() @ r.numpy(), x)
    close(np.triu(r.numpy()), r.numpy())
    q, r = la.qr(x[0].T.copy(), mode="complete")
    assert q.shape == (3, 3) and r.shape == (3, 5)
    close(q.numpy() @ r.numpy(), x[0].T)
    lu, piv = la.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    close(lu, [[3.0, 4.0], [1 / 3, 2 / 3]])
    assert piv.dtype == "int32" and piv.numpy().tolist() == [1, 1]
    lu, piv = la.lu_factor(rand(2, 3, 5))
    assert lu.shape == (2, 3, 5) and piv.shape == (2, 3)


def test_norms(device):
    x = rand(2, 3, 4)
    close(la.norm(x), np.linalg.norm(x))
    m = x[0]
    for ord in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        close(la.norm(m, ord=ord), np.linalg.norm(m, ord=ord))
    for ord in (None, 1, 2, 3, 0, np.inf, -np.inf, 0.5):
        close(la.norm(x, ord=ord, axis=1), np.linalg.norm(x, ord=ord, axis=1))
    close(la.norm(x, ord=2, axis=(2, 1)), np.linalg.norm(x, ord=2, axis=(2, 1)))
    close(la.norm(x, axis=(0, 2), keepdims=True), np.linalg.norm(x, axis=(0, 2), keepdims=True))
    assert la.norm(np.arange(6).reshape(2, 3)).dtype == "float32"   # int64 -> float32


def test_pinv_rank_lstsq(device):
    x = rand(2, 5, 3)
    close(la.pinv(x), np.linalg.pinv(x))
    rank2 = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32)
    got = la.matrix_rank(rank2)
    assert got.dtype == "int32" and int(got.numpy()) == 2
    assert la.matrix_rank(x, tol=0.5).numpy().tolist() == \
        np.linalg.matrix_rank(x, tol=0.5).tolist()
    a, b = rand(6, 3), rand(6, 2)
    close(la.lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)[0])
    close(la.lstsq(a, b[:, 0]), np.linalg.lstsq(a, b[:, 0], rcond=None)[0])


def test_jvp():
    x, t = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 2.0])
    out, tangent = la.jvp(lambda v: v * v * 2.0, (x,), (t,))
    close(out, 2 * x * x)
    close(tangent, 4 * x * t)
    a, ta = rand(3, 3) + 3 * np.eye(3, dtype=np.float32), rand(3, 3)
    out, tangent, aux = la.jvp(lambda m: (la.det(m), m * 2.0), (a,), (ta,), has_aux=True)
    # d det = det * trace(a^-1 da)
    want = np.linalg.det(a) * np.trace(np.linalg.solve(a, ta))
    close(tangent, np.float32(want), atol=1e-3)
    close(aux, a * 2)


def test_dtypes_and_shapes():
    ints = np.eye(3, dtype=np.int32)
    assert la.inv(ints).dtype == "float32"
    assert la.det(np.eye(3)).dtype == "float64"
    x = pd.data("mats", shape=[None, 4, 4])
    assert la.inv(x).shape == (None, 4, 4)
    assert la.eigh(x)[0].shape == (None, 4)
    assert pd.ops.slogdet(x)[1].shape == (None,)
    assert la.svd(pd.data("wide", shape=[None, 3, 5]))[0].shape == (None, 3, 3)


def test_gradients():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    sym = a[0] @ a[0].T + 3 * np.eye(3)
    check_gradients(la.solve, [a, rng.standard_normal((2, 3, 2))])
    check_gradients(lambda m, b: la.solve_triangular(m, b, lower=True),
                    [a[0], rng.standard_normal((3, 2))])
    check_gradients(la.inv, [a[0]])
    check_gradients(la.det, [a])
    check_gradients(lambda m: pd.ops.slogdet(m)[1], [a])
    check_gradients(la.cholesky, [sym])
    check_gradients(la.eigh, [rng.standard_normal((3, 3))])
    check_gradients(lambda m: la.svd(m, full_matrices=False), [rng.standard_normal((4, 3))])
    check_gradients(lambda m: la.svd(m, full_matrices=False), [rng.standard_normal((2, 4))])
    check_gradients(lambda m: la.svd(m, compute_uv=False), [rng.standard_normal((4, 3))])
    check_gradients(la.qr, [rng.standard_normal((4, 3))])
    check_gradients(la.pinv, [rng.standard_normal((4, 3))])
    check_gradients(la.lstsq, [rng.standard_normal((5, 3)), rng.standard_normal((5, 2))])
    check_gradients(lambda m: la.norm(m, "nuc"), [rng.standard_normal((3, 4))])


def test_errors():
    with pytest.raises(ValueError, match=r"inv: expected square matrices, received shape "
                                         r"\(2, 3\) \(at test_linalg.py:\d+\)"):
        la.inv(rand(2, 3))
    with pytest.raises(ValueError, match=r"rank >= 2"):
        la.det(rand(3))
    with pytest.raises(pd.ShapeError, match=r"b of shape \(\.\.\., 3\).*received shape \(4,\)"):
        la.solve(rand(3, 3), rand(4))
    with pytest.raises(pd.ShapeError, match=r"do not broadcast"):
        la.solve(rand(2, 3, 3), rand(4, 3, 1))
    with pytest.raises(ValueError, match=r"mode 'reduced' or 'complete', received 'r'"):
        la.qr(rand(3, 3), mode="r")
    with pytest.raises(ValueError, match=r"not a vector norm order"):
        la.norm(rand(3, 4), ord="fro", axis=1)
    with pytest.raises(pd.ShapeError, match=r"no gradient for full_matrices=True of a "
                                            r"non-square"):
        x = pd.data("x", shape=(4, 3))  # a graph (an op on a constant runs at once)
        pd.gradients(pd.sum(la.svd(x)[0]), [x])
