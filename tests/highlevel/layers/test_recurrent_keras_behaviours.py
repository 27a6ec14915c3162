"""Recurrent layers as Keras 3.15 runs them (issue #31): LSTM and GRU with any activation
and recurrent_activation (the op-composed cell where the fused kernel has tanh/sigmoid
only), `implementation=` accepted, SimpleRNN over an unknown number of timesteps.

The expected outputs were computed once with real Keras 3.15.1 (JAX backend, CPU) on the
same input and weights (NumPy's default_rng, drawn in the same order; see each test).
"""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.layers.recurrent import lstm_step, unroll, zero_states
from gradcheck import check_gradients

# keras.layers.<cls>(3, **kwargs), built on (None, 4, 5), weights normal * 0.5, then called
# on x, all from default_rng(1): x first, then each case's weights in order.
ACTIVATION_CASES = [
    ("LSTM", dict(activation="relu", recurrent_activation="hard_sigmoid"),
     [[0.059121, 0.208714, 0.206567], [0.0, 0.047173, 0.372936]]),
    ("LSTM", dict(activation="softsign", recurrent_activation="sigmoid", go_backwards=True),
     [[0.108775, 0.01773, -0.159819], [-0.045202, 0.084185, 0.004971]]),
    ("GRU", dict(activation="relu", recurrent_activation="sigmoid"),
     [[0.213658, 0.013735, 0.479661], [0.140851, 0.434028, 0.052627]]),
    ("GRU", dict(activation="tanh", recurrent_activation="hard_sigmoid", reset_after=False),
     [[0.018625, 0.181848, 0.259976], [-0.482102, 0.907383, 0.848542]]),
    ("GRU", dict(activation="elu", recurrent_activation="sigmoid", return_sequences=True),
     [[[-0.02701, 0.126699, -0.289844], [0.119971, -0.256458, -0.157924],
       [0.381029, -0.195624, 0.38553], [0.146539, -0.443879, 0.189042]],
      [[0.461155, -0.417832, 0.882688], [0.496208, -0.598815, 0.956159],
       [1.55101, -0.770633, 0.977694], [0.889009, -0.715036, 0.884251]]]),
]


def test_lstm_and_gru_with_other_activations_match_keras():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 4, 5)).astype("float32")
    for cls, kwargs, expected in ACTIVATION_CASES:
        layer = getattr(pd.layers, cls)(3, **kwargs)
        layer(pd.Input((4, 5)))
        layer.set_weights([rng.normal(size=w.shape).astype("float32") * 0.5
                           for w in layer.get_weights()])
        assert not layer.fused
        np.testing.assert_allclose(np.asarray(layer(x)), expected, atol=2e-6,
                                   err_msg=f"{cls} {kwargs}")


def test_default_activations_keep_the_fused_kernel_and_configs_round_trip():
    assert pd.layers.LSTM(3).fused and pd.layers.GRU(3, activation=pd.activations.tanh).fused
    layer = pd.layers.LSTM(3, activation="relu", recurrent_activation="hard_sigmoid")
    config = layer.get_config()
    assert (config["activation"], config["recurrent_activation"]) == ("relu", "hard_sigmoid")
    again = pd.layers.LSTM.from_config(config)
    assert not again.fused and again._recurrent_activation_name == "hard_sigmoid"


def test_other_activations_train_and_mask_like_the_cell():
    pd.seed(0)
    x = np.random.default_rng(0).normal(size=(8, 5, 2)).astype("float32")
    x[:4, 3:] = 0
    model = pd.Sequential([pd.Input((5, 2)), pd.layers.Masking(0.0),
                           pd.layers.GRU(3, activation="relu", recurrent_dropout=0.2)])
    model.compile("adam", "mse")
    losses = model.fit(x, np.ones((8, 3), np.float32), epochs=5, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    layer = model.layers[1]   # masked steps keep the state: the padding changes nothing
    np.testing.assert_allclose(model.predict(x[:4], verbose=0),
                               np.asarray(layer(x[:4, :3])), rtol=1e-5, atol=1e-6)


def test_op_composed_lstm_gradients():
    rng = np.random.default_rng(3)
    act = pd.activations.get("relu")
    gate = pd.activations.get("hard_sigmoid")

    def run(x, k, rk, b):
        states = zero_states(x, [2, 2])
        return unroll(lambda x_t, s: (lambda h, c: (h, [h, c]))(
            *lstm_step(x_t, s[0], s[1], k, rk, b, 2, act, gate)), x, states,
            return_sequences=True)[0]
    check_gradients(run, [rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 8)) * 0.5,
                          rng.normal(size=(2, 8)) * 0.5, rng.normal(size=(8,)) * 0.5])


def test_implementation_is_accepted_as_keras_accepts_it():
    for cls in (pd.layers.LSTM, pd.layers.GRU, pd.layers.LSTMCell, pd.layers.GRUCell):
        for value in (1, 2):
            layer = cls(3, implementation=value)
            assert layer.implementation == value
            assert "implementation" not in layer.get_config()    # as Keras's configs
        with pytest.raises(ValueError, match=f"{cls.__name__}: expected implementation 1 or "
                                             f"2, received 'x'"):
            cls(3, implementation="x")
    with pytest.raises(TypeError, match="SimpleRNN: unexpected arguments implementation"):
        pd.layers.SimpleRNN(3, implementation=1)       # Keras refuses it too


