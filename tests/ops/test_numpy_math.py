"""pd.ops's elementwise keras.ops.numpy functions (paddle/ops/numpy_math.py) and their
primitives (paddle/lowlevel/ops/special.py): values against NumPy (or numbers computed once
with SciPy), gradients by central differences, result dtypes as Keras gives them, bad input.
Every test runs on each device (conftest.py)."""
import math

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(0)
ops = pd.ops


def evaluate(fn, *arrays):
    """fn applied to pd.data inputs of the arrays' shapes (first axis unknown) and dtypes."""
    xs = [pd.data(f"in{i}", shape=(None,) + a.shape[1:] if a.ndim else (), dtype=a.dtype.name)
          for i, a in enumerate(arrays)]
    out = fn(*xs)
    return out, pd.eval(out, dict(zip(xs, arrays)))


def tol(dtype):
    return dict(rtol=2e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)


# ---- unary primitives -------------------------------------------------------------------

_erfc = np.vectorize(math.erfc, otypes=[np.float64])

# name: (NumPy reference, domain of the test inputs (low, high))
UNARY = {
    "sin": (np.sin, (-3, 3)), "cos": (np.cos, (-3, 3)), "tan": (np.tan, (-1.2, 1.2)),
    "arcsin": (np.arcsin, (-0.95, 0.95)), "arccos": (np.arccos, (-0.95, 0.95)),
    "arctan": (np.arctan, (-4, 4)), "sinh": (np.sinh, (-3, 3)), "cosh": (np.cosh, (-3, 3)),
    "arcsinh": (np.arcsinh, (-4, 4)), "arccosh": (np.arccosh, (1.1, 4)),
    "arctanh": (np.arctanh, (-0.9, 0.9)), "exp2": (np.exp2, (-4, 4)),
    "expm1": (np.expm1, (-2, 2)), "log2": (np.log2, (0.1, 5)), "log10": (np.log10, (0.1, 5)),
    "floor": (np.floor, (-3, 3)), "ceil": (np.ceil, (-3, 3)), "trunc": (np.trunc, (-3, 3)),
    "cbrt": (np.cbrt, (-3, 3)), "erfc": (_erfc, (-2, 2)), "i0": (np.i0, (-3, 3)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values(name, dtype):
    ref, (low, high) = UNARY[name]
    x = RNG.uniform(low, high, (3, 5)).astype(dtype)
    out, got = evaluate(getattr(ops, name), x)
    assert out.shape == (None, 5) and out.dtype == dtype and got.dtype == dtype
    np.testing.assert_allclose(got, ref(x.astype(np.float64)).astype(dtype), **tol(dtype))


def test_rounding_halves_to_even_and_keeps_signed_zero():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.2], np.float64)
    _, got = evaluate(ops.round, x)
    np.testing.assert_array_equal(got, np.round(x))
    assert np.signbit(got[-1])  # -0.2 rounds to -0.0, as NumPy
    _, got = evaluate(lambda v: ops.round(v, 2), np.array([1.005, -2.675, 0.125]))
    np.testing.assert_array_equal(got, np.round(np.array([1.005, -2.675, 0.125]), 2))
    _, got = evaluate(lambda v: ops.round(v, -1), np.array([15.0, 25.0, -35.0]))
    np.testing.assert_array_equal(got, [20.0, 20.0, -40.0])
    _, got = evaluate(lambda v: ops.round(v, -1), np.array([15, 25, -34], np.int32))
    assert got.dtype == np.int32 and got.tolist() == [20, 20, -30]


def test_erfinv_matches_scipy():
    y = np.array([-0.999, -0.5, 0.0, 0.1, 0.7, 0.9999])
    scipy_values = [-2.326753765513524, -0.4769362762044699, 0.0, 0.08885599049425769,
                    0.7328690779592169, 2.7510639057120803]  # scipy.special.erfinv(y)
    _, got = evaluate(ops.erfinv, y)
    np.testing.assert_allclose(got, scipy_values, rtol=1e-13, atol=1e-15)
    # float32 takes no Newton steps; its reference: float64 (checked above) on the same
    # float32-rounded inputs
    _, got = evaluate(ops.erfinv, y.astype(np.float32))
    _, exact = evaluate(ops.erfinv, y.astype(np.float32).astype(np.float64))
    np.testing.assert_allclose(got, exact, rtol=3e-7, atol=1e-30)
    _, got = evaluate(ops.erfinv, np.array([-1.0, 1.0, 1.5, np.nan]))
    assert got[0] == -np.inf and got[1] == np.inf and np.isnan(got[2:]).all()


