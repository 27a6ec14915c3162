"""The ordering ops (paddle/lowlevel/ops/sort.py): argsort, take_along_axis and its adjoint
(int32 and int64 indices), cumsum, cumprod, diff, searchsorted; forward against NumPy on every
device, gradients, bad input."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.errors import ShapeError
from paddle.lowlevel.ops.sort import (argsort, cumprod, cumsum, diff, searchsorted,
                                      take_along_axis)

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_is_numpys_stable_order(dtype, axis, descending):
    a = RNG.integers(-3, 4, size=(5, 6, 3)).astype(dtype)  # many ties
    got = pd.eval(argsort(pd.constant(a), axis, descending))
    key = -a.astype(np.float64) if descending else a
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argsort(key, axis=axis, kind="stable"))


def test_argsort_puts_nan_last_both_ways():
    a = np.array([2.0, np.nan, -1.0, np.nan, 5.0], np.float32)
    assert pd.eval(argsort(pd.constant(a), 0)).tolist() == [2, 0, 4, 1, 3]
    assert pd.eval(argsort(pd.constant(a), 0, descending=True)).tolist() == [4, 0, 2, 1, 3]


def test_descending_integers_keep_the_smallest_last():
    a = np.array([3, np.iinfo(np.int32).min, 5, 3], np.int32)
    assert pd.eval(argsort(pd.constant(a), 0, descending=True)).tolist() == [2, 0, 3, 1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_cumsum_and_cumprod_match_numpy(dtype, axis):
    a = RNG.integers(-3, 4, size=(3, 4, 5)).astype(dtype)
    x = pd.data("x", shape=[None, 4, 5], dtype=dtype)
    s, p = pd.eval([cumsum(x, axis), cumprod(x, axis)], {x: a})
    np.testing.assert_array_equal(s, np.cumsum(a, axis=axis))
    np.testing.assert_array_equal(p, np.cumprod(a, axis=axis))
    assert s.dtype == np.dtype(dtype) and cumsum(x, axis).shape == (None, 4, 5)


@pytest.mark.parametrize("axis", [0, 1])
def test_take_along_axis_matches_numpy(axis):
    a = RNG.standard_normal((4, 5)).astype(np.float32)
    idx = RNG.integers(0, a.shape[axis], size=(3, 5) if axis == 0 else (4, 7))
    got = pd.eval(take_along_axis(pd.constant(a), pd.constant(idx), axis))
    np.testing.assert_array_equal(got, np.take_along_axis(a, idx, axis))


def test_take_along_axis_adjoint_adds_repeated_positions():
    x = pd.data("x", shape=[2, 3])
    idx = pd.constant(np.array([[0, 0, 2, 0], [1, 1, 1, 2]]))
    g = pd.gradients(pd.sum(take_along_axis(x, idx, 1)), [x])[0]
    assert pd.eval(g, {x: np.zeros((2, 3), np.float32)}).tolist() == [[3, 0, 1], [0, 3, 1]]


def test_an_index_outside_raises_when_run():
    x = pd.constant(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match=r"take_along_axis: index 3 .* outside \[0, 3\)"):
        pd.eval(take_along_axis(x, pd.constant(np.array([[0], [3]])), 1))


@pytest.mark.parametrize("axis", [0, 1])
def test_gradients(axis):
    a = RNG.uniform(0.5, 2.0, size=(3, 4))
    idx = RNG.integers(0, 3 if axis == 0 else 4, size=(5, 4) if axis == 0 else (3, 6))
    check_gradients(lambda x: cumsum(x, axis), [a])
    check_gradients(lambda x: cumprod(x, axis), [a])
    check_gradients(lambda x: take_along_axis(x, pd.constant(idx), axis), [a])
    check_gradients(lambda x: take_along_axis(x, argsort(x, axis), axis), [a])
    check_gradients(lambda x: cumprod(x, axis), [a], order=2)


def test_bad_input_is_named_at_construction():
    x = pd.data("x", shape=[2, 3])
    with pytest.raises(ShapeError, match=r"argsort: axis 2 is out of range .*test_sort.py"):
        argsort(x, 2)
    with pytest.raises(TypeError, match="cumsum: expected a numeric input, received bool"):
        cumsum(pd.constant([True, False]), 0)
    with pytest.raises(ShapeError, match="take_along_axis: indices must have x's rank"):
        take_along_axis(x, pd.constant(np.zeros((2,), np.int64)), 1)
    with pytest.raises(TypeError, match="take_along_axis: expected int32 or int64 indices, received float32"):
        take_along_axis(x, pd.constant(np.zeros((2, 3), np.float32)), 1)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("k", [0, 1, 3, 6])
def test_the_first_k_are_those_of_the_full_stable_order(k, descending):
    a = RNG.integers(-2, 3, size=(4, 6)).astype(np.float32)
    a[1, 2] = a[2, 0] = np.nan
    x = pd.constant(a)
    full, part = pd.eval([argsort(x, 1, descending), argsort(x, 1, descending, k=k)])
    assert part.shape == (4, k)
    np.testing.assert_array_equal(part, full[:, :k])


def test_k_beyond_the_axis_is_refused():
    with pytest.raises(ShapeError, match=r"argsort: expected k in \[0, 3\]"):
        argsort(pd.constant(np.zeros((2, 3), np.float32)), 1, k=4)


# ---- int32 indices, read as they are -------------------------------------------------------

@pytest.mark.parametrize("itype", ["int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_take_along_axis_reads_int32_and_int64_indices(axis, itype):
    a = RNG.standard_normal((3, 4, 5))
    shape = list(a.shape)
    shape[axis] = 6
    idx = RNG.integers(0, a.shape[axis], size=shape).astype(itype)
    x = pd.data("x", shape=list(a.shape), dtype="float64")
    i = pd.constant(idx, dtype=itype)
    y = take_along_axis(x, i, axis)
    assert i.dtype == itype and y.node.inputs[1] is i  # read as it is: no cast between
    np.testing.assert_array_equal(pd.eval(y, {x: a}), np.take_along_axis(a, idx, axis))
    g = pd.gradients(pd.sum(y * y), [x])[0]
    want = np.zeros_like(a)
    pos = list(np.indices(idx.shape))
    pos[axis] = idx
    np.add.at(want, tuple(pos), 2 * np.take_along_axis(a, idx, axis))
    np.testing.assert_allclose(pd.eval(g, {x: a}), want, rtol=1e-12)


@pytest.mark.parametrize("itype", ["int32", "int64"])
@pytest.mark.parametrize("bad", [-1, 5])
def test_take_along_axis_refuses_indices_outside_the_axis(bad, itype):
    idx = np.zeros((2, 3), itype)
    idx[1, 2] = bad
    x = pd.data("x", shape=[2, 5])
    feed = {x: np.ones((2, 5), np.float32)}
    with pytest.raises(IndexError, match=f"take_along_axis: index {bad} at position 5"):
        pd.eval(take_along_axis(x, pd.constant(idx, dtype=itype), 1), feed)
    g = pd.gradients(pd.sum(take_along_axis(x, pd.constant(idx, dtype=itype), 1)), [x])[0]
    with pytest.raises(IndexError, match=f"index {bad} at position 5"):
        pd.eval(g, feed)


@pytest.mark.parametrize("itype", ["int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_take_along_axis_wraps_negative_indices_in_its_one_pass(axis, itype):
    a = RNG.standard_normal((3, 4, 5))
    shape = list(a.shape)
    shape[axis] = 6
    n = a.shape[axis]
    idx = RNG.integers(-n, n, size=shape).astype(itype)
    x = pd.data("x", shape=list(a.shape), dtype="float64")
    i = pd.data("i", shape=shape, dtype=itype)  # fed: negative values reach the kernel
    y = take_along_axis(x, i, axis, wrap=True)
    assert y.node.inputs[1] is i
    np.testing.assert_array_equal(pd.eval(y, {x: a, i: idx}), np.take_along_axis(a, idx, axis))
    g = pd.gradients(pd.sum(y * y), [x])[0]
    want = np.zeros_like(a)
    pos = list(np.indices(idx.shape))
    pos[axis] = idx % n
    np.add.at(want, tuple(pos), 2 * np.take_along_axis(a, idx, axis))
    np.testing.assert_allclose(pd.eval(g, {x: a, i: idx}), want, rtol=1e-12)
    check_gradients(lambda v: take_along_axis(v, pd.constant(idx), axis, wrap=True), [a])


@pytest.mark.parametrize("itype", ["int32", "int64"])
@pytest.mark.parametrize("bad", [-6, 5, 7])
def test_take_along_axis_with_wrap_refuses_indices_outside_minus_n_to_n(bad, itype):
    idx = np.array([[0, -5, 4], [-1, 2, bad]], itype)
    x = pd.data("x", shape=[2, 5])
    feed = {x: np.ones((2, 5), np.float32)}
    y = take_along_axis(x, pd.constant(idx, dtype=itype), 1, wrap=True)
    with pytest.raises(IndexError, match=rf"take_along_axis: index {bad} at position 5 is "
                                         rf"outside \[-5, 5\)"):
        pd.eval(y, feed)
    g = pd.gradients(pd.sum(y), [x])[0]
    with pytest.raises(IndexError, match=rf"index {bad} at position 5 is outside \[-5, 5\)"):
        pd.eval(g, feed)


def test_take_along_axis_reports_the_first_index_outside_of_a_parallel_run():
    a = np.zeros((4, 50_000), np.float32)
    idx = np.zeros((4, 50_000), np.int32)
    idx[3, 10] = 9 ** 6
    idx[1, 7] = -50_001
    with pytest.raises(IndexError, match=r"index -50001 at position 50007 is outside"):
        pd.eval(take_along_axis(pd.constant(a), pd.constant(idx), 1, wrap=True))


def test_take_along_axis_refuses_float_indices():
    with pytest.raises(TypeError, match="take_along_axis: expected int32 or int64 indices"):
        take_along_axis(pd.constant(np.ones((2, 3))), pd.constant(np.zeros((2, 3))), 1)


# ---- diff --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_diff_matches_numpy(axis, dtype):
    a = (RNG.standard_normal((4, 5, 6)) * 10).astype(dtype)
    x = pd.data("x", shape=[None, 5, 6], dtype=dtype)
    y = diff(x, axis)
    want = np.diff(a, axis=axis)
    assert y.dtype == dtype
    assert y.shape == {0: (None, 5, 6), 1: (None, 4, 6), 2: (None, 5, 5)}[axis % 3]
    np.testing.assert_array_equal(pd.eval(y, {x: a}), want)


def test_diff_of_one_element_and_large_inputs():
    np.testing.assert_array_equal(pd.eval(diff(pd.constant(np.ones((3, 1))), 1)),
                                  np.zeros((3, 0)))
    a = RNG.standard_normal((1, 300000))
    np.testing.assert_array_equal(pd.eval(diff(pd.constant(a), 1)), np.diff(a, axis=1))
    b = RNG.standard_normal((3000, 100))
    np.testing.assert_array_equal(pd.eval(diff(pd.constant(b), 0)), np.diff(b, axis=0))


def test_diff_errors():
    with pytest.raises(TypeError, match="diff: expected a numeric input, received bool"):
        diff(pd.constant(np.array([True, False])), 0)
    with pytest.raises(pd.ShapeError, match="diff.*non-empty axis 0"):
        diff(pd.data("e", shape=[0, 3]), 0)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff_gradients(axis):
    check_gradients(lambda x: diff(x, axis), [RNG.standard_normal((3, 4, 5))])
    check_gradients(lambda x: diff(x * x, axis), [RNG.standard_normal((3, 4, 5))], order=2)


# ---- searchsorted: a binary search per value -----------------------------------------------

def _sorted_with_specials(dtype, n):
    seq = np.sort(RNG.integers(-4, 5, size=n)).astype(dtype)  # many ties
    if np.dtype(dtype).kind == "f" and n >= 4:
        seq[: n // 4] = np.sort(RNG.standard_normal(n // 4) - 5)
        seq[n // 2] = -0.0
        seq = np.sort(seq)
        seq[-2:] = np.nan  # NumPy sorts NaN last
    return seq


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 1000])
def test_searchsorted_is_numpys(dtype, side, n):
    seq = _sorted_with_specials(dtype, n)
    values = RNG.integers(-6, 7, size=(3, 50)).astype(dtype)
    if values.dtype.kind == "f":
        values[0, :4] = [np.nan, -0.0, 0.0, np.inf]
        values[1, :2] = [-np.inf, 0.5]
    got = pd.eval(searchsorted(pd.constant(seq), pd.constant(values), side))
    assert got.dtype == np.int32 and got.shape == values.shape
    np.testing.assert_array_equal(got, np.searchsorted(seq, values, side=side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_of_many_values_in_parallel_chunks(side):
    seq = np.sort(RNG.standard_normal(30_001))
    values = np.concatenate([RNG.standard_normal(200_000), seq[::7]])  # exact hits too
    x = pd.data("v", shape=[None], dtype="float64")
    got = pd.eval(searchsorted(pd.constant(seq), x, side), {x: values})
    np.testing.assert_array_equal(got, np.searchsorted(seq, values, side=side))


def test_searchsorted_of_a_scalar_and_of_no_values():
    seq = pd.constant(np.array([1, 3, 5], np.int64))
    assert int(pd.eval(searchsorted(seq, pd.constant(np.int64(4)), "left"))) == 2
    empty = pd.eval(searchsorted(seq, pd.constant(np.zeros((2, 0), np.int64)), "left"))
    assert empty.shape == (2, 0) and empty.dtype == np.int32


def test_searchsorted_has_no_gradient():
    seq = pd.data("s", shape=[4])
    v = pd.data("v", shape=[3])
    assert pd.gradients(pd.sum(pd.cast(searchsorted(seq, v, "left"), "float32") * v),
                        [seq])[0] is None


def test_searchsorted_bad_input_is_named_at_construction():
    seq = pd.constant(np.array([1.0, 2.0], np.float32))
    with pytest.raises(ShapeError, match=r"searchsorted: expected a 1-D sorted sequence.*test_sort.py"):
        searchsorted(pd.constant(np.zeros((2, 2), np.float32)), seq, "left")
    with pytest.raises(TypeError, match="searchsorted: expected a sequence and values of one dtype"):
        searchsorted(seq, pd.constant(np.array([1], np.int32)), "left")
    with pytest.raises(TypeError, match="received bool and bool"):
        searchsorted(pd.constant([True]), pd.constant([False]), "left")
    with pytest.raises(ValueError, match="searchsorted: expected side 'left' or 'right', received 'up'"):
        searchsorted(seq, seq, "up")
