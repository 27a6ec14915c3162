"""Metrics for `compile`: stateful classes and per-example functions, found by name.

A metric is a graph part computed with each batch and a running state kept in Python:
`batch_values(y_true, y_pred, sample_weight)` builds, from low-level ops, the few scalar
Variables a batch contributes; the training loop compiles them into the same plan as the
loss and hands the floats it gets back to `accumulate`; `result()` is the value for the
epoch so far. Outside the loop, `update_state` does both steps on NumPy arrays.

The package: `base.py` (`Metric`, `Mean`, `MeanMetricWrapper`, the traced-step support),
the families `accuracy.py`, `regression.py`, `from_losses.py` (means of loss functions),
`confusion.py` (precision, recall, F-scores, AUC), `thresholds.py` and `iou.py`, and here
what finds a metric by name or config (`get`, `serialize`, `deserialize`,
`accuracy_for_loss`). Keras's metrics namespace holds the loss functions too: they are
re-exported here.

Example:
    >>> import numpy as np
    >>> from paddle.highlevel import metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state(np.array([0, 1]), np.array([[0.9, 0.1], [0.8, 0.2]], np.float32))
    >>> m.result()
    0.5
"""
from paddle.highlevel import losses
from paddle.highlevel.losses import (  # noqa: F401  (Keras's metrics namespace has them)
    binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
    categorical_focal_crossentropy, categorical_hinge, hinge, huber, kl_divergence, log_cosh,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error, poisson, sparse_categorical_crossentropy, squared_hinge)
from paddle.highlevel.losses.base import _snake
from paddle.highlevel.saving.registry import register_family as _register_family
from paddle.highlevel.metrics.accuracy import (  # noqa: F401
    Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy, TopKCategoricalAccuracy, accuracy, binary_accuracy,
    categorical_accuracy, sparse_categorical_accuracy, sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy)
from paddle.highlevel.metrics.base import (  # noqa: F401
    Mean, MeanMetricWrapper, Metric, StepTrace, batch_value, result_value)
from paddle.highlevel.metrics.confusion import AUC, F1Score, FBetaScore, Precision, Recall
from paddle.highlevel.metrics.from_losses import (
    BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge, Hinge, KLDivergence,
    Poisson, SparseCategoricalCrossentropy, SquaredHinge)
from paddle.highlevel.metrics.iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from paddle.highlevel.metrics.regression import (  # noqa: F401
    ConcordanceCorrelation, CosineSimilarity, LogCoshError, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredError, MeanSquaredLogarithmicError,
    PearsonCorrelation, R2Score, RootMeanSquaredError, Sum, concordance_correlation,
    cosine_similarity, pearson_correlation)
from paddle.highlevel.metrics.thresholds import (
    FalseNegatives, FalsePositives, PrecisionAtRecall, RecallAtPrecision,
    SensitivityAtSpecificity, SpecificityAtSensitivity, TrueNegatives, TruePositives)


# ---- lookup -----------------------------------------------------------------------------

_LOSS_AND_REGRESSION = (BinaryCrossentropy, CategoricalCrossentropy,
                        SparseCategoricalCrossentropy, Hinge, SquaredHinge, CategoricalHinge,
                        RootMeanSquaredError, Sum, R2Score, PearsonCorrelation,
                        ConcordanceCorrelation)
_COUNTS_AND_IOU = (TruePositives, FalsePositives, TrueNegatives, FalseNegatives,
                   PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity,
                   SpecificityAtSensitivity, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU)
_NAMES = {
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError, "mean_absolute_error": MeanAbsoluteError,
    "binary_accuracy": BinaryAccuracy, "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "mape": MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "kld": KLDivergence, "kl_divergence": KLDivergence, "poisson": Poisson,
    "logcosh": LogCoshError, "cosine_similarity": CosineSimilarity,
    "auc": AUC, "precision": Precision, "recall": Recall, "f1_score": F1Score,
}
_NAMES.update({_snake(c.__name__): c for c in _LOSS_AND_REGRESSION
               if c not in (Sum, R2Score)})
_NAMES.update({"bce": BinaryCrossentropy, "r2_score": R2Score})
# Keras's names for the four counts (the others need arguments: no name builds them)
_NAMES.update({_snake(c.__name__): c for c in _COUNTS_AND_IOU[:4]})
_CLASSES = {c.__name__: c for c in (Mean, MeanSquaredError, MeanAbsoluteError, Accuracy,
                                     BinaryAccuracy, CategoricalAccuracy,
                                     SparseCategoricalAccuracy, TopKCategoricalAccuracy,
                                     SparseTopKCategoricalAccuracy, MeanAbsolutePercentageError,
                                     MeanSquaredLogarithmicError, KLDivergence, Poisson,
                                     LogCoshError, CosineSimilarity, AUC, F1Score, FBetaScore,
                                     Precision, Recall) + _LOSS_AND_REGRESSION + _COUNTS_AND_IOU}
