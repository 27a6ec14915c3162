"""Classification and segmentation losses of Keras 3 beyond cross-entropy: the hinge family
(`hinge`, `squared_hinge`, `categorical_hinge`), the focal cross-entropies, the generalized
cross-entropy and the overlap losses `dice` and `tversky`, as per-example functions and
`Loss` classes.

Each is composed from low-level ops (no kernel of its own), with Keras 3's formulas and
constants, so its gradient comes from those ops. `paddle.highlevel.losses` re-exports them
and knows their names (`compile(loss="hinge")`) and configs.

Example:
    >>> import paddle as pd
    >>> pd.eval(pd.losses.hinge([[1.0, 0.0]], [[0.5, -2.0]])).tolist()
    [0.25]
"""
import numbers

from paddle import lowlevel as ll
from paddle.highlevel.losses.base import Loss, _Simple, _float_targets, _inputs, _smooth
from paddle._settings import epsilon  # Keras's backend.epsilon(), read when built

__all__ = ["hinge", "squared_hinge", "categorical_hinge", "binary_focal_crossentropy",
           "categorical_focal_crossentropy", "categorical_generalized_cross_entropy", "dice",
           "tversky", "Hinge", "SquaredHinge", "CategoricalHinge", "BinaryFocalCrossentropy",
           "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy", "Dice",
           "Tversky"]


# ---- argument checks --------------------------------------------------------------------

def _real(value, owner, name, low=None, high=None):
    """value as a float, refused unless a real number within [low, high]."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or value != value or \
            (low is not None and value < low) or (high is not None and value > high):
        bounds = "" if low is None and high is None else \
            f" in [{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValueError(f"{owner}: expected {name} as a number{bounds}, received {value!r}")
    return float(value)


def _axis(value, owner, allow_none=False):
    """An integer axis (or a tuple of them, or None where allowed)."""
    if value is None and allow_none:
        return None
    items = value if isinstance(value, (tuple, list)) and allow_none else (value,)
    if not items or any(isinstance(a, bool) or not isinstance(a, numbers.Integral)
                        for a in items):
        what = "an integer axis, a tuple of them or None" if allow_none else "an integer axis"
        raise ValueError(f"{owner}: expected axis as {what}, received {value!r}")
    return tuple(int(a) for a in items) if isinstance(value, (tuple, list)) else int(value)


def _check_axis_in(axis, ndim, owner, shape):
    for a in (axis if isinstance(axis, tuple) else () if axis is None else (axis,)):
        if not -ndim <= a < ndim:
            raise ValueError(f"{owner}: axis {a} is outside the {ndim} axes of the "
                             f"predictions {shape}")


# ---- hinge family -----------------------------------------------------------------------

def _hinge_labels(y_true):
    """Keras' `convert_binary_labels_to_hinge`: targets that are all 0 or 1 become -1 or 1;
    targets with any other value (already -1/1) stay as they are. Decided on the values,
    so it is a blend by a 0/1 scalar rather than a branch."""
    other = ll.cast(ll.not_equal(y_true, 0.0), y_true.dtype) * \
        ll.cast(ll.not_equal(y_true, 1.0), y_true.dtype)
    binary = ll.cast(ll.equal(ll.sum(other), 0.0), y_true.dtype)
    return y_true + binary * (y_true - 1.0)


def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis, one value per example.

    Args:
        y_true: targets -1 or 1; targets that are all 0 or 1 are read as -1 or 1 (Keras).
        y_pred: scores (no squashing: a margin of 1 is wanted).
    Returns:
        The per-example losses (the last axis averaged away).

    Example:
        >>> import paddle as pd
        >>> out = pd.losses.hinge([[0.0, 1.0], [0.0, 0.0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [1.1, 1.5]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "hinge", broadcast=True)
    return ll.mean(ll.relu(1.0 - _hinge_labels(y_true) * y_pred), axis=-1)


def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0) ** 2) over the last axis (targets as `hinge`).

    Example:
        >>> import paddle as pd
        >>> out = pd.losses.squared_hinge([[0.0, 1.0]], [[0.6, 0.4]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [1.46]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "squared_hinge", broadcast=True)
    return ll.mean(ll.square(ll.relu(1.0 - _hinge_labels(y_true) * y_pred)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0) over the last axis.

    Args:
        y_true: one-hot targets (N, classes).
        y_pred: scores (N, classes).

    Example:
        >>> import paddle as pd
        >>> out = pd.losses.categorical_hinge([[0.0, 1.0]], [[0.6, 0.4]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [1.2]
    """
    y_true, y_pred = _float_targets(y_true, y_pred, "categorical_hinge", broadcast=True)
    positive = ll.sum(y_true * y_pred, axis=-1)
    negative = ll.max((1.0 - y_true) * y_pred, axis=-1)
    return ll.relu(negative - positive + 1.0)


