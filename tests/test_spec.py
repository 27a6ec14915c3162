"""The public API contract (/work/shared/spec/api.md), one test per statement, in its order.

These tests use only the names the contract gives (`import paddle as pd`); the internals
are free to change. Data are small random arrays so the whole file runs in seconds.
"""
import csv
import gc
import io
import json
import os
import re
import socket
import urllib.error
import urllib.request
import weakref

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel.eager import EagerTensor

HERE = os.path.basename(__file__)


def rng(seed=0):
    return np.random.default_rng(seed)


def line_of(marker):
    """The line number in this file of the line that holds `marker` (a unique comment)."""
    with open(__file__) as f:
        for number, line in enumerate(f, 1):
            if marker in line and "line_of(" not in line:
                return number
    raise AssertionError(marker)


def numeric_gradients(fn, arrays, wrt, eps=1e-6):
    """Central differences of sum(fn(*arrays) * r) in float64, for each array in `wrt`."""
    r = rng(99)
    out = fn(*arrays)
    weights = r.standard_normal(np.shape(out))

    def f(*a):
        return float(np.sum(fn(*a) * weights))

    grads = []
    for i in wrt:
        g = np.zeros_like(arrays[i], dtype=np.float64)
        flat = g.reshape(-1)
        for k in range(flat.size):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[i].reshape(-1)[k] += eps
            minus[i].reshape(-1)[k] -= eps
            flat[k] = (f(*plus) - f(*minus)) / (2 * eps)
        grads.append(g)
    return weights, grads


def check_op_gradients(build, arrays, wrt=None, rtol=1e-4, atol=1e-6):
    """pd.gradients of an op built on float64 data inputs agrees with central differences."""
    wrt = list(range(len(arrays))) if wrt is None else wrt
    inputs = [pd.data(f"in{i}", shape=a.shape, dtype=str(a.dtype)) for i, a in enumerate(arrays)]
    out = build(*inputs)
    feeds = dict(zip(inputs, arrays))

    def forward(*a):
        return pd.eval(out, dict(zip(inputs, a)))

    weights, expected = numeric_gradients(forward, arrays, wrt)
    loss = pd.sum(out * pd.constant(weights, dtype=out.dtype))
    grads = pd.gradients(loss, [inputs[i] for i in wrt])
    assert all(isinstance(g, pd.Variable) for g in grads)
    got = pd.eval(grads, feeds)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


# =========================================================================================
# Preamble: one package, two layers, NumPy in and out
# =========================================================================================

def test_one_import_gives_both_layers():
    import paddle.highlevel
    import paddle.lowlevel
    assert pd.lowlevel is paddle.lowlevel and pd.highlevel is paddle.highlevel
    for name in ("Variable", "eval", "gradients", "namespace", "optimizers"):
        assert hasattr(pd.lowlevel, name), name
    for name in ("Model", "Sequential", "layers", "losses", "metrics", "callbacks",
                 "load_model"):
        assert hasattr(pd.highlevel, name), name


def test_numpy_arrays_go_in_and_come_out():
    x = pd.data("x", shape=[None, 3])
    out = pd.eval(x * 2.0, {x: np.ones((2, 3), np.float32)})
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, np.full((2, 3), 2.0))


# =========================================================================================
# 1. Low level: the code block, line by line
# =========================================================================================

def test_data_shape_dtype_name():
    x = pd.data("x", shape=[None, 784])
    y = pd.data("y", shape=[None], dtype="int64")
    assert (x.shape, x.dtype, x.name) == ((None, 784), "float32", "x")
    assert (y.shape, y.dtype, y.name) == ((None,), "int64", "y")


def test_namespace_fc_creates_named_parameters():
    x = pd.data("x", shape=[None, 784])
    with pd.namespace("mlp"):
        h = pd.fc(x, size=128, act="relu")
        logits = pd.fc(h, size=10)
    w0, b0 = pd.get_variable("mlp/fc_0/w"), pd.get_variable("mlp/fc_0/b")
    w1, b1 = pd.get_variable("mlp/fc_1/w"), pd.get_variable("mlp/fc_1/b")
    assert (w0.shape, b0.shape) == ((784, 128), (128,))
    assert (w1.shape, b1.shape) == ((128, 10), (10,))
    assert h.shape == (None, 128)              # known as soon as the line ran
    assert logits.shape == (None, 10)
    xb = rng().standard_normal((3, 784)).astype(np.float32)
    expected = np.maximum(xb @ w0.val() + b0.val(), 0) @ w1.val() + b1.val()
    np.testing.assert_allclose(pd.eval(logits, {x: xb}), expected, rtol=1e-4, atol=1e-4)


def test_variable_is_trainable_glorot_parameter():
    pd.seed(0)
    w = pd.Variable("w", shape=[784, 10], initializer="glorot_uniform")
    assert w.trainable is True and w.shape == (784, 10) and w.dtype == "float32"
    limit = np.sqrt(6 / (784 + 10))
    v = w.val()
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.9 * limit


def test_operators_and_broadcasting():
    x = pd.data("x", shape=[None, 3])
    w = pd.Variable("w", shape=[3, 2], initializer="ones")
    xb = rng().uniform(0.5, 2.0, (4, 3)).astype(np.float32)
    row = np.array([1.0, 2.0, 3.0], np.float32)
    cases = {
        "add": (x + row, xb + row), "radd": (1.0 + x, 1.0 + xb),
        "sub": (x - 1.0, xb - 1.0), "rsub": (1.0 - x, 1.0 - xb),
        "mul": (x * x, xb * xb), "rmul": (2.0 * x, 2.0 * xb),
        "div": (x / 2.0, xb / 2.0), "rdiv": (2.0 / x, 2.0 / xb),
        "pow": (x ** 2.0, xb ** 2.0), "rpow": (2.0 ** x, 2.0 ** xb),
        "matmul": (x @ w + 1.0, xb @ np.ones((3, 2)) + 1.0),
        "neg": (-x, -xb),
        "bcast": (x + pd.constant(np.ones((4, 1), np.float32)), xb + 1.0),
    }
    for name, (var, expected) in cases.items():
        assert isinstance(var, pd.Variable), name
        np.testing.assert_allclose(pd.eval(var, {x: xb}), expected, rtol=1e-5, err_msg=name)
    z = x @ w + 1.0
    assert z.shape == (None, 2)


def test_matmul_shape_error_raised_at_once():
    x = pd.data("x", shape=[None, 784])
    with pytest.raises(pd.ShapeError):
        pd.matmul(x, pd.Variable("bad", shape=[10, 3]))


def test_code_block_loss_gradients_minimize_eval():
    pd.seed(1)
    x = pd.data("x", shape=[None, 784])
    y = pd.data("y", shape=[None], dtype="int64")
    with pd.namespace("mlp"):
        h = pd.fc(x, size=16, act="relu")
        logits = pd.fc(h, size=10)
    w = pd.Variable("w", shape=[784, 10], initializer="glorot_uniform")
    loss = pd.mean(pd.softmax_cross_entropy(logits + x @ w, y))
    gw, = pd.gradients(loss, [w])
    assert isinstance(gw, pd.Variable) and gw.shape == (784, 10)
    opt = pd.optimizers.Adam(learning_rate=1e-3)
    step = opt.minimize(loss)
    xb = rng().standard_normal((8, 784)).astype(np.float32)
    yb = rng().integers(0, 10, 8)
    before = {v.name: v.val() for v in (w, pd.get_variable("mlp/fc_0/w"),
                                        pd.get_variable("mlp/fc_1/b"))}
    loss_v, none = pd.eval([loss, step], feeds={x: xb, y: yb})
    assert none is None and isinstance(loss_v, np.ndarray) and loss_v.shape == ()
    for name, value in before.items():       # every trainable Variable the loss depends on
        assert not np.array_equal(pd.get_variable(name).val(), value), name


def test_eval_runs_only_the_ops_the_targets_need():
    x = pd.data("x", shape=[None, 3])
    y = pd.data("y", shape=[None], dtype="int64")
    with pd.namespace("only"):
        h = pd.fc(x, size=2)
    loss = pd.mean(pd.softmax_cross_entropy(h, y))
    step = pd.optimizers.SGD(0.1).minimize(loss)
    params = [pd.get_variable("only/fc_0/w"), pd.get_variable("only/fc_0/b")]
    params[1].set_value(np.ones(2, np.float32))
    before = [p.val() for p in params]
    out = pd.eval(h, {x: np.ones((2, 3))})    # y is not needed, the update is not run
    assert out.shape == (2, 2)
    for p, b in zip(params, before):
        np.testing.assert_array_equal(p.val(), b)
    pd.eval(step, {x: np.ones((2, 3)), y: np.array([0, 1])})
    assert not np.array_equal(params[0].val(), before[0])


def test_val_is_a_copy_and_set_value_assigns():
    w = pd.Variable("w", shape=[784, 10])
    v = w.val()
    assert isinstance(v, np.ndarray) and v.shape == (784, 10)
    v[:] = 7.0
    assert not np.any(w.val() == 7.0)
    w.set_value(np.zeros((784, 10), np.float32))
    np.testing.assert_array_equal(w.val(), 0.0)


def test_trainable_false_freezes_from_next_minimize():
    x = pd.data("x", shape=[None, 2])
    a = pd.Variable("a", shape=[2, 1], initializer="ones")
    b = pd.Variable("b", shape=[1], initializer="ones")
    loss = pd.mean(pd.square(x @ a + b))
    a.trainable = False
    step = pd.optimizers.SGD(0.1).minimize(loss)
    pd.eval(step, {x: np.ones((4, 2), np.float32)})
    np.testing.assert_array_equal(a.val(), 1.0)
    assert b.val()[0] != 1.0


def test_get_variable_by_full_name():
    x = pd.data("x", shape=[None, 5])
    with pd.namespace("mlp"):
        h = pd.fc(x, size=3)                  # parameters live as long as the graph does
    w = pd.get_variable("mlp/fc_0/w")
    assert h.shape == (None, 3)
    assert isinstance(w, pd.Variable) and w.name == "mlp/fc_0/w" and w.shape == (5, 3)


# ---- Variable ---------------------------------------------------------------------------

def test_variable_attributes_and_methods():
    x = pd.data("x", shape=[None, 2])
    w = pd.Variable("w", shape=[2, 2], initializer="ones")
    c = pd.constant(np.array([1.0, 2.0]))
    out = x @ w + c
    for v in (x, w, c, out):
        assert isinstance(v, pd.Variable)
        assert isinstance(v.name, str) and isinstance(v.shape, tuple) and isinstance(v.dtype, str)
        assert isinstance(v.trainable, bool)
    assert out.shape == (None, 2)
    assert c.trainable is False and x.trainable is False
    np.testing.assert_array_equal(c.val(), [1.0, 2.0])
    np.testing.assert_array_equal(c.eval(), [1.0, 2.0])
    np.testing.assert_array_equal(w.eval(), np.ones((2, 2)))
    np.testing.assert_allclose(out.eval(feeds={x: np.ones((1, 2))}), [[3.0, 4.0]])
    np.testing.assert_allclose(out.eval({x: np.ones((1, 2))}), [[3.0, 4.0]])


def test_names_unique_with_numeric_suffix():
    w = pd.Variable("w", shape=[2])
    w1 = pd.Variable("w", shape=[2])
    w2 = pd.Variable("w", shape=[2])
    assert (w.name, w1.name, w2.name) == ("w", "w_1", "w_2")
    with pd.namespace("ns"):
        v = pd.Variable("v", shape=[1])
    assert v.name == "ns/v"


# ---- shape inference on construction ------------------------------------------------------

def test_every_op_infers_shape_and_dtype_when_called():
    x = pd.data("x", shape=[None, 8, 8, 3])
    ids = pd.data("ids", shape=[None, 5], dtype="int64")
    assert pd.conv2d(x, pd.constant(np.ones((3, 3, 3, 4), np.float32))).shape == (None, 6, 6, 4)
    assert pd.max_pool2d(x, 2).shape == (None, 4, 4, 3)
    assert pd.flatten(x).shape == (None, 192)
    assert pd.argmax(pd.flatten(x), axis=-1).dtype == "int64"
    assert pd.cast(x, "float64").dtype == "float64"
    assert pd.one_hot(ids, 7).shape == (None, 5, 7)
    assert pd.embedding(ids, pd.Variable("tbl", shape=[10, 4])).shape == (None, 5, 4)


def test_layers_on_variables_create_parameters_in_current_namespace():
    x = pd.data("x", shape=[None, 28, 28, 1])
    with pd.namespace("enc"):
        conv = pd.layers.Conv2D(32, 3)
        y = conv(x)
    assert y.shape == (None, 26, 26, 32)
    assert [w.shape for w in conv.weights] == [(3, 3, 1, 32), (32,)]
    assert all(w.name.startswith("enc/") for w in conv.weights)
    assert pd.get_variable(conv.weights[0].name) is conv.weights[0]


def test_ops_are_pure_weights_are_passed_in():
    x = pd.data("x", shape=[None, 5, 5, 2])
    filters = pd.Variable("filters", shape=[3, 3, 2, 4])
    out = pd.conv2d(x, filters)
    assert out.shape == (None, 3, 3, 4)
    grads = pd.gradients(pd.sum(out), [filters])     # the only parameter is ours
    assert grads[0].shape == (3, 3, 2, 4)
    xb = rng().standard_normal((1, 5, 5, 2)).astype(np.float32)
    f = filters.val()
    expected = np.einsum("hwc,hwco->o", xb[0, 0:3, 0:3], f)
    np.testing.assert_allclose(pd.eval(out, {x: xb})[0, 0, 0], expected, rtol=1e-4, atol=1e-5)


# ---- namespace --------------------------------------------------------------------------

def test_namespace_prefixes_every_name_created_inside():
    x = pd.data("x", shape=[None, 3])
    with pd.namespace("gen"):
        p = pd.Variable("p", shape=[2])
        d = pd.data("inp", shape=[None, 3])
        h = pd.fc(x, size=2)
    assert p.name == "gen/p" and d.name == "gen/inp"
    assert pd.get_variable("gen/fc_0/w").shape == (3, 2)
    assert h.shape == (None, 2)


def test_namespace_reuse_shares_parameters():
    x = pd.data("x", shape=[None, 3])
    with pd.namespace("gen"):
        a = pd.fc(x, size=2)
    with pd.namespace("gen", reuse=True):
        b = pd.fc(x, size=2)
    w = pd.get_variable("gen/fc_0/w")
    xb = rng().standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(*pd.eval([a, b], {x: xb}))
    ga, gb = pd.gradients(pd.sum(a) + pd.sum(b), [w])[0], pd.gradients(pd.sum(a), [w])[0]
    np.testing.assert_allclose(pd.eval(ga, {x: xb}), 2 * pd.eval(gb, {x: xb}), rtol=1e-5)
    with pytest.raises(KeyError):
        pd.get_variable("gen/fc_1/w")
    # high-level layers share too
    with pd.namespace("disc"):
        d1 = pd.layers.Dense(2)
        d1(x)
    with pd.namespace("disc", reuse=True):
        d2 = pd.layers.Dense(2, name=d1.name)
        d2(x)
    assert d2.weights[0] is d1.weights[0]


def test_reuse_fetches_existing_variables_by_name():
    """'a taken name gets a numeric suffix, except where reuse=True asks for the existing one'"""
    with pd.namespace("shared"):
        w = pd.Variable("w", shape=[2, 3])
    with pd.namespace("shared", reuse=True):
        again = pd.Variable("w", shape=[2, 3])
    assert again is w
    with pd.namespace("shared"):
        other = pd.Variable("w", shape=[2, 3])
    assert other is not w and other.name == "shared/w_1"


def test_namespaces_nest():
    x = pd.data("x", shape=[None, 3])
    with pd.namespace("a"):
        with pd.namespace("b"):
            h = pd.fc(x, size=1)
            v = pd.Variable("v", shape=[1])
    assert v.name == "a/b/v" and h.shape == (None, 1)
    assert pd.get_variable("a/b/fc_0/w").shape == (3, 1)


# ---- the graph is what your Variables reach -----------------------------------------------

def test_two_networks_on_the_same_inputs_run_side_by_side():
    x = pd.data("x", shape=[None, 4])
    with pd.namespace("one"):
        a = pd.fc(x, size=2)
    with pd.namespace("two"):
        b = pd.fc(x, size=3)
    xb = np.ones((5, 4), np.float32)
    ra, rb = pd.eval([a, b], {x: xb})
    assert ra.shape == (5, 2) and rb.shape == (5, 3)
    np.testing.assert_allclose(pd.eval(a, {x: xb}), ra)


