"""The float32 transcendental kernels (csrc/vmath.h): within a few float32 ulps of float64
libm over dense grids and at the edges (0, -0, denormals, huge values, infinities, NaN, the
approximations' interval boundaries), in every vector build this CPU runs; float64 keeps
the C library. References are NumPy's float64 functions, math.erf and math.erfc, and the
power series of I0 summed in float64 (no SciPy, no torch)."""
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paddle as pd
from paddle import _C
from paddle.lowlevel.ops import math as pmath
from paddle.lowlevel.ops import special
from gradcheck import check_gradients

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _erfinv(y):
    # Newton on erf from a float64 start: exact to float64 rounding on (-1, 1).
    y = np.asarray(y, np.float64)
    x = np.zeros_like(y)
    inside = np.abs(y) < 1
    for _ in range(60):
        step = (_erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
        x = np.where(inside, x - np.clip(step, -1, 1), x)
    return np.where(np.abs(y) == 1, np.copysign(np.inf, y), np.where(inside, x, np.nan))


_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _bessel_i(x, order):
    # The power series sum (x/2)^(2k+n) / (k! (k+n)!): every term positive, so float64 sums
    # it to its rounding; beyond 100 (where float32's I0 and I1 are long infinite), inf.
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    h = np.where(a <= 100, a, 0.0) / 2.0
    term = np.ones_like(h) if order == 0 else h.copy()
    total = term.copy()
    for k in range(1, 400):
        term = term * h * h / (k * (k + order))
        total = total + term
    total = np.where(a <= 100, total, np.inf)
    total = np.copysign(total, x) if order == 1 else total
    return np.where(np.isnan(x), np.nan, total)


# erfc: 5.3 ulps from 1 on (4.3 from 2); up to 11 just below 1, where it is 1 - erf(x)
# (as XLA's erfc) and erf(x) is 0.85.
ERFC_ULPS = 12
I0_ULPS = 5.5  # 4.8 (the Chebyshev sums' roundings, and exp's)

# name: (the op, float64 reference, the largest error in float32 ulps)
UNARY = {
    "exp": (pmath.exp, np.exp, 1.5),
    "log": (pmath.log, np.log, 1.5),
    "log1p": (pmath.log1p, np.log1p, 2),
    "sigmoid": (pmath.sigmoid, lambda x: 1 / (1 + np.exp(-x)), 3),
    "tanh": (pmath.tanh, np.tanh, 2),
    "erf": (pmath.erf, _erf, 8),  # 5.4 with FMA, 7.0 without (the SSE2 build)
    "sin": (special.sin, np.sin, 2),
    "cos": (special.cos, np.cos, 6),  # 2.5 with FMA, 5.5 without
    "arctan": (special.arctan, np.arctan, 3),
    "erfinv": (special.erfinv, _erfinv, 4),
    "erfc": (special.erfc, _erfc, ERFC_ULPS),
    "i0": (special.i0, lambda x: _bessel_i(x, 0), I0_ULPS),
    "exp2": (special.exp2, np.exp2, 2),
    "expm1": (special.expm1, np.expm1, 3),
    "log2": (special.log2, np.log2, 2),
    "log10": (special.log10, np.log10, 2),
    "sinh": (special.sinh, np.sinh, 4),
    "cosh": (special.cosh, np.cosh, 4),
    "arcsinh": (special.arcsinh, np.arcsinh, 4),  # 3.3 just above 1/2 (log's argument)
    "arccosh": (special.arccosh, np.arccosh, 3),
    "arctanh": (special.arctanh, np.arctanh, 4),
}


def _grid():
    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 1e-40, 1.2e-38,
             3.4e38, -3.4e38, 0.625, -0.625, 0.4142135, 2.4142137, 0.70710677, 88.72283,
             88.72284, -87.33, -103.97, -104.5, 8191.9, 8192.0, -8192.5, 1e5, 4.0, -4.0]
    return np.concatenate([
        np.linspace(-30, 30, 120001), np.linspace(-1, 1, 40001),
        rng.standard_normal(20000) * 10.0 ** rng.uniform(-8, 8, 20000),
        np.geomspace(1e-45, 3e38, 4000), -np.geomspace(1e-45, 3e38, 4000), edges,
    ]).astype(np.float32)


