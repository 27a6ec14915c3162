"""Activations: relu leaky_relu elu gelu sigmoid tanh softmax log_softmax softplus silu;
forward against NumPy (float32, float64), extreme inputs, softmax on other axes, gradients
(with None dims), second order of tanh and softmax."""
import math

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.lowlevel.ops.activations import logsumexp

RNG = np.random.default_rng(4)
ERF = np.vectorize(math.erf)


def np_softmax(a, axis=-1):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def np_log_softmax(a, axis=-1):
    shifted = a - a.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


ACTIVATIONS = {
    "relu": (pd.relu, lambda a: np.maximum(a, 0)),
    "leaky_relu": (pd.leaky_relu, lambda a: np.where(a > 0, a, 0.2 * a)),
    "leaky_relu_0.05": (lambda x: pd.leaky_relu(x, negative_slope=0.05),
                        lambda a: np.where(a > 0, a, 0.05 * a)),
    "elu": (pd.elu, lambda a: np.where(a > 0, a, np.expm1(np.minimum(a, 0)))),
    "elu_0.5": (lambda x: pd.elu(x, alpha=0.5),
                lambda a: np.where(a > 0, a, 0.5 * np.expm1(np.minimum(a, 0)))),
    "gelu": (pd.gelu, lambda a: 0.5 * a * (1 + ERF(a / np.sqrt(2)))),
    "gelu_tanh": (lambda x: pd.gelu(x, approximate=True),
                  lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))),
    "sigmoid": (pd.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "tanh": (pd.tanh, np.tanh),
    "softmax": (pd.softmax, np_softmax),
    "log_softmax": (pd.log_softmax, np_log_softmax),
    "softplus": (pd.softplus, lambda a: np.logaddexp(0, a)),
    "silu": (pd.silu, lambda a: a / (1 + np.exp(-a))),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_forward(name, dtype):
    fn, ref = ACTIVATIONS[name]
    a = (RNG.standard_normal((3, 5)) * 3).astype(dtype)
    x = pd.data("x", shape=[None, 5], dtype=dtype)
    y = fn(x)
    assert y.shape == (None, 5) and y.dtype == dtype
    got = pd.eval(y, {x: a})
    assert got.dtype == dtype
    tol = dict(rtol=2e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, ref(a.astype(np.float64)), **tol)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_extreme_inputs_stay_finite(name):
    fn, ref = ACTIVATIONS[name]
    a = np.array([[-1000.0, -50.0, -1e-8, 0.0, 1e-8, 50.0, 1000.0]], np.float32)
    x = pd.data("x", shape=[None, 7])
    got = pd.eval(fn(x), {x: a})
    assert np.isfinite(got).all(), got
    with np.errstate(over="ignore"):
        expected = ref(a.astype(np.float64))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-5, atol=1e-6)


