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
    with pytest.raises(pd.ShapeError, match="needs a known number of timesteps"):
        rnn(layers.Input(shape=(None, 3)))
    rnn(layers.Input(shape=(4, 3)))
    with pytest.raises(pd.ShapeError, match=r"r: expected an input of shape \(batch, timesteps, "
                                            r"3\), received \(None, 4, 2\)"):
        rnn(layers.Input(shape=(4, 2)))
    with pytest.raises(ValueError, match=r"r: expected 1 initial state\(s\), received 2"):
        rnn(layers.Input(shape=(4, 3)), initial_state=[layers.Input(shape=(2,))] * 2)
    with pytest.raises(pd.ShapeError, match=r"initial states of shape \(batch, 2\)"):
        rnn(layers.Input(shape=(4, 3)), initial_state=layers.Input(shape=(3,)))
    with pytest.raises(TypeError, match="Bidirectional: expected a recurrent layer"):
        layers.Bidirectional(layers.Dense(3))
    with pytest.raises(ValueError, match="Bidirectional: expected merge_mode"):
        layers.Bidirectional(layers.SimpleRNN(3), merge_mode="max")
