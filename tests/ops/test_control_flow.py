"""Control flow (pd.ops.cond, switch, while_loop, fori_loop, scan, map, associative_scan,
vectorized_map, stop_gradient, custom_gradient): values against Python loops, gradients
against central differences, captured parameters trained by fit, and bad input."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle import ops

HERE = "test_control_flow.py"

# On a real GPU a plan holding a control-flow op runs op by op (the ops decide on the host
# what runs next), and says so once.
pytestmark = pytest.mark.filterwarnings(
    "ignore::paddle.devices.cuda.graph.GraphCaptureWarning")


def feed(name, value, dtype=None):
    value = np.asarray(value, dtype=dtype)
    return pd.data(name, shape=value.shape, dtype=value.dtype.name), value


# ---- values -----------------------------------------------------------------------------

def test_cond_runs_the_chosen_branch(device):
    x, xv = feed("x", [1.0, -2.0, 3.0], np.float32)
    y = ops.cond(pd.sum(x) > 0.0, lambda: x * 2.0, lambda: x - 10.0)
    assert y.shape == (3,) and y.dtype == "float32"
    np.testing.assert_allclose(pd.eval(y, {x: xv}), xv * 2)
    np.testing.assert_allclose(pd.eval(y, {x: -xv}), -xv - 10)


def test_cond_structures_and_concrete_predicates(device):
    x, xv = feed("x", [1.0, 2.0], np.float32)
    out = ops.cond(pd.sum(x) > 5.0, lambda: {"a": x, "b": (x * 2.0, pd.sum(x))},
                   lambda: {"a": -x, "b": (x * 3.0, pd.max(x))})
    a, (b, c) = out["a"], out["b"]
    got = pd.eval([a, b, c], {x: xv})
    np.testing.assert_allclose(got[0], -xv)
    np.testing.assert_allclose(got[1], xv * 3)
    assert float(got[2]) == 2.0
    assert ops.cond(True, lambda: "yes", lambda: "no") == "yes"
    assert ops.cond(np.bool_(False), lambda: "yes", lambda: "no") == "no"


def test_cond_branch_with_its_own_unknown_batch(device):
    x = pd.data("x", shape=[None, 2])
    y = ops.cond(pd.sum(x) > 0.0, lambda: pd.sum(x, axis=1), lambda: pd.max(x, axis=1))
    assert y.shape == (None,)
    xv = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]], np.float32)
    np.testing.assert_allclose(pd.eval(y, {x: xv}), xv.sum(1))
    np.testing.assert_allclose(pd.eval(y, {x: -xv}), (-xv).max(1))


def test_switch_clamps_and_passes_operands(device):
    k = pd.data("k", shape=[], dtype="int32")
    x, xv = feed("x", [1.0, 2.0], np.float32)
    y = ops.switch(k, [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b], x, 3.0)
    for index, expected in ((-4, xv + 3), (0, xv + 3), (1, xv * 3), (2, xv - 3), (9, xv - 3)):
        np.testing.assert_allclose(pd.eval(y, {x: xv, k: np.int32(index)}), expected)
    assert ops.switch(1, [lambda v: v + 1, lambda v: v * 10], 2) == 20


def test_while_loop_matches_a_python_loop(device):
    n = pd.data("n", shape=[], dtype="int64")
    i, total = ops.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i * i),
                              (pd.constant(0), pd.constant(0)))
    for limit in (0, 1, 7):
        expected = [limit, sum(j * j for j in range(limit))]
        assert pd.eval([i, total], {n: np.int64(limit)}) == expected
    # a single loop variable, a dict, maximum_iterations
    x = pd.constant(1.0)
    assert float(pd.eval(ops.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, x))) == 243.0
    d = ops.while_loop(lambda s: s["k"] < 3, lambda s: [{"k": s["k"] + 1, "v": s["v"] * 2.0}],
                       [{"k": pd.constant(0), "v": pd.constant(1.5)}])
    assert isinstance(d, tuple) and float(pd.eval(d[0]["v"])) == 12.0  # as Keras on JAX
    capped = ops.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, x, maximum_iterations=2)
    assert float(pd.eval(capped)) == 9.0


def test_fori_loop_static_and_tensor_bounds(device):
    x, xv = feed("x", [1.0, 2.0, 4.0], np.float32)
    total = ops.fori_loop(0, 3, lambda i, acc: acc * 2.0 + pd.gather(x, i), pd.constant(0.0))
    assert float(pd.eval(total, {x: xv})) == ((1 * 2) + 2) * 2 + 4
    hi = pd.data("hi", shape=[], dtype="int32")
    dyn = ops.fori_loop(pd.constant(1, dtype="int32"), hi, lambda i, v: v + pd.cast(i, "float32"),
                        pd.constant(0.0))
    assert float(pd.eval(dyn, {hi: np.int32(5)})) == 1 + 2 + 3 + 4
    assert float(pd.eval(ops.fori_loop(3, 1, lambda i, v: v + 1.0, pd.constant(0.0)))) == 0.0


def test_scan_matches_a_python_loop(device):
    rng = np.random.default_rng(0)
    xs, xsv = feed("xs", rng.standard_normal((5, 3)), np.float32)
    h0, h0v = feed("h0", rng.standard_normal(3), np.float32)

    def step(carry, x):
        h, n = carry
        h = pd.tanh(h * 0.5 + x)
        return (h, n + 1), {"h": h, "s": pd.sum(h)}
    for reverse in (False, True):
        (h, n), ys = ops.scan(step, (h0, pd.constant(0)), xs, reverse=reverse)
        got = pd.eval([h, n, ys["h"], ys["s"]], {xs: xsv, h0: h0v})
        ref, hs = h0v, np.zeros((5, 3), np.float32)
        for t in (reversed(range(5)) if reverse else range(5)):
            ref = np.tanh(ref * 0.5 + xsv[t])
            hs[t] = ref
        np.testing.assert_allclose(got[0], ref, rtol=1e-5, atol=1e-6)
        assert got[1] == 5
        np.testing.assert_allclose(got[2], hs, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[3], hs.sum(1), rtol=1e-5)
    count, none = ops.scan(lambda c, x: (c + 1.0, None), pd.constant(0.0), length=4)
    assert float(pd.eval(count)) == 4.0 and none is None


def test_map_vectorized_map_and_associative_scan(device):
    rng = np.random.default_rng(1)
    x, xv = feed("x", rng.standard_normal((4, 3)), np.float32)
    np.testing.assert_allclose(pd.eval(ops.map(lambda r: r * pd.sum(r), x), {x: xv}),
                               xv * xv.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(pd.eval(ops.vectorized_map(lambda r: pd.max(r), x), {x: xv}),
                               xv.max(1))
    for axis in (0, 1, -1):
        got = pd.eval(ops.associative_scan(lambda a, b: a + b, x, axis=axis), {x: xv})
        np.testing.assert_allclose(got, np.cumsum(xv, axis=axis), rtol=1e-5, atol=1e-6)
        rev = pd.eval(ops.associative_scan(lambda a, b: a * b, x, reverse=True, axis=axis),
                      {x: xv})
        flipped = np.flip(np.cumprod(np.flip(xv, axis), axis=axis), axis)
        np.testing.assert_allclose(rev, flipped, rtol=1e-5, atol=1e-6)
    pair = ops.associative_scan(lambda a, b: (a[0] + b[0], a[1] * b[1]), (x, x))
    got = pd.eval(list(pair), {x: xv})
    np.testing.assert_allclose(got[0], np.cumsum(xv, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], np.cumprod(xv, 0), rtol=1e-5, atol=1e-6)


def test_values_match_keras_on_jax(device):
    # The expected values are Keras 3.15.1's (JAX backend) for the same calls.
    x = pd.constant(np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], np.float32))
    combine = lambda a, b: a * 10.0 + b  # noqa: E731 (not associative: shows the order)
    assert ops.associative_scan(combine, x, reverse=True, axis=1).numpy().tolist() == \
        [[321.0, 32.0, 3.0], [190.5, 19.0, 2.0]]
    assert ops.associative_scan(combine, x, axis=1).numpy().tolist() == \
        [[1.0, 12.0, 123.0], [0.5, 4.0, 42.0]]
    c, ys = ops.scan(lambda c, v: (c * 2.0 + v, c), pd.constant(1.0),
                     pd.constant(np.array([1.0, 2.0, 3.0], np.float32)), reverse=True)
    assert (float(c.numpy()), ys.numpy().tolist()) == (25.0, [12.0, 5.0, 1.0])
    branches = [lambda a: a + 1.0, lambda a: a * 10.0]
    assert float(ops.switch(pd.constant(-3), branches, pd.constant(2.0)).numpy()) == 3.0
    assert float(ops.switch(pd.constant(7), branches, pd.constant(2.0)).numpy()) == 20.0
    assert float(ops.fori_loop(0, 3, lambda i, v: v * 2.0 + pd.cast(i, "float32"),
                               pd.constant(1.0)).numpy()) == 12.0
    capped = ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (0, 0),
                            maximum_iterations=3)
    assert pd.eval(list(capped)) == [3, 3]


def test_nested_cond_inside_scan(device):
    xs, xsv = feed("xs", [1.0, -2.0, 3.0, -4.0], np.float32)
    last, ys = ops.scan(lambda c, x: ops.cond(x > 0.0, lambda: (c + x, c), lambda: (c * 2.0, -c)),
                        pd.constant(1.0), xs)
    got = pd.eval([last, ys], {xs: xsv})
    c, ref = 1.0, []
    for x in xsv:
        ref.append(c if x > 0 else -c)
        c = c + x if x > 0 else c * 2
    assert float(got[0]) == c
    np.testing.assert_allclose(got[1], ref)


# ---- gradients --------------------------------------------------------------------------

def test_cond_gradients(device):
    w = np.array([0.5, -1.5, 2.0])
    for sign in (1.0, -1.0):
        check_gradients(lambda x, v: ops.cond(pd.sum(x) > 0.0, lambda: x * v * x,
                                              lambda: pd.tanh(x) + v),
                        [w * sign, np.array([1.0, 2.0, 3.0])])


def test_switch_gradients_with_operands(device):
    for index in (0, 1):
        check_gradients(lambda x, k: ops.switch(k, [lambda a: pd.exp(a) * 2.0,
                                                    lambda a: a * a * a], x),
                        [np.array([0.3, -0.7]), np.array(index, np.int32)])


def test_scan_gradients_through_a_recurrence(device):
    rng = np.random.default_rng(2)

    def rnn(xs, h0, w, u):
        def step(h, x):
            h = pd.tanh(pd.matmul(x, w) + pd.matmul(h, u))
            return h, h * 2.0
        return list(ops.scan(step, h0, xs))
    check_gradients(rnn, [rng.standard_normal((4, 2, 3)), rng.standard_normal((2, 5)),
                          rng.standard_normal((3, 5)) * 0.5, rng.standard_normal((5, 5)) * 0.5])
    check_gradients(lambda xs, h0, w, u: rnn(xs, h0, w, u)[0],  # only the final carry
                    [rng.standard_normal((3, 2, 3)), rng.standard_normal((2, 5)),
                     rng.standard_normal((3, 5)) * 0.5, rng.standard_normal((5, 5)) * 0.5])


def test_reverse_scan_fori_loop_and_map_gradients(device):
    rng = np.random.default_rng(3)
    check_gradients(lambda xs, c: ops.scan(lambda a, x: (a * x + 1.0, a), c, xs,
                                           reverse=True)[1],
                    [rng.standard_normal((4, 3)), rng.standard_normal(3)])
    check_gradients(lambda v, w: ops.fori_loop(0, 3, lambda i, a: pd.tanh(a * w) + pd.gather(
        w, i), v), [rng.standard_normal(3), rng.standard_normal(3)])
    check_gradients(lambda xs, w: ops.map(lambda r: pd.sum(r * w) * r, xs),
                    [rng.standard_normal((3, 2)), rng.standard_normal(2)])
    check_gradients(lambda xs: ops.associative_scan(lambda a, b: a * b, xs, axis=1),
                    [rng.standard_normal((2, 4))])


def test_nested_gradients_cond_inside_scan(device):
    check_gradients(lambda xs, w: ops.scan(
        lambda c, x: ops.cond(x > 0.0, lambda: (c * w + x, c), lambda: (c - x * w, c * c)),
        pd.constant(np.float64(1.0)), xs)[0], [np.array([0.5, -1.0, 2.0]), np.array(0.7)])


def test_second_order_gradients_and_unknown_batch(device):
    rng = np.random.default_rng(4)
    check_gradients(lambda x, v: ops.cond(pd.sum(x) > 0.0, lambda: x * v * x,
                                          lambda: pd.tanh(x) * v),
                    [np.array([0.5, 1.0]), np.array([1.0, 2.0])], order=2)
    check_gradients(lambda xs, w: ops.scan(lambda c, x: (pd.tanh(c * w + x), c),
                                           pd.constant(np.zeros(2)), xs)[0],
                    [rng.standard_normal((3, 2)), rng.standard_normal(2)], order=2)
    check_gradients(lambda xs, w: ops.map(lambda r: pd.tanh(pd.matmul(r, w)), xs),
                    [rng.standard_normal((3, 4, 2)), rng.standard_normal((2, 2))],
                    unknown_batch=True)


def test_stop_gradient_and_custom_gradient(device):
    x = pd.data("x", shape=[3], dtype="float64")
    g, = pd.gradients(pd.sum(x * ops.stop_gradient(x)), [x])
    xv = np.array([1.0, 2.0, -3.0])
    np.testing.assert_allclose(pd.eval(g, {x: xv}), xv)

    @ops.custom_gradient
    def log1pexp(v):
        e = pd.exp(v)

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            return upstream * (1.0 - 1.0 / (1.0 + e))
        return pd.log(1.0 + e), grad
    y = log1pexp(x)
    g, = pd.gradients(pd.sum(y), [x])
    np.testing.assert_allclose(pd.eval(y, {x: xv}), np.log1p(np.exp(xv)))
    np.testing.assert_allclose(pd.eval(g, {x: xv}), 1 / (1 + np.exp(-xv)))
    big = np.array([100.0, 0.0, 1.0])  # the custom gradient is the stable one
    assert np.isfinite(pd.eval(g, {x: big})).all()


def test_bounded_while_loop_gradients(device):
    w = np.array([1.5, 1.2])
    for limit in (6, 2):  # stops on its predicate (after 3 steps), or on the limit
        check_gradients(lambda x, v: ops.while_loop(lambda c: pd.sum(c) < 10.0,
                                                    lambda c: c * v + 1.0, x,
                                                    maximum_iterations=limit),
                        [np.array([0.5, 1.0]), w])


def test_while_loop_has_no_gradient():
    x = pd.data("x", shape=[], dtype="float64")
    y = ops.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)
    with pytest.raises(ValueError, match=r"while_loop: no gradient .*built at " + HERE):
        pd.gradients(y, [x])


# ---- training: captured parameters ----------------------------------------------------

class ScanRNN(pd.layers.Layer):
    """A tiny RNN written with ops.scan: its weights are captured by the body."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 8), initializer="glorot_uniform")
        self.u = self.add_weight(shape=(8, 8), initializer="orthogonal")

    def call(self, x):
        xs = pd.transpose(x, [1, 0, 2])
        h0 = pd.zeros_like(pd.matmul(xs[0], self.w))
        h, _ = ops.scan(lambda h, xt: (pd.tanh(pd.matmul(xt, self.w) + pd.matmul(h, self.u)),
                                       None), h0, xs)
        return h


