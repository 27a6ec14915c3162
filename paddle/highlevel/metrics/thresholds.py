"""Metrics from confusion counts at a list of thresholds (Keras 3): the raw counts
`TruePositives`, `FalsePositives`, `TrueNegatives`, `FalseNegatives`, and the best value of
one rate where another one reaches a floor: `PrecisionAtRecall`, `RecallAtPrecision`,
`SensitivityAtSpecificity`, `SpecificityAtSensitivity`.

As in `confusion.py` (Precision, Recall, AUC), each batch contributes weighted counts
per threshold, built from low-level ops in the step's plan; they add up in Python and
`result()` reads them with Keras 3's formulas. A prediction is positive when it is
strictly above the threshold; every element of the targets counts (they are flattened).

Example:
    >>> import numpy as np, paddle as pd
    >>> m = pd.metrics.TruePositives(thresholds=[0.3, 0.7])
    >>> m.update_state(np.array([0, 1, 1, 1]), np.array([0.9, 0.5, 0.8, 0.2]))
    >>> m.result().tolist()
    [2.0, 1.0]
"""
import numbers

import numpy as np

from paddle import lowlevel as ll
from paddle.highlevel.metrics.base import Metric
from paddle.highlevel.metrics.confusion import _divide_no_nan, _optional_index, _prepare

__all__ = ["TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives",
           "PrecisionAtRecall", "RecallAtPrecision", "SensitivityAtSpecificity",
           "SpecificityAtSensitivity"]


def _thresholds(value, owner):
    """Keras's `parse_init_thresholds`: None is [0.5]; a number or a list, each in [0, 1]."""
    if value is None:
        return [0.5]
    items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
    if not items or any(not isinstance(t, numbers.Real) or isinstance(t, bool) or
                        not 0 <= t <= 1 for t in items):
        raise ValueError(f"{owner}: expected thresholds as a number in [0, 1] or a list of "
                         f"them, received {value!r}")
    return [float(t) for t in items]


def _evenly_spread(thresholds):
    """Keras's `is_evenly_distributed_thresholds`: 0, 1/(n-1), ..., 1 with n >= 3. Keras
    then counts with buckets of predictions clipped to [0, 1]."""
    n = len(thresholds)
    return n >= 3 and np.allclose(thresholds, np.arange(n, dtype=np.float32) / (n - 1),
                                  atol=1e-7)


def _counts(name, y_true, y_pred, sample_weight, thresholds, clip, class_id=None):
    """[tp, fp, tn, fn], each a (thresholds,) Variable of weighted counts."""
    t, p, w = _prepare(name, y_true, y_pred, sample_weight)
    if class_id is not None:
        if p.ndim < 2:
            raise ValueError(f"{name}: class_id needs (batch, classes) predictions, received "
                             f"shape {p.shape}")
        if p.shape[-1] is not None and class_id >= p.shape[-1]:
            raise ValueError(f"{name}: class_id {class_id} is outside the {p.shape[-1]} "
                             f"classes of predictions {p.shape}")
        pick = (Ellipsis, slice(class_id, class_id + 1))
        t, p = t[pick], p[pick]
        if w is not None and w.ndim == p.ndim and w.shape[-1] != 1:
            w = w[pick]
    if clip:
        p = ll.clip(p, 0.0, 1.0)
    cuts = ll.constant(np.array(thresholds), dtype=p.dtype)
    above = ll.cast(ll.greater(ll.expand_dims(p, -1), cuts), p.dtype)  # (..., T)
    te = ll.expand_dims(t, -1)
    we = None if w is None else ll.expand_dims(w, -1)
    axes = tuple(range(p.ndim))

    def total(values):
        return ll.sum(values if we is None else values * we, axis=axes)
    return [total(te * above), total((1.0 - te) * above), total((1.0 - te) * (1.0 - above)),
            total(te * (1.0 - above))]


class _ConditionCount(Metric):
    """One of the four confusion counts at each threshold."""

    which = None  # index in [tp, fp, tn, fn]

    def __init__(self, thresholds=None, name=None):
        self.init_thresholds = thresholds if not isinstance(thresholds, np.ndarray) else \
            thresholds.tolist()
        self.thresholds = _thresholds(thresholds, type(self).__name__)
        self._clip = _evenly_spread(self.thresholds)
        super().__init__(name)

    def batch_values(self, y_true, y_pred, sample_weight=None):
        return [_counts(self.name, y_true, y_pred, sample_weight, self.thresholds,
                        self._clip)[self.which]]

    def accumulate(self, values):
        self.accumulator = self.accumulator + values[0]

    def reset_state(self):
        self.accumulator = np.zeros(len(self.thresholds))

    def result(self):
        """The count: a float for one threshold, a NumPy array (one per threshold) else."""
        counts = np.asarray(self.accumulator, np.float64)
        return float(counts[0]) if len(self.thresholds) == 1 else counts

    def get_config(self):
        return {"name": self.name, "thresholds": self.init_thresholds}


class TruePositives(_ConditionCount):
    """The (weighted) count of positives predicted above each threshold.

    Args:
        thresholds: a number in [0, 1] or a list of them (0.5 by default); with several,
            the result is a NumPy array of one count per threshold.
        name: the key in logs ("true_positives").

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.TruePositives()
        >>> m.update_state(np.array([0, 1, 1, 1]), np.array([1.0, 0.0, 1.0, 1.0]))
        >>> m.result()
        2.0
    """

    which = 0


class FalsePositives(_ConditionCount):
    """The (weighted) count of negatives predicted above each threshold (arguments as
    `TruePositives`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.FalsePositives()
        >>> m.update_state(np.array([0, 1, 0, 0]), np.array([0.0, 0.0, 1.0, 1.0]),
        ...                sample_weight=np.array([0.0, 0.0, 1.0, 0.5]))
        >>> m.result()
        1.5
    """

    which = 1


