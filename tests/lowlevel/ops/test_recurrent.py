"""lstm and gru: NumPy references of Keras's cells, gradients through time, errors."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.lowlevel.executor import topological_nodes


def sig(v):
    return 1 / (1 + np.exp(-v))


def ref_lstm(x, k, rk, b, h, c):
    u = rk.shape[0]
    hs, cs = [], []
    for t in range(x.shape[1]):
        z = x[:, t] @ k + h @ rk + b
        i, f, o = sig(z[:, :u]), sig(z[:, u:2 * u]), sig(z[:, 3 * u:])
        g = np.tanh(z[:, 2 * u:3 * u])
        c = f * c + i * g
        h = o * np.tanh(c)
        hs.append(h)
        cs.append(c)
    return np.stack(hs, 1), np.stack(cs, 1)


def ref_gru(x, k, rk, b, h, reset_after):
    u = rk.shape[0]
    hs = []
    b_in, b_rec = (b[0], b[1]) if reset_after else (b, np.zeros_like(b))
    for t in range(x.shape[1]):
        xp = x[:, t] @ k + b_in
        if reset_after:
            rec = h @ rk + b_rec
            z, r = sig(xp[:, :u] + rec[:, :u]), sig(xp[:, u:2 * u] + rec[:, u:2 * u])
            hh = np.tanh(xp[:, 2 * u:] + r * rec[:, 2 * u:])
        else:
            z = sig(xp[:, :u] + h @ rk[:, :u])
            r = sig(xp[:, u:2 * u] + h @ rk[:, u:2 * u])
            hh = np.tanh(xp[:, 2 * u:] + (r * h) @ rk[:, 2 * u:])
        h = z * h + (1 - z) * hh
        hs.append(h)
    return np.stack(hs, 1)


def rand(*shape, seed=0, scale=0.5):
    return np.random.default_rng(seed).standard_normal(shape) * scale


N, T, F, U = 3, 4, 3, 2


def c64(a):
    return pd.constant(a, "float64")


@pytest.mark.parametrize("with_state", [False, True])
def test_lstm_matches_reference(with_state):
    x, k, rk, b = rand(N, T, F), rand(F, 4 * U, seed=1), rand(U, 4 * U, seed=2), rand(4 * U, seed=3)
    h0, c0 = (rand(N, U, seed=4), rand(N, U, seed=5)) if with_state else (np.zeros((N, U)),) * 2
    hs, cs = ref_lstm(x, k, rk, b, h0, c0)
    state = [c64(h0), c64(c0)] if with_state else None
    seq, h, c = pd.lstm(c64(x), c64(k), c64(rk), c64(b), initial_state=state,
                        return_sequences=True, return_state=True)
    assert seq.shape == (N, T, U) and h.shape == (N, U)
    got = pd.eval([seq, h, c, pd.lstm(c64(x), c64(k), c64(rk), c64(b), initial_state=state)])
    for g, w in zip(got, [hs, hs[:, -1], cs[:, -1], hs[:, -1]]):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_reference(reset_after):
    x, k, rk = rand(N, T, F), rand(F, 3 * U, seed=1), rand(U, 3 * U, seed=2)
    b = rand(2, 3 * U, seed=3) if reset_after else rand(3 * U, seed=3)
    h0 = rand(N, U, seed=4)
    want = ref_gru(x, k, rk, b, h0, reset_after)
    seq, h = pd.gru(c64(x), c64(k), c64(rk), c64(b), initial_state=c64(h0),
                    return_sequences=True, return_state=True, reset_after=reset_after)
    got_seq, got_h = pd.eval([seq, h])
    np.testing.assert_allclose(got_seq, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_h, want[:, -1], rtol=1e-10, atol=1e-12)
    last = pd.eval(pd.gru(c64(x), c64(k), c64(rk), c64(b), reset_after=reset_after))
    np.testing.assert_allclose(last, ref_gru(x, k, rk, b, np.zeros((N, U)), reset_after)[:, -1],
                               rtol=1e-10, atol=1e-12)


def test_lstm_gradients_through_time():
    arrays = [rand(N, T, F), rand(F, 4 * U, seed=1), rand(U, 4 * U, seed=2), rand(4 * U, seed=3),
              rand(N, U, seed=4), rand(N, U, seed=5)]
    check_gradients(lambda x, k, rk, b, h, c: pd.lstm(x, k, rk, b, [h, c], return_sequences=True,
                                                      return_state=True), arrays)
    check_gradients(lambda x, k, rk, b: pd.lstm(x, k, rk, b), arrays[:4])


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_gradients_through_time(reset_after):
    b = rand(2, 3 * U, seed=3) if reset_after else rand(3 * U, seed=3)
    arrays = [rand(N, T, F), rand(F, 3 * U, seed=1), rand(U, 3 * U, seed=2), b,
              rand(N, U, seed=4)]
    check_gradients(lambda x, k, rk, b, h: pd.gru(x, k, rk, b, h, return_sequences=True,
                                                  reset_after=reset_after), arrays)
    check_gradients(lambda x, k, rk, b: pd.gru(x, k, rk, b, reset_after=reset_after),
                    arrays[:4])


def test_float32_batch_over_threads():
    # Enough rows to split over threads; float32 against the float64 reference.
    n, t, f, u = 64, 6, 5, 8
    x, k, rk, b = rand(n, t, f), rand(f, 4 * u, seed=1), rand(u, 4 * u, seed=2), rand(4 * u, seed=3)
    xv = pd.data("x", shape=[None, t, f])
    kv = pd.Variable("k", shape=[f, 4 * u])
    kv.set_value(k)
    out = pd.lstm(xv, kv, pd.constant(rk), pd.constant(b), return_sequences=True)
    gk, = pd.gradients(pd.sum(out), [kv])
    got, got_gk = pd.eval([out, gk], {xv: x.astype(np.float32)})
    np.testing.assert_allclose(got, ref_lstm(x, k, rk, b, np.zeros((n, u)), np.zeros((n, u)))[0],
                               rtol=1e-4, atol=1e-5)
    # The kernel's gradient by a central difference on one entry.
    eps, i, j = 1e-4, 2, 5

    def total(kk):
        return ref_lstm(x, kk, rk, b, np.zeros((n, u)), np.zeros((n, u)))[0].sum()
    kp, km = k.copy(), k.copy()
    kp[i, j] += eps
    km[i, j] -= eps
    assert abs(got_gk[i, j] - (total(kp) - total(km)) / (2 * eps)) < 1e-3


@pytest.mark.parametrize("use_c", [False, True])
def test_lstm_grad_reads_dcs_only_when_the_cell_states_get_a_gradient(use_c):
    # Without a gradient of the cell states, lstm_grad takes no dcs input (no zero array of
    # (N, T, U) is made and read); the gradients are the same, checked against central
    # differences (float64) with and without a use of c.
    arrays = [rand(N, T, F), rand(F, 4 * U, seed=1), rand(U, 4 * U, seed=2), rand(4 * U, seed=3),
              rand(N, U, seed=4), rand(N, U, seed=5)]

    def fn(x, k, rk, b, h, c):
        seq, hn, cn = pd.lstm(x, k, rk, b, [h, c], return_sequences=True, return_state=True)
        return [seq, cn] if use_c else [seq, hn]
    check_gradients(fn, arrays)
    vs = [pd.data(f"dcs_{use_c}_{i}", a.shape, "float64") for i, a in enumerate(arrays)]
    loss = sum(pd.sum(o) for o in fn(*vs))
    grad = next(n for n in topological_nodes(pd.gradients(loss, vs))
                if n.op.name == "lstm_grad")
    assert grad.attrs["has_dcs"] is use_c
    assert len(grad.inputs) == 9 + use_c  # x w r hs cs gates dhs [dcs] h0 c0


@pytest.fixture
def two_threads():
    """At least two threads for the kernels, so that a big enough batch is split."""
    before = pd.get_num_threads()
    pd.set_num_threads(max(2, before))
    yield
    pd.set_num_threads(before)


@pytest.mark.parametrize("use_mask, use_rdrop", [(False, False), (True, False), (True, True)])
def test_lstm_over_threads_matches_reference(two_threads, use_mask, use_rdrop):
    # The LSTM kernel keeps each thread's previous h and recurrent product in buffers of
    # its own (forward), and each thread computes dx and its share of the kernel and
    # recurrent-kernel gradients over its own rows (backward): a batch big enough to split,
    # initial states, masked steps and recurrent dropout; float64 against the NumPy cell
    # and central differences, float32 against float64.
    n, t, f, u = 64, 5, 3, 4
    x, k, rk, b = rand(n, t, f), rand(f, 4 * u, seed=1), rand(u, 4 * u, seed=2), rand(4 * u, seed=3)
    h0, c0 = rand(n, u, seed=4), rand(n, u, seed=5)
    rng = np.random.default_rng(6)
    mask = (rng.random((n, t)) > 0.3) * 1.0 if use_mask else np.ones((n, t))
    rd = rng.random((n, u)) * 2 if use_rdrop else np.ones((n, u))
    hs, cs = ref_masked(lstm_step(k, rk, b), x, h0, c0, mask, rd)

    def fn(dtype):
        def build(xv, kv, rkv, bv, h0v, c0v):
            return pd.lstm(xv, kv, rkv, bv, [h0v, c0v], return_sequences=True,
                           return_state=True,
                           mask=pd.constant(mask, dtype) if use_mask else None,
                           recurrent_dropout_mask=pd.constant(rd, dtype) if use_rdrop else None)
        return build

    arrays = [x, k, rk, b, h0, c0]
    got = pd.eval(fn("float64")(*[c64(a) for a in arrays]))
    for a, w in zip(got, [hs, hs[:, -1], cs[:, -1]]):
        np.testing.assert_allclose(a, w, rtol=1e-10, atol=1e-12)
    check_gradients(fn("float64"), arrays)

    # float32 against float64: outputs and every gradient.
    weights = rand(n, t, u, seed=7)
    results = {}
    for dtype in ("float32", "float64"):
        vs = [pd.data(f"over_threads_{i}_{dtype}", a.shape, dtype) for i, a in enumerate(arrays)]
        seq = fn(dtype)(*vs)[0]
        loss = pd.sum(seq * pd.constant(weights, dtype))
        results[dtype] = pd.eval([seq] + pd.gradients(loss, vs),
                                 {v: a.astype(dtype) for v, a in zip(vs, arrays)})
    for a, w in zip(results["float32"], results["float64"]):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, w, rtol=1e-4, atol=1e-4 * np.abs(w).max())


@pytest.mark.parametrize("kind", ["lstm", "gru", "gru_classic"])
@pytest.mark.parametrize("masked", [False, True])
def test_bias_gradient_of_a_batch_over_threads(kind, masked):
    # The bias gradients are summed by each thread over its own rows during the backward
    # pass and added after it: enough rows to split them, against a central difference of
    # the float64 loss along a random direction, and float32 against float64.
    n, t, f, u = 64, 6, 5, 8
    g = 4 if kind == "lstm" else 3
    x, k, rk = rand(n, t, f), rand(f, g * u, seed=1), rand(u, g * u, seed=2)
    b = rand(2, 3 * u, seed=3) if kind == "gru" else rand(g * u, seed=3)
    mask = (np.random.default_rng(6).random((n, t)) > 0.3) * 1.0 if masked else None

    def loss(dtype, bias):
        bv = pd.data(f"b_{kind}_{masked}_{dtype}", bias.shape, dtype)
        extra = {"mask": pd.constant(mask, dtype)} if masked else {}
        args = [pd.constant(a, dtype) for a in (x, k, rk)] + [bv]
        seq = pd.lstm(*args, return_sequences=True, **extra) if kind == "lstm" else \
            pd.gru(*args, return_sequences=True, reset_after=kind == "gru", **extra)
        total = pd.sum(seq * seq)
        return total, bv

    results = {}
    for dtype in ("float32", "float64"):
        total, bv = loss(dtype, b)
        db, = pd.gradients(total, [bv])
        results[dtype] = pd.eval(db, {bv: b.astype(dtype)})
    direction = rand(*b.shape, seed=9)
    total, bv = loss("float64", b)
    eps = 1e-5
    plus = pd.eval(total, {bv: b + eps * direction})
    minus = pd.eval(total, {bv: b - eps * direction})
    numeric = (plus - minus) / (2 * eps)
    assert np.sum(results["float64"] * direction) == pytest.approx(numeric, rel=1e-7)
    np.testing.assert_allclose(results["float32"], results["float64"], rtol=1e-4,
                               atol=1e-4 * np.abs(results["float64"]).max())


def test_second_order_is_explicit():
    x = pd.data("x", shape=[1, 2, 1], dtype="float64")
    k, rk, b = c64(np.ones((1, 4))), c64(np.ones((1, 4))), c64(np.zeros(4))
    gx, = pd.gradients(pd.sum(pd.lstm(x, k, rk, b)), [x])
    with pytest.raises(NotImplementedError, match="lstm: second-order gradients"):
        pd.gradients(pd.sum(gx), [x])


@pytest.mark.parametrize("fn,match", [
    (lambda x: pd.lstm(pd.data("x2", [None, 3]), *[pd.constant(np.ones(s, np.float32)) for s in
                                                   [(3, 8), (2, 8), (8,)]]),
     r"lstm: expected a 3-D input \(batch, time, features\): x is \(None, 3\)"),
    (lambda x: pd.lstm(x, *[pd.constant(np.ones(s, np.float32)) for s in [(4, 8), (2, 8), (8,)]]),
     r"lstm: expected kernel of shape \(3, 8\).*kernel is \(4, 8\)"),
    (lambda x: pd.lstm(x, *[pd.constant(np.ones(s, np.float32)) for s in [(3, 8), (2, 6), (8,)]]),
     r"lstm: expected recurrent_kernel of shape \(2, 8\)"),
    (lambda x: pd.gru(x, *[pd.constant(np.ones(s, np.float32)) for s in [(3, 6), (2, 6), (6,)]]),
     r"gru: expected bias of shape \(2, 6\)"),
    (lambda x: pd.gru(x, *[pd.constant(np.ones(s, np.float32)) for s in [(3, 6), (2, 6), (6,)]],
                      initial_state=pd.constant(np.ones((1, 3), np.float32)), reset_after=False),
     r"gru: expected initial state 0 of shape \(None, 2\)"),
    (lambda x: pd.lstm(x, *[pd.constant(np.ones(s, np.float32)) for s in [(3, 8), (2, 8), (8,)]],
                       initial_state=[pd.constant(np.ones((1, 2), np.float32))]),
     r"lstm: expected 2 initial state tensor\(s\) \(\[h, c\]\), received 1"),
])
def test_shape_errors(fn, match):
    with pytest.raises(pd.ShapeError, match=match):
        fn(pd.data("x", [None, 5, 3]))


def test_empty_batch():
    x = pd.data("x", shape=[None, 3, 2])
    k, rk, b = (pd.constant(np.ones(s, np.float32)) for s in [(2, 8), (2, 8), (8,)])
    out = pd.lstm(x, k, rk, b, return_sequences=True)
    gk, = pd.gradients(pd.sum(out), [k])
    got, got_gk = pd.eval([out, gk], {x: np.zeros((0, 3, 2), np.float32)})
    assert got.shape == (0, 3, 2) and not got_gk.any()


# ---- masks and recurrent dropout ---------------------------------------------------------

def ref_masked(step, x, h, c, mask, rd):
    """Keras's masked recurrence over a NumPy cell `step(x_t, h_rec, h, c) -> (h, c)`: a
    masked step keeps (and outputs) the previous state; `rd` multiplies h in the product."""
    hs, cs = [], []
    for t in range(x.shape[1]):
        nh, nc = step(x[:, t], h * rd, h, c)
        keep = mask[:, t:t + 1] > 0
        h, c = np.where(keep, nh, h), np.where(keep, nc, c)
        hs.append(h)
        cs.append(c)
    return np.stack(hs, 1), np.stack(cs, 1)


def lstm_step(k, rk, b):
    u = rk.shape[0]

    def step(xt, hr, h, c):
        z = xt @ k + hr @ rk + b
        i, f, o = sig(z[:, :u]), sig(z[:, u:2 * u]), sig(z[:, 3 * u:])
        c = f * c + i * np.tanh(z[:, 2 * u:3 * u])
        return o * np.tanh(c), c
    return step


def gru_step(k, rk, b, reset_after):
    u = rk.shape[0]
    b_in, b_rec = (b[0], b[1]) if reset_after else (b, np.zeros_like(b))

    def step(xt, hr, h, c):
        xp = xt @ k + b_in
        if reset_after:
            rec = hr @ rk + b_rec
            z, r = sig(xp[:, :u] + rec[:, :u]), sig(xp[:, u:2 * u] + rec[:, u:2 * u])
            hh = np.tanh(xp[:, 2 * u:] + r * rec[:, 2 * u:])
        else:
            z = sig(xp[:, :u] + hr @ rk[:, :u])
            r = sig(xp[:, u:2 * u] + hr @ rk[:, u:2 * u])
            hh = np.tanh(xp[:, 2 * u:] + (r * hr) @ rk[:, 2 * u:])
        return z * h + (1 - z) * hh, c
    return step


MASK = np.array([[1, 1, 0, 0], [0, 1, 1, 1], [1, 0, 1, 0]], dtype=np.float64)
RDROP = np.array([[2.0, 0.0], [1.0, 2.0], [0.0, 0.0]])


@pytest.mark.parametrize("kind", ["lstm", "gru", "gru_classic"])
@pytest.mark.parametrize("use_mask, use_rdrop", [(True, False), (False, True), (True, True)])
def test_mask_and_recurrent_dropout_match_keras_cells(kind, use_mask, use_rdrop):
    g = 4 if kind == "lstm" else 3
    x, k, rk = rand(N, T, F), rand(F, g * U, seed=1), rand(U, g * U, seed=2)
    b = rand(2, 3 * U, seed=3) if kind == "gru" else rand(g * U, seed=3)
    h0, c0 = rand(N, U, seed=4), rand(N, U, seed=5)
    mask = MASK if use_mask else np.ones((N, T))
    rd = RDROP if use_rdrop else np.ones((N, U))
    step = lstm_step(k, rk, b) if kind == "lstm" else gru_step(k, rk, b, kind == "gru")
    hs, cs = ref_masked(step, x, h0, c0, mask, rd)
    extra = {"mask": c64(MASK) if use_mask else None,
             "recurrent_dropout_mask": c64(RDROP) if use_rdrop else None}
    if kind == "lstm":
        seq, h, c = pd.lstm(c64(x), c64(k), c64(rk), c64(b), [c64(h0), c64(c0)],
                            return_sequences=True, return_state=True, **extra)
        got = pd.eval([seq, h, c])
        want = [hs, hs[:, -1], cs[:, -1]]
    else:
        seq, h = pd.gru(c64(x), c64(k), c64(rk), c64(b), c64(h0), return_sequences=True,
                        return_state=True, reset_after=kind == "gru", **extra)
        got, want = pd.eval([seq, h]), [hs, hs[:, -1]]
    for a, w in zip(got, want):
        np.testing.assert_allclose(a, w, rtol=1e-10, atol=1e-12)

    # Gradients through time, masked steps and dropped products included.
    def fn(xv, kv, rkv, bv, h0v, c0v):
        states = [h0v, c0v] if kind == "lstm" else h0v
        op = pd.lstm if kind == "lstm" else pd.gru
        kw = {} if kind == "lstm" else {"reset_after": kind == "gru"}
        out = op(xv, kv, rkv, bv, states, return_sequences=True, return_state=True, **kw,
                 **extra)
        return out
    check_gradients(fn, [x, k, rk, b, h0, c0], wrt=[0, 1, 2, 3, 4] + ([5] if kind == "lstm"
                                                                         else []))


def test_mask_and_dropout_shapes_are_checked():
    x = pd.data("mx", shape=[None, 5, 3])
    k, rk, b = pd.Variable("mk", shape=[3, 8]), pd.Variable("mrk", shape=[2, 8]), \
        pd.Variable("mb", shape=[8])
    with pytest.raises(pd.ShapeError, match=r"lstm: expected the mask of shape \(None, 5\)"):
        pd.lstm(x, k, rk, b, mask=pd.data("m4", shape=[None, 4]))
    with pytest.raises(pd.ShapeError, match=r"expected the recurrent dropout of shape"):
        pd.lstm(x, k, rk, b, recurrent_dropout_mask=pd.data("rd3", shape=[None, 3]))
    bool_mask = pd.data("mbool", shape=[None, 5], dtype="bool")
    assert pd.lstm(x, k, rk, b, mask=bool_mask).shape == (None, 2)  # cast to x's dtype


# ---- the float32 cell on vectors (csrc/nn/gate_math.h) -------------------------------------

def cell_activations(v):
    """sigmoid(v) and tanh(v) as the float32 LSTM cell computes them. The kernel is the
    identity, so the gates' pre-activations are x: with c0 = 1 and i = sigmoid(-100) ~ 0,
    c = sigmoid(f); with c0 = 0 and i = sigmoid(100) = 1, c = tanh(c~)."""
    u, big = v.size, np.full(v.size, 100.0)
    x = np.stack([np.concatenate([-big, v, np.zeros(u), np.zeros(u)]),
                  np.concatenate([big, -big, v, np.zeros(u)])])[:, None, :]
    c0 = np.stack([np.ones(u), np.zeros(u)])

    def f32(a):
        return pd.constant(np.asarray(a, np.float32))
    _, _, c = pd.lstm(f32(x), f32(np.eye(4 * u)), f32(np.zeros((u, 4 * u))),
                      f32(np.zeros(4 * u)), initial_state=[f32(np.zeros((2, u))), f32(c0)],
                      return_state=True)
    return pd.eval(c)


def float32_ulps(got, v):
    """The error of float32 sigmoid and tanh of float32 v, in float32 ulps of the exact."""
    v = v.astype(np.float64)
    want = np.stack([1 / (1 + np.exp(-v)), np.tanh(v)])
    return np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32))


ACTIVATION_POINTS = np.concatenate([np.linspace(-30, 30, 601), np.logspace(-8, 0.5, 200),
                                    -np.logspace(-8, 0.5, 200), [0.39, 0.4, 0.41, -0.4]])


def test_float32_sigmoid_and_tanh_within_two_ulps():
    # The CPU cell's polynomial exp (1.8 ulps at worst here) against the exact values, as
    # close as an std::exp-based float32 sigmoid: NumPy's and the CUDA kernels' expf are
    # 2.2 ulps off at worst on these points; tanh within 1.5.
    v = ACTIVATION_POINTS.astype(np.float32)  # 1005 units: vector lanes and a tail
    ulps = float32_ulps(cell_activations(v), v)
    assert ulps[0].max() <= 2.5 and ulps[1].max() <= 2.0
    assert float32_ulps(cell_activations(v[:3]), v[:3]).max() <= 2.5  # the tail alone


def float32_against_float64(u, kind="lstm", n=5, t=6, f=7):
    """The outputs and gradients of an LSTM or GRU (kind "gru" or "gru_classic") in float32
    (the vector activations) and in float64 (std::exp), masked steps and recurrent dropout
    included."""
    g = 4 if kind == "lstm" else 3
    bias = rand(2, 3 * u, seed=3) if kind == "gru" else rand(g * u, seed=3)
    arrays = [rand(n, t, f), rand(f, g * u, seed=1), rand(u, g * u, seed=2, scale=0.3), bias,
              rand(n, u, seed=4), rand(n, u, seed=5)]
    if kind != "lstm":
        arrays.pop()
    mask = (np.random.default_rng(6).random((n, t)) > 0.3).astype(np.float64)
    rdrop = (np.random.default_rng(7).random((n, u)) > 0.2) * 1.25
    results = []
    for dtype in ("float32", "float64"):
        inputs = [pd.data(f"vc_{kind}_{i}_{dtype}", a.shape, dtype) for i, a in enumerate(arrays)]
        outs = []
        for extra in ({}, {"mask": pd.constant(mask, dtype),
                           "recurrent_dropout_mask": pd.constant(rdrop, dtype)}):
            if kind == "lstm":
                x, k, rk, b, h0, c0 = inputs
                seq, h, c = pd.lstm(x, k, rk, b, [h0, c0], return_sequences=True,
                                    return_state=True, **extra)
                loss = pd.sum(seq * seq) + pd.sum(h) + pd.sum(c * c)
                outs += [seq, h, c]
            else:
                x, k, rk, b, h0 = inputs
                seq, h = pd.gru(x, k, rk, b, h0, return_sequences=True, return_state=True,
                                reset_after=kind == "gru", **extra)
                loss = pd.sum(seq * seq) + pd.sum(h)
                outs += [seq, h]
            outs += pd.gradients(loss, inputs)
        results.append(pd.eval(outs, {v: a.astype(dtype) for v, a in zip(inputs, arrays)}))
    return results


@pytest.mark.parametrize("kind", ["lstm", "gru", "gru_classic"])
@pytest.mark.parametrize("u", [16, 37])
def test_float32_vector_cell_matches_float64(u, kind):
    # 16 units fill whole AVX-512 vectors; 37 leaves a tail on every width.
    got, want = float32_against_float64(u, kind)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4 * np.abs(w).max())


NARROW_SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import test_recurrent as tr
v = tr.ACTIVATION_POINTS.astype(np.float32)
assert tr.float32_ulps(tr.cell_activations(v), v).max() <= 2.0  # the CPU cell: 1.8
for kind in ("lstm", "gru", "gru_classic"):
    got, want = tr.float32_against_float64(37, kind)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4 * np.abs(w).max())
"""


@pytest.mark.parametrize("vector_bytes", ["16", "32"])
def test_narrower_vector_builds(vector_bytes):
    # The cell is built for SSE2, AVX2 and AVX-512 and runs the widest the CPU has; the
    # narrower builds (what older CPUs run) must be as accurate.
    here = Path(__file__).parent
    paths = [str(Path(pd.__file__).parents[1]), str(here.parents[1])] + \
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PADDLE_VECTOR_BYTES=vector_bytes,
               PYTHONPATH=os.pathsep.join(paths))
    subprocess.run([sys.executable, "-c", NARROW_SCRIPT, str(here)], env=env, check=True,
                   cwd=str(Path(pd.__file__).parents[1]))
