"""Complex values and bitcasts: `pd.ops.view`, `view_as_real`, `view_as_complex`, `polar`,
`linalg.eig`, and `real`, `imag`, `conj`, `abs`, `angle` on complex64/complex128, against
NumPy, numbers Keras 3.15 on JAX gave (stored below) and live Keras in a subprocess (skipped
without its venv); gradient checks of real losses through them; the refusals of every
other op; on the CPU and the simulated CUDA backend."""
import os
import subprocess
import textwrap

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

ops = pd.ops
RNG = np.random.default_rng(26)
HERE = os.path.basename(__file__)
KERAS_PYTHON = os.environ.get("PADDLE_KERAS_PYTHON", "/work/kvenv/bin/python")


def cplx(*shape, dtype=np.complex64):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def same(got, want, atol=1e-6):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        ((got.dtype, got.shape), (want.dtype, want.shape))
    np.testing.assert_allclose(got, want, atol=atol, rtol=1e-5)


# ---- view (bitcast) ----------------------------------------------------------------------

@pytest.mark.parametrize("source, target", [
    ("int32", "float32"), ("float32", "int32"), ("float64", "int32"), ("int32", "int64"),
    ("int64", "float32"), ("float32", "complex64"), ("complex128", "float64"),
    ("complex64", "int64"), ("float64", "complex64")])
def test_view_is_numpys_view(device, source, target):
    x = (RNG.standard_normal((3, 4)) * 100).astype(source)
    same(ops.view(x, target), x.view(target), atol=0)
    fed = pd.data("x", shape=[None, 4], dtype=source)       # graph mode, unknown batch
    y = ops.view(fed, target)
    assert y.dtype == target and y.shape == (None, x.view(target).shape[-1])
    np.testing.assert_array_equal(pd.eval(y, {fed: x}), x.view(target))


def test_view_keeps_shape_and_dtype_rules():
    assert ops.view(np.array([1, 2, 3], np.int32), "float32").numpy().tolist() == \
        np.array([1, 2, 3], np.int32).view(np.float32).tolist()   # Keras's docstring example
    x = pd.data("x", shape=[2, None], dtype="float32")
    assert ops.view(x, "float64").shape == (2, None)
    assert ops.view(x, None) is x
    assert ops.view(np.float32(1.0), "int32").numpy() == 1065353216   # same item size: rank 0


@pytest.mark.parametrize("x, dtype, error, words", [
    (np.array([1, 2, 3], np.int32), "int64", ValueError, "not a multiple of int64's 8"),
    (np.int32(1), "int64", ValueError, "cannot view a scalar"),
    (np.array([1, 2], np.int32), "bool", TypeError, "expected a numeric dtype"),
    (np.array([1, 2], np.int32), "float33", ValueError, "expected a dtype"),
    (np.array([1.0, 2.0], np.float32), "uint16", ValueError, "expected one of"),
])
def test_view_errors_name_the_line(x, dtype, error, words):
    with pytest.raises(error, match=words) as e:
        ops.view(x, dtype)
    assert HERE in str(e.value)


def test_view_has_no_gradient_between_real_dtypes():
    x = pd.data("x", shape=[4], dtype="float32")
    y = ops.view(ops.view(x, "int32"), "float32")
    assert pd.gradients(pd.sum(y), [x]) == [None]


# ---- view_as_real, view_as_complex, polar ---------------------------------------------

@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_view_as_real_and_back(device, dtype):
    z = cplx(2, 3, dtype=dtype)
    pairs = np.stack([z.real, z.imag], axis=-1)
    same(ops.view_as_real(z), pairs, atol=0)
    same(ops.view_as_complex(pairs), z.astype(np.complex64), atol=0)   # Keras: complex64
    same(ops.squeeze(ops.view(pairs, dtype), -1), z, atol=0)   # view keeps float64 pairs
    same(ops.view_as_real(z[0, 0]), pairs[0, 0], atol=0)          # a scalar: shape (2,)
    fed = pd.data("z", shape=[None, 3], dtype=dtype)
    back = ops.view_as_complex(ops.view_as_real(fed))
    assert back.shape == (None, 3) and back.dtype == "complex64"
    np.testing.assert_array_equal(pd.eval(back, {fed: z}), z.astype(np.complex64))