def test_dropped_graphs_are_freed():
    x = pd.data("x", shape=[None, 4])
    refs = []
    for _ in range(3):
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
        model.compile(optimizer="adam", loss="mse")
        model.train_on_batch(np.ones((2, 4), np.float32), np.ones((2, 3), np.float32))
        h = pd.fc(x, size=2)
        pd.eval(h, {x: np.ones((1, 4))})
        refs += [weakref.ref(model), weakref.ref(model.weights[0]), weakref.ref(h)]
        del model, h
    gc.collect()
    assert all(r() is None for r in refs)


def test_many_models_do_not_grow_memory():
    import tracemalloc

    def build_and_drop():
        model = pd.Sequential([pd.layers.Input(shape=(64,)), pd.layers.Dense(64),
                               pd.layers.Dense(4)])
        model.compile(optimizer="adam", loss="mse")
        model.train_on_batch(np.ones((8, 64), np.float32), np.ones((8, 4), np.float32))

    for _ in range(5):
        build_and_drop()
    gc.collect()
    tracemalloc.start()
    for _ in range(5):
        build_and_drop()
    gc.collect()
    first, _ = tracemalloc.get_traced_memory()
    for _ in range(20):
        build_and_drop()
    gc.collect()
    second, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert second - first < 512 * 1024, (first, second)


# ---- eval --------------------------------------------------------------------------------

def test_eval_signature_and_results():
    x = pd.data("x", shape=[None, 2])
    y = x * 2.0
    one = pd.eval(y, {x: np.ones((1, 2))})
    assert isinstance(one, np.ndarray)
    both = pd.eval([y, y + 1.0], feeds={x: np.ones((1, 2))}, training=False, device="cpu")
    assert isinstance(both, list) and len(both) == 2
    assert all(isinstance(a, np.ndarray) for a in both)
    assert pd.eval(pd.constant(3.0)) == 3.0               # feeds=None
    p = pd.Variable("p", shape=[1], initializer="ones")
    step = pd.optimizers.SGD(0.5).minimize(pd.sum(p * p))
    assert pd.eval([step])[0] is None
    assert pd.eval(step) is None


def test_eval_training_switches_dropout_and_batch_norm():
    pd.seed(3)
    x = pd.data("x", shape=[None, 100])
    d = pd.dropout(x, 0.5)
    xb = np.ones((4, 100), np.float32)
    np.testing.assert_array_equal(pd.eval(d, {x: xb}), xb)
    t = pd.eval(d, {x: xb}, training=True)
    assert set(np.unique(t)) <= {0.0, 2.0} and 0 < (t == 0).mean() < 1
    scale, offset = pd.Variable("g", [100], initializer="ones"), pd.Variable("b", [100])
    mm = pd.Variable("mm", [100], trainable=False)
    mv = pd.Variable("mv", [100], initializer="ones", trainable=False)
    bn = pd.batch_norm(x, scale, offset, mm, mv)
    xb2 = rng().standard_normal((8, 100)).astype(np.float32) + 3.0
    np.testing.assert_allclose(pd.eval(bn, {x: xb2}), xb2 / np.sqrt(1 + 1e-3), rtol=1e-5)
    tr = pd.eval(bn, {x: xb2}, training=True)
    np.testing.assert_allclose(tr.mean(axis=0), 0.0, atol=1e-4)


# ---- gradients --------------------------------------------------------------------------

def test_gradients_grad_ys_and_higher_order():
    x = pd.data("x", shape=[3], dtype="float64")
    y = x ** 3.0
    g, = pd.gradients(y, [x])
    gg, = pd.gradients(g, [x])
    ggg, = pd.gradients(gg, [x])
    xb = np.array([1.0, 2.0, -1.5])
    np.testing.assert_allclose(pd.eval(g, {x: xb}), 3 * xb ** 2)
    np.testing.assert_allclose(pd.eval(gg, {x: xb}), 6 * xb)
    np.testing.assert_allclose(pd.eval(ggg, {x: xb}), [6.0, 6.0, 6.0])
    gy = pd.constant(np.array([1.0, 0.5, 2.0]), dtype="float64")
    gw, = pd.gradients(y, [x], grad_ys=gy)
    np.testing.assert_allclose(pd.eval(gw, {x: xb}), 3 * xb ** 2 * [1.0, 0.5, 2.0])
    # several ys: gradient of their sum
    g2, = pd.gradients([y, 2.0 * x], [x])
    np.testing.assert_allclose(pd.eval(g2, {x: xb}), 3 * xb ** 2 + 2)


# ---- optimizers ---------------------------------------------------------------------------

def _quadratic():
    w = pd.Variable("w", shape=[3], initializer=pd.initializers.Constant(2.0))
    return w, pd.sum(w * w)


@pytest.mark.parametrize("make", [
    lambda: pd.optimizers.SGD(0.1),
    lambda: pd.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True),
    lambda: pd.optimizers.SGD(0.1, momentum=0.5, nesterov=False),
    lambda: pd.optimizers.Adam(learning_rate=0.1),
    lambda: pd.optimizers.AdamW(learning_rate=0.1),
    lambda: pd.optimizers.RMSprop(learning_rate=0.1),
    lambda: pd.optimizers.Adagrad(learning_rate=0.5),
])
def test_optimizers_minimize_returns_an_update_op(make):
    w, loss = _quadratic()
    opt = make()
    step = opt.minimize(loss)
    assert isinstance(step, pd.Variable)
    start = float(pd.eval(loss))
    for _ in range(20):
        assert pd.eval(step) is None
    assert float(pd.eval(loss)) < start


def test_sgd_momentum_matches_keras_formula():
    w = pd.Variable("w", shape=[1], initializer="ones")
    step = pd.optimizers.SGD(learning_rate=0.1, momentum=0.9).minimize(pd.sum(w * w))
    value, velocity = 1.0, 0.0
    for _ in range(3):
        pd.eval(step)
        velocity = 0.9 * velocity - 0.1 * 2 * value
        value += velocity
    np.testing.assert_allclose(w.val(), [value], rtol=1e-5)


def _keras_reference(kind, lr, steps, grad_of):
    """Keras 3's update rules (the page is silent on formulas: Keras is the reference)."""
    w, state = np.ones(3), {}
    for t in range(1, steps + 1):
        g = grad_of(w)
        if kind == "nesterov":
            v = 0.9 * state.get("v", 0) - lr * g
            state["v"] = v
            w = w + 0.9 * v - lr * g
        elif kind in ("adam", "adamw"):
            if kind == "adamw":
                w = w - w * 0.004 * lr
            m = state.get("m", 0) + (g - state.get("m", 0)) * 0.1
            v = state.get("v", 0) + (g * g - state.get("v", 0)) * 0.001
            state.update(m=m, v=v)
            alpha = lr * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            w = w - alpha * m / (np.sqrt(v) + 1e-7)
        elif kind == "rmsprop":
            v = 0.9 * state.get("v", 0) + 0.1 * g * g
            state["v"] = v
            w = w - lr * g / np.sqrt(v + 1e-7)
        elif kind == "adagrad":
            a = state.get("a", 0.1) + g * g
            state["a"] = a
            w = w - lr * g / np.sqrt(a + 1e-7)
    return w


@pytest.mark.parametrize("kind,make", [
    ("nesterov", lambda: pd.optimizers.SGD(0.1, momentum=0.9, nesterov=True)),
    ("adam", lambda: pd.optimizers.Adam(0.1)),
    ("adamw", lambda: pd.optimizers.AdamW(0.1)),
    ("rmsprop", lambda: pd.optimizers.RMSprop(0.1)),
    ("adagrad", lambda: pd.optimizers.Adagrad(0.1)),
])
def test_optimizer_updates_follow_keras(kind, make):
    c = np.array([0.3, -1.2, 2.0])
    w = pd.Variable("w", shape=[3], initializer="ones")
    step = make().minimize(pd.sum(w * pd.constant(c)) + 0.5 * pd.sum(w * w))  # grad: c + w
    for _ in range(3):
        pd.eval(step)
    np.testing.assert_allclose(w.val(), _keras_reference(kind, 0.1, 3, lambda v: c + v),
                               rtol=1e-5, atol=1e-5)


def test_two_optimizers_with_disjoint_var_lists_train_a_gan():
    pd.seed(0)
    z = pd.data("z", shape=[None, 2])
    real = pd.data("real", shape=[None, 2])
    with pd.namespace("gen"):
        fake = pd.fc(z, size=2)
    with pd.namespace("disc"):
        d_real = pd.fc(real, size=1)
    with pd.namespace("disc", reuse=True):
        d_fake = pd.fc(fake, size=1)
    g_vars = [pd.get_variable("gen/fc_0/w"), pd.get_variable("gen/fc_0/b")]
    d_vars = [pd.get_variable("disc/fc_0/w"), pd.get_variable("disc/fc_0/b")]
    ones = pd.constant(np.ones((1, 1), np.float32))
    d_loss = pd.mean(pd.sigmoid_cross_entropy(d_real, ones)) + \
        pd.mean(pd.sigmoid_cross_entropy(d_fake, 0.0 * ones))
    g_loss = pd.mean(pd.sigmoid_cross_entropy(d_fake, ones))
    d_step = pd.optimizers.Adam(0.01).minimize(d_loss, var_list=d_vars)
    g_step = pd.optimizers.Adam(0.01).minimize(g_loss, var_list=g_vars)
    feeds = {z: rng().standard_normal((8, 2)), real: rng(1).standard_normal((8, 2)) + 3}
    g_before = [v.val() for v in g_vars]
    pd.eval(d_step, feeds)
    for v, b in zip(g_vars, g_before):
        np.testing.assert_array_equal(v.val(), b)      # the discriminator step left G alone
    d_before = [v.val() for v in d_vars]
    pd.eval(g_step, feeds)
    for v, b in zip(d_vars, d_before):
        np.testing.assert_array_equal(v.val(), b)
    assert not np.array_equal(g_vars[0].val(), g_before[0])


def test_learning_rate_float_or_schedule():
    s = pd.optimizers.schedules
    exp = s.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    pw = s.PiecewiseConstantDecay(boundaries=[2], values=[0.1, 0.01])
    cos = s.CosineDecay(0.1, decay_steps=10)
    assert exp(0) == pytest.approx(0.1) and exp(10) == pytest.approx(0.05)
    assert pw(0) == pytest.approx(0.1) and pw(5) == pytest.approx(0.01)
    assert cos(0) == pytest.approx(0.1) and cos(10) == pytest.approx(0.0, abs=1e-7)
    w = pd.Variable("w", shape=[1], initializer="ones")
    step = pd.optimizers.SGD(learning_rate=pw).minimize(pd.sum(w))   # gradient 1
    for _ in range(4):
        pd.eval(step)
    # Keras: values[0] while step <= boundaries[0] (steps 0, 1, 2), then values[1]
    np.testing.assert_allclose(w.val(), [1 - 3 * 0.1 - 0.01], rtol=1e-5)


def test_optimizer_state_inspectable_and_saveable(tmp_path):
    w, loss = _quadratic()
    opt = pd.optimizers.Adam(0.1)
    step = opt.minimize(loss)
    for _ in range(3):
        pd.eval(step)
    assert opt.iterations == 3
    slots = opt.slots(w)
    assert all(isinstance(a, np.ndarray) for a in slots.values()) and len(slots) >= 2
    # saved with a model
    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile(optimizer=pd.optimizers.Adam(0.01), loss="mse")
    model.train_on_batch(np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32))
    model.save(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert "optimizer_weights" in f
        count = []
        f["optimizer_weights"].visititems(lambda n, o: count.append(n)
                                          if isinstance(o, h5py.Dataset) else None)
        assert len(count) >= 5     # iterations + two moments per weight
    loaded = pd.load_model(tmp_path / "m.h5")
    assert loaded.optimizer.iterations == 1


# ---- initializers -------------------------------------------------------------------------

def test_default_initializers():
    pd.seed(0)
    assert np.all(pd.Variable("v", shape=[5]).val() == 0)
    assert np.all(pd.Variable("s", shape=[]).val() == 0)
    m = pd.Variable("m", shape=[50, 50]).val()
    limit = np.sqrt(6 / 100)
    assert np.abs(m).max() <= limit and m.std() > 0.5 * limit / np.sqrt(3)


@pytest.mark.parametrize("name", ["zeros", "ones", "glorot_uniform", "glorot_normal",
                                  "he_normal", "he_uniform", "lecun_normal"])
def test_initializer_names(name):
    pd.seed(0)
    fan_in, fan_out = 400, 200
    v = pd.Variable("v", shape=[fan_in, fan_out], initializer=name).val()
    expected_std = {"zeros": 0.0, "ones": 0.0,
                    "glorot_uniform": np.sqrt(2 / (fan_in + fan_out)),
                    "glorot_normal": np.sqrt(2 / (fan_in + fan_out)),
                    "he_normal": np.sqrt(2 / fan_in), "he_uniform": np.sqrt(2 / fan_in),
                    "lecun_normal": np.sqrt(1 / fan_in)}[name]
    assert v.std() == pytest.approx(expected_std, rel=0.05, abs=1e-7)
    if name == "ones":
        assert np.all(v == 1)


def test_initializer_objects():
    pd.seed(0)
    n = pd.Variable("n", shape=[100, 100], initializer=pd.initializers.Normal(1.0, 0.5)).val()
    assert n.mean() == pytest.approx(1.0, abs=0.02) and n.std() == pytest.approx(0.5, rel=0.05)
    u = pd.Variable("u", shape=[100, 100], initializer=pd.initializers.Uniform(2.0, 3.0)).val()
    assert u.min() >= 2.0 and u.max() <= 3.0 and u.mean() == pytest.approx(2.5, abs=0.02)
    c = pd.Variable("c", shape=[3, 3], initializer=pd.initializers.Constant(4.0)).val()
    np.testing.assert_array_equal(c, 4.0)
    # the contract's argument names, as keywords
    n = pd.Variable("n2", shape=[100, 100],
                    initializer=pd.initializers.Normal(mean=-1.0, std=0.25)).val()
    assert n.mean() == pytest.approx(-1.0, abs=0.01) and n.std() == pytest.approx(0.25, rel=0.05)
    u = pd.Variable("u2", shape=[50, 50], initializer=pd.initializers.Uniform(lo=5.0, hi=6.0)).val()
    assert u.min() >= 5.0 and u.max() <= 6.0
    c = pd.Variable("c2", shape=[2], initializer=pd.initializers.Constant(v=3.0)).val()
    np.testing.assert_array_equal(c, 3.0)


def test_seed_makes_initialization_shuffling_dropout_reproducible():
    def run():
        pd.seed(42)
        w = pd.Variable("w", shape=[4, 4]).val()
        x = pd.data("x", shape=[None, 50])
        d = pd.eval(pd.dropout(x, 0.5), {x: np.ones((2, 50))}, training=True)
        order = [s for s in pd.reader.shuffle(lambda: iter(range(20)), 20)()]
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
        model.compile(optimizer="sgd", loss="mse")
        xs = rng().standard_normal((16, 3)).astype(np.float32)
        model.fit(xs, np.zeros((16, 2), np.float32), batch_size=4, epochs=1, shuffle=True,
                  verbose=0)
        return w, d, order, model.get_weights()

    a, b = run(), run()
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2]
    for wa, wb in zip(a[3], b[3]):
        np.testing.assert_array_equal(wa, wb)


# ---- devices ------------------------------------------------------------------------------

def test_devices_cpu():
    before = pd.get_device()
    try:
        pd.set_device("cpu")
        assert pd.get_device() == "cpu"
        x = pd.data("x", shape=[None, 2])
        np.testing.assert_array_equal(pd.eval(x + 1.0, {x: np.zeros((1, 2))}, device="cpu"),
                                      [[1.0, 1.0]])
    finally:
        pd.set_device(before)


def test_devices_gpu_without_a_gpu_says_so():
    from paddle.devices import cuda
    if cuda.available:
        pytest.skip("a GPU and CuPy are present")
    before = pd.get_device()
    x = pd.data("x", shape=[None, 3])
    with pytest.raises(Exception, match="(?i)gpu|cuda"):
        pd.set_device("gpu")
    with pytest.raises(Exception, match="(?i)gpu|cuda"):
        pd.eval(x * 2.0, {x: np.ones((1, 3))}, device="gpu:1")
    assert pd.get_device() == before


@pytest.mark.gpu
def test_devices_gpu_same_results_as_cpu():
    before = pd.get_device()
    pd.seed(0)
    x = pd.data("x", shape=[None, 3])
    w = pd.Variable("w", shape=[3, 3])
    y = pd.softmax(x @ w)
    loss = pd.mean(pd.square(y))
    gw, = pd.gradients(loss, [w])
    xb = rng().standard_normal((4, 3)).astype(np.float32)
    try:
        pd.set_device("gpu")
        assert pd.get_device().startswith("gpu")
        on_gpu = pd.eval([y, gw], {x: xb})
    finally:
        pd.set_device(before)
    on_cpu = pd.eval([y, gw], {x: xb}, device="cpu")
    for a, b in zip(on_gpu, on_cpu):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# =========================================================================================
