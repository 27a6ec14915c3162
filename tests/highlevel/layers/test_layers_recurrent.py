"""Recurrent layers: one-call layer tests, NumPy references (Keras's equations and gate
orders), initial states, Bidirectional, argument and shape errors."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test

RNG = np.random.default_rng(17)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def simple_rnn_ref(x, kernel, recurrent, bias, h=None):
    h = np.zeros((x.shape[0], kernel.shape[1])) if h is None else h
    outs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent + bias)
        outs.append(h)
    return np.stack(outs, 1)


# ---- SimpleRNN ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, out_shape", [
    ({"units": 4}, (None, 4)),
    ({"units": 4, "return_sequences": True, "activation": "relu"}, (None, 5, 4)),
    ({"units": 4, "return_state": True, "go_backwards": True}, [(None, 4), (None, 4)]),
    ({"units": 4, "use_bias": False, "return_sequences": True, "return_state": True},
     [(None, 5, 4), (None, 4)]),
])
def test_simple_rnn(kwargs, out_shape):
    weights = 2 if kwargs.get("use_bias") is False else 3
    run_layer_test(layers.SimpleRNN, kwargs, (2, 5, 3), out_shape, weights)


def test_simple_rnn_matches_numpy():
    rnn = layers.SimpleRNN(4, return_sequences=True, bias_initializer="glorot_uniform")
    x = RNG.normal(size=(2, 5, 3)).astype(np.float32)
    y = rnn(x)
    kernel, recurrent, bias = rnn.get_weights()
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(4), atol=1e-5)  # orthogonal
    np.testing.assert_allclose(y, simple_rnn_ref(x, kernel, recurrent, bias), rtol=1e-4,
                               atol=1e-5)
    h0 = RNG.normal(size=(2, 4)).astype(np.float32)
    np.testing.assert_allclose(rnn(x, initial_state=[h0]),
                               simple_rnn_ref(x, kernel, recurrent, bias, h0), rtol=1e-4,
                               atol=1e-5)
    back = layers.SimpleRNN.from_config({**rnn.get_config(), "go_backwards": True,
                                         "name": "back"})
    back(x)
    back.set_weights(rnn.get_weights())
    np.testing.assert_allclose(back(x), simple_rnn_ref(x[:, ::-1], kernel, recurrent, bias),
                               rtol=1e-4, atol=1e-5)


def test_initial_state_as_model_input():
    """States passed as initial_state are inputs of the functional graph (replayable)."""
    x, h0 = layers.Input(shape=(5, 3)), layers.Input(shape=(4,))
    rnn = layers.SimpleRNN(4)
    model = pd.Model([x, h0], rnn(x, initial_state=h0))
    xs = RNG.normal(size=(2, 5, 3)).astype(np.float32)
    hs = RNG.normal(size=(2, 4)).astype(np.float32)
    expected = simple_rnn_ref(xs, *rnn.get_weights(), hs)[:, -1]
    np.testing.assert_allclose(model.predict_on_batch([xs, hs]), expected, rtol=1e-4, atol=1e-5)
    x2, h2 = layers.Input(shape=(5, 3)), layers.Input(shape=(4,))
    np.testing.assert_allclose(pd.eval(model([x2, h2]), {x2: xs, h2: hs}), expected, rtol=1e-4,
                               atol=1e-5)


def lstm_ref(x, kernel, recurrent, bias, h=None, c=None):
    """Keras's LSTM: gates i, f, c, o in that order along the 4U axis."""
    n, u = x.shape[0], recurrent.shape[0]
    h = np.zeros((n, u)) if h is None else h
    c = np.zeros((n, u)) if c is None else c
    outs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = (z[:, k * u:(k + 1) * u] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), h, c


def gru_ref(x, kernel, recurrent, bias, reset_after=True, h=None):
    """Keras's GRU: gates z, r, h along the 3U axis."""
    n, u = x.shape[0], recurrent.shape[0]
    h = np.zeros((n, u)) if h is None else h
    b_in, b_rec = (bias[0], bias[1]) if reset_after else (bias, np.zeros(3 * u))
    outs = []
    for t in range(x.shape[1]):
        xz = x[:, t] @ kernel + b_in
        split = [slice(k * u, (k + 1) * u) for k in range(3)]
        if reset_after:
            inner = h @ recurrent + b_rec
            z = sigmoid(xz[:, split[0]] + inner[:, split[0]])
            r = sigmoid(xz[:, split[1]] + inner[:, split[1]])
            hh = np.tanh(xz[:, split[2]] + r * inner[:, split[2]])
        else:
            z = sigmoid(xz[:, split[0]] + h @ recurrent[:, split[0]])
            r = sigmoid(xz[:, split[1]] + h @ recurrent[:, split[1]])
            hh = np.tanh(xz[:, split[2]] + (r * h) @ recurrent[:, split[2]])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1), h


