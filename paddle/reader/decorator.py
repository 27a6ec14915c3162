"""Reader decorators that run in the consumer's thread: batch, shuffle, compose and friends.

A *reader creator* is a function with no arguments that returns an iterator of samples.
Every decorator here takes reader creators and returns a new one, so they stack:
`batch(shuffle(mnist.train(), 1024), 64)`. Nothing is read until the result is called and
iterated, and each call starts a fresh pass over the data.
"""
import contextlib
import itertools

from paddle.errors import PaddleError
from paddle.lowlevel.random_state import generator


class ComposeNotAligned(PaddleError, ValueError):
    """The readers given to `compose` ran out at different samples."""


@contextlib.contextmanager
def opened(reader):
    """Call a reader creator and close its iterator on the way out.

    Closing matters for readers that own threads or files (`buffered`, `xmap_readers`,
    `text_file`): a consumer that stops early must not leave them behind.

    Args:
        reader: a reader creator.

    Returns:
        A context manager yielding the reader's iterator.

    Example:
        >>> from paddle.reader.decorator import opened
        >>> with opened(lambda: iter([1, 2, 3])) as it:
        ...     next(it)
        1
    """
    samples = reader()
    try:
        iterator = iter(samples)
    except TypeError:
        raise TypeError(f"reader: a reader creator must return an iterator of samples, "
                        f"{getattr(reader, '__name__', reader)!r} returned "
                        f"{type(samples).__name__}") from None
    try:
        yield iterator
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()


def _check_readers(func, *readers):
    """Every reader must be a reader creator: a non-callable would fail only when read, in
    the middle of a training loop, as "'list' object is not callable"."""
    for r in readers:
        if not callable(r):
            raise TypeError(f"{func}: expected a reader creator (a function returning an "
                            f"iterator of samples), received {type(r).__name__}")


def _check_positive(func, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{func}: expected {name} to be a positive integer, received {value!r}")


def batch(reader, batch_size, drop_last=False):
    """Group the samples of a reader into lists of `batch_size`.

    Args:
        reader: a reader creator yielding samples.
        batch_size: samples per batch, a positive integer.
        drop_last: drop the last batch when it holds fewer than `batch_size` samples.

    Returns:
        A reader creator yielding lists of samples.

    Raises:
        ValueError: `batch_size` is not a positive integer.

    Example:
        >>> from paddle import reader
        >>> list(reader.batch(lambda: iter(range(5)), 2)())
        [[0, 1], [2, 3], [4]]
        >>> list(reader.batch(lambda: iter(range(5)), 2, drop_last=True)())
        [[0, 1], [2, 3]]
    """
    _check_readers("batch", reader)
    _check_positive("batch", "batch_size", batch_size)
    if not isinstance(drop_last, bool):  # bool('no') is True
        raise ValueError(f"batch: expected drop_last to be True or False, received "
                         f"{drop_last!r}")

    def batch_reader():
        with opened(reader) as samples:
            group = []
            for sample in samples:
                group.append(sample)
                if len(group) == batch_size:
                    yield group
                    group = []
            if group and not drop_last:
                yield group

    return batch_reader


def shuffle(reader, buf_size):
    """Shuffle samples within a buffer of `buf_size`, as PaddlePaddle did.

    The buffer is filled, shuffled and emptied in turn, so samples move at most
    `buf_size` places: use a buffer at least as large as the data set for a full shuffle.
    The order is drawn from paddle's random state, so `pd.seed(n)` makes it reproducible.

    Args:
        reader: a reader creator.
        buf_size: how many samples to shuffle together, a positive integer.

    Returns:
        A reader creator yielding the same samples in a shuffled order.

    Raises:
        ValueError: `buf_size` is not a positive integer.

    Example:
        >>> from paddle import reader
        >>> from paddle.lowlevel.random_state import seed
        >>> seed(0)
        >>> sorted(reader.shuffle(lambda: iter(range(5)), 10)())
        [0, 1, 2, 3, 4]
    """
    _check_readers("shuffle", reader)
    _check_positive("shuffle", "buf_size", buf_size)

    def shuffled_reader():
        # Looked up per pass, not at decoration: `pd.seed` replaces the generator.
        rng = generator()
        with opened(reader) as samples:
            buffer = []
            for sample in samples:
                buffer.append(sample)
                if len(buffer) >= buf_size:
                    yield from _permuted(buffer, rng)
                    buffer = []
            yield from _permuted(buffer, rng)

    return shuffled_reader


def _permuted(buffer, rng):
    # A permutation of indices, not rng.shuffle(buffer): samples may be tuples or arrays,
    # which NumPy would try to treat as one array.
    return [buffer[i] for i in rng.permutation(len(buffer))]


def compose(*readers, check_alignment=True):
    """Zip several readers into one whose samples are the flattened tuples of theirs.

    `compose(a, b)` yields `(1, 2, 3)` when `a` yields `1` and `b` yields `(2, 3)`.

    Args:
        *readers: reader creators.
        check_alignment: raise when the readers end at different lengths; when False,
            stop silently at the shortest one.

    Returns:
        A reader creator yielding tuples.

    Raises:
        ComposeNotAligned: (while iterating) one reader ended before the others.

    Example:
        >>> from paddle import reader
        >>> xs = lambda: iter([1, 2])
        >>> ys = lambda: iter([("a", True), ("b", False)])
        >>> list(reader.compose(xs, ys)())
        [(1, 'a', True), (2, 'b', False)]
    """
    _check_readers("compose", *readers)

    def composed_reader():
        with contextlib.ExitStack() as stack:
            iterators = [stack.enter_context(opened(r)) for r in readers]
            for index in itertools.count():
                outputs = [next(it, _END) for it in iterators]
                ended = [i for i, output in enumerate(outputs) if output is _END]
                if len(ended) == len(outputs):
                    return
                if ended:
                    if check_alignment:
                        longer = next(i for i, o in enumerate(outputs) if o is not _END)
                        raise ComposeNotAligned(
                            f"compose: reader {ended[0]} ended after {index} samples while "
                            f"reader {longer} had more; pass check_alignment=False to stop "
                            f"at the shortest")
                    return
                yield sum((_as_tuple(output) for output in outputs), ())

    return composed_reader


_END = object()  # end-of-reader marker: None is a legitimate sample


def _as_tuple(sample):
    return sample if isinstance(sample, tuple) else (sample,)


def chain(*readers):
    """Read several readers one after the other.

    Args:
        *readers: reader creators.

    Returns:
        A reader creator yielding all samples of the first reader, then the second, ...

    Example:
        >>> from paddle import reader
        >>> list(reader.chain(lambda: iter([1, 2]), lambda: iter([3]))())
        [1, 2, 3]
    """
    _check_readers("chain", *readers)

    def chained_reader():
        for reader in readers:
            with opened(reader) as samples:
                yield from samples

    return chained_reader


def map_readers(func, *readers):
    """Apply `func` to the samples of one or more readers taken side by side.

    Stops at the shortest reader, like the built-in `map`.

    Args:
        func: called as `func(sample_of_reader_0, sample_of_reader_1, ...)`.
        *readers: reader creators.

    Returns:
        A reader creator yielding `func`'s results.

    Example:
        >>> from paddle import reader
        >>> list(reader.map_readers(lambda a, b: a + b, lambda: iter([1, 2]), lambda: iter([10, 20]))())
        [11, 22]
    """
    if not callable(func):
        raise TypeError(f"map_readers: expected a function as func, received "
                        f"{type(func).__name__}")
    if not readers:
        raise TypeError("map_readers: expected at least one reader creator after func")
    _check_readers("map_readers", *readers)

    def mapped_reader():
        with contextlib.ExitStack() as stack:
            iterators = [stack.enter_context(opened(r)) for r in readers]
            yield from map(func, *iterators)

    return mapped_reader


def firstn(reader, n):
    """Keep only the first `n` samples of a reader.

    The upstream reader is closed after the n-th sample; it is never asked for one more.

    Args:
        reader: a reader creator.
        n: how many samples to keep, a non-negative integer.

    Returns:
        A reader creator yielding at most `n` samples.

    Raises:
        ValueError: `n` is negative or not an integer.

    Example:
        >>> from paddle import reader
        >>> import itertools
        >>> list(reader.firstn(lambda: itertools.count(), 3)())
        [0, 1, 2]
    """
    _check_readers("firstn", reader)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"firstn: expected n to be a non-negative integer, received {n!r}")

    def firstn_reader():
        if n == 0:
            return
        with opened(reader) as samples:
            yield from itertools.islice(samples, n)

    return firstn_reader


