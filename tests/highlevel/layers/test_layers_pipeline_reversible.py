"""ReversibleEmbedding and Pipeline: outputs against Keras 3.15.1 (JAX backend) for the same
weights (`set_sine_weights`; the constants are what it printed), configs, masks, training
mode and bad arguments. (.keras files both ways: tests/highlevel/saving.)"""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers as L
from gradcheck import check_gradients
from layer_test import check_figures, run_layer_test, set_sine_weights

IDS = np.array([[1, 2, 3, 0], [4, 4, 1, 2]])


@pytest.mark.parametrize("kwargs, first, total, squares", [
    ({}, [-0.03247, 0.2451, -0.21501, -0.02801, 0.24329, -0.21764], -0.0094, 3.4396),
    ({"tie_weights": False}, [0.10543, 0.23751, 0.25788, 0.15697, -0.01777, -0.18415],
     1.1113, 1.0991),
    ({"logit_soft_cap": 0.5}, [-0.03242, 0.22719, -0.20267, -0.02798, 0.22575, -0.20486],
     -0.4554, 2.5102),
])
def test_reverse_matches_keras(kwargs, first, total, squares):
    e = L.ReversibleEmbedding(6, 3, **kwargs)
    e(IDS)
    set_sine_weights(e, 0.7)
    logits = np.asarray(e(np.asarray(e(IDS)), reverse=True))
    check_figures(logits, (2, 4, 6), first, total, squares, squares_rel=1e-4)


def test_reversible_embedding_layer_and_config():
    run_layer_test(L.ReversibleEmbedding, {"input_dim": 5, "output_dim": 3}, (2, 4),
                   (None, 4, 3), 1, input_dtype="int64")
    e = L.ReversibleEmbedding(5, 3, tie_weights=False, reverse_dtype="float64",
                              logit_soft_cap=30.0, mask_zero=True)
    inp = L.Input(shape=(4,), dtype="int64")
    hidden = e(inp)
    logits = e(hidden, reverse=True)
    assert [w.name.split("/")[-1] for w in e.weights] == ["embeddings", "reverse_embeddings"]
    assert e.reverse_embeddings.shape == (3, 5) and logits.dtype == "float64"
    assert hidden._keras_mask is not None and getattr(logits, "_keras_mask", None) is None
    config = e.get_config()
    assert (config["tie_weights"], config["reverse_dtype"], config["logit_soft_cap"]) == \
        (False, "float64", 30.0)
    assert L.ReversibleEmbedding.from_config(config).get_config() == config


def test_reverse_gradient():
    e = L.ReversibleEmbedding(5, 3, logit_soft_cap=2.0, dtype="float64")
    e(IDS)
    check_gradients(lambda h: e(h, reverse=True), [np.random.default_rng(0).normal(size=(2, 3))])


@pytest.mark.parametrize("make, message", [
    (lambda: L.ReversibleEmbedding(5, 3, tie_weights="no"), "tie_weights"),
    (lambda: L.ReversibleEmbedding(5, 3, reverse_dtype="int8"), "reverse_dtype"),
    (lambda: L.ReversibleEmbedding(5, 3, logit_soft_cap=0), "logit_soft_cap"),
    (lambda: L.ReversibleEmbedding(5, 3)(np.ones((2, 4), np.float32), reverse=True),
     "last axis is output_dim=3"),
    (lambda: L.Pipeline(L.Dense(2)), "list of layers"),
    (lambda: L.Pipeline([L.Dense(2), "dense"]), "list of layers"),
])
def test_bad_arguments(make, message):
    with pytest.raises((ValueError, TypeError, pd.ShapeError), match=message):
        make()


def test_pipeline_matches_keras_and_round_trips():
    pipe = L.Pipeline([L.Rescaling(2.0, 1.0), L.Dense(2)], name="prep")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    pipe(x)
    set_sine_weights(pipe.layers[1], 0.3)
    np.testing.assert_allclose(np.asarray(pipe(x)), [[3.5978, 4.29827], [8.08784, 10.52729]],
                               atol=1e-4)
    config = pipe.get_config()
    assert sorted(config) == ["layers", "name"] and config["name"] == "prep"
    again = L.Pipeline.from_config(config)
    assert [type(l).__name__ for l in again.layers] == ["Rescaling", "Dense"]
    run_layer_test(L.Pipeline, {"layers": [L.Dense(3), L.Dense(2)]}, (2, 4), (None, 2), 4)


def test_pipeline_trains_a_direct_call_as_keras():
    flip = L.Pipeline([L.RandomFlip("horizontal", seed=1)])
    x = np.arange(16, dtype=np.float32).reshape(4, 2, 2, 1)
    pd.seed(0)
    changed = any(not np.array_equal(np.asarray(flip(x)), x) for _ in range(5))
    assert changed  # a direct call augments (training defaults to True, as Keras's)
    np.testing.assert_array_equal(np.asarray(flip(x, training=False)), x)
    inp = L.Input(shape=(2, 2, 1))
    model = pd.Model(inp, flip(inp))
    np.testing.assert_array_equal(model.predict(x, verbose=0), x)  # predict infers


def test_pipeline_passes_masks_on():
    pipe = L.Pipeline([L.Embedding(5, 3, mask_zero=True), L.LSTM(2, return_sequences=True)])
    out = pipe(L.Input(shape=(4,), dtype="int64"))
    assert out._keras_mask is not None
