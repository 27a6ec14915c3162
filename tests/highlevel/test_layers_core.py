"""Core, regularization and embedding layers: one-call layer tests, NumPy references,
argument and shape errors."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test

RNG = np.random.default_rng(13)


@pytest.mark.parametrize("kwargs, in_shape, out_shape, weights", [
    ({"units": 3}, (2, 4), (None, 3), 2),
    ({"units": 3, "activation": "relu", "use_bias": False}, (2, 4), (None, 3), 1),
    ({"units": 5, "kernel_initializer": "he_normal",
      "bias_initializer": pd.initializers.Constant(0.1)}, (2, 3, 4), (None, 3, 5), 2),
])
def test_dense(kwargs, in_shape, out_shape, weights):
    run_layer_test(layers.Dense, kwargs, in_shape, out_shape, weights)


def test_dense_matches_numpy():
    dense = layers.Dense(3, activation="tanh", bias_initializer="glorot_uniform")
    x = RNG.normal(size=(4, 5)).astype(np.float32)
    y = dense(x)
    kernel, bias = dense.get_weights()
    assert kernel.shape == (5, 3) and bias.shape == (3,)
    np.testing.assert_allclose(y, np.tanh(x @ kernel + bias), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls, kwargs, in_shape, out_shape", [
    (layers.Activation, {"activation": "softmax"}, (2, 4), (None, 4)),
    (layers.Flatten, {}, (2, 3, 4, 2), (None, 24)),
    (layers.Reshape, {"target_shape": (2, 6)}, (2, 3, 4), (None, 2, 6)),
    (layers.Reshape, {"target_shape": (-1, 2)}, (2, 3, 4), (None, 6, 2)),
    (layers.Permute, {"dims": (2, 1)}, (2, 3, 4), (None, 4, 3)),
    (layers.Lambda, {"function": lambda x: pd.square(x) + 1.0}, (2, 3), (None, 3)),
    (layers.Lambda, {"function": lambda x, k: x * k, "arguments": {"k": 2.0}}, (2, 3),
     (None, 3)),
])
def test_weightless_core_layers(cls, kwargs, in_shape, out_shape):
    run_layer_test(cls, kwargs, in_shape, out_shape, 0)


def test_weightless_values():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(layers.Activation("relu")(x), np.maximum(x, 0))
    np.testing.assert_array_equal(layers.Flatten()(x), x.reshape(2, 12))
    np.testing.assert_array_equal(layers.Reshape((-1, 3))(x), x.reshape(2, 4, 3))
    np.testing.assert_array_equal(layers.Permute((2, 1))(x), x.transpose(0, 2, 1))
    scale = 3.0
    lam = layers.Lambda(lambda v: v * scale)
    np.testing.assert_allclose(layers.Lambda.from_config(lam.get_config())(x), x * 3.0)


def test_core_errors():
    with pytest.raises(ValueError, match="Dense: expected a positive integer units, received 0"):
        layers.Dense(0)
    with pytest.raises(ValueError, match="activation: unknown 'relux'"):
        layers.Dense(2, activation="relux")
    dense = layers.Dense(2, name="d1")
    with pytest.raises(pd.ShapeError, match=r"d1: expected an input with a known last axis"):
        dense(layers.Input(shape=(None,)))
    dense(layers.Input(shape=(4,)))
    with pytest.raises(pd.ShapeError, match=r"d1: expected the last axis of the input to be 4, "
                                            r"received shape \(None, 5\)"):
        dense(layers.Input(shape=(5,)))
    with pytest.raises(ValueError, match="Permute: dims must be a permutation of 1..2"):
        layers.Permute((0, 1))
    with pytest.raises(TypeError, match="Lambda: expected a callable"):
        layers.Lambda(3)
    with pytest.raises(pd.ShapeError, match=r"cannot reshape"):
        layers.Reshape((5, -1))(layers.Input(shape=(3, 4)))
