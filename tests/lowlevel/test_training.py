"""Training with the low level only: linear regression and an MLP that converge, a GAN-style
pair of optimizers over disjoint variables, two networks on the same inputs side by side."""
import numpy as np
import pytest

import paddle as pd


def test_linear_regression_converges():
    pd.seed(0)
    rng = np.random.default_rng(0)
    true_w = np.array([[2.0], [-3.0], [0.5]], np.float32)
    xs = rng.standard_normal((256, 3)).astype(np.float32)
    ys = xs @ true_w + 1.25 + 0.01 * rng.standard_normal((256, 1)).astype(np.float32)

    x = pd.data("x", shape=[None, 3])
    y = pd.data("y", shape=[None, 1])
    w = pd.Variable("w", shape=[3, 1], initializer="zeros")
    b = pd.Variable("b", shape=[1])
    loss = pd.mean(pd.mse(x @ w + b, y))
    step = pd.optimizers.SGD(learning_rate=0.1).minimize(loss)
    first = None
    for epoch in range(30):
        for i in range(0, 256, 64):
            loss_v, _ = pd.eval([loss, step], {x: xs[i:i + 64], y: ys[i:i + 64]})
            first = float(loss_v) if first is None else first
    final = float(pd.eval(loss, {x: xs, y: ys}))
    assert first > 1.0 and final < 1e-3, (first, final)
    np.testing.assert_allclose(w.val(), true_w, atol=0.01)
    np.testing.assert_allclose(b.val(), [1.25], atol=0.01)


def _spirals(rng, n=150):
    t = rng.uniform(0.5, 3.0, n)
    cls = rng.integers(0, 2, n)
    angle = t * 2.0 + np.pi * cls
    pts = np.stack([t * np.cos(angle), t * np.sin(angle)], 1) + 0.05 * rng.standard_normal((n, 2))
    return pts.astype(np.float32), cls.astype(np.int64)


def test_mlp_classifier_converges():
    pd.seed(1)
    rng = np.random.default_rng(1)
    xs, ys = _spirals(rng)
    x = pd.data("x", shape=[None, 2])
    y = pd.data("y", shape=[None], dtype="int64")
    with pd.namespace("mlp"):
        h = pd.fc(x, size=32, act="tanh")
        h = pd.fc(h, size=32, act="relu")
        logits = pd.fc(h, size=2)
    loss = pd.mean(pd.softmax_cross_entropy(logits, y))
    acc = pd.accuracy(logits, y)
    step = pd.optimizers.Adam(learning_rate=0.02).minimize(loss)
    feeds = {x: xs, y: ys}
    start = float(pd.eval(loss, feeds))
    for _ in range(300):
        pd.eval(step, feeds)
    final, accuracy = (float(v) for v in pd.eval([loss, acc], feeds))
    assert start > 0.5 and final < 0.15, (start, final)
    assert accuracy > 0.95


def _snapshot(variables):
    return [v.val() for v in variables]


def _changed(before, variables):
    return [not np.array_equal(b, v.val()) for b, v in zip(before, variables)]


def test_gan_style_optimizers_update_only_their_own_variables():
    pd.seed(2)
    rng = np.random.default_rng(2)
    z = pd.data("z", shape=[None, 4])
    real = pd.data("real", shape=[None, 2])
    with pd.namespace("gen"):
        fake = pd.fc(pd.fc(z, size=8, act="relu"), size=2)

    def discriminator(inp):
        return pd.fc(pd.fc(inp, size=8, act="leaky_relu"), size=1)

    with pd.namespace("disc"):
        d_real = discriminator(real)
    with pd.namespace("disc", reuse=True):
        d_fake = discriminator(fake)
    ones_like, zeros_like = pd.ones_like, pd.zeros_like
    d_loss = pd.mean(pd.sigmoid_cross_entropy(d_real, ones_like(d_real))) + \
        pd.mean(pd.sigmoid_cross_entropy(d_fake, zeros_like(d_fake)))
    g_loss = pd.mean(pd.sigmoid_cross_entropy(d_fake, ones_like(d_fake)))

    names = sorted(pd.lowlevel.graph.NAMES.params.keys())
    g_vars = [pd.get_variable(n) for n in names if n.startswith("gen/")]
    d_vars = [pd.get_variable(n) for n in names if n.startswith("disc/")]
    assert len(g_vars) == 4 and len(d_vars) == 4              # reuse made no new ones
    d_opt = pd.optimizers.Adam(learning_rate=0.01)
    g_opt = pd.optimizers.Adam(learning_rate=0.01)
    d_step = d_opt.minimize(d_loss, var_list=d_vars)
    g_step = g_opt.minimize(g_loss, var_list=g_vars)
    # The generator's loss also depends on the discriminator, but g_step leaves it alone.
    assert set(map(id, pd.lowlevel.optimizers.trainable_parameters(g_loss))) == \
        set(map(id, g_vars + d_vars))

    def feeds():
        return {z: rng.standard_normal((16, 4)).astype(np.float32),
                real: (rng.standard_normal((16, 2)) * 0.1 + [2.0, -1.0]).astype(np.float32)}

    before_g, before_d = _snapshot(g_vars), _snapshot(d_vars)
    pd.eval(d_step, feeds())
    assert all(_changed(before_d, d_vars)) and not any(_changed(before_g, g_vars))
    before_g, before_d = _snapshot(g_vars), _snapshot(d_vars)
    pd.eval(g_step, feeds())
    assert all(_changed(before_g, g_vars)) and not any(_changed(before_d, d_vars))
    for _ in range(20):
        dl, _ = pd.eval([d_loss, d_step], feeds())
        gl, _ = pd.eval([g_loss, g_step], feeds())
        assert np.isfinite(dl) and np.isfinite(gl)
    assert d_opt.iterations == g_opt.iterations == 21
    assert d_opt.variables() == d_vars and g_opt.variables() == g_vars


