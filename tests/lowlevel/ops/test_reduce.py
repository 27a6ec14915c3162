"""Reductions: sum, mean, max, min, prod, argmax over int / tuple / None axes, keepdims; shapes
with None; forward against NumPy (float32, float64, int64); gradients; bad axes."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.lowlevel.ops.reduce import prod

RNG = np.random.default_rng(2)
AXES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2), (-1, 0), ()]
REDUCTIONS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def distinct(shape, dtype="float64"):
    """Values without ties (max/min gradients are then unambiguous)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n).reshape(shape) * 0.37 - 3.0).astype(dtype)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward(name, axis, keepdims, dtype):
    a = RNG.standard_normal((2, 3, 4)).astype(dtype)
    x = pd.data("x", shape=[None, 3, 4], dtype=dtype)
    y = getattr(pd, name)(x, axis=axis, keepdims=keepdims)
    expected = REDUCTIONS[name](a, axis=axis, keepdims=keepdims)
    # Known at construction: the batch axis stays None unless it is reduced.
    axes = range(3) if axis is None else {a % 3 for a in np.atleast_1d(axis).astype(int)}
    static = tuple((1 if keepdims else "drop") if i in axes else d
                   for i, d in enumerate((None, 3, 4)))
    assert y.shape == tuple(d for d in static if d != "drop")
    assert y.dtype == dtype
    got = pd.eval(y, {x: a})
    assert got.shape == expected.shape and got.dtype == dtype
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got, expected, **tol)


def test_shapes_at_construction():
    x = pd.data("x", shape=[None, 3, 4])
    assert pd.sum(x).shape == ()
    assert pd.sum(x, axis=0).shape == (3, 4)
    assert pd.mean(x, axis=1).shape == (None, 4)
    assert pd.max(x, axis=(1, 2), keepdims=True).shape == (None, 1, 1)
    assert pd.min(x, axis=-1, keepdims=True).shape == (None, 3, 1)
    assert pd.sum(x, keepdims=True).shape == (1, 1, 1)
    assert pd.argmax(x).shape == (None, 3)
    assert pd.argmax(x, axis=0).shape == (3, 4)
    assert pd.argmax(x, axis=None).shape == ()
    assert pd.argmax(x, axis=1, keepdims=True).shape == (None, 1, 4)


@pytest.mark.parametrize("name", ["sum", "max", "min"])
@pytest.mark.parametrize("axis", [None, 0, (0, 1), -1], ids=str)
def test_int64(name, axis):
    a = RNG.integers(-50, 50, (3, 4)).astype(np.int64)
    x = pd.data("x", shape=[3, 4], dtype="int64")
    y = getattr(pd, name)(x, axis=axis)
    assert y.dtype == "int64"
    np.testing.assert_array_equal(pd.eval(y, {x: a}), REDUCTIONS[name](a, axis=axis))


def test_mean_of_ints_is_refused():
    with pytest.raises(TypeError, match="mean.*int64"):
        pd.mean(pd.data("i", shape=[3], dtype="int64"))


def test_large_reductions_take_the_parallel_paths():
    a = RNG.standard_normal((300, 257))
    x = pd.data("x", shape=[None, 257], dtype="float64")
    got = pd.eval([pd.sum(x, axis=0), pd.sum(x, axis=1), pd.max(x), pd.mean(x, axis=0),
                   pd.argmax(x, axis=0)], {x: a})
    np.testing.assert_allclose(got[0], a.sum(0), rtol=1e-12)
    np.testing.assert_allclose(got[1], a.sum(1), rtol=1e-10, atol=1e-12)
    assert got[2] == a.max()
    np.testing.assert_allclose(got[3], a.mean(0), rtol=1e-12)
    np.testing.assert_array_equal(got[4], a.argmax(0))


def test_reductions_propagate_nan():
    a = np.array([[1.0, np.nan, 2.0], [3.0, 1.0, 0.0]])
    x = pd.data("x", shape=[2, 3], dtype="float64")
    got = pd.eval([pd.max(x, axis=1), pd.min(x, axis=1), pd.sum(x, axis=1), pd.argmax(x, axis=1)],
                  {x: a})
    np.testing.assert_array_equal(got[0], np.max(a, axis=1))
    np.testing.assert_array_equal(got[1], np.min(a, axis=1))
    np.testing.assert_array_equal(got[2], np.sum(a, axis=1))
    np.testing.assert_array_equal(got[3], np.argmax(a, axis=1))


def test_empty_inputs():
    x = pd.data("x", shape=[None, 3], dtype="float64")
    got = pd.eval(pd.sum(x, axis=0), {x: np.zeros((0, 3))})
    np.testing.assert_array_equal(got, np.zeros(3))
    with pytest.raises(pd.ShapeError, match="max.*empty"):
        pd.eval(pd.max(x, axis=0), {x: np.zeros((0, 3))})
    with pytest.raises(pd.ShapeError, match="empty"):
        pd.max(pd.data("e", shape=[0, 3]), axis=0)