def test_i1_matches_scipy():
    from paddle.lowlevel.ops import special
    x = np.array([-3.0, -0.5, 0.0, 1.0, 20.0])
    scipy_values = [-3.9533702174026093, -0.25789430539089636, 0.0, 0.5651591039924851,
                    42454973.385127775]  # scipy.special.i1(x)
    _, got = evaluate(special.i1, x)
    np.testing.assert_allclose(got, scipy_values, rtol=1e-12)


def test_domain_edges_follow_numpy():
    x = np.array([0.0, -1.0, np.inf, -np.inf, np.nan])
    with np.errstate(all="ignore"):
        for name in ("log2", "log10", "arcsin", "arccosh", "arctanh", "cbrt", "expm1"):
            _, got = evaluate(getattr(ops, name), x)
            np.testing.assert_array_equal(got, UNARY[name][0](x), err_msg=name)


GRADIENT_DOMAINS = dict(UNARY, erfinv=(None, (-0.8, 0.8)))
ZERO_GRADIENT = {"floor", "ceil", "trunc"}


@pytest.mark.parametrize("name", sorted(set(GRADIENT_DOMAINS) - ZERO_GRADIENT))
def test_unary_gradients(name):
    low, high = GRADIENT_DOMAINS[name][1]
    x = RNG.uniform(low, high, (2, 3))
    if name == "cbrt":
        x = np.where(np.abs(x) < 0.3, 0.5, x)  # cbrt's slope is infinite at 0
    check_gradients(getattr(ops, name), [x])


@pytest.mark.parametrize("name", ["sin", "tan", "arctan", "erfc", "i0", "log2"])
def test_unary_second_order(name):
    low, high = GRADIENT_DOMAINS[name][1]
    check_gradients(getattr(ops, name), [RNG.uniform(max(low, 0.2), high, (2, 3))], order=2)


@pytest.mark.parametrize("name", sorted(ZERO_GRADIENT) + ["round"])
def test_rounding_gradients_are_zero(name):
    x = pd.data("x", shape=[3], dtype="float64")
    g, = pd.gradients(pd.sum(getattr(ops, name)(x) * 3.0), [x])
    np.testing.assert_array_equal(pd.eval(g, {x: np.array([-1.2, 0.5, 2.7])}), np.zeros(3))


# ---- binary primitives ------------------------------------------------------------------

FLOAT_PAIRS = np.array([-7.5, -7.0, 7.0, 7.0, 0.0, 5.0, 3e300, 1.0, -0.0, 2.0]), \
    np.array([2.0, -2.0, -2.5, 0.0, -1.0, 3.0, 1e300, -0.0, 3.0, np.inf])


@pytest.mark.parametrize("name, ref", [("arctan2", np.arctan2), ("hypot", np.hypot),
                                       ("nextafter", np.nextafter), ("fmod", np.fmod),
                                       ("mod", np.remainder),
                                       ("floor_divide", np.floor_divide)])
def test_binary_float_values(name, ref):
    a, b = FLOAT_PAIRS
    _, got = evaluate(getattr(ops, name), a, b)
    with np.errstate(all="ignore"):
        expected = ref(a, b)
    # NumPy's arctan2 and the C library's may differ in the last bit; the rest are exact.
    np.testing.assert_allclose(got, expected, rtol=4e-16 if name == "arctan2" else 0, atol=0)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


