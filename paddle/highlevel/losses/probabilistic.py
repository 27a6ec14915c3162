"""Probabilistic losses of Keras 3: the binary, categorical and sparse categorical
cross-entropies, the Kullback-Leibler divergence and Poisson, as per-example functions and
`Loss` classes, each composed from the low-level loss ops.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.highlevel import losses
    >>> loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> logits = pd.constant([[2.0, 0.0], [0.0, 2.0]])
    >>> round(float(pd.eval(loss(np.array([0, 1]), logits))), 4)
    0.1269
"""
from paddle import lowlevel as ll
from paddle.highlevel.losses.base import (
    Loss, _float_targets, _inputs, _Simple, _smooth)
from paddle._settings import epsilon  # Keras's backend.epsilon(), read when built

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
    p = ll.clip(y_pred, epsilon(), 1.0 - epsilon())
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
        log_p = ll.log(ll.clip(p, epsilon(), 1.0 - epsilon()))
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
    p = ll.clip(y_pred / ll.sum(y_pred, axis=-1, keepdims=True), epsilon(), 1.0 - epsilon())
    return ll.cross_entropy(p, labels, epsilon=epsilon())


def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [eps, 1].

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> out = losses.kl_divergence([[0.5, 0.5]], [[0.9, 0.1]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.5108]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "kl_divergence", broadcast=True)
    y_true = ll.clip(y_true, epsilon(), 1.0)
    y_pred = ll.clip(y_pred, epsilon(), 1.0)
    return ll.sum(y_true * ll.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + eps)) over the last axis.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel import losses
        >>> [round(v, 4) for v in pd.eval(losses.poisson([[2.0]], [[1.0]])).tolist()]
        [1.0]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "poisson", broadcast=True)
    return ll.mean(y_pred - y_true * ll.log(y_pred + epsilon()), axis=-1)


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
