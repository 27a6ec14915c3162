"""SpectralNormalization: training and inference outputs and the stored vector_u against
Keras 3.15.1 (JAX backend) for the same weights (`set_sine_weights`; the constants are what
it printed), weights in Keras's order, fit, a gradient check, config and bad arguments.
(.keras files both ways: tests/highlevel/saving.)"""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers as L
from gradcheck import check_gradients
from layer_test import set_sine_weights

X = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)


@pytest.mark.parametrize("make, inference, total, squares, vector_u", [
    (lambda: L.SpectralNormalization(L.Dense(3)), [0.11943, -0.04807, -0.19296, 0.05041],
     -0.4005, 0.30455, None),
    (lambda: L.SpectralNormalization(L.Dense(3, use_bias=False), power_iterations=3),
     [-0.33522, -0.26176, -0.06519, -0.40424], -1.99694, 0.65902,
     [0.34422, 0.66095, 0.66683]),
])
def test_matches_keras(make, inference, total, squares, vector_u):
    sn = make()
    sn(X)
    set_sine_weights(sn, 0.7)
    np.testing.assert_allclose(np.asarray(sn(X)).reshape(-1)[:4], inference, atol=1e-4)
    trained = np.asarray(sn(X, training=True))
    assert float(trained.sum()) == pytest.approx(total, abs=1e-4)
    assert float((trained ** 2).sum()) == pytest.approx(squares, rel=1e-4)
    if vector_u is not None:
        np.testing.assert_allclose(sn.vector_u.val()[0], vector_u, atol=1e-4)


def test_conv_matches_keras_and_weights_are_in_kerass_order():
    sn = L.SpectralNormalization(L.Conv2D(2, 2))
    x = np.random.default_rng(1).normal(size=(1, 3, 3, 2)).astype(np.float32)
    sn(x)
    assert [w.name.split("/")[-1] for w in sn.weights] == ["kernel", "vector_u", "bias"]
    assert [w.name.split("/")[-1] for w in sn.trainable_weights] == ["kernel", "bias"]
    assert [w.name.split("/")[-1] for w in sn.non_trainable_weights] == ["vector_u"]
    set_sine_weights(sn, 0.3)
    y = np.asarray(sn(x, training=True))
    assert (round(float(y.sum()), 4), round(float((y ** 2).sum()), 4)) == (3.3729, 1.923)
    np.testing.assert_allclose(sn.vector_u.val()[0], [0.68137, 0.73194], atol=1e-4)


def test_fit_normalizes_and_updates_vector_u():
    pd.seed(0)
    # Named: after fit the model stays alive (a known leak of the vector_u update, see
    # the report), and default names are global (a later test's first Dense is "dense").
    sn = L.SpectralNormalization(L.Dense(2, name="sn_fit_dense"), name="sn_fit")
    model = pd.Sequential([L.Input(shape=(4,)), sn], name="sn_fit_model")
    model.compile(optimizer=pd.optimizers.SGD(0.01), loss="mse")
    u = sn.vector_u.val().copy()
    model.fit(X, np.zeros((3, 2), np.float32), epochs=2, verbose=0)
    assert not np.array_equal(sn.vector_u.val(), u)
    kernel = sn.layer.kernel.val()
    # predict (inference) runs the stored kernel as it is
    np.testing.assert_allclose(model.predict(X, verbose=0),
                               X @ kernel + sn.layer.bias.val(), rtol=1e-5, atol=1e-6)


def test_gradient_of_the_training_call():
    sn = L.SpectralNormalization(L.Dense(2, use_bias=False, dtype="float64"),
                                 power_iterations=2, dtype="float64")
    sn(np.ones((1, 3)))
    kernel = sn.layer.kernel

    def fn(x):
        return sn(x, training=True)

    check_gradients(fn, [np.random.default_rng(2).normal(size=(2, 3))])
    y = sn(pd.data("x", (None, 3), "float64"), training=True)
    assert pd.gradients(pd.sum(y), [kernel])[0] is not None


def test_config_round_trip():
    sn = L.SpectralNormalization(L.Dense(3, name="d"), power_iterations=2, name="sn")
    config = sn.get_config()
    assert config["power_iterations"] == 2 and config["layer"]["class_name"] == "Dense"
    again = L.SpectralNormalization.from_config(config)
    assert again.power_iterations == 2 and again.layer.units == 3


@pytest.mark.parametrize("make, message", [
    (lambda: L.SpectralNormalization(L.Dense(2), power_iterations=0), "power_iterations"),
    (lambda: L.SpectralNormalization("dense"), "expected a Layer"),
    (lambda: L.SpectralNormalization(L.Flatten())(X), "no attribute 'kernel' nor"),
])
def test_bad_arguments(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()
