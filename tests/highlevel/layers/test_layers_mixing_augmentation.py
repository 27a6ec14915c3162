"""MixUp and CutMix: the statistics of their draws (Beta(alpha, alpha) weights, boxes of
sqrt(1 - w) sides, a permutation of the batch), labels mixed with the images' weights, the
identity at inference, a batch of unknown size inside fit, configs and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle import layers

B, H, W = 512, 8, 8
# Image k is filled with the value k, its label is one-hot k: a mixed image's values say
# which images it was made of.
X = np.broadcast_to(np.arange(B, dtype=np.float32)[:, None, None, None], (B, H, W, 1)).copy()
LABELS = np.eye(B, dtype=np.float32)


def run(layer, x=X, labels=LABELS, training=True):
    images = pd.data("mix_images", shape=(None,) + x.shape[1:])
    onehot = pd.data("mix_labels", shape=(None, labels.shape[1]))
    out = layer({"images": images, "labels": onehot})
    return pd.eval([out["images"], out["labels"]], {images: x, onehot: labels},
                   training=training)


@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.0])
def test_mixup_weights_are_beta_and_labels_follow_the_images(alpha):
    images, labels = run(layers.MixUp(alpha=alpha, seed=3))
    # each image is one value: w * k + (1 - w) * partner(k), as its label says
    np.testing.assert_array_equal(images, images[:, :1, :1, :1] * np.ones_like(images))
    np.testing.assert_allclose(images[:, 0, 0, 0], labels @ np.arange(B), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(labels.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all((labels >= 0) & (labels <= 1)) and np.all((labels > 0).sum(axis=1) <= 2)
    # the weight of each image's own label is Beta(alpha, alpha) (mean 1/2, variance
    # 1 / (4 (2 alpha + 1))) where its partner is another image
    own = labels[np.arange(B), np.arange(B)]
    moved = own < 1 - 1e-6
    w = own[moved]
    assert abs(w.mean() - 0.5) < 4 * np.sqrt(0.25 / w.size)
    assert abs(w.var() - 1 / (4 * (2 * alpha + 1))) < 0.03
    # the partners form a permutation: no image is the partner of two others
    others = labels - np.diag(own)
    partners = others.argmax(axis=1)[others.max(axis=1) > 0]
    assert len(set(partners.tolist())) == partners.size > B // 2


def test_cutmix_pastes_one_box_of_a_partner_and_mixes_labels_by_area():
    images, labels = run(layers.CutMix(seed=5))
    areas = []
    for k, (image, label) in enumerate(zip(images[..., 0], labels)):
        values = set(np.unique(image).tolist())
        assert values <= {float(k)} | set(np.flatnonzero(label).astype(float).tolist())
        pasted = image != k
        if pasted.any():  # a rectangle of the partner's value
            rows, cols = np.flatnonzero(pasted.any(1)), np.flatnonzero(pasted.any(0))
            assert pasted[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1].all()
            assert pasted.sum() == rows.size * cols.size
            assert len(values) == 2 or pasted.all()
        areas.append(1.0 - label[k] if label[k] < 1 - 1e-6 else 0.0)
    np.testing.assert_allclose(labels.sum(axis=1), 1.0, rtol=1e-5)
    # area = 1 - w with w ~ Beta(alpha, alpha), alpha ~ U(0, 1): mean 1/2
    assert abs(np.mean(areas) - 0.5) < 0.08


def test_cutmix_with_one_alpha_value():
    images, labels = run(layers.CutMix(factor=(0.5, 0.5), seed=2))
    np.testing.assert_allclose(labels.sum(axis=1), 1.0, rtol=1e-5)
    assert 0.35 < 1 - np.mean(labels[np.arange(B), np.arange(B)]) < 0.65


@pytest.mark.parametrize("make", [lambda: layers.MixUp(), lambda: layers.CutMix(),
                                  lambda: layers.MixUp(data_format="channels_first")])
def test_the_identity_at_inference(make):
    images, labels = run(make(), training=False)
    np.testing.assert_array_equal(images, X)
    np.testing.assert_array_equal(labels, LABELS)
    out = make()({"images": X[:4], "labels": LABELS[:4]})  # an eager call: inference
    np.testing.assert_array_equal(np.asarray(out["images"]), X[:4])
    np.testing.assert_array_equal(make()(X[:3]), X[:3])


def test_seeds_repeat_and_draws_change_per_run():
    a, _ = run(layers.MixUp(seed=7))
    b, _ = run(layers.MixUp(seed=7))
    np.testing.assert_array_equal(a, b)
    layer = layers.CutMix(seed=7)
    inp = pd.data("seed_images", shape=(None, H, W, 1))
    out = layer(inp)
    first, second = (pd.eval(out, {inp: X[:16]}, training=True) for _ in range(2))
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("layer", [layers.MixUp(alpha=0.5), layers.CutMix(0.8)])
def test_in_a_model_trained_by_fit(layer, tmp_path):
    pd.seed(1)
    model = pd.Sequential([layers.Input(shape=(H, W, 1)), layer, layers.Flatten(),
                           layers.Dense(1)])
    model.compile("sgd", "mse")
    x = X[:20] / B
    model.fit(x, np.zeros((20, 1), np.float32), batch_size=6, epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))


def test_configs_round_trip():
    for layer in (layers.MixUp(alpha=0.3, seed=1), layers.CutMix((0.2, 0.6), seed=2)):
        again = type(layer).from_config(layer.get_config())
        assert again.get_config() == layer.get_config()
    assert layers.CutMix(0.4).get_config()["factor"] == [0.0, 0.4]


@pytest.mark.parametrize("make, match", [
    (lambda: layers.MixUp(alpha=0), r"MixUp: expected alpha as a number > 0, received "
                                    r"alpha=0"),
    (lambda: layers.MixUp(alpha="a"), "MixUp: expected alpha"),
    (lambda: layers.CutMix(1.5), r"CutMix: expected factor as a number \(or a list of two "
                                 r"numbers\) in the range \[0.0, 1.0\], received factor=1.5"),
    (lambda: layers.MixUp(seed=-1), "MixUp: expected an integer seed"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"mix_up\w*: expected a dict with the keys 'images' and "
                                         r"\(optionally\) 'labels', received keys \['image'\]"):
        layers.MixUp()({"image": X[:2]})
    with pytest.raises(pd.ShapeError, match=r"cut_mix\w*: expected labels with the images' batch "
                                            r"size, received images \(4, 8, 8, 1\) and labels "
                                            r"\(3, 512\)"):
        inp = pd.data("bad_images", shape=(4, H, W, 1))
        layers.CutMix()({"images": inp, "labels": pd.data("bad_labels", shape=(3, B))})
    with pytest.raises(pd.ShapeError, match="expected images of rank 4"):
        layers.MixUp()(pd.data("bad_rank", shape=(None, H, W)))


# ---- RandomErasing -----------------------------------------------------------------------

def _erase(layer, x, training=True):
    inp = pd.data("erase_images", shape=(None,) + x.shape[1:])
    return pd.eval(layer(inp), {inp: x}, training=training)


def test_random_erasing_fills_one_box_with_the_probability_and_scale():
    x = np.full((400, 20, 20, 3), 100.0, np.float32)
    y = _erase(layers.RandomErasing(factor=(0.6, 0.6), scale=(0.1, 0.3), fill_value=7.0,
                                    seed=3), x)
    erased = y[..., 0] != 100
    assert set(np.unique(y).tolist()) == {7.0, 100.0}
    hit = erased.any(axis=(1, 2))
    assert abs(hit.mean() - 0.6) < 0.1
    for mask in erased[hit]:
        rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
        assert mask.sum() == rows.size * cols.size  # one rectangle
        # sides sqrt(s) of the image's, s in [0.1, 0.3]: 6.3 to 11 pixels (+1 for the grid)
        assert 6 <= rows.size <= 12 and 6 <= cols.size <= 12


def test_random_erasing_noise_and_per_channel_fill():
    x = np.full((64, 12, 12, 3), 100.0, np.float32)
    y = _erase(layers.RandomErasing(factor=(1.0, 1.0), seed=1), x)
    noise = y[y != 100]
    assert noise.size and noise.min() >= 0 and noise.max() <= 255  # clipped normal * 255
    assert 0.4 < (noise == 0).mean() < 0.6  # half the normal draws are negative
    y = _erase(layers.RandomErasing(factor=(1.0, 1.0), fill_value=[1, 2, 300],
                                    data_format="channels_first", seed=2),
               np.full((8, 3, 12, 12), 100.0, np.float32))
    for channel, value in enumerate([1.0, 2.0, 255.0]):
        assert set(np.unique(y[:, channel]).tolist()) == {value, 100.0}


def test_random_erasing_is_the_identity_at_inference_and_round_trips():
    layer = layers.RandomErasing(factor=0.5, scale=0.4, fill_value=[1, 2, 3], seed=4)
    x = np.repeat(X[:8], 3, axis=-1)
    np.testing.assert_array_equal(_erase(layer, x, training=False), x)
    np.testing.assert_array_equal(np.asarray(layer(x[:3])), x[:3])
    with pytest.raises(pd.ShapeError, match=r"random_erasing\w*: a fill_value of three "
                                            r"numbers needs images of 3 channels, received "
                                            r"shape \(None, 8, 8, 1\)"):
        layers.RandomErasing(fill_value=[1, 2, 3])(pd.data("erase_gray", shape=(None, H, W, 1)))
    again = layers.RandomErasing.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    assert layer.get_config()["scale"] == [0.0, 0.4]
    with pytest.raises(ValueError, match=r"RandomErasing: expected fill_value as None, a "
                                         r"number or a list of three numbers, received "
                                         r"fill_value=\[1, 2\]"):
        layers.RandomErasing(fill_value=[1, 2])
    with pytest.raises(ValueError, match=r"RandomErasing: expected scale .* received "
                                         r"scale=1.5"):
        layers.RandomErasing(scale=1.5)