def test_view_as_complex_dtypes_and_errors():
    assert ops.view_as_complex(np.array([[1, 2]], np.int32)).dtype == "complex64"
    assert ops.view_as_complex(np.array([1.0, 2.0])).dtype == "complex64"   # as Keras
    same(ops.view_as_real(np.array([1.5, -2.0], np.float32)),
         np.array([[1.5, 0.0], [-2.0, 0.0]], np.float32))           # a real input: im 0
    for bad in (np.ones((2, 3), np.float32), np.float32(1.0), np.ones(2, np.complex64)):
        with pytest.raises(ValueError, match="must be size 2") as e:
            ops.view_as_complex(bad)
        assert HERE in str(e.value)


def test_polar(device):
    r, t = RNG.uniform(0, 3, (3, 4)), RNG.uniform(-4, 4, (3, 4))
    same(ops.polar(r, t), r * np.exp(1j * t))                             # float64: complex128
    same(ops.polar(r.astype(np.float32), t.astype(np.float32)),
         (r * np.exp(1j * t)).astype(np.complex64))
    assert ops.polar(np.array([1, 2]), np.array([0, 1])).dtype == "complex64"
    assert ops.nn.polar is ops.polar
    with pytest.raises(TypeError, match="expected `angle` as a real tensor") as e:
        ops.polar(np.ones(2), np.ones(2, np.complex64))
    assert HERE in str(e.value)


# ---- real, imag, conj, abs, angle -----------------------------------------------------

@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_elementwise_on_complex(device, dtype):
    z = cplx(3, 5, dtype=dtype)
    z[0, :3] = [0, -2.0, 1e30 + 1e30j if dtype == "complex128" else 3e19 + 3e19j]
    part = z.real.dtype
    same(ops.real(z), z.real, atol=0)
    same(ops.imag(z), z.imag, atol=0)
    same(ops.conj(z), np.conj(z), atol=0)
    same(ops.conjugate(z), np.conj(z), atol=0)
    same(ops.abs(z), np.abs(z).astype(part))          # no overflow in between
    same(ops.absolute(z), np.abs(z).astype(part))
    same(ops.angle(z), np.angle(z).astype(part))
    same(ops.isreal(z), np.isreal(z))
    fed = pd.data("z", shape=[None, 5], dtype=dtype)   # graph mode
    outs = [ops.real(fed), ops.imag(fed), ops.abs(fed), ops.angle(fed), ops.conj(fed)]
    got = pd.eval(outs, {fed: z})
    for g, w in zip(got, [z.real, z.imag, np.abs(z), np.angle(z), np.conj(z)]):
        np.testing.assert_allclose(g, w.astype(g.dtype), rtol=1e-6)


def test_real_inputs_unchanged():
    x = np.array([-1.5, 2.0], np.float32)
    same(ops.abs(x), np.abs(x))
    same(ops.real(x), x)
    same(ops.conj(x), x)
    same(ops.imag(x), np.zeros(2, np.float32))


def test_feeding_complex():
    fed = pd.data("z", shape=[2], dtype="complex64")
    np.testing.assert_array_equal(pd.eval(ops.imag(fed), {fed: np.array([1.0, 2.0])}), [0, 0])
    plain = pd.data("x", shape=[2], dtype="float32")
    with pytest.raises(pd.FeedError, match="complex"):
        pd.eval(plain * 2.0, {plain: np.array([1j, 2j])})
    with pytest.raises(TypeError, match="complex"):
        pd.constant(np.array([1j]), dtype="float32")


# ---- every other op refuses complex values -------------------------------------------

@pytest.mark.parametrize("build", [
    lambda z: z + z, lambda z: pd.exp(z), lambda z: ops.sum(z), lambda z: ops.matmul(z, z),
    lambda z: pd.cast(z, "float32"), lambda z: ops.sort(z), lambda z: ops.fabs(z),
    lambda z: ops.linalg.eig(ops.reshape(z, (2, 2)))])
def test_other_ops_refuse_complex(build):
    z = ops.view_as_complex(np.ones((4, 2), np.float32))
    with pytest.raises(TypeError, match="complex64") as e:
        build(z)
    assert HERE in str(e.value)


def test_refusal_in_graph_mode():
    fed = pd.data("z", shape=[None, 2], dtype="complex128")
    with pytest.raises(TypeError, match="complex128") as e:
        pd.tanh(fed)
    assert HERE in str(e.value)


