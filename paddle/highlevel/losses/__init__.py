"""Losses for `compile`: Keras-named classes and per-example functions, found by name.

Every loss is a few calls to the low-level loss ops (`pd.softmax_cross_entropy`,
`pd.sigmoid_cross_entropy`, `pd.mse`, ...), so it is part of the graph the training loop
compiles and its gradient comes from those ops. A function form gives one loss per example;
a `Loss` object applies sample weights and a reduction on top of it.

The package: `base.py` (`Loss` and the shared helpers), the families `regression.py`,
`probabilistic.py` and `classification.py`, and here what finds a loss by name or config
(`get`, `serialize`, `deserialize`) and wraps a plain function (`LossFunctionWrapper`).

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.highlevel import losses
    >>> loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> logits = pd.constant([[2.0, 0.0], [0.0, 2.0]])
    >>> round(float(pd.eval(loss(np.array([0, 1]), logits))), 4)
    0.1269
"""
from paddle.lowlevel.graph import Variable
from paddle.highlevel.saving.registry import register_family as _register_family
from paddle.highlevel.losses.base import (  # noqa: F401
    REDUCTIONS, Loss, match_rank, reduce_weighted)
from paddle.highlevel.losses.classification import (
    BinaryFocalCrossentropy, CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy,
    CategoricalHinge, Dice, Hinge, SquaredHinge, Tversky, binary_focal_crossentropy,
    categorical_focal_crossentropy, categorical_generalized_cross_entropy, categorical_hinge,
    dice, hinge, squared_hinge, tversky)
from paddle.highlevel.losses.probabilistic import (
    BinaryCrossentropy, CategoricalCrossentropy, KLDivergence, Poisson,
    SparseCategoricalCrossentropy, binary_crossentropy, categorical_crossentropy,
    kl_divergence, poisson, sparse_categorical_crossentropy)
from paddle.highlevel.losses.structured import CTC, Circle, circle, ctc
from paddle.highlevel.losses.regression import (  # noqa: F401
    CosineSimilarity, Huber, LogCosh, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredError, MeanSquaredLogarithmicError, cosine_similarity, huber, l2_normalize,
    log_cosh, mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error)


class LossFunctionWrapper(Loss):
    """A Loss made from any callable `(y_true, y_pred) -> Variable`.

    A scalar result is taken as the batch's loss already (sample weights then scale it by
    their mean); anything else is reduced like a built-in's per-example values.
    """

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, **kwargs):
        super().__init__(reduction, name or getattr(fn, "__name__", "loss"))
        self.fn = fn
        self.kwargs = kwargs
        self.integer_targets = fn is sparse_categorical_crossentropy

    def call(self, y_true, y_pred):
        out = self.fn(y_true, y_pred, **self.kwargs)
        if not isinstance(out, Variable):
            raise TypeError(f"loss {self.name!r}: expected the function to return a Variable, "
                            f"received {type(out).__name__}")
        return out

    def get_config(self):
        return {**super().get_config(), "fn": self.name, **self.kwargs}


# ---- lookup -----------------------------------------------------------------------------

_CLASSES = {c.__name__: c for c in (MeanSquaredError, MeanAbsoluteError, Huber,
                                     BinaryCrossentropy, CategoricalCrossentropy,
                                     SparseCategoricalCrossentropy, MeanAbsolutePercentageError,
                                     MeanSquaredLogarithmicError, KLDivergence, Poisson,
                                     LogCosh, CosineSimilarity, Hinge, SquaredHinge,
                                     CategoricalHinge, BinaryFocalCrossentropy,
                                     CategoricalFocalCrossentropy,
                                     CategoricalGeneralizedCrossEntropy, Dice, Tversky, CTC,
                                     Circle)}