def test_a_scan_rnn_trains_with_fit(device):
    pd.seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 5, 2)).astype(np.float32)
    y = (x[:, :, 0].sum(1, keepdims=True) > 0).astype(np.float32)
    inputs = pd.layers.Input(shape=(5, 2))
    outputs = pd.layers.Dense(1, activation="sigmoid")(ScanRNN()(inputs))
    model = pd.models.Model(inputs, outputs)
    model.compile(optimizer=pd.optimizers.Adam(0.05), loss="binary_crossentropy")
    before = [w.copy() for w in model.get_weights()]
    history = model.fit(x, y, epochs=8, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.7 * losses[0]
    assert all(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))


# ---- bad input --------------------------------------------------------------------------

def test_a_body_that_changes_a_carry_raises_naming_it():
    x = pd.constant(np.ones((2, 3), np.float32))
    with pytest.raises(pd.ShapeError, match=r"loop_vars\[1\] from \(2, 3\) float32 to "
                                            r"\(2, 4\) float32.*" + HERE):
        ops.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, pd.concat([v, v[:, :1]], 1)),
                       (pd.constant(0), x))
    with pytest.raises(pd.ShapeError, match=r"init\['h'\] from \(3,\) float32 to \(3,\) "
                                            r"float64"):
        ops.scan(lambda c, x: ({"h": pd.cast(c["h"], "float64")}, x), {"h": pd.ones((3,))},
                 pd.ones((4, 3)))
    with pytest.raises(pd.ShapeError, match=r"carry init from \(2,\) float32 to \(4,\) "
                                            r"float32.*with the fed shapes"):
        v = pd.data("v", shape=[None])
        h, _ = ops.scan(lambda c, x: (pd.concat([c, c]), None), v, length=2)
        pd.eval(h, {v: np.ones(2, np.float32)})


