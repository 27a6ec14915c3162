"""`timeseries_dataset_from_array`: sliding windows over a series, batched, as Keras 3.

Example:
    >>> import numpy as np, paddle as pd
    >>> windows = pd.utils.timeseries_dataset_from_array(
    ...     np.arange(10), targets=None, sequence_length=3, batch_size=4)
    >>> len(windows), windows[0].tolist()
    (2, [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]])
"""
import numbers

import numpy as np

from paddle.highlevel.training.data.py_dataset import PyDataset


class TimeseriesDataset(PyDataset):
    """Batches of windows: what `timeseries_dataset_from_array` returns. A PyDataset, so
    `fit`, `evaluate` and `predict` read it; `len()` is the number of batches, `ds[i]` batch
    i (`x`, or `(x, y)` with targets), and iterating gives the batches in order.

    Attributes:
        start_positions: the first index (into `data[start_index:end_index]`) of each
            window, in the order they are served.
    """

    def __init__(self, data, targets, positions, offsets, batch_size):
        super().__init__()
        self.data, self.targets = data, targets
        self.start_positions, self.offsets = positions, offsets
        self.batch_size = batch_size

    def __len__(self):
        if self.batch_size is None:
            return len(self.start_positions)
        return -(-len(self.start_positions) // self.batch_size)

    def __getitem__(self, index):
        if not isinstance(index, numbers.Integral) or not -len(self) <= index < len(self):
            raise IndexError(f"TimeseriesDataset: batch index {index!r} outside "
                             f"[0, {len(self)})")
        index = int(index) % len(self)
        if self.batch_size is None:  # one window, without a batch axis (as Keras)
            starts = self.start_positions[index:index + 1]
        else:
            starts = self.start_positions[index * self.batch_size:(index + 1) * self.batch_size]
        x = self.data[starts[:, None] + self.offsets[None, :]]
        if self.batch_size is None:
            x = x[0]
        if self.targets is None:
            return x
        y = self.targets[starts]
        return x, (y[0] if self.batch_size is None else y)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


def _int(value, name, low):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"timeseries_dataset_from_array: expected {name} to be an integer >= "
                         f"{low}, received {value!r}")
    return int(value)


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None, format="tf"):
    """Windows over `data` (timesteps along its first axis) and their targets, batched:
    Keras 3's windows, in Keras 3's order.

    Window i starts at `start_positions[i] = i * sequence_stride` (counted from
    `start_index`) and holds `sequence_length` timesteps `sampling_rate` apart; its target
    is `targets[start_index + start_positions[i]]` (targets are aligned with the window's
    first timestep: pass `targets=data[k:]` to predict k steps ahead). There are
    `end_index - start_index - (sequence_length - 1) * sampling_rate` windows at most, and
    no more than `len(targets)`.

    Args:
        data: an array (or anything `np.asarray` takes) of timesteps along axis 0.
        targets: an array of one target per timestep, or None (batches are then `x` alone).
        sequence_length: timesteps per window.
        sequence_stride: timesteps between the starts of successive windows.
        sampling_rate: timesteps between two steps of a window.
        batch_size: windows per batch (the last batch may be smaller); None for single
            windows without a batch axis.
        shuffle: shuffle the windows, once, with NumPy's `RandomState(seed)`, as Keras
            shuffles the start positions (Keras's tf.data also reshuffles batches within a
            buffer on every pass; paddle keeps the one order).
        seed: the shuffle's seed (None: a random one).
        start_index, end_index: the part of `data` (and `targets`) to use, end excluded.
        format: Keras's "tf" or "grain" (which pipeline Keras builds); both give paddle's
            TimeseriesDataset.

    Returns:
        A `TimeseriesDataset` (a PyDataset) of `(x, y)` batches, or `x` batches without
        targets: x of shape `(batch, sequence_length) + data.shape[1:]`.

    Raises:
        ValueError: arguments out of range (as Keras 3, with the argument and its value).

    Example:
        >>> import numpy as np, paddle as pd
        >>> data = np.arange(100)
        >>> ds = pd.utils.timeseries_dataset_from_array(
        ...     data, targets=data[10:], sequence_length=10, sampling_rate=2,
        ...     batch_size=8)
        >>> x, y = ds[0]
        >>> x.shape, x[0].tolist(), int(y[0])
        ((8, 10), [0, 2, 4, 6, 8, 10, 12, 14, 16, 18], 10)
    """
    data = np.asarray(data)
    if data.ndim == 0:
        raise ValueError("timeseries_dataset_from_array: expected data with timesteps along "
                         "its first axis, received a scalar")
    n = len(data)
    sequence_length = _int(sequence_length, "sequence_length", 1)
    sequence_stride = _int(sequence_stride, "sequence_stride", 1)
    sampling_rate = _int(sampling_rate, "sampling_rate", 1)
    if batch_size is not None:
        batch_size = _int(batch_size, "batch_size", 1)
    if start_index is not None:
        start_index = _int(start_index, "start_index", 0)
        if start_index >= n:
            raise ValueError(f"`start_index` must be lower than the length of the data. "
                             f"Received: start_index={start_index}, for data of length {n}")
    if end_index is not None:
        end_index = _int(end_index, "end_index", 1)
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index}")
        if end_index >= n:
            raise ValueError(f"`end_index` must be lower than the length of the data. "
                             f"Received: end_index={end_index}, for data of length {n}")
    if sampling_rate >= n:
        raise ValueError(f"`sampling_rate` must be lower than the length of the data. "
                         f"Received: sampling_rate={sampling_rate}, for data of length {n}")
    if sequence_stride >= n:
        raise ValueError(f"`sequence_stride` must be lower than the length of the data. "
                         f"Received: sequence_stride={sequence_stride}, for data of length {n}")
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: '
                         f"format={format!r}")
    start = start_index or 0
    end = n if end_index is None else end_index
    count = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        targets = np.asarray(targets)
        if targets.ndim == 0:
            raise ValueError("timeseries_dataset_from_array: expected one target per "
                             "timestep, received a scalar")
        count = min(count, len(targets))
        targets = targets[start:end]
    positions = np.arange(0, max(count, 0), sequence_stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(positions)
    offsets = np.arange(0, sequence_length * sampling_rate, sampling_rate, dtype=np.int64)
    return TimeseriesDataset(data[start:end], targets, positions, offsets, batch_size)
