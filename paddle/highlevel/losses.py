"""Losses for `compile`: Keras-named classes and per-example functions.

Every loss is a few calls to the low-level loss ops (`pd.softmax_cross_entropy`,
`pd.sigmoid_cross_entropy`, `pd.mse`, ...), so it is part of the graph the training loop
compiles and its gradient comes from those ops. A function form gives one loss per example;
a `Loss` object applies sample weights and a reduction on top of it.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.highlevel import losses
    >>> loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> logits = pd.constant([[2.0, 0.0], [0.0, 2.0]])
    >>> round(float(pd.eval(loss(np.array([0, 1]), logits))), 4)
    0.1269
"""
from paddle import lowlevel as ll
from paddle import errors
from paddle.highlevel.saving.registry import register_family as _register_family
from paddle.lowlevel.graph import FLOATS, Variable, as_variable
from paddle.lowlevel.ops.shape import match_shape

REDUCTIONS = ("sum_over_batch_size", "sum", "none")
EPSILON = 1e-7  # Keras' backend epsilon: how far probabilities are kept from 0 and 1


# ---- shared helpers ---------------------------------------------------------------------

def _inputs(y_true, y_pred, where, like_pred=True):
    """Both operands as Variables; arrays become constants (of y_pred's dtype for targets
    unless like_pred is False)."""
    y_pred = as_variable(y_pred, where=where)
    if y_pred.dtype not in FLOATS:
        raise TypeError(f"{where}: expected float predictions, received {y_pred.dtype}")
    return as_variable(y_true, like=y_pred if like_pred else None, where=where), y_pred


def _float_targets(y_true, y_pred, where):
    """Targets cast to the predictions' dtype, ranks matched as Keras does; then they must
    have the predictions' shape: (N, 3) targets for (N, 1) predictions would broadcast to
    a loss over every pair."""
    y_true, y_pred = _inputs(y_true, y_pred, where)
    y_true, y_pred = match_rank(ll.cast(y_true, y_pred.dtype), y_pred)
    if y_true.ndim != y_pred.ndim or any(a is not None and b is not None and a != b
                                         for a, b in zip(y_true.shape, y_pred.shape)):
        raise errors.ShapeError(errors.at_user(
            f"{where}: expected targets shaped like the predictions {y_pred.shape}, received "
            f"{y_true.shape}"))
    # and again with the fed sizes: one target row would broadcast against every prediction
    return match_shape(y_true, y_pred, where), y_pred


def match_rank(a, b):
    """a and b with ranks made equal where they differ by a trailing axis of size 1.

    As Keras' `squeeze_or_expand_to_same_rank`: a rank-1 operand gains the axis, otherwise
    the other one loses it, so `(N,)` targets meet `(N, 1)` predictions as `(N, 1)`.
    """
    if a.ndim == b.ndim + 1 and a.shape[-1] == 1:
        return (a, ll.expand_dims(b, -1)) if b.ndim == 1 else (ll.squeeze(a, -1), b)
    if b.ndim == a.ndim + 1 and b.shape[-1] == 1:
        return (ll.expand_dims(a, -1), b) if a.ndim == 1 else (a, ll.squeeze(b, -1))
    return a, b


def _check_reduction(reduction, where):
    reduction = "none" if reduction is None else reduction
    if reduction not in REDUCTIONS:
        raise ValueError(f"{where}: expected reduction to be one of {', '.join(REDUCTIONS)}, "
                         f"received {reduction!r}")
    return reduction


def reduce_weighted(values, sample_weight=None, reduction="sum_over_batch_size"):
    """Per-example `values` times `sample_weight`, reduced.

    "sum_over_batch_size" divides the weighted sum by the number of values (not by the sum of
    the weights: Keras 3's rule), "sum" sums, "none" keeps one value per example.
    """
    values = as_variable(values, where="loss")
    if sample_weight is not None:
        weight = as_variable(sample_weight, like=values, where="sample_weight")
        weight = ll.cast(weight, values.dtype)
        if values.ndim > 0:
            weight, values = match_rank(weight, values)
            # (N,) weights on (N, T) values (a sequence loss) weigh each example's row.
            while weight.ndim < values.ndim:
                weight = ll.expand_dims(weight, -1)
        values = values * weight
    if reduction == "sum_over_batch_size":
        return ll.mean(values)
    if reduction == "sum":
        return ll.sum(values)
    return values


