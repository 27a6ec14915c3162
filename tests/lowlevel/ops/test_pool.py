"""Pooling: NumPy references (naive windows), gradient checks, tie-breaking, errors."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients


def tf_same(size, k, s):
    total = max((-(-size // s) - 1) * s + k - size, 0)
    return total // 2


def ref_pool(x, k, s, padding, kind):
    """NHWC pooling by explicit windows clipped to the input (TensorFlow's 'same')."""
    n, h, w, c = x.shape
    if padding == "valid":
        oh, ow, pt, pl = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1, 0, 0
    else:
        oh, ow = -(-h // s[0]), -(-w // s[1])
        pt, pl = tf_same(h, k[0], s[0]), tf_same(w, k[1], s[1])
    y = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pt, j * s[1] - pl
            win = x[:, max(h0, 0):h0 + k[0], max(w0, 0):w0 + k[1]]
            y[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return y


def rand(*shape, seed=0):
    # Distinct values: a tie would make the max-pool gradient's finite difference jump.
    rng = np.random.default_rng(seed)
    return rng.permutation(np.prod(shape)).reshape(shape) / np.prod(shape) + \
        0.01 * rng.standard_normal(shape)


CASES = [  # x shape, pool_size, strides, padding
    ((2, 4, 6, 3), 2, None, "valid"),
    ((1, 5, 5, 2), 3, 2, "valid"),
    ((1, 5, 7, 2), 2, None, "same"),
    ((2, 5, 5, 3), (3, 2), (1, 2), "same"),
    ((1, 6, 6, 1), 3, 1, "same"),
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("xs,k,s,padding", CASES)
def test_pool_matches_reference(kind, xs, k, s, padding):
    x = rand(*xs)
    fn = pd.max_pool2d if kind == "max" else pd.avg_pool2d
    got = pd.eval(fn(pd.constant(x, "float64"), k, s, padding))
    kk = (k, k) if isinstance(k, int) else k
    ss = kk if s is None else (s, s) if isinstance(s, int) else s
    np.testing.assert_allclose(got, ref_pool(x, kk, ss, padding, kind), rtol=1e-12)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("xs,k,s,padding", CASES[1:4])
def test_pool_gradients(kind, xs, k, s, padding):
    fn = pd.max_pool2d if kind == "max" else pd.avg_pool2d
    check_gradients(lambda x: fn(x, k, s, padding), [rand(*xs)])


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_second_order(kind):
    fn = pd.max_pool2d if kind == "max" else pd.avg_pool2d
    check_gradients(lambda x: fn(x, 2, 1, "same") ** 2, [rand(1, 3, 4, 2)], order=2)


def test_max_pool_ties_go_to_the_first_max():
    x = pd.data("x", shape=[1, 2, 2, 1], dtype="float64")
    gx, = pd.gradients(pd.sum(pd.max_pool2d(x, 2)), [x])
    got = pd.eval(gx, {x: np.ones((1, 2, 2, 1))})[0, :, :, 0]
    assert got.tolist() == [[1.0, 0.0], [0.0, 0.0]]
    # Overlapping windows each route their gradient to their own first max.
    x = pd.data("x2", shape=[1, 1, 4, 1], dtype="float64")
    gx, = pd.gradients(pd.sum(pd.max_pool2d(x, (1, 2), 1)), [x])
    got = pd.eval(gx, {x: np.array([3.0, 3.0, 1.0, 3.0]).reshape(1, 1, 4, 1)})
    assert got.ravel().tolist() == [1.0, 1.0, 0.0, 1.0]


def test_nchw_and_1d():
    x = rand(2, 6, 5, 3)
    nhwc = pd.eval(pd.max_pool2d(pd.constant(x, "float64"), 2, padding="same"))
    nchw = pd.eval(pd.max_pool2d(pd.constant(x.transpose(0, 3, 1, 2), "float64"), 2,
                                 padding="same", data_format="NCHW"))
    np.testing.assert_allclose(nchw, nhwc.transpose(0, 3, 1, 2))
    s = rand(2, 7, 3)
    np.testing.assert_allclose(pd.eval(pd.max_pool1d(pd.constant(s, "float64"), 3, 2)),
                               ref_pool(s[:, None], (1, 3), (1, 2), "valid", "max")[:, 0])
    np.testing.assert_allclose(
        pd.eval(pd.avg_pool1d(pd.constant(s.transpose(0, 2, 1), "float64"), 2, padding="same",
                              data_format="NCW")),
        ref_pool(s[:, None], (1, 2), (1, 2), "same", "avg")[:, 0].transpose(0, 2, 1))
    check_gradients(lambda v: pd.avg_pool1d(v, 3, 1, "same"), [s])
    check_gradients(lambda v: pd.max_pool1d(v, 2, data_format="NCW"), [s])


def test_global_avg_pool():
    x = rand(2, 3, 4, 5)
    got = pd.eval(pd.global_avg_pool2d(pd.constant(x, "float64")))
    np.testing.assert_allclose(got, x.mean(axis=(1, 2)))
    kept = pd.global_avg_pool2d(pd.constant(x, "float64"), data_format="NCHW", keepdims=True)
    assert kept.shape == (2, 3, 1, 1)
    np.testing.assert_allclose(pd.eval(kept), x.mean(axis=(2, 3), keepdims=True))
    check_gradients(lambda v: pd.global_avg_pool2d(v), [x])


def test_float32_batch_matches_reference():
    x = np.random.default_rng(1).standard_normal((32, 26, 26, 8)).astype(np.float32)
    got = pd.eval(pd.max_pool2d(pd.constant(x), 2))
    np.testing.assert_array_equal(got, ref_pool(x, (2, 2), (2, 2), "valid", "max"))


@pytest.mark.parametrize("fn,match", [
    (lambda: pd.max_pool2d(pd.data("x", [None, 2, 8, 3]), 3),
     r"max_pool2d: the pool window \(3, 3\) is larger than the input: x is \(None, 2, 8, 3\)"),
    (lambda: pd.avg_pool2d(pd.data("x", [None, 8, 3]), 2),
     r"avg_pool2d: expected a 4-D input \(NHWC\): x is \(None, 8, 3\)"),
    (lambda: pd.max_pool2d(pd.data("x", [None, 8, 8, 3]), 0), r"max_pool2d: expected pool_size"),
    (lambda: pd.max_pool2d(pd.data("x", [None, 8, 8, 3]), 2, strides=-1),
     r"max_pool2d: expected strides.*received -1; x is \(None, 8, 8, 3\)"),
    (lambda: pd.max_pool1d(pd.data("x", [None, 8, 8, 3]), 2), r"max_pool1d: expected a 3-D"),
    (lambda: pd.global_avg_pool2d(pd.data("x", [None, 8])), r"global_avg_pool2d: expected a 4-D"),
])
def test_shape_errors(fn, match):
    with pytest.raises(pd.ShapeError, match=match):
        fn()


def test_bad_padding():
    with pytest.raises(ValueError, match="max_pool2d: expected padding 'valid' or 'same'"):
        pd.max_pool2d(pd.data("x", [None, 8, 8, 3]), 2, padding=1)
