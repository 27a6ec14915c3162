"""buffered and xmap_readers: order, errors from worker threads, and thread cleanup."""
import itertools
import threading
import time

import pytest

from paddle import reader


def counting(n):
    return lambda: iter(range(n))


def endless():
    return itertools.count()


def paddle_threads():
    return [t for t in threading.enumerate() if t.name.startswith("paddle-reader")]


@pytest.fixture(autouse=True)
def no_threads_left():
    """Every test here must end with no reader thread alive."""
    assert paddle_threads() == []
    yield
    assert paddle_threads() == []


class Boom(Exception):
    pass


def failing_after(n, error):
    def gen():
        yield from range(n)
        raise error
    return gen


# buffered

def test_buffered_keeps_order():
    assert list(reader.buffered(counting(100), 3)()) == list(range(100))


def test_buffered_reads_ahead_in_another_thread():
    seen = []

    def source():
        for i in range(5):
            seen.append(threading.current_thread().name)
            yield i

    assert list(reader.buffered(source, 10)()) == list(range(5))
    assert set(seen) == {"paddle-reader-buffered"}


def test_buffered_reraises_the_same_exception():
    error = Boom("disk on fire")
    it = reader.buffered(failing_after(3, error), 2)()
    assert [next(it) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(Boom) as caught:
        next(it)
    assert caught.value is error


def test_buffered_close_stops_an_endless_source():
    it = reader.buffered(endless, 2)()
    assert next(it) == 0
    assert len(paddle_threads()) == 1
    it.close()
    assert paddle_threads() == []


def test_buffered_break_stops_the_thread():
    for value in reader.buffered(endless, 4)():
        if value == 5:
            break
    assert paddle_threads() == []


def test_buffered_closes_its_source():
    closed = []

    def source():
        try:
            yield from itertools.count()
        finally:
            closed.append(True)

    it = reader.buffered(source, 1)()
    next(it)
    it.close()
    assert closed == [True]


def test_nested_buffered_and_firstn_leave_no_threads():
    pipeline = reader.firstn(reader.buffered(reader.buffered(endless, 2), 2), 7)
    assert list(pipeline()) == list(range(7))


def test_an_unstarted_buffered_reader_starts_no_thread():
    reader.buffered(endless, 2)()
    assert paddle_threads() == []


@pytest.mark.parametrize("size", [0, -1, 2.5])
def test_buffered_rejects_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        reader.buffered(counting(3), size)


# xmap_readers

def slow_square(x):
    # Later samples finish first, so an unordered reader has a reason to reorder.
    time.sleep(0.002 * (5 - x % 5))
    return x * x


def test_xmap_ordered_keeps_source_order():
    out = list(reader.xmap_readers(slow_square, counting(20), 4, 4, order=True)())
    assert out == [x * x for x in range(20)]


def test_xmap_unordered_yields_every_result():
    out = list(reader.xmap_readers(slow_square, counting(20), 4, 4)())
    assert sorted(out) == [x * x for x in range(20)]


def test_xmap_runs_in_several_threads():
    names = set()
    barrier = threading.Barrier(3, timeout=5)

    def mapper(x):
        names.add(threading.current_thread().name)
        if x < 3:
            barrier.wait()  # only passes when three workers run at once
        return x

    assert sorted(reader.xmap_readers(mapper, counting(6), 3, 2)()) == list(range(6))
    assert len(names) == 3


def test_xmap_reraises_the_mappers_exception():
    error = Boom("bad sample")

    def mapper(x):
        if x == 4:
            raise error
        return x

    for order in (True, False):
        with pytest.raises(Boom) as caught:
            list(reader.xmap_readers(mapper, counting(10), 2, 2, order=order)())
        assert caught.value is error


def test_xmap_reraises_the_sources_exception():
    error = Boom("source")
    with pytest.raises(Boom) as caught:
        list(reader.xmap_readers(abs, failing_after(5, error), 2, 2)())
    assert caught.value is error


def test_xmap_close_stops_workers_on_endless_source():
    it = reader.xmap_readers(abs, endless, 3, 2, order=True)()
    assert [next(it) for _ in range(4)] == [0, 1, 2, 3]
    assert paddle_threads()
    it.close()
    assert paddle_threads() == []


def test_xmap_reads_a_bounded_window_ahead():
    pulled = []

    def source():
        for i in itertools.count():
            pulled.append(i)
            yield i

    it = reader.xmap_readers(abs, source, 2, 3, order=True)()
    next(it)
    assert len(pulled) <= 2 + 3
    it.close()


@pytest.mark.parametrize("args", [(0, 1), (1, 0), (-1, 2), (2, None)])
def test_xmap_rejects_bad_sizes(args):
    with pytest.raises(ValueError):
        reader.xmap_readers(abs, counting(3), *args)


def test_xmap_inside_buffered_inside_firstn():
    pipeline = reader.firstn(reader.buffered(reader.xmap_readers(abs, endless, 2, 2, order=True), 3), 10)
    assert list(pipeline()) == list(range(10))