def _ulps(got, want):
    """|got - want| in units of float32's spacing at want; ±inf/NaN must match exactly."""
    with np.errstate(over="ignore"):  # beyond float32's range: inf, as the kernel gives
        want32 = want.astype(np.float32)
    finite = np.isfinite(want32)
    same = (got == want32) | (np.isnan(got) & np.isnan(want32))
    assert same[~finite].all(), (got[~finite][~same[~finite]], want32[~finite][~same[~finite]])
    spacing = np.maximum(np.spacing(np.abs(want32[finite])).astype(np.float64), 2.0 ** -149)
    return np.abs(got[finite].astype(np.float64) - want[finite]) / spacing


def _check_unary(name):
    op, ref, tol = UNARY[name]
    x = _grid()
    if name == "erfinv":
        x = np.concatenate([x[np.abs(x) <= 1.5], np.linspace(-1, 1, 20001, dtype=np.float32),
                            np.float32([0.9999999, -0.9999999, 1 - 2 ** -24])])
    if name in ("arctanh",):  # (-1, 1) densely, besides the grid
        x = np.concatenate([x, np.linspace(-1, 1, 40001, dtype=np.float32),
                            np.float32([1 - 2 ** -24, -(1 - 2 ** -24), 1e-30])])
    if name in ("arccosh",):
        x = np.concatenate([x, 1 + np.geomspace(1e-7, 10, 20001).astype(np.float32)])
    if name == "erfc":  # the pieces' boundaries (1, 2) and the tail into the denormals
        x = np.concatenate([x, np.linspace(-11, 11, 40001, dtype=np.float32),
                            np.float32([np.nextafter(np.float32(v), np.float32(d))
                                        for v in (1, 2, -1, -2, 10.5) for d in (0, 20)])])
    if name == "i0":  # around 8 (the series' boundary) and the overflow near 92
        x = np.concatenate([x, np.linspace(-100, 100, 40001, dtype=np.float32),
                            np.float32([np.nextafter(np.float32(v), np.float32(d))
                                        for v in (8, -8, 91.9, 95) for d in (0, 200)])])
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
    got = pd.eval(op(pd.constant(x)))
    assert got.dtype == np.float32
    u = _ulps(got, want)
    assert u.max() <= tol, (name, u.max())
    zero = x == 0
    if name not in ("exp", "log", "cos", "sigmoid", "erfinv", "exp2", "log2", "log10", "cosh",
                    "arccosh", "erfc", "i0"):  # odd functions keep -0
        assert (np.signbit(got[zero]) == np.signbit(x[zero])).all(), name


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float32_unary_within_a_few_ulps(name):
    _check_unary(name)


