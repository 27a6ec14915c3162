"""The single-threaded reader decorators: batch, shuffle, compose, chain, map_readers, firstn, cache."""
import itertools

import pytest

from paddle import reader
from paddle.lowlevel.random_state import seed


def counting(n):
    """A reader creator over 0..n-1."""
    return lambda: iter(range(n))


class Tracked:
    """A reader creator that records how many samples were pulled and whether it was closed."""

    def __init__(self, n=None):
        self.n = n
        self.pulled = 0
        self.closed = 0
        self.calls = 0

    def __call__(self):
        self.calls += 1

        def gen():
            try:
                for i in (itertools.count() if self.n is None else range(self.n)):
                    self.pulled += 1
                    yield i
            finally:
                self.closed += 1

        return gen()


# batch

@pytest.mark.parametrize("n, size, drop_last, expected", [
    (5, 2, False, [[0, 1], [2, 3], [4]]),
    (5, 2, True, [[0, 1], [2, 3]]),
    (4, 2, True, [[0, 1], [2, 3]]),
    (3, 5, False, [[0, 1, 2]]),
    (3, 5, True, []),
    (0, 2, False, []),
])
def test_batch_sizes_and_drop_last(n, size, drop_last, expected):
    assert list(reader.batch(counting(n), size, drop_last=drop_last)()) == expected


@pytest.mark.parametrize("size", [0, -1, 1.5, True, "2"])
def test_batch_rejects_bad_size(size):
    with pytest.raises(ValueError, match="batch_size"):
        reader.batch(counting(3), size)


def test_batch_is_a_fresh_pass_each_call():
    batched = reader.batch(counting(3), 2)
    assert list(batched()) == list(batched()) == [[0, 1], [2]]


# shuffle

def test_shuffle_keeps_every_sample():
    seed(1)
    out = list(reader.shuffle(counting(50), 7)())
    assert sorted(out) == list(range(50))
    assert out != list(range(50))


def test_shuffle_moves_samples_only_within_their_buffer():
    seed(2)
    out = list(reader.shuffle(counting(12), 4)())
    for start in (0, 4, 8):
        assert sorted(out[start:start + 4]) == list(range(start, start + 4))


def test_shuffle_is_reproducible_under_seed():
    shuffled = reader.shuffle(counting(100), 100)
    seed(7)
    first = list(shuffled())
    second = list(shuffled())
    seed(7)
    again = list(shuffled())
    assert first == again
    assert first != second  # the state moves on between passes


def test_shuffle_reads_the_generator_at_iteration_time():
    shuffled = reader.shuffle(counting(30), 30)  # decorated before the seed
    seed(3)
    a = list(shuffled())
    seed(3)
    assert list(shuffled()) == a


def test_shuffle_handles_tuple_samples():
    seed(0)
    samples = [((i, i), str(i)) for i in range(6)]
    out = list(reader.shuffle(lambda: iter(samples), 3)())
    assert sorted(out) == sorted(samples)


@pytest.mark.parametrize("size", [0, -3, None])
def test_shuffle_rejects_bad_buffer(size):
    with pytest.raises(ValueError, match="buf_size"):
        reader.shuffle(counting(3), size)


# compose

def test_compose_flattens_tuples():
    a = lambda: iter([1, 2])  # noqa: E731
    b = lambda: iter([("x", 10), ("y", 20)])  # noqa: E731
    c = lambda: iter([None, None])  # noqa: E731  (None is a valid sample)
    assert list(reader.compose(a, b, c)()) == [(1, "x", 10, None), (2, "y", 20, None)]


def test_compose_raises_when_lengths_differ():
    composed = reader.compose(counting(3), counting(5))
    with pytest.raises(reader.ComposeNotAligned, match=r"reader 0 ended after 3 samples while reader 1"):
        list(composed())
    assert issubclass(reader.ComposeNotAligned, ValueError)


