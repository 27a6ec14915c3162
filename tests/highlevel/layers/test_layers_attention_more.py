"""Attention and AdditiveAttention: outputs against Keras 3.15.1 (JAX backend; the first
outputs, the sum and the sum of squares it printed for the same inputs and weights), masks,
the one-call layer test, saving and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import check_figures, run_layer_test

RNG = np.random.default_rng(1)
Q = RNG.normal(size=(2, 3, 4)).astype(np.float32)
V = RNG.normal(size=(2, 5, 4)).astype(np.float32)
K = RNG.normal(size=(2, 5, 4)).astype(np.float32)
V_MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
Q_MASK = np.array([[1, 0, 1], [1, 1, 1]], bool)


def check(y, shape, first, total, squares):
    check_figures(y, shape, first, total, squares, squares_rel=1e-4)


def built(layer, weights):
    layer([Q, V])
    layer.set_weights([np.asarray(w, np.float32) for w in weights])
    return layer


def test_attention_matches_keras():
    dot = built(layers.Attention(use_scale=True), [0.7])
    check(dot([Q, V, K]), (2, 3, 4), [-0.83503, -0.37238, 0.5395, -0.67183, -1.30018],
          -5.7589, 8.35)
    concat = built(layers.Attention(score_mode="concat", use_scale=True), [0.5, 1.5])
    out, scores = concat([Q, V, K], return_attention_scores=True)
    check(out, (2, 3, 4), [-1.16845, 0.01646, 0.50218, -0.1437, -1.10778], -2.0543, 7.6053)
    check(scores, (2, 3, 5), [0.342, 0.15074, 0.37379, 0.04419, 0.08927], 6.0, 1.8347)
    causal = layers.Attention()([Q, V[:, :3]], use_causal_mask=True)
    check(causal, (2, 3, 4), [-2.71116, -1.88901, -0.17477, -0.42219, -0.14864], -2.5945,
          20.895)


def test_additive_attention_matches_keras_with_masks():
    layer = built(layers.AdditiveAttention(), [[0.3, -0.2, 0.5, 0.1]])
    check(layer([Q, V, K]), (2, 3, 4), [-1.03069, -0.55457, 0.50473, -0.30048, -0.99231],
          -4.6069, 7.8147)
    q, v = layers.Input(shape=(3, 4)), layers.Input(shape=(5, 4))
    qm, vm = layers.Input(shape=(3,), dtype="bool"), layers.Input(shape=(5,), dtype="bool")
    out = pd.eval(layer([q, v], mask=[qm, vm]), {q: Q, v: V, qm: Q_MASK, vm: V_MASK})
    check(out, (2, 3, 4), [-0.70397, 0.285, 1.07248, -0.3663, 0.0], -0.0172, 6.4016)


def test_masks_come_from_the_inputs():
    """Embedding(mask_zero=True) masks reach the layer, as in Keras: padded keys get no
    attention, and the output carries the query's mask."""
    ids = layers.Input(shape=(4,), dtype="int64")
    emb = layers.Embedding(10, 3, mask_zero=True)(ids)
    out, scores = layers.Attention()([emb, emb], return_attention_scores=True)
    assert out._keras_mask is emb._keras_mask
    got = pd.eval(scores, {ids: np.array([[1, 2, 0, 0]])})
    np.testing.assert_allclose(got[0, :, 2:], 0, atol=1e-7)
    np.testing.assert_allclose(got.sum(-1), 1, rtol=1e-6)


@pytest.mark.parametrize("cls, kwargs, trainable", [
    (layers.Attention, {}, 0),
    (layers.Attention, {"use_scale": True, "score_mode": "concat", "dropout": 0.2,
                        "seed": 1}, 2),
    (layers.AdditiveAttention, {}, 1),
    (layers.AdditiveAttention, {"use_scale": False, "dropout": 0.1}, 0),
])
def test_layer(cls, kwargs, trainable):
    run_layer_test(cls, kwargs, [(2, 3, 4), (2, 5, 4)], (None, 3, 4), trainable)


def test_dropout_only_in_training_and_round_trip(tmp_path):
    q, v = layers.Input(shape=(3, 4)), layers.Input(shape=(5, 4))
    layer = layers.Attention(dropout=0.5, seed=3)
    model = pd.Model([q, v], layers.Dense(2)(layers.AdditiveAttention()([layer([q, v]), v])))
    y = model.predict([Q, V], verbose=0)
    np.testing.assert_array_equal(y, model.predict([Q, V], verbose=0))  # no dropout
    train = pd.eval(layer([q, v]), {q: Q, v: V}, training=True)
    assert not np.allclose(train, layers.Attention()([Q, V]))
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(
        [Q, V], verbose=0), y)


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.Attention(score_mode="general"), ValueError,
     "Attention: expected score_mode 'dot' or 'concat', received 'general'"),
    (lambda: layers.Attention(dropout=1.0), ValueError,
     r"Attention: expected a dropout rate in \[0, 1\), received 1.0"),
    (lambda: layers.AdditiveAttention(use_scale="yes"), ValueError,
     "AdditiveAttention: expected use_scale to be True or False"),
    (lambda: layers.Attention()(layers.Input(shape=(3, 4))), ValueError,
     r"expected the inputs as a list \[query, value\]"),
    (lambda: layers.Attention()([layers.Input(shape=(3, 4)), layers.Input(shape=(5, 2)),
                                 layers.Input(shape=(5, 3))]), pd.ShapeError,
     "the query and the key to have the same features"),
    (lambda: layers.Attention()([layers.Input(shape=(None, 4)), layers.Input(shape=(5, 4))],
                                use_causal_mask=True), pd.ShapeError,
     "use_causal_mask needs known query and key lengths"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()