INT_PAIRS = np.array([-7, -7, 7, 7, 0, 5, -2 ** 31, 12, -9, 3]), \
    np.array([2, -2, -2, 0, 0, 3, -1, 18, 6, 70])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("name, ref", [
    ("fmod", np.fmod), ("mod", np.remainder), ("floor_divide", np.floor_divide),
    ("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
    ("bitwise_xor", np.bitwise_xor), ("left_shift", np.left_shift),
    ("right_shift", np.right_shift), ("gcd", np.gcd), ("lcm", np.lcm)])
def test_binary_integer_values(name, ref, dtype):
    a, b = (v.astype(dtype) for v in INT_PAIRS)
    if name in ("left_shift", "right_shift"):
        b = np.abs(b)
    out, got = evaluate(getattr(ops, name), a, b)
    with np.errstate(all="ignore"):  # NumPy warns on x // 0 and INT_MIN // -1; gives 0, wraps
        expected = ref(a, b)
    assert out.dtype == dtype and got.dtype == dtype
    np.testing.assert_array_equal(got, expected)


def test_shift_by_width_or_more():
    a = np.array([1, -8, 5], np.int32)
    _, got = evaluate(lambda v: ops.left_shift(v, 40), a)
    assert got.tolist() == [0, 0, 0]
    _, got = evaluate(lambda v: ops.right_shift(v, 40), a)
    assert got.tolist() == [0, -1, 0]


@pytest.mark.parametrize("name", ["arctan2", "hypot", "fmod", "mod", "logaddexp",
                                  "logaddexp2", "heaviside", "divide_no_nan", "fmax", "fmin"])
def test_binary_gradients(name):
    a = RNG.uniform(0.5, 3.0, (2, 3)) * RNG.choice([-1.0, 1.0], (2, 3))
    b = RNG.uniform(0.7, 2.0, (3,))
    fn = getattr(ops, name)
    if name in ("fmod", "mod"):  # away from the jumps of the remainder
        a = np.array([[2.3, -2.3, 5.1], [0.4, -0.6, 3.3]])
        b = np.array([1.1, 0.7, 1.3])
    check_gradients(fn, [a, b], wrt=[0, 1] if name != "heaviside" else [1])


@pytest.mark.parametrize("name", ["arctan2", "hypot", "logaddexp"])
def test_binary_second_order_with_unknown_batch(name):
    a = RNG.uniform(0.5, 3.0, (2, 3)) * RNG.choice([-1.0, 1.0], (2, 3))
    b = RNG.uniform(0.7, 2.0, (2, 1))
    check_gradients(getattr(ops, name), [a, b], order=2, unknown_batch=True)


# ---- compositions -----------------------------------------------------------------------

def test_logaddexp_is_stable():
    a = np.array([0.0, 1000.0, -1000.0, -np.inf, np.inf, 3.0])
    b = np.array([0.0, 1000.0, -1001.0, -np.inf, 1.0, -np.inf])
    _, got = evaluate(ops.logaddexp, a, b)
    np.testing.assert_allclose(got, np.logaddexp(a, b), rtol=1e-14)
    _, got = evaluate(ops.logaddexp2, a, b)
    np.testing.assert_allclose(got, np.logaddexp2(a, b), rtol=1e-14)


def test_composed_unary_values():
    x = np.array([-2.5, -1.0, 0.0, 0.3, 4.0])
    for name, ref in [("sinc", np.sinc), ("deg2rad", np.deg2rad), ("rad2deg", np.rad2deg),
                      ("fabs", np.fabs), ("angle", np.angle)]:
        _, got = evaluate(getattr(ops, name), x)
        np.testing.assert_allclose(got, ref(x), rtol=1e-14, atol=1e-15, err_msg=name)
    _, got = evaluate(ops.reciprocal, np.array([4.0, -0.5]))
    assert got.tolist() == [0.25, -2.0]
    _, got = evaluate(ops.rsqrt, np.array([4.0, 0.25]))
    assert got.tolist() == [0.5, 2.0]
    check_gradients(ops.sinc, [np.array([0.4, -1.3, 2.2])])


def test_value_tests():
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -2.0, 3.0])
    for name, ref in [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
                      ("isneginf", np.isneginf), ("isposinf", np.isposinf),
                      ("signbit", np.signbit)]:
        out, got = evaluate(getattr(ops, name), x)
        assert out.dtype == "bool"
        np.testing.assert_array_equal(got, ref(x), err_msg=name)
        _, got = evaluate(getattr(ops, name), np.array([-3, 0, 4], np.int32))
        np.testing.assert_array_equal(got, ref(np.array([-3, 0, 4])), err_msg=name)
    _, got = evaluate(ops.isreal, x)
    assert got.all()
    _, got = evaluate(ops.imag, x[3:])
    assert got.tolist() == [0.0] * 4
    for name in ("real", "conj", "conjugate", "copy"):
        _, got = evaluate(getattr(ops, name), x[3:])
        np.testing.assert_array_equal(got, x[3:])