def _smooth(y_true, label_smoothing, classes):
    """Targets pulled towards 1/classes, as Keras' `label_smoothing`."""
    if not label_smoothing:
        return y_true
    return y_true * (1.0 - label_smoothing) + label_smoothing / classes


# ---- per-example functions (Keras' argument order: y_true first) --------------------------

def mean_squared_error(y_true, y_pred):
    """Mean of squared differences over the last axis, one value per example.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> pd.eval(losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]])).tolist()
        [0.5]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_squared_error")
    return ll.mse(y_pred, y_true)


def mean_absolute_error(y_true, y_pred):
    """Mean of absolute differences over the last axis, one value per example."""
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_absolute_error")
    return ll.mae(y_pred, y_true)


def huber(y_true, y_pred, delta=1.0):
    """Huber loss over the last axis: quadratic for errors within `delta`, linear beyond."""
    y_true, y_pred = _float_targets(y_true, y_pred, "huber")
    return ll.huber(y_pred, y_true, delta=float(delta))


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0):
    """Binary cross-entropy averaged over the last axis, one value per example.

    Args:
        y_true: targets in [0, 1], shaped like y_pred ((N,) meets (N, 1)).
        y_pred: probabilities, or logits with from_logits=True.
        from_logits: y_pred are unnormalized scores (more stable).
        label_smoothing: pull targets towards 0.5 by this fraction.
    Returns:
        (N,) losses.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> [round(v, 4) for v in pd.eval(losses.binary_crossentropy([[1.0]], [[0.8]])).tolist()]
        [0.2231]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "binary_crossentropy")
    y_true = _smooth(y_true, label_smoothing, 2.0)
    if from_logits:
        return ll.mean(ll.sigmoid_cross_entropy(y_pred, y_true), axis=-1)
    p = ll.clip(y_pred, EPSILON, 1.0 - EPSILON)
    return -ll.mean(y_true * ll.log(p) + (1.0 - y_true) * ll.log(1.0 - p), axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0):
    """Cross-entropy of one-hot (or probability) targets over the last (class) axis.

    Args:
        y_true: (N, classes) one-hot or probability targets.
        y_pred: (N, classes) probabilities, or logits with from_logits=True.
        from_logits: y_pred are unnormalized scores.
        label_smoothing: pull targets towards 1/classes by this fraction.
    Returns:
        (N,) losses.
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "categorical_crossentropy")
    classes = y_pred.shape[-1]
    if label_smoothing and classes is None:
        raise ValueError("categorical_crossentropy: label_smoothing needs a known class count, "
                         f"received predictions of shape {y_pred.shape}")
    y_true = _smooth(y_true, label_smoothing, classes)
    if from_logits:
        log_p = ll.log_softmax(y_pred)
    else:
        # As Keras: rescale so each row sums to 1, then keep away from 0 before the log.
        p = y_pred / ll.sum(y_pred, axis=-1, keepdims=True)
        log_p = ll.log(ll.clip(p, EPSILON, 1.0 - EPSILON))
    return -ll.sum(y_true * log_p, axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    """Cross-entropy of integer class labels against class scores.

    Args:
        y_true: (N,) or (N, 1) class indices; float labels are cast to int64.
        y_pred: (N, classes) probabilities, or logits with from_logits=True.
        from_logits: y_pred are unnormalized scores.
    Returns:
        (N,) losses.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel import losses
        >>> out = losses.sparse_categorical_crossentropy(np.array([1]), [[0.5, 0.5]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.6931]
    """
    y_true, y_pred = _inputs(y_true, y_pred, "sparse_categorical_crossentropy", like_pred=False)
    labels = y_true if y_true.dtype in ("int64", "int32") else ll.cast(y_true, "int64")
    if from_logits:
        return ll.softmax_cross_entropy(y_pred, labels)
    # As Keras: rescale rows to sum to 1 and clip to [eps, 1 - eps]; cross_entropy's own
    # clip to [eps, 1] is then a no-op.
    p = ll.clip(y_pred / ll.sum(y_pred, axis=-1, keepdims=True), EPSILON, 1.0 - EPSILON)
    return ll.cross_entropy(p, labels, epsilon=EPSILON)


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|y_true - y_pred| / max(|y_true|, epsilon)) over the last axis (Keras).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> pd.eval(losses.mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 5.0]])).tolist()
        [37.5]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_absolute_percentage_error")
    diff = ll.abs(y_true - y_pred) / ll.maximum(ll.abs(y_true), EPSILON)
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
    y_true, y_pred = _float_targets(y_true, y_pred, "mean_squared_logarithmic_error")
    first = ll.log1p(ll.maximum(y_pred, EPSILON))
    second = ll.log1p(ll.maximum(y_true, EPSILON))
    return ll.mean(ll.square(first - second), axis=-1)


def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [eps, 1].

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> out = losses.kl_divergence([[0.5, 0.5]], [[0.9, 0.1]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.5108]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "kl_divergence")
    y_true = ll.clip(y_true, EPSILON, 1.0)
    y_pred = ll.clip(y_pred, EPSILON, 1.0)
    return ll.sum(y_true * ll.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + eps)) over the last axis.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> [round(v, 4) for v in pd.eval(losses.poisson([[2.0]], [[1.0]])).tolist()]
        [1.0]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "poisson")
    return ll.mean(y_pred - y_true * ll.log(y_pred + EPSILON), axis=-1)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, computed without overflow as
    x + softplus(-2x) - log(2).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> [round(v, 4) for v in pd.eval(losses.log_cosh([[0.0]], [[1.0]])).tolist()]
        [0.4338]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "log_cosh")
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
    y_true, y_pred = _float_targets(y_true, y_pred, "cosine_similarity")
    return -ll.sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


# ---- Loss objects -----------------------------------------------------------------------

class Loss:
    """Base of loss objects: per-example `call`, then sample weights and a reduction.

    Args:
        reduction: "sum_over_batch_size" (weighted sum / number of examples), "sum", or
            "none" (one value per example).
        name: name of the loss (the snake-case class name by default).
    Raises:
        ValueError: an unknown reduction.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> class Cube(losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return pd.mean((y_pred - y_true) ** 3.0, axis=-1)
        >>> float(pd.eval(Cube()([[0.0]], [[2.0]])))
        8.0
    """

    # Whether y_true holds class indices: float ones are then cast to int64, so the training
    # loop checks that they are whole numbers (0.5 would silently become class 0).
    integer_targets = False

    def __init__(self, reduction="sum_over_batch_size", name=None):
        self.reduction = _check_reduction(reduction, type(self).__name__)
        self.name = name or _snake(type(self).__name__)

    def call(self, y_true, y_pred):
        """Per-example losses (a Variable); subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__}.call(y_true, y_pred) is not "
                                  "implemented")

    def __call__(self, y_true, y_pred, sample_weight=None):
        """The reduced loss: a scalar Variable (or per-example values with reduction "none")."""
        # Arrays become constants here so that `call` always sees Variables.
        y_pred = as_variable(y_pred, where=self.name)
        y_true = as_variable(y_true, where=self.name)
        return reduce_weighted(self.call(y_true, y_pred), sample_weight, self.reduction)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() and i else c.lower()
                   for i, c in enumerate(name))


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


