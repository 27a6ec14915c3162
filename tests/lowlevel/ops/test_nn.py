"""The ops of paddle/lowlevel/ops/nn.py. dropout: identity outside training, inverted
scaling, pd.seed reproducibility, same mask in the gradient, bad rates. embedding: gather
forward, accumulating gradient, ids out of range at eval."""
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel.eager import tracing
from gradcheck import check_gradients


def test_identity_outside_training():
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    xv = pd.data("x", shape=[None, 5])
    np.testing.assert_array_equal(pd.eval(pd.dropout(xv, 0.3), {xv: x}), x)
    check_gradients(lambda v: pd.dropout(v, 0.5), [x])
    assert pd.dropout(xv, 0) is xv


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.9])
def test_training_drops_and_scales(rate):
    x = np.ones((200, 100), np.float32)
    with tracing():  # a graph node, run in training mode by pd.eval
        y = pd.eval(pd.dropout(pd.constant(x), rate), training=True)
    values = set(np.unique(y).tolist())
    assert values <= {0.0, np.float32(1 / (1 - rate))}
    assert abs((y == 0).mean() - rate) < 0.02


def test_reproducible_under_seed_and_fresh_each_run():
    xv = pd.data("x", shape=[None, 64])
    y = pd.dropout(xv, 0.5)
    x = np.ones((8, 64), np.float32)
    pd.seed(3)
    a, b = pd.eval(y, {xv: x}, training=True), pd.eval(y, {xv: x}, training=True)
    pd.seed(3)
    c = pd.eval(y, {xv: x}, training=True)
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


def test_gradient_uses_the_same_mask():
    xv = pd.data("x", shape=[None, 50], dtype="float64")
    y = pd.dropout(xv, 0.4)
    gx, = pd.gradients(pd.sum(y * 3.0), [xv])
    x = np.random.default_rng(1).uniform(1, 2, (10, 50))
    yv, gv = pd.eval([y, gx], {xv: x}, training=True)
    np.testing.assert_allclose(gv, 3.0 * yv / x)
    assert (gv == 0).any() and (gv != 0).any()


def test_float64_and_thread_independence():
    # The mask depends only on (seed, index): a big tensor (split over threads) draws the
    # same leading mask as a small one.
    pd.seed(7)
    big = pd.eval(pd.dropout(pd.constant(np.ones(1 << 17), "float64"), 0.5), training=True)
    pd.seed(7)
    small = pd.eval(pd.dropout(pd.constant(np.ones(100), "float64"), 0.5), training=True)
    np.testing.assert_array_equal(big[:100], small)


@pytest.mark.parametrize("rate", [-0.1, 1.0, 1.5, "0.5", None])
def test_bad_rates(rate):
    with pytest.raises(ValueError, match=r"dropout: expected a rate in \[0, 1\)"):
        pd.dropout(pd.data("x", shape=[None, 3]), rate)


# ---- embedding -------------------------------------------------------------------------

def test_forward_and_int32_ids():
    table = np.random.default_rng(0).standard_normal((10, 4)).astype(np.float32)
    ids = np.array([[1, 9, 1], [0, 3, 3]])
    for dtype in ("int64", "int32"):
        iv = pd.data("ids", shape=[None, 3], dtype=dtype)
        out = pd.embedding(iv, pd.constant(table))
        assert out.shape == (None, 3, 4)
        np.testing.assert_array_equal(pd.eval(out, {iv: ids.astype(dtype)}), table[ids])


def test_gradient_accumulates_repeated_ids():
    ids = np.array([2, 0, 2, 2, 4])
    table = pd.Variable("emb", shape=[5, 3], dtype="float64")
    iv = pd.data("ids", shape=[None], dtype="int64")
    g = np.random.default_rng(1).standard_normal((5, 3))
    gt, = pd.gradients(pd.sum(pd.embedding(iv, table) * pd.constant(g, "float64")), [table])
    want = np.zeros((5, 3))
    np.add.at(want, ids, g)
    np.testing.assert_allclose(pd.eval(gt, {iv: ids}), want)
    check_gradients(lambda i, t: pd.embedding(i, t), [ids.reshape(1, 5),
                                                     np.random.default_rng(2).random((6, 3))])
    check_gradients(lambda i, t: pd.embedding(i, t) ** 2, [ids, np.ones((5, 2))], order=2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_gradient_split_over_threads(dtype):
    # Large enough for scatter_add to split the columns over the threads (each zeroes its
    # own columns first) and for the lookup's prefetching; 130 columns split unevenly; ids
    # repeat. Evaluated twice with other ids, so a reused buffer must be zeroed again.
    rng = np.random.default_rng(3)
    table = rng.standard_normal((3000, 130)).astype(dtype)
    g = rng.standard_normal((600, 130))
    tv = pd.Variable(f"emb_big_{dtype}", shape=table.shape, dtype=dtype)
    tv.set_value(table)
    iv = pd.data(f"ids_big_{dtype}", shape=[None], dtype="int64")
    out = pd.embedding(iv, tv)
    gt, = pd.gradients(pd.sum(out * pd.constant(g, dtype)), [tv])
    tol = 1e-5 if dtype == "float32" else 1e-12
    for seed in (4, 5):
        ids = np.random.default_rng(seed).integers(0, 3000, 600)
        ids[::7] = ids[0]
        got_out, got_g = pd.eval([out, gt], {iv: ids})
        np.testing.assert_array_equal(got_out, table[ids])
        want = np.zeros(table.shape)
        np.add.at(want, ids, g)
        np.testing.assert_allclose(got_g, want, rtol=tol, atol=tol)


def test_gather_gradient_on_an_inner_axis_over_threads():
    # scatter_add with outer > 1 (a gather along axis 1), columns split over the threads.
    rng = np.random.default_rng(6)
    x = pd.data("xg", shape=[3, 50, 300], dtype="float64")
    idx = rng.integers(0, 50, 80)
    w = rng.standard_normal((3, 80, 300))
    gx, = pd.gradients(pd.sum(pd.gather(x, pd.constant(idx), axis=1) * pd.constant(w)), [x])
    want = np.zeros((3, 50, 300))
    for o in range(3):
        np.add.at(want[o], idx, w[o])
    np.testing.assert_allclose(pd.eval(gx, {x: np.ones((3, 50, 300))}), want, rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("bad,pos", [(10, 2), (-1, 0)])
def test_ids_out_of_range_raise_at_eval(bad, pos):
    iv = pd.data("ids", shape=[None], dtype="int64")
    out = pd.embedding(iv, pd.constant(np.zeros((10, 2), np.float32)))
    ids = np.array([1, 2, 3])
    ids[pos] = bad
    with pytest.raises(IndexError, match=rf"embedding: id {bad} at position {pos} is outside the "
                                         r"table's 10 rows \[0, 10\): ids is \(3,\), table is "
                                         r"\(10, 2\)"):
        pd.eval(out, {iv: ids})


def test_shape_errors():
    with pytest.raises(pd.ShapeError, match=r"embedding: expected a 2-D float table.*"
                                            r"table is \(10,\)"):
        pd.embedding(pd.data("ids", [None], "int64"), pd.constant(np.zeros(10, np.float32)))
    with pytest.raises(TypeError, match="embedding: expected integer ids"):
        pd.embedding(pd.data("ids", [None]), pd.constant(np.zeros((3, 2), np.float32)))