# ---- argmax -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1], ids=str)
def test_argmax(axis, dtype):
    a = RNG.integers(-5, 5, (2, 3, 4)).astype(dtype)     # many ties: the first one wins
    x = pd.data("x", shape=[None, 3, 4], dtype=dtype)
    y = pd.argmax(x, axis=axis)
    assert y.dtype == "int64"
    got = pd.eval(y, {x: a})
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argmax(a, axis=axis))


def test_argmax_none_and_keepdims():
    a = RNG.standard_normal((2, 3, 4))
    x = pd.data("x", shape=[None, 3, 4], dtype="float64")
    got = pd.eval([pd.argmax(x, axis=None), pd.argmax(x, axis=None, keepdims=True),
                   pd.argmax(x, axis=1, keepdims=True), pd.argmax(x)], {x: a})
    np.testing.assert_array_equal(got[0], np.argmax(a))
    np.testing.assert_array_equal(got[1], np.argmax(a, axis=None, keepdims=True))
    np.testing.assert_array_equal(got[2], np.argmax(a, axis=1, keepdims=True))
    np.testing.assert_array_equal(got[3], np.argmax(a, axis=-1))


def test_argmax_has_no_gradient():
    x = pd.data("x", shape=[3], dtype="float64")
    y = pd.sum(pd.cast(pd.argmax(pd.expand_dims(x, 0)), "float64")) + pd.sum(x)
    g, = pd.gradients(y, [x])
    np.testing.assert_array_equal(pd.eval(g, {x: np.array([1.0, 3.0, 2.0])}), np.ones(3))


# ---- bad axes ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "argmax"])
@pytest.mark.parametrize("axis", [3, -4, 1.5, "a", (0, 0), (0, 5)], ids=str)
def test_bad_axis(name, axis):
    x = pd.data("x", shape=[None, 3, 4])
    if name == "argmax" and isinstance(axis, tuple):
        axis = axis[1] if axis[1] == 5 else 7
    with pytest.raises(pd.ShapeError) as info:
        getattr(pd, name)(x, axis=axis)
    assert "test_reduce.py:" in str(info.value) and "axis" in str(info.value)


def test_numpy_integer_axis():
    x = pd.data("x", shape=[2, 3], dtype="float64")
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(pd.eval(pd.sum(x, axis=np.int64(1)), {x: a}), a.sum(1))


# ---- gradients --------------------------------------------------------------------------

check = check_gradients  # with unknown_batch=True: None batch dims in pd.data

@pytest.mark.parametrize("unknown_batch", [False, True])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 2, -1, (0, 2), (1, 2)], ids=str)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_gradients(name, axis, keepdims, unknown_batch):
    fn = getattr(pd, name)
    check(lambda x: fn(x, axis=axis, keepdims=keepdims), [distinct((2, 3, 4))],
          unknown_batch=unknown_batch)


def test_max_gradient_is_shared_among_ties():
    x = pd.data("x", shape=[2, 3], dtype="float64")
    g, = pd.gradients(pd.sum(pd.max(x, axis=1)), [x])
    got = pd.eval(g, {x: np.array([[1.0, 5.0, 5.0], [2.0, 0.0, 1.0]])})
    np.testing.assert_array_equal(got, [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])


def test_mean_second_order():
    check_gradients(lambda x: pd.mean(x * x * x, axis=1), [RNG.standard_normal((3, 4))],
                    order=2)


# ---- lanes: max/min/prod along and across rows (csrc/reduce.cpp) -----------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("cols", [1, 15, 16, 17, 33, 250])
def test_max_min_in_lanes_are_numpys(cols, dtype):
    # Row lengths around the 16 lanes and their tail; exact in every dtype (max and min do
    # not round), along the rows (inner 1) and across them (inner > 1).
    a = (RNG.standard_normal((7, cols)) * 100).astype(dtype)
    x = pd.data("x", shape=[7, cols], dtype=dtype)
    got = pd.eval([pd.max(x, axis=1), pd.min(x, axis=1), pd.max(x, axis=0), pd.min(x, axis=0)],
                  {x: a})
    for g, w in zip(got, [a.max(1), a.min(1), a.max(0), a.min(0)]):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("at", [0, 5, 16, 31, 40])
