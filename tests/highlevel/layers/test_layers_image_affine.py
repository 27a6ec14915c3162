"""RandomTranslation and RandomZoom: the resampling against Keras 3.15.1's
`keras.ops.image.affine_transform` (JAX backend) for fixed per-image shifts and zooms, every
fill mode and interpolation (first outputs, sum and sum of squares it printed); then draws in
training runs only, the layer test, saving and bad arguments."""
import json
import os

import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from paddle.highlevel.layers.image_affine import _Affine
from layer_test import check_figures, run_layer_test

X = np.random.default_rng(5).uniform(0, 10, size=(2, 5, 6, 2)).astype(np.float32)
SHIFTS = [(1.3, -0.6), (-2.2, 3.7)]   # per image (dx, dy): Keras's [1, 0, -dx, 0, 1, -dy, 0, 0]
ZOOMS = [(1.4, 0.7), (0.6, 1.9)]      # per image (zx, zy), about the center as RandomZoom

KERAS = [  # (transform, fill_mode, interpolation, fill_value, first three, sum, squares)
    ("tr", "reflect", "bilinear", 0.0, [6.315, 8.2164, 5.8297], 654.3410034179688, 4122.4599609375),
    ("zm", "reflect", "bilinear", 0.0, [5.8297, 9.0769, 6.4768], 606.4180297851562, 3654.1298828125),
    ("tr", "reflect", "nearest", 0.0, [4.3495, 9.7419, 4.3495], 645.9650268554688, 4562.0498046875),
    ("zm", "reflect", "nearest", 0.0, [4.3495, 9.7419, 4.3495], 601.1599731445312, 4098.080078125),
    ("tr", "wrap", "bilinear", 0.0, [6.5798, 2.614, 6.447], 613.364990234375, 3505.0400390625),
    ("zm", "wrap", "bilinear", 0.0, [7.8874, 1.3233, 6.4768], 606.4180297851562, 3654.1298828125),
    ("tr", "wrap", "nearest", 0.0, [8.7965, 0.6421, 4.3495], 613.364990234375, 4176.2099609375),
    ("zm", "wrap", "nearest", 0.0, [8.7965, 0.6421, 4.3495], 601.1599731445312, 4098.080078125),
    ("tr", "nearest", "bilinear", 0.0, [5.8297, 9.0769, 5.8297], 652.3070068359375, 4148.2099609375),
    ("zm", "nearest", "bilinear", 0.0, [5.8297, 9.0769, 6.4768], 577.1339721679688, 3416.64990234375),
    ("tr", "nearest", "nearest", 0.0, [4.3495, 9.7419, 4.3495], 643.72900390625, 4414.419921875),
    ("zm", "nearest", "nearest", 0.0, [4.3495, 9.7419, 4.3495], 559.9970092773438, 3667.070068359375),
    ("tr", "constant", "bilinear", 0.0, [0.0, 0.0, 4.0808], 269.6340026855469, 1408.510009765625),
    ("zm", "constant", "bilinear", 0.0, [0.0, 0.0, 6.4768], 364.9209899902344, 2115.2099609375),
    ("tr", "constant", "bilinear", 2.5, [2.5, 2.5, 4.8308], 441.53399658203125, 1969.4000244140625),
    ("zm", "constant", "bilinear", 2.5, [2.5, 2.5, 6.4768], 474.9209899902344, 2390.2099609375),
    ("tr", "constant", "nearest", 0.0, [0.0, 0.0, 4.3495], 252.14199829101562, 1736.5899658203125),
    ("zm", "constant", "nearest", 0.0, [0.0, 0.0, 4.3495], 351.9800109863281, 2288.280029296875),
    ("tr", "constant", "nearest", 2.5, [2.5, 2.5, 4.3495], 432.1419982910156, 2186.590087890625),
    ("zm", "constant", "nearest", 2.5, [2.5, 2.5, 4.3495], 461.9800109863281, 2563.280029296875),
]


