"""Lent feeds (paddle/lowlevel/lent_feeds.py): a large C-contiguous host array is read by
the kernels where it lies, the same values as when it is copied into the feed's buffer;
small, strided and otherwise unlendable feeds are copied; the caller's array is never
written and is not kept after the run."""
import math
import sys
import weakref
from functools import partial

import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel import executor, lent_feeds

RNG = np.random.default_rng(29)
ROWS = 256  # 256 x 128 float32 = 128 KiB: above lent_feeds.MIN_BYTES


def program_of(target, x):
    """The program that runs `target` on feeds of x's shape (after one run)."""
    plan = executor.plan_for([target], False, None)
    return next(p for key, p in plan.specialized.items() if key[0] == (x.shape,))


def dense(dtype="float32", cols=128):
    x = pd.data("x", shape=[None, cols], dtype=dtype)
    w = RNG.standard_normal((cols, 16)).astype(dtype)
    return x, w, pd.matmul(x, pd.constant(w)) + 1.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_large_feed_is_read_in_place(dtype):
    x, w, y = dense(dtype)
    a = RNG.standard_normal((ROWS, 128)).astype(dtype)
    assert a.nbytes >= lent_feeds.MIN_BYTES
    np.testing.assert_allclose(pd.eval(y, {x: a}), a @ w + 1.0, rtol=1e-5)
    program = program_of(y, a)
    assert program.lendable[0], "the matmul's call should read the fed array itself"
    # Poison the program's own feed buffer: a lent run never reads it.
    program.feeds[0].fill(np.nan)
    b = RNG.standard_normal((ROWS, 128)).astype(dtype)
    np.testing.assert_allclose(pd.eval(y, {x: b}), b @ w + 1.0, rtol=1e-5)
    assert np.isnan(program.feeds[0]).all()
    # The caller's array: unchanged, still writeable, and not kept by the program.
    assert b.flags.writeable
    ref = weakref.ref(b)
    before = sys.getrefcount(b)
    pd.eval(y, {x: b})
    assert sys.getrefcount(b) == before
    del b
    assert ref() is None


def test_writing_the_fed_array_between_runs_changes_the_result():
    x, w, y = dense()
    a = RNG.standard_normal((ROWS, 128)).astype(np.float32)
    first = pd.eval(y, {x: a})
    a[:10] = 0.0
    second = pd.eval(y, {x: a})
    np.testing.assert_allclose(second[:10], np.ones((10, 16)), rtol=0, atol=0)
    np.testing.assert_array_equal(second[10:], first[10:])


@pytest.mark.parametrize("make", [
    lambda a: np.asfortranarray(a),                       # not C-contiguous
    lambda a: np.repeat(a, 2, axis=1)[:, ::2],            # strided
    lambda a: a.astype(np.float64),                       # another dtype: converted, lent
    lambda a: a.astype(">f4"),                            # big-endian: converted
    lambda a: np.frombuffer(b"\0" + a.tobytes(), np.float32, a.size, 1).reshape(a.shape),
])
def test_feeds_of_every_layout_give_the_copied_values(make):
    x, w, y = dense()
    a = RNG.standard_normal((ROWS, 128)).astype(np.float32)
    fed = make(a)
    if fed.dtype == np.float32 and fed.dtype.isnative:
        np.testing.assert_array_equal(fed, a)
    expected = pd.eval(y, {x: np.ascontiguousarray(a)})
    np.testing.assert_array_equal(pd.eval(y, {x: fed}), expected)


def test_unaligned_and_strided_arrays_are_copied():
    unaligned = np.frombuffer(bytes(4 * 128 * ROWS + 1), np.float32, 128 * ROWS, 1)
    assert not unaligned.flags.aligned and not lent_feeds.can_lend(unaligned)
    strided = np.zeros((ROWS, 256), np.float32)[:, ::2]
    assert not lent_feeds.can_lend(strided)
    assert not lent_feeds.can_lend(np.zeros((4, 4), np.float32))  # small: copied
    assert lent_feeds.can_lend(np.zeros((ROWS, 128), np.float32))