def test_nan_anywhere_in_a_row_wins_in_lanes(at, dtype):
    a = RNG.standard_normal((3, 41)).astype(dtype)
    a[1, at] = np.nan
    a[2, :] = -np.inf
    x = pd.data("x", shape=[3, 41], dtype=dtype)
    got = pd.eval([pd.max(x, axis=1), pd.min(x, axis=1), pd.max(x, axis=0)], {x: a})
    np.testing.assert_array_equal(got[0], a.max(1))
    np.testing.assert_array_equal(got[1], a.min(1))
    np.testing.assert_array_equal(got[2], a.max(0))
    assert np.isnan(got[0][1]) and np.isnan(got[1][1]) and got[0][2] == -np.inf


def lane_prod(a):
    """The CPU kernel's order of a row's product: 16 partial products over the row's
    columns c % 16 (the tail after the last full 16 goes to the first), then combined in
    order; float32 products rounded as float32 at every step."""
    t = a.dtype.type
    acc = [t(1)] * 16
    full = len(a) // 16 * 16
    for c in range(full):
        acc[c % 16] = t(acc[c % 16] * a[c])
    for c in range(full, len(a)):
        acc[0] = t(acc[0] * a[c])
    v = acc[0]
    for k in range(1, 16):
        v = t(v * acc[k])
    return v


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, (0, 2), (1, 2)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_prod_forward(axis, keepdims, dtype):
    a = RNG.uniform(0.6, 1.4, (3, 5, 37)).astype(dtype)
    x = pd.data("x", shape=[None, 5, 37], dtype=dtype)
    y = prod(x, axis=axis, keepdims=keepdims)
    got = pd.eval(y, {x: a})
    want = np.prod(a, axis=axis, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_prod_rows_are_pinned_to_their_lane_order(device):
    if device != "cpu":
        pytest.skip("the lane order is the C++ kernel's (CuPy reduces in its own order)")
    a = RNG.uniform(0.5, 1.5, (4, 53)).astype(np.float32)
    got = pd.eval(prod(pd.constant(a), axis=1))
    assert got.tolist() == [lane_prod(row) for row in a]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_prod_of_integers_and_of_nothing(dtype):
    a = RNG.integers(-3, 4, (4, 6)).astype(dtype)
    x = pd.data("x", shape=[None, 6], dtype=dtype)
    got = pd.eval([prod(x, axis=1), prod(x, axis=0), prod(x)], {x: a})
    for g, w in zip(got, [a.prod(1), a.prod(0), a.prod()]):
        np.testing.assert_array_equal(g, w)
    empty = pd.eval(prod(x, axis=0), {x: np.zeros((0, 6), dtype)})
    np.testing.assert_array_equal(empty, np.ones(6, dtype))


def test_prod_propagates_nan_and_zero():
    a = np.ones((3, 20))
    a[0, 17], a[1, 3] = np.nan, 0.0
    got = pd.eval(prod(pd.constant(a), axis=1))
    assert np.isnan(got[0]) and got[1] == 0.0 and got[2] == 1.0


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 1, -1, (0, 2)], ids=str)
def test_prod_gradient_with_and_without_zeros(axis, keepdims):
    a = RNG.uniform(0.5, 1.5, (2, 3, 4))
    one_zero = a.copy()
    one_zero[0, 1, 2] = 0.0
    two_zeros = one_zero.copy()
    two_zeros[1, 2, 2] = two_zeros[1, 2, 3] = 0.0
    two_zeros[0, 1, 3] = 0.0
    for values in (a, one_zero, two_zeros):
        check_gradients(lambda x: prod(x, axis=axis, keepdims=keepdims), [values])


def test_prod_gradient_at_zeros_is_the_product_of_the_others():
    x = pd.data("x", shape=[3, 3], dtype="float64")
    g, = pd.gradients(pd.sum(prod(x, axis=1)), [x])
    got = pd.eval(g, {x: np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 4.0]])})
    np.testing.assert_array_equal(got, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [8.0, 4.0, 2.0]])


def test_prod_second_order():
    check_gradients(lambda x: prod(x, axis=1), [RNG.uniform(0.5, 1.5, (3, 5))], order=2)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)], ids=str)
def test_max_and_min_of_bools_are_any_and_all(axis):
    a = RNG.random((6, 37)) < 0.05
    a[2] = True
    a[3] = False
    x = pd.data("b", shape=[None, 37], dtype="bool")
    hi, lo = pd.max(x, axis=axis), pd.min(x, axis=axis)
    assert hi.dtype == lo.dtype == "bool"
    got = pd.eval([hi, lo], {x: a})
    np.testing.assert_array_equal(got[0], a.any(axis=axis))
    np.testing.assert_array_equal(got[1], a.all(axis=axis))


def test_sum_and_prod_of_bools_are_refused():
    b = pd.data("b", shape=[3], dtype="bool")
    for fn in (pd.sum, prod):
        with pytest.raises(TypeError, match="expected a numeric input, received bool"):
            fn(b)