def shard(reader, rank, size):
    """The part of a reader that belongs to rank `rank` of `size` (data-parallel training).

    Items are taken in groups of `size` and rank r keeps the r-th of each group; a last,
    incomplete group is dropped on every rank, so every rank gets exactly as many items
    (`n // size`). Applied to a batched reader, every rank therefore runs the same number
    of steps, which distributed training needs (a rank with one step more would wait for
    the others forever). Every rank must read the same sequence: seed shuffling readers
    with `pd.seed` on every rank. `fit` and `Trainer.train` apply it themselves after
    `pd.distributed.init()`; use it for loops of your own.

    Args:
        reader: a reader creator.
        rank: this process's rank, 0 <= rank < size.
        size: the number of ranks, a positive integer.

    Returns:
        A reader creator yielding this rank's items.

    Raises:
        ValueError: a bad rank or size; or (when read) a reader yielding at least one
            item but fewer than `size`, which would leave some ranks without data.

    Example:
        >>> from paddle import reader
        >>> list(reader.shard(lambda: iter(range(7)), rank=1, size=3)())
        [1, 4]
    """
    _check_readers("shard", reader)
    _check_positive("shard", "size", size)
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < size:
        raise ValueError(f"shard: expected rank to be an integer in [0, {size}), received "
                         f"{rank!r}")

    def shard_reader():
        with opened(reader) as items:
            yield from sharded(items, rank, size)

    return shard_reader


def sharded(items, rank, size, what="shard: the reader"):
    """Rank `rank`'s items of an iterator (see `shard`)."""
    count = 0
    group = []
    for item in items:
        group.append(item)
        count += 1
        if len(group) == size:
            yield group[rank]
            group = []
    if 0 < count < size:
        raise ValueError(f"{what} yielded {count} item(s) for {size} ranks: every rank needs "
                         f"at least one")


def cache(reader):
    """Read a reader once and replay its samples from memory afterwards.

    The samples are kept only after a pass ran to the end: a pass that stops early caches
    nothing, and the next one reads the source again.

    Args:
        reader: a reader creator whose samples fit in memory.

    Returns:
        A reader creator yielding the same samples.

    Example:
        >>> from paddle import reader
        >>> calls = []
        >>> def source():
        ...     calls.append(1)
        ...     return iter([1, 2])
        >>> cached = reader.cache(source)
        >>> list(cached()), list(cached()), len(calls)
        ([1, 2], [1, 2], 1)
    """
    _check_readers("cache", reader)
    stored = []  # holds one list once a full pass is done

    def cached_reader():
        if stored:
            yield from stored[0]
            return
        samples = []
        with opened(reader) as source:
            for sample in source:
                samples.append(sample)
                yield sample
        if not stored:
            stored.append(samples)

    return cached_reader