def test_float32_exact_values():
    # Integers to exp2, powers of two to log2 and of ten to log10 come out exact (float64
    # references: NumPy's float32 exp2(127) is one ulp above 2^127).
    n = np.arange(-149, 128, dtype=np.float32)
    powers = np.exp2(n.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(pd.eval(special.exp2(pd.constant(n))), powers)
    np.testing.assert_array_equal(pd.eval(special.log2(pd.constant(powers))), n)
    k = np.arange(-10, 11)
    tens = (10.0 ** k).astype(np.float32)
    got = pd.eval(special.log10(pd.constant(tens)))
    np.testing.assert_array_equal(got, np.log10(tens.astype(np.float64)).astype(np.float32))


def _pairs():
    edges = np.float32([0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 1e-40, -1e-40, 3e38, -3e38,
                        2.5, -0.3])
    rng = np.random.default_rng(1)
    a = rng.standard_normal(100000) * 10.0 ** rng.uniform(-5, 5, 100000)
    b = rng.standard_normal(100000) * 10.0 ** rng.uniform(-5, 5, 100000)
    return (np.concatenate([np.repeat(edges, edges.size), a]).astype(np.float32),
            np.concatenate([np.tile(edges, edges.size), b]).astype(np.float32))


def test_float32_arctan2_within_a_few_ulps():
    a, b = _pairs()
    with np.errstate(all="ignore"):
        want = np.arctan2(a.astype(np.float64), b.astype(np.float64))
    got = pd.eval(special.arctan2(pd.constant(a), pd.constant(b)))
    assert _ulps(got, want).max() <= 3
    zero = want == 0  # C's signs of zero: y's sign, and +-pi for x = -0
    assert (np.signbit(got[zero]) == np.signbit(want[zero])).all()


def test_float32_logaddexp_within_a_few_ulps_of_the_inputs():
    a, b = _pairs()
    with np.errstate(all="ignore"):
        want = np.logaddexp(a.astype(np.float64), b.astype(np.float64))
    got = pd.eval(special.logaddexp(pd.constant(a), pd.constant(b)))
    _ulps(got, want)  # infinities and NaN exactly
    finite = np.isfinite(want)
    # Where the result cancels to near 0, the error is in units of the inputs' size.
    size = np.maximum(np.abs(a), np.abs(b))
    scale = np.maximum(np.abs(want), np.where(np.isfinite(size), size, 0))[finite]
    with np.errstate(over="ignore"):
        err = np.abs(got[finite] - want[finite]) / np.spacing(scale.astype(np.float32))
    assert err.max() <= 3


def test_float32_hypot_and_nextafter():
    a, b = _pairs()
    a = np.concatenate([a, np.float32([1e38, 3e-39, 1.0])])
    b = np.concatenate([b, np.float32([3e38, 4e-39, 1.0])])
    with np.errstate(all="ignore"):
        want = np.hypot(a.astype(np.float64), b.astype(np.float64))
    got = pd.eval(special.hypot(pd.constant(a), pd.constant(b)))
    assert _ulps(got, want).max() <= 2  # (infinities and NaN exactly, as C's)
    got = pd.eval(special.nextafter(pd.constant(a), pd.constant(b)))
    want = np.nextafter(a, b)
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()


@pytest.mark.parametrize("approximate", [False, True])
def test_float32_gelu_matches_float64(approximate):
    x = np.concatenate([np.linspace(-12, 12, 100001), [0.0, -0.0, np.inf, -np.inf, np.nan]])
    op = special.gelu_tanh if approximate else special.gelu_erf
    got = pd.eval(op(pd.constant(x.astype(np.float32))))
    want = pd.eval(op(pd.constant(x)))  # float64: the C library
    _ulps(got, want)
    finite = np.isfinite(want)
    # 1 + tanh(u) and 1 + erf(u) cancel for negative x: absolute, at x's scale.
    err = np.abs(got[finite] - want[finite]) / np.maximum(np.abs(x[finite]), 1.0)
    assert err.max() <= 4e-7
    if approximate:  # the sigmoid form keeps its relative accuracy in the negative tail
        u = math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)
        with np.errstate(all="ignore"):  # inf and NaN lie outside the tail
            exact = x / (1 + np.exp(-2 * u))  # x (1 + tanh u) / 2 without the cancellation
        tail = finite & (x < -2) & (exact < -1e-30)
        assert (np.abs(got[tail] / exact[tail] - 1) < 5e-5).all()


def test_large_arguments_of_sin_and_cos_are_reduced_exactly():
    x = np.float32([8192.0, -1e5, 3e7, 1e30, -3.4e38])
    np.testing.assert_allclose(pd.eval(special.sin(pd.constant(x))), np.sin(x.astype(np.float64)),
                               rtol=0, atol=1.2e-7)
    np.testing.assert_allclose(pd.eval(special.cos(pd.constant(x))), np.cos(x.astype(np.float64)),
                               rtol=0, atol=1.2e-7)


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "erfinv", "erfc", "i0"])
def test_float32_gradients_agree_with_float64(name):
    # The gradients are built from these same kernels: float32 follows float64.
    op = UNARY[name][0]
    x = np.linspace(-0.9, 0.9, 41) * (1 if name in ("tanh", "sigmoid", "erfinv") else 10)
    grads = []
    for dtype in ("float64", "float32"):
        v = pd.data("x", [x.size], dtype)
        grads.append(pd.eval(pd.gradients(pd.sum(op(v)), [v])[0], {v: x.astype(dtype)}))
    np.testing.assert_allclose(grads[1], grads[0], rtol=2e-6, atol=1e-6)


def test_gradients_numerically():
    # Central differences in float64 (the kernels' float64 path and the rules built on it).
    x = np.linspace(-0.8, 0.8, 7)
    for name in ("tanh", "erfinv", "sin", "erfc", "i0"):
        check_gradients(UNARY[name][0], [x])
    check_gradients(special.i1, [x])
    check_gradients(special.gelu_tanh, [x * 3])
    check_gradients(lambda a, b: special.arctan2(a, b), [x, x[::-1] + 2.0])


