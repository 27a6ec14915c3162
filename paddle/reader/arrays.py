"""From readers to NumPy batches: what the training loop consumes.

`batch` yields lists of samples such as `[(x0, y0), (x1, y1), ...]`; a model wants one
array per field, `(X, Y)`. `to_arrays` does that conversion and `iter_batches` applies it to
whatever the user handed to `fit`.
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.reader.decorator import opened


def to_arrays(samples):
    """Stack a list of samples into one NumPy array per field.

    A sample is a tuple of fields, `(x, y)` or `(x,)` or longer; anything that is not a
    tuple is a sample of one field. Dtypes follow what models expect:

    - features (every field but the last of a multi-field sample, or the only field)
      keep an integer or floating NumPy dtype they already have; Python numbers, lists
      and booleans become float32;
    - labels (the last field of a multi-field sample) become int64 when they are integers,
      keep a floating NumPy dtype, and become float32 otherwise.

    Args:
        samples: a non-empty list of samples, as yielded by `batch`.

    Returns:
        A tuple with one array per field, each of shape `(len(samples),) + field_shape`.

    Raises:
        ValueError: `samples` is empty.
        ShapeError: samples differ in their number of fields, or a field's shape differs
            from that of the first sample.
        TypeError: a field does not hold numbers.

    Example:
        >>> import numpy as np
        >>> from paddle import reader
        >>> x, y = reader.to_arrays([(np.zeros(3), 1), (np.ones(3), 0)])
        >>> x.shape, x.dtype, y.tolist(), y.dtype
        ((2, 3), dtype('float64'), [1, 0], dtype('int64'))
    """
    samples = list(samples)
    if not samples:
        raise ValueError("to_arrays: expected at least one sample, received an empty batch")
    rows = [_as_tuple(sample) for sample in samples]
    n_fields = len(rows[0])
    for index, row in enumerate(rows):
        if len(row) != n_fields:
            raise ShapeError(at_user(
                f"to_arrays: sample {index} has {len(row)} fields, expected {n_fields} "
                f"as in sample 0"))
    return tuple(
        _stack_field([row[field] for row in rows], field, is_label=(n_fields > 1 and field == n_fields - 1))
        for field in range(n_fields))


def _as_tuple(sample):
    return sample if isinstance(sample, tuple) else (sample,)


def _stack_field(values, field, is_label):
    """One field of every sample, stacked along a new first axis with the dtype rules above."""
    arrays = []
    for index, value in enumerate(values):
        try:
            array = np.asarray(value)
        except ValueError as error:  # ragged nested lists
            raise ShapeError(at_user(
                f"to_arrays: field {field} of sample {index} is not a regular array: {error}")) from None
        if arrays and array.shape != arrays[0].shape:
            raise ShapeError(at_user(
                f"to_arrays: field {field} of sample {index} has shape {array.shape}, "
                f"expected {arrays[0].shape} as in sample 0"))
        arrays.append(array)
    stacked = np.stack(arrays)
    kind = stacked.dtype.kind
    if kind not in "biuf":
        raise TypeError(at_user(
            f"to_arrays: field {field} holds {stacked.dtype} values, expected numbers "
            f"(sample 0 is {values[0]!r:.60})"))
    # Python numbers carry no dtype of their own: NumPy would make them float64/int64.
    # Arrays and NumPy scalars carry the user's choice, which we keep.
    typed = all(isinstance(value, (np.ndarray, np.generic)) for value in values)
    if is_label and kind in "iu":
        return stacked.astype(np.int64, copy=False)
    if typed and kind in ("f" if is_label else "iuf"):
        return stacked
    return stacked.astype(np.float32, copy=False)


def iter_batches(data):
    """Yield batches as tuples of NumPy arrays from a reader creator or an iterable.

    This is how `fit`, `evaluate` and `predict` consume data that is not given as arrays.
    Each element the source yields is one batch:

    - a list is a batch of samples (what `batch` yields) and goes through `to_arrays`;
    - a tuple is a ready batch `(x, y)` or `(x,)` of arrays with the same first dimension;
    - an array is a ready batch of one field.

    Args:
        data: a reader creator (a callable returning an iterator of batches), called anew
            for each pass, or an iterable of batches (a list, a generator: a generator can
            only be read once).

    Returns:
        A generator of tuples of NumPy arrays.

    Raises:
        TypeError: `data` is neither callable nor iterable, or a batch is of another kind.
        ShapeError: a batch's arrays disagree in their first dimension, or its samples
            disagree in shape (see `to_arrays`).

    Example:
        >>> import numpy as np
        >>> from paddle import reader
        >>> samples = reader.creator.np_array(np.arange(10.0).reshape(5, 2))
        >>> [x.shape for x, in reader.iter_batches(reader.batch(samples, 2))]
        [(2, 2), (2, 2), (1, 2)]
        >>> [len(b) for b in reader.iter_batches([(np.zeros((4, 2)), np.zeros(4))])]
        [2]
    """
    if isinstance(data, (str, bytes, dict, np.ndarray)) or not (
            callable(data) or hasattr(data, "__iter__")):
        raise TypeError(at_user(
            f"iter_batches: expected a reader creator or an iterable of batches, received "
            f"{type(data).__name__}; pass NumPy arrays as x and y instead"))
    source = data if callable(data) else (lambda: data)
    return _batches(source)


def _batches(source):
    with opened(source) as batches:
        for index, batch in enumerate(batches):
            yield _as_batch(batch, index)


def _as_batch(batch, index):
    """One element of the source as a tuple of arrays, per the rules of `iter_batches`."""
    if isinstance(batch, list):
        if not batch:
            raise ValueError(f"iter_batches: batch {index} is an empty list")
        return to_arrays(batch)
    if isinstance(batch, np.ndarray):
        batch = (batch,)
    if isinstance(batch, tuple) and any(isinstance(part, dict) for part in batch):
        # Keras's (x, y) batches as dicts keyed by input / output names (what a tf.data
        # pipeline yields): the model orders them by name, so they pass as they are.
        return batch
    if not isinstance(batch, tuple) or not batch:
        raise TypeError(at_user(
            f"iter_batches: batch {index} is a {type(batch).__name__}, expected a list of "
            f"samples (from reader.batch) or a non-empty tuple of arrays"))
    arrays = tuple(np.asarray(part) for part in batch)
    sizes = [array.shape[0] if array.ndim else None for array in arrays]
    if None in sizes or len(set(sizes)) > 1:
        shapes = ", ".join(str(array.shape) for array in arrays)
        raise ShapeError(at_user(
            f"iter_batches: batch {index} has arrays of shapes {shapes}, expected one "
            f"first dimension shared by all (a reader of single samples needs reader.batch)"))
    return arrays
