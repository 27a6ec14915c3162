"""The colour augmentation layers against Keras 3.15.1's outputs (keras_color_augmentation.json,
written once with real Keras: see its "_source"): deterministic settings in training
(factor ranges of one value, probability 1), the identity at inference, per-image draws
and Keras's argument checks."""
import colorsys
import json
import os

import numpy as np
import pytest

import paddle as pd

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "keras_color_augmentation.json")) as f:
    KERAS = json.load(f)
X = np.asarray(KERAS["x"], np.float32)

LAYERS = {
    "AutoContrast": lambda: pd.layers.AutoContrast(),
    "Solarization": lambda: pd.layers.Solarization(),
    "RandomGrayscale": lambda: pd.layers.RandomGrayscale(1.0),
    "RandomInvert": lambda: pd.layers.RandomInvert((1.0, 1.0)),
    "RandomColorDegeneration": lambda: pd.layers.RandomColorDegeneration((0.3, 0.3)),
    "RandomSaturation": lambda: pd.layers.RandomSaturation((0.8, 0.8)),
}


def run(layer, x, training):
    inp = pd.data("images", shape=(None,) + x.shape[1:])
    return pd.eval(layer(inp), {inp: x}, training=training)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_training_outputs_are_keras(name):
    training = name != "AutoContrast"  # deterministic: applied at inference too
    np.testing.assert_allclose(run(LAYERS[name](), X, training), KERAS[name], rtol=1e-5,
                               atol=1e-3)


@pytest.mark.parametrize("name", sorted(set(LAYERS) - {"AutoContrast"}))
def test_the_identity_at_inference(name):
    np.testing.assert_array_equal(run(LAYERS[name](), X, False), X)
    np.testing.assert_array_equal(np.asarray(LAYERS[name]()(X)), X)  # an eager call: inference


def test_random_hue_shifts_each_image_by_half_the_factor_either_way():
    x = X / 255.0
    y = run(pd.layers.RandomHue((0.4, 0.4), value_range=(0, 1)), x, True)
    for image, out in zip(x, y):
        hsv = np.array([colorsys.rgb_to_hsv(*p) for p in image.reshape(-1, 3)])
        candidates = []
        for shift in (0.2, -0.2):
            h = (hsv[:, 0] + shift) % 1.0
            candidates.append(np.array([colorsys.hsv_to_rgb(a, b, c) for a, b, c in
                                        zip(h, hsv[:, 1], hsv[:, 2])]).reshape(image.shape))
        assert min(np.abs(out - c).max() for c in candidates) < 1e-4


def test_draws_are_per_image():
    x = np.repeat(X[:1], 64, axis=0)
    y = run(pd.layers.RandomGrayscale(0.5, seed=3), x, True)
    gray = np.array([np.allclose(img[..., 0], img[..., 1]) for img in y])
    assert 10 < gray.sum() < 54


@pytest.mark.parametrize("make, message", [
    (lambda: pd.layers.RandomGrayscale(1.5), "factor between 0 and 1"),
    (lambda: pd.layers.RandomSaturation(2.0), r"range \[0.0, 1.0\]"),
    (lambda: pd.layers.Solarization(addition_factor=-0.1), "addition_factor"),
    (lambda: pd.layers.AutoContrast(value_range=(0,)), "value_range"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_configs_round_trip():
    for make in LAYERS.values():
        layer = make()
        again = type(layer).from_config(layer.get_config())
        assert again.get_config() == layer.get_config()


# ---- RandomColorJitter -------------------------------------------------------------------

with open(os.path.join(HERE, "keras_color_jitter.json")) as f:
    JITTER = json.load(f)
JX = np.asarray(JITTER["x"], np.float32)


@pytest.mark.parametrize("case, make, scale", [
    ("brightness_contrast_saturation",
     lambda: pd.layers.RandomColorJitter(brightness_factor=(0.2, 0.2), contrast_factor=0.0,
                                         saturation_factor=(0.8, 0.8)), 1.0),
    ("saturation_range01",
     lambda: pd.layers.RandomColorJitter(value_range=(0, 1), saturation_factor=(0.3, 0.3)),
     1 / 255),
])
def test_color_jitter_is_keras(case, make, scale):
    x = JX * np.float32(scale)
    np.testing.assert_allclose(run(make(), x, True), JITTER[case], rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(run(make(), x, False), x)


def test_color_jitter_draws_per_image_and_round_trips():
    x = np.repeat(JX[:1], 32, axis=0)
    layer = pd.layers.RandomColorJitter(brightness_factor=0.3, hue_factor=0.2, seed=4)
    y = run(layer, x, True)
    assert len({float(np.round(image.mean(), 3)) for image in y}) > 16
    again = pd.layers.RandomColorJitter.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    assert layer.get_config()["contrast_factor"] is None
    with pytest.raises(ValueError, match="RandomHue: expected factor"):
        pd.layers.RandomColorJitter(hue_factor=2.0)
