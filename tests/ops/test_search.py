"""pd.ops.searchsorted, digitize and isin (large value sets) on the searchsorted op (a
binary search per value), against NumPy and stored values of Keras 3.15.1 on JAX
(`KERAS_BACKEND=jax`: ties, NaN, -0.0/+0.0, int and float dtypes), eager and in graphs, on
every device; hstack of one tensor (Keras's and NumPy's: the list of its rows); quantile
and percentile with a large q in memory O(n + len(q))."""
import numpy as np
import pytest

import paddle as pd
from paddle.errors import ShapeError
from paddle.ops import numpy_reduce

RNG = np.random.default_rng(11)
NAN = np.nan

SEQ = np.array([-2.0, -0.0, 0.0, 1.0, 1.0, 1.0, 3.5, NAN, NAN], np.float32)
VALUES = np.array([[-3.0, -0.0, 0.0], [1.0, 2.0, 3.5], [NAN, np.inf, -np.inf]], np.float32)
# keras.ops.searchsorted(SEQ, VALUES, side=...) (Keras 3.15.1, JAX backend)
KERAS_SEARCH = {"left": [[0, 1, 1], [3, 6, 6], [7, 7, 0]],
                "right": [[0, 3, 3], [6, 6, 7], [9, 7, 0]]}
SEQ_INT = np.array([-5, 0, 0, 2, 2, 7], np.int32)
VALUES_INT = np.array([-6, 0, 2, 3, 7, 8], np.int32)
KERAS_SEARCH_INT = {"left": [0, 1, 3, 5, 5, 6], "right": [0, 3, 5, 5, 6, 6]}
X = np.array([-1.0, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, NAN], np.float32)
# keras.ops.digitize(X, bins): increasing and non-increasing bins with a repeat, int
KERAS_DIGITIZE = [([0.0, 1.0, 1.0, 2.0], [0, 1, 1, 1, 3, 4, 4, 4]),
                  ([2.0, 1.0, 1.0, 0.0], [4, 3, 3, 3, 1, 0, 0, 0])]
KERAS_DIGITIZE_INT = ([-1, 0, 1, 2, 5], [0, 2, 4], [0, 1, 1, 2, 3])
# keras.ops.isin(ISIN_X, ISIN_SET) and with invert=True: 23 values, past the few-values path
ISIN_X = np.array([0.0, -0.0, NAN, 1.5, 2.0, 22.0, 23.0], np.float32)
ISIN_SET = np.array([-0.0, NAN, 1.5] + list(range(3, 23)), np.float32)
KERAS_ISIN = [True, True, False, True, False, True, False]


def _graph(fn, *arrays):
    """fn on placeholders of the arrays' dtypes (first axis unknown), run on them."""
    xs = [pd.data(f"a{i}", shape=[None] + list(a.shape[1:]), dtype=str(a.dtype))
          for i, a in enumerate(arrays)]
    return pd.eval(fn(*xs), dict(zip(xs, arrays)))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_is_keras_on_ties_nan_and_signed_zeros(side, device):
    eager = pd.ops.searchsorted(SEQ, VALUES, side=side)
    assert eager.dtype == "int32" and np.asarray(eager).tolist() == KERAS_SEARCH[side]
    graph = _graph(lambda s, v: pd.ops.searchsorted(s, v, side=side), SEQ, VALUES)
    assert graph.tolist() == KERAS_SEARCH[side]
    ints = pd.ops.searchsorted(SEQ_INT, VALUES_INT, side=side)
    assert np.asarray(ints).tolist() == KERAS_SEARCH_INT[side]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "int8", "uint8",
                                   "float16", "bool"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_is_numpys_for_every_dtype(dtype, side):
    seq = np.sort(RNG.integers(0, 2 if dtype == "bool" else 9, 40)).astype(dtype)
    values = RNG.integers(-1 if dtype != "uint8" else 0, 10, (5, 6)).astype(dtype)
    got = np.asarray(pd.ops.searchsorted(seq, values, side=side))
    np.testing.assert_array_equal(got, np.searchsorted(seq, values, side=side))


def test_searchsorted_of_many_values_is_numpys():
    seq = np.sort(RNG.standard_normal(5000)).astype(np.float32)
    values = np.concatenate([RNG.standard_normal(100_000), seq]).astype(np.float32)
    for side in ("left", "right"):
        got = _graph(lambda v: pd.ops.searchsorted(seq, v, side=side), values)
        np.testing.assert_array_equal(got, np.searchsorted(seq, values, side=side))


def test_searchsorted_promotes_mixed_dtypes_as_numpy():
    got = pd.ops.searchsorted(np.array([1, 2, 3], np.int32), np.array([2.5, 2.0]))
    assert np.asarray(got).tolist() == [2, 1]