def _coords(kind):
    gy, gx = np.arange(5.0).reshape(1, 5, 1), np.arange(6.0).reshape(1, 6, 1)
    if kind == "tr":
        dx, dy = (np.array(v).reshape(2, 1, 1) for v in zip(*SHIFTS))
        return gy - dy, gx - dx
    zx, zy = (np.array(v).reshape(2, 1, 1) for v in zip(*ZOOMS))
    return gy * zy + 2.0 * (1 - zy), gx * zx + 2.5 * (1 - zx)


@pytest.mark.parametrize("kind, mode, interpolation, fill, first, total, squares", KERAS)
def test_resampling_matches_keras(kind, mode, interpolation, fill, first, total, squares):
    layer = _Affine(fill_mode=mode, interpolation=interpolation, fill_value=fill)
    inp = pd.data("x", shape=(None, 5, 6, 2))
    layer.build(inp.shape)
    ys, xs = _coords(kind)
    out = layer.resample(inp, pd.constant(ys.astype(np.float32)),
                         pd.constant(xs.astype(np.float32)),
                         pd.constant(np.ones((1, 1, 1, 1), np.float32)))
    check_figures(pd.eval(out, {inp: X}), None, first, total, squares, atol=1e-3,
                  total_abs=0.01, squares_abs=0.05)


def _runs(layer, x, count):
    inp = pd.data("images", shape=(None,) + x.shape[1:])
    out = layer(inp)
    return [pd.eval(out, {inp: x}, training=True) for _ in range(count)], \
        pd.eval(out, {inp: x})


def test_translation_shifts_in_training_only():
    x = np.zeros((16, 9, 9, 1), np.float32)
    x[:, 4, 4] = 1.0   # a dot in the middle
    runs, infer = _runs(layers.RandomTranslation((-0.3, 0.3), (-0.3, 0.3),
                                                 fill_mode="constant",
                                                 interpolation="nearest"), x, 2)
    np.testing.assert_array_equal(infer, x)
    moved = [np.unravel_index(y.argmax(), y.shape) for y in runs[0]]
    assert all(abs(r - 4) <= 3 and abs(c - 4) <= 3 for r, c, _ in moved)
    assert len(set(moved)) > 3 and not np.array_equal(runs[0], runs[1])
    np.testing.assert_allclose(runs[0].sum(axis=(1, 2, 3)), 1.0)  # nearest: the dot moves


def test_zoom_keeps_the_center_and_seeds_repeat():
    x = np.random.default_rng(0).uniform(size=(8, 7, 7, 2)).astype(np.float32)
    a, infer = _runs(layers.RandomZoom(0.5, seed=3), x, 1)
    b, _ = _runs(layers.RandomZoom(0.5, seed=3), x, 1)
    np.testing.assert_array_equal(infer, x)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_allclose(a[0][:, 3, 3], x[:, 3, 3], rtol=1e-5)  # the fixed point
    assert not np.allclose(a[0], x)


@pytest.mark.parametrize("cls, kwargs", [
    (layers.RandomTranslation, {"height_factor": 0.2, "width_factor": (-0.1, 0.3)}),
    (layers.RandomTranslation, {"height_factor": 0.2, "width_factor": 0.2,
                                "fill_mode": "constant", "fill_value": 1.0,
                                "data_format": "channels_first"}),
    (layers.RandomZoom, {"height_factor": (-0.3, 0.2), "width_factor": 0.1,
                         "fill_mode": "wrap", "seed": 4}),
])
def test_layer(cls, kwargs):
    shape = (2, 3, 6, 5) if kwargs.get("data_format") == "channels_first" else (2, 6, 5, 3)
    run_layer_test(cls, kwargs, shape, (None,) + shape[1:], 0)


def test_in_a_model(tmp_path):
    pd.seed(0)
    model = pd.Sequential([layers.Input(shape=(8, 8, 3)), layers.RandomTranslation(0.1, 0.1),
                           layers.RandomZoom(0.1), layers.Flatten(), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.default_rng(1).uniform(size=(4, 8, 8, 3)).astype(np.float32)
    assert np.isfinite(model.train_on_batch(x, np.zeros((4, 1), np.float32)))
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))