def test_a_small_feed_is_copied():
    x, w, y = dense()
    a = RNG.standard_normal((4, 128)).astype(np.float32)
    np.testing.assert_allclose(pd.eval(y, {x: a}), a @ w + 1.0, rtol=1e-5)
    np.testing.assert_array_equal(program_of(y, a).feeds[0], a)


def test_a_feed_read_through_a_view_is_lent():
    x = pd.data("x", shape=[None, 8, 16])
    w = RNG.standard_normal((128, 4)).astype(np.float32)
    y = pd.matmul(pd.reshape(x, [-1, 128]), pd.constant(w))
    a = RNG.standard_normal((ROWS, 8, 16)).astype(np.float32)
    np.testing.assert_allclose(pd.eval(y, {x: a}), a.reshape(-1, 128) @ w, rtol=1e-4,
                               atol=1e-5)
    program = program_of(y, a)
    assert program.lendable[0]
    program.feeds[0].fill(np.nan)
    np.testing.assert_allclose(pd.eval(y, {x: a}), a.reshape(-1, 128) @ w, rtol=1e-4,
                               atol=1e-5)


def test_a_feed_that_is_also_a_result_is_copied():
    x, w, y = dense()
    a = RNG.standard_normal((ROWS, 128)).astype(np.float32)
    fed, out = pd.eval([x, y], {x: a})
    np.testing.assert_array_equal(fed, a)
    plan = executor.plan_for([x, y], False, None)
    program = next(iter(plan.specialized.values()))
    assert program.lendable == [None]
    a2 = a * 2
    fed2, _ = pd.eval([x, y], {x: a2})
    np.testing.assert_array_equal(fed2, a2)


def test_a_profiled_run_reads_the_lent_array():
    x, w, y = dense()
    a = RNG.standard_normal((ROWS, 128)).astype(np.float32)
    pd.eval(y, {x: a})
    program_of(y, a).feeds[0].fill(np.nan)
    with pd.profiler.profile() as prof:
        out = pd.eval(y, {x: a})
    np.testing.assert_allclose(out, a @ w + 1.0, rtol=1e-5)
    assert "matmul" in prof.table()


def test_lendable_rules():
    feed = np.zeros((4, 8))
    other = np.zeros(3)
    call = partial(math.fsum, feed.reshape(32))
    assert lent_feeds.lendable(feed, [call], [[feed]], []) == [(0, [("arg", 0, (32,))])]
    # A keyword argument is lent too; a bound method (its object may hold anything) is not.
    kw = partial(np.array, object=feed)
    assert lent_feeds.lendable(feed, [kw], [[feed]], []) == [(0, [("kw", "object", (4, 8))])]
    assert lent_feeds.lent([kw], [(0, [("kw", "object", (4, 8))])], feed + 1)[0]().sum() == 32
    assert lent_feeds.lendable(feed, [partial(other.dot, feed[0, :3])], [[feed]], []) is None
    # A closure, a strided view, a list holding the feed, a result that is the feed:
    # none can be redirected, so the feed is copied.
    assert lent_feeds.lendable(feed, [lambda: feed.sum()], [[feed]], []) is None
    assert lent_feeds.lendable(feed, [partial(math.fsum, feed[:, ::2].ravel())],
                               [[feed]], []) is None
    assert lent_feeds.lendable(feed, [partial(math.fsum, feed[1])], [[feed]], []) is None
    assert lent_feeds.lendable(feed, [partial(max, [feed.reshape(32)])], [[feed]], []) is None
    assert lent_feeds.lendable(feed, [call], [[feed]], [feed]) is None
    # A call that does not read the feed is left as it is, whatever its form.
    assert lent_feeds.lendable(feed, [lambda: other.sum(), call], [[other], [feed]],
                               []) == [(1, [("arg", 0, (32,))])]


def test_lent_calls_read_a_read_only_view():
    feed = np.zeros((4, 8))
    call = partial(math.fsum, feed.reshape(32))
    found = lent_feeds.lendable(feed, [call], [[feed]], [])
    x = np.arange(32.0).reshape(4, 8)
    (lent,) = lent_feeds.lent([call], found, x)
    (view,) = lent.args
    assert not view.flags.writeable and np.shares_memory(view, x) and x.flags.writeable
    assert call.args[0] is not view  # the prepared call itself is unchanged
    assert lent() == sum(range(32))