# 1. Ops: each with shape inference, a CPU kernel and a gradient
# =========================================================================================

def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _softmax(v, axis=-1):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _erf(v):
    from math import erf
    return np.vectorize(erf)(v)


R = rng(7)
A = R.uniform(0.5, 2.0, (3, 4))           # positive: log, sqrt, pow, div
B = R.uniform(0.5, 2.0, (3, 4))
S = R.standard_normal((3, 4))             # signed
S[np.abs(S) < 0.05] = 0.3                 # keep kinks (abs, relu, clip...) away from 0
ROW = R.uniform(0.5, 2.0, (4,))

# name -> (build(*Variables), arrays, NumPy reference(*arrays), differentiable input indexes)
MATH = {
    "add": (pd.add, [A, ROW], lambda a, b: a + b, [0, 1]),
    "sub": (pd.sub, [A, ROW], lambda a, b: a - b, [0, 1]),
    "mul": (pd.mul, [A, B], lambda a, b: a * b, [0, 1]),
    "div": (pd.div, [A, B], lambda a, b: a / b, [0, 1]),
    "pow": (pd.pow, [A, B], lambda a, b: a ** b, [0, 1]),
    "neg": (pd.neg, [S], lambda a: -a, [0]),
    "abs": (pd.abs, [S], np.abs, [0]),
    "exp": (pd.exp, [S], np.exp, [0]),
    "log": (pd.log, [A], np.log, [0]),
    "sqrt": (pd.sqrt, [A], np.sqrt, [0]),
    "square": (pd.square, [S], np.square, [0]),
    "maximum": (pd.maximum, [A, B], np.maximum, [0, 1]),
    "minimum": (pd.minimum, [A, B], np.minimum, [0, 1]),
    "clip": (lambda a: pd.clip(a, -0.5, 0.5), [S], lambda a: np.clip(a, -0.5, 0.5), [0]),
    "sign": (pd.sign, [S], np.sign, []),
}
ACTIVATIONS = {
    "relu": (pd.relu, [S], lambda a: np.maximum(a, 0), [0]),
    "leaky_relu": (pd.leaky_relu, [S], lambda a: np.where(a > 0, a, 0.2 * a), [0]),
    "elu": (pd.elu, [S], lambda a: np.where(a > 0, a, np.exp(a) - 1), [0]),
    "gelu": (pd.gelu, [S], lambda a: 0.5 * a * (1 + _erf(a / np.sqrt(2))), [0]),
    "sigmoid": (pd.sigmoid, [S], _sigmoid, [0]),
    "tanh": (pd.tanh, [S], np.tanh, [0]),
    "softmax": (pd.softmax, [S], _softmax, [0]),
    "log_softmax": (pd.log_softmax, [S], lambda a: np.log(_softmax(a)), [0]),
    "softplus": (pd.softplus, [S], lambda a: np.log1p(np.exp(a)), [0]),
    "silu": (pd.silu, [S], lambda a: a * _sigmoid(a), [0]),
}
REDUCTIONS = {
    "sum": (lambda a: pd.sum(a, axis=1), [S], lambda a: a.sum(axis=1), [0]),
    "sum_keepdims": (lambda a: pd.sum(a, axis=0, keepdims=True), [S],
                     lambda a: a.sum(axis=0, keepdims=True), [0]),
    "sum_all": (pd.sum, [S], np.sum, [0]),
    "mean": (lambda a: pd.mean(a, axis=-1, keepdims=True), [S],
             lambda a: a.mean(axis=-1, keepdims=True), [0]),
    "max": (lambda a: pd.max(a, axis=1), [S], lambda a: a.max(axis=1), [0]),
    "min": (lambda a: pd.min(a, axis=0, keepdims=True), [S],
            lambda a: a.min(axis=0, keepdims=True), [0]),
    "argmax": (lambda a: pd.argmax(a, axis=1), [S], lambda a: a.argmax(axis=1), []),
    "argmax_keepdims": (lambda a: pd.argmax(a, axis=0, keepdims=True), [S],
                        lambda a: a.argmax(axis=0)[None], []),
}
T = R.standard_normal((2, 3, 4))
IDX = np.array([2, 0, 2])
SHAPE_OPS = {
    "reshape": (lambda a: pd.reshape(a, [4, -1]), [T], lambda a: a.reshape(4, -1), [0]),
    "transpose": (lambda a: pd.transpose(a, [2, 0, 1]), [T],
                  lambda a: a.transpose(2, 0, 1), [0]),
    "flatten": (pd.flatten, [T], lambda a: a.reshape(2, -1), [0]),
    "concat": (lambda a, b: pd.concat([a, b], axis=1), [A, B],
               lambda a, b: np.concatenate([a, b], axis=1), [0, 1]),
    "split": (lambda a: pd.split(a, 2, axis=1)[1], [S], lambda a: a[:, 2:], [0]),
    "stack": (lambda a, b: pd.stack([a, b], axis=1), [A, B],
              lambda a, b: np.stack([a, b], axis=1), [0, 1]),
    "squeeze": (lambda a: pd.squeeze(a, axis=1), [S[:, None, :]],
                lambda a: a[:, 0, :], [0]),
    "expand_dims": (lambda a: pd.expand_dims(a, 1), [S], lambda a: a[:, None], [0]),
    "slice": (lambda a: pd.slice(a, [1, 1], [2, -1]), [S], lambda a: a[1:3, 1:], [0]),
    "gather": (lambda a: pd.gather(a, pd.constant(IDX), axis=1), [S],
               lambda a: a[:, IDX], [0]),
    "one_hot": (lambda i: pd.one_hot(i, 4), [IDX], lambda i: np.eye(4)[i], []),
    "cast": (lambda a: pd.cast(a, "float32"), [S], lambda a: a.astype(np.float32), []),
    "where": (lambda a, b: pd.where(pd.greater(a, b), a, b), [A, B],
              lambda a, b: np.where(a > b, a, b), [0, 1]),
    "pad": (lambda a: pd.pad(a, [(1, 0), (0, 2)]), [S],
            lambda a: np.pad(a, [(1, 0), (0, 2)]), [0]),
}
LOSS_OPS = {
    "softmax_cross_entropy": (
        lambda z: pd.softmax_cross_entropy(z, pd.constant(IDX)), [S],
        lambda z: -np.log(_softmax(z))[np.arange(3), IDX], [0]),
    "cross_entropy": (
        lambda p: pd.cross_entropy(p, pd.constant(IDX)), [_softmax(S)],
        lambda p: -np.log(p[np.arange(3), IDX]), [0]),
    "sigmoid_cross_entropy": (
        lambda z: pd.sigmoid_cross_entropy(z, pd.constant(_sigmoid(B - 1.2), z.dtype)), [S],
        lambda z: -(_sigmoid(B - 1.2) * np.log(_sigmoid(z))
                    + (1 - _sigmoid(B - 1.2)) * np.log(1 - _sigmoid(z))), [0]),
    "mse": (pd.mse, [A, B], lambda a, b: ((a - b) ** 2).mean(-1), [0, 1]),
    "mae": (pd.mae, [A, B], lambda a, b: np.abs(a - b).mean(-1), [0, 1]),
    "huber": (pd.huber, [S, S * 0.1], lambda a, b: np.where(
        np.abs(a - b) <= 1, 0.5 * (a - b) ** 2, np.abs(a - b) - 0.5).mean(-1), [0, 1]),
    "accuracy": (lambda z: pd.accuracy(z, pd.constant(IDX)), [S],
                 lambda z: np.mean(z.argmax(1) == IDX), []),
    "accuracy_k": (lambda z: pd.accuracy(z, pd.constant(IDX), k=2), [S],
                   lambda z: np.mean([IDX[i] in np.argsort(-z[i])[:2] for i in range(3)]), []),
}
FAMILIES = {**MATH, **ACTIVATIONS, **REDUCTIONS, **SHAPE_OPS, **LOSS_OPS}
SPEC_OP_NAMES = """add sub mul div pow neg abs exp log sqrt square maximum minimum clip sign
    matmul fc relu leaky_relu elu gelu sigmoid tanh softmax log_softmax softplus silu
    sum mean max min argmax reshape transpose flatten concat split stack squeeze expand_dims
    slice gather one_hot cast where pad conv2d conv2d_transpose max_pool2d avg_pool2d
    global_avg_pool2d batch_norm layer_norm dropout embedding lstm gru softmax_cross_entropy
    cross_entropy sigmoid_cross_entropy mse mae huber accuracy""".split()


def test_every_op_name_of_the_spec_exists():
    missing = [n for n in SPEC_OP_NAMES if not callable(getattr(pd, n, None))]
    assert not missing


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_op_shape_value_and_gradient(name):
    build, arrays, reference, wrt = FAMILIES[name]
    arrays = [np.asarray(a) for a in arrays]
    # shape inference with an unknown batch, at construction
    probe = [pd.data(f"p{i}", shape=(None,) + a.shape[1:], dtype=str(a.dtype))
             for i, a in enumerate(arrays)]
    expected = np.asarray(reference(*arrays))
    out = build(*probe)
    assert isinstance(out, pd.Variable)
    known = out.shape
    assert len(known) == expected.ndim
    assert all(k is None or k == e for k, e in zip(known, expected.shape)), (known, expected.shape)
    value = pd.eval(out, dict(zip(probe, arrays)))
    assert isinstance(value, np.ndarray)
    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
    if wrt:
        check_op_gradients(build, arrays, wrt)


def test_math_ops_broadcast_and_accept_numbers():
    x = pd.data("x", shape=[None, 1, 3])
    y = pd.data("y", shape=[2, 1])
    z = pd.add(x, y)
    assert z.shape == (None, 2, 3)
    out = pd.eval(z, {x: np.ones((4, 1, 3)), y: np.array([[1.0], [2.0]])})
    assert out.shape == (4, 2, 3)
    np.testing.assert_array_equal(pd.eval(pd.maximum(pd.constant([1.0, 5.0]), 2.0)), [2.0, 5.0])


def test_matmul_batched_with_broadcast_leading_dims():
    a = R.standard_normal((2, 1, 3, 4))
    b = R.standard_normal((5, 4, 2))
    x = pd.data("x", shape=[None, 1, 3, 4], dtype="float64")
    w = pd.data("w", shape=[5, 4, 2], dtype="float64")
    out = pd.matmul(x, w)
    assert out.shape == (None, 5, 3, 2)
    np.testing.assert_allclose(pd.eval(out, {x: a, w: b}), np.matmul(a, b), rtol=1e-10)
    check_op_gradients(pd.matmul, [a, b])


def test_fc_layer_function():
    x = pd.data("x", shape=[None, 2, 3])
    with pd.namespace("fc_test"):
        h = pd.fc(x, size=4, act="tanh")
    assert h.shape == (None, 2, 4)
    w, b = pd.get_variable("fc_test/fc_0/w"), pd.get_variable("fc_test/fc_0/b")
    b.set_value(np.arange(4, dtype=np.float32))
    xb = R.standard_normal((5, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(pd.eval(h, {x: xb}), np.tanh(xb @ w.val() + b.val()), rtol=1e-5,
                               atol=1e-6)
    g = pd.gradients(pd.sum(h), [w, b])
    assert [v.shape for v in g] == [(3, 4), (4,)]


# ---- nn ops --------------------------------------------------------------------------------

def _conv_ref(x, f, strides=1, padding="valid", dilation=1, groups=1):
    """NHWC cross-correlation, filters (kh, kw, in // groups, out)."""
    n, h, w, c = x.shape
    kh, kw, cin, cout = f.shape
    ekh, ekw = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    if padding == "same":
        oh, ow = -(-h // strides), -(-w // strides)
        ph = max((oh - 1) * strides + ekh - h, 0)
        pw = max((ow - 1) * strides + ekw - w, 0)
        pads = ((ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2))
    elif padding == "valid":
        pads = ((0, 0), (0, 0))
    elif isinstance(padding, int):
        pads = ((padding, padding), (padding, padding))
    else:
        pads = padding
    x = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)))
    oh = (x.shape[1] - ekh) // strides + 1
    ow = (x.shape[2] - ekw) // strides + 1
    out = np.zeros((n, oh, ow, cout))
    per = cout // groups
    for g in range(groups):
        xs = x[..., g * cin:(g + 1) * cin]
        fs = f[..., g * per:(g + 1) * per]
        for i in range(oh):
            for j in range(ow):
                patch = xs[:, i * strides:i * strides + ekh:dilation,
                           j * strides:j * strides + ekw:dilation, :]
                out[:, i, j, g * per:(g + 1) * per] = np.einsum("nhwc,hwco->no", patch, fs)
    return out


