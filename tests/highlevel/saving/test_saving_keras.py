"""Keras interoperability of the HDF5 and .keras files, both ways (runs when Keras 3 with the
PyTorch or JAX backend is installed, skips otherwise): paddle reads the weights of a Keras model of the
same architecture, Keras reads paddle's weights and rebuilds paddle's models."""
import h5py
import numpy as np
import pytest

import paddle as pd

from keras3 import keras, quiet  # noqa: F401  (quiet: an autouse fixture)

RNG = np.random.default_rng(0)


def randomize(model):
    """Random weights in place (positive variances), so a wrong pairing shows."""
    for layer in model.layers:
        values = [RNG.standard_normal(np.shape(w)).astype(np.float32) * 0.5
                  for w in layer.get_weights()]
        if type(layer).__name__ == "BatchNormalization":
            values[3] = RNG.uniform(0.5, 2.0, values[3].shape).astype(np.float32)
        layer.set_weights(values)


def sequential(lib, shape, make, dtype="float32"):
    return lib.Sequential([lib.layers.Input(shape=shape, dtype=dtype)] + make(lib.layers))


CASES = {
    "cnn": ((8, 8, 3), lambda L: [L.Conv2D(4, 3, activation="relu"), L.BatchNormalization(),
                                  L.MaxPooling2D(2), L.Flatten(),
                                  L.Dense(5, activation="relu"), L.Dense(2)]),
    "lstm": ((6, 3), lambda L: [L.LSTM(4, return_sequences=True), L.LSTM(3)]),
    "gru": ((6, 3), lambda L: [L.GRU(4, return_sequences=True), L.GRU(3)]),
    "conv1d": ((6, 3), lambda L: [L.Conv1D(4, 2, padding="same"), L.LayerNormalization(),
                                  L.GlobalAveragePooling1D(), L.Dense(3, activation="tanh")]),
}


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", CASES)
def test_sequential_both_ways(tmp_path, case):
    shape, make = CASES[case]
    if not all(hasattr(pd.layers, n) for n in ("LSTM", "GRU")) and case in ("lstm", "gru"):
        pytest.skip("paddle has no LSTM/GRU layer yet")
    x = RNG.standard_normal((4,) + shape).astype(np.float32)
    k, p = sequential(keras, shape, make), sequential(pd, shape, make)

    randomize(k)
    k.save(tmp_path / "keras.h5")  # Keras's legacy HDF5 file
    p.load_weights(tmp_path / "keras.h5")
    close(p.predict(x), k.predict(x, verbose=0))

    randomize(p)
    p.save_weights(tmp_path / "paddle_weights.h5")
    k.load_weights(tmp_path / "paddle_weights.h5")
    close(k.predict(x, verbose=0), p.predict(x))

    p.save(tmp_path / "paddle.h5")
    rebuilt = keras.models.load_model(tmp_path / "paddle.h5", compile=False)
    assert [type(l).__name__ for l in rebuilt.layers] == [type(l).__name__ for l in p.layers]
    close(rebuilt.predict(x, verbose=0), p.predict(x))


def branchy(lib):
    L = lib.layers
    inp = L.Input(shape=(4,))
    a = L.Dense(3)(inp)
    b = L.Dense(5, activation="relu")(L.Dense(4)(inp))
    out = L.Dense(2)(L.Concatenate()([a, b]))
    return (keras.Model if lib is keras else pd.Model)(inputs=inp, outputs=out)


def test_functional_layer_order_matches_keras(tmp_path):
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    k, p = branchy(keras), branchy(pd)
    randomize(k)
    k.save(tmp_path / "keras.h5")
    p.load_weights(tmp_path / "keras.h5")  # by order: a wrong order fails on the shapes
    close(p.predict(x), k.predict(x, verbose=0))

    randomize(p)
    p.save(tmp_path / "paddle.h5")
    k.load_weights(tmp_path / "paddle.h5")
    close(k.predict(x, verbose=0), p.predict(x))
    rebuilt = keras.models.load_model(tmp_path / "paddle.h5", compile=False)
    close(rebuilt.predict(x, verbose=0), p.predict(x))


def test_keras_legacy_weights_file(tmp_path):
    legacy = pytest.importorskip("keras.src.legacy.saving.legacy_h5_format")
    shape, make = CASES["cnn"]
    k, p = sequential(keras, shape, make), sequential(pd, shape, make)
    randomize(k)
    with h5py.File(tmp_path / "w.h5", "w") as f:
        legacy.save_weights_to_hdf5_group(f, k)
    p.load_weights(tmp_path / "w.h5")
    x = RNG.standard_normal((2,) + shape).astype(np.float32)
    close(p.predict(x), k.predict(x, verbose=0))


# ---- Keras 3's native files: .keras and .weights.h5 --------------------------------------

KERAS_CASES = dict(CASES, **{
    "embedding_bilstm": ((6,), lambda L: [L.Embedding(7, 4), L.Bidirectional(L.LSTM(3)),
                                          L.Dropout(0.2), L.Dense(2)]),
    "simple_rnn": ((6, 3), lambda L: [L.SimpleRNN(4, return_sequences=True),
                                      L.GlobalAveragePooling1D(), L.Dense(2)]),
})


def case_input(case, n=4):
    shape, _ = KERAS_CASES[case]
    if case == "embedding_bilstm":
        return RNG.integers(0, 7, (n,) + shape).astype(np.int64)
    return RNG.standard_normal((n,) + shape).astype(np.float32)


def keras_pair(case):
    shape, make = KERAS_CASES[case]
    dtype = "int32" if case == "embedding_bilstm" else "float32"
    return sequential(keras, shape, make, dtype), \
        sequential(pd, shape, make, "int64" if dtype == "int32" else dtype)


