"""RandAugment and its operations RandomShear, RandomSharpness and RandomPosterization,
against Keras 3.15.1's outputs (keras_rand_augment.json, written once with real Keras: see
its "_source"; RandomShear's sign is random, so each image must be Keras's for one of the
two signs), the identity at inference, RandAugment's choice of operation per batch, a batch
of unknown size in fit, configs and bad arguments."""
import json
import os

import numpy as np
import pytest

import paddle as pd
from paddle import layers

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "keras_rand_augment.json")) as f:
    KERAS = json.load(f)
X = np.asarray(KERAS["x"], np.float32)


def run(layer, x, training=True):
    inp = pd.data("ra_images", shape=(None,) + x.shape[1:])
    return pd.eval(layer(inp), {inp: x}, training=training)


DETERMINISTIC = {
    "sharpness_0.2": (lambda: layers.RandomSharpness((0.2, 0.2)), X),
    "sharpness_0.9_range01": (lambda: layers.RandomSharpness((0.9, 0.9), value_range=(0, 1)),
                              X / 255),
    "posterization_3": (lambda: layers.RandomPosterization((3, 3)), X),
    "posterization_5_range01": (lambda: layers.RandomPosterization((5, 5),
                                                                   value_range=(0, 1)), X / 255),
}


@pytest.mark.parametrize("case", sorted(DETERMINISTIC))
def test_sharpness_and_posterization_are_keras(case):
    make, x = DETERMINISTIC[case]
    np.testing.assert_allclose(run(make(), x), KERAS[case], rtol=1e-6, atol=1e-4)
    np.testing.assert_array_equal(run(make(), x, training=False), x)


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "wrap"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_shear_is_keras_for_either_sign(mode, interpolation):
    layer = layers.RandomShear((0.3, 0.3), (0.1, 0.1), fill_mode=mode,
                               interpolation=interpolation, seed=1)
    got = run(layer, X)
    plus, minus = np.asarray(KERAS[f"shear_{mode}_{interpolation}"])
    for image, a, b in zip(got, plus, minus):
        assert min(np.abs(image - a).max(), np.abs(image - b).max()) < 1e-3
    np.testing.assert_array_equal(run(layer, X, training=False), X)


def test_shear_signs_and_posterization_bits_are_drawn_per_image():
    x = np.repeat(X[:1], 64, axis=0)
    y = run(layers.RandomShear((0.3, 0.3), (0.1, 0.1), seed=2), x)
    a, b = np.asarray(KERAS["shear_reflect_bilinear"])[:, 0]
    plus = np.array([np.abs(image - a).max() < 1e-3 for image in y])
    assert 15 < plus.sum() < 49 and all(p or np.abs(i - b).max() < 1e-3
                                        for p, i in zip(plus, y))
    y = run(layers.RandomPosterization((1, 8), seed=3), x)
    kept = [len(np.unique(image)) for image in y]
    assert len(set(kept)) > 3  # 1 to 7 bits (Keras's randint excludes 8)
    assert max(kept) < len(np.unique(np.floor(x[0])))


def test_rand_augment_applies_one_of_its_operations_per_step():
    x = X[:1]
    auto = run(layers.AutoContrast(), x)
    equalized = run(layers.Equalization(), x)
    layer = layers.RandAugment(num_ops=1, factor=0.3, seed=5)
    inp = pd.data("ra_step", shape=(None,) + x.shape[1:])
    out = layer(inp)
    hits = {"auto": 0, "equalized": 0, "changed": 0}
    runs = 220
    for _ in range(runs):
        y = pd.eval(out, {inp: x}, training=True)
        hits["auto"] += np.allclose(y, auto, atol=1e-4)
        hits["equalized"] += np.array_equal(y, equalized)
        hits["changed"] += not np.array_equal(y, x)
    # each operation is drawn with probability 1/11: 20 of 220 runs expected
    assert 7 <= hits["auto"] <= 36 and 7 <= hits["equalized"] <= 36
    assert hits["changed"] > runs * 0.8
    np.testing.assert_array_equal(pd.eval(out, {inp: x}, training=False), x)
    np.testing.assert_array_equal(np.asarray(layer(x)), x)  # an eager call: inference


