"""MultiHeadAttention: one-call layer tests, a NumPy reference (Keras's formulas), masks,
functional replay, and errors."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from gradcheck import check_gradients
from layer_test import run_layer_test

RNG = np.random.default_rng(7)


def mha_ref(layer, q, v, k=None, mask=None):
    """Keras's computation written with einsum, in float64."""
    k = v if k is None else k
    w = [x.astype(np.float64) for x in layer.get_weights()]
    wq, bq, wk, bk, wv, bv, wo, bo = w
    query = np.einsum("abc,cde->abde", q, wq) + bq            # (N, T, H, kd)
    key = np.einsum("abc,cde->abde", k, wk) + bk
    value = np.einsum("abc,cde->abde", v, wv) + bv
    query = query / np.sqrt(layer.key_dim)
    scores = np.einsum("aecd,abcd->acbe", key, query)          # (N, H, T, S)
    if mask is not None:
        scores = scores + (1.0 - mask[:, None].astype(np.float64)) * -1e9
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    probs = scores / scores.sum(-1, keepdims=True)
    heads = np.einsum("acbe,aecd->abcd", probs, value)         # (N, T, H, vd)
    return np.einsum("abcd,cde->abe", heads, wo) + bo, probs


@pytest.mark.parametrize("kwargs, shapes, out", [
    ({"num_heads": 2, "key_dim": 4}, [(2, 5, 6), (2, 7, 6)], (None, 5, 6)),
    ({"num_heads": 3, "key_dim": 2, "value_dim": 5, "output_shape": 8},
     [(2, 5, 6), (2, 7, 3)], (None, 5, 8)),
    ({"num_heads": 2, "key_dim": 4}, [(2, 5, 6), (2, 7, 3), (2, 7, 4)], (None, 5, 6)),
])
def test_layer(kwargs, shapes, out):
    layer = run_layer_test(layers.MultiHeadAttention, kwargs, shapes, out, 8)
    h, kd = kwargs["num_heads"], kwargs["key_dim"]
    vd = kwargs.get("value_dim", kd)
    assert [w.shape for w in layer.weights[::2]] == [
        (shapes[0][-1], h, kd), (shapes[-1][-1], h, kd), (shapes[1][-1], h, vd),
        (h, vd, kwargs.get("output_shape", shapes[0][-1]))]


def test_dropout_on_the_attention_probabilities():
    mha = run_layer_test(layers.MultiHeadAttention, {"num_heads": 2, "key_dim": 3,
                                                     "dropout": 0.5},
                         [(2, 4, 5), (2, 6, 5)], (None, 4, 5), 8)
    q, v = layers.Input(shape=(4, 5)), layers.Input(shape=(6, 5))
    out = mha(q, v)
    feeds = {q: RNG.normal(size=(2, 4, 5)).astype(np.float32),
             v: RNG.normal(size=(2, 6, 5)).astype(np.float32)}
    np.testing.assert_allclose(pd.eval(out, feeds), mha_ref(mha, feeds[q], feeds[v])[0],
                               rtol=1e-4, atol=1e-5)                    # inference: no drop
    assert not np.allclose(pd.eval(out, feeds, training=True), pd.eval(out, feeds))


def test_owns_a_dropout_layer_named_as_in_keras():
    # keras-io's text_classification_with_transformer: a Keras MultiHeadAttention makes a
    # Dropout layer (for its probabilities) when constructed, which takes a "dropout" name,
    # so the Dropout layers made after it are named as Keras names them.
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.25)
    inner = mha._dropout_layer
    assert isinstance(inner, layers.Dropout) and inner.rate == 0.25
    assert inner.name.startswith("dropout") and layers.Dropout(0.1).name != inner.name
    assert mha.get_config()["dropout"] == 0.25 and "_dropout_layer" not in mha.get_config()


def test_without_bias():
    run_layer_test(layers.MultiHeadAttention, {"num_heads": 2, "key_dim": 3, "use_bias": False},
                   [(2, 4, 5), (2, 4, 5)], (None, 4, 5), 4)


def test_matches_numpy():
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4,
                                    bias_initializer=pd.initializers.Normal(0.0, 0.5))
    q = RNG.normal(size=(2, 5, 6)).astype(np.float32)
    v = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    k = RNG.normal(size=(2, 4, 2)).astype(np.float32)
    out, scores = mha(q, v, key=k, return_attention_scores=True)
    ref_out, ref_scores = mha_ref(mha, q, v, k)
    np.testing.assert_allclose(out, ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scores, ref_scores, rtol=1e-4, atol=1e-6)