def test_softmax_rows_sum_to_one_on_large_rows():
    a = RNG.standard_normal((64, 1000)) * 20
    x = pd.data("x", shape=[None, 1000], dtype="float64")
    p, lp = pd.eval([pd.softmax(x), pd.log_softmax(x)], {x: a})
    np.testing.assert_allclose(p.sum(-1), np.ones(64), rtol=1e-12)
    np.testing.assert_allclose(lp, np_log_softmax(a), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_on_other_axes(name, axis):
    a = RNG.standard_normal((2, 3, 4))
    x = pd.data("x", shape=[None, 3, 4], dtype="float64")
    y = getattr(pd, name)(x, axis=axis)
    assert y.shape == (None, 3, 4)
    expected = np_softmax(a, axis) if name == "softmax" else np_log_softmax(a, axis)
    np.testing.assert_allclose(pd.eval(y, {x: a}), expected, rtol=1e-12, atol=1e-14)


def test_activation_errors():
    x = pd.data("x", shape=[None, 3])
    with pytest.raises(pd.ShapeError, match="softmax.*axis 2.*test_activations.py:"):
        pd.softmax(x, axis=2)
    with pytest.raises(TypeError, match="int64"):
        pd.softmax(pd.data("i", shape=[3], dtype="int64"))
    with pytest.raises(TypeError, match="int64"):
        pd.sigmoid(pd.data("i", shape=[3], dtype="int64"))
    with pytest.raises(pd.ShapeError):
        pd.softmax(pd.constant(1.0))


def test_relu_of_integers_and_nan():
    i = pd.data("i", shape=[3], dtype="int64")
    np.testing.assert_array_equal(pd.eval(pd.relu(i), {i: np.array([-2, 0, 3])}), [0, 0, 3])
    x = pd.data("x", shape=[2], dtype="float64")
    got = pd.eval(pd.relu(x), {x: np.array([np.nan, -1.0])})
    assert np.isnan(got[0]) and got[1] == 0.0


# ---- gradients --------------------------------------------------------------------------

check = check_gradients  # with unknown_batch=True: None batch dims in pd.data

def kinked_safe(shape):
    """Values at least 0.1 away from 0, where relu and friends have their kink."""
    a = RNG.uniform(0.1, 2.5, shape)
    return a * RNG.choice([-1.0, 1.0], shape)


@pytest.mark.parametrize("unknown_batch", [False, True])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_gradients(name, unknown_batch):
    check(ACTIVATIONS[name][0], [kinked_safe((3, 5))], unknown_batch=unknown_batch)


@pytest.mark.parametrize("name", ["softplus", "sigmoid", "elu", "silu", "log_softmax"])
def test_gradients_at_large_inputs_are_finite(name):
    x = pd.data("x", shape=[4], dtype="float32")
    g, = pd.gradients(pd.sum(ACTIVATIONS[name][0](x)), [x])
    got = pd.eval(g, {x: np.array([-200.0, -30.0, 30.0, 200.0], np.float32)})
    assert np.isfinite(got).all(), got


@pytest.mark.parametrize("axis", [0, 1, -2])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_gradients_on_other_axes(name, axis):
    check(lambda x: getattr(pd, name)(x, axis=axis), [RNG.standard_normal((2, 3, 4))],
          unknown_batch=True)


@pytest.mark.parametrize("name", ["tanh", "softmax", "log_softmax", "sigmoid", "gelu"])
def test_second_order(name):
    check_gradients(ACTIVATIONS[name][0], [RNG.standard_normal((3, 4))], order=2)


def test_softmax_second_order_with_unknown_batch():
    check(lambda x: pd.softmax(x, axis=0) * x, [RNG.standard_normal((3, 4))],
          unknown_batch=True, order=2)


@pytest.mark.parametrize("name", ["softplus", "silu", "gelu", "gelu_tanh", "sigmoid", "tanh",
                                  "elu", "softmax", "log_softmax"])
def test_smooth_activations_have_the_right_gradient_at_zero(name):
    """Composites split at 0 (softplus = relu + ...) must not add kinked subgradients."""
    check_gradients(ACTIVATIONS[name][0], [np.array([[0.0, -1e-3, 1e-3, 0.0]])])
    x = pd.data("x", shape=[1], dtype="float64")
    g, = pd.gradients(pd.sum(pd.softplus(x)), [x])
    assert float(pd.eval(g, {x: np.zeros(1)})[0]) == pytest.approx(0.5)


# ---- logsumexp over the last axis (csrc/softmax.cpp's row loop) --------------------------

def np_logsumexp(a):
    m = a.max(-1, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    with np.errstate(divide="ignore"):
        return (np.log(np.exp(a - m).sum(-1, keepdims=True)) + m)[..., 0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5,), (3, 1), (4, 17), (2, 3, 40), (2, 300)], ids=str)
def test_logsumexp_forward(shape, dtype):
    a = (RNG.standard_normal(shape) * 20).astype(dtype)
    x = pd.data("x", shape=[None, *shape[1:]] if len(shape) > 1 else list(shape), dtype=dtype)
    y = logsumexp(x)
    assert y.shape == ((None,) + shape[1:-1] if len(shape) > 1 else ())
    got = pd.eval(y, {x: a})
    assert got.dtype == dtype and got.shape == shape[:-1]
    np.testing.assert_allclose(got, np_logsumexp(a.astype(np.float64)),
                               rtol=2e-6 if dtype == "float32" else 1e-13)


def test_logsumexp_of_infinities_and_nan():
    a = np.array([[-np.inf] * 20, [1.0, np.inf] + [0.0] * 18, [0.0] * 19 + [np.nan],
                  [np.nan] + [0.0] * 19, [-np.inf, 0.0] + [-np.inf] * 18])
    got = pd.eval(logsumexp(pd.constant(a.astype(np.float32))))
    assert got[0] == -np.inf and got[1] == np.inf and np.isnan(got[2]) and np.isnan(got[3])
    assert got[4] == 0.0


def test_logsumexp_errors():
    with pytest.raises(TypeError, match="logsumexp.*float"):
        logsumexp(pd.data("i", shape=[3], dtype="int32"))
    with pytest.raises(pd.ShapeError, match="logsumexp.*non-empty last axis"):
        logsumexp(pd.data("e", shape=[3, 0]))
    with pytest.raises(pd.ShapeError, match="logsumexp.*non-empty last axis"):
        logsumexp(pd.constant(2.0))


@pytest.mark.parametrize("unknown_batch", [False, True])
def test_logsumexp_gradients(unknown_batch):
    check_gradients(logsumexp, [RNG.standard_normal((3, 4, 5))], unknown_batch=unknown_batch)
    check_gradients(logsumexp, [RNG.standard_normal((3, 7))], order=2)