def test_rand_augment_in_a_model_trained_by_fit(tmp_path):
    pd.seed(3)
    model = pd.Sequential([layers.Input(shape=X.shape[1:]),
                           layers.RandAugment(num_ops=3, factor=(0.1, 0.6)),
                           layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    x = np.concatenate([X] * 4) / 255.0
    model.fit(x, np.zeros((8, 1), np.float32), batch_size=3, epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))


def test_configs_round_trip():
    for layer in (layers.RandAugment(value_range=(0, 1), num_ops=3, factor=(0.2, 0.4),
                                     interpolation="nearest", seed=2),
                  layers.RandomShear(0.2, (0.1, 0.3), fill_mode="wrap", seed=1),
                  layers.RandomSharpness(0.4, value_range=(0, 1)),
                  layers.RandomPosterization((2, 6), seed=4)):
        again = type(layer).from_config(layer.get_config())
        assert again.get_config() == layer.get_config()
    assert layers.RandomShear(0.2).get_config()["x_factor"] == 0.2
    assert layers.RandomPosterization(4).get_config()["factor"] == [1.0, 4.0]


@pytest.mark.parametrize("make, match", [
    (lambda: layers.RandAugment(num_ops=-1), r"RandAugment: expected num_ops as an integer "
                                             r">= 0, received num_ops=-1"),
    (lambda: layers.RandAugment(factor=2.0), r"RandAugment: expected factor .* \[0.0, 1.0\]"),
    (lambda: layers.RandAugment(interpolation="bicubic"), "RandAugment: expected "
                                                          "interpolation"),
    (lambda: layers.RandomShear(x_factor=1.5), r"RandomShear: expected x_factor as a number "
                                               r"or a pair of numbers in \[0, 1\], received "
                                               r"x_factor=1.5"),
    (lambda: layers.RandomShear(fill_mode="mirror"), "RandomShear: expected fill_mode"),
    (lambda: layers.RandomSharpness(1.5), r"RandomSharpness: expected factor"),
    (lambda: layers.RandomPosterization(9), r"RandomPosterization: expected factor .* "
                                            r"\[1.0, 8.0\]"),
    (lambda: layers.RandomPosterization(3, value_range=(1, 1)), "value_range"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# ---- AugMix ----------------------------------------------------------------------------------

def test_augmix_mixes_chains_in_training_only():
    layer = layers.AugMix(num_chains=2, chain_depth=2, seed=3)
    inp = pd.data("augmix_images", shape=(None,) + X.shape[1:])
    out = layer(inp)
    runs = [pd.eval(out, {inp: X}, training=True) for _ in range(6)]
    assert all(y.min() >= 0 and y.max() <= 255 for y in runs)
    assert sum(not np.allclose(y, X, atol=1e-3) for y in runs) >= 4
    np.testing.assert_array_equal(pd.eval(out, {inp: X}, training=False), X)
    np.testing.assert_array_equal(np.asarray(layers.AugMix()(X)), X)  # eager: inference
    again = layers.AugMix(num_chains=2, chain_depth=2, seed=3)
    inp2 = pd.data("augmix_again", shape=(None,) + X.shape[1:])
    np.testing.assert_array_equal(pd.eval(again(inp2), {inp2: X}, training=True), runs[0])


def test_augmix_of_a_flat_image_with_geometric_operations_keeps_it():
    # shear, translation and rotation (reflect), auto-contrast and equalization keep a flat
    # image; posterization keeps 128 (its top bit) and solarization with a zero factor
    # inverts it: the mixture stays within {128, 127} values, never outside
    x = np.full((4, 8, 8, 3), 128.0, np.float32)
    y = run(layers.AugMix(factor=(0.0, 0.0), all_ops=False, alpha=2.0, seed=1), x)
    assert np.all((y >= 127.0 - 1e-3) & (y <= 128.0 + 1e-3))


def test_augmix_config_and_bad_arguments():
    layer = layers.AugMix(value_range=(0, 1), num_chains=2, chain_depth=1, factor=0.5,
                          alpha=0.5, all_ops=False, interpolation="nearest", seed=2)
    again = layers.AugMix.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    for make, match in [(lambda: layers.AugMix(num_chains=0), r"AugMix: expected num_chains "
                                                              r"as an integer >= 1"),
                        (lambda: layers.AugMix(alpha=0.0), "AugMix: expected alpha as a "
                                                           "number > 0"),
                        (lambda: layers.AugMix(factor=1.5), "AugMix: expected factor"),
                        (lambda: layers.AugMix(interpolation="cubic"), "AugMix: expected "
                                                                       "interpolation")]:
        with pytest.raises(ValueError, match=match):
            make()