class BinaryCrossentropy(Loss):
    """Binary cross-entropy of targets in [0, 1] (see `binary_crossentropy`).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> bce = losses.BinaryCrossentropy(from_logits=True)
        >>> round(float(pd.eval(bce([[1.0], [0.0]], [[0.0], [0.0]]))), 4)
        0.6931
    """

    def __init__(self, from_logits=False, label_smoothing=0.0,
                 reduction="sum_over_batch_size", name="binary_crossentropy"):
        super().__init__(reduction, name)
        self.from_logits = bool(from_logits)
        self.label_smoothing = float(label_smoothing)

    def call(self, y_true, y_pred):
        return binary_crossentropy(y_true, y_pred, self.from_logits, self.label_smoothing)

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing}


class CategoricalCrossentropy(Loss):
    """Cross-entropy of one-hot targets (see `categorical_crossentropy`)."""

    def __init__(self, from_logits=False, label_smoothing=0.0,
                 reduction="sum_over_batch_size", name="categorical_crossentropy"):
        super().__init__(reduction, name)
        self.from_logits = bool(from_logits)
        self.label_smoothing = float(label_smoothing)

    def call(self, y_true, y_pred):
        return categorical_crossentropy(y_true, y_pred, self.from_logits, self.label_smoothing)

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing}


