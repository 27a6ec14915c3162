"""Metrics: update/result/reset against NumPy, the graph part on data inputs, lookup."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import losses, metrics

rng = np.random.default_rng(1)
SCORES = rng.random((8, 5)).astype(np.float32)
LABELS = rng.integers(0, 5, size=8)
ONE_HOT = np.eye(5, dtype=np.float32)[LABELS]
WEIGHTS = rng.random(8).astype(np.float32)


def _in_top_k(scores, labels, k):
    own = scores[np.arange(len(labels)), labels]
    return (scores > own[:, None]).sum(-1) < k


def _update_in_two_batches(metric, y_true, y_pred, sample_weight=None):
    for part in (slice(0, 5), slice(5, None)):
        sw = None if sample_weight is None else sample_weight[part]
        metric.update_state(y_true[part], y_pred[part], sample_weight=sw)
    return metric.result()


@pytest.mark.parametrize("metric, y_true, y_pred, per_example", [
    (metrics.SparseCategoricalAccuracy(), LABELS, SCORES, SCORES.argmax(-1) == LABELS),
    (metrics.SparseCategoricalAccuracy(), LABELS[:, None].astype(np.float32), SCORES,
     SCORES.argmax(-1) == LABELS),
    (metrics.CategoricalAccuracy(), ONE_HOT, SCORES, SCORES.argmax(-1) == LABELS),
    (metrics.TopKCategoricalAccuracy(k=2), ONE_HOT, SCORES, _in_top_k(SCORES, LABELS, 2)),
    (metrics.SparseTopKCategoricalAccuracy(k=3), LABELS, SCORES, _in_top_k(SCORES, LABELS, 3)),
    (metrics.BinaryAccuracy(threshold=0.4), (SCORES > 0.5).astype(np.float32), SCORES,
     ((SCORES > 0.4) == (SCORES > 0.5)).mean(-1)),
    (metrics.Accuracy(), LABELS, (LABELS + (np.arange(8) % 3 == 0)).astype(np.float32),
     np.arange(8) % 3 != 0),
    (metrics.MeanSquaredError(), ONE_HOT, SCORES, ((SCORES - ONE_HOT) ** 2).mean(-1)),
    (metrics.MeanAbsoluteError(), ONE_HOT, SCORES, np.abs(SCORES - ONE_HOT).mean(-1)),
], ids=["sparse_acc", "sparse_acc_float_column", "cat_acc", "top2", "sparse_top3", "binary",
        "exact", "mse", "mae"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_update_result_reset_match_numpy(metric, y_true, y_pred, per_example, weighted):
    sw = WEIGHTS if weighted else None
    expected = np.average(np.asarray(per_example, np.float64), weights=sw)
    metric.reset_state()
    assert _update_in_two_batches(metric, y_true, y_pred, sw) == pytest.approx(expected, 1e-5)
    assert isinstance(metric.result(), float)
    metric.reset_state()
    assert metric.result() == 0.0


def test_mean_of_scalars_arrays_and_weights():
    m = metrics.Mean(name="loss")
    m.update_state(2.0)
    m.update_state(np.array([4.0, 6.0]))
    assert m.result() == pytest.approx(4.0)
    m.reset_state()
    m.update_state(np.float32(1.0), sample_weight=3)      # a batch loss weighted by its size
    m.update_state(np.float32(5.0), sample_weight=1)
    assert m.result() == pytest.approx(2.0)
    m.reset_state()
    m.update_state(np.array([[1.0, 3.0], [5.0, 7.0]]), sample_weight=np.array([1.0, 0.0]))
    assert m.result() == pytest.approx(2.0)


def test_batch_values_on_data_inputs_then_accumulate():
    """The loop's path: batch_values built on pd.data Variables, evaluated, accumulated."""
    y = pd.data("labels", shape=[None], dtype="int64")
    z = pd.data("scores", shape=[None, 5])
    metric = metrics.SparseCategoricalAccuracy()
    values = metric.batch_values(y, z)
    assert all(v.shape == () and v.dtype == "float32" for v in values)
    for part in (slice(0, 3), slice(3, None)):
        metric.accumulate([float(v) for v in pd.eval(values, {y: LABELS[part], z: SCORES[part]})])
    assert metric.result() == pytest.approx(np.mean(SCORES.argmax(-1) == LABELS))


def test_eager_graphs_are_cached_per_signature():
    metric = metrics.MeanAbsoluteError()
    for n in (3, 5, 7):
        metric.update_state(np.zeros((n, 2), np.float32), np.ones((n, 2), np.float32))
    assert len(metric._graphs) == 1
    metric.update_state(np.zeros((2, 2)), np.ones((2, 2)))   # float64: a second signature
    assert len(metric._graphs) == 2
    assert metric.result() == pytest.approx(1.0)


def test_get_resolves_accuracy_from_the_loss():
    cases = [("sparse_categorical_crossentropy", metrics.SparseCategoricalAccuracy),
             (losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics.SparseCategoricalAccuracy),
             ("categorical_crossentropy", metrics.CategoricalAccuracy),
             (losses.categorical_crossentropy, metrics.CategoricalAccuracy),
             ("binary_crossentropy", metrics.BinaryAccuracy),
             (losses.BinaryCrossentropy(), metrics.BinaryAccuracy),
             (None, metrics.SparseCategoricalAccuracy),
             (lambda t, p: pd.mean(p), metrics.SparseCategoricalAccuracy)]
    for loss, cls in cases:
        metric = metrics.get("accuracy", loss=loss)
        assert type(metric) is cls and metric.name == "accuracy"
    assert metrics.get("acc", loss="binary_crossentropy").name == "acc"


def test_get_names_objects_and_callables():
    assert type(metrics.get("mae")) is metrics.MeanAbsoluteError
    assert metrics.get("mae").name == "mae"
    assert metrics.get("mse").name == "mse"
    assert type(metrics.get("top_k_categorical_accuracy")) is metrics.TopKCategoricalAccuracy
    top = metrics.get("sparse_top_k_categorical_accuracy")
    assert top.name == "sparse_top_k_categorical_accuracy"
    obj = metrics.BinaryAccuracy(threshold=0.3)
    assert metrics.get(obj) is obj
    assert type(metrics.get(metrics.CategoricalAccuracy)) is metrics.CategoricalAccuracy

    def max_error(y_true, y_pred):
        return pd.max(pd.abs(y_pred - y_true), axis=-1)

    wrapped = metrics.get(max_error)
    assert wrapped.name == "max_error"
    wrapped.update_state(np.zeros((2, 3), np.float32), np.array([[1, 2, 3], [0, 0, 1]], np.float32))
    assert wrapped.result() == pytest.approx(2.0)


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="top_k_categorical_accuracy"):
        metrics.get("f1_of_doom")
    with pytest.raises(TypeError):
        metrics.get(42)
    with pytest.raises(ValueError, match="k >= 1"):
        metrics.TopKCategoricalAccuracy(k=0)


def test_config_round_trip_and_serialize():
    metric = metrics.SparseTopKCategoricalAccuracy(k=3, name="top3")
    again = metrics.SparseTopKCategoricalAccuracy.from_config(metric.get_config())
    assert again.get_config() == {"name": "top3", "k": 3}
    spec = metrics.serialize(metrics.get("accuracy", loss="categorical_crossentropy"))
    back = metrics.get(spec)
    assert type(back) is metrics.CategoricalAccuracy and back.name == "accuracy"
