"""Losses against NumPy references: per-example values, sample weights, reductions, lookup."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import losses

EPS = 1e-7
rng = np.random.default_rng(0)


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _run(loss_var, feeds=None):
    return np.asarray(pd.eval(loss_var, feeds or {}), np.float64)


# ---- NumPy references (Keras' formulas) --------------------------------------------------

def ref_bce(t, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p), axis=-1)


def ref_cce(t, p):
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return -np.sum(t * np.log(p), axis=-1)


def ref_huber(t, p, delta):
    e = np.abs(p - t)
    return np.mean(np.where(e <= delta, 0.5 * e ** 2, delta * e - 0.5 * delta ** 2), axis=-1)


Y_REG = rng.normal(size=(6, 3)).astype(np.float32)
P_REG = rng.normal(size=(6, 3)).astype(np.float32)
LOGITS = rng.normal(size=(6, 4)).astype(np.float32)
LABELS = np.array([0, 3, 1, 2, 3, 0])
ONE_HOT = np.eye(4, dtype=np.float32)[LABELS]
BIN_T = rng.integers(0, 2, size=(6, 1)).astype(np.float32)
BIN_Z = rng.normal(size=(6, 1)).astype(np.float32)


@pytest.mark.parametrize("fn, y_true, y_pred, expected", [
    (losses.mean_squared_error, Y_REG, P_REG, np.mean((P_REG - Y_REG) ** 2, -1)),
    (losses.mean_absolute_error, Y_REG, P_REG, np.mean(np.abs(P_REG - Y_REG), -1)),
    (lambda t, p: losses.huber(t, p, delta=0.5), Y_REG, P_REG, ref_huber(Y_REG, P_REG, 0.5)),
    (losses.binary_crossentropy, BIN_T, 1 / (1 + np.exp(-BIN_Z)),
     ref_bce(BIN_T, 1 / (1 + np.exp(-BIN_Z)))),
    (lambda t, p: losses.binary_crossentropy(t, p, from_logits=True), BIN_T, BIN_Z,
     ref_bce(BIN_T, 1 / (1 + np.exp(-BIN_Z.astype(np.float64))))),
    (losses.categorical_crossentropy, ONE_HOT, _softmax(LOGITS), ref_cce(ONE_HOT, _softmax(LOGITS))),
    (lambda t, p: losses.categorical_crossentropy(t, p, from_logits=True), ONE_HOT, LOGITS,
     ref_cce(ONE_HOT, _softmax(LOGITS.astype(np.float64)))),
    (losses.sparse_categorical_crossentropy, LABELS, _softmax(LOGITS),
     ref_cce(ONE_HOT, _softmax(LOGITS))),
    (lambda t, p: losses.sparse_categorical_crossentropy(t, p, from_logits=True), LABELS, LOGITS,
     ref_cce(ONE_HOT, _softmax(LOGITS.astype(np.float64)))),
], ids=["mse", "mae", "huber", "bce", "bce_logits", "cce", "cce_logits", "scce", "scce_logits"])
def test_per_example_values_match_numpy(fn, y_true, y_pred, expected):
    out = _run(fn(y_true, y_pred.astype(np.float32)))
    assert out.shape == (6,)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_sparse_labels_as_floats_and_column_on_data_inputs():
    """The loop feeds labels through pd.data with an unknown batch size, maybe as floats."""
    y = pd.data("y", shape=[None, 1], dtype="float32")
    z = pd.data("z", shape=[None, 4])
    out = losses.SparseCategoricalCrossentropy(from_logits=True)(y, z)
    assert out.shape == ()
    got = _run(out, {y: LABELS[:, None].astype(np.float32), z: LOGITS})
    np.testing.assert_allclose(got, ref_cce(ONE_HOT, _softmax(LOGITS)).mean(), rtol=1e-5)


def test_sparse_from_probabilities_clips_like_keras():
    probs = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    out = _run(losses.sparse_categorical_crossentropy(np.array([1, 1]), probs))
    np.testing.assert_allclose(out, [-np.log(EPS), -np.log(1 - EPS)], rtol=1e-4, atol=1e-7)


def test_regression_targets_of_rank_one_meet_column_predictions():
    y = np.array([1.0, 2.0, 3.0], np.float32)
    p = np.array([[1.5], [2.0], [2.0]], np.float32)
    out = _run(losses.mean_squared_error(y, p))
    np.testing.assert_allclose(out, [0.25, 0.0, 1.0])


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
@pytest.mark.parametrize("weights", [None, np.array([1.0, 0.0, 2.0, 0.5, 1.0, 3.0])],
                         ids=["unweighted", "weighted"])
def test_reductions_and_sample_weights(reduction, weights):
    per = np.mean((P_REG - Y_REG) ** 2, -1)
    w = np.ones(6) if weights is None else weights
    expected = {"sum_over_batch_size": np.sum(per * w) / 6, "sum": np.sum(per * w),
                "none": per * w}[reduction]
    loss = losses.MeanSquaredError(reduction=reduction)
    out = _run(loss(Y_REG, P_REG, sample_weight=weights))
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_column_sample_weights_and_weights_as_data():
    w = pd.data("w", shape=[None, 1])
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, LOGITS, sample_weight=w)
    weights = np.arange(6, dtype=np.float32)[:, None]
    per = ref_cce(ONE_HOT, _softmax(LOGITS))
    np.testing.assert_allclose(_run(loss, {w: weights}), np.sum(per * weights[:, 0]) / 6,
                               rtol=1e-5)


def test_label_smoothing():
    out = _run(losses.CategoricalCrossentropy(label_smoothing=0.2)(ONE_HOT, _softmax(LOGITS)))
    smoothed = ONE_HOT * 0.8 + 0.2 / 4
    np.testing.assert_allclose(out, ref_cce(smoothed, _softmax(LOGITS)).mean(), rtol=1e-5)


def test_loss_is_differentiable_through_the_graph():
    z = pd.Variable("loss_test_logits", shape=[6, 4], initializer="zeros")
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, z)
    g, = pd.gradients(loss, [z])
    np.testing.assert_allclose(pd.eval(g), (np.full((6, 4), 0.25) - ONE_HOT) / 6, atol=1e-6)


def test_get_names_objects_and_callables():
    assert isinstance(losses.get("mse"), losses.MeanSquaredError)
    assert isinstance(losses.get("mean_absolute_error"), losses.MeanAbsoluteError)
    assert isinstance(losses.get("huber"), losses.Huber)
    assert isinstance(losses.get("sparse_categorical_crossentropy"),
                      losses.SparseCategoricalCrossentropy)
    assert isinstance(losses.get(losses.categorical_crossentropy), losses.CategoricalCrossentropy)
    assert isinstance(losses.get(losses.BinaryCrossentropy), losses.BinaryCrossentropy)
    obj = losses.Huber(delta=2.0)
    assert losses.get(obj) is obj
    assert losses.get(None) is None


def test_get_wraps_a_callable_and_reduces_it_to_a_scalar():
    def squared(y_true, y_pred):
        return pd.square(y_pred - y_true)

    loss = losses.get(squared)
    assert loss.name == "squared"
    out = loss(Y_REG, P_REG)
    assert out.shape == ()
    np.testing.assert_allclose(_run(out), np.mean((P_REG - Y_REG) ** 2), rtol=1e-5)
    scalar = losses.get(lambda t, p: pd.mean(pd.abs(p - t)))
    np.testing.assert_allclose(_run(scalar(Y_REG, P_REG)), np.mean(np.abs(P_REG - Y_REG)),
                               rtol=1e-5)


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match="sparse_categorical_crossentropy"):
        losses.get("cross_entropy_of_doom")
    with pytest.raises(TypeError):
        losses.get(3)
    with pytest.raises(ValueError, match="reduction"):
        losses.MeanSquaredError(reduction="mean_of_nothing")


def test_config_round_trip_and_serialize():
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum", name="xent")
    again = losses.SparseCategoricalCrossentropy.from_config(loss.get_config())
    assert again.get_config() == loss.get_config()
    spec = losses.serialize(losses.Huber(delta=0.3))
    assert losses.get(spec).get_config() == losses.Huber(delta=0.3).get_config()
    assert losses.serialize("mse")["class_name"] == "MeanSquaredError"
