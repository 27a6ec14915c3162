"""The base of every loss: `Loss` (per-example `call`, then sample weights and a reduction)
and the helpers the families share (operands as Variables, targets shaped like the
predictions, the reductions).

The families live beside it: `regression.py` (squared, absolute, Huber, log-cosh, cosine),
`probabilistic.py` (cross-entropies, KL divergence, Poisson), `classification.py` (hinge,
focal, generalized cross-entropy, dice, tversky); `paddle.highlevel.losses` re-exports them
and finds them by name (`get`, `serialize`, `deserialize`).

Example:
    >>> import paddle as pd
    >>> from paddle.highlevel import losses
    >>> class Cube(losses.Loss):
    ...     def call(self, y_true, y_pred):
    ...         return pd.mean((y_pred - y_true) ** 3.0, axis=-1)
    >>> float(pd.eval(Cube()([[0.0]], [[2.0]])))
    8.0
"""
from paddle import lowlevel as ll
from paddle import errors
from paddle.devices.half import HALF
from paddle.lowlevel.graph import FLOATS, as_variable
from paddle.lowlevel.ops.shape import match_shape

REDUCTIONS = ("sum_over_batch_size", "sum", "none")


def _inputs(y_true, y_pred, where, like_pred=True):
    """Both operands as Variables; arrays become constants (of y_pred's dtype for targets
    unless like_pred is False)."""
    y_pred = as_variable(y_pred, where=where)
    if y_pred.dtype not in FLOATS:
        raise TypeError(f"{where}: expected float predictions, received {y_pred.dtype}")
    return as_variable(y_true, like=y_pred if like_pred else None, where=where), y_pred


def _float_targets(y_true, y_pred, where, broadcast=False):
    """Targets cast to the predictions' dtype, ranks matched as Keras does (a trailing axis
    of 1). Then, as Keras 3: the cross-entropies want the predictions' shape, checked again
    with the fed sizes; the others (`broadcast`: squared and absolute errors, Huber,
    log-cosh, hinges, KL divergence, Poisson, cosine, Dice, Tversky) take targets that
    broadcast against the predictions ((N, 3) targets for (N, 1) predictions give the loss
    of every pair, Keras's numbers)."""
    y_true, y_pred = _inputs(y_true, y_pred, where)
    y_true, y_pred = match_rank(ll.cast(y_true, y_pred.dtype), y_pred)
    fits = (lambda a, b: a == b or 1 in (a, b)) if broadcast else (lambda a, b: a == b)
    if y_true.ndim != y_pred.ndim or any(a is not None and b is not None and not fits(a, b)
                                         for a, b in zip(y_true.shape, y_pred.shape)):
        how = " or broadcasting against them" if broadcast else ""
        raise errors.ShapeError(errors.at_user(
            f"{where}: expected targets shaped like the predictions {y_pred.shape}{how}, "
            f"received {y_true.shape}"))
    if broadcast:  # the elementwise ops check the fed sizes themselves
        return y_true, y_pred
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
        # Keras computes losses in float32 (the loss's dtype, floatx): half predictions of
        # a mixed-precision model, and half targets, are cast up first.
        y_pred, y_true = (ll.cast(v, "float32") if v.dtype in HALF else v
                          for v in (y_pred, y_true))
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


class _Simple(Loss):
    """A Loss over one of the per-example functions above (no arguments of its own)."""


    fn = None


    def call(self, y_true, y_pred):
        return type(self).fn(y_true, y_pred)
