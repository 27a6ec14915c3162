"""The one data-input adapter of fit, evaluate and predict: what the user passes, turned into
batches of NumPy arrays.

Every source plugs in here as a class with `epoch()` (the batches of one pass, each
`(x_list, y_list, sample_weight or None)`), `steps` (batches per epoch, None: unknown),
and, for distributed training, `epoch_plan(size)` and `for_rank(...)`
(paddle/distributed/training.py):

- NumPy arrays, lists or dicts of them: `arrays.ArrayData` (sliced into batches,
  shuffled per epoch; dicts put in the order of the model's input or output names);
- a reader creator from `pd.reader` (a no-argument function returning an iterator of
  batches), or any iterable or generator of ready batches: `streams.StreamData`;
- a `pd.utils.PyDataset` (or any object with `__len__` and `__getitem__` returning
  batches): `py_dataset.IndexedData`.

`pd.dataset`'s readers are reader creators, so they plug in as the second kind.
`adapter_utils.py` holds Keras's `pack_x_y_sample_weight`, `unpack_x_y_sample_weight` and
`split_dataset` (`pd.utils`).

Example:
    >>> import numpy as np
    >>> from paddle.highlevel.training import data
    >>> source = data.adapt(np.zeros((10, 3)), np.zeros(10), batch_size=4)
    >>> type(source).__name__, source.steps
    ('ArrayData', 3)
"""
import numpy as np

from paddle.highlevel.training.data.arrays import ArrayData
from paddle.highlevel.training.data.py_dataset import IndexedData
from paddle.highlevel.training.data.streams import StreamData


def _is_indexed(x):
    """A PyDataset-like source: batches by index, but not arrays or containers of them."""
    if isinstance(x, (np.ndarray, list, tuple, dict, str, bytes)):
        return False
    return hasattr(x, "__len__") and hasattr(x, "__getitem__")


def adapt(x, y=None, sample_weight=None, batch_size=None, shuffle=False, steps=None,
          n_inputs=1, names=(None, None)):
    """The right data source for what the user passed; `names`: the model's (input names,
    output names) that dicts of arrays are ordered by."""
    if isinstance(x, dict):
        return ArrayData(x, y, sample_weight, batch_size, shuffle, steps, names)
    if isinstance(x, (str, bytes)):  # iterable, but not a source of batches
        raise TypeError(f"x: expected NumPy arrays, a reader creator, a PyDataset or an "
                        f"iterable of batches, received the {type(x).__name__} {x[:40]!r} "
                        f"(load the data into arrays first)")
    if _is_indexed(x):
        if y is not None or sample_weight is not None:
            raise ValueError(f"a {type(x).__name__} yields (x, y) batches itself: do not pass "
                             f"y or sample_weight")
        return IndexedData(x, n_inputs, steps, names)
    if callable(x) and not isinstance(x, np.ndarray):
        if y is not None:
            raise ValueError("a reader creator yields (x, y) itself: do not pass y")
        return StreamData(x, n_inputs, steps, names)
    if isinstance(x, (np.ndarray, list, tuple)) and _is_array_like(x):
        return ArrayData(x, y, sample_weight, batch_size, shuffle, steps, names)
    if hasattr(x, "__iter__"):
        if y is not None:
            raise ValueError("an iterable of batches yields (x, y) itself: do not pass y")
        return StreamData(x, n_inputs, steps, names)
    raise TypeError(f"expected NumPy arrays, a reader creator or an iterable of batches, "
                    f"received {type(x).__name__}")


def _is_array_like(x):
    """Arrays, or a list/tuple of arrays (several inputs) — not a list of batches."""
    if isinstance(x, np.ndarray):
        return True
    if not x:
        return True
    if all(isinstance(a, np.ndarray) for a in x):
        # A list of equal-length arrays is several inputs; tuples of (x, y) pairs are batches.
        return True
    return all(np.isscalar(a) or isinstance(a, (list, float, int)) for a in x)