def test_simple_rnn_over_an_unknown_number_of_timesteps_matches_keras():
    # Keras 3.15: Sequential([Input((None, 3)), Masking(0.0), SimpleRNN(4)]), weights
    # normal * 0.5 from default_rng(2) after x (2, 5, 3) with x[0, 3:] = 0.
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    x[0, 3:] = 0
    layer = pd.layers.SimpleRNN(4)
    model = pd.Sequential([pd.Input((None, 3)), pd.layers.Masking(0.0), layer])
    layer.set_weights([rng.normal(size=w.shape).astype("float32") * 0.5
                       for w in layer.get_weights()])
    assert model.outputs[0].shape == (None, 4)
    np.testing.assert_allclose(model.predict(x, verbose=0), [
        [-0.318607, 0.470536, 0.960547, -0.758743],
        [0.459042, -0.368774, 0.937079, -0.997699]], atol=2e-6)
    np.testing.assert_allclose(model.predict(x[:, :4], verbose=0), [
        [-0.318607, 0.470536, 0.960547, -0.758743],
        [-0.821127, -0.961399, 0.363932, 0.968099]], atol=2e-6)


def test_simple_rnn_unknown_timesteps_trains_as_the_unrolled_layer():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 6, 3)).astype("float32")
    y = rng.normal(size=(4, 6, 2)).astype("float32")
    histories = []
    for steps in (None, 6):
        pd.seed(1)
        model = pd.Sequential([pd.Input((steps, 3)),
                               pd.layers.SimpleRNN(2, return_sequences=True,
                                                   go_backwards=True, recurrent_dropout=0.1,
                                                   seed=3)])
        model.compile("sgd", "mse")
        histories.append(model.fit(x, y, epochs=3, verbose=0).history["loss"])
    np.testing.assert_allclose(histories[0], histories[1], rtol=1e-6)


def test_simple_rnn_with_another_activation_still_needs_the_timesteps():
    with pytest.raises(pd.ShapeError, match="SimpleRNN with activation 'relu' is unrolled and "
                                            "needs a known number of timesteps"):
        pd.layers.SimpleRNN(2, activation="relu")(pd.Input((None, 3)))


# ---- stateful=True -------------------------------------------------------------------------

def _stateful_gru():
    # keras.Sequential([keras.Input(batch_shape=(2, 3, 3)), GRU(2, stateful=True)]), weights
    # normal * 0.5 from default_rng(5) after x (2, 6, 3).
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 6, 3)).astype("float32")
    layer = pd.layers.GRU(2, stateful=True)
    model = pd.Sequential([pd.Input(batch_shape=(2, 3, 3)), layer])
    layer.set_weights([rng.normal(size=w.shape).astype("float32") * 0.5
                       for w in layer.get_weights()])
    return x, layer, model


# Keras 3.15.1: model(x[:, 3:]) after model(x[:, :3]) (the state carried over).
CARRIED = [[-0.519111, -0.044061], [-0.65085, 0.436939]]


def test_stateful_calls_carry_the_state_as_keras():
    x, layer, model = _stateful_gru()
    first = np.asarray(model(x[:, :3]))
    np.testing.assert_allclose(first, [[-0.201355, -0.049261], [-0.46224, 0.158699]],
                               atol=2e-6)                         # Keras's states after it
    np.testing.assert_allclose(layer.states[0].numpy(), first, atol=1e-7)
    np.testing.assert_allclose(np.asarray(model(x[:, 3:])), CARRIED, atol=2e-6)
    layer.reset_states()
    assert not layer.states[0].numpy().any()
    np.testing.assert_allclose(np.asarray(model(x[:, :3])), first, atol=1e-7)


def test_stateful_state_is_carried_across_predict_and_fit_batches():
    # Keras's documented rule (its TensorFlow backend's behaviour): batch i + 1 starts
    # where batch i ended. (Keras 3.15 on JAX keeps the states only in direct calls.)
    x, layer, model = _stateful_gru()
    both = np.concatenate([x[:, :3], x[:, 3:]], axis=0)
    np.testing.assert_allclose(model.predict(both, batch_size=2, verbose=0)[2:], CARRIED,
                               atol=2e-6)
    layer.reset_states()
    model.compile("sgd", "mse")
    model.fit(x[:, :3], np.zeros((2, 2), np.float32), batch_size=2, verbose=0)
    assert layer.states[0].numpy().any()
    assert len(model.weights) == 3          # the states are not weights (nor saved)


def test_stateful_eager_layer_chunks_equal_the_whole_sequence():
    x = np.random.default_rng(0).normal(size=(2, 6, 3)).astype("float32")
    for cls in ("SimpleRNN", "LSTM", "GRU"):
        whole = getattr(pd.layers, cls)(4)
        expected = np.asarray(whole(x))
        chunked = getattr(pd.layers, cls)(4, stateful=True)
        chunked(x[:, :3])
        chunked.set_weights(whole.get_weights())
        chunked.reset_states()
        chunked(x[:, :3])
        np.testing.assert_allclose(np.asarray(chunked(x[:, 3:])), expected, atol=1e-6)
        assert chunked.get_config()["stateful"] is True


def test_stateful_needs_a_batch_size():
    with pytest.raises(ValueError, match=r"when using `stateful=True` in a RNN, the batch size "
                                         r"must be static. Found dynamic batch size: "
                                         r"sequence.shape=\(None, 3, 2\)"):      # Keras's words
        pd.layers.LSTM(3, stateful=True)(pd.Input((3, 2)))
    x, layer, model = _stateful_gru()
    with pytest.raises(pd.ShapeError, match=r"expects shape \(2, 3, 3\), received \(3, 3, 3\)"):
        model.predict(np.zeros((3, 3, 3), np.float32), verbose=0)
    with pytest.raises(ValueError, match="batch size of the input sequences must be the same "
                                         "as the batch size of the initial state. Expected "
                                         "batch size: 2, received batch size: 4"):
        layer(pd.Input(batch_shape=(4, 3, 3)))