# ---- LSTM and GRU -------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, out_shape", [
    ({"units": 4}, (None, 4)),
    ({"units": 4, "return_sequences": True}, (None, 5, 4)),
    ({"units": 4, "return_state": True, "go_backwards": True}, [(None, 4)] * 3),
    ({"units": 3, "use_bias": False, "unit_forget_bias": False}, (None, 3)),
])
def test_lstm(kwargs, out_shape):
    weights = 2 if kwargs.get("use_bias") is False else 3
    layer = run_layer_test(layers.LSTM, kwargs, (2, 5, 3), out_shape, weights)
    u = kwargs["units"]
    assert [w.shape for w in layer.weights][:2] == [(3, 4 * u), (u, 4 * u)]


@pytest.mark.parametrize("kwargs, out_shape, bias", [
    ({"units": 4}, (None, 4), (2, 12)),
    ({"units": 4, "reset_after": False, "return_sequences": True}, (None, 5, 4), (12,)),
    ({"units": 4, "return_state": True}, [(None, 4)] * 2, (2, 12)),
])
def test_gru(kwargs, out_shape, bias):
    layer = run_layer_test(layers.GRU, kwargs, (2, 5, 3), out_shape, 3)
    assert layer.bias.shape == bias


def test_lstm_matches_numpy_with_keras_gate_order():
    lstm = layers.LSTM(3, return_sequences=True, return_state=True)
    x = RNG.normal(size=(2, 4, 5)).astype(np.float32)
    lstm(x)
    bias = lstm.bias.val()
    np.testing.assert_array_equal(bias, np.r_[np.zeros(3), np.ones(3), np.zeros(6)])  # f = 1
    lstm.bias.set_value(RNG.normal(size=12).astype(np.float32))
    # One step first: the gate order shows at once.
    weights = [w.astype(np.float64) for w in lstm.get_weights()]
    one = layers.LSTM.from_config({**lstm.get_config(), "name": "one_step"})
    one(x[:, :1])
    one.set_weights(lstm.get_weights())
    seq, h, c = one(x[:, :1])
    ref = lstm_ref(x[:, :1].astype(np.float64), *weights)
    for got, want in zip((seq, h, c), ref):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    h0 = RNG.normal(size=(2, 3)).astype(np.float32)
    c0 = RNG.normal(size=(2, 3)).astype(np.float32)
    got = lstm(x, initial_state=[h0, c0])
    for g, want in zip(got, lstm_ref(x.astype(np.float64), *weights, h0, c0)):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_numpy(reset_after):
    gru = layers.GRU(3, reset_after=reset_after, return_sequences=True,
                     bias_initializer="glorot_uniform")
    x = RNG.normal(size=(2, 4, 5)).astype(np.float32)
    y = gru(x)
    weights = [w.astype(np.float64) for w in gru.get_weights()]
    np.testing.assert_allclose(y, gru_ref(x, *weights, reset_after)[0], rtol=1e-4, atol=1e-5)
    h0 = RNG.normal(size=(2, 3)).astype(np.float32)
    np.testing.assert_allclose(gru(x, initial_state=h0),
                               gru_ref(x, *weights, reset_after, h0)[0], rtol=1e-4, atol=1e-5)


def test_lstm_trains_with_unknown_timesteps():
    inp = layers.Input(shape=(None, 3))
    lstm = layers.LSTM(4)
    model = pd.Model(inp, layers.Dense(1)(lstm(inp)))
    model.compile(optimizer="sgd", loss="mse")
    before = lstm.recurrent_kernel.val()
    for steps in (3, 6):
        loss = model.train_on_batch(RNG.normal(size=(2, steps, 3)).astype(np.float32),
                                    np.ones((2, 1), np.float32))
        assert np.isfinite(loss)
    assert not np.array_equal(before, lstm.recurrent_kernel.val())


# ---- Bidirectional ------------------------------------------------------------------------

