"""Regression metrics of Keras 3: `RootMeanSquaredError`, `Sum`, `R2Score`, the
correlations `PearsonCorrelation` / `ConcordanceCorrelation` (with their functions
`pearson_correlation` and `concordance_correlation`), and the means of the regression
losses (`MeanSquaredError`, `MeanAbsoluteError`, ..., `CosineSimilarity`).

As the other built-in metrics, each batch contributes a few sums built from low-level ops
in the step's plan; they add up in Python over the epoch and `result()` combines them with
Keras 3's formulas.

Example:
    >>> import numpy as np, paddle as pd
    >>> m = pd.metrics.RootMeanSquaredError()
    >>> m.update_state(np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([[1.0, 1.0], [0.0, 0.0]]))
    >>> m.result()
    0.5
"""
import numbers
import warnings

import numpy as np

from paddle import lowlevel as ll
from paddle.highlevel import losses
from paddle.highlevel.metrics.base import MeanMetricWrapper, Metric
from paddle.lowlevel.graph import FLOATS, as_variable
from paddle._settings import epsilon  # Keras's backend.epsilon(), read when built

__all__ = ["RootMeanSquaredError", "Sum", "R2Score", "PearsonCorrelation",
           "ConcordanceCorrelation", "pearson_correlation", "concordance_correlation"]


def _pair(y_true, y_pred, where):
    """Float predictions and targets of their dtype, ranks matched as Keras does."""
    y_pred = as_variable(y_pred, where=where)
    if y_pred.dtype not in FLOATS:
        y_pred = ll.cast(y_pred, "float32")
    y_true = ll.cast(as_variable(y_true, where=where), y_pred.dtype)
    return losses.match_rank(y_true, y_pred)


def _check_axis(axis, owner):
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    if not items or any(isinstance(a, bool) or not isinstance(a, numbers.Integral)
                        for a in items):
        raise ValueError(f"{owner}: expected axis as an integer or a tuple of integers, "
                         f"received {axis!r}")
    return tuple(int(a) for a in axis) if isinstance(axis, (tuple, list)) else int(axis)


# ---- per-example functions --------------------------------------------------------------

def pearson_correlation(y_true, y_pred, axis=-1):
    """The Pearson correlation of targets and predictions along `axis` (Keras 3): both are
    centred and divided by their (population) standard deviation, then multiplied and
    averaged.

    Args:
        y_true: targets.
        y_pred: predictions, shaped like the targets.
        axis: the axis (or axes) the correlation runs along (-1).
    Returns:
        The correlations with `axis` averaged away (NaN where a row is constant, as Keras).

    Example:
        >>> import paddle as pd
        >>> out = pd.metrics.pearson_correlation([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]],
        ...                                      [[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [1.0, 0.9934]
    """
    axis = _check_axis(axis, "pearson_correlation")
    y_true, y_pred = _pair(y_true, y_pred, "pearson_correlation")
    t = y_true - ll.mean(y_true, axis=axis, keepdims=True)
    p = y_pred - ll.mean(y_pred, axis=axis, keepdims=True)
    t = t / ll.sqrt(ll.mean(ll.square(t), axis=axis, keepdims=True))
    p = p / ll.sqrt(ll.mean(ll.square(p), axis=axis, keepdims=True))
    return ll.mean(t * p, axis=axis)


