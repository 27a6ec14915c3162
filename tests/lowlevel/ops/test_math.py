"""Elementwise math: forward against NumPy (float32, float64, int64 where it applies),
gradients by central differences (static shapes, broadcasting, None dims), second order."""
import math

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(0)


def run(fn, *arrays):
    """fn applied to pd.data inputs of the arrays' shapes and dtypes, evaluated on them."""
    xs = [pd.data(f"in{i}", shape=a.shape, dtype=a.dtype.name) for i, a in enumerate(arrays)]
    out = fn(*xs)
    return out, pd.eval(out, dict(zip(xs, arrays)))


check = check_gradients  # with unknown_batch=True: None batch dims in pd.data

def tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)


def away_from_zero(shape):
    x = RNG.uniform(0.3, 2.0, shape)
    return x * RNG.choice([-1.0, 1.0], shape)


# ---- unary ------------------------------------------------------------------------------

UNARY = {
    "neg": (pd.neg, np.negative, "any"),
    "abs": (pd.abs, np.abs, "any"),
    "exp": (pd.exp, np.exp, "any"),
    "log": (pd.log, np.log, "positive"),
    "sqrt": (pd.sqrt, np.sqrt, "positive"),
    "square": (pd.square, np.square, "any"),
    "sign": (pd.sign, np.sign, "any"),
    "log1p": (pd.log1p, np.log1p, "positive"),
    "erf": (pd.erf, np.vectorize(math.erf), "any"),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_forward(name, dtype):
    fn, ref, domain = UNARY[name]
    x = RNG.uniform(0.1, 3.0, (3, 4)) if domain == "positive" else RNG.standard_normal((3, 4))
    x[0, 0] = 0.0 if domain == "any" else x[0, 0]
    x = x.astype(dtype)
    out, got = run(fn, x)
    assert out.shape == (3, 4) and out.dtype == dtype and got.dtype == dtype
    np.testing.assert_allclose(got, ref(x.astype(np.float64)).astype(dtype), **tol(dtype))


@pytest.mark.parametrize("name", ["neg", "abs", "square", "sign"])
def test_unary_forward_int64(name):
    fn, ref, _ = UNARY[name]
    x = np.array([[-3, 0, 2], [7, -1, 5]], dtype=np.int64)
    out, got = run(fn, x)
    assert out.dtype == "int64" and got.dtype == np.int64
    np.testing.assert_array_equal(got, ref(x))


@pytest.mark.parametrize("name", ["exp", "log", "sqrt"])
def test_float_only_unary_rejects_ints(name):
    with pytest.raises(TypeError, match="int64"):
        UNARY[name][0](pd.data("i", shape=[3], dtype="int64"))


def test_unary_special_values():
    x = np.array([0.0, -1.0, np.inf], dtype=np.float64)
    _, got = run(lambda v: pd.sqrt(v), x)
    assert got[0] == 0.0 and np.isnan(got[1]) and got[2] == np.inf
    _, got = run(pd.log, np.array([0.0, 1.0]))
    assert got[0] == -np.inf and got[1] == 0.0


@pytest.mark.parametrize("unknown_batch", [False, True])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradients(name, unknown_batch):
    fn, _, domain = UNARY[name]
    x = RNG.uniform(0.2, 2.0, (3, 4)) if domain == "positive" else away_from_zero((3, 4))
    check(fn, [x], unknown_batch=unknown_batch)


def test_sign_gradient_is_zero():
    x = pd.data("x", shape=[3], dtype="float64")
    g, = pd.gradients(pd.sum(pd.sign(x) * 3.0), [x])
    np.testing.assert_array_equal(pd.eval(g, {x: np.array([-1.0, 0.5, 2.0])}), np.zeros(3))


# ---- binary -----------------------------------------------------------------------------

BINARY = {
    "add": (pd.add, np.add),
    "sub": (pd.sub, np.subtract),
    "mul": (pd.mul, np.multiply),
    "div": (pd.div, np.divide),
    "pow": (pd.pow, np.power),
    "maximum": (pd.maximum, np.maximum),
    "minimum": (pd.minimum, np.minimum),
}

SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
]


def binary_inputs(name, sa, sb, dtype):
    if name == "pow":
        return RNG.uniform(0.5, 2.0, sa).astype(dtype), RNG.uniform(-1.5, 1.5, sb).astype(dtype)
    a = RNG.standard_normal(sa).astype(dtype)
    b = RNG.standard_normal(sb).astype(dtype)
    if name == "div":
        b = away_from_zero(sb).astype(dtype)
    return a, b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_forward(name, shapes, dtype):
    fn, ref = BINARY[name]
    a, b = binary_inputs(name, *shapes, dtype)
    out, got = run(fn, a, b)
    expected = ref(a, b)
    assert out.shape == expected.shape and got.shape == expected.shape
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected, **tol(dtype))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "maximum", "minimum"])
def test_binary_forward_int64(name):
    fn, ref = BINARY[name]
    a = np.array([[-3, 0, 2], [7, -1, 5]], dtype=np.int64)
    b = np.array([2, -4, 2], dtype=np.int64)
    out, got = run(fn, a, b)
    assert out.dtype == "int64"
    np.testing.assert_array_equal(got, ref(a, b))


@pytest.mark.parametrize("name", ["div", "pow"])
def test_float_only_binary_rejects_ints(name):
    i = pd.data("i", shape=[3], dtype="int64")
    with pytest.raises(TypeError, match="int64"):
        BINARY[name][0](i, i)
    with pytest.raises(TypeError):
        i / 2                      # the operator too: integer division is never silent


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_shape_inference_with_none(name):
    fn, _ = BINARY[name]
    a = pd.data("a", shape=[None, 1, 4])
    b = pd.data("b", shape=[3, 1])
    assert fn(a, b).shape == (None, 3, 4)
    with pytest.raises(pd.ShapeError, match=r"\(None, 1, 4\).*\(5,\)"):
        fn(a, pd.data("c", shape=[5]))


