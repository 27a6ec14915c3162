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


# ---- Dropout ------------------------------------------------------------------------------

def test_dropout():
    run_layer_test(layers.Dropout, {"rate": 0.5}, (2, 3, 4), (None, 3, 4), 0)
    run_layer_test(layers.Dropout, {"rate": 0.0, "seed": 3}, (2, 4), (None, 4), 0)


def test_dropout_drops_only_in_training_runs():
    inp = layers.Input(shape=(1000,))
    out = layers.Dropout(0.25)(inp)
    x = np.ones((4, 1000), np.float32)
    np.testing.assert_array_equal(pd.eval(out, {inp: x}), x)          # inference: identity
    y = pd.eval(out, {inp: x}, training=True)
    assert set(np.unique(y).tolist()) <= {0.0, float(np.float32(1.0 / 0.75))}
    assert 0.2 < np.mean(y == 0) < 0.3
    pd.seed(1)
    a = pd.eval(out, {inp: x}, training=True)
    pd.seed(1)
    np.testing.assert_array_equal(a, pd.eval(out, {inp: x}, training=True))


def test_dropout_inside_training():
    """fit runs dropout; predict does not."""
    inp = layers.Input(shape=(6,))
    dense = layers.Dense(1, kernel_initializer="ones")
    model = pd.Model(inp, dense(layers.Dropout(0.5)(inp)))
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((4, 6), np.float32)
    np.testing.assert_allclose(model.predict_on_batch(x), np.full((4, 1), 6.0))
    assert np.isfinite(model.train_on_batch(x, np.zeros((4, 1), np.float32)))


# ---- Embedding ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, in_shape, out_shape", [
    ({"input_dim": 4, "output_dim": 3}, (2, 5), (None, 5, 3)),
    ({"input_dim": 4, "output_dim": 2, "embeddings_initializer": "glorot_uniform"},
     (2, 3, 2), (None, 3, 2, 2)),
])
def test_embedding(kwargs, in_shape, out_shape):
    layer = run_layer_test(layers.Embedding, kwargs, in_shape, out_shape, 1,
                           input_dtype="int64")
    assert layer.embeddings.shape == (kwargs["input_dim"], kwargs["output_dim"])
    assert layer.embeddings.name.endswith("/embeddings")


def test_embedding_values_and_default_initializer():
    emb = layers.Embedding(10, 3)
    ids = np.array([[1, 9, 1], [0, 0, 5]])
    y = emb(ids)
    table = emb.embeddings.val()
    np.testing.assert_array_equal(y, table[ids])
    assert np.abs(table).max() <= 0.05                        # Keras's Uniform(-0.05, 0.05)
    np.testing.assert_array_equal(emb(ids.astype(np.int32)), table[ids])


def test_dropout_and_embedding_errors():
    with pytest.raises(ValueError, match=r"Dropout: expected a rate in \[0, 1\), received 1"):
        layers.Dropout(1)
    with pytest.raises(ValueError, match="Embedding: expected a positive integer input_dim"):
        layers.Embedding(0, 3)
    with pytest.raises(ValueError, match="Embedding: expected a positive integer output_dim"):
        layers.Embedding(3, 2.5)
    # The layer casts float ids (Keras does); the op itself still refuses them.
    assert layers.Embedding(3, 2)(layers.Input(shape=(4,))).shape == (None, 4, 2)
    with pytest.raises(TypeError, match="embedding: expected integer ids"):
        pd.embedding(layers.Input(shape=(4,)), pd.constant(np.ones((3, 2), np.float32)))
    emb = layers.Embedding(3, 2)
    with pytest.raises(IndexError):
        emb(np.array([[0, 3]]))


def test_identity_keeps_values_and_the_graph(tmp_path):
    run_layer_test(layers.Identity, {}, (2, 3), (None, 3), 0)
    inp = layers.Input(shape=(3,))
    hidden = layers.Dense(3)(inp)
    out = layers.Dense(2)(layers.Identity()(hidden))
    model = pd.Model(inp, out)
    # The Dense before the Identity stays in the model (its output is not handed back
    # as the Identity's, which would rewrite that Variable's history).
    assert [type(l).__name__ for l in model.layers] == ["Dense", "Identity", "Dense"]
    x = RNG.normal(size=(2, 3)).astype(np.float32)
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))
    pair = layers.Identity()([inp, inp])
    assert [v.shape for v in pair] == [(None, 3), (None, 3)]
    linear = layers.Dense(2)(layers.Activation("linear")(hidden))
    assert len(pd.Model(inp, linear).layers) == 3  # the same for a linear Activation


def test_input_layer():
    model = pd.Sequential([layers.InputLayer(shape=(4,)), layers.Dense(2)])
    assert model.inputs[0].shape == (None, 4) and model.predict(
        np.ones((3, 4), np.float32), verbose=0).shape == (3, 2)
    held = layers.InputLayer(batch_shape=(8, 5), dtype="int64", name="ids")
    assert held.output.shape == (8, 5) and held.output.dtype == "int64"
    assert held.get_config() == {"batch_shape": [8, 5], "dtype": "int64", "sparse": False,
                                 "name": "ids"}
    functional = pd.Model(held.output, layers.Embedding(10, 3)(held.output))
    assert functional.outputs[0].shape == (8, 5, 3)
    with pytest.raises(ValueError, match="InputLayer: paddle has no sparse or optional"):
        layers.InputLayer(shape=(2,), sparse=True)
    with pytest.raises(ValueError, match="Input: expected a shape"):
        layers.InputLayer()
