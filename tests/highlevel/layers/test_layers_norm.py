"""Normalization layers: one-call layer tests, NumPy references (inference with set moving
statistics, training statistics and moving-average updates, layer norm), errors."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test

RNG = np.random.default_rng(19)


@pytest.mark.parametrize("kwargs, shape, trainable", [
    ({}, (2, 5), 2),
    ({"momentum": 0.9, "epsilon": 1e-5}, (3, 4, 4, 3), 2),
    ({"axis": 1}, (2, 3, 4, 4), 2),
    ({"center": False}, (2, 5), 1),
    ({"scale": False, "center": False}, (2, 5), 0),
])
def test_batch_normalization(kwargs, shape, trainable):
    layer = run_layer_test(layers.BatchNormalization, kwargs, shape, (None,) + shape[1:],
                           trainable, expected_num_non_trainable_weights=2)
    names = [w.name.split("/")[-1] for w in layer.weights]
    expected = ["gamma"] * bool(kwargs.get("scale", True)) + \
        ["beta"] * bool(kwargs.get("center", True)) + ["moving_mean", "moving_variance"]
    assert names == expected                                  # Keras's weight order


def bn_ref(x, gamma, beta, mean, var, eps, axis=-1):
    shape = [1] * x.ndim
    shape[axis] = -1
    r = [np.reshape(v, shape) for v in (gamma, beta, mean, var)]
    return (x - r[2]) / np.sqrt(r[3] + eps) * r[0] + r[1]


@pytest.mark.parametrize("axis, shape", [(-1, (4, 3, 5)), (1, (4, 5, 2, 2))])
def test_batch_normalization_inference_uses_moving_statistics(axis, shape):
    bn = layers.BatchNormalization(axis=axis)
    x = RNG.normal(2.0, 3.0, size=shape).astype(np.float32)
    bn(x)
    c = shape[axis]
    stats = [RNG.normal(size=c), RNG.normal(size=c), RNG.normal(size=c),
             RNG.uniform(0.5, 2.0, size=c)]
    bn.set_weights([s.astype(np.float32) for s in stats])
    np.testing.assert_allclose(bn(x), bn_ref(x, *stats, 1e-3, axis), rtol=1e-4, atol=1e-5)


def test_batch_normalization_training_statistics_and_updates():
    inp = layers.Input(shape=(3,))
    bn = layers.BatchNormalization(momentum=0.9)
    model = pd.Model(inp, bn(inp))
    model.compile(optimizer="sgd", loss="mse")
    x = RNG.normal(1.0, 2.0, size=(16, 3)).astype(np.float32)
    y = bn_ref(x, np.ones(3), np.zeros(3), x.mean(0), x.var(0), 1e-3)
    out = pd.eval(model.outputs[0], {inp: x}, training=True)    # a training run: batch stats
    np.testing.assert_allclose(out, y, rtol=1e-4, atol=1e-5)
    moving = [w.val() for w in bn.non_trainable_weights]
    model.train_on_batch(x, np.zeros((16, 3), np.float32))
    np.testing.assert_allclose(bn.moving_mean.val(), moving[0] * 0.9 + x.mean(0) * 0.1,
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.val(), moving[1] * 0.9 + x.var(0) * 0.1,
                               rtol=1e-4, atol=1e-6)


def test_frozen_batch_normalization_stays_in_inference_mode():
    """As Keras: a BatchNormalization with trainable=False uses (and keeps) its moving
    statistics even in training runs."""
    inp = layers.Input(shape=(3,))
    bn = layers.BatchNormalization()
    bn.trainable = False
    out = layers.Dense(2)(bn(inp))
    model = pd.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    bn.moving_mean.set_value(np.full(3, 0.5, np.float32))
    x = RNG.normal(size=(8, 3)).astype(np.float32)
    np.testing.assert_allclose(pd.eval(bn._inbound[-1][1][0], {inp: x}, training=True),
                               bn_ref(x, np.ones(3), np.zeros(3), np.full(3, 0.5), np.ones(3),
                                      1e-3), rtol=1e-5)
    model.train_on_batch(x, np.zeros((8, 2), np.float32))
    np.testing.assert_array_equal(bn.moving_mean.val(), np.full(3, 0.5, np.float32))
    assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 4


@pytest.mark.parametrize("kwargs, shape, trainable", [
    ({}, (2, 5), 2),
    ({"axis": [1, 2]}, (2, 3, 4), 2),
    ({"axis": 1, "epsilon": 1e-6}, (2, 3, 4), 2),
    ({"center": False}, (2, 4, 5), 1),
])
def test_layer_normalization(kwargs, shape, trainable):
    layer = run_layer_test(layers.LayerNormalization, kwargs, shape, (None,) + shape[1:],
                           trainable)
    axes = kwargs.get("axis", -1)
    axes = [axes] if isinstance(axes, int) else axes
    assert layer.gamma.shape == tuple(shape[a] for a in axes)


@pytest.mark.parametrize("axis", [-1, [1, 2]])
def test_layer_normalization_matches_numpy(axis):
    ln = layers.LayerNormalization(axis=axis, beta_initializer="glorot_uniform",
                                   gamma_initializer="glorot_uniform")
    x = RNG.normal(3.0, 2.0, size=(2, 3, 4)).astype(np.float32)
    y = ln(x)
    gamma, beta = ln.get_weights()
    axes = tuple(axis) if isinstance(axis, list) else (axis,)
    mu, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    np.testing.assert_allclose(y, (x - mu) / np.sqrt(var + 1e-3) * gamma + beta, rtol=1e-4,
                               atol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="BatchNormalization: expected momentum in"):
        layers.BatchNormalization(momentum=2)
    with pytest.raises(ValueError, match="BatchNormalization: expected an integer axis"):
        layers.BatchNormalization(axis=[1, 2])
    with pytest.raises(ValueError, match="LayerNormalization: expected epsilon >= 0"):
        layers.LayerNormalization(epsilon=-1)
    with pytest.raises(ValueError, match="LayerNormalization: expected an integer axis"):
        layers.LayerNormalization(axis="last")
    with pytest.raises(pd.ShapeError, match=r"bn: axis 3 is out of range for an input of "
                                            r"shape \(None, 4\)"):
        layers.BatchNormalization(axis=3, name="bn")(layers.Input(shape=(4,)))
    with pytest.raises(pd.ShapeError, match="the size of axis -1 must be known"):
        layers.LayerNormalization()(layers.Input(shape=(None,)))
    bn = layers.BatchNormalization(name="bn2")
    bn(layers.Input(shape=(4,)))
    with pytest.raises(pd.ShapeError, match=r"bn2: expected the last axis of the input to be 4"):
        bn(layers.Input(shape=(5,)))