def test_masks():
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    x = RNG.normal(size=(2, 4, 6)).astype(np.float32)
    mask = RNG.integers(0, 2, size=(2, 4, 4)).astype(bool)
    mask[:, :, 0] = True                                      # every query sees something
    out, scores = mha(x, x, attention_mask=mask, return_attention_scores=True)
    scores = np.asarray(scores)  # a tensor (spec 1b); NumPy's boolean indexing below
    ref_out, ref_scores = mha_ref(mha, x, x, mask=mask)
    np.testing.assert_allclose(out, ref_out, rtol=1e-4, atol=1e-5)
    assert np.all(scores[np.broadcast_to(~mask[:, None], scores.shape)] == 0)
    _, causal = mha(x, x, use_causal_mask=True, return_attention_scores=True)
    assert np.all(np.triu(causal, k=1) == 0)
    np.testing.assert_allclose(causal.sum(-1), 1.0, rtol=1e-5)


def test_unknown_sequence_length_and_replay():
    """Lengths may be None; a functional model holding the layer replays on new inputs."""
    q, v = layers.Input(shape=(None, 6)), layers.Input(shape=(None, 6))
    mask = layers.Input(shape=(None, None))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    out = mha(q, v, attention_mask=mask)
    assert out.shape == (None, None, 6)
    model = pd.Model([q, v, mask], out)
    xq = RNG.normal(size=(2, 3, 6)).astype(np.float32)
    xv = RNG.normal(size=(2, 5, 6)).astype(np.float32)
    m = np.ones((2, 3, 5), np.float32)
    m[:, :, 3:] = 0
    expected = mha_ref(mha, xq, xv, mask=m)[0]
    np.testing.assert_allclose(model.predict_on_batch([xq, xv, m]), expected, rtol=1e-4,
                               atol=1e-5)
    q2, v2, m2 = layers.Input(shape=(3, 6)), layers.Input(shape=(5, 6)), layers.Input(shape=(3, 5))
    replayed = model([q2, v2, m2])
    np.testing.assert_allclose(pd.eval(replayed, {q2: xq, v2: xv, m2: m}), expected,
                               rtol=1e-4, atol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="MultiHeadAttention: expected a positive integer "
                                         "num_heads"):
        layers.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="dropout rate"):
        layers.MultiHeadAttention(num_heads=2, key_dim=2, dropout=1.5)
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=2, name="att")
    with pytest.raises(pd.ShapeError, match=r"att: expected the query of shape \(batch, "
                                            r"length, features\), received \(None, 6\)"):
        mha(layers.Input(shape=(6,)), layers.Input(shape=(3, 6)))
    with pytest.raises(pd.ShapeError, match="key and the value must have one length"):
        mha(layers.Input(shape=(4, 6)), layers.Input(shape=(3, 6)),
            key=layers.Input(shape=(5, 6)))
    with pytest.raises(pd.ShapeError, match=r"attention_mask of shape \(batch, 4, 3\)"):
        mha(layers.Input(shape=(4, 6)), layers.Input(shape=(3, 6)),
            attention_mask=layers.Input(shape=(3, 4)))
    mha(layers.Input(shape=(4, 6)), layers.Input(shape=(3, 6)))
    with pytest.raises(pd.ShapeError, match=r"expected the value of shape \(batch, length, 6\)"):
        mha(layers.Input(shape=(4, 6)), layers.Input(shape=(3, 7)))
    with pytest.raises(TypeError, match="received a query only"):
        mha(layers.Input(shape=(4, 6)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_known_and_unknown_lengths_agree_with_gradients(dtype):
    """Known lengths take the row form (one product of all rows per projection, heads split
    by reshape and transpose); None lengths the broadcast form (a head axis, a sum over
    heads). Same layer, same values: outputs and every gradient agree."""
    mha = layers.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=4, dtype=dtype,
                                    bias_initializer=pd.initializers.Normal(0.0, 0.5))
    xq = RNG.normal(size=(2, 5, 6)).astype(dtype)
    xv = RNG.normal(size=(2, 7, 3)).astype(dtype)
    w = RNG.normal(size=(2, 5, 6)).astype(dtype)
    results = []
    for lengths in ((5, 7), (None, None)):
        q = layers.Input(shape=(lengths[0], 6), dtype=dtype)
        v = layers.Input(shape=(lengths[1], 3), dtype=dtype)
        out = mha(q, v)
        loss = pd.sum(out * pd.constant(w, dtype=dtype))
        grads = pd.gradients(loss, [q, v] + list(mha.trainable_weights))
        results.append(pd.eval([out] + grads, {q: xq, v: xv}))
    tol = {"float32": (2e-5, 1e-5), "float64": (1e-12, 1e-12)}[dtype]
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=tol[0], atol=tol[1])
    np.testing.assert_allclose(results[0][0], mha_ref(mha, xq, xv)[0],
                               rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-5)


def test_row_form_gradients_numerically():
    """Central differences through the row form (known lengths), float64."""
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, dtype="float64",
                                    bias_initializer=pd.initializers.Normal(0.0, 0.5))
    mha.build([(None, 4, 5), (None, 6, 5), (None, 6, 5)])
    check_gradients(lambda q, v: mha(q, v), [RNG.normal(size=(2, 4, 5)),
                                            RNG.normal(size=(2, 6, 5))])