# -0.0, NaNs of both signs, denormals (float32; zeros in float16), infinities, the extremes
SIGNED = np.array([np.nan, -np.nan, -0.0, 0.0, -1e-40, 1e-40, -2.5, 3.0, -np.inf, np.inf,
                   -1e30, 1e-8])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int32",
                                   "int64", "bool"])
def test_signbit_reads_the_sign_bit(dtype, device):
    # The bit itself, as NumPy's and JAX's signbit: a NaN whose sign is set is True (Keras
    # on JAX gives that; x < 0 does not), -0.0 too; integers x < 0; bools never. Graph
    # mode (a pd.data input) and eager (a constant), on each device.
    if dtype in ("int32", "int64"):
        info = np.iinfo(dtype)
        x = np.array([info.min, -1, 0, 1, info.max, -7], dtype)
    elif dtype == "bool":
        x = np.array([True, False, True])
    else:
        with np.errstate(over="ignore"):  # -1e30 is -inf in float16
            x = SIGNED.astype(dtype)
        assert np.signbit(x[1]) and not np.signbit(x[0])  # the NaNs kept their signs
    want = np.signbit(x)
    if dtype == "bfloat16":  # fed as float32 (a feed takes no bfloat16), cast in the graph
        out, got = evaluate(lambda v: ops.signbit(pd.cast(v, dtype)), x.astype(np.float32))
    else:
        out, got = evaluate(ops.signbit, x)
    assert out.dtype == "bool" and out.shape == (None,) and got.dtype == np.bool_
    np.testing.assert_array_equal(got, want)
    eager = ops.signbit(pd.constant(x, dtype=dtype))
    assert eager.dtype == "bool"
    np.testing.assert_array_equal(eager.numpy(), want)
    np.testing.assert_array_equal(ops.signbit(pd.constant(x.reshape(3, -1) if x.size % 3 == 0
                                                          else x)).numpy(),
                                  want.reshape(3, -1) if x.size % 3 == 0 else want)


def test_signbit_of_numbers_gradient_and_bad_input():
    assert ops.signbit(-0.0).numpy().tolist() is True
    assert ops.signbit(float("-nan")).numpy().tolist() is True
    assert ops.signbit([1.0, -3.0]).numpy().tolist() == [False, True]
    # No gradient flows through the bool; a where it chooses for passes its own.
    check_gradients(lambda x: pd.where(ops.signbit(x), x * x, x * 3.0),
                    [np.array([-1.5, 0.7, -0.3, 2.0])])
    x = pd.data("x", shape=[3])
    assert pd.gradients(pd.sum(pd.cast(ops.signbit(x), "float32") * x), [x])[0] is not None
    with pytest.raises(TypeError, match=r"signbit: expected numbers, received an array of "
                                        r"<U1 \(at test_numpy_math"):
        ops.signbit(np.array(["a"]))
    with pytest.raises(TypeError, match=r"signbit: received or would make int8 values"):
        from paddle.lowlevel.ops import special
        special.signbit(pd.data("q", shape=[2], dtype="int8"))


def test_nan_to_num():
    x = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    _, got = evaluate(ops.nan_to_num, x)
    np.testing.assert_array_equal(got, np.nan_to_num(x))
    _, got = evaluate(lambda v: ops.nan_to_num(v, nan=-1.0, posinf=9.0, neginf=-9.0), x)
    assert got.tolist() == [-1.0, 9.0, -9.0, 1.5]