def test_searchsorted_bad_input():
    with pytest.raises(ShapeError, match=r"searchsorted: expected a 1-D sorted_sequence.*"
                                         r"test_search.py"):
        pd.ops.searchsorted(np.zeros((2, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="expected side 'left' or 'right', received 'mid'"):
        pd.ops.searchsorted(np.zeros(2), np.zeros(3), side="mid")


def test_digitize_is_keras(device):
    for bins, want in KERAS_DIGITIZE:
        bins = np.array(bins, np.float32)
        assert np.asarray(pd.ops.digitize(X, bins)).tolist() == want
        assert _graph(lambda x: pd.ops.digitize(x, bins), X).tolist() == want
        np.testing.assert_array_equal(want, np.digitize(X, bins))
    x, bins, want = KERAS_DIGITIZE_INT
    got = pd.ops.digitize(np.array(x, np.int32), np.array(bins, np.int32))
    assert got.dtype == "int32" and np.asarray(got).tolist() == want


@pytest.mark.parametrize("increasing", [True, False])
def test_digitize_is_numpys_with_ties(increasing):
    bins = np.sort(RNG.integers(-5, 5, 12)).astype(np.float64)
    bins = bins if increasing else bins[::-1].copy()
    x = RNG.integers(-7, 7, (4, 30)).astype(np.float64)
    np.testing.assert_array_equal(np.asarray(pd.ops.digitize(x, bins)), np.digitize(x, bins))


def test_isin_of_many_values_is_keras(device):
    assert len(ISIN_SET) > numpy_reduce._FEW_VALUES  # the sorted table and the search
    assert np.asarray(pd.ops.isin(ISIN_X, ISIN_SET)).tolist() == KERAS_ISIN
    assert _graph(lambda a: pd.ops.isin(a, ISIN_SET), ISIN_X).tolist() == KERAS_ISIN
    inverted = pd.ops.isin(ISIN_X, ISIN_SET, invert=True)
    assert np.asarray(inverted).tolist() == [not v for v in KERAS_ISIN]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_isin_of_many_values_is_numpys(dtype):
    x = RNG.integers(-50, 50, (20, 30)).astype(dtype)
    test = RNG.integers(-60, 60, 70).astype(dtype)
    got = np.asarray(pd.ops.isin(x, test))
    assert got.shape == x.shape
    np.testing.assert_array_equal(got, np.isin(x, test))


# ---- hstack of one tensor -------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4), (3, 2, 2, 2)])
def test_hstack_of_one_tensor_joins_its_rows_as_keras(shape, device):
    # keras.ops.hstack(x) (3.15.1, JAX) is np.hstack(x): x[0], x[1], ... joined; a 1-D x
    # (the sweep's case) comes back as it is, a 2-D one flattened
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    got = pd.ops.hstack(x)
    np.testing.assert_array_equal(np.asarray(got), np.hstack(x))
    np.testing.assert_array_equal(_graph(pd.ops.hstack, x) if len(shape) <= 2 else
                                  pd.eval(pd.ops.hstack(pd.constant(x))), np.hstack(x))


def test_hstack_of_a_scalar_is_refused():
    with pytest.raises(ShapeError, match="hstack: expected a sequence of tensors or a tensor "
                                         "of rank >= 1, received a scalar"):
        pd.ops.hstack(pd.constant(1.0))


# ---- quantiles of a large q -----------------------------------------------------------------

@pytest.mark.parametrize("fn", ["quantile", "percentile", "nanquantile", "nanpercentile"])
def test_a_large_q_does_not_copy_the_sorted_values_per_q(fn):
    # 200,000 q over 200,000 values: a (len(q), n) intermediate would be 160 GB in float32
    x = RNG.standard_normal(200_000).astype(np.float32)
    x[::1000] = np.nan if fn.startswith("nan") else x[::1000]
    q = RNG.random(200_000) * (100.0 if "percentile" in fn else 1.0)
    got = np.asarray(getattr(pd.ops, fn)(x, q))
    assert got.shape == (200_000,)
    np.testing.assert_allclose(got, getattr(np, fn)(x, q), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_quantile_with_a_1d_q_keeps_numpys_layout(method, axis, keepdims):
    x = RNG.standard_normal((3, 5, 7))
    x[0, 1, 2] = np.nan
    q = [0.0, 0.3, 0.5, 1.0]
    for fn in ("quantile", "nanquantile"):
        got = np.asarray(getattr(pd.ops, fn)(x, q, axis=axis, method=method, keepdims=keepdims))
        want = getattr(np, fn)(x, q, axis=axis, method=method, keepdims=keepdims)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_quantile_of_a_q_fed_in_a_graph():
    x = RNG.standard_normal((4, 9))
    q = pd.data("q", shape=[None], dtype="float64")
    got = pd.eval(pd.ops.quantile(pd.constant(x), q, axis=1), {q: np.array([0.1, 0.9, 0.5])})
    np.testing.assert_allclose(got, np.quantile(x, [0.1, 0.9, 0.5], axis=1), rtol=1e-12)


# ---- take_along_axis: negative indices wrapped in the kernel --------------------------------

@pytest.mark.parametrize("itype", ["int32", "int64"])
def test_take_along_axis_counts_negative_indices_from_the_end(itype, device):
    a = RNG.standard_normal((4, 6)).astype(np.float32)
    idx = RNG.integers(-6, 6, (4, 9)).astype(itype)
    want = np.take_along_axis(a, idx, 1)
    np.testing.assert_array_equal(np.asarray(pd.ops.take_along_axis(a, idx, axis=1)), want)
    i = pd.data("i", shape=[4, 9], dtype=itype)
    np.testing.assert_array_equal(pd.eval(pd.ops.take_along_axis(a, i, axis=1), {i: idx}), want)
    flat = np.asarray(pd.ops.take_along_axis(a, idx.reshape(-1), axis=None))
    np.testing.assert_array_equal(flat, np.take_along_axis(a.ravel(), idx.reshape(-1), 0))
    with pytest.raises(IndexError, match=r"take_along_axis: index -7 at position 0 is "
                                         r"outside \[-6, 6\)"):
        pd.ops.take_along_axis(a, np.full((4, 1), -7, itype), axis=1)