def test_predicates_and_indices_are_checked():
    x = pd.constant(np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"cond: expected a scalar bool predicate, received a "
                                        r"Variable of shape \(3,\) and dtype bool.*" + HERE):
        ops.cond(x > 0.0, lambda: x, lambda: x)
    with pytest.raises(TypeError, match=r"cond: expected a scalar bool predicate, received a "
                                        r"Variable of shape \(\) and dtype float32"):
        ops.cond(pd.sum(x), lambda: x, lambda: x)
    with pytest.raises(TypeError, match=r"cond: expected a scalar bool predicate, received 1"):
        ops.cond(1, lambda: x, lambda: x)
    with pytest.raises(TypeError, match=r"switch: expected a scalar integer index.*float32"):
        ops.switch(pd.constant(1.0), [lambda: x], )
    with pytest.raises(pd.ShapeError, match=r"cond must return one scalar bool"):
        ops.while_loop(lambda v: v, lambda v: v, pd.constant(1.0))


def test_branches_must_agree():
    x = pd.constant(np.ones(3, np.float32))
    p = pd.sum(x) > 1.0
    with pytest.raises(ValueError, match=r"cond: the branches return different structures: "
                                         r"true_fn returns \(T, T\), false_fn returns "
                                         r"\[T\].*" + HERE):
        ops.cond(p, lambda: (x, x), lambda: [x])
    with pytest.raises(pd.ShapeError, match=r"output 0 of branch 1 is \(3,\) int32, of branch 0 "
                                            r"\(3,\) float32.*" + HERE):
        ops.cond(p, lambda: pd.cast(x, "int32"), lambda: x)
    with pytest.raises(pd.ShapeError, match=r"xs\[1\] has 4 steps along axis 0, expected 3"):
        ops.scan(lambda c, xy: (c, xy[0]), pd.constant(0.0), (pd.ones((3,)), pd.ones((4,))))
    with pytest.raises(ValueError, match=r"scan: f must return a pair"):
        ops.scan(lambda c, x: c, pd.constant(0.0), pd.ones((3,)))