def test_isclose_and_allclose():
    a = np.array([1.0, np.inf, np.inf, np.nan, 1e10, 0.0])
    b = np.array([1.0 + 1e-9, np.inf, 1e308, np.nan, 1.00001e10, 1e-9])
    for equal_nan in (False, True):
        _, got = evaluate(lambda u, v: ops.isclose(u, v, equal_nan=equal_nan), a, b)
        np.testing.assert_array_equal(got, np.isclose(a, b, equal_nan=equal_nan))
    _, got = evaluate(lambda u, v: ops.isclose(u, v, rtol=0.0, atol=0.5), a, b)
    np.testing.assert_array_equal(got, np.isclose(a, b, rtol=0.0, atol=0.5))
    _, got = evaluate(ops.allclose, a[:2], b[:2])
    assert got.dtype == np.bool_ and bool(got)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_isclose_every_pair_of_special_values(dtype):
    # (the fused form compares |a - b| - tol with 0: exact at infinities, NaN, the largest
    # values, whose difference overflows, and denormals, whose difference is never 0)
    f = np.finfo(dtype)
    v = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, f.max, -f.max, f.tiny,
                  f.tiny / 4, 1e-9, 1 + 1e-6, 1 + 1e-5, 1e10], dtype)
    a, b = np.repeat(v, len(v)), np.tile(v, len(v))
    rng = np.random.default_rng(0)
    near = rng.normal(size=2000).astype(dtype)
    a = np.concatenate([a, near])
    b = np.concatenate([b, (near * (1 + rng.normal(size=2000) * 1e-5)).astype(dtype)])
    for kw in ({}, {"rtol": 0.0, "atol": 0.5}, {"equal_nan": True}, {"rtol": 1e-3, "atol": 0.0}):
        _, got = evaluate(lambda u, w: ops.isclose(u, w, **kw), a, b)
        with np.errstate(over="ignore", invalid="ignore"):
            np.testing.assert_array_equal(got, np.isclose(a, b, **kw), err_msg=str(kw))
    _, got = evaluate(ops.allclose, a, b)
    assert not bool(got)


def test_fmax_fmin_ignore_nan():
    a = np.array([np.nan, 1.0, np.nan, -2.0])
    b = np.array([0.5, np.nan, np.nan, 3.0])
    for name, ref in [("fmax", np.fmax), ("fmin", np.fmin)]:
        _, got = evaluate(getattr(ops, name), a, b)
        np.testing.assert_array_equal(got, ref(a, b))


def test_heaviside_divide_no_nan_ldexp():
    _, got = evaluate(ops.heaviside, np.array([-1.5, 0.0, 2.0, np.nan]), np.array([0.5]))
    np.testing.assert_array_equal(got, [0.0, 0.5, 1.0, 0.5])
    _, got = evaluate(ops.divide_no_nan, np.array([1.0, -3.0, 0.0]), np.array([0.0, 2.0, 0.0]))
    assert got.tolist() == [0.0, -1.5, 0.0]
    _, got = evaluate(ops.ldexp, np.array([3.0, -1.5], np.float32), np.array([2, -3], np.int32))
    assert got.dtype == np.float32 and got.tolist() == [12.0, -0.1875]


def test_logical_and_bitwise_not():
    a = np.array([0, 2, 0, -1], np.int32)
    b = np.array([0.0, 0.0, 1.5, 2.0], np.float32)
    for name, ref in [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                      ("logical_xor", np.logical_xor)]:
        out, got = evaluate(getattr(ops, name), a, b)
        assert out.dtype == "bool"
        np.testing.assert_array_equal(got, ref(a, b))
    _, got = evaluate(ops.logical_not, b)
    np.testing.assert_array_equal(got, np.logical_not(b))
    _, got = evaluate(ops.bitwise_not, np.array([0, 5, -2 ** 31], np.int32))
    np.testing.assert_array_equal(got, np.invert(np.array([0, 5, -2 ** 31], np.int32)))
    _, got = evaluate(ops.bitwise_invert, np.array([True, False]))
    assert got.tolist() == [False, True]
    _, got = evaluate(ops.bitwise_xor, np.array([True, False]), np.array([True, True]))
    assert got.dtype == np.bool_ and got.tolist() == [False, True]


