"""Metrics from confusion counts: Precision, Recall, F1Score / FBetaScore, AUC (Keras 3).

Each batch contributes weighted counts (true / false positives and negatives, per
threshold or per class) built from low-level ops in the training step's plan; the counts
add up over the epoch in Python and `result()` computes the metric from them with NumPy,
with Keras 3's formulas (a prediction is positive when it is strictly above the threshold).

Example:
    >>> import numpy as np
    >>> from paddle.highlevel import metrics
    >>> m = metrics.Precision()
    >>> m.update_state(np.array([0, 1, 1, 1]), np.array([1.0, 1.0, 0.0, 0.0]))
    >>> m.result()
    0.5
"""
import numbers

import numpy as np

from paddle import lowlevel as ll
from paddle.highlevel import losses
from paddle.highlevel.metrics.base import Metric
from paddle.lowlevel.graph import FLOATS, as_variable
from paddle._settings import epsilon  # Keras's backend.epsilon(), read when built



def _divide_no_nan(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.divide(a, b, out=np.zeros(np.broadcast(a, b).shape), where=b != 0)


def _prepare(name, y_true, y_pred, sample_weight):
    """(targets as 0/1 floats, predictions, weights broadcast like them or None), ranks
    matched as Keras does ((N,) meets (N, 1))."""
    y_pred = as_variable(y_pred, where=name)
    y_true = as_variable(y_true, where=name)
    if y_pred.dtype not in FLOATS:
        y_pred = ll.cast(y_pred, "float32")
    y_true = ll.cast(ll.not_equal(y_true, 0), y_pred.dtype)
    y_true, y_pred = losses.match_rank(y_true, y_pred)
    if y_true.ndim != y_pred.ndim:
        raise ValueError(f"{name}: expected targets shaped like the predictions {y_pred.shape}, "
                         f"received {y_true.shape}")
    weight = None
    if sample_weight is not None:
        weight = ll.cast(as_variable(sample_weight, where=name), y_pred.dtype)
        while weight.ndim < y_pred.ndim:
            weight = ll.expand_dims(weight, -1)
    return y_true, y_pred, weight


def _weighted_sum(values, weight, axis=None):
    return ll.sum(values if weight is None else values * weight, axis=axis)


def _threshold(value, owner, name="thresholds"):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"{owner}: expected {name} in [0, 1], received {value!r}")
    return float(value)


def _optional_index(value, owner, name):
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{owner}: expected {name} as an integer >= 0 or None, received "
                         f"{value!r}")
    return int(value)


def _in_top_k(y_pred, k):
    """1.0 where fewer than k values of the row are strictly larger (ties count as in)."""
    greater = ll.greater(ll.expand_dims(y_pred, -2), ll.expand_dims(y_pred, -1))
    return ll.cast(ll.less(ll.sum(ll.cast(greater, y_pred.dtype), axis=-1), float(k)),
                   y_pred.dtype)