@pytest.mark.parametrize("kwargs", [
    {},
    {"strides": 2},
    {"padding": "same"},
    {"padding": "same", "strides": 2},
    {"padding": 1},
    {"padding": ((1, 0), (0, 2))},
    {"dilation": 2},
    {"groups": 2},
])
def test_conv2d(kwargs):
    x = R.standard_normal((2, 6, 7, 4))
    groups = kwargs.get("groups", 1)
    f = R.standard_normal((3, 3, 4 // groups, 6))
    build = lambda a, b: pd.conv2d(a, b, **kwargs)  # noqa: E731
    expected = _conv_ref(x, f, **kwargs)
    xv = pd.data("x", shape=[None, 6, 7, 4], dtype="float64")
    out = build(xv, pd.constant(f, dtype="float64"))
    assert out.shape == (None,) + expected.shape[1:]
    np.testing.assert_allclose(pd.eval(out, {xv: x}), expected, rtol=1e-8, atol=1e-10)
    check_op_gradients(build, [x[:1, :5, :5], f])


def test_conv2d_nchw():
    x = R.standard_normal((2, 6, 7, 4))
    f = R.standard_normal((3, 3, 4, 5))
    out = pd.conv2d(pd.constant(x.transpose(0, 3, 1, 2), dtype="float64"),
                    pd.constant(f, dtype="float64"), padding="same", data_format="NCHW")
    assert out.shape == (2, 5, 6, 7)
    np.testing.assert_allclose(pd.eval(out).transpose(0, 2, 3, 1),
                               _conv_ref(x, f, padding="same"), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("strides,padding", [(1, "valid"), (2, "valid"), (2, "same")])
def test_conv2d_transpose_is_the_adjoint_of_conv2d(strides, padding):
    f = R.standard_normal((3, 3, 2, 5))           # conv2d: 2 channels -> 5
    y = R.standard_normal((1, 7, 7, 2))
    conv = pd.eval(pd.conv2d(pd.constant(y, "float64"), pd.constant(f, "float64"),
                             strides=strides, padding=padding))
    x = R.standard_normal(conv.shape)
    xv = pd.data("x", shape=(None,) + x.shape[1:], dtype="float64")
    out = pd.conv2d_transpose(xv, pd.constant(f, "float64"), output_shape=y.shape[1:3],
                              strides=strides, padding=padding)
    assert out.shape[1:] == y.shape[1:]
    back = pd.eval(out, {xv: x})
    np.testing.assert_allclose(np.sum(conv * x), np.sum(y * back), rtol=1e-8)
    check_op_gradients(lambda a, b: pd.conv2d_transpose(a, b, strides=strides, padding=padding),
                       [x, f])


def _pool_ref(x, size, strides, op):
    n, h, w, c = x.shape
    oh, ow = (h - size) // strides + 1, (w - size) // strides + 1
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = op(x[:, i * strides:i * strides + size,
                                j * strides:j * strides + size], axis=(1, 2))
    return out


def test_pooling_ops():
    x = R.standard_normal((2, 6, 7, 3))
    xv = pd.data("x", shape=[None, 6, 7, 3], dtype="float64")
    mp = pd.max_pool2d(xv, 2)
    assert mp.shape == (None, 3, 3, 3)
    np.testing.assert_allclose(pd.eval(mp, {xv: x}), _pool_ref(x, 2, 2, np.max))
    ap = pd.avg_pool2d(xv, pool_size=3, strides=2, padding="valid", data_format="NHWC")
    np.testing.assert_allclose(pd.eval(ap, {xv: x}), _pool_ref(x, 3, 2, np.mean))
    assert pd.max_pool2d(xv, 2, strides=1, padding="same").shape == (None, 6, 7, 3)
    gp = pd.global_avg_pool2d(xv)
    assert gp.shape == (None, 3)
    np.testing.assert_allclose(pd.eval(gp, {xv: x}), x.mean(axis=(1, 2)))
    nchw = pd.max_pool2d(pd.constant(x.transpose(0, 3, 1, 2), "float64"), 2, data_format="NCHW")
    np.testing.assert_allclose(pd.eval(nchw).transpose(0, 2, 3, 1), _pool_ref(x, 2, 2, np.max))
    small = x[:1, :4, :4, :2]
    check_op_gradients(lambda a: pd.max_pool2d(a, 2), [small])
    check_op_gradients(lambda a: pd.avg_pool2d(a, 2, padding="same"), [small[:, :3, :3]])
    check_op_gradients(pd.global_avg_pool2d, [small])


def test_batch_norm_training_and_inference():
    x = R.standard_normal((8, 3)) * 2 + 1
    xv = pd.data("x", shape=[None, 3], dtype="float64")
    scale = pd.Variable("gamma", [3], "float64", initializer=pd.initializers.Constant(2.0))
    offset = pd.Variable("beta", [3], "float64", initializer=pd.initializers.Constant(0.5))
    mm = pd.Variable("mm", [3], "float64", initializer="zeros", trainable=False)
    mv = pd.Variable("mv", [3], "float64", initializer="ones", trainable=False)
    out = pd.batch_norm(xv, scale, offset, mm, mv, momentum=0.9, epsilon=1e-3, axis=-1)
    assert out.shape == (None, 3)
    inference = pd.eval(out, {xv: x})
    np.testing.assert_allclose(inference, 2 * x / np.sqrt(1 + 1e-3) + 0.5, rtol=1e-10)
    np.testing.assert_array_equal(mm.val(), 0.0)           # no update outside training
    train = pd.eval(out, {xv: x}, training=True)
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(train, 2 * (x - mean) / np.sqrt(var + 1e-3) + 0.5, rtol=1e-8)
    np.testing.assert_allclose(mm.val(), 0.1 * mean, rtol=1e-8)
    np.testing.assert_allclose(mv.val(), 0.9 + 0.1 * var, rtol=1e-6)
    # NCHW-style axis
    y = R.standard_normal((4, 3, 2, 2))
    out1 = pd.batch_norm(pd.constant(y, "float64"), scale, offset, mm, mv, axis=1)
    assert out1.shape == (4, 3, 2, 2)
    check_op_gradients(lambda a, s, o: pd.batch_norm(a, s, o, mm, mv), [x, np.ones(3) * 1.5,
                                                                        np.zeros(3)])


def test_batch_norm_gradient_in_training_mode():
    x = R.standard_normal((6, 3))
    mm = pd.Variable("mm", [3], "float64", trainable=False)
    mv = pd.Variable("mv", [3], "float64", initializer="ones", trainable=False)
    xv = pd.data("x", shape=[6, 3], dtype="float64")
    s = pd.Variable("s", [3], "float64", initializer="ones")
    out = pd.batch_norm(xv, s, pd.constant(np.zeros(3), "float64"), mm, mv)
    w = R.standard_normal((6, 3))
    g, = pd.gradients(pd.sum(out * pd.constant(w, "float64")), [xv])
    got = pd.eval(g, {xv: x}, training=True)

    def f(a):
        return np.sum((a - a.mean(0)) / np.sqrt(a.var(0) + 1e-3) * w)
    num = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[i] += 1e-6
        m[i] -= 1e-6
        num[i] = (f(p) - f(m)) / 2e-6
    np.testing.assert_allclose(got, num, rtol=1e-4, atol=1e-6)


def test_layer_norm():
    x = R.standard_normal((4, 5))
    out = pd.layer_norm(pd.constant(x, "float64"), pd.constant(np.full(5, 2.0), "float64"),
                        pd.constant(np.ones(5), "float64"), axis=-1, epsilon=1e-3)
    expected = 2 * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3) + 1
    np.testing.assert_allclose(pd.eval(out), expected, rtol=1e-8)
    check_op_gradients(lambda a, s, o: pd.layer_norm(a, s, o), [x, np.ones(5) * 1.3,
                                                               np.zeros(5)])


def test_dropout_op():
    pd.seed(0)
    x = pd.data("x", shape=[None, 1000])
    d = pd.dropout(x, 0.25)
    assert d.shape == (None, 1000)
    ones = np.ones((2, 1000), np.float32)
    np.testing.assert_array_equal(pd.eval(d, {x: ones}), ones)
    t = pd.eval(d, {x: ones}, training=True)
    assert set(np.unique(t)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((t == 0).mean() - 0.25) < 0.05
    g, = pd.gradients(pd.sum(d), [x])
    tg = pd.eval([d, g], {x: ones}, training=True)
    np.testing.assert_array_equal(tg[0] != 0, tg[1] != 0)  # the same mask in one run


def test_embedding_op():
    table = R.standard_normal((6, 3))
    ids = np.array([[1, 5], [1, 0]])
    iv = pd.data("ids", shape=[None, 2], dtype="int64")
    out = pd.embedding(iv, pd.constant(table, "float64"))
    assert out.shape == (None, 2, 3)
    np.testing.assert_array_equal(pd.eval(out, {iv: ids}), table[ids])
    check_op_gradients(lambda t: pd.embedding(pd.constant(ids), t), [table])


def _lstm_ref(x, k, rk, b, h0=None, c0=None, seq=False):
    n, t, _ = x.shape
    u = rk.shape[0]
    h = np.zeros((n, u)) if h0 is None else h0
    c = np.zeros((n, u)) if c0 is None else c0
    outs = []
    for s in range(t):
        z = x[:, s] @ k + h @ rk + b
        i, f, cc, o = (z[:, j * u:(j + 1) * u] for j in range(4))
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(cc)
        h = _sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1) if seq else h


def _gru_ref(x, k, rk, b, seq=False, h0=None):
    n, t, _ = x.shape
    u = rk.shape[0]
    h = np.zeros((n, u)) if h0 is None else h0
    outs = []
    for s in range(t):
        mx = x[:, s] @ k + b[0]
        mh = h @ rk + b[1]
        z = _sigmoid(mx[:, :u] + mh[:, :u])
        r = _sigmoid(mx[:, u:2 * u] + mh[:, u:2 * u])
        hh = np.tanh(mx[:, 2 * u:] + r * mh[:, 2 * u:])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1) if seq else h


def test_lstm_keras_layout_and_gate_order():
    x = R.standard_normal((2, 4, 3))
    k, rk, b = R.standard_normal((3, 8)), R.standard_normal((2, 8)), R.standard_normal(8)
    xv = pd.data("x", shape=[None, None, 3], dtype="float64")
    args = [pd.constant(a, "float64") for a in (k, rk, b)]
    last = pd.lstm(xv, *args)
    seq = pd.lstm(xv, *args, return_sequences=True)
    assert last.shape == (None, 2) and seq.shape == (None, None, 2)
    np.testing.assert_allclose(pd.eval(last, {xv: x}), _lstm_ref(x, k, rk, b), rtol=1e-8)
    np.testing.assert_allclose(pd.eval(seq, {xv: x}), _lstm_ref(x, k, rk, b, seq=True),
                               rtol=1e-8)
    h0, c0 = R.standard_normal((2, 2)), R.standard_normal((2, 2))
    init = pd.lstm(xv, *args, initial_state=[pd.constant(h0, "float64"),
                                             pd.constant(c0, "float64")])
    np.testing.assert_allclose(pd.eval(init, {xv: x}), _lstm_ref(x, k, rk, b, h0, c0),
                               rtol=1e-8)
    check_op_gradients(lambda a, kk, rr, bb: pd.lstm(a, kk, rr, bb, return_sequences=True),
                       [x[:, :3], k, rk, b])


def test_gru_keras_layout():
    x = R.standard_normal((2, 4, 3))
    k, rk, b = R.standard_normal((3, 6)), R.standard_normal((2, 6)), R.standard_normal((2, 6))
    xv = pd.data("x", shape=[None, 4, 3], dtype="float64")
    args = [pd.constant(a, "float64") for a in (k, rk, b)]
    out = pd.gru(xv, *args)
    seq = pd.gru(xv, *args, return_sequences=True)
    assert out.shape == (None, 2) and seq.shape == (None, 4, 2)
    np.testing.assert_allclose(pd.eval(out, {xv: x}), _gru_ref(x, k, rk, b), rtol=1e-8)
    np.testing.assert_allclose(pd.eval(seq, {xv: x}), _gru_ref(x, k, rk, b, seq=True), rtol=1e-8)
    h0 = R.standard_normal((2, 2))
    init = pd.gru(xv, *args, initial_state=pd.constant(h0, "float64"))
    np.testing.assert_allclose(pd.eval(init, {xv: x}), _gru_ref(x, k, rk, b, h0=h0), rtol=1e-8)
    check_op_gradients(lambda a, kk, rr, bb: pd.gru(a, kk, rr, bb), [x[:, :3], k, rk, b])


def test_nn_ops_nchw_and_defaults():
    x = R.standard_normal((2, 4, 4, 3))
    f = R.standard_normal((3, 3, 5, 3))
    nhwc = pd.eval(pd.conv2d_transpose(pd.constant(x, "float64"), pd.constant(f, "float64"),
                                       strides=2, padding="same"))
    nchw = pd.eval(pd.conv2d_transpose(pd.constant(x.transpose(0, 3, 1, 2), "float64"),
                                       pd.constant(f, "float64"), strides=2, padding="same",
                                       data_format="NCHW"))
    assert nhwc.shape == (2, 8, 8, 5)
    np.testing.assert_allclose(nchw.transpose(0, 2, 3, 1), nhwc, rtol=1e-10, atol=1e-12)
    xc = pd.constant(x.transpose(0, 3, 1, 2), "float64")
    np.testing.assert_allclose(pd.eval(pd.avg_pool2d(xc, 2, data_format="NCHW")),
                               _pool_ref(x, 2, 2, np.mean).transpose(0, 3, 1, 2), rtol=1e-10)
    np.testing.assert_allclose(pd.eval(pd.global_avg_pool2d(xc, data_format="NCHW")),
                               x.mean(axis=(1, 2)), rtol=1e-10)
    # batch_norm: momentum=0.99 and epsilon=1e-3 by default
    v = R.standard_normal((8, 3))
    mm = pd.Variable("mm", [3], "float64", trainable=False)
    mv = pd.Variable("mv", [3], "float64", initializer="ones", trainable=False)
    out = pd.batch_norm(pd.constant(v, "float64"), pd.constant(np.ones(3), "float64"),
                        pd.constant(np.zeros(3), "float64"), mm, mv)
    np.testing.assert_allclose(pd.eval(out, training=True),
                               (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-3), rtol=1e-8)
    np.testing.assert_allclose(mm.val(), 0.01 * v.mean(0), rtol=1e-8)
    ln = pd.layer_norm(pd.constant(v, "float64"), pd.constant(np.ones(3), "float64"),
                       pd.constant(np.zeros(3), "float64"))
    np.testing.assert_allclose(pd.eval(ln), (v - v.mean(-1, keepdims=True)) / np.sqrt(
        v.var(-1, keepdims=True) + 1e-3), rtol=1e-8)


# =========================================================================================
# 2. High level: the code block, line by line
# =========================================================================================

def mnist_like(n, seed=0):
    """MNIST-shaped random data whose labels depend on the images (so it can be learnt)."""
    r = rng(seed)
    x = r.random((n, 28, 28, 1)).astype(np.float32)
    y = (x[:, :14].mean(axis=(1, 2, 3)) * 10 * 3).astype(np.int64) % 10
    return x, y


def spec_cnn():
    return pd.Sequential([
        pd.layers.Input(shape=(28, 28, 1)),
        pd.layers.Conv2D(32, 3, activation="relu"),
        pd.layers.MaxPooling2D(2),
        pd.layers.Conv2D(64, 3, activation="relu"),
        pd.layers.MaxPooling2D(2),
        pd.layers.Flatten(),
        pd.layers.Dropout(0.5),
        pd.layers.Dense(10, activation="softmax"),
    ])


def test_high_level_code_block(tmp_path, capsys):
    pd.seed(0)
    x_train, y_train = mnist_like(160)
    x_test, y_test = mnist_like(40, seed=1)
    model = spec_cnn()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.1,
                        verbose=0)
    assert isinstance(history, pd.callbacks.History)
    losses, val_acc = history.history["loss"], history.history["val_accuracy"]
    assert len(losses) == 2 and len(val_acc) == 2
    assert all(isinstance(v, float) and np.isfinite(v) for v in losses + val_acc)
    assert set(history.history) >= {"loss", "accuracy", "val_loss", "val_accuracy"}
    result = model.evaluate(x_test, y_test, return_dict=True, verbose=0)
    assert set(result) == {"loss", "accuracy"}
    assert all(isinstance(v, float) for v in result.values())
    probs = model.predict(x_test, batch_size=256)
    assert isinstance(probs, np.ndarray) and probs.shape == (40, 10)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    # the loss evaluate reports is the loss of the predicted probabilities
    expected = -np.log(probs[np.arange(40), y_test]).mean()
    assert result["loss"] == pytest.approx(expected, rel=1e-4)
    assert result["accuracy"] == pytest.approx(np.mean(probs.argmax(1) == y_test))

    capsys.readouterr()
    model.summary()
    text = capsys.readouterr().out
    for layer in model.layers:
        assert layer.name in text
    for shape in ("(None, 26, 26, 32)", "(None, 13, 13, 32)", "(None, 11, 11, 64)",
                  "(None, 1600)", "(None, 10)"):
        assert shape in text, shape
    total = 3 * 3 * 1 * 32 + 32 + 3 * 3 * 32 * 64 + 64 + 1600 * 10 + 10
    assert f"{total:,}" in text or str(total) in text
    for count in ("320", "18,496", "16,010"):
        assert count in text or count.replace(",", "") in text

    path = str(tmp_path / "model.h5")
    model.save(path)
    model2 = pd.load_model(path)
    np.testing.assert_array_equal(model2.predict(x_test, batch_size=256), probs)
    weights = str(tmp_path / "w.h5")
    model.save_weights(weights)
    fresh = spec_cnn()
    fresh.load_weights(weights)
    np.testing.assert_allclose(fresh.predict(x_test), probs, rtol=1e-5, atol=1e-7)

    xb, yb = x_train[:16], y_train[:16]
    train = model.train_on_batch(xb, yb)
    assert len(train) == 2 and all(isinstance(v, float) for v in train)
    test = model.test_on_batch(xb, yb)
    assert len(test) == 2 and all(isinstance(v, float) for v in test)
    out = model.predict_on_batch(xb)
    assert isinstance(out, np.ndarray) and out.shape == (16, 10)


def test_train_on_batch_takes_a_step():
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32)
    first = model.test_on_batch(x, y)
    assert model.train_on_batch(x, y) == pytest.approx(first)   # the loss before the step
    assert model.test_on_batch(x, y) < first
    assert model.train_on_batch(x, y, return_dict=True).keys() == {"loss"}


# ---- three ways to define a model -------------------------------------------------------

def test_functional_model():
    inp = pd.Input(shape=(784,))
    out = pd.layers.Dense(10)(pd.layers.Dense(64, activation="relu")(inp))
    model = pd.Model(inputs=inp, outputs=out)
    x = rng().standard_normal((5, 784)).astype(np.float32)
    assert model.predict(x).shape == (5, 10)
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, np.zeros((5, 10), np.float32), epochs=1, verbose=0)
    assert len(model.trainable_weights) == 4


def test_functional_model_several_inputs_and_outputs():
    a = pd.Input(shape=(4,), name="a")
    b = pd.Input(shape=(3,), name="b")
    h = pd.layers.Concatenate()([pd.layers.Dense(5)(a), b])
    out1 = pd.layers.Dense(2, name="reg")(h)
    out2 = pd.layers.Dense(3, activation="softmax", name="cls")(h)
    model = pd.Model(inputs=[a, b], outputs=[out1, out2])
    xa, xb = rng().standard_normal((8, 4)), rng(1).standard_normal((8, 3))
    p1, p2 = model.predict([xa, xb])
    assert p1.shape == (8, 2) and p2.shape == (8, 3)
    model.compile(optimizer="adam", loss=["mse", "sparse_categorical_crossentropy"],
                  loss_weights=[1.0, 0.5], metrics={"reg": ["mae"]})
    y1, y2 = np.zeros((8, 2), np.float32), rng().integers(0, 3, 8)
    h = model.fit([xa, xb], [y1, y2], epochs=2, batch_size=4, verbose=0)
    assert len(h.history["loss"]) == 2
    logs = model.evaluate([xa, xb], [y1, y2], return_dict=True, verbose=0)
    p1, p2 = model.predict([xa, xb])
    assert logs["reg_loss"] == pytest.approx(np.mean((p1 - y1) ** 2), rel=1e-5)
    assert logs["cls_loss"] == pytest.approx(-np.log(p2[np.arange(8), y2]).mean(), rel=1e-5)
    assert logs["loss"] == pytest.approx(logs["reg_loss"] + 0.5 * logs["cls_loss"], rel=1e-5)
    assert logs["reg_mae"] == pytest.approx(np.mean(np.abs(p1 - y1)), rel=1e-5)
    # dict form by output name
    model.compile(optimizer="adam", loss={"reg": "mse", "cls": "sparse_categorical_crossentropy"},
                  loss_weights={"reg": 2.0, "cls": 1.0})
    logs = model.evaluate([xa, xb], [y1, y2], return_dict=True, verbose=0)
    assert logs["loss"] == pytest.approx(2 * logs["reg_loss"] + logs["cls_loss"], rel=1e-5)


