"""Rescaling, Normalization, CategoryEncoding, Discretization: outputs against Keras 3.15.1
(JAX backend; constants printed by it for the same inputs), adapt, the one-call layer test,
saving, and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test


def test_rescaling():
    x = np.array([[0, 128, 255]], np.uint8)
    np.testing.assert_allclose(layers.Rescaling(1 / 127.5, offset=-1)(x),
                               [[-1.0, 0.00392157, 1.0]], atol=1e-6)
    per_channel = layers.Rescaling([1.0, 2.0, 3.0], offset=[0.0, 1.0, 0.0])
    np.testing.assert_allclose(per_channel(np.ones((1, 3), np.float32)), [[1.0, 3.0, 3.0]])
    run_layer_test(layers.Rescaling, {"scale": 0.5, "offset": 1.0}, (2, 3), (None, 3), 0)


def test_normalization_adapt_matches_keras():
    layer = layers.Normalization()
    layer.adapt(np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 7.0]], np.float32))
    # keras.layers.Normalization() adapted to the same data, called on [[1, 2]].
    np.testing.assert_allclose(layer(np.array([[1.0, 2.0]], np.float32)),
                               [[-1.2247448, -1.3887302]], rtol=1e-6)
    assert [w.name.split("/")[-1] for w in layer.weights] == ["mean", "variance", "count"]
    assert [w.dtype for w in layer.weights] == ["float32", "float32", "int32"]  # as Keras


def test_normalization_given_statistics_and_invert_match_keras():
    # keras: Normalization(axis=None, mean=2, variance=4)([[1, 2]]) -> [[-0.5, 0]];
    # Normalization(mean=[1, 2], variance=[4, 9], invert=True)([[1, 2]]) -> [[3, 8]].
    x = np.array([[1.0, 2.0]], np.float32)
    np.testing.assert_allclose(layers.Normalization(axis=None, mean=2.0, variance=4.0)(x),
                               [[-0.5, 0.0]])
    inverse = layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0], invert=True)
    np.testing.assert_allclose(inverse(x), [[3.0, 8.0]])
    assert inverse.weights == []


def test_normalization_adapt_batches_and_after_building():
    rng = np.random.default_rng(0)
    data = rng.normal(3.0, 2.0, size=(40, 2, 5)).astype(np.float32)
    inp = layers.Input(shape=(2, 5))
    norm = layers.Normalization(axis=(1, 2))
    model = pd.Model(inp, norm(inp))  # built first, adapted after: the weights update
    norm.adapt([data[:15], data[15:]])  # an iterable of batches, merged as Keras merges
    np.testing.assert_allclose(norm.adapt_mean.val(), data.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(norm.adapt_variance.val(), data.var(axis=0), rtol=1e-4)
    y = model.predict(data, verbose=0)
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(axis=0), 1, atol=1e-4)


def test_normalization_layer_test_and_round_trip(tmp_path):
    run_layer_test(layers.Normalization, {"axis": -1}, (2, 3, 4), (None, 3, 4), 0, 3)
    run_layer_test(layers.Normalization, {"mean": [1.0, 2.0], "variance": [1.0, 4.0]},
                   (2, 2), (None, 2), 0)
    norm = layers.Normalization()
    norm.adapt(np.arange(12, dtype=np.float32).reshape(4, 3))
    model = pd.Sequential([layers.Input(shape=(3,)), norm, layers.Dense(2)])
    model.save(tmp_path / "m.keras")
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))


def test_category_encoding_matches_keras():
    ids = np.array([[0, 1], [3, 3]])
    # keras.layers.CategoryEncoding(4, mode)(ids) for each mode.
    np.testing.assert_array_equal(layers.CategoryEncoding(4)(ids),
                                  [[1, 1, 0, 0], [0, 0, 0, 1]])
    np.testing.assert_array_equal(layers.CategoryEncoding(4, "count")(ids),
                                  [[1, 1, 0, 0], [0, 0, 0, 2]])
    assert layers.CategoryEncoding(4, "one_hot")(ids).shape == (2, 2, 4)
    assert layers.CategoryEncoding(4, "one_hot")(np.array([[0], [3]])).shape == (2, 4)
    weighted = layers.CategoryEncoding(4, "count")(
        ids, count_weights=np.array([[0.5, 1.0], [2.0, 3.0]], np.float32))
    np.testing.assert_array_equal(weighted, [[0.5, 1, 0, 0], [0, 0, 0, 5]])
    run_layer_test(layers.CategoryEncoding, {"num_tokens": 5, "output_mode": "multi_hot"},
                   (2, 3), (None, 5), 0, input_dtype="int64")


def test_discretization_matches_keras():
    x = np.array([[-1.5, 0.0, 0.5, 1.0, 2.5]], np.float32)
    # keras.layers.Discretization(bin_boundaries=[0, 1, 2])(x) -> [[0, 1, 1, 2, 3]] int32.
    out = layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])(x)
    assert out.dtype == "int32" and out.tolist() == [[0, 1, 1, 2, 3]]  # a tensor (spec 1b)
    hot = layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0], output_mode="one_hot")(x)
    assert hot.shape == (1, 5, 4) and hot[0].argmax(-1).tolist() == [0, 1, 1, 2, 3]
    # Keras's update_state + finalize_state (its adapt needs TensorFlow for the dataset
    # check) on the same data gave these boundaries.
    layer = layers.Discretization(num_bins=4)
    layer.adapt(np.arange(100.0))
    np.testing.assert_allclose(layer.bin_boundaries, [23.999983, 48.99998, 73.999985],
                               rtol=1e-6)
    layer = layers.Discretization(num_bins=3, epsilon=0.1)
    layer.adapt([np.arange(30.0)[::-1], np.linspace(0, 1, 7)])
    np.testing.assert_allclose(layer.bin_boundaries, [4.333333, 16.666668], rtol=1e-6)
    run_layer_test(layers.Discretization, {"bin_boundaries": [0.0, 0.5]}, (2, 3), (None, 3),
                   0)
    clone = layers.Discretization.from_config(layer.get_config())
    assert clone.bin_boundaries == layer.bin_boundaries


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.Rescaling("x"), ValueError, "Rescaling: expected scale to be a finite"),
    (lambda: layers.Normalization(mean=1.0), ValueError,
     "Normalization: expected both mean and variance"),
    (lambda: layers.Normalization(axis="a"), ValueError, "Normalization: expected axis"),
    (lambda: layers.Normalization(mean=[1.0, 2.0], variance=[1.0]), ValueError,
     "same shape"),
    (lambda: layers.Normalization(mean=1.0, variance=1.0).adapt(np.ones((2, 1))),
     ValueError, "adapt learns them only"),
    (lambda: layers.Normalization(axis=3)(layers.Input(shape=(2,))), pd.ShapeError,
     "out of range"),
    (lambda: layers.CategoryEncoding(0), ValueError,
     "CategoryEncoding: expected num_tokens to be an integer >= 1, received 0"),
    (lambda: layers.CategoryEncoding(3, output_mode="tf_idf"), ValueError,
     "CategoryEncoding: expected output_mode"),
    (lambda: layers.CategoryEncoding(3, "multi_hot")(np.zeros((1, 2, 2), np.int64)),
     pd.ShapeError, "rank 1 or 2"),
    (lambda: layers.Discretization(), ValueError, "either bin_boundaries or num_bins"),
    (lambda: layers.Discretization(bin_boundaries=[2.0, 1.0]), ValueError,
     "sorted list of finite numbers"),
    (lambda: layers.Discretization(num_bins=0), ValueError, "num_bins to be an integer"),
    (lambda: layers.Discretization(bin_boundaries=[1.0]).adapt(np.ones(3)), ValueError,
     "adapt needs a layer made with num_bins"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_normalization_adapt_matches_keras_over_batches():
    # Keras 3.15 (JAX backend): Normalization().adapt(a) on the same array gives these
    # statistics; batches of it are merged to the same ones.
    rng = np.random.default_rng(0)
    a = rng.normal(size=(10, 3)).astype("float32") * 3 + 1
    keras_mean = [0.6915247440338135, 0.6719760298728943, 0.5431206226348877]
    keras_var = [11.580545425415039, 3.2058253288269043, 2.879647731781006]
    for data in (a, [a[:4], a[4:7], a[7:]]):
        layer = pd.layers.Normalization()
        layer.adapt(data)
        np.testing.assert_allclose(layer.adapt_mean.value.ravel(), keras_mean, rtol=1e-6)
        np.testing.assert_allclose(layer.adapt_variance.value.ravel(), keras_var, rtol=1e-6)
    whole = pd.layers.Normalization(axis=None)
    whole.adapt(a)
    np.testing.assert_allclose(whole.adapt_variance.value.ravel(), [5.893006801605225],
                               rtol=1e-6)
