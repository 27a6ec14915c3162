"""Accuracy metrics of Keras 3: per-example functions (1.0 for a hit, 0.0 for a miss) and the
`MeanMetricWrapper` classes over them (exact, binary, categorical, sparse categorical and
top-k accuracy).

Example:
    >>> import numpy as np
    >>> from paddle.highlevel import metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state(np.array([0, 1]), np.array([[0.9, 0.1], [0.8, 0.2]], np.float32))
    >>> m.result()
    0.5
"""
import numpy as np

from paddle import lowlevel as ll
from paddle.highlevel.losses.base import match_rank
from paddle.highlevel.metrics.base import MeanMetricWrapper


def accuracy(y_true, y_pred):
    """1.0 where y_pred equals y_true exactly."""
    y_true, y_pred = match_rank(y_true, ll.cast(y_pred, y_true.dtype))
    return ll.cast(ll.equal(y_true, y_pred), "float32")


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Share of the last axis where (y_pred > threshold) matches the 0/1 target."""
    y_true, y_pred = match_rank(ll.cast(y_true, "float32"), y_pred)
    predicted = ll.cast(ll.greater(y_pred, threshold), "float32")
    return ll.mean(ll.cast(ll.equal(y_true, predicted), "float32"), axis=-1)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the highest score's index is the integer label ((N,) or (N, 1))."""
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = ll.squeeze(y_true, -1)
    return ll.cast(ll.equal(y_true, ll.cast(ll.argmax(y_pred, -1), y_true.dtype)), "float32")


def categorical_accuracy(y_true, y_pred):
    """1.0 where the highest score's index is the one-hot target's."""
    return sparse_categorical_accuracy(ll.argmax(y_true, -1), y_pred)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the k highest scores (ties count as in)."""
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = ll.squeeze(y_true, -1)
    labels = y_true if y_true.dtype in ("int64", "int32") else ll.cast(y_true, "int64")
    classes = y_pred.shape[-1]
    if classes is None:
        raise ValueError(f"top-k accuracy: the class axis must have a known size, received "
                         f"predictions of shape {y_pred.shape}")
    # The label is in the top k when fewer than k classes score strictly higher. Per-example
    # values are needed for sample weights, so pd.accuracy (a batch mean) does not fit here.
    own = ll.sum(ll.one_hot(labels, classes, y_pred.dtype) * y_pred, axis=-1, keepdims=True)
    higher = ll.sum(ll.cast(ll.greater(y_pred, own), "float32"), axis=-1)
    return ll.cast(ll.less(higher, float(k)), "float32")


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target's class is among the k highest scores."""
    return sparse_top_k_categorical_accuracy(ll.argmax(y_true, -1), y_pred, k)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal targets exactly."""

    def __init__(self, name="accuracy"):
        super().__init__(accuracy, name)


class BinaryAccuracy(MeanMetricWrapper):
    """How often `y_pred > threshold` matches 0/1 targets.

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.BinaryAccuracy()
        >>> m.update_state(np.array([[1], [0]]), np.array([[0.7], [0.6]])); m.result()
        0.5
    """

    def __init__(self, name="binary_accuracy", threshold=0.5):
        super().__init__(binary_accuracy, name, threshold=float(threshold))


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the highest score matches a one-hot target."""

    def __init__(self, name="categorical_accuracy"):
        super().__init__(categorical_accuracy, name)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the highest score matches an integer label."""

    def __init__(self, name="sparse_categorical_accuracy"):
        super().__init__(sparse_categorical_accuracy, name)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often a one-hot target is among the k highest scores."""

    def __init__(self, k=5, name="top_k_categorical_accuracy"):
        super().__init__(top_k_categorical_accuracy, name, k=_check_k(k))


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often an integer label is among the k highest scores.

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.SparseTopKCategoricalAccuracy(k=2)
        >>> m.update_state(np.array([2, 0]), np.array([[0.1, 0.5, 0.4], [0.1, 0.5, 0.4]]))
        >>> m.result()
        0.5
    """

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy"):
        super().__init__(sparse_top_k_categorical_accuracy, name, k=_check_k(k))


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"top-k accuracy: expected an integer k >= 1, received {k!r}")
    return int(k)