class SparseCategoricalCrossentropy(Loss):
    """Cross-entropy of integer labels (see `sparse_categorical_crossentropy`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel import losses
        >>> scce = losses.SparseCategoricalCrossentropy()
        >>> round(float(pd.eval(scce(np.array([0]), [[0.5, 0.5]]))), 4)
        0.6931
    """

    integer_targets = True

    def __init__(self, from_logits=False, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy"):
        super().__init__(reduction, name)
        self.from_logits = bool(from_logits)

    def call(self, y_true, y_pred):
        return sparse_categorical_crossentropy(y_true, y_pred, self.from_logits)

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits}


class _Simple(Loss):
    """A Loss over one of the per-example functions above (no arguments of its own)."""

    fn = None

    def call(self, y_true, y_pred):
        return type(self).fn(y_true, y_pred)


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


class KLDivergence(_Simple):
    """Kullback-Leibler divergence of probability targets and predictions (see
    `kl_divergence`).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> round(float(pd.eval(losses.KLDivergence()([[0.5, 0.5]], [[0.5, 0.5]]))), 6)
        0.0
    """

    fn = staticmethod(kl_divergence)

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence"):
        super().__init__(reduction, name)


class Poisson(_Simple):
    """Poisson negative log-likelihood, up to a constant (see `poisson`)."""

    fn = staticmethod(poisson)

    def __init__(self, reduction="sum_over_batch_size", name="poisson"):
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
                                     LogCosh, CosineSimilarity)}
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
}
_FUNCTIONS = {mean_squared_error: MeanSquaredError, mean_absolute_error: MeanAbsoluteError,
              huber: Huber, binary_crossentropy: BinaryCrossentropy,
              categorical_crossentropy: CategoricalCrossentropy,
              sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
              mean_absolute_percentage_error: MeanAbsolutePercentageError,
              mean_squared_logarithmic_error: MeanSquaredLogarithmicError,
              kl_divergence: KLDivergence, poisson: Poisson, log_cosh: LogCosh,
              cosine_similarity: CosineSimilarity}


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


# The hinge, focal and overlap losses live in their own module (they need the helpers above).
from paddle.highlevel.losses_classification import (  # noqa: E402
    BinaryFocalCrossentropy, CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy,
    CategoricalHinge, Dice, Hinge, SquaredHinge, Tversky, binary_focal_crossentropy,
    categorical_focal_crossentropy, categorical_generalized_cross_entropy, categorical_hinge,
    dice, hinge, squared_hinge, tversky)

_CLASSES.update({c.__name__: c for c in (Hinge, SquaredHinge, CategoricalHinge,
                                         BinaryFocalCrossentropy, CategoricalFocalCrossentropy,
                                         CategoricalGeneralizedCrossEntropy, Dice, Tversky)})
_NAMES.update({"hinge": Hinge, "squared_hinge": SquaredHinge,
               "categorical_hinge": CategoricalHinge,
               "binary_focal_crossentropy": BinaryFocalCrossentropy,
               "categorical_focal_crossentropy": CategoricalFocalCrossentropy,
               "categorical_generalized_cross_entropy": CategoricalGeneralizedCrossEntropy,
               "dice": Dice, "tversky": Tversky})
_FUNCTIONS.update({hinge: Hinge, squared_hinge: SquaredHinge,
                   categorical_hinge: CategoricalHinge,
                   binary_focal_crossentropy: BinaryFocalCrossentropy,
                   categorical_focal_crossentropy: CategoricalFocalCrossentropy,
                   categorical_generalized_cross_entropy: CategoricalGeneralizedCrossEntropy,
                   dice: Dice, tversky: Tversky})


# The serialization code finds this family's classes by name here (it imports no family).
_register_family("keras.losses", globals())
