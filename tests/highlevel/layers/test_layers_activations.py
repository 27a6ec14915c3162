"""Activation layers (ReLU, LeakyReLU, PReLU, ELU, Softmax): one-call layer tests, NumPy
references of Keras 3's rules, gradients, and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from gradcheck import check_gradients
from layer_test import run_layer_test, train_through

RNG = np.random.default_rng(21)
X = np.array([[-3.0, -1.0, -0.25, 0.0, 0.4, 1.5, 7.0]], np.float32)


def np_relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras 3 ReLU.static_call, transcribed."""
    neg = np.maximum(-x + threshold, 0) if threshold else np.maximum(-x, 0)
    y = x * (x > threshold) if threshold else np.maximum(x, 0)
    if max_value is not None:
        y = np.clip(y, 0, max_value)
    return y - negative_slope * neg if negative_slope else y


@pytest.mark.parametrize("kwargs", [
    {}, {"max_value": 6.0}, {"negative_slope": 0.1}, {"threshold": 0.5},
    {"max_value": 1.0, "negative_slope": 0.2, "threshold": -0.5}, {"negative_slope": 0.3,
                                                                   "max_value": 2.0},
])
def test_relu(kwargs):
    run_layer_test(layers.ReLU, kwargs, (2, 3, 4), (None, 3, 4), 0)
    np.testing.assert_allclose(layers.ReLU(**kwargs)(X), np_relu(X, **kwargs), rtol=1e-6)
    train_through(layers.ReLU(**kwargs), (3, 4))


def test_leaky_relu_elu_values():
    run_layer_test(layers.LeakyReLU, {"negative_slope": 0.1}, (2, 5), (None, 5), 0)
    run_layer_test(layers.ELU, {"alpha": 0.5}, (2, 5), (None, 5), 0)
    np.testing.assert_allclose(layers.LeakyReLU()(X), np.where(X > 0, X, 0.3 * X), rtol=1e-6)
    np.testing.assert_allclose(layers.LeakyReLU(alpha=0.2)(X), np.where(X > 0, X, 0.2 * X),
                               rtol=1e-6)
    np.testing.assert_allclose(layers.ELU(alpha=0.5)(X), np.where(X > 0, X, 0.5 * np.expm1(X)),
                               rtol=1e-6)
    train_through(layers.LeakyReLU(), (4,))
    train_through(layers.ELU(), (4,))


def test_prelu():
    run_layer_test(layers.PReLU, {"alpha_initializer": "ones"}, (2, 3, 4), (None, 3, 4), 1)
    layer = run_layer_test(layers.PReLU, {"shared_axes": [1, 2]}, (2, 5, 5, 3),
                           (None, 5, 5, 3), 1)
    assert layer.alpha.shape == (1, 1, 3)
    prelu = layers.PReLU(alpha_initializer=pd.initializers.Constant(0.25))
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    np.testing.assert_allclose(prelu(x), np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    check_gradients(lambda v: layers.PReLU(alpha_initializer=pd.initializers.Constant(0.3),
                                           dtype="float64")(v), [RNG.normal(size=(3, 4))])


def test_prelu_regularizer_adds_to_the_loss():
    layer = run_layer_test(layers.PReLU, {"alpha_initializer": "ones",
                                          "alpha_regularizer": pd.regularizers.L2(0.5)},
                           (2, 3), (None, 3), 1)
    assert layer.get_config()["alpha_regularizer"]["class_name"] == "L2"
    inp = layers.Input(shape=(3,))
    prelu = layers.PReLU(alpha_initializer="ones", alpha_regularizer="l1")
    model = pd.Model(inp, prelu(inp))
    assert len(model.losses) == 1
    model.compile(optimizer=pd.optimizers.SGD(0.0), loss="mse")
    x = np.zeros((2, 3), np.float32)
    # l1's default factor is 0.01: the penalty is 0.01 * sum(|alpha|) = 0.03
    assert model.evaluate(x, x, verbose=0) == pytest.approx(0.03, rel=1e-5)
    with pytest.raises(ValueError, match="PReLU: alpha_constraint: constraint: could not"):
        layers.PReLU(alpha_constraint="positive")


def test_softmax():
    run_layer_test(layers.Softmax, {}, (2, 3, 4), (None, 3, 4), 0)
    run_layer_test(layers.Softmax, {"axis": 1}, (2, 3, 4), (None, 3, 4), 0)
    run_layer_test(layers.Softmax, {"axis": [1, 2]}, (2, 3, 4), (None, 3, 4), 0)
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)

    def np_softmax(v, axis):
        e = np.exp(v - v.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    np.testing.assert_allclose(layers.Softmax()(x), np_softmax(x, -1), rtol=1e-5)
    np.testing.assert_allclose(layers.Softmax(axis=1)(x), np_softmax(x, 1), rtol=1e-5)
    np.testing.assert_allclose(layers.Softmax(axis=[1, 2])(x), np_softmax(x, (1, 2)), rtol=1e-5)
    mask = np.array([[1, 1, 0, 0]], np.float32)
    got = pd.eval(layers.Softmax()(pd.constant(x[0]), mask=pd.constant(mask)))
    np.testing.assert_allclose(got[:, 2:], 0, atol=1e-7)
    np.testing.assert_allclose(got[:, :2], np_softmax(x[0][:, :2], -1), rtol=1e-5)
    train_through(layers.Softmax(), (3, 4))
    check_gradients(lambda v: layers.Softmax(axis=[1, 2], dtype="float64")(v),
                    [RNG.normal(size=(2, 3, 4))])


def test_relu_gradient():
    check_gradients(lambda v: layers.ReLU(max_value=1.0, negative_slope=0.2, threshold=-0.5)(v),
                    [np.array([[-2.1, -0.7, -0.2, 0.3, 0.8, 2.5]])])


@pytest.mark.parametrize("make, match", [
    (lambda: layers.ReLU(max_value=-1), r"ReLU: expected max_value >= 0 or None, received -1"),
    (lambda: layers.ReLU(negative_slope=-0.1), r"ReLU: expected negative_slope >= 0"),
    (lambda: layers.ReLU(threshold="0"), r"ReLU: expected threshold a number"),
    (lambda: layers.LeakyReLU(negative_slope=-1), r"LeakyReLU: expected negative_slope >= 0"),
    (lambda: layers.ELU(alpha=None), r"ELU: expected alpha a number"),
    (lambda: layers.PReLU(shared_axes=[0]), r"PReLU: expected shared_axes as axes >= 1"),
    (lambda: layers.Softmax(axis="last"), r"Softmax: expected an integer axis"),
    (lambda: layers.PReLU(alpha_initializer="nope"), r"PReLU: alpha_initializer: .*'nope'"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_shapes():
    with pytest.raises(pd.ShapeError, match=r"p_re_lu\w*: shared axis 3 is not an axis"):
        layers.PReLU(shared_axes=[3])(layers.Input(shape=(4, 2)))
    with pytest.raises(pd.ShapeError, match=r"expected known sizes on the axes that do not "
                                            r"share a slope"):
        layers.PReLU()(layers.Input(shape=(None, 2)))
    with pytest.raises(pd.ShapeError, match="softmax"):
        layers.Softmax(axis=[1, 5])(layers.Input(shape=(4, 2)))
    prelu = layers.PReLU()
    prelu(layers.Input(shape=(4,)))
    with pytest.raises(pd.ShapeError, match=r"p_re_lu\w*: expected axis 1 of the input to be 4, "
                                            r"received shape \(None, 5\)"):
        prelu(layers.Input(shape=(5,)))
