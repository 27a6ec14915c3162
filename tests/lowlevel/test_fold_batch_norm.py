"""The planner pass that folds inference batch_norm into the conv2d before it
(paddle/lowlevel/fusion/fold_batch_norm.py): folded plans against the same plans unfolded."""
import numpy as np
import pytest

import paddle as pd
from paddle import devices
from paddle.lowlevel import executor
from paddle.lowlevel.fusion.fold_batch_norm import fold

TOL = {"float32": 1e-5, "float64": 1e-12}


def run(targets, feeds, fold=True, training=False, monkeypatch=None):
    """Results and node names of a fresh plan of `targets`, with the pass or without it."""
    if not fold:
        monkeypatch.setattr(executor, "fold_batch_norm", lambda nodes, training, keep=(): nodes)
    try:
        plan = executor.Plan(targets, training, devices.backend_for(None))
        return plan.run(feeds), [n.op.name for n in plan.nodes]
    finally:
        if monkeypatch is not None:
            monkeypatch.undo()


def stored(name, shape, dtype, seed, positive=False):
    v = pd.Variable(name, shape=list(shape), dtype=dtype, trainable=not name.startswith("m"))
    a = np.random.default_rng(seed).standard_normal(shape)
    v.set_value((np.abs(a) + 0.5 if positive else a).astype(dtype))
    return v


def conv_bn(dtype="float32", bias=True, cin=3, cout=6, axis=-1, strides=1, groups=1):
    x = pd.data("x", shape=[None, 9, 7, cin], dtype=dtype)
    w = stored("w", (3, 3, cin // groups, cout), dtype, 1)
    b = stored("b", (cout,), dtype, 2) if bias else None
    y = pd.conv2d(x, w, bias=b, strides=strides, padding="same", groups=groups)
    c = y.shape[axis]
    params = [stored(n, (c,), dtype, s, positive=(n == "mv")) for n, s in
              (("gamma", 3), ("beta", 4), ("mm", 5), ("mv", 6))]
    out = pd.batch_norm(y, *params, epsilon=1e-3, axis=axis)
    feeds = {x: np.random.default_rng(7).standard_normal((4, 9, 7, cin)).astype(dtype)}
    return x, y, out, params, feeds


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("relu,strides,groups", [(True, 1, 1), (False, 2, 1), (True, 1, 3)])
def test_folded_conv_matches_unfolded(monkeypatch, dtype, bias, relu, strides, groups):
    _, _, y, _, feeds = conv_bn(dtype, bias, cin=6, strides=strides, groups=groups)
    out = pd.relu(y) if relu else y
    (got,), names = run([out], feeds)
    (want,), plain = run([out], feeds, fold=False, monkeypatch=monkeypatch)
    assert "batch_norm" in plain and "batch_norm" not in names
    assert names.count("conv2d") == 1
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])
    assert y.node.op.name == "batch_norm"  # the graph is the user's


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_folded_weights_follow_changes(monkeypatch, dtype):
    x, _, y, (gamma, beta, mm, mv), feeds = conv_bn(dtype)
    w = y.node.inputs[0].node.inputs[1]
    first = pd.eval(y, feeds)
    # A training run moves the statistics; set_value changes the filters and scale.
    pd.eval(y, feeds, training=True)
    w.set_value(w.val() * 1.5)
    gamma.set_value(gamma.val() - 0.25)
    got = pd.eval(y, feeds)  # the cached, folded plan
    (want,), _ = run([y], feeds, fold=False, monkeypatch=monkeypatch)
    assert not np.allclose(got, first)
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])
    assert "batch_norm" not in [n.op.name for n in
                                executor.plan_for([y], False, devices.backend_for(None)).nodes]


@pytest.mark.parametrize("axis", [1, 2])
def test_batch_norm_over_another_axis_is_not_folded(monkeypatch, axis):
    _, _, y, _, feeds = conv_bn(axis=axis)
    (got,), names = run([y], feeds)
    (want,), _ = run([y], feeds, fold=False, monkeypatch=monkeypatch)
    assert "batch_norm" in names
    np.testing.assert_array_equal(got, want)


def test_a_convolution_read_twice_or_fetched_is_not_folded(monkeypatch):
    _, conv, y, _, feeds = conv_bn()
    both = y + conv * 0.5  # the convolution's output is read by another node too
    (got,), names = run([both], feeds)
    (want,), _ = run([both], feeds, fold=False, monkeypatch=monkeypatch)
    assert "batch_norm" in names
    np.testing.assert_array_equal(got, want)
    # ... or is itself a result of the run
    (got_y, got_conv), names = run([y, conv], feeds)
    assert "batch_norm" in names
    (want_y,), _ = run([y], feeds, fold=False, monkeypatch=monkeypatch)
    np.testing.assert_array_equal(got_y, want_y)


def test_saved_statistics_read_or_training_are_not_folded():
    _, _, y, _, feeds = conv_bn()
    mean = y._siblings[0]  # batch_norm's saved mean, read by the plan
    _, names = run([y, mean], feeds)
    assert "batch_norm" in names
    _, names = run([y], feeds, training=True)
    assert "batch_norm" in names


def test_forced_inference_inside_a_training_plan_is_folded(monkeypatch):
    x = pd.data("x", shape=[None, 5, 5, 2])
    w = stored("w", (1, 1, 2, 4), "float32", 1)
    params = [stored(n, (4,), "float32", s, positive=(n == "mv")) for n, s in
              (("gamma", 3), ("beta", 4), ("mm", 5), ("mv", 6))]
    with pd.lowlevel.graph.forced_mode(False):
        y = pd.batch_norm(pd.conv2d(x, w), *params)
    feeds = {x: np.random.default_rng(0).standard_normal((2, 5, 5, 2)).astype("float32")}
    (got,), names = run([y], feeds, training=True)
    (want,), _ = run([y], feeds, fold=False, training=True, monkeypatch=monkeypatch)
    assert "batch_norm" not in names
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_keras_model_predicts_the_same_folded_after_training(monkeypatch):
    rng = np.random.default_rng(0)
    model = pd.Sequential([pd.layers.Input((8, 8, 3)),
                           pd.layers.Conv2D(8, 3, padding="same", use_bias=False),
                           pd.layers.BatchNormalization(), pd.layers.ReLU(),
                           pd.layers.Conv2D(4, 3), pd.layers.BatchNormalization(),
                           pd.layers.GlobalAveragePooling2D(), pd.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    x = rng.standard_normal((16, 8, 8, 3)).astype(np.float32)
    t = rng.standard_normal((16, 2)).astype(np.float32)
    before = model.predict_on_batch(x)
    model.train_on_batch(x, t)
    after = model.predict_on_batch(x)
    assert not np.allclose(before, after)
    monkeypatch.setattr(executor, "fold_batch_norm", lambda nodes, training, keep=(): nodes)
    plain = pd.Sequential.from_config(model.get_config())
    plain.set_weights(model.get_weights())
    np.testing.assert_allclose(after, plain.predict_on_batch(x), rtol=1e-5, atol=1e-5)


def test_folded_node_computes_the_batch_norm_output():
    _, _, y, _, _ = conv_bn()
    nodes = fold(executor.topological_nodes([y]), training=False, keep=[y])
    last = nodes[-1]
    assert last.op.name == "conv2d" and last.keys == [(id(y.node), 0)]
    assert y.node.keys is None
    assert fold(executor.topological_nodes([y]), training=True, keep=[y]) is not nodes
    assert [n.op.name for n in fold(executor.topological_nodes([y]), True, [y])] == \
        ["conv2d", "batch_norm"]
