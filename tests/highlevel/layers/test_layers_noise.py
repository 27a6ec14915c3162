"""SpatialDropout1D/2D, GaussianNoise, GaussianDropout: identity at inference, the right
noise in training runs (shape, scale, statistics), seeds, a training step, bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test, train_through


@pytest.mark.parametrize("cls, kwargs, in_shape", [
    (layers.SpatialDropout1D, {"rate": 0.3}, (2, 5, 4)),
    (layers.SpatialDropout2D, {"rate": 0.3}, (2, 3, 3, 4)),
    (layers.SpatialDropout2D, {"rate": 0.3, "data_format": "channels_first", "seed": 3},
     (2, 4, 3, 3)),
    (layers.GaussianNoise, {"stddev": 0.5}, (2, 5)),
    (layers.GaussianDropout, {"rate": 0.4, "seed": 1}, (2, 5)),
])
def test_layer_and_inference_identity(cls, kwargs, in_shape):
    run_layer_test(cls, kwargs, in_shape, (None,) + in_shape[1:], 0)
    x = np.random.default_rng(0).normal(size=in_shape).astype(np.float32)
    np.testing.assert_array_equal(cls(**kwargs)(x), x)  # an eager call is inference
    if kwargs.get("data_format") != "channels_first":
        train_through(cls(**kwargs), in_shape[1:])


def _training(layer, shape):
    x = pd.data("x", shape=(None,) + shape[1:])
    y = layer(x)
    ones = np.ones(shape, np.float32)
    return lambda: pd.eval(y, {x: ones}, training=True)


def test_spatial_dropout_drops_whole_channels():
    run = _training(layers.SpatialDropout1D(0.4), (64, 10, 32))
    y = run()
    assert np.all(y == y[:, :1, :])  # one decision per (example, channel)
    assert set(np.unique(y).tolist()) <= {0.0, float(np.float32(1 / 0.6))}
    assert abs((y[:, 0] == 0).mean() - 0.4) < 0.05
    assert not np.array_equal(y, run())  # a new mask each run
    y = _training(layers.SpatialDropout2D(0.5), (16, 4, 5, 32))()
    assert np.all(y == y[:, :1, :1, :])
    y = _training(layers.SpatialDropout2D(0.5, data_format="channels_first"), (16, 32, 4, 5))()
    assert np.all(y == y[:, :, :1, :1]) and 0.3 < (y[:, :, 0, 0] == 0).mean() < 0.7


def test_gaussian_noise_and_dropout_statistics():
    y = _training(layers.GaussianNoise(0.5), (200, 500))()
    assert abs((y - 1).mean()) < 0.01 and abs((y - 1).std() - 0.5) < 0.01
    y = _training(layers.GaussianDropout(0.2), (200, 500))()
    assert abs(y.mean() - 1) < 0.01 and abs(y.std() - 0.5) < 0.01  # sqrt(0.2 / 0.8)


def test_seeds_reproduce_the_sequence():
    a = _training(layers.GaussianNoise(1.0, seed=5), (2, 3))
    b = _training(layers.GaussianNoise(1.0, seed=5), (2, 3))
    first = a()
    np.testing.assert_array_equal(first, b())
    assert not np.array_equal(first, a())
    pd.seed(9)
    c = _training(layers.SpatialDropout1D(0.5), (8, 2, 6))
    seq = [c(), c()]
    pd.seed(9)
    d = _training(layers.SpatialDropout1D(0.5), (8, 2, 6))
    np.testing.assert_array_equal(seq[0], d())
    np.testing.assert_array_equal(seq[1], d())


def test_fit_draws_noise_evaluate_does_not():
    pd.seed(0)
    inp = layers.Input(shape=(4,))
    out = layers.GaussianNoise(10.0)(inp)
    model = pd.Model(inp, layers.Dense(1, kernel_initializer="ones", use_bias=False)(out))
    model.compile(optimizer=pd.optimizers.SGD(0.0), loss="mse")
    x, y = np.zeros((32, 4), np.float32), np.zeros((32, 1), np.float32)
    assert model.evaluate(x, y, verbose=0) == 0.0
    assert model.train_on_batch(x, y) > 1.0  # the noise is there in training


@pytest.mark.parametrize("make, match", [
    (lambda: layers.SpatialDropout1D(1.0), r"SpatialDropout1D: expected a rate in \[0, 1\)"),
    (lambda: layers.SpatialDropout2D(0.5, data_format="NCHW"),
     r"SpatialDropout2D: expected data_format"),
    (lambda: layers.GaussianNoise(-1.0), r"GaussianNoise: expected stddev >= 0"),
    (lambda: layers.GaussianNoise("1"), r"GaussianNoise: expected stddev >= 0"),
    (lambda: layers.GaussianDropout(0.5, seed=-2), r"GaussianDropout: expected an integer seed"),
    (lambda: layers.GaussianDropout(True), r"GaussianDropout: expected a rate"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_inputs():
    with pytest.raises(pd.ShapeError, match=r"spatial_dropout1d\w*: expected an input of rank "
                                            r"3, received shape \(None, 4\)"):
        layers.SpatialDropout1D(0.5)(layers.Input(shape=(4,)))
    with pytest.raises(pd.ShapeError, match=r"spatial_dropout2d\w*: expected an input of rank 4"):
        layers.SpatialDropout2D(0.5)(layers.Input(shape=(4, 3)))


def test_explicit_training_is_honoured():
    """training=True draws noise in predict too (Keras's Monte-Carlo idiom); training=False
    keeps the identity in fit."""
    inp = layers.Input(shape=(6,))
    noisy = pd.Model(inp, layers.GaussianNoise(1.0)(inp, training=True))
    x = np.zeros((4, 6), np.float32)
    assert np.all(noisy.predict(x, verbose=0) != 0)
    dropped = pd.Model(inp, layers.SpatialDropout1D(0.5)(layers.Reshape((2, 3))(inp),
                                                          training=True))
    out = dropped.predict(np.ones((64, 6), np.float32), verbose=0)
    assert 0.3 < (out == 0).mean() < 0.7
    quiet = pd.Model(inp, layers.Dense(1, kernel_initializer="ones", use_bias=False)(
        layers.GaussianDropout(0.5)(inp, training=False)))
    quiet.compile(optimizer=pd.optimizers.SGD(0.0), loss="mse")
    ones = np.ones((4, 6), np.float32)
    assert quiet.train_on_batch(ones, np.full((4, 1), 6.0, np.float32)) == 0.0


def test_dropout_noise_shape():
    layer = layers.Dropout(0.4, noise_shape=(None, 1, 32))
    run = _training(layer, (64, 10, 32))
    y = run()
    assert np.all(y == y[:, :1, :])  # one decision per (example, feature), at every step
    assert set(np.unique(y).tolist()) <= {0.0, float(np.float32(1 / 0.6))}
    assert abs((y[:, 0] == 0).mean() - 0.4) < 0.05
    assert not np.array_equal(y, run())
    assert layer.get_config()["noise_shape"] == [None, 1, 32]
    again = layers.Dropout.from_config(layer.get_config())
    assert again.noise_shape == (None, 1, 32) and again.rate == 0.4
    x = np.ones((2, 3, 4), np.float32)
    assert layer(x).tolist() == x.tolist()  # the identity at inference


def test_dropout_noise_shape_shared_over_the_batch():
    y = _training(layers.Dropout(0.5, (1, None)), (16, 40))()
    assert np.all(y == y[:1])  # one mask for every example


@pytest.mark.parametrize("noise_shape, match", [
    ("abc", "expected noise_shape as a tuple"), ((None, 0), "expected noise_shape as a tuple"),
    ((None, 1.5), "expected noise_shape as a tuple"), (3, "expected noise_shape as a tuple"),
])
def test_dropout_bad_noise_shape(noise_shape, match):
    with pytest.raises(ValueError, match=match):
        layers.Dropout(0.5, noise_shape=noise_shape)


def test_dropout_noise_shape_must_fit_the_input():
    with pytest.raises(ValueError, match=r"expected a noise_shape of 3 entries, each None, 1 or "
                                         r"the input's size, received \(None, 1\)"):
        layers.Dropout(0.5, noise_shape=(None, 1))(pd.layers.Input(shape=(4, 5)))
    with pytest.raises(ValueError, match="received \\(None, 1, 7\\)"):
        layers.Dropout(0.5, noise_shape=(None, 1, 7))(pd.layers.Input(shape=(4, 5)))


def test_spatial_dropout_3d():
    run_layer_test(layers.SpatialDropout3D, {"rate": 0.3}, (2, 2, 3, 3, 4),
                   (None, 2, 3, 3, 4), 0)
    y = _training(layers.SpatialDropout3D(0.5), (16, 2, 3, 2, 32))()
    assert np.all(y == y[:, :1, :1, :1, :]) and 0.3 < (y[:, 0, 0, 0] == 0).mean() < 0.7
    y = _training(layers.SpatialDropout3D(0.5, data_format="channels_first"),
                  (16, 32, 2, 3, 2))()
    assert np.all(y == y[:, :, :1, :1, :1])


def test_alpha_dropout_keeps_mean_and_variance():
    run_layer_test(layers.AlphaDropout, {"rate": 0.2, "seed": 3}, (2, 5), (None, 5), 0)
    x = np.random.default_rng(0).normal(size=(400, 500)).astype(np.float32)
    inp = pd.data("x", shape=(None, 500))
    y = pd.eval(layers.AlphaDropout(0.2)(inp), {inp: x}, training=True)
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02  # SELU's fixed point kept
    # Keras's constants: the dropped value is a * alpha' + b (alpha' = -1.7581).
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.2) * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    dropped = np.isclose(y, a * alpha_p - a * alpha_p * 0.2, atol=1e-5)
    assert abs(dropped.mean() - 0.2) < 0.01
    np.testing.assert_allclose(y[~dropped], a * x[~dropped] - a * alpha_p * 0.2, atol=1e-5)
    np.testing.assert_array_equal(layers.AlphaDropout(0.2)(x), x)  # inference: identity
    train_through(layers.AlphaDropout(0.2), (6,))


def test_activity_regularization_adds_its_penalty():
    layer = layers.ActivityRegularization(l1=0.5, l2=0.25)
    inp = layers.Input(shape=(2,))
    model = pd.Model(inp, layer(inp))
    model.compile(optimizer="sgd", loss="mse")
    x = np.array([[1.0, -2.0]], np.float32)
    # mse 0 (y = x), penalty 0.5 * 3 + 0.25 * 5 = 2.75
    assert model.evaluate(x, x, verbose=0) == pytest.approx(2.75)
    config = layer.get_config()
    assert config["l1"] == 0.5 and config["l2"] == 0.25 and "activity_regularizer" not in config
    run_layer_test(layers.ActivityRegularization, {"l1": 0.1}, (2, 3), (None, 3), 0)


@pytest.mark.parametrize("make, match", [
    (lambda: layers.AlphaDropout(1.0), r"AlphaDropout: expected a rate in \[0, 1\)"),
    (lambda: layers.AlphaDropout(0.1, noise_shape=(2, 0)), "AlphaDropout: expected "
     "noise_shape"),
    (lambda: layers.SpatialDropout3D(0.1, data_format="nhwc"), "expected data_format"),
    (lambda: layers.ActivityRegularization(l1=-1), "ActivityRegularization: expected l1 to "
     "be a number >= 0, received -1"),
])
def test_bad_arguments_of_the_newer_layers(make, match):
    with pytest.raises(ValueError, match=match):
        make()