def test_saturate_cast():
    x = np.array([3e9, -3e9, 1.7, -1.7, np.inf, np.nan], np.float32)
    _, got = evaluate(lambda v: ops.saturate_cast(v, "int32"), x)
    assert got.dtype == np.int32
    assert got.tolist() == [2147483520, -2147483648, 1, -1, 2147483520, 0]
    _, got = evaluate(lambda v: ops.saturate_cast(v, "int32"), np.array([2 ** 40, -5]))
    assert got.tolist() == [2 ** 31 - 1, -5]
    _, got = evaluate(lambda v: ops.saturate_cast(v, "float32"), np.array([1e300, -2.5]))
    assert got.dtype == np.float32 and got.tolist() == [float(np.finfo(np.float32).max), -2.5]
    # to the storage dtypes int8 and uint8 (Keras 3.15's values)
    _, got = evaluate(lambda v: ops.saturate_cast(v, "uint8"),
                      np.array([300.0, -5.0, 7.6, np.nan], np.float32))
    assert got.dtype == np.uint8 and got.tolist() == [255, 0, 7, 0]
    _, got = evaluate(lambda v: ops.saturate_cast(v, "int8"), np.array([300, -500, 7], np.int32))
    assert got.dtype == np.int8 and got.tolist() == [127, -128, 7]
    got = ops.saturate_cast(ops.saturate_cast(np.array([200, 3], np.int32), "uint8"), "int8")
    assert np.asarray(got).tolist() == [127, 3]


def test_logsumexp():
    x = np.array([[1.0, 2.0, 3.0], [-np.inf, 0.0, 1000.0]])
    for axis, keepdims in [(None, False), (1, False), (0, True), ((0, 1), True)]:
        out, got = evaluate(lambda v: ops.logsumexp(v, axis=axis, keepdims=keepdims), x)
        with np.errstate(all="ignore"):
            peak = np.max(x, axis=axis, keepdims=True)
            expected = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True)) + peak
        expected = expected if keepdims else np.squeeze(expected, axis=axis)
        np.testing.assert_allclose(got, expected, rtol=1e-14)
    check_gradients(lambda v: ops.logsumexp(v, axis=1), [RNG.standard_normal((2, 4))])


# ---- dtypes -----------------------------------------------------------------------------

# Result dtypes from Keras 3.15.1 (keras.ops on KerasTensors, with
# keras.src.backend.common.dtypes.BIT64_TO_BIT32_DTYPE emptied: the 64-bit results Keras
# keeps on its TensorFlow backend), for inputs of dtype bool, int32, int64, float32, float64.
F32, F64 = "float32", "float64"
UNARY_DTYPES = {
    **{name: ("float32", F32, F32, F32, F64) for name in (
        "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh",
        "arccosh", "arctanh", "exp2", "expm1", "log2", "log10", "floor", "ceil", "fabs",
        "erfc", "sinc", "angle", "reciprocal", "exp", "log", "sqrt", "log1p", "tanh")},
    "square": ("int32", "int32", "int64", F32, F64),
    **{name: (F32, F32, F64, F32, F64) for name in ("cbrt", "i0", "deg2rad", "rad2deg")},
    **{name: ("bool", "int32", "int64", F32, F64) for name in (
        "round", "trunc", "copy", "real", "imag", "conj", "conjugate", "nan_to_num",
        "bitwise_not", "bitwise_invert")},
    **{name: ("bool",) * 5 for name in (
        "isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isreal",
        "logical_not")},
}
DTYPES = ("bool", "int32", "int64", "float32", "float64")


@pytest.mark.parametrize("name", sorted(UNARY_DTYPES))
def test_unary_result_dtypes(name):
    for dtype, expected in zip(DTYPES, UNARY_DTYPES[name]):
        if name in ("bitwise_not", "bitwise_invert") and dtype in ("float32", "float64"):
            continue  # Keras's symbolic rule passes floats; its backends refuse them
        if name == "reciprocal" and dtype == "float64":
            expected = "float64"  # Keras's symbolic float32 here is not what its backends give
        out = getattr(ops, name)(pd.data("x", shape=[2], dtype=dtype))
        assert out.dtype == expected, (name, dtype)


