"""RandomGaussianBlur against Keras 3.15.1's outputs (keras_gaussian_blur.json, written once
with real Keras: see its "_source"; probability 1 and a sigma range of one value make it
deterministic), the blur probability per image, the identity at inference, fit, configs and
bad arguments."""
import json
import os

import numpy as np
import pytest

import paddle as pd
from paddle import layers

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "keras_gaussian_blur.json")) as f:
    KERAS = json.load(f)
X = np.asarray(KERAS["x"], np.float32)

CASES = {
    "k3_s0.5": (lambda: layers.RandomGaussianBlur((1.0, 1.0), sigma=(0.5, 0.5)), X),
    "k5x3_s0.9_range01": (lambda: layers.RandomGaussianBlur(
        (1.0, 1.0), kernel_size=(5, 3), sigma=(0.9, 0.9), value_range=(0, 1)), X / 255),
    "k3_s0.7_channels_first": (lambda: layers.RandomGaussianBlur(
        (1.0, 1.0), sigma=(0.7, 0.7), data_format="channels_first"),
        np.transpose(X, (0, 3, 1, 2))),
}


def run(layer, x, training=True):
    inp = pd.data("blur_images", shape=(None,) + x.shape[1:])
    return pd.eval(layer(inp), {inp: x}, training=training)


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_are_keras_and_the_identity_at_inference(case):
    make, x = CASES[case]
    np.testing.assert_allclose(run(make(), x), KERAS[case], rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(run(make(), x, training=False), x)
    np.testing.assert_array_equal(np.asarray(make()(x)), x)


def test_blur_probability_per_image_and_sigmas_per_batch():
    x = np.repeat(X[:1], 200, axis=0)
    y = run(layers.RandomGaussianBlur(factor=(0.3, 0.3), seed=2), x)
    blurred = np.array([not np.array_equal(image, x[0]) for image in y])
    assert abs(blurred.mean() - 0.3) < 0.1
    changed = y[blurred]
    np.testing.assert_array_equal(changed, np.repeat(changed[:1], len(changed), axis=0))


def test_in_a_model_trained_by_fit_and_config(tmp_path):
    model = pd.Sequential([layers.Input(shape=X.shape[1:]),
                           layers.RandomGaussianBlur(kernel_size=5, sigma=(0.2, 0.8)),
                           layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(X / 255, np.zeros((2, 1), np.float32), batch_size=1, epochs=1, verbose=0)
    layer = layers.RandomGaussianBlur(0.5, kernel_size=(3, 5), sigma=0.4, seed=1)
    again = layers.RandomGaussianBlur.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    assert layer.get_config()["sigma"] == [0.0, 0.4]


@pytest.mark.parametrize("make, match", [
    (lambda: layers.RandomGaussianBlur(kernel_size=4), r"RandomGaussianBlur: expected "
                                                       r"kernel_size as an odd int >= 1 or two "
                                                       r"of them, received kernel_size=4"),
    (lambda: layers.RandomGaussianBlur(sigma=2.0), r"RandomGaussianBlur: expected sigma as a "
                                                   r"number .* received sigma=2.0"),
    (lambda: layers.RandomGaussianBlur(factor=-0.5), r"RandomGaussianBlur: expected factor"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# ---- RandomElasticTransform ----------------------------------------------------------------

def _keras_field_std(size, sigma, alpha):
    """The standard deviation of Keras's displacement field inside the image: normal(0,
    sigma) draws blurred by its normalized Gaussian (kernel int(6 sigma) | 1), times alpha."""
    k = int(6 * sigma) | 1
    t = np.arange(k) - (k - 1) / 2.0
    g = np.exp(-0.5 * (t / sigma) ** 2)
    g /= g.sum()
    return alpha * sigma * np.sqrt((np.outer(g, g) ** 2).sum())


def test_elastic_displacements_have_keras_statistics():
    # image value = column index: the output minus the input is the x displacement
    h = w = 48
    x = np.broadcast_to(np.arange(w, dtype=np.float32)[None, None, :, None],
                        (64, h, w, 1)).copy()
    y = run(layers.RandomElasticTransform(factor=(1.0, 1.0), scale=(0.5, 0.5),
                                          fill_mode="nearest", value_range=(0, 1000), seed=4),
            x)
    sigma, alpha = 0.05 * 0.5 * 48, 0.1 * 0.5 * 48
    inner = (y - x)[:, 12:-12, 12:-12, 0]
    assert abs(inner.mean()) < 0.05
    assert abs(inner.std() / _keras_field_std(h, sigma, alpha) - 1.0) < 0.1
    np.testing.assert_array_equal(run(layers.RandomElasticTransform(), x, training=False), x)


def test_elastic_transform_probability_clip_and_config():
    x = np.random.default_rng(0).uniform(0, 255, (200, 12, 12, 3)).astype(np.float32)
    y = run(layers.RandomElasticTransform(factor=(0.3, 0.3), seed=2), x)
    changed = np.array([not np.array_equal(a, b) for a, b in zip(y, x)])
    assert abs(changed.mean() - 0.3) < 0.1 and y.min() >= 0 and y.max() <= 255
    np.testing.assert_array_equal(run(layers.RandomElasticTransform(scale=0.0), x), x)
    layer = layers.RandomElasticTransform(0.4, scale=(0.2, 0.6), fill_mode="constant",
                                          fill_value=3.0, interpolation="nearest", seed=1)
    again = layers.RandomElasticTransform.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    for make, match in [(lambda: layers.RandomElasticTransform(fill_mode="edge"),
                         "RandomElasticTransform: expected fill_mode one of"),
                        (lambda: layers.RandomElasticTransform(scale=3),
                         r"RandomElasticTransform: expected scale .* received scale=3"),
                        (lambda: layers.RandomElasticTransform(interpolation="area"),
                         "RandomElasticTransform: expected interpolation")]:
        with pytest.raises(ValueError, match=match):
            make()
