"""Readers: functions that produce samples, and decorators that combine them.

A *reader creator* is a no-argument function returning an iterator of samples; each call
starts a new pass. Decorators take reader creators and return new ones:

    >>> import numpy as np
    >>> from paddle import reader
    >>> samples = reader.creator.np_array(np.arange(10))
    >>> batches = reader.batch(reader.firstn(samples, 5), 2)
    >>> [[int(v) for v in b] for b in batches()]
    [[0, 1], [2, 3], [4]]

See docs/data.md for the whole tour.
"""
from paddle.reader import creator  # noqa: F401
from paddle.reader.arrays import iter_batches, to_arrays  # noqa: F401
from paddle.reader.decorator import (  # noqa: F401
    ComposeNotAligned, batch, cache, chain, compose, firstn, map_readers, shard, shuffle)
from paddle.reader.parallel import buffered, xmap_readers  # noqa: F401

__all__ = [
    "ComposeNotAligned", "batch", "buffered", "cache", "chain", "compose", "creator", "firstn",
    "iter_batches", "map_readers", "shard", "shuffle", "to_arrays", "xmap_readers",
]