def test_compose_without_alignment_stops_at_shortest():
    assert list(reader.compose(counting(3), counting(5), check_alignment=False)()) == [
        (0, 0), (1, 1), (2, 2)]


def test_compose_closes_its_readers():
    a, b = Tracked(10), Tracked(10)
    it = reader.compose(a, b)()
    next(it)
    it.close()
    assert a.closed == b.closed == 1


# chain, map_readers

def test_chain_reads_in_sequence_and_lazily():
    second = Tracked(2)
    it = reader.chain(counting(2), second)()
    assert [next(it), next(it)] == [0, 1]
    assert second.calls == 0
    assert list(it) == [0, 1]


def test_chain_of_nothing_is_empty():
    assert list(reader.chain()()) == []


def test_map_readers_applies_func_across_readers():
    assert list(reader.map_readers(lambda a, b: a * b, counting(4), counting(3))()) == [0, 1, 4]
    assert list(reader.map_readers(str, counting(3))()) == ["0", "1", "2"]


# firstn

def test_firstn_pulls_exactly_n_and_closes_the_source():
    source = Tracked()  # endless
    assert list(reader.firstn(source, 3)()) == [0, 1, 2]
    assert source.pulled == 3
    assert source.closed == 1


def test_firstn_of_short_reader_and_zero():
    assert list(reader.firstn(counting(2), 5)()) == [0, 1]
    source = Tracked(5)
    assert list(reader.firstn(source, 0)()) == []
    assert source.calls == 0


@pytest.mark.parametrize("n", [-1, 2.0, None])
def test_firstn_rejects_bad_n(n):
    with pytest.raises(ValueError, match="firstn"):
        reader.firstn(counting(3), n)


# cache

def test_cache_reads_the_source_once():
    source = Tracked(4)
    cached = reader.cache(source)
    assert list(cached()) == list(cached()) == [0, 1, 2, 3]
    assert source.calls == 1


def test_cache_ignores_an_interrupted_pass():
    source = Tracked(4)
    cached = reader.cache(source)
    it = cached()
    next(it)
    it.close()
    assert list(cached()) == [0, 1, 2, 3]
    assert list(cached()) == [0, 1, 2, 3]
    assert source.calls == 2


# stacking

def test_decorators_stack():
    seed(0)
    pipeline = reader.batch(reader.shuffle(reader.firstn(counting(100), 10), 10), 4, drop_last=True)
    batches = list(pipeline())
    assert [len(b) for b in batches] == [4, 4]
    assert len(set(itertools.chain(*batches))) == 8
    assert set(itertools.chain(*batches)) <= set(range(10))


# ---- shard ------------------------------------------------------------------------------

def test_shard_gives_disjoint_equal_parts():
    from paddle import reader
    source = lambda: iter(range(11))  # noqa: E731
    parts = [list(reader.shard(source, r, 3)()) for r in range(3)]
    assert parts == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]  # 9 and 10: an incomplete round
    assert list(reader.shard(source, 0, 1)()) == list(range(11))


def test_shard_of_batches_gives_every_rank_the_same_count():
    from paddle import reader
    batches = reader.batch(lambda: iter(range(10)), 3)  # 4 batches, the last of 1
    parts = [list(reader.shard(batches, r, 2)()) for r in range(2)]
    assert parts == [[[0, 1, 2], [6, 7, 8]], [[3, 4, 5], [9]]]


def test_shard_bad_input():
    from paddle import reader
    source = lambda: iter(range(4))  # noqa: E731
    for rank, size in ((2, 2), (-1, 2), (0, 0), (True, 2), (0, 1.5)):
        with pytest.raises(ValueError, match="shard: expected"):
            reader.shard(source, rank, size)
    with pytest.raises(TypeError, match="shard: expected a reader creator"):
        reader.shard([1, 2], 0, 2)
    with pytest.raises(ValueError, match="yielded 2 item.* for 3 ranks"):
        list(reader.shard(lambda: iter(range(2)), 0, 3)())
    assert list(reader.shard(lambda: iter(()), 1, 3)()) == []
