"""model.quantize("int8") against a live Keras 3 (skipped where Keras is not installed;
tests/highlevel/test_quantize.py holds Keras's values for the same checks): quantized
predictions for the same float weights, and quantized files loaded both ways."""
import numpy as np
import pytest

import paddle as pd
from keras3 import keras, quiet  # noqa: F401  (quiet: an autouse fixture)

RNG = np.random.default_rng(11)
X = RNG.normal(size=(6, 8)).astype("float32")


def both(make_keras, make_paddle, x):
    k, p = make_keras(), make_paddle()
    weights = [RNG.normal(size=w.shape).astype("float32") for w in k.get_weights()]
    k.set_weights(weights)
    p.set_weights(weights)
    k.quantize("int8")
    p.quantize("int8")
    return k, p, k.predict(x, verbose=0), p.predict(x, verbose=0)


@pytest.mark.parametrize("kind", ["dense", "einsum", "embedding"])
def test_quantized_predictions_are_kerass(kind):
    if kind == "dense":
        def make(lib):
            return lambda: lib.Sequential([lib.Input(shape=(8,)), lib.layers.Dense(
                5, activation="relu"), lib.layers.Dense(3)])
        x = X
    elif kind == "einsum":
        def make(lib):
            return lambda: lib.Sequential([lib.Input(shape=(2, 4)), lib.layers.EinsumDense(
                "abc,cde->abde", output_shape=(None, 3, 2), bias_axes="e")])
        x = X.reshape(6, 2, 4)
    else:
        def make(lib):
            return lambda: lib.Sequential([lib.Input(shape=(4,), dtype="int32"),
                                           lib.layers.Embedding(12, 3)])
        x = RNG.integers(0, 12, size=(6, 4))
    k, p, expected, got = both(make(keras), make(pd), x)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    for kw, pw in zip(k.weights, p.weights):
        assert (kw.shape, str(kw.dtype)) == (pw.shape, pw.dtype)
        np.testing.assert_array_equal(np.asarray(kw), pw.val())


def test_quantized_files_load_both_ways(tmp_path):
    def make(lib):
        return lambda: lib.Sequential([lib.Input(shape=(8,)), lib.layers.Dense(4)])
    k, p, expected, got = both(make(keras), make(pd), X)
    p.save(tmp_path / "paddle.keras")
    k.save(tmp_path / "keras.keras")
    from_paddle = keras.saving.load_model(tmp_path / "paddle.keras")
    from_keras = pd.saving.load_model(tmp_path / "keras.keras")
    np.testing.assert_allclose(from_paddle.predict(X, verbose=0), got, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(from_keras.predict(X, verbose=0), expected, rtol=1e-6,
                               atol=1e-6)