@pytest.mark.parametrize("unknown_batch", [False, True])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)),
                                    ((2, 1, 4), (3, 1)), ((), (2, 3))], ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradients(name, shapes, unknown_batch):
    a, b = binary_inputs(name, *shapes, "float64")
    if name in ("maximum", "minimum"):     # on grids 0.05 apart: no ties
        a = np.round(a, 1) + 0.05
        b = np.round(b, 1)
    check(BINARY[name][0], [a, b], unknown_batch=unknown_batch)


def test_gradient_of_a_variable_used_twice():
    check_gradients(lambda x: x * x + x / (x * x + 1.0), [RNG.standard_normal((2, 3))])


def test_gradients_of_python_number_operands():
    check_gradients(lambda x: 2.0 - x * 3.0 + 1.0 / (x * x + 2.0) + (x * x + 1.0) ** 1.5,
                    [RNG.standard_normal((2, 3))])


@pytest.mark.parametrize("unknown_batch", [False, True])
def test_mul_second_order(unknown_batch):
    check(lambda a, b: a * b * a, [RNG.standard_normal((3, 4)), RNG.standard_normal((4,))],
          unknown_batch=unknown_batch, order=2)


def test_tanh_second_order():
    check_gradients(lambda x: pd.tanh(x), [RNG.standard_normal((3, 4))], order=2)


def test_exp_log_div_second_order():
    check_gradients(lambda x, y: pd.exp(x) / y + pd.log(y * y),
                    [RNG.standard_normal((2, 3)), RNG.uniform(0.5, 2.0, (2, 3))], order=2)


# ---- clip -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_forward(dtype):
    x = RNG.standard_normal((4, 5)).astype(dtype)
    out, got = run(lambda v: pd.clip(v, -0.5, 0.7), x)
    assert out.dtype == dtype
    np.testing.assert_array_equal(got, np.clip(x, -0.5, 0.7))


def test_clip_forward_int64():
    x = np.arange(-4, 5, dtype=np.int64)
    out, got = run(lambda v: pd.clip(v, -2, 3), x)
    assert out.dtype == "int64"
    np.testing.assert_array_equal(got, np.clip(x, -2, 3))


@pytest.mark.parametrize("unknown_batch", [False, True])
def test_clip_gradient(unknown_batch):
    x = np.array([[-2.0, -0.3, 0.1, 0.4], [1.5, -1.2, 0.25, 0.9]])
    check(lambda v: pd.clip(v, -0.5, 0.7), [x], unknown_batch=unknown_batch)
    v = pd.data("v", shape=[2, 4], dtype="float64")
    g, = pd.gradients(pd.sum(pd.clip(v, -0.5, 0.7)), [v])
    np.testing.assert_array_equal(pd.eval(g, {v: x}), (x > -0.5) & (x < 0.7))


def test_clip_with_variable_bounds():
    x = RNG.standard_normal((3, 4))
    bounds = np.array([-1.0, -0.2, 0.0, 0.5])
    _, got = run(lambda v: pd.clip(v, pd.constant(bounds, dtype="float64"), 1.0), x)
    np.testing.assert_allclose(got, np.clip(x, bounds, 1.0))


# ---- comparisons ------------------------------------------------------------------------

@pytest.mark.parametrize("name,ref", [
    ("greater", np.greater), ("greater_equal", np.greater_equal), ("less", np.less),
    ("less_equal", np.less_equal), ("equal", np.equal), ("not_equal", np.not_equal)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_comparisons(name, ref, dtype):
    a = np.array([[1, 2, 3], [3, 2, 1]], dtype=dtype)
    b = np.array([2, 2, 2], dtype=dtype)
    out, got = run(getattr(pd, name), a, b)
    assert out.dtype == "bool" and got.dtype == np.bool_
    np.testing.assert_array_equal(got, ref(a, b))


def test_comparison_operators():
    x = pd.data("x", shape=[3], dtype="float64")
    v = np.array([-1.0, 0.0, 1.0])
    got = pd.eval([x > 0.0, x >= 0.0, x < 0.0, x <= 0.0], {x: v})
    for g, r in zip(got, [v > 0, v >= 0, v < 0, v <= 0]):
        np.testing.assert_array_equal(g, r)


# ---- pd.gradients -----------------------------------------------------------------------

def test_gradients_of_several_ys_with_given_grad_ys():
    x = pd.data("x", shape=[None, 3], dtype="float64")
    y1, y2 = x * 2.0, pd.sum(x * x, axis=1)
    v = np.arange(6.0).reshape(2, 3)
    g, = pd.gradients([y1, y2], [x], grad_ys=[np.full((1, 3), 3.0), None])
    np.testing.assert_allclose(pd.eval(g, {x: v}), 6.0 + 2 * v)   # a row broadcasts to y1
    g, = pd.gradients(y1, x, grad_ys=0.5)                          # one y, one number
    np.testing.assert_allclose(pd.eval(g, {x: v}), np.ones((2, 3)))
    with pytest.raises(pd.ShapeError, match="test_math.py:"):
        pd.gradients(y1, [x], grad_ys=np.ones(4))
    with pytest.raises(ValueError, match="grad_ys"):
        pd.gradients([y1, y2], [x], grad_ys=[None])
    assert pd.gradients(y2, [x, pd.data("u", shape=[2])])[1] is None
    with pytest.raises(TypeError, match="int64"):
        pd.gradients(pd.argmax(x), [x])
