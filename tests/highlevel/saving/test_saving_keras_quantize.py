"""model.quantize("int8"), "int4" and "float8" against a live Keras 3 (skipped where Keras
is not installed; tests/highlevel/test_quantize.py, test_quantize_int4.py and
test_quantize_float8.py hold Keras's values for the same checks): quantized
predictions for the same float weights, and quantized files loaded both ways."""
import numpy as np
import pytest

import paddle as pd
from keras3 import keras, quiet  # noqa: F401  (quiet: an autouse fixture)

RNG = np.random.default_rng(11)
X = RNG.normal(size=(6, 8)).astype("float32")


def both(make_keras, make_paddle, x, mode="int8", block_size=128):
    k, p = make_keras(), make_paddle()
    weights = [RNG.normal(size=w.shape).astype("float32") for w in k.get_weights()]
    k.set_weights(weights)
    p.set_weights(weights)
    if mode == "int4":
        k.quantize(config=keras.quantizers.Int4QuantizationConfig(block_size=block_size))
        p.quantize(config=pd.quantizers.Int4QuantizationConfig(block_size=block_size))
    else:
        k.quantize(mode)
        p.quantize(mode)
    return k, p, k.predict(x, verbose=0), p.predict(x, verbose=0)


@pytest.mark.parametrize("mode, block_size", [("int8", None), ("int4", 128), ("int4", None),
                                              ("int4", 3)])
@pytest.mark.parametrize("kind", ["dense", "einsum", "embedding"])
def test_quantized_predictions_are_kerass(kind, mode, block_size):
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
                                           lib.layers.Embedding(12, 7)])
        x = RNG.integers(0, 12, size=(6, 4))
    k, p, expected, got = both(make(keras), make(pd), x, mode, block_size)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert [layer.dtype_policy.name for layer in k.layers] == \
        [layer.dtype_policy.name for layer in p.layers]
    assert len(k.weights) == len(p.weights)
    for kw, pw in zip(k.weights, p.weights):
        assert (kw.path.rsplit("/", 1)[-1], kw.shape, str(kw.dtype)) == \
            (pw.name.rsplit("/", 1)[-1], pw.shape, pw.dtype)
        np.testing.assert_array_equal(np.asarray(kw), pw.val())


@pytest.mark.parametrize("mode, block_size", [("int8", None), ("int4", 128), ("int4", None)])
def test_quantized_files_load_both_ways(tmp_path, mode, block_size):
    def make(lib):
        return lambda: lib.Sequential([lib.Input(shape=(8,)), lib.layers.Dense(5)])
    k, p, expected, got = both(make(keras), make(pd), X, mode, block_size)
    p.save(tmp_path / "paddle.keras")
    k.save(tmp_path / "keras.keras")
    from_paddle = keras.saving.load_model(tmp_path / "paddle.keras")
    from_keras = pd.saving.load_model(tmp_path / "keras.keras")
    np.testing.assert_allclose(from_paddle.predict(X, verbose=0), got, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(from_keras.predict(X, verbose=0), expected, rtol=1e-6,
                               atol=1e-6)
    if mode == "int4":  # .weights.h5 both ways, into models quantized alike
        p.save_weights(tmp_path / "paddle.weights.h5")
        k.save_weights(tmp_path / "keras.weights.h5")
        k2, p2 = make(keras)(), make(pd)()
        k2.quantize(config=keras.quantizers.Int4QuantizationConfig(block_size=block_size))
        p2.quantize(config=pd.quantizers.Int4QuantizationConfig(block_size=block_size))
        k2.load_weights(tmp_path / "paddle.weights.h5")
        p2.load_weights(tmp_path / "keras.weights.h5")
        np.testing.assert_allclose(k2.predict(X, verbose=0), got, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(p2.predict(X, verbose=0), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["dense", "einsum"])
def test_float8_training_and_files_are_kerass(tmp_path, kind):
    # model.quantize("float8") then two epochs of SGD in both libraries: the same weights
    # (scales and amax histories included) and predictions; the files load both ways and
    # train on alike
    def make(lib):
        if kind == "dense":
            return lib.Sequential([lib.Input(shape=(8,)), lib.layers.Dense(
                5, activation="relu"), lib.layers.Dense(3)])
        return lib.Sequential([lib.Input(shape=(2, 4)), lib.layers.EinsumDense(
            "abc,cde->abde", output_shape=(None, 3, 2), bias_axes="e")])
    x = X if kind == "dense" else X.reshape(6, 2, 4)
    y = RNG.normal(size=(6, 3) if kind == "dense" else (6, 2, 3, 2)).astype("float32")
    k, p, _, _ = both(lambda: make(keras), lambda: make(pd), x, "float8")

    def train(lib, model, epochs):
        model.compile(optimizer=lib.optimizers.SGD(0.05), loss="mse")
        model.fit(x, y, batch_size=3, epochs=epochs, shuffle=False, verbose=0)
    train(keras, k, 2)
    train(pd, p, 2)
    for kw, pw in zip(k.weights, p.weights):
        np.testing.assert_allclose(pw.val(), np.asarray(kw), rtol=1e-6, atol=1e-7)
    expected, got = k.predict(x, verbose=0), p.predict(x, verbose=0)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    p.save(tmp_path / "paddle.keras")
    k.save(tmp_path / "keras.keras")
    from_paddle = keras.saving.load_model(tmp_path / "paddle.keras")
    from_keras = pd.saving.load_model(tmp_path / "keras.keras")
    assert from_keras.layers[0].dtype_policy.name == "float8_from_float32"
    np.testing.assert_allclose(from_keras.predict(x, verbose=0), expected, rtol=1e-6,
                               atol=1e-6)
    train(keras, from_paddle, 1)
    train(pd, from_keras, 1)
    np.testing.assert_allclose(from_keras.predict(x, verbose=0),
                               from_paddle.predict(x, verbose=0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode, block_size", [("int4", 128), ("int4", None), ("float8", None)])
@pytest.mark.parametrize("policy", ["mixed_bfloat16", "bfloat16"])
def test_quantized_half_policies_are_kerass(mode, block_size, policy):
    # the scales read in the compute dtype (Keras's autocast), bfloat16 kernels quantized
    # in bfloat16 on the host as Keras's NumPy path
    def make(lib):
        return lambda: lib.Sequential([lib.Input(shape=(8,)), lib.layers.Dense(5, dtype=policy)])
    k, p, expected, got = both(make(keras), make(pd), X, mode, block_size)
    assert p.layers[0].dtype_policy.name == k.layers[0].dtype_policy.name
    np.testing.assert_array_equal(np.asarray(got, np.float32), np.asarray(expected, np.float32))