# (a, b) dtype pairs -> result, for the binary functions of each rule (Keras 3.15.1, as above)
PAIRS = [("bool", "bool"), ("int32", "int32"), ("int64", "int64"), (F32, F32), (F64, F64),
         ("int32", F32), ("int64", F32), ("int32", "int64"), (F32, F64), ("bool", "int32"),
         ("int32", F64), ("bool", F32)]
BINARY_DTYPES = {
    "float": (["arctan2", "logaddexp", "logaddexp2", "nextafter", "divide", "true_divide",
               "divide_no_nan"],
              [F32, F32, F32, F32, F64, F32, F32, F32, F64, F32, F64, F32]),
    "float64 from int64": (["hypot", "heaviside"],
                           [None, F32, F64, F32, F64, F32, F32, F64, F64, F32, F64, F32]),
    "promoted": (["fmax", "fmin", "floor_divide", "add", "multiply", "maximum", "minimum"],
                 ["bool", "int32", "int64", F32, F64, F32, F32, "int64", F64, "int32", F64,
                  F32]),
    "promoted, bool as int32": (["fmod", "mod"],
                                ["int32", "int32", "int64", F32, F64, F32, F32, "int64", F64,
                                 "int32", F64, F32]),
    "bool": (["isclose", "logical_and", "logical_or", "logical_xor", "equal", "not_equal",
              "greater", "greater_equal", "less", "less_equal"], ["bool"] * 12),
    "numeric": (["subtract"], [None, "int32", "int64", F32, F64, F32, F32, "int64", F64, "int32",
                               F64, F32]),
    "float powers": (["power"], [None, None, None, F32, F64, F32, F32, None, F64, None, F64,
                                 F32]),
    "integers": (["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"],
                 ["bool", "int32", "int64", None, None, None, None, "int64", None, "int32",
                  None, None]),
    "shifts": (["left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift"],
               [None, "int32", "int64", None, None, None, None, "int64", None, None, None,
                None]),
}


@pytest.mark.parametrize("rule", sorted(BINARY_DTYPES))
def test_binary_result_dtypes(rule):
    names, results = BINARY_DTYPES[rule]
    for name in names:
        for (da, db), expected in zip(PAIRS, results):
            if expected is None:
                continue  # Keras's bool result here (hypot of bools), or floats its backends refuse
            out = getattr(ops, name)(pd.data("a", shape=[2], dtype=da),
                                     pd.data("b", shape=[2], dtype=db))
            assert out.dtype == expected, (name, da, db)


def test_promoted_arithmetic_values():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    for name, ref in [("add", np.logical_or), ("multiply", np.logical_and),
                      ("maximum", np.maximum), ("minimum", np.minimum), ("greater", np.greater),
                      ("greater_equal", np.greater_equal), ("less", np.less),
                      ("less_equal", np.less_equal), ("equal", np.equal)]:
        _, got = evaluate(getattr(ops, name), a, b)
        np.testing.assert_array_equal(got, ref(a, b), err_msg=name)
    i = np.array([1, -2, 3], np.int32)
    f = np.array([0.5, 0.5, -1.5], np.float32)
    for name, ref in [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                      ("maximum", np.maximum), ("less", np.less), ("power", np.power)]:
        out, got = evaluate(getattr(ops, name), np.abs(i) if name == "power" else i, f)
        expected = ref(np.abs(i) if name == "power" else i, f)
        # Keras: int32 with float32 is float32 (NumPy says float64)
        assert got.dtype == (np.bool_ if name == "less" else np.float32), name
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=name)
    _, got = evaluate(lambda v: ops.clip(v, -1, 2), i)
    assert got.dtype == np.int32 and got.tolist() == [1, -1, 2]
    _, got = evaluate(ops.square, np.array([True, False]))
    assert got.dtype == np.int32 and got.tolist() == [1, 0]
    _, got = evaluate(ops.sqrt, np.array([4, 9], np.int64))
    assert got.dtype == np.float32 and got.tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match=r"subtract: expected numeric arguments, received bool"):
        ops.subtract(pd.data("a", shape=[2], dtype="bool"), True)
    with pytest.raises(TypeError, match=r"power: expected a float base or exponent.*"
                                        r"test_numpy_math"):
        ops.power(pd.data("a", shape=[2], dtype="int32"), 2)


