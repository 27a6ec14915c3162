"""Intersection-over-union metrics of Keras 3 (segmentation): `IoU`, `MeanIoU`, `BinaryIoU`,
`OneHotIoU`, `OneHotMeanIoU`.

Each batch contributes a weighted (classes, classes) confusion matrix (rows: true class,
columns: predicted class), built from low-level ops in the step's plan as the product of two
one-hot matrices; the matrices add up in Python over the epoch and `result()` reads the IoU
of each target class from it: TP / (TP + FP + FN), averaged over the classes that occur.

Example:
    >>> import numpy as np, paddle as pd
    >>> m = pd.metrics.MeanIoU(num_classes=2)
    >>> m.update_state(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))
    >>> round(m.result(), 4)
    0.3333
"""
import numbers

import numpy as np

from paddle import lowlevel as ll
from paddle.highlevel.metrics.base import Metric
from paddle.lowlevel.graph import FLOATS, as_variable
from paddle.lowlevel.ops.shape import match_shape
from paddle._settings import epsilon  # Keras's backend.epsilon(), read when built

__all__ = ["IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU"]



def _integer(value, owner, name, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{owner}: expected {name} as an integer >= {low}, received "
                         f"{value!r}")
    return int(value)


def _flat(x):
    return ll.reshape(x, (-1,)) if x.ndim != 1 else x


