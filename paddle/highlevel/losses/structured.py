"""Losses over structures rather than over independent values: `ctc` (a label sequence
against per-step logits, Connectionist Temporal Classification) and `circle` (pairs of
embeddings in a batch, Circle loss), with their classes `CTC` and `Circle`, as Keras 3's.

Both are compositions of existing ops (`pd.ops.ctc_loss`'s recursion; products, masks and
a masked log-sum-exp), so their gradients come from those ops.

Example:
    >>> import numpy as np, paddle as pd
    >>> logits = np.log(np.array([[[0.1, 0.9], [0.9, 0.1]]], np.float32))
    >>> round(float(pd.eval(pd.losses.ctc(np.array([[1]]), logits))[0]), 4)
    0.0943
"""
import numbers

from paddle import errors
from paddle import lowlevel as ll
from paddle.lowlevel.graph import FLOATS, as_variable
from paddle.lowlevel.ops.sort import cumsum
from paddle.highlevel.losses.base import Loss, reduce_weighted
from paddle.ops.ctc import ctc_loss

# The "log 0" of an empty row of the masked log-sum-exp: finite, so its gradient is 0,
# not NaN, and softplus of it is exactly 0 (Keras's -inf gives the same value).
_EMPTY = -1e30


def ctc(y_true, y_pred):
    """CTC loss per sequence, as `keras.losses.ctc`: every sequence's labels are its
    non-zero entries (0 is the blank and the padding), every output step counts.

    Args:
        y_true: integer labels (batch, max_label_length), padded with 0.
        y_pred: logits (batch, steps, classes) (not softmaxed), class 0 the blank.

    Returns:
        (batch,) negative log-likelihoods.

    Raises:
        ValueError: y_true not of rank 2 or y_pred not of rank 3 (as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> out = pd.losses.ctc(np.array([[1, 2], [2, 0]]), np.zeros((2, 4, 3), np.float32))
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [1.6864, 2.0919]
    """
    y_pred = as_variable(y_pred, where="ctc")
    y_true = as_variable(y_true, where="ctc")
    if y_true.ndim != 2:
        raise ValueError(errors.at_user(
            f"ctc: expected targets y_true of shape (batch_size, max_length) in integer "
            f"format, received shape {y_true.shape}"))
    if y_pred.ndim != 3:
        raise ValueError(errors.at_user(
            f"ctc: expected logits y_pred of shape (batch_size, max_length, num_classes), "
            f"received shape {y_pred.shape}"))
    labels = ll.cast(y_true, "int64")  # Keras casts float targets to ints as well
    label_length = ll.sum(ll.cast(ll.not_equal(labels, 0), "int64"), axis=-1)
    steps = y_pred.shape[1]
    output_length = label_length * 0 + (steps if steps is not None else 0)
    return ctc_loss(labels, y_pred, label_length, output_length, mask_index=0)


def _masked_logsumexp(x, mask):
    """log(sum(exp(x))) over axis 1 of the entries where mask is 1 (an empty row: _EMPTY)."""
    kept = ll.where(ll.greater(mask, 0.5), x, _EMPTY)
    peak = ll.max(kept, axis=1, keepdims=True)
    total = ll.sum(mask * ll.exp(kept - peak), axis=1)
    empty = ll.equal(total, 0.0)
    return ll.where(empty, _EMPTY, ll.log(ll.where(empty, 1.0, total))
                    + ll.squeeze(peak, 1))


def _labels(labels, where):
    labels = as_variable(labels, where=where)
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = ll.squeeze(labels, 1)
    if labels.ndim != 1:
        raise ValueError(errors.at_user(f"{where}: expected labels of shape (batch,) or "
                                        f"(batch, 1), received shape {labels.shape}"))
    return ll.cast(labels, "int64")  # Keras casts them to int32: truncation either way