_ACCURACY_FOR_LOSS = {
    losses.SparseCategoricalCrossentropy: SparseCategoricalAccuracy,
    losses.CategoricalCrossentropy: CategoricalAccuracy,
    losses.BinaryCrossentropy: BinaryAccuracy,
}


def accuracy_for_loss(loss):
    """The accuracy class that fits a loss (as Keras picks it): integer labels for the sparse
    categorical loss and by default, argmax of one-hot targets for the categorical one,
    a 0.5 threshold for the binary one."""
    if isinstance(loss, str):
        try:
            loss = losses.get(loss)
        except ValueError:
            loss = None
    elif loss is not None and not isinstance(loss, losses.Loss) and callable(loss):
        loss = losses.get(loss)
    for loss_cls, metric_cls in _ACCURACY_FOR_LOSS.items():
        if isinstance(loss, loss_cls):
            return metric_cls
    return SparseCategoricalAccuracy


def get(identifier, loss=None):
    """A Metric from a name, a Metric, a Metric class, a config dict or a callable.

    Args:
        identifier: "accuracy" / "acc" (the kind is chosen from `loss`, see
            `accuracy_for_loss`), "mae", "mse", "top_k_categorical_accuracy",
            "sparse_top_k_categorical_accuracy" and the other snake-case Keras names; a
            Metric object (returned as is); a Metric class; `{"class_name", "config"}`;
            or a callable `(y_true, y_pred) -> Variable` (its mean, named after it).
        loss: the loss the metric goes with (a name, a Loss object or a function).
    Returns:
        A Metric whose `name` is its key in logs: the name as given for names
        (`"acc"` logs as "acc", `"mae"` as "mae").
    Raises:
        ValueError: an unknown name; the message lists the valid ones.
        TypeError: something that is none of the above.

    Example:
        >>> from paddle.highlevel import metrics
        >>> m = metrics.get("accuracy", loss="categorical_crossentropy")
        >>> type(m).__name__, m.name
        ('CategoricalAccuracy', 'accuracy')
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc"):
            return accuracy_for_loss(loss)(name=identifier)
        cls = _NAMES.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            valid = ", ".join(["accuracy", "acc"] + sorted(_NAMES))
            raise ValueError(f"Unknown metric {identifier!r}; expected one of {valid}, a "
                             "Metric object or a callable (y_true, y_pred) -> Variable")
        return cls(name=identifier) if identifier in _NAMES else cls()
    if isinstance(identifier, dict) and "class_name" in identifier:
        cls = _CLASSES.get(identifier["class_name"])
        if cls is None:
            raise ValueError(f"Unknown metric class {identifier['class_name']!r}; expected one "
                             f"of {', '.join(sorted(_CLASSES))}")
        return cls.from_config(identifier.get("config", {}))
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise TypeError(f"Could not interpret metric {identifier!r}: expected a name, a Metric "
                    "object or a callable (y_true, y_pred) -> Variable")


def serialize(metric):
    """A JSON-able description `get` turns back into the metric (for checkpoints): the name
    for metrics made from names, `{"class_name", "config"}` for other built-ins."""
    if isinstance(metric, str):
        return metric
    cls = type(metric)
    if cls.__name__ in _CLASSES and _CLASSES[cls.__name__] is cls:
        return {"class_name": cls.__name__, "config": metric.get_config()}
    return metric.name


def deserialize(config, custom_objects=None):
    """The metric `serialize` (or Keras 3) described: a name or `{"class_name", "config"}`;
    names and classes in `custom_objects` come first.

    Args:
        config: a metric name, or a dict with "class_name" and "config" (Keras's "module"
            and "registered_name" keys are ignored).
        custom_objects: {name: Metric class or function} of the user's own metrics.
    Returns:
        A Metric.
    Raises:
        ValueError: an unknown name or class.
        TypeError: neither a name nor such a dict.

    Example:
        >>> import paddle as pd
        >>> m = pd.metrics.deserialize(pd.metrics.serialize(pd.metrics.MeanIoU(num_classes=3)))
        >>> type(m).__name__, m.num_classes
        ('MeanIoU', 3)
    """
    custom = custom_objects or {}
    if isinstance(config, str) and config in custom:
        return get(custom[config])
    if isinstance(config, dict) and config.get("class_name") in custom:
        cls = custom[config["class_name"]]
        if isinstance(cls, type):
            return cls.from_config(config.get("config", {}))
        return get(cls)
    if not isinstance(config, (str, dict)):
        raise TypeError(f"metrics.deserialize: expected a name or a {{'class_name', 'config'}} "
                        f"dict, received {config!r}")
    if isinstance(config, dict) and "class_name" not in config:
        raise ValueError(f"metrics.deserialize: expected a 'class_name' key, received the keys "
                         f"{sorted(config)}")
    return get(config)


# The serialization code finds this family's classes by name here (it imports no family).
_register_family("keras.metrics", globals())