class IoU(Metric):
    """The intersection over union of `target_class_ids`, averaged over those of them
    that occur in the targets or the predictions (Keras 3).

    Args:
        num_classes: how many classes there are (the confusion matrix is square of it).
        target_class_ids: the classes whose IoU is averaged (each < num_classes).
        name: the key in logs ("io_u", Keras's automatic name).
        ignore_class: a target class left out of the counts (e.g. a "void" label).
        sparse_y_true: targets are class ids (else one-hot or scores: argmax over `axis`).
        sparse_y_pred: predictions are class ids (else scores: argmax over `axis`).
        axis: the class axis of non-sparse targets and predictions (-1).
    Raises:
        ValueError: a bad num_classes, target class id, ignore_class or axis.

    Class ids outside [0, num_classes) (either side) are left out of the counts; float ids
    are truncated, as Keras does. Sample weights count as floats (Keras 3 keeps int32
    counts, so it truncates fractional weights: 0.3 counts as 0 there).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.IoU(num_classes=2, target_class_ids=[0])
        >>> m.update_state(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]),
        ...                sample_weight=np.array([0.3, 0.3, 0.3, 0.1]))
        >>> round(m.result(), 4)
        0.3333
    """

    def __init__(self, num_classes, target_class_ids, name=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        owner = type(self).__name__
        self.num_classes = _integer(num_classes, owner, "num_classes", 1)
        ids = list(target_class_ids) if isinstance(target_class_ids, (list, tuple, range)) \
            else [target_class_ids]
        if not ids or any(isinstance(i, bool) or not isinstance(i, numbers.Integral) or
                          not 0 <= i < self.num_classes for i in ids):
            raise ValueError(f"{owner}: expected target_class_ids as class ids in [0, "
                             f"{self.num_classes}), received {target_class_ids!r}")
        self.target_class_ids = [int(i) for i in ids]
        if ignore_class is not None and (isinstance(ignore_class, bool) or
                                         not isinstance(ignore_class, numbers.Integral)):
            raise ValueError(f"{owner}: expected ignore_class as an integer or None, received "
                             f"{ignore_class!r}")
        self.ignore_class = None if ignore_class is None else int(ignore_class)
        self.sparse_y_true, self.sparse_y_pred = bool(sparse_y_true), bool(sparse_y_pred)
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise ValueError(f"{owner}: expected axis as an integer, received {axis!r}")
        self.axis = int(axis)
        super().__init__(name)

    def _class_ids(self, values, sparse, what):
        values = as_variable(values, where=self.name)
        if not sparse:
            if not -values.ndim <= self.axis < values.ndim:
                raise ValueError(f"{self.name}: axis {self.axis} is outside the {values.ndim} "
                                 f"axes of the {what} {values.shape}")
            values = ll.argmax(values, self.axis)
        return ll.cast(values, "float32")

    def _predicted(self, y_pred):
        return self._class_ids(y_pred, self.sparse_y_pred, "predictions")

    def batch_values(self, y_true, y_pred, sample_weight=None):
        """[the batch's weighted (classes, classes) confusion matrix]."""
        t = self._class_ids(y_true, self.sparse_y_true, "targets")
        p = self._predicted(y_pred)
        if sample_weight is not None:
            w = ll.cast(as_variable(sample_weight, where=self.name), "float32")
            # (N,) weights on (N, H, W) ids weigh every pixel of their example.
            while 0 < w.ndim < t.ndim:
                w = ll.expand_dims(w, -1)
            w = _flat(ll.broadcast_to(w, t) if w.shape != t.shape or None in t.shape else w)
        t, p = _flat(t), _flat(p)
        if t.shape[0] is not None and p.shape[0] is not None and t.shape[0] != p.shape[0]:
            raise ValueError(f"{self.name}: expected as many target ids as predicted ids, "
                             f"received {t.shape[0]} and {p.shape[0]}")
        # and again with the fed sizes (the batch size is open when the graph is built)
        t = match_shape(t, p, f"{self.name}: the target ids")
        classes = float(self.num_classes)
        valid = ll.cast(ll.greater_equal(t, 0.0), "float32") * \
            ll.cast(ll.less(t, classes), "float32") * \
            ll.cast(ll.greater_equal(p, 0.0), "float32") * ll.cast(ll.less(p, classes), "float32")
        if self.ignore_class is not None:
            valid = valid * ll.cast(ll.not_equal(t, float(self.ignore_class)), "float32")
        weight = valid if sample_weight is None else valid * w
        keep = ll.greater(valid, 0.0)

        def one_hot(ids):
            ids = ll.cast(ll.where(keep, ids, ll.zeros_like(ids)), "int64")
            return ll.one_hot(ids, self.num_classes, "float32")
        rows = one_hot(t) * ll.expand_dims(weight, -1)
        return [ll.matmul(rows, one_hot(p), transpose_a=True)]

    def accumulate(self, values):
        self.total_cm = self.total_cm + values[0]

    def reset_state(self):
        self.total_cm = np.zeros((self.num_classes, self.num_classes))

    def result(self):
        cm = np.asarray(self.total_cm, np.float64)
        true_positives = np.diag(cm)
        denominator = cm.sum(axis=0) + cm.sum(axis=1) - true_positives
        ids = self.target_class_ids
        true_positives, denominator = true_positives[ids], denominator[ids]
        valid = denominator > 1e-9
        iou = np.where(valid, true_positives / (denominator + epsilon()), 0.0)
        return float(np.sum(iou) / (np.sum(valid) + epsilon()))

    def get_config(self):
        return {"name": self.name, "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class MeanIoU(IoU):
    """The IoU averaged over every class (an `IoU` whose targets are all classes).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.MeanIoU(num_classes=3, ignore_class=2)
        >>> m.update_state(np.array([[0, 1], [2, 1]]), np.array([[0, 1], [1, 0]]))
        >>> round(m.result(), 4)
        0.5
    """

    def __init__(self, num_classes, name=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        num_classes = _integer(num_classes, type(self).__name__, "num_classes", 1)
        super().__init__(num_classes, list(range(num_classes)), name, ignore_class,
                         sparse_y_true, sparse_y_pred, axis)

    def get_config(self):
        config = super().get_config()
        del config["target_class_ids"]
        return config


class BinaryIoU(IoU):
    """The IoU of 0/1 targets and predictions thresholded at `threshold` (a prediction at
    or above it is class 1), averaged over `target_class_ids`.

    Args:
        target_class_ids: (0,), (1,) or (0, 1) (the default: the mean of both).
        threshold: the cut of the predictions.
        name: the key in logs ("binary_io_u").

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
        >>> m.update_state(np.array([0, 1, 0, 1]), np.array([0.1, 0.2, 0.4, 0.7]))
        >>> round(m.result(), 4)
        0.3333
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None):
        if not isinstance(threshold, numbers.Real) or isinstance(threshold, bool):
            raise ValueError(f"BinaryIoU: expected threshold as a number, received "
                             f"{threshold!r}")
        self.threshold = float(threshold)
        super().__init__(2, target_class_ids, name)

    def _predicted(self, y_pred):
        p = as_variable(y_pred, where=self.name)
        if p.dtype not in FLOATS:
            p = ll.cast(p, "float32")
        return ll.cast(ll.greater_equal(p, self.threshold), "float32")

    def get_config(self):
        return {"name": self.name, "target_class_ids": self.target_class_ids,
                "threshold": self.threshold}


class OneHotIoU(IoU):
    """`IoU` of one-hot targets and class scores (both reduced by argmax over `axis`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2])
        >>> m.update_state(np.eye(3)[[0, 0, 1, 2]],
        ...                np.array([[0.9, 0.1, 0.0], [0.1, 0.8, 0.1],
        ...                          [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]))
        >>> round(m.result(), 4)
        0.75
    """

    def __init__(self, num_classes, target_class_ids, name=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name, ignore_class, False,
                         sparse_y_pred, axis)

    def get_config(self):
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` of one-hot targets and class scores (both reduced by argmax over `axis`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.OneHotMeanIoU(num_classes=2)
        >>> m.update_state(np.eye(2)[[0, 0, 1, 1]], np.eye(2)[[0, 1, 0, 1]])
        >>> round(m.result(), 4)
        0.3333
    """

    def __init__(self, num_classes, name=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):
        super().__init__(num_classes, name, ignore_class, False, sparse_y_pred, axis)

    def get_config(self):
        config = super().get_config()
        del config["sparse_y_true"]
        return config