# ---- eig ----------------------------------------------------------------------------------

# Keras 3.15.1 on JAX (CPU): keras.ops.eig of these float32 matrices.
KERAS_EIG = [
    (np.array([[0.0, 1.0], [-2.0, -3.0]], np.float32),
     np.array([-1.0, -2.0], np.complex64),
     np.array([[0.70710677, -0.4472136], [-0.70710677, 0.89442724]], np.complex64)),
    (np.array([[0.0, -1.0], [1.0, 0.0]], np.float32),
     np.array([1j, -1j], np.complex64),
     np.array([[0.70710677, 0.70710677], [-0.70710677j, 0.70710677j]], np.complex64)),
]


@pytest.mark.parametrize("case", range(len(KERAS_EIG)))
def test_eig_as_keras_on_jax(device, case):
    a, w, v = KERAS_EIG[case]
    got_w, got_v = ops.eig(a)
    same(got_w, w)
    same(got_v, v)


def _unphased(v):
    top = np.take_along_axis(v, np.abs(v).argmax(axis=-2)[..., None, :], axis=-2)
    return v * (np.abs(top) / top)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eig_against_numpy(device, dtype):
    a = RNG.standard_normal((3, 5, 5)).astype(dtype)
    w, v = ops.linalg.eig(a)
    out = {"float32": "complex64", "float64": "complex128"}[dtype]
    assert (w.dtype, v.dtype, w.shape, v.shape) == (out, out, (3, 5), (3, 5, 5))
    w, v = w.numpy(), v.numpy()
    want_w, want_v = np.linalg.eig(a)          # the same LAPACK routine (geev)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(w, want_w, atol=tol)
    # A real eigenvector's sign is LAPACK-build dependent (NumPy's and the linked BLAS's
    # differ at float32): compare each column divided by its largest component's phase.
    np.testing.assert_allclose(_unphased(v), _unphased(want_v), atol=tol * 10)
    np.testing.assert_allclose(np.abs(np.sort_complex(w)), np.abs(np.sort_complex(want_w)),
                               atol=tol)
    np.testing.assert_allclose(a @ v, v * w[:, None, :], atol=tol * 10)  # A v = v w
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, atol=tol)


def test_eig_inputs_and_errors():
    w, _ = ops.eig(np.array([[1, 2], [3, 4]], np.int32))
    assert w.dtype == "complex64"
    np.testing.assert_allclose(w.numpy(), [-0.37228107, 5.3722816], rtol=1e-6)  # Keras's
    for bad in (np.nan, np.inf):                  # JAX: NaN everywhere
        w, v = ops.eig(np.array([[[bad, 1.0], [2.0, 3.0]], [[1.0, 0.0], [0.0, 2.0]]]))
        assert np.isnan(w.numpy()[0]).all() and np.isnan(v.numpy()[0]).all()
        np.testing.assert_allclose(w.numpy()[1], [1.0, 2.0])   # the next matrix unharmed
    empty_w, empty_v = ops.eig(np.zeros((2, 0, 0), np.float32))
    assert empty_w.shape == (2, 0) and empty_v.shape == (2, 0, 0)
    for bad, words in ((np.ones((2, 3), np.float32), "square"),
                       (np.ones(3, np.float32), "rank >= 2")):
        with pytest.raises(ValueError, match=words) as e:
            ops.eig(bad)
        assert HERE in str(e.value)
    with pytest.raises(TypeError, match="expected a real .* received complex64") as e:
        ops.eig(np.eye(2, dtype=np.complex64))
    assert HERE in str(e.value)
    with pytest.raises(ValueError, match="no gradient"):
        x = pd.data("x", shape=[2, 2])
        pd.gradients(ops.real(ops.eig(x)[0])[0], [x])


def test_eig_kernel_checks_its_arguments():
    a = np.eye(2, dtype=np.float32)
    with pytest.raises(TypeError):
        pd._C.linalg_eig(a, np.empty(4, np.float64), np.empty(8, np.float32), 1, 2)
    with pytest.raises(ValueError):
        pd._C.linalg_eig(a, np.empty(3, np.float32), np.empty(8, np.float32), 1, 2)


# ---- gradients of real losses through complex values ------------------------------------