@pytest.mark.parametrize("make, match", [
    (lambda: layers.RandomTranslation(1.5, 0.1), "RandomTranslation: expected height_factor "
     r"as a number or a pair of numbers in \[-1.0, 1.0\], received 1.5"),
    (lambda: layers.RandomTranslation(0.1, 0.1, fill_mode="mirror"),
     "RandomTranslation: expected fill_mode in"),
    (lambda: layers.RandomZoom(0.1, interpolation="bicubic"),
     "RandomZoom: expected interpolation 'bilinear' or 'nearest'"),
    (lambda: layers.RandomZoom((0.1, 0.2, 0.3)), "RandomZoom: expected height_factor"),
    (lambda: layers.RandomZoom(0.1, fill_value="x"), "RandomZoom: expected a number "
     "fill_value"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# ---- RandomRotation ---------------------------------------------------------------------

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "keras_random_rotation.json")) as _f:
    ROTATIONS = json.load(_f)


@pytest.mark.parametrize("case", sorted(k for k in ROTATIONS if k not in ("_source", "x")))
def test_random_rotation_is_keras(case):
    factor, fill_mode, interpolation, expected = ROTATIONS[case]
    x = np.asarray(ROTATIONS["x"], np.float32)
    layer = layers.RandomRotation(tuple(factor), fill_mode=fill_mode,
                                  interpolation=interpolation)
    (got,), inferred = _runs(layer, x, 1)  # a batch of unknown size, as in fit
    np.testing.assert_allclose(got, expected, atol=2e-3)
    np.testing.assert_array_equal(inferred, x)


def test_random_rotation_draws_per_image_and_trains():
    x = np.random.default_rng(1).normal(size=(16, 6, 6, 1)).astype(np.float32)
    (a, b), _ = _runs(layers.RandomRotation(0.2, seed=4), x, 2)
    assert not np.allclose(a, b)
    assert len({float(np.abs(img - x[0]).sum()) for img in a}) > 8  # angles differ
    model = pd.Sequential([layers.Input((6, 6, 1)), layers.RandomRotation(0.1),
                           layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, np.zeros((16, 1), np.float32), batch_size=5, epochs=1, verbose=0)
    with pytest.raises(ValueError, match="RandomRotation: expected factor"):
        layers.RandomRotation(1.5)


# ---- RandomPerspective ------------------------------------------------------------------

def test_random_perspective_warps_with_the_probability_and_keeps_the_origin():
    x = np.random.default_rng(0).uniform(0, 255, (300, 7, 6, 3)).astype(np.float32)
    (y,), inferred = _runs(layers.RandomPerspective(factor=(0.4, 0.4), scale=0.5, seed=1), x, 1)
    warped = np.array([not np.array_equal(a, b) for a, b in zip(y, x)])
    assert abs(warped.mean() - 0.4) < 0.1
    # Keras moves each corner (x, y) to (x, y) * (1 + d): the corner (0, 0) stays, so the
    # output's first pixel reads the input's
    np.testing.assert_allclose(y[:, 0, 0], x[:, 0, 0], atol=1e-2)
    np.testing.assert_array_equal(inferred, x)
    (same,), _ = _runs(layers.RandomPerspective(scale=0.0, seed=1), x, 1)
    np.testing.assert_allclose(same, x, atol=1e-3)  # corners that stay: no warp


def test_random_perspective_fills_and_takes_channels_first():
    x = np.full((64, 3, 8, 8), 5.0, np.float32)
    (y,), _ = _runs(layers.RandomPerspective(factor=(1.0, 1.0), scale=1.0, fill_value=-1.0,
                                             interpolation="nearest",
                                             data_format="channels_first", seed=3), x, 1)
    assert set(np.unique(y).tolist()) <= {-1.0, 5.0} and (y == -1.0).any()
    layer = layers.RandomPerspective(0.3, scale=0.2, interpolation="nearest", seed=2)
    again = layers.RandomPerspective.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    for make, match in [(lambda: layers.RandomPerspective(scale=1.5),
                         r"RandomPerspective: expected scale as a number in \[0, 1\], "
                         r"received scale=1.5"),
                        (lambda: layers.RandomPerspective(interpolation="cubic"),
                         "RandomPerspective: expected interpolation"),
                        (lambda: layers.RandomPerspective(factor=2), "RandomPerspective: "
                                                                     "expected factor")]:
        with pytest.raises(ValueError, match=match):
            make()