COMPARES = ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal")


def check_compare_and_where():
    """Comparisons and where (their kernels, and a fused where(compare(...)) chain) against
    NumPy: NaN, infinities and -0 on either side, each operand full or a scalar, and a
    column that broadcasts (the strided path), in float32, float64 and int32."""
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, 1e-40]
    rng = np.random.default_rng(5)
    for dtype in ("float32", "float64", "int32"):
        e = np.array([v for v in edges if dtype != "int32" or np.isfinite(v)])
        a = np.concatenate([np.repeat(e, e.size), rng.integers(-3, 4, 3001)]).astype(dtype)
        b = np.concatenate([np.tile(e, e.size), rng.integers(-3, 4, 3001)]).astype(dtype)
        col = a[:7].reshape(7, 1)
        for name in COMPARES:
            op, ref = getattr(pmath, name), getattr(np, name)
            for x, y in ((a, b), (a, b[5:6].reshape(())), (a[2:3].reshape(()), b),
                         (col, b[:9].reshape(1, 9))):
                with np.errstate(invalid="ignore"):
                    want = ref(x, y)
                got = pd.eval(op(pd.constant(x), pd.constant(y)))
                np.testing.assert_array_equal(got, want, err_msg=f"{name} {dtype}")
        cond = (a > 0) if dtype == "int32" else ~np.isnan(a) & (a > 0)
        for x, y in ((a, b), (a, b[:1].reshape(())), (a[:1].reshape(()), b)):
            got = pd.eval(pmath.where(pd.constant(cond), pd.constant(x), pd.constant(y)))
            np.testing.assert_array_equal(got, np.where(cond, x, y), err_msg=dtype)
        # A fed input, so that the chain runs as one fused_elementwise node.
        v = pd.data("v", shape=[a.size], dtype=dtype)
        chain = pmath.where(pmath.greater_equal(v, pd.constant(b, dtype=dtype)), v * 2, v - 1)
        with np.errstate(invalid="ignore"):
            want = np.where(a >= b, a * 2, a - 1)
        np.testing.assert_array_equal(pd.eval(chain, {v: a}), want, err_msg=dtype)


def test_compare_and_where_match_numpy():
    check_compare_and_where()


NARROW = """
import importlib.util, sys
sys.path.insert(0, sys.argv[1] + "/tests")
spec = importlib.util.spec_from_file_location("test_vmath", sys.argv[1] + "/tests/lowlevel/ops/test_vmath.py")
t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
for name in sorted(t.UNARY):
    t._check_unary(name)
t.test_float32_arctan2_within_a_few_ulps()
t.test_float32_logaddexp_within_a_few_ulps_of_the_inputs()
t.test_float32_hypot_and_nextafter()
t.check_compare_and_where()
print("ok")
"""


@pytest.mark.parametrize("vector_bytes", ["16", "32"])
def test_narrower_vector_builds(vector_bytes):
    # The kernels run the widest build this CPU has; the narrower ones (what older CPUs
    # run) must be as accurate.
    root = str(Path(__file__).parents[3])
    paths = [str(Path(pd.__file__).parents[1]), root] + \
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PADDLE_VECTOR_BYTES=vector_bytes, PYTHONPATH=os.pathsep.join(paths))
    out = subprocess.run([sys.executable, "-c", NARROW, root], env=env, capture_output=True,
                         text=True, cwd=str(Path(pd.__file__).parents[1]))
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")


@pytest.mark.parametrize("log", [False, True])
def test_float32_softmax_on_the_vectorized_exp(log):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((64, 1000)) * 20).astype(np.float32)
    x[0, :3] = [-np.inf, 88.0, -103.0]
    shifted = x.astype(np.float64) - x.max(axis=1, keepdims=True)
    lse = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    want = shifted - lse if log else np.exp(shifted - lse)
    out = np.empty_like(x)
    _C.softmax(x, out, 1000, log)
    # log: x - lse cancels, to float32's spacing at |x| (up to about 80 here)
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=2e-5 if log else 1e-12)
    if log:  # in place, through the binding: x is read after the row is written
        inplace = x.copy()
        _C.softmax(inplace, inplace, 1000, True)
        np.testing.assert_allclose(inplace, want, rtol=2e-6, atol=2e-5)