def _positions(labels):
    """0, 1, ... along labels, for a batch of any size."""
    return cumsum(ll.ones_like(labels), 0) - 1


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True,
           gamma=80, margin=0.4):
    """Circle loss per embedding, as `keras.losses.circle` (Sun et al., 2020): a softplus
    of the log-sum-exps of the weighted positive and negative similarities.

    Args:
        y_true: integer labels (batch,) or (batch, 1).
        y_pred: L2-normalized embeddings (batch, dim).
        ref_labels, ref_embeddings: the reference set (default: y_true and y_pred).
        remove_diagonal: leave out the pairs (i, i) from the positives.
        gamma: the scale of the similarities (80).
        margin: the relaxation margin (0.4).

    Returns:
        (batch,) losses.

    Raises:
        ValueError: labels not of shape (batch,) or (batch, 1), embeddings not of rank 2.

    Example:
        >>> import numpy as np, paddle as pd
        >>> e = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]], np.float32)
        >>> [round(v, 4) for v in pd.eval(pd.losses.circle(np.array([0, 0, 1]), e)).tolist()]
        [0.0, 6.4017, 0.0]
    """
    where = "circle"
    y_pred = as_variable(y_pred, where=where)
    if y_pred.dtype not in FLOATS:
        y_pred = ll.cast(y_pred, "float32")
    labels = _labels(y_true, where)
    refs = y_pred if ref_embeddings is None else \
        ll.cast(as_variable(ref_embeddings, where=where), y_pred.dtype)
    ref_labels = labels if ref_labels is None else _labels(ref_labels, where)
    if y_pred.ndim != 2 or refs.ndim != 2:
        raise ValueError(errors.at_user(
            f"{where}: expected embeddings of shape (batch, dim), received {y_pred.shape} "
            f"and reference embeddings {refs.shape}"))
    distances = ll.maximum(1.0 - ll.matmul(y_pred, refs, transpose_b=True), 0.0)
    same = ll.equal(ll.expand_dims(labels, 1), ll.expand_dims(ref_labels, 0))
    positive = ll.cast(same, y_pred.dtype)
    negative = 1.0 - positive
    if remove_diagonal:
        diagonal = ll.equal(ll.expand_dims(_positions(labels), 1),
                            ll.expand_dims(_positions(ref_labels), 0))
        positive = positive * (1.0 - ll.cast(diagonal, y_pred.dtype))
    pos_weights = ll.maximum((margin + distances) * positive, 0.0)
    neg_weights = ll.maximum((1.0 + margin - distances) * negative, 0.0)
    pos = -gamma * pos_weights * (margin - distances)
    neg = gamma * neg_weights * (1.0 - margin - distances)
    return ll.softplus(_masked_logsumexp(pos, positive) + _masked_logsumexp(neg, negative))


class CTC(Loss):
    """The CTC loss (see `ctc`), as `keras.losses.CTC`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> loss = pd.losses.CTC()
        >>> round(float(pd.eval(loss(np.array([[1, 2]]), np.zeros((1, 4, 3), np.float32)))), 4)
        1.6864
    """

    def __init__(self, reduction="sum_over_batch_size", name="ctc"):
        super().__init__(reduction, name)

    def call(self, y_true, y_pred):
        return ctc(y_true, y_pred)


def _real(value, owner, what):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{owner}: expected {what} as a number, received {value!r}")
    return value


class Circle(Loss):
    """The Circle loss (see `circle`), as `keras.losses.Circle`. As in Keras, the losses
    that are exactly 0 (embeddings with no positive or no negative pair) are masked out:
    "sum_over_batch_size" divides by the number of the others.

    Args:
        gamma, margin, remove_diagonal: as `circle`.
        reduction, name: as every Loss.

    Example:
        >>> import numpy as np, paddle as pd
        >>> e = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]], np.float32)
        >>> round(float(pd.eval(pd.losses.Circle()(np.array([0, 0, 1]), e))), 4)
        3.2008
    """

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True,
                 reduction="sum_over_batch_size", name="circle"):
        super().__init__(reduction, name)
        owner = type(self).__name__
        self.gamma = _real(gamma, owner, "gamma")
        self.margin = _real(margin, owner, "margin")
        if not isinstance(remove_diagonal, bool):
            raise TypeError(f"{owner}: expected remove_diagonal as True or False, received "
                            f"{remove_diagonal!r}")
        self.remove_diagonal = remove_diagonal

    def call(self, y_true, y_pred):
        return circle(y_true, y_pred, remove_diagonal=self.remove_diagonal, gamma=self.gamma,
                      margin=self.margin)

    def __call__(self, y_true, y_pred, sample_weight=None):
        values = self.call(as_variable(y_true, where=self.name),
                           as_variable(y_pred, where=self.name))
        if self.reduction != "sum_over_batch_size":
            return reduce_weighted(values, sample_weight, self.reduction)
        # Keras's mask (loss > 0): the weighted sum over the unmasked count (0 when none).
        valid = ll.sum(ll.cast(ll.greater(values, 0.0), values.dtype))
        return reduce_weighted(values, sample_weight, "sum") / ll.maximum(valid, 1.0)

    def get_config(self):
        return {**super().get_config(), "gamma": self.gamma, "margin": self.margin,
                "remove_diagonal": self.remove_diagonal}
