"""GroupNormalization, RMSNormalization, UnitNormalization: outputs against Keras 3.15.1
(JAX backend; the constants below were printed by it for the same input and weights),
the one-call layer test, and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test

# x = (sin(arange(24).reshape(2, 3, 4)) * 2 + 0.5) as float32, as fed to Keras.
X = (np.sin(np.arange(24).reshape(2, 3, 4)) * 2 + 0.5).astype(np.float32)
GAMMA = np.array([1.0, 2.0, 0.5, -1.0], np.float32)
BETA = np.array([0.1, 0.0, -0.2, 0.3], np.float32)

# keras.layers.GroupNormalization(groups=2) with gamma=GAMMA, beta=BETA.
KERAS_GROUP = [
    [[-0.01841, 2.03102, 0.49845, 0.05863], [-1.03823, -2.8212, -0.39561, -0.71736],
     [1.31479, 0.87388, -0.59463, 1.77514]],
    [[-0.75187, 1.01047, 0.51506, -0.62305], [-0.39914, -2.90894, -0.78242, 0.12255],
     [1.30423, 2.19203, -0.22953, 1.60673]]]
# keras.layers.GroupNormalization(groups=-1, axis=1): instance normalization on axis 1.
KERAS_INSTANCE = [
    [[-1.1635, 0.9065, 1.07335, -0.81635], [-0.67718, -1.00132, 0.0884, 1.5901],
     [1.31222, 0.57323, -0.65085, -1.2346]],
    [[-1.61684, 0.06879, 1.07382, 0.47423], [0.40655, -1.16076, -0.67111, 1.42532],
     [0.96274, 0.85619, -0.3247, -1.49422]]]
# keras.layers.RMSNormalization() with scale=GAMMA.
KERAS_RMS = [
    [[0.30147, 2.63237, 0.69899, -0.47164], [-0.80564, -2.25388, -0.02338, -1.44179],
     [1.53038, 1.63519, -0.18153, 0.9261]],
    [[-0.33768, 1.57936, 0.73092, -1.06084], [-0.0791, -2.96929, -0.52277, -0.83452],
     [1.3549, 2.53203, 0.14048, 0.69463]]]
KERAS_RMS_AXES_1_2_FIRST_ROW = [0.32834, 1.43348, 1.52256, 0.51368]
KERAS_UNIT_AXES_1_2_ROW = [0.44774, 0.41837, 0.09284, -0.22955]  # [1, 2] of the output


def test_group_normalization_matches_keras():
    layer = layers.GroupNormalization(groups=2)
    layer(layers.Input(shape=(3, 4)))
    layer.set_weights([GAMMA, BETA])
    np.testing.assert_allclose(layer(X), KERAS_GROUP, atol=1e-4)
    inst = layers.GroupNormalization(groups=-1, axis=1)
    np.testing.assert_allclose(inst(X), KERAS_INSTANCE, atol=1e-4)


def test_rms_and_unit_normalization_match_keras():
    layer = layers.RMSNormalization()
    layer(layers.Input(shape=(3, 4)))
    layer.set_weights([GAMMA])
    np.testing.assert_allclose(layer(X), KERAS_RMS, atol=1e-4)
    both = layers.RMSNormalization(axis=[1, 2])
    np.testing.assert_allclose(both(X)[0, 0], KERAS_RMS_AXES_1_2_FIRST_ROW, atol=1e-4)
    assert [w.shape for w in both.weights] == [(3, 4)]
    np.testing.assert_allclose(layers.UnitNormalization(axis=[1, 2])(X)[1, 2],
                               KERAS_UNIT_AXES_1_2_ROW, atol=1e-4)
    zero = layers.UnitNormalization()(np.zeros((1, 3), np.float32))
    assert np.array_equal(zero, np.zeros((1, 3)))  # Keras's 1e-12 floor: no NaN


@pytest.mark.parametrize("cls, kwargs, shape, trainable", [
    (layers.GroupNormalization, {"groups": 2}, (2, 5, 4), 2),
    (layers.GroupNormalization, {"groups": 1, "axis": 1, "center": False}, (2, 4, 3, 3), 1),
    (layers.RMSNormalization, {}, (2, 5, 4), 1),
    (layers.RMSNormalization, {"axis": [1, 2], "epsilon": 1e-3}, (2, 3, 4), 1),
    (layers.UnitNormalization, {"axis": [-1]}, (2, 5, 4), 0),
])
def test_layer(cls, kwargs, shape, trainable):
    run_layer_test(cls, kwargs, shape, (None,) + shape[1:], trainable)


def test_group_normalization_trains_and_round_trips(tmp_path):
    pd.seed(0)
    inp = layers.Input(shape=(4, 4, 4))
    out = layers.Dense(1)(layers.Flatten()(layers.GroupNormalization(groups=2)(
        layers.UnitNormalization()(layers.RMSNormalization()(inp)))))
    model = pd.Model(inp, out)
    x = np.random.default_rng(0).normal(size=(3, 4, 4, 4)).astype(np.float32)
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, np.ones((3, 1), np.float32), epochs=2, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = pd.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.GroupNormalization(groups=0), ValueError, "GroupNormalization: expected "
     "groups to be a positive integer"),
    (lambda: layers.GroupNormalization(axis="x"), ValueError, "integer axis, received 'x'"),
    (lambda: layers.GroupNormalization(groups=3)(layers.Input(shape=(4,))), ValueError,
     r"expected groups \(3\) to divide the number of channels, received 4"),
    (lambda: layers.GroupNormalization(groups=2)(layers.Input(shape=(None, 4))),
     pd.ShapeError, "non-batch sizes of the input to be known"),
    (lambda: layers.RMSNormalization(epsilon=-1), ValueError, "RMSNormalization"),
    (lambda: layers.RMSNormalization(axis=5)(layers.Input(shape=(4,))), pd.ShapeError,
     "axis 5 is out of range"),
    (lambda: layers.UnitNormalization(axis=1.5), ValueError,
     "UnitNormalization: expected an integer axis or a list of them, received 1.5"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()
