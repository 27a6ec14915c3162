"""Equalization against Keras 3.15.1's outputs (keras_equalization.json, written once with
real Keras: see its "_source"): every bin count, value range and data format in training,
the identity at inference, a batch of unknown size in fit, configs and bad arguments."""
import json
import os

import numpy as np
import pytest

import paddle as pd
from paddle import layers

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "keras_equalization.json")) as f:
    KERAS = json.load(f)
X = np.asarray(KERAS["x"], np.float32)  # channel 1 is nearly flat, channel 2 narrow

CASES = {
    "default": (lambda: layers.Equalization(), X),
    "bins64": (lambda: layers.Equalization(bins=64), X),
    "range01": (lambda: layers.Equalization(value_range=(0, 1)), X / 255.0),
    "channels_first": (lambda: layers.Equalization(data_format="channels_first"),
                       np.transpose(X, (0, 3, 1, 2))),
}


def run(layer, x, training):
    inp = pd.data("eq_images", shape=(None,) + x.shape[1:])
    return pd.eval(layer(inp), {inp: x}, training=training)


@pytest.mark.parametrize("case", sorted(CASES))
def test_training_outputs_are_keras(case):
    make, x = CASES[case]
    np.testing.assert_allclose(run(make(), x, True), KERAS[case], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_identity_at_inference(case):
    make, x = CASES[case]
    np.testing.assert_array_equal(run(make(), x, False), x)
    np.testing.assert_array_equal(np.asarray(make()(x)), x)  # an eager call: inference


def test_equalized_values_spread_over_the_range():
    x = np.random.default_rng(2).uniform(100, 120, size=(4, 16, 16, 1)).astype(np.float32)
    y = run(layers.Equalization(), x, True)
    assert y.min() == 0 and y.max() == 255
    assert np.all(np.diff(y.ravel()[np.argsort(x.ravel(), kind="stable")]) >= 0)  # monotone
    flat = np.full((2, 4, 4, 1), 9.0, np.float32)
    np.testing.assert_array_equal(run(layers.Equalization(), flat, True), flat)


def test_in_a_model_trained_by_fit(tmp_path):
    model = pd.Sequential([layers.Input(shape=(6, 5, 3)), layers.Equalization(),
                           layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(X, np.zeros((3, 1), np.float32), batch_size=2, epochs=1,
              verbose=0)
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(X, verbose=0),
                                  model.predict(X, verbose=0))


def test_config_round_trip():
    layer = layers.Equalization(value_range=(0, 1), bins=32, data_format="channels_first")
    again = layers.Equalization.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    assert layer.get_config()["bins"] == 32


@pytest.mark.parametrize("make, match", [
    (lambda: layers.Equalization(bins=0), r"Equalization: expected bins as an integer >= 1, "
                                          r"received bins=0"),
    (lambda: layers.Equalization(value_range=(1,)), "Equalization: expected value_range"),
    (lambda: layers.Equalization(data_format="nhwc"), "data_format"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# ---- ContrastLimitedAdaptiveHistogramEqualization ----------------------------------------

with open(os.path.join(HERE, "keras_clahe.json")) as f:
    CLAHE = json.load(f)
CX = np.asarray(CLAHE["x"], np.float32)  # 13 x 10: tiles that need mirrored padding
CLAHE_CASES = {
    "default_grid4x3": (dict(tile_grid_size=(4, 3)), CX),
    "clip2_grid2x2": (dict(clip_limit=2.0, tile_grid_size=(2, 2)), CX),
    "noclip_grid3x5": (dict(clip_limit=0.0, tile_grid_size=(3, 5)), CX),
    "range01_grid2x2": (dict(value_range=(0, 1), tile_grid_size=(2, 2)), CX / 255),
    "channels_first_grid4x4": (dict(tile_grid_size=(4, 4), data_format="channels_first"),
                               np.transpose(CX, (0, 3, 1, 2))),
}


@pytest.mark.parametrize("case", sorted(CLAHE_CASES))
def test_clahe_is_keras_in_training_and_at_inference(case):
    kwargs, x = CLAHE_CASES[case]
    for training in (True, False):  # deterministic: applied in both, as Keras's
        got = run(layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs), x, training)
        np.testing.assert_allclose(got, CLAHE[case], rtol=1e-5, atol=2e-4)


def test_clahe_in_a_model_and_config():
    model = pd.Sequential([layers.Input(shape=(13, 10, 3)),
                           layers.ContrastLimitedAdaptiveHistogramEqualization(
                               tile_grid_size=(2, 2)), layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(CX, np.zeros((2, 1), np.float32), batch_size=1, epochs=1, verbose=0)
    layer = layers.ContrastLimitedAdaptiveHistogramEqualization(
        value_range=(0, 1), clip_limit=2.5, tile_grid_size=(3, 4))
    again = type(layer).from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    for kwargs, match in [({"tile_grid_size": (0, 2)}, "expected tile_grid_size as two "
                                                       r"integers >= 1, received "
                                                       r"tile_grid_size=\(0, 2\)"),
                          ({"clip_limit": "a"}, "expected clip_limit as a number"),
                          ({"value_range": (2, 2)}, "value_range")]:
        with pytest.raises(ValueError, match=match):
            layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)