_NAMES = {
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError, "mean_absolute_error": MeanAbsoluteError,
    "huber": Huber, "huber_loss": Huber,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "mape": MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "kld": KLDivergence, "kl_divergence": KLDivergence,
    "kullback_leibler_divergence": KLDivergence,
    "poisson": Poisson, "log_cosh": LogCosh, "logcosh": LogCosh,
    "cosine_similarity": CosineSimilarity,
    "hinge": Hinge, "squared_hinge": SquaredHinge, "categorical_hinge": CategoricalHinge,
    "binary_focal_crossentropy": BinaryFocalCrossentropy,
    "categorical_focal_crossentropy": CategoricalFocalCrossentropy,
    "categorical_generalized_cross_entropy": CategoricalGeneralizedCrossEntropy,
    "dice": Dice, "tversky": Tversky, "ctc": CTC, "circle": Circle,
}
_FUNCTIONS = {mean_squared_error: MeanSquaredError, mean_absolute_error: MeanAbsoluteError,
              huber: Huber, binary_crossentropy: BinaryCrossentropy,
              categorical_crossentropy: CategoricalCrossentropy,
              sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
              mean_absolute_percentage_error: MeanAbsolutePercentageError,
              mean_squared_logarithmic_error: MeanSquaredLogarithmicError,
              kl_divergence: KLDivergence, poisson: Poisson, log_cosh: LogCosh,
              cosine_similarity: CosineSimilarity, hinge: Hinge, squared_hinge: SquaredHinge,
              categorical_hinge: CategoricalHinge,
              binary_focal_crossentropy: BinaryFocalCrossentropy,
              categorical_focal_crossentropy: CategoricalFocalCrossentropy,
              categorical_generalized_cross_entropy: CategoricalGeneralizedCrossEntropy,
              dice: Dice, tversky: Tversky, ctc: CTC, circle: Circle}


def get(identifier):
    """A Loss object from a name, a Loss, a Loss class, a config dict or a callable.

    Args:
        identifier: "mse", "mae", "huber", "binary_crossentropy", "categorical_crossentropy",
            "sparse_categorical_crossentropy" (or a long Keras name, or a class name); a
            Loss object (returned as is); `{"class_name": ..., "config": {...}}`; any
            callable `(y_true, y_pred) -> Variable`; or None (returned as is).
    Returns:
        A Loss (its `__call__` gives a scalar Variable), or None.
    Raises:
        ValueError: an unknown name; the message lists the valid ones.
        TypeError: something that is none of the above.

    Example:
        >>> from paddle.highlevel import losses
        >>> losses.get("mse")
        MeanSquaredError(name='mean_squared_error', reduction='sum_over_batch_size')
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        cls = _NAMES.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            raise ValueError(f"Unknown loss {identifier!r}; expected one of "
                             f"{', '.join(sorted(_NAMES))}, a Loss object or a callable "
                             "(y_true, y_pred) -> Variable")
        return cls()
    if isinstance(identifier, dict) and "class_name" in identifier:
        return _from_dict(identifier)
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier):
        builtin = next((c for f, c in _FUNCTIONS.items() if f is identifier), None)
        return builtin() if builtin else LossFunctionWrapper(identifier)
    raise TypeError(f"Could not interpret loss {identifier!r}: expected a name, a Loss object "
                    "or a callable (y_true, y_pred) -> Variable")


def _from_dict(spec):
    cls = _CLASSES.get(spec["class_name"])
    if cls is None:
        raise ValueError(f"Unknown loss class {spec['class_name']!r}; expected one of "
                         f"{', '.join(sorted(_CLASSES))}")
    return cls.from_config(spec.get("config", {}))


def serialize(loss):
    """A JSON-able description of a loss that `get` turns back into it (for checkpoints):
    built-ins as `{"class_name", "config"}`, anything else as its name."""
    loss = get(loss)
    if loss is None:
        return None
    if type(loss).__name__ in _CLASSES and type(loss) is _CLASSES[type(loss).__name__]:
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return loss.name


def deserialize(name, custom_objects=None):
    """The loss `serialize` (or Keras 3) described: a name or `{"class_name", "config"}`;
    names and classes in `custom_objects` come first.

    Args:
        name: a loss name, or a dict with "class_name" and "config" (Keras's "module" and
            "registered_name" keys are ignored).
        custom_objects: {name: Loss class or function} of the user's own losses.
    Returns:
        A Loss object.
    Raises:
        ValueError: an unknown name or class.
        TypeError: neither a name nor such a dict.

    Example:
        >>> import paddle as pd
        >>> pd.losses.deserialize(pd.losses.serialize(pd.losses.Tversky(alpha=0.3))).alpha
        0.3
    """
    custom = custom_objects or {}
    if isinstance(name, str) and name in custom:
        return get(custom[name])
    if isinstance(name, dict) and name.get("class_name") in custom:
        cls = custom[name["class_name"]]
        if isinstance(cls, type):
            return cls.from_config(name.get("config", {}))
        return get(cls)
    if not isinstance(name, (str, dict)):
        raise TypeError(f"losses.deserialize: expected a name or a {{'class_name', 'config'}} "
                        f"dict, received {name!r}")
    if isinstance(name, dict) and "class_name" not in name:
        raise ValueError(f"losses.deserialize: expected a 'class_name' key, received the keys "
                         f"{sorted(name)}")
    return get(name)


# The serialization code finds this family's classes by name here (it imports no family).
_register_family("keras.losses", globals())
