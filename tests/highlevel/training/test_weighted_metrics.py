"""compile(weighted_metrics=): metrics updated with the sample weights, Keras's numbers and
names (Keras 3.15 gives, on this data: loss 2.75, mae 1.0, weighted_mae 1.25, mse 2.75)."""
import numpy as np
import pytest

import paddle as pd

X = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
Y = np.array([[0.0], [1.0], [1.0], [0.0]], np.float32)
W = np.array([1.0, 0.0, 2.0, 1.0], np.float32)


def _model(**compile_kwargs):
    inp = pd.Input(shape=(1,))
    out = pd.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")(inp)
    model = pd.Model(inp, out)
    model.compile("sgd", "mse", **compile_kwargs)
    return model


def test_weighted_metrics_take_the_sample_weights_as_keras():
    model = _model(metrics=["mae"], weighted_metrics=["mae", "mse"])
    logs = model.evaluate(X, Y, sample_weight=W, return_dict=True, verbose=0)
    assert logs == pytest.approx({"loss": 2.75, "mae": 1.0, "weighted_mae": 1.25, "mse": 2.75})
    plain = model.evaluate(X, Y, return_dict=True, verbose=0)
    assert plain["weighted_mae"] == pytest.approx(1.0) and plain["mse"] == pytest.approx(2.5)
    assert [m.name for m in model.metrics] == ["loss", "mae", "mae", "mse"]


def test_weighted_metrics_in_fit_and_with_class_weight():
    model = _model(weighted_metrics=["mae"])
    history = model.fit(X, Y, sample_weight=W, epochs=1, batch_size=4, verbose=0)
    assert "mae" in history.history
    labels = np.array([0, 1, 1, 0])
    logs = model.evaluate(X, labels.reshape(-1, 1).astype(np.float32), return_dict=True,
                          verbose=0)
    assert set(logs) == {"loss", "mae"}


def test_weighted_metrics_round_trip_in_files(tmp_path):
    model = _model(metrics=["mae"], weighted_metrics=["mae"])
    expected = model.evaluate(X, Y, sample_weight=W, return_dict=True, verbose=0)
    for name in ("m.keras", "m.h5"):
        model.save(tmp_path / name)
        loaded = pd.load_model(tmp_path / name)
        assert loaded.evaluate(X, Y, sample_weight=W, return_dict=True,
                               verbose=0) == pytest.approx(expected)


def test_bad_weighted_metrics_fail_at_compile():
    with pytest.raises(ValueError, match="accuracyy"):
        _model(weighted_metrics=["accuracyy"])
    inp = pd.Input(shape=(1,))
    model = pd.Model(inp, pd.layers.Dense(1)(inp))
    with pytest.raises(ValueError, match="weighted_metrics for unknown outputs"):
        model.compile("sgd", "mse", weighted_metrics={"nope": "mae"})