class TrueNegatives(_ConditionCount):
    """The (weighted) count of negatives predicted at or below each threshold (arguments as
    `TruePositives`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.TrueNegatives()
        >>> m.update_state(np.array([0, 1, 0, 0]), np.array([1.0, 1.0, 0.0, 0.0]))
        >>> m.result()
        2.0
    """

    which = 2


class FalseNegatives(_ConditionCount):
    """The (weighted) count of positives predicted at or below each threshold (arguments as
    `TruePositives`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.FalseNegatives()
        >>> m.update_state(np.array([0, 1, 1, 1]), np.array([0.0, 1.0, 0.0, 0.0]))
        >>> m.result()
        2.0
    """

    which = 3


class _AtConstraint(Metric):
    """The largest `dependent` rate among thresholds where the `constrained` rate reaches
    `value` (Keras's SensitivitySpecificityBase), from counts at `num_thresholds`
    thresholds 0, 1/(n-1), ..., 1 (just 0.5 for n = 1)."""

    constraint = None  # the name of the constructor's first argument

    def __init__(self, value, num_thresholds=200, class_id=None, name=None):
        owner = type(self).__name__
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
                not 0 <= value <= 1:
            raise ValueError(f"{owner}: expected {self.constraint} in [0, 1], received "
                             f"{value!r}")
        if not isinstance(num_thresholds, numbers.Integral) or \
                isinstance(num_thresholds, bool) or num_thresholds <= 0:
            raise ValueError(f"{owner}: expected num_thresholds as an integer > 0, received "
                             f"{num_thresholds!r}")
        self.value = float(value)
        setattr(self, self.constraint, self.value)
        self.num_thresholds = int(num_thresholds)
        self.class_id = _optional_index(class_id, owner, "class_id")
        if self.num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            inner = [(i + 1) / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
            self.thresholds = [0.0] + inner + [1.0]
        super().__init__(name)

    def batch_values(self, y_true, y_pred, sample_weight=None):
        return _counts(self.name, y_true, y_pred, sample_weight, self.thresholds,
                       self.num_thresholds > 1, self.class_id)

    def accumulate(self, values):
        self.tp, self.fp, self.tn, self.fn = (a + b for a, b in zip(
            (self.tp, self.fp, self.tn, self.fn), values))

    def reset_state(self):
        self.tp, self.fp, self.tn, self.fn = (np.zeros(len(self.thresholds)) for _ in range(4))

    def _rates(self):
        tp, fp, tn, fn = (np.asarray(v, np.float64) for v in (self.tp, self.fp, self.tn,
                                                             self.fn))
        return {"sensitivity": _divide_no_nan(tp, tp + fn),
                "specificity": _divide_no_nan(tn, tn + fp),
                "precision": _divide_no_nan(tp, tp + fp)}

    def _best(self, constrained, dependent):
        """max of dependent where constrained >= value (0 where nowhere)."""
        rates = self._rates()
        feasible = rates[constrained] >= self.value
        return float(np.max(np.where(feasible, rates[dependent], 0.0), initial=0.0))

    def get_config(self):
        return {"name": self.name, self.constraint: self.value,
                "num_thresholds": self.num_thresholds, "class_id": self.class_id}


class SensitivityAtSpecificity(_AtConstraint):
    """The best sensitivity (recall) among thresholds whose specificity is at least
    `specificity`.

    Args:
        specificity: the floor, in [0, 1].
        num_thresholds: how many thresholds to try, evenly over [0, 1] (200).
        class_id: count only this column of (batch, classes) predictions.
        name: the key in logs ("sensitivity_at_specificity").

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.SensitivityAtSpecificity(0.5)
        >>> m.update_state(np.array([0, 0, 0, 1, 1]), np.array([0.0, 0.3, 0.8, 0.3, 0.8]))
        >>> m.result()
        0.5
    """

    constraint = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None):
        super().__init__(specificity, num_thresholds, class_id, name)

    def result(self):
        return self._best("specificity", "sensitivity")


class SpecificityAtSensitivity(_AtConstraint):
    """The best specificity among thresholds whose sensitivity (recall) is at least
    `sensitivity` (arguments as `SensitivityAtSpecificity`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.SpecificityAtSensitivity(0.5)
        >>> m.update_state(np.array([0, 0, 0, 1, 1]), np.array([0.0, 0.3, 0.8, 0.3, 0.8]))
        >>> round(m.result(), 4)
        0.6667
    """

    constraint = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None):
        super().__init__(sensitivity, num_thresholds, class_id, name)

    def result(self):
        return self._best("sensitivity", "specificity")


class PrecisionAtRecall(_AtConstraint):
    """The best precision among thresholds whose recall is at least `recall` (arguments
    as `SensitivityAtSpecificity`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.PrecisionAtRecall(0.5)
        >>> m.update_state(np.array([0, 0, 0, 1, 1]), np.array([0.0, 0.3, 0.8, 0.3, 0.8]))
        >>> m.result()
        0.5
    """

    constraint = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None):
        super().__init__(recall, num_thresholds, class_id, name)

    def result(self):
        return self._best("sensitivity", "precision")


class RecallAtPrecision(_AtConstraint):
    """The best recall among thresholds whose precision is at least `precision`
    (arguments as `SensitivityAtSpecificity`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.RecallAtPrecision(0.8)
        >>> m.update_state(np.array([0, 0, 1, 1]), np.array([0.0, 0.5, 0.3, 0.9]))
        >>> m.result()
        0.5
    """

    constraint = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None):
        super().__init__(precision, num_thresholds, class_id, name)

    def result(self):
        return self._best("precision", "sensitivity")