def test_subclassed_model_with_low_level_ops():
    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.hidden = pd.layers.Dense(8, activation="relu")
            self.out = pd.layers.Dense(3)
            self.drop = pd.layers.Dropout(0.5)

        def call(self, x, training=False):
            h = self.hidden(x)
            h = pd.tanh(h) * 2.0 + pd.mean(h, axis=-1, keepdims=True)   # any low-level op
            h = self.drop(h, training=training)
            return pd.softmax(self.out(h))

    pd.seed(0)
    net = Net()
    x = rng().standard_normal((16, 5)).astype(np.float32)
    y = rng().integers(0, 3, 16)
    net.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    before = net.evaluate(x, y, verbose=0)[0]
    net.fit(x, y, epochs=20, batch_size=8, verbose=0)
    assert net.evaluate(x, y, verbose=0)[0] < before
    probs = net.predict(x)
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(net.predict(x), probs)     # inference: dropout off
    assert len(net.trainable_weights) == 4


def test_layers_and_low_level_ops_mix_in_both_directions():
    x = pd.data("x", shape=[None, 6])
    h = pd.fc(x, size=4, act="relu")              # low level into a layer
    dense = pd.layers.Dense(3)
    y = dense(h)
    assert isinstance(y, pd.Variable) and y.shape == (None, 3)
    z = pd.softmax(y * 2.0)                        # layer output into low-level ops
    out = pd.eval(z, {x: np.ones((2, 6), np.float32)})
    np.testing.assert_allclose(out.sum(1), 1.0, rtol=1e-6)
    loss = pd.mean(pd.square(z))
    step = pd.optimizers.SGD(0.1).minimize(loss)
    before = dense.get_weights()[0]
    pd.eval(step, {x: np.ones((2, 6), np.float32)})
    assert not np.array_equal(dense.get_weights()[0], before)
    # a functional Model over a mix of layers and ops
    inp = pd.Input(shape=(6,))
    mixed = pd.layers.Dense(2)(pd.relu(pd.layers.Dense(4)(inp)) + 1.0)
    model = pd.Model(inputs=inp, outputs=mixed)
    assert model.predict(np.ones((3, 6), np.float32)).shape == (3, 2)


# ---- layers ------------------------------------------------------------------------------

def test_layer_builds_on_first_call_and_weight_api():
    layer = pd.layers.Dense(3)
    assert layer.weights == [] and not layer.built
    seen = []

    class Probe(pd.layers.Dense):
        def build(self, input_shape):
            seen.append(input_shape)
            super().build(input_shape)

    probe = Probe(2)
    probe(pd.data("x", shape=[None, 5]))
    assert seen == [(None, 5)] and probe.built
    probe(pd.data("x2", shape=[None, 5]))
    assert len(seen) == 1
    assert [w.shape for w in probe.weights] == [(5, 2), (2,)]
    assert probe.trainable_weights == probe.weights
    values = [np.full((5, 2), 3.0, np.float32), np.ones(2, np.float32)]
    probe.set_weights(values)
    for got, want in zip(probe.get_weights(), values):
        np.testing.assert_array_equal(got, want)
    probe.trainable = False
    assert probe.trainable_weights == [] and len(probe.weights) == 2
    model = pd.Sequential([pd.layers.Input(shape=(5,)), probe, pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 5), np.float32), np.ones((4, 1), np.float32), epochs=2, verbose=0)
    np.testing.assert_array_equal(probe.get_weights()[0], values[0])   # frozen


def _catalogue():
    """(name, factory, input shapes without batch, input dtype)."""
    L = pd.layers
    return [
        ("Dense", lambda: L.Dense(3), [(5,)], "float32"),
        ("Activation", lambda: L.Activation("relu"), [(5,)], "float32"),
        ("Dropout", lambda: L.Dropout(0.3), [(5,)], "float32"),
        ("Flatten", lambda: L.Flatten(), [(2, 3)], "float32"),
        ("Reshape", lambda: L.Reshape((3, 2)), [(6,)], "float32"),
        ("Permute", lambda: L.Permute((2, 1)), [(2, 3)], "float32"),
        ("Lambda", lambda: L.Lambda(lambda t: t * 2.0), [(4,)], "float32"),
        ("Embedding", lambda: L.Embedding(10, 4), [(3,)], "int64"),
        ("Conv1D", lambda: L.Conv1D(4, 3), [(8, 2)], "float32"),
        ("Conv2D", lambda: L.Conv2D(4, 3), [(6, 6, 2)], "float32"),
        ("Conv2DTranspose", lambda: L.Conv2DTranspose(4, 3, strides=2), [(4, 4, 2)],
         "float32"),
        ("DepthwiseConv2D", lambda: L.DepthwiseConv2D(3), [(6, 6, 2)], "float32"),
        ("MaxPooling1D", lambda: L.MaxPooling1D(2), [(8, 2)], "float32"),
        ("MaxPooling2D", lambda: L.MaxPooling2D(2), [(6, 6, 2)], "float32"),
        ("AveragePooling1D", lambda: L.AveragePooling1D(2), [(8, 2)], "float32"),
        ("AveragePooling2D", lambda: L.AveragePooling2D(2), [(6, 6, 2)], "float32"),
        ("GlobalAveragePooling1D", lambda: L.GlobalAveragePooling1D(), [(8, 2)], "float32"),
        ("GlobalAveragePooling2D", lambda: L.GlobalAveragePooling2D(), [(6, 6, 2)],
         "float32"),
        ("GlobalMaxPooling2D", lambda: L.GlobalMaxPooling2D(), [(6, 6, 2)], "float32"),
        ("BatchNormalization", lambda: L.BatchNormalization(), [(5,)], "float32"),
        ("LayerNormalization", lambda: L.LayerNormalization(), [(5,)], "float32"),
        ("SimpleRNN", lambda: L.SimpleRNN(3), [(4, 2)], "float32"),
        ("LSTM", lambda: L.LSTM(3), [(4, 2)], "float32"),
        ("GRU", lambda: L.GRU(3), [(4, 2)], "float32"),
        ("Bidirectional", lambda: L.Bidirectional(L.LSTM(3)), [(4, 2)], "float32"),
        ("Add", lambda: L.Add(), [(4,), (4,)], "float32"),
        ("Concatenate", lambda: L.Concatenate(), [(4,), (3,)], "float32"),
        ("Multiply", lambda: L.Multiply(), [(4,), (4,)], "float32"),
        ("MultiHeadAttention", lambda: L.MultiHeadAttention(num_heads=2, key_dim=3),
         [(5, 4), (6, 4)], "float32"),
    ]


CATALOGUE_NAMES = """Input Dense Activation Dropout Flatten Reshape Permute Lambda Embedding
    Conv1D Conv2D Conv2DTranspose DepthwiseConv2D MaxPooling1D MaxPooling2D AveragePooling1D
    AveragePooling2D GlobalAveragePooling1D GlobalAveragePooling2D GlobalMaxPooling2D
    BatchNormalization LayerNormalization SimpleRNN LSTM GRU Bidirectional Add Concatenate
    Multiply MultiHeadAttention""".split()


def test_catalogue_names_exist():
    assert not [n for n in CATALOGUE_NAMES if not hasattr(pd.layers, n)]
    covered = {name for name, *_ in _catalogue()} | {"Input"}
    assert covered == set(CATALOGUE_NAMES)
    inp = pd.layers.Input(shape=(28, 28, 1))
    assert isinstance(inp, pd.Variable) and inp.shape == (None, 28, 28, 1)
    assert pd.Input is pd.layers.Input or pd.Input(shape=(3,)).shape == (None, 3)


def _call(layer, inputs):
    if isinstance(layer, pd.layers.MultiHeadAttention):
        return layer(inputs[0], inputs[1])
    return layer(inputs if len(inputs) > 1 else inputs[0])


@pytest.mark.parametrize("name", [c[0] for c in _catalogue()])
def test_catalogue_layer_on_variable_and_on_numpy(name):
    _, factory, shapes, dtype = next(c for c in _catalogue() if c[0] == name)
    layer = factory()
    assert isinstance(layer, pd.layers.Layer)
    variables = [pd.data(f"in{i}", shape=(None,) + s, dtype=dtype) for i, s in enumerate(shapes)]
    out = _call(layer, variables)
    assert isinstance(out, pd.Variable)
    assert out.shape[0] is None
    r = rng()
    arrays = [r.integers(0, 10, (2,) + s) if dtype == "int64" else
              r.standard_normal((2,) + s).astype(np.float32) for s in shapes]
    result = _call(layer, arrays)
    assert isinstance(result, EagerTensor)  # a concrete tensor (spec 1b)
    assert result.shape == (2,) + tuple(out.shape[1:])
    np.testing.assert_allclose(result, pd.eval(out, dict(zip(variables, arrays))), rtol=1e-6)
    # a fresh layer of the kind works on NumPy first too
    assert _call(factory(), arrays).shape == result.shape


def test_layer_outputs_match_their_definitions():
    x = rng().standard_normal((2, 6, 6, 2)).astype(np.float32)
    conv = pd.layers.Conv2D(3, 3, padding="same")
    out = conv(x)
    k, b = conv.get_weights()
    np.testing.assert_allclose(out, _conv_ref(x.astype(np.float64), k, padding="same") + b,
                               rtol=1e-4, atol=1e-5)
    seq = rng().standard_normal((2, 4, 3)).astype(np.float32)
    lstm = pd.layers.LSTM(2, return_sequences=True)
    lstm(pd.data("s", shape=[None, 4, 3]))
    k, rk, b = lstm.get_weights()
    np.testing.assert_allclose(lstm(seq), _lstm_ref(seq, k, rk, b, seq=True), rtol=1e-4,
                               atol=1e-5)
    gru = pd.layers.GRU(2)
    gru(pd.data("s2", shape=[None, 4, 3]))
    k, rk, b = gru.get_weights()
    np.testing.assert_allclose(gru(seq), _gru_ref(seq, k, rk, b), rtol=1e-4, atol=1e-5)
    bn = pd.layers.BatchNormalization()
    v = rng().standard_normal((8, 3)).astype(np.float32)
    np.testing.assert_allclose(bn(v, training=True), (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-3),
                               rtol=1e-4, atol=1e-5)


# ---- compile --------------------------------------------------------------------------------

def _small_classifier(n_classes=3):
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(8, activation="relu"),
                           pd.layers.Dense(n_classes, activation="softmax")])
    return model


CLS_X = rng(3).standard_normal((24, 4)).astype(np.float32)
CLS_Y = (CLS_X[:, 0] > 0).astype(np.int64) + (CLS_X[:, 1] > 0)


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "adamw", "rmsprop", "adagrad",
                                       pd.optimizers.SGD(0.05, momentum=0.9),
                                       pd.optimizers.Adam(0.01), pd.optimizers.AdamW(0.01),
                                       pd.optimizers.RMSprop(0.01), pd.optimizers.Adagrad(0.1)],
                         ids=str)
def test_compile_optimizer_names_and_objects(optimizer):
    pd.seed(0)
    model = _small_classifier()
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")
    before = model.evaluate(CLS_X, CLS_Y, verbose=0)
    model.fit(CLS_X, CLS_Y, epochs=5, batch_size=8, verbose=0)
    assert model.evaluate(CLS_X, CLS_Y, verbose=0) < before
    if isinstance(optimizer, str):
        expected = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "rmsprop": "RMSprop",
                    "adagrad": "Adagrad"}[optimizer]
        assert type(model.optimizer).__name__ == expected


def _loss_cases():
    yp = rng(4).uniform(0.1, 0.9, (6, 3)).astype(np.float32)
    yp_soft = yp / yp.sum(1, keepdims=True)
    yt = rng(5).uniform(0, 1, (6, 3)).astype(np.float32)
    onehot = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1, 2]]
    labels = np.array([0, 1, 2, 0, 1, 2])
    d = yt - yp
    return {
        "mse": (yt, yp, np.mean(d ** 2)),
        "mae": (yt, yp, np.mean(np.abs(d))),
        "huber": (yt * 4, yp, np.mean(np.where(np.abs(yt * 4 - yp) <= 1,
                                               0.5 * (yt * 4 - yp) ** 2,
                                               np.abs(yt * 4 - yp) - 0.5))),
        "binary_crossentropy": (np.round(yt), yp, np.mean(-(np.round(yt) * np.log(yp) + (
            1 - np.round(yt)) * np.log(1 - yp)))),
        "categorical_crossentropy": (onehot, yp_soft,
                                     np.mean(-np.log(yp_soft[np.arange(6), labels]))),
        "sparse_categorical_crossentropy": (labels, yp_soft,
                                            np.mean(-np.log(yp_soft[np.arange(6), labels]))),
    }


@pytest.mark.parametrize("name", list(_loss_cases()))
def test_compile_loss_names(name):
    yt, yp, expected = _loss_cases()[name]
    # a model whose output is exactly its input: the loss is the loss of yp
    inp = pd.Input(shape=(3,))
    model = pd.Model(inputs=inp, outputs=pd.layers.Activation("linear")(inp))
    model.compile(optimizer="sgd", loss=name)
    assert model.evaluate(yp, yt, verbose=0) == pytest.approx(expected, rel=1e-4)


