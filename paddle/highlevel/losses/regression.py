"""Regression losses of Keras 3: squared, absolute, percentage and logarithmic errors,
Huber, log-cosh and cosine similarity, as per-example functions (Keras' argument order:
y_true first) and `Loss` classes.

Each is a few calls to the low-level loss ops (`pd.mse`, `pd.mae`, `pd.huber`, ...), so it
is part of the graph the training loop compiles and its gradient comes from those ops.

Example:
    >>> import paddle as pd
    >>> from paddle.highlevel import losses
    >>> pd.eval(losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]])).tolist()
    [0.5]
"""
from paddle import lowlevel as ll
from paddle.highlevel.losses.base import Loss, _float_targets, _Simple
from paddle._settings import epsilon  # Keras's backend.epsilon(), read when built

def mean_squared_error(y_true, y_pred):
    """Mean of squared differences over the last axis, one value per example.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> pd.eval(losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]])).tolist()
        [0.5]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_squared_error", broadcast=True)
    return ll.mse(y_pred, y_true)


def mean_absolute_error(y_true, y_pred):
    """Mean of absolute differences over the last axis, one value per example."""
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_absolute_error", broadcast=True)
    return ll.mae(y_pred, y_true)


def huber(y_true, y_pred, delta=1.0):
    """Huber loss over the last axis: quadratic for errors within `delta`, linear beyond."""
    y_true, y_pred = _float_targets(y_true, y_pred, "huber", broadcast=True)
    return ll.huber(y_pred, y_true, delta=float(delta))


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|y_true - y_pred| / max(|y_true|, epsilon)) over the last axis (Keras).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> pd.eval(losses.mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 5.0]])).tolist()
        [37.5]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_absolute_percentage_error",
                                    broadcast=True)
    diff = ll.abs(y_true - y_pred) / ll.maximum(ll.abs(y_true), epsilon())
    return ll.mean(diff, axis=-1) * 100.0


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(1 + max(y_pred, eps)) - log(1 + max(y_true, eps))) ** 2) over the last axis.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> out = losses.mean_squared_logarithmic_error([[0.0]], [[1.0]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.4805]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_squared_logarithmic_error",
                                    broadcast=True)
    first = ll.log1p(ll.maximum(y_pred, epsilon()))
    second = ll.log1p(ll.maximum(y_true, epsilon()))
    return ll.mean(ll.square(first - second), axis=-1)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, computed without overflow as
    x + softplus(-2x) - log(2).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> [round(v, 4) for v in pd.eval(losses.log_cosh([[0.0]], [[1.0]])).tolist()]
        [0.4338]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "log_cosh", broadcast=True)
    x = y_pred - y_true
    return ll.mean(x + ll.softplus(x * -2.0) - 0.6931471805599453, axis=-1)


def l2_normalize(x, axis=-1):
    """x / sqrt(max(sum(x ** 2, axis), 1e-12)), as Keras's `l2_normalize`."""
    return x / ll.sqrt(ll.maximum(ll.sum(ll.square(x), axis=axis, keepdims=True), 1e-12))


def cosine_similarity(y_true, y_pred, axis=-1):
    """The loss form: minus the cosine similarity of the L2-normalized vectors along `axis`
    (-1 for the same direction, 1 for opposite ones), as Keras's loss.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> pd.eval(losses.cosine_similarity([[1.0, 0.0]], [[2.0, 0.0]])).tolist()
        [-1.0]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "cosine_similarity", broadcast=True)
    return -ll.sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


class MeanSquaredError(Loss):
    """Mean of squared errors (see `mean_squared_error`)."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error"):
        super().__init__(reduction, name)

    def call(self, y_true, y_pred):
        return mean_squared_error(y_true, y_pred)


class MeanAbsoluteError(Loss):
    """Mean of absolute errors (see `mean_absolute_error`)."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error"):
        super().__init__(reduction, name)

    def call(self, y_true, y_pred):
        return mean_absolute_error(y_true, y_pred)


class Huber(Loss):
    """Huber loss with threshold `delta` (see `huber`)."""

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss"):
        super().__init__(reduction, name)
        self.delta = float(delta)

    def call(self, y_true, y_pred):
        return huber(y_true, y_pred, self.delta)

    def get_config(self):
        return {**super().get_config(), "delta": self.delta}


class MeanAbsolutePercentageError(_Simple):
    """Mean absolute percentage error (see `mean_absolute_percentage_error`)."""

    fn = staticmethod(mean_absolute_percentage_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_percentage_error"):
        super().__init__(reduction, name)


class MeanSquaredLogarithmicError(_Simple):
    """Mean squared logarithmic error (see `mean_squared_logarithmic_error`)."""

    fn = staticmethod(mean_squared_logarithmic_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_logarithmic_error"):
        super().__init__(reduction, name)


class LogCosh(_Simple):
    """log(cosh(error)), averaged over the last axis (see `log_cosh`)."""

    fn = staticmethod(log_cosh)

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh"):
        super().__init__(reduction, name)


class CosineSimilarity(Loss):
    """Minus the cosine similarity along `axis` (see `cosine_similarity`).

    Args:
        axis: the axis of the vectors (-1).
    """

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity"):
        super().__init__(reduction, name)
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"CosineSimilarity: expected an integer axis, received {axis!r}")
        self.axis = axis

    def call(self, y_true, y_pred):
        return cosine_similarity(y_true, y_pred, self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}