@pytest.mark.parametrize("inner, merge_mode, out_shape, weights", [
    ({"units": 3, "return_sequences": True}, "concat", (None, 5, 6), 6),
    ({"units": 3}, "sum", (None, 3), 6),
    ({"units": 3, "return_sequences": True}, "ave", (None, 5, 3), 6),
    ({"units": 3, "use_bias": False}, "mul", (None, 3), 4),
    ({"units": 3, "return_state": True}, None, [(None, 3)] * 4, 6),
])
def test_bidirectional(inner, merge_mode, out_shape, weights):
    run_layer_test(layers.Bidirectional, {"layer": layers.SimpleRNN(**inner),
                                          "merge_mode": merge_mode},
                   (2, 5, 4), out_shape, weights)


def test_bidirectional_lstm_and_gru():
    run_layer_test(layers.Bidirectional, {"layer": layers.LSTM(3, return_sequences=True)},
                   (2, 5, 4), (None, 5, 6), 6)
    run_layer_test(layers.Bidirectional, {"layer": layers.GRU(3, return_state=True),
                                          "merge_mode": "sum"},
                   (2, 5, 4), [(None, 3)] * 3, 6)


def test_bidirectional_matches_two_directions():
    bi = layers.Bidirectional(layers.SimpleRNN(3, return_sequences=True))
    x = RNG.normal(size=(2, 5, 4)).astype(np.float32)
    y = bi(x)
    fk, fr, fb, bk, br, bb = bi.get_weights()
    forward = simple_rnn_ref(x, fk, fr, fb)
    backward = simple_rnn_ref(x[:, ::-1], bk, br, bb)[:, ::-1]  # aligned with the input steps
    np.testing.assert_allclose(y, np.concatenate([forward, backward], -1), rtol=1e-4, atol=1e-5)
    assert [w.name.split("/")[0] for w in bi.weights] == \
        [bi.forward_layer.name] * 3 + [bi.backward_layer.name] * 3
    assert bi.backward_layer.go_backwards and not bi.forward_layer.go_backwards


# ---- errors -------------------------------------------------------------------------------

def test_errors():
    with pytest.raises(ValueError, match="SimpleRNN: expected a positive integer units"):
        layers.SimpleRNN(0)
    rnn = layers.SimpleRNN(2, name="r")
    with pytest.raises(pd.ShapeError, match=r"r: expected an input of shape \(batch, timesteps, "
                                            r"features\), received \(None, 5\)"):
        rnn(layers.Input(shape=(5,)))
    # tanh runs over unknown timesteps (issue #31); other activations are unrolled.
    with pytest.raises(pd.ShapeError, match="needs a known number of timesteps"):
        layers.SimpleRNN(2, activation="relu")(layers.Input(shape=(None, 3)))
    rnn(layers.Input(shape=(4, 3)))
    with pytest.raises(pd.ShapeError, match=r"r: expected an input of shape \(batch, timesteps, "
                                            r"3\), received \(None, 4, 2\)"):
        rnn(layers.Input(shape=(4, 2)))
    with pytest.raises(ValueError, match=r"r: expected 1 initial state\(s\), received 2"):
        rnn(layers.Input(shape=(4, 3)), initial_state=[layers.Input(shape=(2,))] * 2)
    with pytest.raises(pd.ShapeError, match=r"initial states of shape \(batch, 2\)"):
        rnn(layers.Input(shape=(4, 3)), initial_state=layers.Input(shape=(3,)))
    # Other activations run the op-composed cell (issue #31), unrolled: known timesteps.
    with pytest.raises(pd.ShapeError, match=r"LSTM with activation 'relu' and "
                                            r"recurrent_activation 'sigmoid' runs op by op .* "
                                            r"received shape \(None, None, 3\)"):
        layers.LSTM(3, activation="relu")(layers.Input(shape=(None, 3)))
    with pytest.raises(ValueError, match="GRU: expected implementation 1 or 2, received 3"):
        layers.GRU(3, implementation=3)
    with pytest.raises(ValueError, match="GRU: expected a positive integer units"):
        layers.GRU(-2)
    lstm = layers.LSTM(2, name="l")
    lstm(layers.Input(shape=(4, 3)))
    with pytest.raises(ValueError, match=r"l: expected 2 initial state\(s\), received 1"):
        lstm(layers.Input(shape=(4, 3)), initial_state=layers.Input(shape=(2,)))
    with pytest.raises(TypeError, match="Bidirectional: expected a recurrent layer"):
        layers.Bidirectional(layers.Dense(3))
    with pytest.raises(ValueError, match="Bidirectional: expected merge_mode"):
        layers.Bidirectional(layers.SimpleRNN(3), merge_mode="max")