def test_compile_loss_objects_and_callables():
    inp = pd.Input(shape=(3,))
    model = pd.Model(inputs=inp, outputs=pd.layers.Activation("linear")(inp))
    yt, yp, expected = _loss_cases()["mse"]
    model.compile(optimizer="sgd", loss=pd.losses.MeanSquaredError())
    assert model.evaluate(yp, yt, verbose=0) == pytest.approx(expected, rel=1e-5)
    model.compile(optimizer="sgd", loss=lambda y_true, y_pred: pd.mean(pd.square(y_true - y_pred)))
    assert model.evaluate(yp, yt, verbose=0) == pytest.approx(expected, rel=1e-5)
    logits = rng().standard_normal((6, 3)).astype(np.float32)
    labels = np.array([0, 1, 2, 0, 1, 2])
    model.compile(optimizer="sgd",
                  loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    ce = -np.log(_softmax(logits.astype(np.float64)))[np.arange(6), labels].mean()
    assert model.evaluate(logits, labels, verbose=0) == pytest.approx(ce, rel=1e-5)
    for cls in ("MeanAbsoluteError", "Huber", "BinaryCrossentropy", "CategoricalCrossentropy"):
        assert callable(getattr(pd.losses, cls)())


def test_compile_metric_names_and_objects():
    inp = pd.Input(shape=(3,))
    model = pd.Model(inputs=inp, outputs=pd.layers.Activation("linear")(inp))
    probs = rng().dirichlet(np.ones(3), 12).astype(np.float32)
    labels = rng(1).integers(0, 3, 12)
    onehot = np.eye(3, dtype=np.float32)[labels]
    model.compile(optimizer="sgd", loss="categorical_crossentropy",
                  metrics=["accuracy", "mae", "mse", "top_k_categorical_accuracy"])
    logs = model.evaluate(probs, onehot, return_dict=True, verbose=0)
    assert logs["accuracy"] == pytest.approx(np.mean(probs.argmax(1) == labels))
    assert logs["mae"] == pytest.approx(np.mean(np.abs(probs - onehot)), rel=1e-5)
    assert logs["mse"] == pytest.approx(np.mean((probs - onehot) ** 2), rel=1e-5)
    assert logs["top_k_categorical_accuracy"] == pytest.approx(1.0)   # k=5 >= 3 classes
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy", pd.metrics.SparseTopKCategoricalAccuracy(k=2)])
    logs = model.evaluate(probs, labels, return_dict=True, verbose=0)
    assert logs["accuracy"] == pytest.approx(np.mean(probs.argmax(1) == labels))
    top2 = np.mean([labels[i] in np.argsort(-probs[i])[:2] for i in range(12)])
    assert logs["sparse_top_k_categorical_accuracy"] == pytest.approx(top2)
    model.compile(optimizer="sgd", loss="categorical_crossentropy",
                  metrics=[pd.metrics.TopKCategoricalAccuracy(k=1),
                           pd.metrics.MeanSquaredError()])
    logs = model.evaluate(probs, onehot, return_dict=True, verbose=0)
    assert logs["top_k_categorical_accuracy"] == pytest.approx(np.mean(probs.argmax(1) == labels))


# ---- fit, evaluate, predict ----------------------------------------------------------------

REG_X = rng(8).standard_normal((20, 3)).astype(np.float32)
REG_Y = (REG_X @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)


def _regressor(lr=0.05):
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
    model.compile(optimizer=pd.optimizers.SGD(lr), loss="mse", metrics=["mae"])
    return model


def test_fit_numpy_arrays_and_arguments():
    model = _regressor()
    seen = []

    class Sizes(pd.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            seen.append(batch)

    h = model.fit(x=REG_X, y=REG_Y, batch_size=8, epochs=3, shuffle=True,
                  validation_data=(REG_X[:5], REG_Y[:5]), callbacks=[Sizes()], verbose=0)
    assert seen == [0, 1, 2] * 3                              # ceil(20 / 8) batches
    assert set(h.history) == {"loss", "mae", "val_loss", "val_mae"}
    assert len(h.history["val_loss"]) == 3
    h = model.fit(REG_X, REG_Y, batch_size=5, epochs=2, shuffle=False, validation_split=0.2,
                  verbose=0)
    assert len(h.history["val_mae"]) == 2


def test_validation_split_holds_out_the_last_samples():
    model = _regressor(lr=0.0)
    h = model.fit(REG_X, REG_Y, batch_size=4, epochs=1, validation_split=0.25, verbose=0)
    p = model.predict(REG_X[15:])
    assert h.history["val_loss"][0] == pytest.approx(np.mean((p - REG_Y[15:]) ** 2), rel=1e-5)


def test_fit_initial_epoch_and_steps_per_epoch():
    model = _regressor()
    epochs, batches = [], []
    cb = pd.callbacks.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: epochs.append(epoch),
        on_train_batch_end=lambda batch, logs: batches.append(batch))
    h = model.fit(REG_X, REG_Y, batch_size=4, epochs=4, initial_epoch=2, steps_per_epoch=2,
                  callbacks=[cb], verbose=0)
    assert epochs == [2, 3] and batches == [0, 1, 0, 1]
    assert len(h.history["loss"]) == 2


def test_fit_reader_creator():
    model = _regressor()

    def samples():
        for x, y in zip(REG_X, REG_Y):
            yield x, y

    reader = pd.reader.batch(samples, 8)
    h = model.fit(reader, epochs=3, verbose=0)
    assert len(h.history["loss"]) == 3 and h.history["loss"][-1] < h.history["loss"][0]
    assert model.evaluate(reader, verbose=0)[0] == pytest.approx(
        model.evaluate(REG_X, REG_Y, verbose=0)[0], rel=1e-5)
    assert model.predict(pd.reader.batch(lambda: iter([(x,) for x in REG_X]), 8)).shape == (20, 1)


def test_fit_iterable_of_batches():
    model = _regressor()
    batches = [(REG_X[i:i + 5], REG_Y[i:i + 5]) for i in range(0, 20, 5)]
    h = model.fit(batches, epochs=3, verbose=0)
    assert len(h.history["loss"]) == 3 and h.history["loss"][-1] < h.history["loss"][0]

    def gen():
        yield from batches
    assert isinstance(model.evaluate(gen(), verbose=0), list)
    assert model.predict([b[0] for b in batches][0]).shape == (5, 1)
    assert model.predict(iter([(b[0],) for b in batches])).shape == (20, 1)


@pytest.mark.parametrize("verbose", [0, 1, 2])
def test_fit_verbose_levels(verbose, capfd):
    model = _regressor()
    model.fit(REG_X, REG_Y, batch_size=4, epochs=3, verbose=verbose)
    out, err = capfd.readouterr()
    text = out + err
    if verbose == 0:
        assert text == ""
    else:
        # output goes to a pipe here: one line per epoch, not a flood of bar updates
        lines = [line for line in re.split(r"[\r\n]", text) if line.strip()]
        assert len(lines) == 3, lines
        assert all("loss" in line for line in lines)


def test_fit_sample_weight_and_class_weight():
    model = _regressor(lr=0.0)
    sw = np.zeros(20, np.float32)
    sw[:10] = 1.0
    base = np.mean((model.predict(REG_X) - REG_Y)[:10] ** 2)
    h = model.fit(REG_X, REG_Y, sample_weight=sw, batch_size=20, epochs=1, verbose=0)
    # Keras's "sum_over_batch_size": sum(weight * loss) / batch size
    assert h.history["loss"][0] == pytest.approx(base * 0.5, rel=1e-4)
    # class weights: zero weight for a class leaves the loss of the other
    cls = _small_classifier(2)
    cls.compile(optimizer=pd.optimizers.SGD(0.0), loss="sparse_categorical_crossentropy")
    y = (CLS_X[:, 0] > 0).astype(np.int64)
    p = cls.predict(CLS_X)
    ce = -np.log(p[np.arange(len(y)), y])
    h = cls.fit(CLS_X, y, class_weight={0: 1.0, 1: 0.0}, batch_size=len(y), epochs=1, verbose=0)
    assert h.history["loss"][0] == pytest.approx(np.sum(ce * (y == 0)) / len(y), rel=1e-4)


def test_evaluate_and_predict_take_batch_size_and_verbose(capfd):
    model = _regressor()
    a = model.evaluate(REG_X, REG_Y, batch_size=3, verbose=0)
    b = model.evaluate(REG_X, REG_Y, batch_size=20, verbose=0)
    np.testing.assert_allclose(a, b, rtol=1e-5)
    p = model.predict(REG_X, batch_size=7, verbose=0)
    assert p.shape == (20, 1)
    capfd.readouterr()
    model.evaluate(REG_X, REG_Y, batch_size=5, verbose=1)
    model.predict(REG_X, batch_size=5, verbose=1)
    out, err = capfd.readouterr()
    assert (out + err).strip()


# ---- custom training steps ------------------------------------------------------------------

def test_custom_train_step():
    traced = []

    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, x, training=False):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            assert isinstance(x, pd.Variable) and isinstance(y, pd.Variable)
            traced.append(1)
            loss = pd.mean(pd.square(self(x, training=True) - y))
            self.optimizer.minimize(loss, var_list=self.trainable_weights)
            return {"loss": loss, "double": loss * 2.0}

    net = Net()
    net.compile(optimizer=pd.optimizers.SGD(0.05))
    batch_logs = []
    cb = pd.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batch_logs.append(logs))
    h = net.fit(REG_X, REG_Y, batch_size=5, epochs=4, callbacks=[cb], verbose=0)
    assert len(traced) == 1
    assert h.history["loss"][-1] < h.history["loss"][0]
    for a, b in zip(h.history["loss"], h.history["double"]):
        assert b == pytest.approx(2 * a)
    assert all(isinstance(logs["loss"], float) for logs in batch_logs)


def test_custom_train_step_gan_with_two_optimizers(tmp_path):
    class GAN(pd.Model):
        def __init__(self):
            super().__init__()
            self.gen = pd.layers.Dense(2, name="gen")
            self.disc = pd.layers.Dense(1, name="disc")
            self.d_opt = pd.optimizers.Adam(0.01)
            self.g_opt = pd.optimizers.Adam(0.01)

        def call(self, z, training=False):
            return self.gen(z)

        def train_step(self, data):
            real, z = data
            fake = self.gen(z)
            d_real, d_fake = self.disc(real), self.disc(fake)
            d_loss = pd.mean(pd.softplus(-d_real)) + pd.mean(pd.softplus(d_fake))
            g_loss = pd.mean(pd.softplus(-d_fake))
            self.d_opt.minimize(d_loss, var_list=self.disc.trainable_weights)
            self.g_opt.minimize(g_loss, var_list=self.gen.trainable_weights)
            return {"d_loss": d_loss, "g_loss": g_loss}

    pd.seed(0)
    gan = GAN()
    gan.compile(optimizer="adam")
    real = rng().standard_normal((16, 2)).astype(np.float32) + 2
    z = rng(1).standard_normal((16, 2)).astype(np.float32)
    gan(z)
    gan.disc(pd.data("sample", shape=[None, 2]))
    before = gan.gen.get_weights()[0], gan.disc.get_weights()[0]
    ckpt = str(tmp_path / "gan_{epoch}.h5")
    h = gan.fit(real, z, batch_size=8, epochs=2, verbose=0,
                callbacks=[pd.callbacks.ModelCheckpoint(ckpt, monitor="g_loss",
                                                        save_weights_only=True)])
    assert set(h.history) >= {"d_loss", "g_loss"}
    assert not np.array_equal(gan.gen.get_weights()[0], before[0])
    assert not np.array_equal(gan.disc.get_weights()[0], before[1])
    assert gan.d_opt.iterations == 4 and gan.g_opt.iterations == 4
    assert os.path.exists(tmp_path / "gan_2.h5")


class StepNet(pd.Model):
    """A subclassed model with a custom train_step (module level: load_model finds it)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = pd.layers.Dense(4, activation="tanh")
        self.out = pd.layers.Dense(1)

    def call(self, x, training=False):
        return self.out(self.hidden(x))

    def train_step(self, data):
        x, y = data
        loss = pd.mean(pd.square(self(x, training=True) - y))
        self.optimizer.minimize(loss)
        return {"loss": loss}


def test_custom_train_step_checkpoints_and_resumes_exactly(tmp_path):
    pd.seed(0)
    net = StepNet()                                  # never called before fit
    net.compile(optimizer=pd.optimizers.Adam(0.01))
    pattern = str(tmp_path / "step_{epoch}.h5")
    net.fit(REG_X, REG_Y, batch_size=5, epochs=2, verbose=0,
            callbacks=[pd.callbacks.ModelCheckpoint(pattern, monitor="loss")])
    net.fit(REG_X, REG_Y, batch_size=5, epochs=4, initial_epoch=2, verbose=0)
    resumed = pd.load_model(str(tmp_path / "step_2.h5"), custom_objects={"StepNet": StepNet})
    resumed.fit(REG_X, REG_Y, batch_size=5, epochs=4, initial_epoch=2, verbose=0)
    for a, b in zip(resumed.get_weights(), net.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


class OwnOptimizers(pd.Model):
    """A GAN-like model whose train_step uses an optimizer of its own beside self.optimizer."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.gen = pd.layers.Dense(2)
        self.disc = pd.layers.Dense(1)
        self.d_opt = pd.optimizers.Adam(0.01)

    def call(self, z, training=False):
        return self.disc(self.gen(z))

    def train_step(self, data):
        real, z = data
        d_loss = pd.mean(pd.softplus(-self.disc(real))) + pd.mean(pd.softplus(self(z)))
        g_loss = pd.mean(pd.softplus(-self(z)))
        self.d_opt.minimize(d_loss, var_list=self.disc.trainable_weights)
        self.optimizer.minimize(g_loss, var_list=self.gen.trainable_weights)
        return {"d_loss": d_loss, "g_loss": g_loss}


def test_checkpoints_keep_the_state_of_a_train_steps_own_optimizers(tmp_path):
    pd.seed(0)
    gan = OwnOptimizers()
    gan.compile(optimizer=pd.optimizers.Adam(0.01))
    real = rng().standard_normal((16, 2)).astype(np.float32) + 2
    z = rng(1).standard_normal((16, 2)).astype(np.float32)
    path = str(tmp_path / "gan.h5")
    gan.fit(real, z, batch_size=8, epochs=2, verbose=0)
    gan.save(path)
    gan.fit(real, z, batch_size=8, epochs=4, initial_epoch=2, verbose=0)
    resumed = pd.load_model(path, custom_objects={"OwnOptimizers": OwnOptimizers})
    resumed.fit(real, z, batch_size=8, epochs=4, initial_epoch=2, verbose=0)
    assert resumed.d_opt.iterations == gan.d_opt.iterations
    for a, b in zip(resumed.get_weights(), gan.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    class Renamed(OwnOptimizers):     # the saved state names an attribute this model lacks
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.other_opt = self.__dict__.pop("d_opt")

        def train_step(self, data):
            raise AssertionError("not traced")

    with pytest.raises(pd.CheckpointError, match="d_opt"):
        pd.load_model(path, custom_objects={"OwnOptimizers": Renamed})


# ---- callbacks --------------------------------------------------------------------------------

def test_callback_hooks_arguments_and_model():
    calls = []

    class Recorder(pd.callbacks.Callback):
        def on_train_begin(self, logs=None):
            assert self.model is model
            calls.append(("train_begin",))

        def on_train_end(self, logs=None):
            calls.append(("train_end",))

        def on_epoch_begin(self, epoch, logs=None):
            calls.append(("epoch_begin", epoch))

        def on_epoch_end(self, epoch, logs=None):
            calls.append(("epoch_end", epoch, dict(logs)))

        def on_train_batch_begin(self, batch, logs=None):
            calls.append(("batch_begin", batch))

        def on_train_batch_end(self, batch, logs=None):
            calls.append(("batch_end", batch, dict(logs)))

        def on_test_begin(self, logs=None):
            calls.append(("test_begin",))

        def on_test_end(self, logs=None):
            calls.append(("test_end",))

        def on_test_batch_begin(self, batch, logs=None):
            calls.append(("test_batch_begin", batch))

        def on_test_batch_end(self, batch, logs=None):
            calls.append(("test_batch_end", batch))

        def on_predict_begin(self, logs=None):
            calls.append(("predict_begin",))

        def on_predict_end(self, logs=None):
            calls.append(("predict_end",))

        def on_predict_batch_begin(self, batch, logs=None):
            calls.append(("predict_batch_begin", batch))

        def on_predict_batch_end(self, batch, logs=None):
            calls.append(("predict_batch_end", batch))

    model = _regressor()
    rec = Recorder()
    model.fit(REG_X, REG_Y, batch_size=10, epochs=2, callbacks=[rec], verbose=0)
    kinds = [c[0] for c in calls]
    assert kinds == ["train_begin",
                     "epoch_begin", "batch_begin", "batch_end", "batch_begin", "batch_end",
                     "epoch_end"] * 1 + ["epoch_begin", "batch_begin", "batch_end",
                                         "batch_begin", "batch_end", "epoch_end", "train_end"]
    batch_logs = [c[2] for c in calls if c[0] == "batch_end"]
    epoch_logs = [c[2] for c in calls if c[0] == "epoch_end"]
    for logs in batch_logs:
        assert type(logs["loss"]) is float and type(logs["mae"]) is float
        assert type(logs["batch"]) is int
    assert [logs["batch"] for logs in batch_logs] == [0, 1, 0, 1]
    for epoch, logs in enumerate(epoch_logs):
        assert type(logs["loss"]) is float and type(logs["mae"]) is float
        assert type(logs["epoch"]) is int and logs["epoch"] == epoch
    calls.clear()
    model.evaluate(REG_X, REG_Y, batch_size=10, callbacks=[rec], verbose=0)
    assert [c[0] for c in calls] == ["test_begin", "test_batch_begin", "test_batch_end",
                                     "test_batch_begin", "test_batch_end", "test_end"]
    calls.clear()
    model.predict(REG_X, batch_size=10, callbacks=[rec])
    assert [c[0] for c in calls] == ["predict_begin", "predict_batch_begin",
                                     "predict_batch_end", "predict_batch_begin",
                                     "predict_batch_end", "predict_end"]


def test_validation_inside_fit_calls_the_test_hooks():
    """As in Keras (the page is silent): fit's validation pass runs on_test_*."""
    calls = []

    class Recorder(pd.callbacks.Callback):
        def on_test_begin(self, logs=None):
            calls.append("test_begin")

        def on_test_batch_end(self, batch, logs=None):
            calls.append(f"test_batch_{batch}")

        def on_test_end(self, logs=None):
            calls.append(("test_end", sorted(logs)))

        def on_epoch_end(self, epoch, logs=None):
            calls.append("epoch_end")

    _regressor().fit(REG_X, REG_Y, epochs=2, verbose=0, validation_data=(REG_X, REG_Y),
                     validation_batch_size=10, callbacks=[Recorder()])
    assert calls == ["test_begin", "test_batch_0", "test_batch_1", ("test_end", ["loss", "mae"]),
                     "epoch_end"] * 2


def test_stop_training_stops_cleanly():
    model = _regressor()
    ends = []

    class Stop(pd.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                self.model.stop_training = True

        def on_train_end(self, logs=None):
            ends.append(True)

    h = model.fit(REG_X, REG_Y, epochs=10, callbacks=[Stop()], verbose=0)
    assert len(h.history["loss"]) == 2 and ends == [True]


def test_builtin_callbacks_exist():
    for name in ("Callback", "History", "ProgbarLogger", "ModelCheckpoint", "EarlyStopping",
                 "LearningRateScheduler", "ReduceLROnPlateau", "CSVLogger", "TerminateOnNaN",
                 "LambdaCallback"):
        assert isinstance(getattr(pd.callbacks, name), type), name


def test_progbar_logger_is_the_default_at_verbose_1():
    from unittest import mock
    seen = []
    model = _regressor()
    with mock.patch.object(pd.callbacks.ProgbarLogger, "on_epoch_end",
                           autospec=True, side_effect=lambda *a, **k: seen.append("bar")):
        model.fit(REG_X, REG_Y, epochs=2, verbose=1)
        assert seen == ["bar", "bar"]
        seen.clear()
        model.fit(REG_X, REG_Y, epochs=2, verbose=0)
        assert seen == []


def test_progbar_live_loss_on_a_terminal(monkeypatch):
    """On a terminal the tqdm bar updates in place and shows the live loss and metrics."""
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    monkeypatch.setattr("sys.stdout", term)
    model = _regressor()
    model.fit(REG_X, REG_Y, batch_size=2, epochs=1, verbose=1)
    text = term.getvalue()
    assert "\r" in text and "loss" in text and "mae" in text


def test_model_checkpoint_formats_names_and_saves_best(tmp_path):
    model = _regressor()
    pattern = str(tmp_path / "m_{epoch}_{val_loss:.3f}.h5")
    model.fit(REG_X, REG_Y, epochs=3, validation_data=(REG_X, REG_Y), verbose=0,
              callbacks=[pd.callbacks.ModelCheckpoint(pattern, monitor="val_loss")])
    names = sorted(os.listdir(tmp_path))
    assert len(names) == 3 and all(re.fullmatch(r"m_\d_\d+\.\d{3}\.h5", n) for n in names)
    assert {n.split("_")[1] for n in names} == {"1", "2", "3"}     # Keras: counts from 1
    loaded = pd.load_model(str(tmp_path / names[-1]))
    assert loaded.predict(REG_X).shape == (20, 1)
    # save_best_only, save_weights_only
    best = str(tmp_path / "best.h5")
    cb = pd.callbacks.ModelCheckpoint(best, monitor="loss", save_best_only=True,
                                      save_weights_only=True)
    model.fit(REG_X, REG_Y, epochs=2, callbacks=[cb], verbose=0)
    with h5py.File(best, "r") as f:
        assert "model_config" not in f.attrs
    other = _regressor()
    other.load_weights(best)
    np.testing.assert_array_equal(other.get_weights()[0], model.get_weights()[0])


def _scripted(values, key="score"):
    """A callback that sets logs[key] at each epoch end from `values` and keeps the weights."""
    class Script(pd.callbacks.Callback):
        weights = []

        def on_epoch_end(self, epoch, logs=None):
            logs[key] = float(values[epoch])
            Script.weights.append(self.model.get_weights())
    return Script()


def test_early_stopping_patience():
    model = _regressor()
    script = _scripted([5, 4, 4.5, 4.6, 4.7, 1, 1, 1])
    h = model.fit(REG_X, REG_Y, epochs=8, verbose=0, callbacks=[
        script, pd.callbacks.EarlyStopping(monitor="score", patience=2, mode="min")])
    assert len(h.history["loss"]) == 4


def test_early_stopping_restores_best_weights_even_without_running_out_of_patience():
    model = _regressor()
    script = _scripted([5, 1, 3])
    model.fit(REG_X, REG_Y, epochs=3, verbose=0, callbacks=[
        script, pd.callbacks.EarlyStopping(monitor="score", patience=10,
                                           restore_best_weights=True)])
    for got, want in zip(model.get_weights(), script.weights[1]):
        np.testing.assert_array_equal(got, want)
    model2 = _regressor()
    script2 = _scripted([5, 1, 3, 4, 6])
    model2.fit(REG_X, REG_Y, epochs=5, verbose=0, callbacks=[
        script2, pd.callbacks.EarlyStopping(monitor="score", patience=2,
                                            restore_best_weights=True)])
    for got, want in zip(model2.get_weights(), script2.weights[1]):
        np.testing.assert_array_equal(got, want)


def test_learning_rate_scheduler_and_reduce_on_plateau():
    model = _regressor(lr=0.1)
    rates = []
    model.fit(REG_X, REG_Y, epochs=3, verbose=0, callbacks=[
        pd.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1)),
        pd.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: rates.append(
            float(model.optimizer.learning_rate)))])
    np.testing.assert_allclose(rates, [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    model = _regressor(lr=0.1)
    script = _scripted([1, 1, 1, 1])
    rates = []
    model.fit(REG_X, REG_Y, epochs=4, verbose=0, callbacks=[
        script, pd.callbacks.ReduceLROnPlateau(monitor="score", factor=0.5, patience=1),
        pd.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: rates.append(
            float(model.optimizer.learning_rate)))])
    assert rates[0] == pytest.approx(0.1) and rates[-1] < 0.1


def test_csv_logger(tmp_path):
    model = _regressor()
    path = str(tmp_path / "log.csv")
    model.fit(REG_X, REG_Y, epochs=3, verbose=0, callbacks=[pd.callbacks.CSVLogger(path)])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 and {"epoch", "loss", "mae"} <= set(rows[0])
    assert [int(r["epoch"]) for r in rows] == [0, 1, 2]


def test_terminate_on_nan():
    model = _regressor()
    bad = REG_Y.copy()
    bad[3] = np.nan
    batches = []
    h = model.fit(REG_X, bad, batch_size=2, epochs=3, verbose=0, shuffle=False, callbacks=[
        pd.callbacks.TerminateOnNaN(),
        pd.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batches.append(b))])
    assert batches == [0, 1] and len(h.history["loss"]) <= 1