class _Counts(Metric):
    """Precision and Recall: true positives, false positives and false negatives at one
    threshold, optionally of one class (class_id) or among the k highest scores (top_k)."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None):
        owner = type(self).__name__
        self.top_k = _optional_index(top_k, owner, "top_k")
        if self.top_k == 0:
            raise ValueError(f"{owner}: expected top_k >= 1 or None, received 0")
        self.class_id = _optional_index(class_id, owner, "class_id")
        self.thresholds = None if thresholds is None else _threshold(thresholds, owner)
        super().__init__(name)

    def batch_values(self, y_true, y_pred, sample_weight=None):
        t, p, w = _prepare(self.name, y_true, y_pred, sample_weight)
        if self.top_k is not None:
            keep = _in_top_k(p, self.top_k)
        if self.class_id is not None:
            if p.shape[-1] is not None and self.class_id >= p.shape[-1]:
                raise ValueError(f"{self.name}: class_id {self.class_id} is outside the "
                                 f"{p.shape[-1]} classes of predictions {p.shape}")
            pick = (Ellipsis, slice(self.class_id, self.class_id + 1))
            t, p = t[pick], p[pick]
            if self.top_k is not None:
                keep = keep[pick]
        threshold = self.thresholds
        if threshold is None:
            threshold = None if self.top_k is not None else 0.5
        positive = ll.ones_like(p) if threshold is None else \
            ll.cast(ll.greater(p, threshold), p.dtype)
        if self.top_k is not None:
            positive = positive * keep
        return [_weighted_sum(t * positive, w), _weighted_sum((1.0 - t) * positive, w),
                _weighted_sum(t * (1.0 - positive), w)]

    def accumulate(self, values):
        self.tp += values[0]
        self.fp += values[1]
        self.fn += values[2]

    def reset_state(self):
        self.tp = self.fp = self.fn = 0.0

    def get_config(self):
        return {"name": self.name, "thresholds": self.thresholds, "top_k": self.top_k,
                "class_id": self.class_id}


class Precision(_Counts):
    """true positives / (true positives + false positives), over every element (Keras 3).

    Args:
        thresholds: a prediction above it is positive (0.5 by default).
        top_k: only the k highest scores of each row can be positive.
        class_id: count only this column (one class of a multi-label output).
        name: the key in logs ("precision").

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.Precision(top_k=1)
        >>> m.update_state(np.array([[0, 1], [0, 1]]), np.array([[0.2, 0.8], [0.7, 0.3]]))
        >>> m.result()
        0.5
    """

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision"):
        super().__init__(thresholds, top_k, class_id, name)

    def result(self):
        return float(_divide_no_nan(self.tp, self.tp + self.fp))


class Recall(_Counts):
    """true positives / (true positives + false negatives), over every element (Keras 3).

    Arguments as `Precision` (name "recall").

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.Recall()
        >>> m.update_state(np.array([0, 1, 1, 1]), np.array([1.0, 0.0, 1.0, 1.0]))
        >>> round(m.result(), 4)
        0.6667
    """

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall"):
        super().__init__(thresholds, top_k, class_id, name)

    def result(self):
        return float(_divide_no_nan(self.tp, self.tp + self.fn))


class FBetaScore(Metric):
    """F-beta score per class of (batch, classes) targets and scores (Keras 3).

    Args:
        average: None (one score per class, a NumPy array), "micro" (counts pooled over
            classes), "macro" (the mean of the per-class scores) or "weighted" (their mean
            weighted by each class's count of true labels).
        beta: weight of recall against precision (> 0).
        threshold: a score above it is positive; None: the highest score of each row is.
        name: the key in logs ("fbeta_score").

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.FBetaScore(beta=2.0, average="micro", threshold=0.5)
        >>> m.update_state(np.array([[1, 0], [1, 1]]), np.array([[0.9, 0.6], [0.2, 0.8]]))
        >>> round(m.result(), 4)
        0.6667
    """

    AVERAGES = (None, "micro", "macro", "weighted")

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score"):
        owner = type(self).__name__
        if average not in self.AVERAGES:
            raise ValueError(f"{owner}: expected average None, 'micro', 'macro' or 'weighted', "
                             f"received {average!r}")
        if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or not beta > 0:
            raise ValueError(f"{owner}: expected beta > 0, received {beta!r}")
        self.average, self.beta = average, float(beta)
        self.threshold = None if threshold is None else _threshold(threshold, owner, "threshold")
        super().__init__(name)

    def batch_values(self, y_true, y_pred, sample_weight=None):
        t, p, w = _prepare(self.name, y_true, y_pred, sample_weight)
        if p.ndim != 2:
            raise ValueError(f"{self.name}: expected (batch, classes) predictions, received "
                             f"shape {p.shape}")
        if self.threshold is None:
            positive = ll.cast(ll.greater_equal(p, ll.max(p, axis=-1, keepdims=True)), p.dtype)
        else:
            positive = ll.cast(ll.greater(p, self.threshold), p.dtype)
        axis = None if self.average == "micro" else 0
        return [_weighted_sum(positive * t, w, axis), _weighted_sum(positive * (1.0 - t), w, axis),
                _weighted_sum((1.0 - positive) * t, w, axis), _weighted_sum(t, w, axis)]

    def accumulate(self, values):
        self.tp = self.tp + values[0]
        self.fp = self.fp + values[1]
        self.fn = self.fn + values[2]
        self.support = self.support + values[3]

    def reset_state(self):
        self.tp = self.fp = self.fn = self.support = 0.0

    def result(self):
        tp, fp, fn = (np.asarray(v, np.float64) for v in (self.tp, self.fp, self.fn))
        precision = tp / (tp + fp + epsilon())
        recall = tp / (tp + fn + epsilon())
        b2 = self.beta ** 2
        score = (1 + b2) * precision * recall / (b2 * precision + recall + epsilon())
        if self.average == "weighted":
            support = np.asarray(self.support, np.float64)
            return float(np.sum(score * support / (np.sum(support) + epsilon())))
        if self.average is not None:
            return float(np.mean(score))
        return score

    def get_config(self):
        return {"name": self.name, "average": self.average, "beta": self.beta,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """F1 score (beta = 1) per class, or averaged (see `FBetaScore`).

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.F1Score(average="macro")
        >>> m.update_state(np.array([[1, 0], [0, 1], [0, 1]]),
        ...                np.array([[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]]))
        >>> round(m.result(), 4)
        0.6667
    """

    def __init__(self, average=None, threshold=None, name="f1_score"):
        super().__init__(average, 1.0, threshold, name)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config


class AUC(Metric):
    """Area under the ROC or precision-recall curve, from confusion counts at
    `num_thresholds` thresholds spread over [0, 1] (Keras 3).

    Args:
        num_thresholds: > 1 (200 by default).
        curve: "ROC" or "PR".
        summation_method: "interpolation" (trapezoids; for PR Davis & Goadrich's
            interpolation, as Keras), "minoring" or "majoring".
        thresholds: explicit thresholds in [0, 1] instead of the even spread.
        multi_label: one curve per label (the last axis), averaged (weighted by
            `label_weights` when given); else every element counts in one curve.
        num_labels: accepted for Keras compatibility (the labels are the last axis).
        label_weights: per-label weights of the average with multi_label.
        from_logits: apply a sigmoid to the predictions first.
        name: the key in logs ("auc").

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.AUC(num_thresholds=3)
        >>> m.update_state(np.array([0, 0, 1, 1]), np.array([0.0, 0.5, 0.3, 0.9]))
        >>> m.result()
        0.75
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name="auc", thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"AUC: expected curve 'ROC' or 'PR', received {curve!r}")
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f"AUC: expected summation_method 'interpolation', 'minoring' or "
                             f"'majoring', received {summation_method!r}")
        if thresholds is not None:
            values = sorted(_threshold(t, "AUC") for t in (
                thresholds if isinstance(thresholds, (list, tuple, np.ndarray)) else [thresholds]))
            self._thresholds = [-epsilon()] + values + [1.0 + epsilon()]
            num_thresholds = len(self._thresholds)
        else:
            if not isinstance(num_thresholds, numbers.Integral) or \
                    isinstance(num_thresholds, bool) or num_thresholds <= 1:
                raise ValueError(f"AUC: expected num_thresholds as an integer > 1, received "
                                 f"{num_thresholds!r}")
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._thresholds = [-epsilon()] + inner + [1.0 + epsilon()]
        self.num_thresholds = int(num_thresholds)
        self.thresholds = None if thresholds is None else self._thresholds[1:-1]
        self.curve, self.summation_method = curve, summation_method
        self.multi_label = bool(multi_label)
        self.num_labels = _optional_index(num_labels, "AUC", "num_labels")
        self.label_weights = None if label_weights is None else \
            [float(v) for v in label_weights]
        self.from_logits = bool(from_logits)
        super().__init__(name)

    def batch_values(self, y_true, y_pred, sample_weight=None):
        t, p, w = _prepare(self.name, y_true, y_pred, sample_weight)
        if self.from_logits:
            p = ll.sigmoid(p)
        if p.ndim == 1:
            t, p = ll.expand_dims(t, -1), ll.expand_dims(p, -1)
            w = None if w is None else ll.expand_dims(w, -1)
        thresholds = ll.constant(np.array(self._thresholds), dtype=p.dtype)
        above = ll.cast(ll.greater(ll.expand_dims(p, -1), thresholds), p.dtype)  # (..., T)
        te = ll.expand_dims(t, -1)
        we = None if w is None else ll.expand_dims(w, -1)
        # multi_label: sum over everything but the label and threshold axes -> (labels, T)
        axes = tuple(range(p.ndim - 1)) if self.multi_label else tuple(range(p.ndim))
        return [_weighted_sum(te * above, we, axes), _weighted_sum((1.0 - te) * above, we, axes),
                _weighted_sum((1.0 - te) * (1.0 - above), we, axes),
                _weighted_sum(te * (1.0 - above), we, axes)]

    def accumulate(self, values):
        self.tp = self.tp + values[0]
        self.fp = self.fp + values[1]
        self.tn = self.tn + values[2]
        self.fn = self.fn + values[3]

    def reset_state(self):
        self.tp = self.fp = self.tn = self.fn = 0.0

    def result(self):
        # counts are (T,) or, with multi_label, (labels, T): thresholds on the last axis
        tp, fp, tn, fn = (np.asarray(v, np.float64) for v in (self.tp, self.fp, self.tn,
                                                             self.fn))
        if tp.ndim == 0:
            return 0.0
        if self.curve == "PR" and self.summation_method == "interpolation":
            per_label = self._interpolate_pr(tp, fp, fn)
        else:
            recall = _divide_no_nan(tp, tp + fn)
            if self.curve == "ROC":
                x, y = _divide_no_nan(fp, fp + tn), recall
            else:
                x, y = recall, _divide_no_nan(tp, tp + fp)
            if self.summation_method == "interpolation":
                heights = (y[..., :-1] + y[..., 1:]) / 2.0
            elif self.summation_method == "minoring":
                heights = np.minimum(y[..., :-1], y[..., 1:])
            else:
                heights = np.maximum(y[..., :-1], y[..., 1:])
            per_label = np.sum((x[..., :-1] - x[..., 1:]) * heights, axis=-1)
        if not self.multi_label:
            return float(per_label)
        if self.label_weights is None:
            return float(np.mean(per_label))
        weights = np.asarray(self.label_weights, np.float64)
        return float(_divide_no_nan(np.sum(per_label * weights), np.sum(weights)))

    @staticmethod
    def _interpolate_pr(tp, fp, fn):
        """Davis & Goadrich's interpolated area under the precision-recall curve (Keras)."""
        dtp = tp[..., :-1] - tp[..., 1:]
        p = tp + fp
        dp = p[..., :-1] - p[..., 1:]
        slope = _divide_no_nan(dtp, np.maximum(dp, 0))
        intercept = tp[..., 1:] - slope * p[..., 1:]
        both = (p[..., :-1] > 0) & (p[..., 1:] > 0)
        ratio = np.where(both, _divide_no_nan(p[..., :-1], np.maximum(p[..., 1:], 0)), 1.0)
        increment = _divide_no_nan(slope * (dtp + intercept * np.log(ratio)),
                                   np.maximum(tp[..., 1:] + fn[..., 1:], 0))
        return np.sum(increment, axis=-1)

    def get_config(self):
        return {"name": self.name, "num_thresholds": self.num_thresholds, "curve": self.curve,
                "summation_method": self.summation_method, "thresholds": self.thresholds,
                "multi_label": self.multi_label, "num_labels": self.num_labels,
                "label_weights": self.label_weights, "from_logits": self.from_logits}
