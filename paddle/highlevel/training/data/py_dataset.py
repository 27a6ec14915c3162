"""`PyDataset`: a batch source indexed by batch number, as `keras.utils.PyDataset`.

`fit`, `evaluate` and `predict` accept a PyDataset, or any object with `__len__` (the
number of batches) and `__getitem__(i)` returning batch `i` as `x`, `(x, y)` or
`(x, y, sample_weight)`. Batches are read in order; `on_epoch_begin` / `on_epoch_end` are
called around every pass (shuffle there). With `workers > 1`, the next batches are read ahead
by that many threads, in order.

Example:
    >>> import numpy as np, paddle as pd
    >>> class Squares(pd.utils.PyDataset):
    ...     def __len__(self):
    ...         return 3
    ...     def __getitem__(self, i):
    ...         x = np.full((4, 1), i, np.float32)
    ...         return x, x * x
    >>> model = pd.Sequential([pd.layers.Input(shape=(1,)), pd.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> len(model.fit(Squares(), epochs=2, verbose=0).history["loss"])
    2
"""
import concurrent.futures
import numbers

from paddle.distributed import training as distributed_training
from paddle.highlevel.training.data.streams import StreamData


class PyDataset:
    """Base class of batch sources read by index: subclasses implement `__len__` and
    `__getitem__`, and may override `on_epoch_begin` / `on_epoch_end`.

    Args:
        workers: threads reading batches ahead (1: read each batch when it is needed).
        use_multiprocessing: accepted for Keras compatibility; paddle's workers are
            threads either way (batches are NumPy arrays, which release the GIL in NumPy's
            own work).
        max_queue_size: how many batches may be read ahead (with workers > 1).

    Raises:
        ValueError: workers or max_queue_size not a positive integer.
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        for name, value in (("workers", workers), ("max_queue_size", max_queue_size)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{type(self).__name__}: expected {name} as a positive "
                                 f"integer, received {value!r}")
        self._workers, self._max_queue_size = int(workers), int(max_queue_size)
        self._use_multiprocessing = bool(use_multiprocessing)

    @property
    def workers(self):
        return getattr(self, "_workers", 1)

    @property
    def use_multiprocessing(self):
        return getattr(self, "_use_multiprocessing", False)

    @property
    def max_queue_size(self):
        return getattr(self, "_max_queue_size", 10)

    @property
    def num_batches(self):
        """The number of batches in an epoch (`len(self)`)."""
        return len(self)

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __len__ (the number "
                                  "of batches)")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__ (batch "
                                  "number index)")

    def on_epoch_begin(self):
        """Called before each pass over the batches."""

    def on_epoch_end(self):
        """Called after each pass over the batches (shuffle here)."""


Sequence = PyDataset  # Keras 2's name


def num_batches(source):
    """len(source) as a batch count; ValueError naming the source when it is not one."""
    n = source.__len__()  # len() would refuse a negative count in words naming nothing
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 0:
        raise ValueError(f"{type(source).__name__}: expected __len__ to return the number of "
                         f"batches (an integer >= 0), received {n!r}")
    return int(n)


def iterate(source, steps=None):
    """Batches 0..len-1 of an indexable source (up to `steps`), read ahead by its workers."""
    n = num_batches(source)
    if steps is not None:
        n = min(n, steps)
    workers = getattr(source, "workers", 1)
    if not isinstance(workers, int) or workers <= 1:
        for i in range(n):
            yield source[i]
        return
    ahead = max(getattr(source, "max_queue_size", 10), workers)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        pending = [pool.submit(source.__getitem__, i) for i in range(min(ahead, n))]
        for i in range(n):
            batch = pending[i].result()
            pending[i] = None  # let the batch go once it is handed out
            if i + ahead < n:
                pending.append(pool.submit(source.__getitem__, i + ahead))
            yield batch


class IndexedData(StreamData):
    """Batches read by index from a PyDataset (or any object with __len__ / __getitem__),
    in order, with its on_epoch_begin / on_epoch_end hooks around every pass."""

    def __init__(self, source, n_inputs, steps=None, names=(None, None)):
        super().__init__(source, n_inputs, steps, names)
        full = num_batches(source)
        self.steps = full if self.steps is None else min(self.steps, full)

    def epoch_plan(self, size):
        """What distributed training agrees on: a PyDataset, its batches and the steps of
        an epoch on each of `size` ranks."""
        n = num_batches(self.source)
        return [1, n, -1, min(self.steps, n // size)]

    def for_rank(self, w, what, training, agreed=False):
        """This rank's batches, read by index (batch i * size + rank of the source)."""
        self.source = distributed_training.IndexShard(
            self.source, num_batches(self.source), w, what, agreed)
        self.steps = min(self.steps, len(self.source))
        return self

    def epoch(self):
        hook = getattr(self.source, "on_epoch_begin", None)
        if callable(hook):
            hook()
        try:
            for batch in iterate(self.source, self.steps):
                yield self._split(batch)
        finally:
            hook = getattr(self.source, "on_epoch_end", None)
            if callable(hook):
                hook()