@pytest.mark.parametrize("case", KERAS_CASES)
def test_keras_files_both_ways(tmp_path, case):
    x = case_input(case)
    k, p = keras_pair(case)
    randomize(k)
    k.save(tmp_path / "keras.keras")
    loaded = pd.load_model(tmp_path / "keras.keras")
    assert [type(l).__name__ for l in loaded.layers] == [type(l).__name__ for l in k.layers]
    close(loaded.predict(x), k.predict(x, verbose=0))
    p.load_weights(tmp_path / "keras.keras")  # weights of a .keras file, by Keras's paths
    close(p.predict(x), k.predict(x, verbose=0))

    randomize(p)
    p.save(tmp_path / "paddle.keras")
    rebuilt = keras.models.load_model(tmp_path / "paddle.keras")
    assert [type(l).__name__ for l in rebuilt.layers] == [type(l).__name__ for l in p.layers]
    close(rebuilt.predict(x, verbose=0), p.predict(x))
    p.save_weights(tmp_path / "paddle.weights.h5")
    k.load_weights(tmp_path / "paddle.weights.h5")
    close(k.predict(x, verbose=0), p.predict(x))


def test_functional_keras_file_both_ways(tmp_path):
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    k, p = branchy(keras), branchy(pd)
    randomize(k)
    k.save(tmp_path / "k.keras")
    close(pd.load_model(tmp_path / "k.keras").predict(x), k.predict(x, verbose=0))
    randomize(p)
    p.save(tmp_path / "p.keras")
    close(keras.models.load_model(tmp_path / "p.keras").predict(x, verbose=0), p.predict(x))


def test_keras_weights_file_with_optimizer_state(tmp_path):
    """Keras 3's .weights.h5 holds the optimizer's variables: paddle restores Adam's step
    count and moments from it, and Keras restores them from paddle's."""
    shape, make = CASES["cnn"]
    x = RNG.standard_normal((8,) + shape).astype(np.float32)
    y = RNG.standard_normal((8, 2)).astype(np.float32)
    k, p = sequential(keras, shape, make), sequential(pd, shape, make)
    k.compile(keras.optimizers.Adam(1e-3), "mse")
    k.fit(x, y, epochs=3, batch_size=4, verbose=0)
    k.save_weights(tmp_path / "k.weights.h5")
    p.compile(pd.optimizers.Adam(1e-3), "mse")
    p.load_weights(tmp_path / "k.weights.h5")
    assert p.optimizer.iterations == int(k.optimizer.iterations) == 6
    kernel = p.layers[0].weights[0]
    # The first kernel's momentum (Keras numbers layer names: conv2d_3 after other tests).
    moment = [v for v in k.optimizer.variables if v.path.endswith("kernel_momentum")][0]
    close(p.optimizer.slots(kernel)["m"], np.asarray(moment))
    close(p.predict(x), k.predict(x, verbose=0))
    # One more step from the same state lands both on the same weights.
    k.train_on_batch(x, y)
    p.train_on_batch(x, y)
    close(p.predict(x), k.predict(x, verbose=0))

    p.fit(x, y, epochs=1, batch_size=4, verbose=0)
    p.save_weights(tmp_path / "p.weights.h5")
    k.load_weights(tmp_path / "p.weights.h5")
    assert int(k.optimizer.iterations) == p.optimizer.iterations
    close(np.asarray(moment), p.optimizer.slots(kernel)["m"])


def test_keras_compiled_model_file_loads_compiled(tmp_path):
    shape, make = CASES["conv1d"]
    x = RNG.standard_normal((8,) + shape).astype(np.float32)
    y = RNG.standard_normal((8, 3)).astype(np.float32)
    k = sequential(keras, shape, make)
    k.compile(keras.optimizers.Adam(1e-3), "mse", metrics=["mae"])
    k.fit(x, y, epochs=2, batch_size=4, verbose=0)
    k.save(tmp_path / "k.keras")
    p = pd.load_model(tmp_path / "k.keras")
    assert p.compiled and type(p.optimizer).__name__ == "Adam" and p.optimizer.iterations == 4
    logs = p.evaluate(x, y, return_dict=True, verbose=0)
    want = k.evaluate(x, y, return_dict=True, verbose=0)
    assert logs["loss"] == pytest.approx(want["loss"], rel=1e-4)
    assert logs["mae"] == pytest.approx(want["mae"], rel=1e-4)


def test_masked_recurrent_layers_agree_with_keras(tmp_path):
    """Embedding(mask_zero=True) into LSTM / Bidirectional(GRU): with Keras's weights (a
    .weights.h5 file), paddle gives Keras's outputs on padded (pre and post) ids."""
    def build(lib):
        L = lib.layers
        ids = L.Input(shape=(6,), dtype="int32" if lib is keras else "int64")
        e = L.Embedding(9, 4, mask_zero=True)(ids)
        seq = L.LSTM(3, return_sequences=True)(e)
        return (keras.Model if lib is keras else pd.Model)(
            ids, [seq, L.Bidirectional(L.GRU(2))(seq)])
    k, p = build(keras), build(pd)
    randomize(k)
    k.save_weights(tmp_path / "masked.weights.h5")
    p.load_weights(tmp_path / "masked.weights.h5")
    x = np.array([[3, 1, 4, 1, 0, 0], [0, 0, 5, 8, 2, 6], [7, 0, 0, 0, 0, 0]])
    for a, b in zip(p.predict(x), k.predict(x.astype(np.int32), verbose=0)):
        close(a, b)
