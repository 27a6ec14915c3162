"""The ordering ops (paddle/lowlevel/ops/sort.py): argsort, take_along_axis and its adjoint,
cumsum, cumprod; forward against NumPy on every device, gradients, bad input."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.errors import ShapeError
from paddle.lowlevel.ops.sort import argsort, cumprod, cumsum, take_along_axis

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
    with pytest.raises(TypeError, match="take_along_axis: expected int64 indices"):
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