def test_lambda_callback():
    events = []
    cb = pd.callbacks.LambdaCallback(
        on_train_begin=lambda logs: events.append("begin"),
        on_train_end=lambda logs: events.append("end"),
        on_epoch_begin=lambda epoch, logs: events.append(f"e{epoch}"),
        on_epoch_end=lambda epoch, logs: events.append(f"/e{epoch}"),
        on_train_batch_begin=lambda batch, logs: events.append(f"b{batch}"),
        on_train_batch_end=lambda batch, logs: events.append(f"/b{batch}"))
    _regressor().fit(REG_X, REG_Y, batch_size=20, epochs=2, verbose=0, callbacks=[cb])
    assert events == ["begin", "e0", "b0", "/b0", "/e0", "e1", "b0", "/b0", "/e1", "end"]


# ---- checkpoints -------------------------------------------------------------------------------

def _checkpoint_model():
    model = pd.Sequential([
        pd.layers.Input(shape=(6,)),
        pd.layers.Dense(8, activation="relu"),
        pd.layers.BatchNormalization(),
        pd.layers.Dropout(0.3),
        pd.layers.Dense(3, activation="softmax"),
    ])
    model.compile(optimizer=pd.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


CK_X = rng(11).standard_normal((40, 6)).astype(np.float32)
CK_Y = rng(12).integers(0, 3, 40)


def test_save_writes_architecture_weights_optimizer_and_compile_settings(tmp_path):
    pd.seed(0)
    model = _checkpoint_model()
    model.fit(CK_X, CK_Y, batch_size=8, epochs=1, verbose=0)
    path = str(tmp_path / "m.h5")
    model.save(path)
    loaded = pd.load_model(path)
    assert [type(l).__name__ for l in loaded.layers] == [type(l).__name__ for l in model.layers]
    np.testing.assert_array_equal(loaded.predict(CK_X), model.predict(CK_X))
    for a, b in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert type(loaded.optimizer).__name__ == "Adam"
    assert loaded.optimizer.iterations == model.optimizer.iterations
    assert float(loaded.optimizer.learning_rate) == pytest.approx(0.01)
    for w_old, w_new in zip(model.trainable_weights, loaded.trainable_weights):
        for (k1, s1), (k2, s2) in zip(sorted(model.optimizer.slots(w_old).items()),
                                      sorted(loaded.optimizer.slots(w_new).items())):
            assert k1 == k2
            np.testing.assert_array_equal(s1, s2)
    assert loaded.evaluate(CK_X, CK_Y, return_dict=True, verbose=0) == \
        model.evaluate(CK_X, CK_Y, return_dict=True, verbose=0)


@pytest.mark.parametrize("shuffle", [False, True])
def test_load_model_resumes_exactly(tmp_path, shuffle):
    path = str(tmp_path / "m.h5")
    pd.seed(0)
    model = _checkpoint_model()
    model.fit(CK_X, CK_Y, batch_size=8, epochs=2, shuffle=shuffle, verbose=0)
    model.save(path)
    model.fit(CK_X, CK_Y, batch_size=8, epochs=4, initial_epoch=2, shuffle=shuffle, verbose=0)
    straight = model.get_weights()
    resumed = pd.load_model(path)
    resumed.fit(CK_X, CK_Y, batch_size=8, epochs=4, initial_epoch=2, shuffle=shuffle, verbose=0)
    for a, b in zip(resumed.get_weights(), straight):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


class Scale(pd.layers.Layer):
    def __init__(self, factor=1.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.alpha = self.add_weight("alpha", (input_shape[-1],), initializer="ones")

    def call(self, x, training=False):
        return x * self.alpha * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_custom_layers_round_trip_with_custom_objects(tmp_path):
    inp = pd.Input(shape=(3,))
    model = pd.Model(inputs=inp, outputs=pd.layers.Dense(2)(Scale(2.5)(inp)))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(REG_X, np.zeros((20, 2), np.float32), epochs=1, verbose=0)
    path = str(tmp_path / "custom.h5")
    model.save(path)
    with pytest.raises(pd.CheckpointError, match="Scale"):
        pd.load_model(path)
    loaded = pd.load_model(path, custom_objects={"Scale": Scale})
    scale = [l for l in loaded.layers if isinstance(l, Scale)][0]
    assert scale.factor == 2.5
    np.testing.assert_array_equal(loaded.predict(REG_X), model.predict(REG_X))


def test_subclassed_models_save(tmp_path):
    class Net(pd.Model):
        def __init__(self, units=4, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.a = pd.layers.Dense(units, activation="relu")
            self.b = pd.layers.Dense(1)

        def call(self, x, training=False):
            return self.b(self.a(x) + 1.0)

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    net = Net(5)
    net.compile(optimizer="adam", loss="mse")
    net.fit(REG_X, REG_Y, epochs=2, verbose=0)
    path = str(tmp_path / "net.h5")
    net.save(path)
    loaded = pd.load_model(path, custom_objects={"Net": Net})
    np.testing.assert_array_equal(loaded.predict(REG_X), net.predict(REG_X))
    weights = str(tmp_path / "net_w.h5")
    net.save_weights(weights)
    other = Net(5)
    other(REG_X)
    other.load_weights(weights)
    np.testing.assert_array_equal(other.predict(REG_X), net.predict(REG_X))


def test_saves_are_atomic(tmp_path, monkeypatch):
    model = _regressor()
    path = str(tmp_path / "m.h5")
    model.save(path)
    good = model.predict(REG_X)
    model.fit(REG_X, REG_Y, epochs=1, verbose=0)
    real = h5py.Group.create_dataset
    count = [0]

    def crash(self, *args, **kwargs):
        count[0] += 1
        if count[0] == 2:
            raise OSError("disk full (simulated)")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(h5py.Group, "create_dataset", crash)
    with pytest.raises(OSError):
        model.save(path)
    count[0] = 0
    with pytest.raises(OSError):
        model.save_weights(str(tmp_path / "never.h5"))
    monkeypatch.setattr(h5py.Group, "create_dataset", real)
    np.testing.assert_array_equal(pd.load_model(path).predict(REG_X), good)
    assert os.listdir(tmp_path) == ["m.h5"]


def test_hdf5_layout_is_keras_legacy(tmp_path):
    model = pd.Sequential([
        pd.layers.Input(shape=(6, 6, 2)),
        pd.layers.Conv2D(4, 3, name="conv"),
        pd.layers.BatchNormalization(name="bn"),
        pd.layers.Reshape((4, 16), name="reshape"),
        pd.layers.LSTM(5, name="lstm"),
        pd.layers.Dense(3, name="dense"),
    ])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x = rng().standard_normal((4, 6, 6, 2)).astype(np.float32)
    model.train_on_batch(x, np.zeros((4, 3), np.float32))
    path = str(tmp_path / "m.h5")
    model.save(path)

    def text(value):
        return value.decode() if isinstance(value, bytes) else str(value)

    with h5py.File(path, "r") as f:
        for attr in ("model_config", "training_config", "backend"):
            assert attr in f.attrs, attr
        assert any("version" in k for k in f.attrs)
        config = json.loads(text(f.attrs["model_config"]))
        assert config["class_name"] == "Sequential"
        training = json.loads(text(f.attrs["training_config"]))
        assert training["loss"] == "mse" and "optimizer_config" in training
        weights = f["model_weights"]
        names = [text(n) for n in weights.attrs["layer_names"]]
        assert names == ["conv", "bn", "reshape", "lstm", "dense"]

        def layer(name):
            group = weights[name]
            return [np.asarray(group[text(w)]) for w in group.attrs["weight_names"]]

        conv, bn, reshape, lstm, dense = (layer(n) for n in names)
        assert [w.shape for w in conv] == [(3, 3, 2, 4), (4,)]
        assert [w.shape for w in bn] == [(4,)] * 4
        assert reshape == []
        assert [w.shape for w in lstm] == [(16, 20), (5, 20), (20,)]
        assert [w.shape for w in dense] == [(5, 3), (3,)]
        # values in Keras order: gamma, beta, moving_mean, moving_variance
        bn_layer = model.get_layer("bn")
        for got, want in zip(bn, bn_layer.get_weights()):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(bn[0], bn_layer.weights[0].val())
        assert "moving_variance" in text(weights["bn"].attrs["weight_names"][3])
        assert "gamma" in text(weights["bn"].attrs["weight_names"][0])
        assert "optimizer_weights" in f


def test_load_weights_reads_a_keras_style_file(tmp_path):
    """A weights file as Keras 3 writes it (legacy h5: weight names 'kernel', 'bias')."""
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2, name="d1"),
                           pd.layers.Dense(1, name="d2")])
    k1, b1 = rng().standard_normal((3, 2)).astype(np.float32), np.ones(2, np.float32)
    k2, b2 = rng(1).standard_normal((2, 1)).astype(np.float32), np.zeros(1, np.float32)
    path = str(tmp_path / "keras.h5")
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = [b"keras_dense", b"keras_dense_1"]
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"3.3.3"
        for name, (k, b) in zip(["keras_dense", "keras_dense_1"], [(k1, b1), (k2, b2)]):
            g = f.create_group(name)
            g.attrs["weight_names"] = [f"{name}/kernel:0".encode(), f"{name}/bias:0".encode()]
            g.create_dataset(f"{name}/kernel:0", data=k)
            g.create_dataset(f"{name}/bias:0", data=b)
    model.load_weights(path)
    np.testing.assert_array_equal(model.get_layer("d1").get_weights()[0], k1)
    np.testing.assert_array_equal(model.get_layer("d2").get_weights()[0], k2)


# =========================================================================================
# 2b. The seeds' Trainer and Inferencer
# =========================================================================================

def _mnist_flat_reader(n, seed, batch_size):
    x, y = mnist_like(n, seed)
    x = x.reshape(n, 784)

    def samples():
        for image, label in zip(x, y):
            yield image, int(label)
    return pd.reader.batch(samples, batch_size), x


