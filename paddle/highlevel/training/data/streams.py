"""Batches from a reader creator (`pd.reader`: a new pass each epoch) or from any iterable
or generator of ready `(x, y)` / `(x, y, sample_weight)` batches (`StreamData`).

Example:
    >>> import numpy as np
    >>> from paddle.highlevel.training.data.streams import StreamData
    >>> batches = [(np.zeros((2, 3)), np.ones(2))] * 3
    >>> [len(y[0]) for x, y, sw in StreamData(batches, n_inputs=1).epoch()]
    [2, 2, 2]
"""
from paddle.reader.arrays import iter_batches
from paddle.reader.decorator import sharded
from paddle.highlevel.training.data.arrays import as_arrays, as_list, positive_int, sample_weights


class StreamData:
    """Batches from a reader creator (a new pass each epoch) or an iterable of batches.

    `shard = (rank, size, what)` (set by distributed training) keeps this rank's batches
    only (`pd.reader.shard`'s rule)."""

    def __init__(self, source, n_inputs, steps=None, names=(None, None)):
        self.source, self.n_inputs, self.names = source, n_inputs, names
        self.steps = positive_int(steps, "steps")
        self._iterator = None
        self.shard = None

    def epoch_plan(self, size):
        """What distributed training agrees on: a reader, its steps per epoch (-1: until it
        ends)."""
        return [2, -1, -1, -1 if self.steps is None else self.steps]

    def for_rank(self, w, what, training, agreed=False):
        """This rank's batches only: batch i goes to rank i % size (`pd.reader.shard`)."""
        self.shard = (w.rank, w.size, f"{what}: the data")
        return self

    def _stream(self, batches):
        return batches if self.shard is None else sharded(batches, *self.shard)

    def epoch(self):
        if callable(self.source):
            stream = self._stream(iter_batches(self.source))
        elif self.steps is not None:
            # With steps_per_epoch, a one-shot iterator continues where the last epoch stopped.
            if self._iterator is None:
                self._iterator = self._stream(iter(self.source))
            stream = self._iterator
        else:
            stream = self._stream(iter(self.source))
        count = 0
        for batch in stream:
            yield self._split(batch)
            count += 1
            if self.steps is not None and count >= self.steps:
                break

    def _split(self, batch):
        if isinstance(batch, dict):
            return as_arrays(as_list(batch, self.names[0], "x"), "x"), [], None
        if not isinstance(batch, (list, tuple)):
            return as_arrays([batch], "x"), [], None
        fields = list(batch)
        if len(fields) in (2, 3) and isinstance(fields[0], (list, tuple, dict)):
            x = as_arrays(as_list(fields[0], self.names[0], "x"), "x")
            rest = fields[1:]
        else:
            x = as_arrays(fields[:self.n_inputs], "x")
            rest = fields[self.n_inputs:]
        if not rest:
            return x, [], None
        y = as_arrays(as_list(rest[0], self.names[1], "y"), "y")
        sw = None if len(rest) < 2 else sample_weights(rest[1])
        for a in y:
            if len(a) != len(x[0]):
                raise ValueError(f"a batch has {len(x[0])} inputs but {len(a)} targets")
        return x, y, sw
