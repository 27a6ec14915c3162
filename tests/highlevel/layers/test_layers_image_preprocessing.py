"""Resizing, CenterCrop, RandomCrop, RandomFlip, RandomBrightness, RandomContrast: outputs
against Keras 3.15.1 (JAX backend; the first outputs, sum and sum of squares it printed for
the same images), fresh draws in training runs, the identity at inference, saving, and bad
arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import check_figures, run_layer_test

X = np.random.default_rng(3).uniform(0, 255, size=(2, 5, 7, 3)).astype(np.float32)

KERAS = {  # name: (layer, output shape, first four, sum, sum of squares)
    "up": (lambda: layers.Resizing(8, 11), (2, 8, 11, 3),
           [21.8405, 60.3867, 204.325, 79.3909], 68610.3, 10324450),
    "down": (lambda: layers.Resizing(3, 4), (2, 3, 4, 3),
             [126.3514, 65.6665, 144.4508, 135.1632], 9310.45, 1359153),
    "mixed": (lambda: layers.Resizing(9, 4), (2, 9, 4, 3),
              [69.3196, 46.7427, 169.1209, 110.5116], 27654.84, 4055732),
    "nearest_up": (lambda: layers.Resizing(8, 11, interpolation="nearest"), (2, 8, 11, 3),
                   [21.8405, 60.3867, 204.325, 21.8405], 67865.76, 11105647),
    "nearest_down": (lambda: layers.Resizing(3, 4, interpolation="nearest"), (2, 3, 4, 3),
                     [21.8405, 60.3867, 204.325, 122.1581], 9140.76, 1463728),
    "center_crop": (lambda: layers.CenterCrop(3, 4), (2, 3, 4, 3),
                    [227.3863, 149.2166, 120.184, 197.1856], 9356.44, 1573797),
    "center_crop_even": (lambda: layers.CenterCrop(2, 2), (2, 2, 2, 3),
                         [197.1856, 7.7382, 180.2761, 95.4322], 2922.03, 474715),
    "center_crop_smaller": (lambda: layers.CenterCrop(6, 9), (2, 6, 9, 3),
                            [21.8405, 60.3867, 204.325, 106.2477], 41295.89, 6183403),
}


@pytest.mark.parametrize("name", KERAS)
def test_matches_keras(name):
    make, shape, first, total, squares = KERAS[name]
    check_figures(make()(X), shape, first, total, squares, atol=1e-3, total_abs=0.05,
                  squares_rel=1e-6)


def _runs(layer, x, count=1):
    inp = pd.data("images", shape=(None,) + x.shape[1:])
    out = layer(inp)
    return [pd.eval(out, {inp: x}, training=True) for _ in range(count)], \
        pd.eval(out, {inp: x})


def test_random_flip_draws_per_image_per_run():
    x = np.random.default_rng(0).normal(size=(64, 3, 4, 2)).astype(np.float32)
    (a, b), infer = _runs(layers.RandomFlip(), x, 2)
    np.testing.assert_array_equal(infer, x)  # inference: the identity
    both = x[:, ::-1, ::-1]
    flipped = [np.array_equal(a[i], both[i]) for i in range(64)]
    assert all(f or np.array_equal(a[i], x[i]) for i, f in enumerate(flipped))
    assert 16 < sum(flipped) < 48 and not np.array_equal(a, b)
    (h,), _ = _runs(layers.RandomFlip("horizontal", seed=2), x)
    assert all(np.array_equal(h[i], x[i]) or np.array_equal(h[i], x[i, :, ::-1])
               for i in range(64))
    (c,), _ = _runs(layers.RandomFlip("vertical", seed=2), x)
    (d,), _ = _runs(layers.RandomFlip("vertical", seed=2), x)
    np.testing.assert_array_equal(c, d)  # a seed: the same sequence


def test_random_crop_window_and_center_at_inference():
    x = np.arange(2 * 6 * 8, dtype=np.float32).reshape(2, 6, 8, 1)
    runs, infer = _runs(layers.RandomCrop(3, 4), x, 12)
    np.testing.assert_array_equal(infer, x[:, 1:4, 2:6])
    starts = set()
    for y in runs:
        r, c = int(y[0, 0, 0, 0]) // 8, int(y[0, 0, 0, 0]) % 8
        np.testing.assert_array_equal(y, x[:, r:r + 3, c:c + 4])  # one window per batch
        starts.add((r, c))
    assert len(starts) > 3 and all(0 <= r <= 3 and 0 <= c <= 4 for r, c in starts)


def test_random_brightness_and_contrast():
    x = np.random.default_rng(1).uniform(50, 200, size=(32, 4, 4, 3)).astype(np.float32)
    (y,), infer = _runs(layers.RandomBrightness(0.2), x)
    np.testing.assert_array_equal(infer, x)
    delta = (y - x).reshape(32, -1)
    np.testing.assert_allclose(delta, delta[:, :1].repeat(48, 1), atol=1e-3)  # per image
    assert np.all(np.abs(delta) <= 0.2 * 255 + 1e-3) and delta.std() > 1
    (z,), _ = _runs(layers.RandomBrightness((0.9, 1.0), value_range=(0, 255)), x)
    np.testing.assert_array_equal(z, 255)  # clipped to the value range
    (c,), infer = _runs(layers.RandomContrast(0.5), x)
    np.testing.assert_array_equal(infer, x)
    mean = x.mean(axis=(1, 2), keepdims=True)
    ratio = ((c - mean) / (x - mean)).reshape(32, -1)
    np.testing.assert_allclose(ratio, ratio[:, :1].repeat(48, 1), rtol=1e-3)
    assert np.all((ratio >= 0.5 - 1e-4) & (ratio <= 1.5 + 1e-4))


@pytest.mark.parametrize("cls, kwargs, shape, out", [
    (layers.Resizing, {"height": 4, "width": 3}, (2, 6, 5, 2), (None, 4, 3, 2)),
    (layers.Resizing, {"height": 4, "width": 3, "data_format": "channels_first"},
     (2, 2, 6, 5), (None, 2, 4, 3)),
    (layers.CenterCrop, {"height": 2, "width": 3}, (2, 6, 5, 2), (None, 2, 3, 2)),
    (layers.RandomCrop, {"height": 2, "width": 3, "seed": 1}, (2, 6, 5, 2), (None, 2, 3, 2)),
    (layers.RandomFlip, {"mode": "horizontal"}, (2, 6, 5, 2), (None, 6, 5, 2)),
    (layers.RandomBrightness, {"factor": [-0.1, 0.3], "value_range": [0, 1]}, (2, 4, 4, 3),
     (None, 4, 4, 3)),
    (layers.RandomContrast, {"factor": 0.2, "seed": 5}, (2, 4, 4, 3), (None, 4, 4, 3)),
])
def test_layer(cls, kwargs, shape, out):
    run_layer_test(cls, kwargs, shape, out, 0)


def test_augmentation_in_a_model_trains_and_round_trips(tmp_path):
    pd.seed(0)
    model = pd.Sequential([
        layers.Input(shape=(10, 10, 3)), layers.RandomFlip("horizontal"),
        layers.RandomCrop(8, 8), layers.RandomBrightness(0.1), layers.RandomContrast(0.1),
        layers.Resizing(6, 6), layers.Conv2D(2, 3), layers.Flatten(), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).uniform(0, 255, size=(8, 10, 10, 3)).astype(np.float32)
    first = model.train_on_batch(x, np.zeros((8, 1), np.float32))
    assert np.isfinite(first)
    y = model.predict(x, verbose=0)
    np.testing.assert_array_equal(y, model.predict(x, verbose=0))  # inference: no draws
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0), y)


@pytest.mark.parametrize("make, match", [
    (lambda: layers.Resizing(0, 3), "Resizing: expected height to be an integer >= 1"),
    (lambda: layers.Resizing(2, 3, interpolation="area"),
     "Resizing: expected interpolation one of .*, received 'area'"),
    (lambda: layers.Resizing(2, 3, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True),
     "only one of crop_to_aspect_ratio and pad_to_aspect_ratio"),
    (lambda: layers.CenterCrop(2, "3"), "CenterCrop: expected width to be an integer"),
    (lambda: layers.RandomFlip("diagonal"), "RandomFlip: expected mode in"),
    (lambda: layers.RandomFlip(seed=-1), "RandomFlip: expected an integer seed"),
    (lambda: layers.RandomBrightness(1.5), r"RandomBrightness: expected factor in \[0, 1\]"),
    (lambda: layers.RandomBrightness(0.1, value_range=(1, 0)),
     "RandomBrightness: expected value_range as \\(low, high\\)"),
    (lambda: layers.RandomContrast((0.1, 2.0)), "RandomContrast: expected factor as a "
     "number or a pair"),
    (lambda: layers.RandomCrop(2, 2, data_format="nhwc"), "RandomCrop: expected data_format"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_shapes():
    with pytest.raises(pd.ShapeError, match="expected images of rank 4"):
        layers.RandomFlip()(layers.Input(shape=(4, 4)))
    with pytest.raises(pd.ShapeError, match="height and width to be known"):
        layers.Resizing(2, 2)(layers.Input(shape=(None, 4, 3)))



def test_resizing_takes_every_keras_option():
    # Resizing is pd.ops.image.resize (one implementation): Keras's interpolations and
    # aspect-ratio options, checked on the op against Keras in tests/ops/test_image.py.
    x = np.random.default_rng(0).uniform(0, 255, (2, 6, 4, 3)).astype(np.float32)
    for kwargs in ({"interpolation": "bicubic"}, {"crop_to_aspect_ratio": True},
                   {"pad_to_aspect_ratio": True, "fill_value": 1.0}, {"antialias": True}):
        got = np.asarray(layers.Resizing(3, 3, **kwargs)(x))
        want = pd.ops.convert_to_numpy(pd.ops.image.resize(x, (3, 3), **kwargs))
        assert got.shape == (2, 3, 3, 3)
        np.testing.assert_allclose(got, want, rtol=1e-6)
