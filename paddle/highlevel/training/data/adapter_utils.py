"""Batches and splits of in-memory data, as Keras's `keras.utils`: `pack_x_y_sample_weight`,
`unpack_x_y_sample_weight`, `split_dataset`.

Example:
    >>> import numpy as np, paddle as pd
    >>> x, y, sw = pd.utils.unpack_x_y_sample_weight((np.zeros(2), np.ones(2)))
    >>> sw is None, pd.utils.pack_x_y_sample_weight(x, y)[1].tolist()
    (True, [1.0, 1.0])
"""
import numbers
import random

import numpy as np


def unpack_x_y_sample_weight(data):
    """`(x, y, sample_weight)` of a batch given as `x`, `(x,)`, `(x, y)` or
    `(x, y, sample_weight)` (a list counts as a tuple), the missing ones None.

    Raises:
        ValueError: a tuple of more than three items (Keras 3's message).
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The batch `fit` reads: `x` alone (`(x,)` when x is a tuple or list, so that it is
    not taken for `(x, y)`), `(x, y)` or `(x, y, sample_weight)`."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return x, y
    return x, y, sample_weight


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None,
                  preferred_backend=None):
    """Split an array, or a tuple or list of arrays of the same length (samples along the
    first axis), into a left and a right part, with Keras 3's sizes and order.

    Sizes are sample counts (ints) or fractions in (0, 1) (floats, rounded to the nearest
    count); the one left None is the rest. With `shuffle=True` the samples are shuffled
    first as Keras shuffles them (Python's `random` seeded with `seed`; Keras seeds the
    global generator, paddle its own), so the same seed gives the same split. The left part
    is the first `left_size` samples, the right part the last `right_size`.

    Args:
        dataset: a NumPy array (or anything `np.asarray` takes), or a tuple/list of them.
        left_size, right_size: as above; at least one is needed.
        shuffle: shuffle before splitting.
        seed: the shuffle's seed (None: a random one).
        preferred_backend: Keras's choice between tf.data and torch datasets; accepted,
            paddle returns arrays either way.

    Returns:
        `(left, right)`, each the same kind as `dataset` (an array, or a tuple of arrays).
        Keras returns `tf.data.Dataset`s (or torch datasets); pass paddle's to `fit` as
        `x` / `(x, y)` (`fit(*left)` for a tuple).

    Raises:
        TypeError: sizes that are not ints, floats or None; a dataset of another kind.
        ValueError: sizes out of range, both None, or a side that would be empty; arrays of
            different lengths.

    Example:
        >>> import numpy as np, paddle as pd
        >>> left, right = pd.utils.split_dataset(np.arange(10), left_size=0.8)
        >>> left.tolist(), right.tolist()
        ([0, 1, 2, 3, 4, 5, 6, 7], [8, 9])
        >>> (xl, yl), (xr, yr) = pd.utils.split_dataset((np.zeros((5, 2)), np.arange(5)),
        ...                                             right_size=2)
        >>> xl.shape, yr.tolist()
        ((3, 2), [3, 4])
    """
    if isinstance(dataset, (tuple, list)):
        if not dataset:
            raise ValueError("split_dataset: received an empty tuple of arrays")
        parts = [np.asarray(a) for a in dataset]
        lengths = {len(a) if a.ndim else None for a in parts}
        if None in lengths or len(lengths) != 1:
            raise ValueError(f"split_dataset: expected arrays with the same number of samples "
                             f"(first axis), received shapes {[a.shape for a in parts]}")
    elif isinstance(dataset, np.ndarray) or hasattr(dataset, "__array__"):
        parts = [np.asarray(dataset)]
        if parts[0].ndim == 0:
            raise ValueError("split_dataset: expected an array of samples, received a scalar")
    else:
        raise TypeError(f"split_dataset: expected an array or a tuple/list of arrays, "
                        f"received {type(dataset).__name__}")
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. "
                         "Received: left_size=None and right_size=None")
    total = len(parts[0])
    if total == 0:
        raise ValueError("split_dataset: received an empty dataset")
    order = list(range(total))
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.Random(seed).shuffle(order)
    left, right = _split_sizes(left_size, right_size, total)
    index_left, index_right = np.array(order[:left]), np.array(order[total - right:])
    pick = [(a[index_left], a[index_right]) for a in parts]
    if isinstance(dataset, (tuple, list)):
        return tuple(p[0] for p in pick), tuple(p[1] for p in pick)
    return pick[0]


def _split_sizes(left, right, total):
    """Keras 3's `_rescale_dataset_split_sizes`: the two sizes as counts."""
    for name, value in (("left_size", left), ("right_size", right)):
        if value is not None and (not isinstance(value, numbers.Real) or
                                  isinstance(value, bool)):
            raise TypeError(f"split_dataset: expected {name} to be an int, a float or None, "
                            f"received {value!r}")
        if isinstance(value, numbers.Integral) and not 0 < value < total or \
                isinstance(value, float) and not 0 < value < 1:
            raise ValueError(f"split_dataset: expected {name} to be a positive integer smaller "
                             f"than {total}, or a float in (0, 1), received {value!r}")
    if isinstance(left, float) and isinstance(right, float) and left + right > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must "
                         "be less than or equal to 1.")
    left = round(left * total) if isinstance(left, float) else left
    right = round(right * total) if isinstance(right, float) else right
    left = total - right if left is None else left
    right = total - left if right is None else right
    if left + right > total:
        raise ValueError(f"split_dataset: left_size + right_size = {left + right} is more than "
                         f"the {total} samples")
    for size, side in ((left, "left"), (right, "right")):
        if size == 0:
            raise ValueError(f"split_dataset: with {total} samples, left_size={left} and "
                             f"right_size={right} leave the {side} side empty")
    return int(left), int(right)
