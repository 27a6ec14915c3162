"""Kept values (paddle/lowlevel/kept_values.py): the folded batch-norm filters of an inference
plan are computed once and kept while no stored value is written; every write (set_value,
set_weights, a training step, an optimizer's slots) makes the next run compute them again,
so a prediction after a weight change is the new weights' prediction."""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle.devices import mirrors
from paddle.lowlevel import executor, kept_values

from lowlevel.kernel_counts import count_runs

RNG = np.random.default_rng(2929)


def conv_bn(dtype):
    x = pd.data("x", shape=[None, 5, 5, 3], dtype=dtype)
    w = pd.Variable("w", shape=[3, 3, 3, 4], dtype=dtype, initializer="glorot_uniform")
    stats = [pd.Variable(n, shape=[4], dtype=dtype, initializer=i, trainable=False)
             for n, i in [("mm", "zeros"), ("mv", "ones")]]
    gamma = pd.Variable("gamma", shape=[4], dtype=dtype, initializer="ones")
    beta = pd.Variable("beta", shape=[4], dtype=dtype, initializer="zeros")
    y = pd.batch_norm(pd.conv2d(x, w, padding="same"), gamma, beta, *stats, epsilon=1e-3)
    return x, y, [w, gamma, beta, *stats]


def reference(a, w, gamma, beta, mm, mv):
    """conv2d (same, stride 1) then batch norm on the moving statistics, in float64 NumPy."""
    pad = np.pad(a.astype(np.float64), [(0, 0), (1, 1), (1, 1), (0, 0)])
    conv = sum(np.einsum("nhwc,co->nhwo", pad[:, i:i + 5, j:j + 5], w[i, j].astype(np.float64))
               for i in range(3) for j in range(3))
    return (conv - mm) / np.sqrt(mv + 1e-3) * gamma + beta


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_weight_change_after_a_run_changes_the_next_result(monkeypatch, dtype):
    muls = count_runs(monkeypatch, "mul")
    x, y, params = conv_bn(dtype)
    a = RNG.standard_normal((2, 5, 5, 3)).astype(dtype)
    tol = 1e-4 if dtype == "float32" else 1e-10

    def check():
        np.testing.assert_allclose(pd.eval(y, {x: a}), reference(a, *[p.val() for p in params]),
                                   rtol=tol, atol=tol)
    check()
    first = len(muls)
    assert first > 0  # the folding multiplies the filters by the scale
    check()
    assert len(muls) == first, "the folded filters are kept while nothing is written"
    program = next(iter(executor.plan_for([y], False, None).specialized.values()))
    assert program.kept is not None and not program.writes_stored
    for p in params:  # each stored input of the folding, in turn
        p.set_value(p.val() + RNG.uniform(0.1, 0.5, p.shape).astype(dtype))
        check()
    assert len(muls) > first


def test_programs_of_two_feed_shapes_share_the_kept_buffers_and_both_follow_writes():
    x, y, params = conv_bn("float32")
    a4, a3 = [RNG.standard_normal((n, 5, 5, 3)).astype(np.float32) for n in (4, 3)]
    for _ in range(2):
        for a in (a4, a3, a4):
            np.testing.assert_allclose(pd.eval(y, {x: a}),
                                       reference(a, *[p.val() for p in params]),
                                       rtol=1e-4, atol=1e-4)
        params[0].set_value(params[0].val() * 2)
    plan = executor.plan_for([y], False, None)
    programs = list(plan.specialized.values())
    assert len(programs) == 2 and all(p.kept is not None for p in programs)
    # One copy of the kept values per plan, not per feed shape: both programs' convolutions
    # read the folded filters from the plan's buffers.
    shared = {id(b) for b in plan.kept_buffers.values()}
    read = [{id(a) for step in p.steps for a in getattr(step, "args", ()) if id(a) in shared}
            for p in programs]
    assert read[0] and read[0] == read[1]


def model():
    pd.seed(3)
    return pd.Sequential([pd.layers.Input(shape=(6, 6, 2)),
                          pd.layers.Conv2D(4, 3, padding="same"),
                          pd.layers.BatchNormalization(), pd.layers.ReLU(),
                          pd.layers.GlobalAveragePooling2D(), pd.layers.Dense(3)])


def fresh_prediction(m, x):
    """The prediction of a new model holding m's weights (its own plan, nothing kept)."""
    other = model()
    other.set_weights(m.get_weights())
    return other.predict_on_batch(x)


def test_training_between_predictions_changes_them():
    m = model()
    m.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    x = RNG.standard_normal((8, 6, 6, 2)).astype(np.float32)
    y = RNG.standard_normal((8, 3)).astype(np.float32)
    before = m.predict_on_batch(x)
    np.testing.assert_array_equal(m.predict_on_batch(x), before)
    m.train_on_batch(x, y)  # updates the filters and the moving statistics
    after = m.predict_on_batch(x)
    assert np.abs(after - before).max() > 1e-4
    np.testing.assert_allclose(after, fresh_prediction(m, x), rtol=1e-5, atol=1e-6)


def test_set_weights_and_assign_between_predictions_change_them():
    m = model()
    x = RNG.standard_normal((8, 6, 6, 2)).astype(np.float32)
    before = m.predict_on_batch(x)
    weights = m.get_weights()
    m.set_weights([w * 1.5 for w in weights])
    changed = m.predict_on_batch(x)
    assert np.abs(changed - before).max() > 1e-4
    np.testing.assert_allclose(changed, fresh_prediction(m, x), rtol=1e-5, atol=1e-6)
    bn = m.layers[1]
    bn.moving_mean.assign(np.full(4, 0.5, np.float32))
    np.testing.assert_allclose(m.predict_on_batch(x), fresh_prediction(m, x), rtol=1e-5,
                               atol=1e-6)


def test_writes_counts_every_write():
    v = pd.Variable("v", shape=[2], initializer="zeros")
    at = mirrors.writes()
    v.set_value(np.ones(2, np.float32))
    assert mirrors.writes() > at
    at = mirrors.writes()
    pd.eval(pd.assign(v, pd.constant(np.full(2, 3.0, np.float32))))
    assert mirrors.writes() > at and v.val().tolist() == [3.0, 3.0]


def test_only_pure_arithmetic_on_stored_values_is_kept():
    x = pd.data("x", shape=[None, 2])
    w = pd.Variable("w", shape=[2], initializer="ones")
    c = pd.constant(np.full(2, 2.0, np.float32))
    kept_sum = w * c
    on_feed = x * c           # reads a feed: never kept
    not_pure = pd.relu(w)     # not in KEPT_OPS
    nodes = executor.topological_nodes([kept_sum + on_feed, not_pure + w])
    kept = kept_values.kept_nodes(nodes, executor._key, executor._output_keys)
    names = sorted(n.op.name for n in nodes if id(n) in kept)
    assert kept_sum.node is not None and id(kept_sum.node) in kept
    assert id(on_feed.node) not in kept and id(not_pure.node) not in kept
    assert id((not_pure + w).node) not in kept  # reads a value that is not kept
    assert names == ["mul"]


def test_a_training_plan_keeps_nothing():
    m = model()
    m.compile(optimizer="adam", loss="mse")
    x = RNG.standard_normal((4, 6, 6, 2)).astype(np.float32)
    m.train_on_batch(x, np.zeros((4, 3), np.float32))
    programs = [p for p in gc.get_objects() if isinstance(p, executor.Program)
                and p.writes_stored]
    assert programs and all(p.kept is None for p in programs)
