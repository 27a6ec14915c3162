"""Keras interoperability of the HDF5 files, both ways (runs when Keras 3 with the PyTorch
backend is installed, skips otherwise): paddle reads the weights of a Keras model of the
same architecture, Keras reads paddle's weights and rebuilds paddle's models."""
import os
import warnings

import h5py
import numpy as np
import pytest

import paddle as pd

os.environ.setdefault("KERAS_BACKEND", "torch")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3.") or keras.backend.backend() != "torch":
    pytest.skip(f"needs Keras 3 on the PyTorch backend, found Keras {keras.__version__} on "
                f"{keras.backend.backend()}", allow_module_level=True)

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():  # Keras warns about the legacy format, torch about more
        warnings.simplefilter("ignore")
        yield


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


def test_keras_native_weights_file_is_refused_clearly(tmp_path):
    shape, make = CASES["cnn"]
    k, p = sequential(keras, shape, make), sequential(pd, shape, make)
    k.save_weights(tmp_path / "k.weights.h5")  # Keras 3's own format, not the legacy one
    with pytest.raises(pd.CheckpointError, match="native weights format"):
        p.load_weights(tmp_path / "k.weights.h5")