def test_python_numbers_are_weak():
    i32 = pd.data("i", shape=[2], dtype="int32")
    assert ops.mod(i32, 3).dtype == "int32"
    assert ops.mod(i32, 2.5).dtype == "float32"
    assert ops.hypot(pd.data("d", shape=[2], dtype="float64"), 2).dtype == "float64"
    assert ops.fmax(pd.data("b", shape=[2], dtype="bool"), 1).dtype == "int32"
    assert ops.sin(np.array([1, 2], np.int32)).dtype == "float32"
    assert ops.sin([1.0, 2.0]).dtype == "float32"
    assert ops.divide(np.array([1, 3], np.int32), 2).numpy().tolist() == [0.5, 1.5]


# ---- bad input --------------------------------------------------------------------------

def test_bad_input_names_the_users_line():
    f = pd.data("f", shape=[2], dtype="float32")
    with pytest.raises(TypeError, match=r"gcd: expected integer or bool.*float32 "
                                        r"\(at test_numpy_math.py:\d+\)"):
        ops.gcd(f, f)
    with pytest.raises(TypeError, match=r"bitwise_and: expected integer.*test_numpy_math"):
        ops.bitwise_and(f, 1)
    with pytest.raises(TypeError, match=r"ldexp: expected integer exponents.*test_numpy_math"):
        ops.ldexp(f, f)
    with pytest.raises(TypeError, match=r"round: expected an integer `decimals`, received "
                                        r"1.5 \(at test_numpy_math"):
        ops.round(f, 1.5)
    with pytest.raises(ValueError, match=r"isclose: expected `rtol` as a number >= 0"):
        ops.isclose(f, f, rtol=-1.0)
    with pytest.raises(TypeError, match=r"nan_to_num: expected `nan` as a number"):
        ops.nan_to_num(f, nan="zero")
    with pytest.raises(TypeError, match=r"sin: expected numbers, received an array of <U1"):
        ops.sin(np.array(["a"]))
    with pytest.raises(ValueError, match=r"shapes cannot be broadcast.*test_numpy_math"):
        ops.arctan2(pd.data("a", shape=[2]), pd.data("b", shape=[3]))
    with pytest.raises(ValueError, match="saturate_cast"):
        ops.saturate_cast(f, "int16")


def test_primitives_refuse_wrong_dtypes_at_construction():
    from paddle.lowlevel.ops import special
    with pytest.raises(TypeError, match=r"sin: expected a float32 or float64 input, received "
                                        r"int32 \(at test_numpy_math"):
        special.sin(pd.data("i", shape=[2], dtype="int32"))
    with pytest.raises(TypeError, match=r"bitwise_and: expected int32 or int64 inputs, "
                                        r"received float32"):
        special.bitwise_and(pd.data("a", shape=[2]), pd.data("b", shape=[2]))
    with pytest.raises(TypeError, match=r"hypot: expected float inputs, received int64"):
        special.hypot(pd.data("a", shape=[2], dtype="int64"),
                      pd.data("b", shape=[2], dtype="int64"))


def test_the_kernels_refuse_codes_and_dtypes_they_do_not_compute():
    from paddle import _C
    a = np.ones(3, np.float32)
    layout = np.array([1, 3, 1, 1], np.int64)
    with pytest.raises(TypeError, match="integer dtype"):
        _C.binary(14, a, a, np.empty(3, np.float32), layout)  # bitwise_and on floats
    i = np.ones(3, np.int32)
    with pytest.raises(TypeError, match="float dtype"):
        _C.binary(8, i, i, np.empty(3, np.int32), layout)  # arctan2 on integers
    with pytest.raises(TypeError, match="float dtype"):
        _C.binary(21, i, i, np.empty(3, np.int32), layout)  # logaddexp on integers
    with pytest.raises(ValueError, match="unknown op code"):
        _C.binary(99, a, a, np.empty(3, np.float32), layout)
    with pytest.raises(ValueError, match="needs a float dtype"):
        _C.unary(12, i, np.empty(3, np.int32))  # sin on integers