def test_gradients_through_polar():
    r, t = RNG.uniform(0.5, 2, (2, 3)), RNG.uniform(-3, 3, (2, 3))
    check_gradients(lambda r, t: ops.view_as_real(ops.polar(r, t)), [r, t])
    check_gradients(lambda r, t: [ops.real(ops.polar(r, t)), ops.imag(ops.polar(r, t))], [r, t])


def complex128(x):
    """float64 pairs (..., 2) as complex128 (view_as_complex would narrow to complex64)."""
    return ops.squeeze(ops.view(x, "complex128"), -1)


def test_gradients_through_abs_angle_conj():
    x = RNG.uniform(0.5, 2, (3, 2)) * np.array([1, -1])
    check_gradients(lambda x: ops.abs(complex128(x)), [x])
    check_gradients(lambda x: ops.angle(complex128(x)), [x])
    check_gradients(lambda x: ops.view_as_real(ops.conj(complex128(x))), [x])

    def twice(x):  # one complex value read twice: its gradients are summed as float pairs
        z = complex128(x)
        return ops.real(z) * ops.imag(z) + ops.abs(z)
    check_gradients(twice, [x])
    # view_as_complex (complex64, a float32 cast first) passes gradients too
    check_gradients(lambda x: ops.abs(ops.view_as_complex(x)), [x], eps=1e-3, atol=1e-3,
                    rtol=1e-3)


def test_gradient_with_respect_to_a_complex_input():
    z = pd.data("z", shape=[2], dtype="complex128")
    loss = ops.sum(ops.abs(z) ** 2)          # |z|^2: d/dre + i d/dim = 2 z
    (g,) = pd.gradients(loss, [z])
    assert g.dtype == "complex128"
    value = np.array([3 + 4j, -1 + 0.5j])
    np.testing.assert_allclose(pd.eval(g, {z: value}), 2 * value)


# ---- live Keras --------------------------------------------------------------------------

def test_against_live_keras(tmp_path):
    if not os.path.exists(KERAS_PYTHON):
        pytest.skip(f"no Keras venv at {KERAS_PYTHON} (set PADDLE_KERAS_PYTHON)")
    r = RNG.uniform(0, 2, (3, 4)).astype(np.float32)
    t = RNG.uniform(-3, 3, (3, 4)).astype(np.float32)
    z = cplx(3, 4)
    m = RNG.standard_normal((2, 4, 4)).astype(np.float32)
    i = np.arange(8, dtype=np.int32).reshape(2, 4)
    np.savez(tmp_path / "in.npz", r=r, t=t, z=z, m=m, i=i)
    code = f"""
        import numpy as np, keras
        from keras import ops
        d = np.load({str(tmp_path / "in.npz")!r})
        out = dict(polar=ops.polar(d["r"], d["t"]), real=ops.real(d["z"]),
                   imag=ops.imag(d["z"]), conj=ops.conj(d["z"]), abs=ops.abs(d["z"]),
                   angle=ops.angle(d["z"]), vr=ops.view_as_real(d["z"]),
                   vc=ops.view_as_complex(d["m"][..., :2].reshape(2, 4, 2)),
                   view=ops.view(d["i"], "float32"), view2=ops.view(d["r"], "int32"),
                   eigw=ops.eig(d["m"])[0], eigv=ops.eig(d["m"])[1])
        np.savez({str(tmp_path / "out.npz")!r}, **{{k: np.asarray(v) for k, v in out.items()}})
    """
    env = dict(os.environ, KERAS_BACKEND="jax")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([KERAS_PYTHON, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    want = np.load(tmp_path / "out.npz")
    got = dict(polar=ops.polar(r, t), real=ops.real(z), imag=ops.imag(z), conj=ops.conj(z),
               abs=ops.abs(z), angle=ops.angle(z), vr=ops.view_as_real(z),
               vc=ops.view_as_complex(m[..., :2].reshape(2, 4, 2)),
               view=ops.view(i, "float32"), view2=ops.view(r, "int32"),
               eigw=ops.eig(m)[0], eigv=ops.eig(m)[1])
    for name, value in got.items():
        value, expected = value.numpy(), want[name]
        assert value.dtype == expected.dtype and value.shape == expected.shape, name
        np.testing.assert_allclose(value, expected, atol=2e-5, rtol=1e-5, err_msg=name)