def _variance(x, axis):
    return ll.mean(ll.square(x - ll.mean(x, axis=axis, keepdims=True)), axis=axis,
                   keepdims=True)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation of targets and predictions along `axis`, as Keras 3
    computes it: mean(2 * (y_true - mean(y_pred)) * (y_pred - mean(y_pred)) /
    (var(y_true) + var(y_pred) + (mean(y_true) - mean(y_pred)) ** 2 + eps)).

    (Keras 3 centres y_true on the predictions' mean in the covariance, not on its own;
    paddle keeps Keras's numbers.)

    Args:
        y_true: targets.
        y_pred: predictions, shaped like the targets.
        axis: the axis (or axes) it runs along (-1).
    Returns:
        The coefficients with `axis` averaged away.

    Example:
        >>> import paddle as pd
        >>> out = pd.metrics.concordance_correlation([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]],
        ...                                          [[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.9756, 0.9877]
    """
    axis = _check_axis(axis, "concordance_correlation")
    y_true, y_pred = _pair(y_true, y_pred, "concordance_correlation")
    true_mean = ll.mean(y_true, axis=axis, keepdims=True)
    pred_mean = ll.mean(y_pred, axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = _variance(y_true, axis) + _variance(y_pred, axis) + ll.square(true_mean - pred_mean)
    return ll.mean(2.0 * covariance / (norm + epsilon()), axis=axis)


def _squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, "root_mean_squared_error")
    return ll.square(y_pred - y_true)


# ---- metric classes ---------------------------------------------------------------------

class RootMeanSquaredError(MeanMetricWrapper):
    """sqrt of the mean squared error over everything seen (Keras 3: the mean runs over
    examples of each example's mean squared error, the root is taken at the end).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.RootMeanSquaredError()
        >>> m.update_state(np.array([[0.0], [2.0]]), np.array([[1.0], [2.0]]),
        ...                sample_weight=np.array([1.0, 0.0]))
        >>> m.result()
        1.0
    """

    def __init__(self, name="root_mean_squared_error"):
        super().__init__(_squared_error, name)

    def result(self):
        # From the state, not super().result(): inside a traced step that is a placeholder.
        return float(np.sqrt(self.total / self.count)) if self.count else 0.0

    def get_config(self):
        return {"name": self.name}


class Sum(Metric):
    """The (weighted) sum of the values it is given, over everything seen.

    Args:
        name: the key in logs ("sum").

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.Sum()
        >>> m.update_state(np.array([1.0, 3.0, 5.0, 7.0]))
        >>> m.update_state(np.array([[1.0, 2.0]]), sample_weight=np.array([10.0]))
        >>> m.result()
        46.0
    """

    def __init__(self, name="sum"):
        super().__init__(name)

    def batch_values(self, values, sample_weight=None):
        """[the weighted sum of the values] as a float32 scalar; (N,) weights multiply
        each example's sum over its inner axes (Keras's samplewise reduction)."""
        values = ll.cast(as_variable(values, where=self.name), "float32")
        if sample_weight is not None:
            weight = ll.cast(as_variable(sample_weight, where=self.name), "float32")
            if values.ndim > 0:
                weight, values = losses.match_rank(weight, values)
                if values.ndim > weight.ndim:
                    values = ll.sum(values, axis=tuple(range(weight.ndim, values.ndim)))
            values = values * weight
        return [ll.sum(values)]

    def update_state(self, values, sample_weight=None):
        """Add NumPy values (a number or an array), optionally weighted."""
        self.accumulate(self._evaluate(values, sample_weight))

    def accumulate(self, values):
        self.total += float(values[0])

    def result(self):
        return self.total

    def reset_state(self):
        self.total = 0.0


class R2Score(Metric):
    """The coefficient of determination of (batch, outputs) targets, per output and
    aggregated, over everything seen (Keras 3).

    Args:
        class_aggregation: "uniform_average" (the mean of the outputs' scores),
            "variance_weighted_average" (weighted by each output's variance) or None (one
            score per output, a NumPy array).
        num_regressors: > 0 gives the adjusted R2 for that many independent variables
            (Keras counts every element of the targets as a sample).
        name: the key in logs ("r2_score").
    Raises:
        ValueError: an unknown class_aggregation, or num_regressors < 0.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.R2Score()
        >>> m.update_state(np.array([[1.0], [4.0], [3.0]]), np.array([[2.0], [4.0], [4.0]]))
        >>> round(m.result(), 4)
        0.5714
    """

    AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score"):
        if class_aggregation not in self.AGGREGATIONS:
            raise ValueError(f"R2Score: expected class_aggregation None, 'uniform_average' or "
                             f"'variance_weighted_average', received {class_aggregation!r}")
        if isinstance(num_regressors, bool) or not isinstance(num_regressors, numbers.Integral) \
                or num_regressors < 0:
            raise ValueError(f"R2Score: expected num_regressors as an integer >= 0, received "
                             f"{num_regressors!r}")
        self.class_aggregation = class_aggregation
        self.num_regressors = int(num_regressors)
        self._outputs = None  # known from the first batch's predictions
        super().__init__(name)

    def batch_values(self, y_true, y_pred, sample_weight=None):
        t, p = _pair(y_true, y_pred, self.name)
        if t.ndim != 2 or p.ndim != 2 or p.shape[-1] is None:
            raise ValueError(f"{self.name}: expected 2D targets and predictions (batch, "
                             f"outputs) with a known number of outputs, received shapes "
                             f"{t.shape} and {p.shape}")
        self._outputs = p.shape[-1]
        w = ll.ones_like(t) if sample_weight is None else \
            ll.cast(as_variable(sample_weight, where=self.name), t.dtype)
        if w.ndim == 1:
            w = ll.expand_dims(w, 1)
        w = ll.broadcast_to(w, t) if w.shape != t.shape or None in t.shape else w
        weighted = t * w
        return [ll.sum(weighted, axis=0), ll.sum(t * weighted, axis=0),
                ll.sum(ll.square(t - p) * w, axis=0), ll.sum(w, axis=0),
                ll.sum(ll.ones_like(t))]

    def accumulate(self, values):
        for key, value in zip(("sum", "squared_sum", "residual", "count", "num_samples"),
                              values):
            setattr(self, key, getattr(self, key) + value)

    def reset_state(self):
        self.sum = self.squared_sum = self.residual = self.count = 0.0
        self.num_samples = 0.0

    def result(self):
        if np.ndim(self.count) == 0:  # nothing seen yet: zeros, shaped like a result
            return np.zeros(self._outputs or 0) if self.class_aggregation is None else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = self.sum / self.count
            total = self.squared_sum - self.sum * mean
            scores = 1.0 - self.residual / total
        scores = np.where(np.isinf(scores), 0.0, scores)
        if self.class_aggregation == "uniform_average":
            score = float(np.mean(scores))
        elif self.class_aggregation == "variance_weighted_average":
            score = float(np.sum(total * scores) / np.sum(total))
        else:
            score = scores
        if self.num_regressors:
            n, k = self.num_samples, self.num_regressors
            if k >= n - 1:
                warnings.warn("R2Score: as many independent variables as samples (or more): "
                              "the adjusted R2 is undefined, giving the plain R2",
                              stacklevel=2)
            else:
                score = 1.0 - (1.0 - score) * (n - 1.0) / (n - k - 1.0)
        return score

    def get_config(self):
        return {"name": self.name, "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


class PearsonCorrelation(MeanMetricWrapper):
    """The mean over examples of `pearson_correlation` along `axis`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.PearsonCorrelation()
        >>> m.update_state(np.array([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]]),
        ...                np.array([[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]]))
        >>> round(m.result(), 4)
        0.9967
    """

    def __init__(self, name="pearson_correlation", axis=-1):
        super().__init__(pearson_correlation, name,
                         axis=_check_axis(axis, "PearsonCorrelation"))


class ConcordanceCorrelation(MeanMetricWrapper):
    """The mean over examples of `concordance_correlation` along `axis`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.ConcordanceCorrelation()
        >>> m.update_state(np.array([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]]),
        ...                np.array([[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]]))
        >>> round(m.result(), 4)
        0.9816
    """

    def __init__(self, name="concordance_correlation", axis=-1):
        super().__init__(concordance_correlation, name,
                         axis=_check_axis(axis, "ConcordanceCorrelation"))


# ---- the means of the regression losses ---------------------------------------------

class MeanSquaredError(MeanMetricWrapper):
    """Mean over examples of the mean squared error of each."""

    def __init__(self, name="mean_squared_error"):
        super().__init__(losses.mean_squared_error, name)


class MeanAbsoluteError(MeanMetricWrapper):
    """Mean over examples of the mean absolute error of each."""

    def __init__(self, name="mean_absolute_error"):
        super().__init__(losses.mean_absolute_error, name)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """Mean over examples of the mean absolute percentage error of each."""

    def __init__(self, name="mean_absolute_percentage_error"):
        super().__init__(losses.mean_absolute_percentage_error, name)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """Mean over examples of the mean squared logarithmic error of each."""

    def __init__(self, name="mean_squared_logarithmic_error"):
        super().__init__(losses.mean_squared_logarithmic_error, name)


class LogCoshError(MeanMetricWrapper):
    """Mean over examples of log(cosh(error)) (Keras's name "logcosh")."""

    def __init__(self, name="logcosh"):
        super().__init__(losses.log_cosh, name)


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine similarity of the L2-normalized vectors along `axis` (1: same direction)."""
    return -losses.cosine_similarity(y_true, y_pred, axis)


class CosineSimilarity(MeanMetricWrapper):
    """Mean over examples of the cosine similarity of targets and predictions (positive,
    unlike the loss of the same name).

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.CosineSimilarity()
        >>> m.update_state(np.array([[0.0, 1.0], [1.0, 1.0]]),
        ...                np.array([[1.0, 0.0], [1.0, 1.0]]))
        >>> round(m.result(), 4)
        0.5
    """

    def __init__(self, name="cosine_similarity", axis=-1):
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"CosineSimilarity: expected an integer axis, received {axis!r}")
        super().__init__(cosine_similarity, name, axis=axis)