def _net(scope, x, y, size):
    with pd.namespace(scope):
        logits = pd.fc(pd.fc(x, size=size, act="relu"), size=3)
    return pd.mean(pd.softmax_cross_entropy(logits, y))


def test_two_networks_on_the_same_inputs_side_by_side():
    pd.seed(3)
    rng = np.random.default_rng(3)
    x = pd.data("x", shape=[None, 5])
    y = pd.data("y", shape=[None], dtype="int64")
    loss_a = _net("a", x, y, 16)
    loss_b = _net("b", x, y, 8)
    opt_a = pd.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    opt_b = pd.optimizers.Adam(learning_rate=0.01)
    step_a, step_b = opt_a.minimize(loss_a), opt_b.minimize(loss_b)
    names = sorted(pd.lowlevel.graph.NAMES.params.keys())
    a_vars = [pd.get_variable(n) for n in names if n.startswith("a/")]
    b_vars = [pd.get_variable(n) for n in names if n.startswith("b/")]
    xs = rng.standard_normal((32, 5)).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int64) + (xs[:, 1] > 0.5)
    feeds = {x: xs, y: ys}

    # Two steps of each, side by side, equal the same steps taken apart (from the same
    # parameters and optimizer state).
    pd.eval([step_a, step_b], feeds)
    start = _snapshot(a_vars + b_vars)
    slots = [{k: s.copy() for k, s in opt.slots(v).items()}
             for opt, vs in ((opt_a, a_vars), (opt_b, b_vars)) for v in vs]
    la, lb, none_a, none_b = pd.eval([loss_a, loss_b, step_a, step_b], feeds)
    assert none_a is None and none_b is None
    together_a, together_b = _snapshot(a_vars), _snapshot(b_vars)
    for v, s in zip(a_vars + b_vars, start):
        v.set_value(s)
    for (opt, v), saved in zip([(opt_a, v) for v in a_vars] + [(opt_b, v) for v in b_vars],
                               slots):
        for k, s in saved.items():
            opt.slots(v)[k][...] = s
    opt_b.iterations -= 1
    la_alone, _ = pd.eval([loss_a, step_a], feeds)
    lb_alone, _ = pd.eval([loss_b, step_b], feeds)
    assert float(la) == float(la_alone) and float(lb) == float(lb_alone)
    for v, t in zip(a_vars + b_vars, together_a + together_b):
        np.testing.assert_allclose(v.val(), t, rtol=1e-6, atol=1e-7)

    first = (float(la), float(lb))
    for _ in range(60):
        la, lb, _, _ = pd.eval([loss_a, loss_b, step_a, step_b], feeds)
    assert float(la) < 0.5 * first[0] and float(lb) < 0.8 * first[1], (first, la, lb)


@pytest.mark.parametrize("batch", [1, 7])
def test_training_with_varying_batch_sizes(batch):
    pd.seed(4)
    rng = np.random.default_rng(4)
    x = pd.data("x", shape=[None, 2])
    y = pd.data("y", shape=[None, 1])
    pred = pd.fc(x, size=1)
    loss = pd.mean(pd.mse(pred, y))
    step = pd.optimizers.SGD(learning_rate=0.05).minimize(loss)
    xs = rng.standard_normal((70, 2)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0]], np.float32)
    for epoch in range(20):
        for i in range(0, 70, batch * 5):          # batches of 5 * batch, and a ragged tail
            pd.eval(step, {x: xs[i:i + batch * 5 + (i % 3)], y: ys[i:i + batch * 5 + (i % 3)]})
    assert float(pd.eval(loss, {x: xs, y: ys})) < 1e-3
