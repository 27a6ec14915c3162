"""One-hot labels and row normalization on NumPy arrays (as `keras.utils`).

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.utils.normalize(np.array([[3.0, 4.0]])).tolist()
    [[0.6, 0.8]]
"""
import numbers

import numpy as np


def to_categorical(x, num_classes=None):
    """Class labels as one-hot float32 rows.

    Args:
        x: integer labels (any shape; a trailing axis of size 1 is dropped, as Keras does).
        num_classes: the number of classes (default: the largest label + 1).

    Returns:
        A float32 array of shape `x.shape + (num_classes,)`.

    Raises:
        ValueError: labels that are not whole numbers >= 0, or one >= num_classes.

    Example:
        >>> import paddle as pd
        >>> pd.utils.to_categorical([[1], [0]], num_classes=2).tolist()
        [[0.0, 1.0], [1.0, 0.0]]
    """
    try:
        labels = np.asarray(x)
    except Exception as e:  # ragged lists
        raise ValueError(f"to_categorical: expected integer labels, received {x!r} ({e})") \
            from None
    if labels.dtype.kind not in "biuf":
        raise ValueError(f"to_categorical: expected integer labels, received an array of "
                         f"{labels.dtype}")
    if labels.dtype.kind == "f" and not np.all(np.equal(labels, np.floor(labels))):
        bad = float(labels[np.not_equal(labels, np.floor(labels))].ravel()[0])
        raise ValueError(f"to_categorical: expected whole-number labels, received {bad!r}")
    labels = labels.astype(np.int64)
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    if labels.size and labels.min() < 0:
        raise ValueError(f"to_categorical: expected labels >= 0, received {int(labels.min())}")
    if num_classes is None:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    elif not isinstance(num_classes, numbers.Integral) or isinstance(num_classes, bool) or \
            num_classes < 1:
        raise ValueError(f"to_categorical: expected num_classes as a positive integer, "
                         f"received {num_classes!r}")
    num_classes = int(num_classes)
    if labels.size and labels.max() >= num_classes:
        raise ValueError(f"to_categorical: label {int(labels.max())} is outside [0, {num_classes}) "
                         f"(num_classes={num_classes})")
    out = np.zeros(labels.shape + (num_classes,), np.float32)
    np.put_along_axis(out, labels[..., None], 1.0, axis=-1)
    return out


def normalize(x, axis=-1, order=2):
    """`x` divided by its L-`order` norm along `axis` (rows of norm 0 stay 0).

    Args:
        x: a float array (integers are converted to float32).
        axis: the axis along which to normalize.
        order: the norm's order (2: Euclidean, 1: sum of absolute values).

    Returns:
        A float array of x's shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.utils.normalize(np.array([[1.0, 3.0], [0.0, 0.0]]), order=1).tolist()
        [[0.25, 0.75], [0.0, 0.0]]
    """
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"normalize: expected numbers, received an array of {a.dtype}")
    if a.dtype.kind != "f":
        a = a.astype(np.float32)
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool) or \
            not -max(a.ndim, 1) <= axis < max(a.ndim, 1):
        raise ValueError(f"normalize: expected an axis of an array of rank {a.ndim}, "
                         f"received {axis!r}")
    if not isinstance(order, numbers.Real) or isinstance(order, bool) or order < 1:
        raise ValueError(f"normalize: expected order >= 1, received {order!r}")
    norm = np.linalg.norm(a, ord=order, axis=axis, keepdims=True)
    norm[norm == 0] = 1
    return (a / norm).astype(a.dtype)