# ---- focal cross-entropies --------------------------------------------------------------

def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy scaled by (1 - p_t) ** gamma, averaged over `axis` (Keras 3).

    p_t is the probability given to the true class, so confident right answers count
    little and hard examples dominate (Lin et al., 2017).

    Args:
        y_true: targets in [0, 1], shaped like y_pred.
        y_pred: probabilities, or logits with from_logits=True.
        apply_class_balancing: weigh positives by alpha and negatives by 1 - alpha.
        alpha: the positives' weight with apply_class_balancing, in [0, 1].
        gamma: the focusing exponent (>= 0; 0 gives plain binary cross-entropy).
        from_logits: y_pred are logits (a sigmoid is applied first, as Keras does).
        label_smoothing: pull targets towards 0.5 by this fraction, in [0, 1].
        axis: the axis averaged over.
    Returns:
        The losses with `axis` averaged away.
    Raises:
        ValueError: alpha, gamma, label_smoothing or axis out of range.

    Example:
        >>> import paddle as pd
        >>> out = pd.losses.binary_focal_crossentropy([[0.0, 1.0]], [[0.4, 0.6]], gamma=2.0)
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.0817]
    """
    where = "binary_focal_crossentropy"
    alpha = _real(alpha, where, "alpha", 0.0, 1.0)
    gamma = _real(gamma, where, "gamma", 0.0)
    label_smoothing = _real(label_smoothing, where, "label_smoothing", 0.0, 1.0)
    axis = _axis(axis, where)
    y_true, y_pred = _float_targets(y_true, y_pred, where)
    _check_axis_in(axis, y_pred.ndim, where, y_pred.shape)
    y_true = _smooth(y_true, label_smoothing, 2.0)
    if from_logits:
        y_pred = ll.sigmoid(y_pred)
    p = ll.clip(y_pred, epsilon(), 1.0 - epsilon())
    bce = -(y_true * ll.log(p) + (1.0 - y_true) * ll.log(1.0 - p))
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = ll.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return ll.mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """Categorical cross-entropy with each class's term scaled by alpha * (1 - p) ** gamma,
    summed over `axis` (Keras 3).

    Args:
        y_true: one-hot (or probability) targets, classes along `axis`.
        y_pred: probabilities, or logits with from_logits=True (a softmax is applied).
        alpha: the weight of every class's term, in [0, 1].
        gamma: the focusing exponent (>= 0).
        from_logits: y_pred are logits.
        label_smoothing: pull targets towards 1/classes by this fraction, in [0, 1].
        axis: the class axis.
    Returns:
        The losses with `axis` summed away.
    Raises:
        ValueError: an argument out of range, or label smoothing of an unknown class count.

    Example:
        >>> import paddle as pd
        >>> out = pd.losses.categorical_focal_crossentropy([[0.0, 1.0]], [[0.4, 0.6]])
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.0204]
    """
    where = "categorical_focal_crossentropy"
    alpha = _real(alpha, where, "alpha", 0.0, 1.0)
    gamma = _real(gamma, where, "gamma", 0.0)
    label_smoothing = _real(label_smoothing, where, "label_smoothing", 0.0, 1.0)
    axis = _axis(axis, where)
    y_true, y_pred = _float_targets(y_true, y_pred, where)
    _check_axis_in(axis, y_pred.ndim, where, y_pred.shape)
    if label_smoothing:
        # Keras divides by the size of the last axis, whatever `axis` is.
        classes = y_true.shape[-1]
        if classes is None:
            raise ValueError(f"{where}: label_smoothing needs a known class count, received "
                             f"targets of shape {y_true.shape}")
        y_true = _smooth(y_true, label_smoothing, classes)
    if from_logits:
        y_pred = ll.softmax(y_pred, axis=axis)
    p = ll.clip(y_pred / ll.sum(y_pred, axis=axis, keepdims=True), epsilon(), 1.0 - epsilon())
    focal = alpha * ll.pow(1.0 - p, gamma) * (-y_true * ll.log(p))
    return ll.sum(focal, axis=axis)


def _q(value, owner):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0 < value < 1:
        raise ValueError(f"{owner}: expected q in the open interval (0, 1), received {value!r}")
    return float(value)


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """(1 - p ** q) / q, where p is the probability given to the true class (Zhang & Sabuncu,
    2018): between cross-entropy (q -> 0) and the mean absolute error (q = 1), robust to
    noisy labels.

    Args:
        y_true: integer class ids, (N,) or (N, 1).
        y_pred: (N, classes) probabilities.
        q: in (0, 1).
    Returns:
        (N,) losses.

    Example:
        >>> import numpy as np, paddle as pd
        >>> out = pd.losses.categorical_generalized_cross_entropy(
        ...     np.array([1, 0]), [[0.25, 0.75], [0.64, 0.36]], q=0.5)
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.2679, 0.4]
    """
    where = "categorical_generalized_cross_entropy"
    q = _q(q, where)
    y_true, y_pred = _inputs(y_true, y_pred, where, like_pred=False)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = ll.squeeze(y_true, -1)
    classes = y_pred.shape[-1]
    if classes is None or y_true.ndim != y_pred.ndim - 1:
        raise ValueError(f"{where}: expected class ids shaped like the predictions {y_pred.shape} "
                         f"without their (known) class axis, received {y_true.shape}")
    labels = y_true if y_true.dtype in ("int64", "int32") else ll.cast(y_true, "int64")
    p = ll.sum(y_pred * ll.one_hot(labels, classes, y_pred.dtype), axis=-1)
    return (1.0 - ll.pow(p, q)) / q


# ---- overlap losses ---------------------------------------------------------------------

def dice(y_true, y_pred, axis=None):
    """1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + eps) over `axis`.

    Args:
        y_true: targets in [0, 1] (masks), shaped like y_pred.
        y_pred: predictions in [0, 1].
        axis: the axes summed over: None (all: one value for the batch, as Keras), an
            integer or a tuple (e.g. (1, 2, 3) for one value per image).
    Returns:
        The loss with `axis` summed away.

    Example:
        >>> import paddle as pd
        >>> out = pd.losses.dice([[1.0, 0.0], [1.0, 1.0]], [[0.8, 0.2], [0.6, 0.9]], axis=1)
        >>> [round(v, 4) for v in pd.eval(out).tolist()]
        [0.2, 0.1429]
    """
    axis = _axis(axis, "dice", allow_none=True)
    y_true, y_pred = _float_targets(y_true, y_pred, "dice", broadcast=True)
    _check_axis_in(axis, y_pred.ndim, "dice", y_pred.shape)
    intersection = ll.sum(y_true * y_pred, axis=axis)
    total = ll.sum(y_true, axis=axis) + ll.sum(y_pred, axis=axis)
    return 1.0 - 2.0 * intersection / (total + epsilon())


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """1 - TP / (TP + alpha * FP + beta * FN + eps), soft counts summed over `axis`.

    With alpha = beta = 0.5 it is the Dice loss; a larger beta punishes missed positives
    more. (Keras 3 computes "fp" as sum((1 - y_pred) * y_true) and "fn" as
    sum(y_pred * (1 - y_true)): alpha multiplies the first, as here.)

    Args:
        y_true: targets in [0, 1], shaped like y_pred.
        y_pred: predictions in [0, 1].
        alpha: weight of sum((1 - y_pred) * y_true) (>= 0).
        beta: weight of sum(y_pred * (1 - y_true)) (>= 0).
        axis: the axes summed over (None: all, as `dice`).

    Example:
        >>> import paddle as pd
        >>> out = pd.losses.tversky([[1.0, 0.0]], [[0.8, 0.2]], alpha=0.7, beta=0.3)
        >>> round(float(pd.eval(out)), 4)
        0.2
    """
    alpha = _real(alpha, "tversky", "alpha", 0.0)
    beta = _real(beta, "tversky", "beta", 0.0)
    axis = _axis(axis, "tversky", allow_none=True)
    y_true, y_pred = _float_targets(y_true, y_pred, "tversky", broadcast=True)
    _check_axis_in(axis, y_pred.ndim, "tversky", y_pred.shape)
    intersection = ll.sum(y_true * y_pred, axis=axis)
    missed = ll.sum((1.0 - y_pred) * y_true, axis=axis)
    extra = ll.sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - intersection / (intersection + missed * alpha + extra * beta + epsilon())


# ---- Loss classes -----------------------------------------------------------------------

class Hinge(_Simple):
    """The hinge loss of -1/1 (or 0/1) targets (see `hinge`).

    Example:
        >>> import paddle as pd
        >>> round(float(pd.eval(pd.losses.Hinge()([[0.0, 1.0]], [[0.6, 0.4]]))), 4)
        1.1
    """

    fn = staticmethod(hinge)

    def __init__(self, reduction="sum_over_batch_size", name="hinge"):
        super().__init__(reduction, name)


class SquaredHinge(_Simple):
    """The squared hinge loss (see `squared_hinge`).

    Example:
        >>> import paddle as pd
        >>> round(float(pd.eval(pd.losses.SquaredHinge()([[0.0, 1.0]], [[0.6, 0.4]]))), 4)
        1.46
    """

    fn = staticmethod(squared_hinge)

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge"):
        super().__init__(reduction, name)


class CategoricalHinge(_Simple):
    """The categorical hinge loss of one-hot targets (see `categorical_hinge`).

    Example:
        >>> import paddle as pd
        >>> loss = pd.losses.CategoricalHinge()
        >>> round(float(pd.eval(loss([[0.0, 1.0]], [[0.6, 0.4]]))), 4)
        1.2
    """

    fn = staticmethod(categorical_hinge)

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge"):
        super().__init__(reduction, name)


class BinaryFocalCrossentropy(Loss):
    """Focal binary cross-entropy (see `binary_focal_crossentropy` for the arguments).

    Example:
        >>> import paddle as pd
        >>> loss = pd.losses.BinaryFocalCrossentropy(gamma=2.0, from_logits=True)
        >>> round(float(pd.eval(loss([[0.0, 1.0]], [[-0.4, 0.4]]))), 4)
        0.0826
    """

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                 label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_focal_crossentropy"):
        super().__init__(reduction, name)
        owner = type(self).__name__
        self.apply_class_balancing = bool(apply_class_balancing)
        self.alpha = _real(alpha, owner, "alpha", 0.0, 1.0)
        self.gamma = _real(gamma, owner, "gamma", 0.0)
        self.from_logits = bool(from_logits)
        self.label_smoothing = _real(label_smoothing, owner, "label_smoothing", 0.0, 1.0)
        self.axis = _axis(axis, owner)

    def call(self, y_true, y_pred):
        return binary_focal_crossentropy(y_true, y_pred, self.apply_class_balancing,
                                         self.alpha, self.gamma, self.from_logits,
                                         self.label_smoothing, self.axis)

    def get_config(self):
        return {**super().get_config(), "apply_class_balancing": self.apply_class_balancing,
                "alpha": self.alpha, "gamma": self.gamma, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class CategoricalFocalCrossentropy(Loss):
    """Focal categorical cross-entropy (see `categorical_focal_crossentropy`).

    Example:
        >>> import paddle as pd
        >>> loss = pd.losses.CategoricalFocalCrossentropy()
        >>> round(float(pd.eval(loss([[0.0, 1.0]], [[0.4, 0.6]]))), 4)
        0.0204
    """

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy"):
        super().__init__(reduction, name)
        owner = type(self).__name__
        self.alpha = _real(alpha, owner, "alpha", 0.0, 1.0)
        self.gamma = _real(gamma, owner, "gamma", 0.0)
        self.from_logits = bool(from_logits)
        self.label_smoothing = _real(label_smoothing, owner, "label_smoothing", 0.0, 1.0)
        self.axis = _axis(axis, owner)

    def call(self, y_true, y_pred):
        return categorical_focal_crossentropy(y_true, y_pred, self.alpha, self.gamma,
                                              self.from_logits, self.label_smoothing, self.axis)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha, "gamma": self.gamma,
                "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
                "axis": self.axis}


class CategoricalGeneralizedCrossEntropy(Loss):
    """The generalized cross-entropy of integer labels (see
    `categorical_generalized_cross_entropy`).

    Args:
        q: in (0, 1) (0.5).
    Raises:
        ValueError: q outside (0, 1).

    Example:
        >>> import numpy as np, paddle as pd
        >>> loss = pd.losses.CategoricalGeneralizedCrossEntropy(q=0.5)
        >>> round(float(pd.eval(loss(np.array([1, 0]), [[0.25, 0.75], [0.64, 0.36]]))), 4)
        0.334
    """

    integer_targets = True

    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy"):
        super().__init__(reduction, name)
        self.q = _q(q, type(self).__name__)

    def call(self, y_true, y_pred):
        return categorical_generalized_cross_entropy(y_true, y_pred, self.q)

    def get_config(self):
        return {**super().get_config(), "q": self.q}


class Dice(Loss):
    """The Dice loss (see `dice`); with the default axis=None it is one value for the
    whole batch, as Keras.

    Example:
        >>> import paddle as pd
        >>> loss = pd.losses.Dice()
        >>> round(float(pd.eval(loss([[1.0, 0.0], [1.0, 1.0]], [[0.8, 0.2], [0.6, 0.9]]))), 4)
        0.1636
    """

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None):
        super().__init__(reduction, name)
        self.axis = _axis(axis, type(self).__name__, allow_none=True)

    def call(self, y_true, y_pred):
        return dice(y_true, y_pred, self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Tversky(Loss):
    """The Tversky loss (see `tversky`).

    Example:
        >>> import paddle as pd
        >>> loss = pd.losses.Tversky(alpha=0.7, beta=0.3)
        >>> round(float(pd.eval(loss([[1.0, 0.0]], [[0.8, 0.2]]))), 4)
        0.2
    """

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None):
        super().__init__(reduction, name)
        owner = type(self).__name__
        self.alpha = _real(alpha, owner, "alpha", 0.0)
        self.beta = _real(beta, owner, "beta", 0.0)
        self.axis = _axis(axis, owner, allow_none=True)

    def call(self, y_true, y_pred):
        return tversky(y_true, y_pred, self.alpha, self.beta, self.axis)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha, "beta": self.beta,
                "axis": self.axis}