def test_trainer_and_inferencer_code_block(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pd.seed(0)
    train_reader, _ = _mnist_flat_reader(64, 0, 16)
    test_reader, images = _mnist_flat_reader(32, 1, 16)

    def inference_program():
        image = pd.data("image", shape=[None, 784])
        hidden = pd.fc(image, size=128, act="relu")
        return pd.fc(hidden, size=10, act="softmax")

    def train_program():
        label = pd.data("label", shape=[None], dtype="int64")
        predict = inference_program()
        cost = pd.mean(pd.cross_entropy(predict, label))   # cross_entropy takes probabilities
        return [cost, pd.accuracy(predict, label)]          # the loss first, then metrics

    trainer = pd.Trainer(train_func=train_program,
                         optimizer_func=lambda: pd.optimizers.Adam(learning_rate=1e-3),
                         place="cpu")
    events, tests = [], []

    def event_handler(event):
        events.append(event)
        if isinstance(event, pd.EndStepEvent) and event.step % 100 == 0:
            print(event.epoch, event.step, event.metrics)   # metrics: floats, loss first
        elif isinstance(event, pd.EndEpochEvent):
            result = trainer.test(reader=test_reader, feed_order=["image", "label"])
            tests.append(result)
            print(result)
            trainer.save_params("mnist_params")

    trainer.train(num_epochs=2, event_handler=event_handler,
                  reader=train_reader, feed_order=["image", "label"])
    out = capsys.readouterr().out
    assert "0 0 [" in out and "1 0 [" in out
    kinds = [(type(e).__name__, e.epoch, getattr(e, "step", None)) for e in events]
    expected = []
    for epoch in range(2):
        expected.append(("BeginEpochEvent", epoch, None))
        for step in range(4):
            expected += [("BeginStepEvent", epoch, step), ("EndStepEvent", epoch, step)]
        expected.append(("EndEpochEvent", epoch, None))
    assert kinds == expected
    for e in events:
        if isinstance(e, pd.EndStepEvent):
            assert len(e.metrics) == 2 and all(type(m) is float for m in e.metrics)
            assert 0 <= e.metrics[1] <= 1
    assert len(tests) == 2 and all(len(t) == 2 and all(type(v) is float for v in t)
                                   for t in tests)
    assert os.path.isdir("mnist_params")

    inferencer = pd.Inferencer(infer_func=inference_program, param_path="mnist_params",
                               place="cpu")
    probs = inferencer.infer({"image": images})
    assert isinstance(probs, np.ndarray) and probs.shape == (32, 10)
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    # the loss trainer.test reports is the cross-entropy of these probabilities
    labels = mnist_like(32, 1)[1]
    assert tests[-1][0] == pytest.approx(-np.log(probs[np.arange(32), labels]).mean(), rel=1e-4)
    assert tests[-1][1] == pytest.approx(np.mean(probs.argmax(1) == labels))


def test_trainer_events_and_stop():
    assert (pd.BeginEpochEvent(3).epoch, pd.EndEpochEvent(4).epoch) == (3, 4)
    b = pd.BeginStepEvent(1, 2)
    e = pd.EndStepEvent(1, 2, [0.5, 1.0])
    assert (b.epoch, b.step, e.epoch, e.step, e.metrics) == (1, 2, 1, 2, [0.5, 1.0])
    reader, _ = _mnist_flat_reader(64, 0, 8)

    def train_program():
        image = pd.data("image", shape=[None, 784])
        label = pd.data("label", shape=[None], dtype="int64")
        return pd.mean(pd.softmax_cross_entropy(pd.fc(image, size=10), label))

    trainer = pd.Trainer(train_func=train_program,
                         optimizer_func=lambda: pd.optimizers.SGD(learning_rate=0.01))
    events = []

    def handler(event):
        events.append(event)
        if isinstance(event, pd.EndStepEvent) and event.step == 2:
            trainer.stop()

    trainer.train(num_epochs=5, event_handler=handler, reader=reader,
                  feed_order=["image", "label"])
    steps = [e.step for e in events if isinstance(e, pd.EndStepEvent)]
    assert steps == [0, 1, 2]
    assert isinstance(events[-1], pd.EndEpochEvent) and events[-1].epoch == 0


def test_trainer_place_gpu_without_gpu_says_so():
    from paddle.devices import cuda
    if cuda.available:
        pytest.skip("a GPU is present")

    def train_program():
        x = pd.data("x", shape=[None, 2])
        return pd.mean(pd.fc(x, size=1))
    with pytest.raises(Exception, match="(?i)gpu|cuda"):
        pd.Trainer(train_func=train_program, optimizer_func=lambda: pd.optimizers.SGD(0.1),
                   place="gpu")


# =========================================================================================
# 3. Readers and datasets
# =========================================================================================

def _numbers(n, start=0):
    return lambda: iter(range(start, start + n))


def test_reader_creator_batch():
    assert [list(b) for b in pd.reader.batch(_numbers(5), 2)()] == [[0, 1], [2, 3], [4]]
    assert [list(b) for b in pd.reader.batch(_numbers(5), 2, drop_last=True)()] == \
        [[0, 1], [2, 3]]
    assert [list(b) for b in pd.reader.batch(reader=_numbers(4), batch_size=4)()] == \
        [[0, 1, 2, 3]]


def test_reader_shuffle():
    pd.seed(0)
    out = list(pd.reader.shuffle(_numbers(50), buf_size=50)())
    assert sorted(out) == list(range(50)) and out != list(range(50))
    small = list(pd.reader.shuffle(_numbers(50), 5)())
    assert sorted(small) == list(range(50))


def test_reader_buffered_reads_in_a_background_thread():
    import threading
    threads = []

    def creator():
        for i in range(5):
            threads.append(threading.current_thread())
            yield i
    assert list(pd.reader.buffered(creator, size=2)()) == [0, 1, 2, 3, 4]
    assert threads and all(t is not threading.main_thread() for t in threads)


def test_reader_compose_chain_map_firstn_cache():
    composed = list(pd.reader.compose(lambda: iter([(1, 2), (3, 4)]), lambda: iter([5, 6]))())
    assert composed == [(1, 2, 5), (3, 4, 6)]
    assert list(pd.reader.chain(_numbers(2), _numbers(2, 10))()) == [0, 1, 10, 11]
    assert list(pd.reader.map_readers(lambda a, b: a + b, _numbers(3), _numbers(3, 10))()) == \
        [10, 12, 14]
    assert list(pd.reader.firstn(_numbers(10), 3)()) == [0, 1, 2]
    calls = []

    def creator():
        calls.append(1)
        return iter([1, 2, 3])
    cached = pd.reader.cache(creator)
    assert list(cached()) == [1, 2, 3] and list(cached()) == [1, 2, 3]
    assert len(calls) == 1


def test_reader_xmap_readers():
    ordered = list(pd.reader.xmap_readers(lambda v: v * 2, _numbers(20), process_num=3,
                                          buffer_size=4, order=True)())
    assert ordered == [2 * i for i in range(20)]
    unordered = list(pd.reader.xmap_readers(lambda v: v * 2, _numbers(20), 2, 4)())
    assert sorted(unordered) == [2 * i for i in range(20)]


def test_dataset_digits_offline():
    train = list(pd.dataset.digits.train()())
    test = list(pd.dataset.digits.test()())
    assert len(train) + len(test) == 1797
    x, y = train[0]
    assert isinstance(x, np.ndarray) and x.shape == (64,) and 0 <= int(y) <= 9
    model = pd.Sequential([pd.layers.Input(shape=(64,)), pd.layers.Dense(10)])
    model.compile(optimizer="adam",
                  loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    h = model.fit(pd.reader.batch(pd.dataset.digits.train(), 128), epochs=2, verbose=0)
    assert len(h.history["accuracy"]) == 2


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """An empty PADDLE_DATA_HOME and a machine without network access: urlopen raises
    as it does offline, and any socket connection fails and is recorded."""
    attempts = []
    home = tmp_path / "data_home"
    monkeypatch.setenv("PADDLE_DATA_HOME", str(home))

    def no_urlopen(url, *args, **kwargs):
        attempts.append(("urlopen", str(getattr(url, "full_url", url))))
        raise urllib.error.URLError("network access is disabled in this test")

    def no_socket(*args, **kwargs):
        attempts.append(("socket", args))
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(urllib.request, "urlopen", no_urlopen)
    monkeypatch.setattr(socket, "create_connection", no_socket)
    monkeypatch.setattr(socket, "getaddrinfo", no_socket)
    monkeypatch.setattr(socket.socket, "connect", no_socket)
    return home, attempts


def test_datasets_read_the_standard_files_from_the_cache_folder(offline):
    import gzip
    import pickle
    import struct
    import tarfile
    home, attempts = offline
    r = rng(21)
    # MNIST: the four IDX files (gzipped) under $PADDLE_DATA_HOME/mnist
    (home / "mnist").mkdir(parents=True)
    images = {"train": r.integers(0, 256, (5, 28, 28), dtype=np.uint8),
              "t10k": r.integers(0, 256, (3, 28, 28), dtype=np.uint8)}
    labels = {"train": r.integers(0, 10, 5, dtype=np.uint8),
              "t10k": r.integers(0, 10, 3, dtype=np.uint8)}
    for part in ("train", "t10k"):
        n = len(labels[part])
        with gzip.open(home / "mnist" / f"{part}-images-idx3-ubyte.gz", "wb") as f:
            f.write(struct.pack(">IIII", 0x803, n, 28, 28) + images[part].tobytes())
        with gzip.open(home / "mnist" / f"{part}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(struct.pack(">II", 0x801, n) + labels[part].tobytes())
    for reader, part in ((pd.dataset.mnist.train(), "train"), (pd.dataset.mnist.test(), "t10k")):
        samples = list(reader())
        assert len(samples) == len(labels[part])
        for (x, y), image, label in zip(samples, images[part], labels[part]):
            assert x.shape == (784,) and int(y) == int(label)
            assert np.corrcoef(x, image.reshape(-1).astype(np.float64))[0, 1] > 0.999
    # UCI housing: housing.data, 14 numbers a line
    (home / "uci_housing").mkdir()
    rows = r.uniform(1, 10, (10, 14))
    np.savetxt(home / "uci_housing" / "housing.data", rows, fmt="%.4f")
    train, test = list(pd.dataset.uci_housing.train()()), list(pd.dataset.uci_housing.test()())
    assert len(train) + len(test) == 10 and len(train) > len(test)
    features, price = train[0]
    assert np.shape(features) == (13,)
    assert float(np.ravel(price)[0]) == pytest.approx(rows[0, 13], abs=1e-3)
    # CIFAR-10: the Python tarball with pickled batches
    (home / "cifar").mkdir()
    data = r.integers(0, 256, (4, 3072), dtype=np.uint8)
    with tarfile.open(home / "cifar" / "cifar-10-python.tar.gz", "w:gz") as tar:
        for name in ["data_batch_%d" % i for i in range(1, 6)] + ["test_batch"]:
            payload = pickle.dumps({b"data": data, b"labels": [1, 2, 3, 4]})
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    train = list(pd.dataset.cifar.train10()())
    test = list(pd.dataset.cifar.test10()())
    assert len(train) == 20 and len(test) == 4
    x, y = test[2]
    assert x.shape == (3072,) and int(y) == 3
    assert np.corrcoef(x, data[2].astype(np.float64))[0, 1] > 0.999
    assert attempts == []


@pytest.mark.parametrize("module,functions,folder", [
    ("mnist", ("train", "test"), "mnist"),
    ("cifar", ("train10", "test10"), "cifar"),
    ("uci_housing", ("train", "test"), "uci_housing"),
])
def test_datasets_missing_files_give_a_clear_error(offline, module, functions, folder):
    home, attempts = offline
    mod = getattr(pd.dataset, module)
    for name in functions:
        fn = getattr(mod, name)
        assert callable(fn)
        with pytest.raises(Exception) as info:
            reader = fn()
            next(iter(reader()))
        message = str(info.value)
        assert str(home / folder) in message, message
        assert "PADDLE_DATA_HOME" in message or "missing" in message
    assert not [a for a in attempts if a[0] == "socket"], attempts


# =========================================================================================
# 5. Errors
# =========================================================================================

def test_shape_error_names_op_shapes_and_user_line():
    x = pd.data("x", shape=[None, 784])
    with pytest.raises(pd.ShapeError) as info:
        pd.matmul(x, pd.Variable("bad", shape=[10, 3]))  # MATMUL-ERROR-LINE
    message = str(info.value)
    assert message.startswith("matmul: ")
    assert "inner dimensions differ" in message
    # the spec's example labels the operands by Variable name ("x is ..., bad is ...");
    # the labels may differ (paddle labels them by the op's argument names, "x" and "y")
    assert re.search(r"\w+ is \(None, 784\), \w+ is \(10, 3\)", message), message
    assert message.endswith(f"(at {HERE}:{line_of('MATMUL-ERROR-LINE')})")
    assert isinstance(info.value, pd.PaddleError)


def test_shape_errors_from_layers_name_the_user_line():
    x = pd.data("x", shape=[None, 32])
    dense = pd.layers.Dense(4)
    dense(pd.data("y", shape=[None, 64]))
    with pytest.raises(pd.ShapeError) as info:
        dense(x)  # DENSE-ERROR-LINE
    message = str(info.value)
    assert "64" in message and "(None, 32)" in message
    assert f"{HERE}:{line_of('DENSE-ERROR-LINE')}" in message


def test_feed_errors_name_the_data_input():
    x = pd.data("image", shape=[None, 784])
    y = pd.data("label", shape=[None], dtype="int64")
    out = pd.fc(x, size=2)
    loss = pd.mean(pd.softmax_cross_entropy(out, y))
    with pytest.raises(pd.FeedError, match="'image'.*784|784.*'image'") as info:
        pd.eval(out, {x: np.zeros((2, 100), np.float32)})
    assert "(2, 100)" in str(info.value)
    with pytest.raises(pd.FeedError, match="'label'"):
        pd.eval(loss, {x: np.zeros((2, 784), np.float32), y: np.zeros(2, np.float32) + 0.5})
    with pytest.raises(pd.FeedError, match="'label'"):
        pd.eval(loss, {x: np.zeros((2, 784), np.float32)})
    with pytest.raises(pd.FeedError, match="'label'"):
        pd.eval(loss, {x: np.zeros((2, 784), np.float32), y: np.zeros((2, 1), np.int64)})


def test_feed_errors_name_the_input_in_the_high_level_and_the_trainer(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(784,), name="image"), pd.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(pd.ShapeError, match="'image'.*784"):
        model.fit(np.ones((4, 100), np.float32), np.ones((4, 2), np.float32), verbose=0)

    def inference_program():
        return pd.fc(pd.data("image", shape=[None, 784]), size=10, act="softmax")

    def train_program():
        label = pd.data("label", shape=[None], dtype="int64")
        return pd.mean(pd.cross_entropy(inference_program(), label))

    trainer = pd.Trainer(train_func=train_program,
                         optimizer_func=lambda: pd.optimizers.SGD(learning_rate=0.1))
    wrong_shape = pd.reader.batch(lambda: iter([(np.ones(100, np.float32), 1)] * 4), 2)
    with pytest.raises(pd.FeedError, match="'image'"):
        trainer.train(num_epochs=1, event_handler=None, reader=wrong_shape,
                      feed_order=["image", "label"])
    wrong_dtype = pd.reader.batch(lambda: iter([(np.ones(784, np.float32), 0.5)] * 4), 2)
    with pytest.raises(pd.FeedError, match="'label'"):
        trainer.train(num_epochs=1, event_handler=None, reader=wrong_dtype,
                      feed_order=["image", "label"])
    trainer.save_params(str(tmp_path / "params"))
    inferencer = pd.Inferencer(infer_func=inference_program, param_path=str(tmp_path / "params"))
    with pytest.raises(pd.FeedError, match="'image'"):
        inferencer.infer({"image": np.ones((2, 100), np.float32)})


def test_bad_values_never_reach_kernels_unchecked():
    logits = pd.data("logits", shape=[None, 3])
    labels = pd.data("labels", shape=[None], dtype="int64")
    loss = pd.softmax_cross_entropy(logits, labels)
    with pytest.raises(Exception, match="7"):
        pd.eval(loss, {logits: np.zeros((2, 3), np.float32), labels: np.array([0, 7])})
    table = pd.Variable("table", shape=[4, 2])
    ids = pd.data("ids", shape=[None], dtype="int64")
    with pytest.raises(Exception, match="-1|9"):
        pd.eval(pd.embedding(ids, table), {ids: np.array([9, -1])})
    with pytest.raises(Exception, match="5"):
        pd.eval(pd.gather(table, pd.constant(np.array([5]))))


def test_checkpoint_errors(tmp_path):
    model = _regressor()
    model.fit(REG_X, REG_Y, epochs=1, verbose=0)
    good = str(tmp_path / "good.h5")
    model.save(good)
    missing = str(tmp_path / "missing.h5")
    with pytest.raises(pd.CheckpointError, match="missing.h5"):
        pd.load_model(missing)
    with pytest.raises(pd.CheckpointError, match="missing.h5"):
        model.load_weights(missing)
    truncated = str(tmp_path / "truncated.h5")
    with open(good, "rb") as f:
        data = f.read()
    with open(truncated, "wb") as f:
        f.write(data[:len(data) // 2])
    with pytest.raises(pd.CheckpointError, match="truncated.h5"):
        pd.load_model(truncated)
    with pytest.raises(pd.CheckpointError, match="truncated.h5"):
        model.load_weights(truncated)
    foreign = str(tmp_path / "foreign.h5")
    with h5py.File(foreign, "w") as f:
        f.create_dataset("something", data=np.arange(10))
        f.attrs["creator"] = "another program"
    with pytest.raises(pd.CheckpointError, match="foreign.h5"):
        pd.load_model(foreign)
    with pytest.raises(pd.CheckpointError, match="foreign.h5"):
        model.load_weights(foreign)
    text = str(tmp_path / "text.h5")
    with open(text, "w") as f:
        f.write("not hdf5 at all")
    with pytest.raises(pd.CheckpointError, match="text.h5"):
        pd.load_model(text)
    before = model.get_weights()
    other = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(7)])
    other_path = str(tmp_path / "other.h5")
    other.save_weights(other_path)
    with pytest.raises(pd.CheckpointError, match="other.h5"):
        model.load_weights(other_path)
    for a, b in zip(model.get_weights(), before):       # nothing half-loaded
        np.testing.assert_array_equal(a, b)
