"""SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells and the generic RNN layer: outputs
against Keras 3.15.1 (JAX backend; first outputs, sum and sum of squares it printed for the
same input and weights), a user-defined cell, masks, states, saving, bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import check_figures, run_layer_test, set_sine_weights

X = np.random.default_rng(2).normal(size=(2, 5, 3)).astype(np.float32)


KERAS = {  # name: (layer, output shape, first five, sum, sum of squares)
    "simple": (lambda: layers.RNN(layers.SimpleRNNCell(4), return_sequences=True), (2, 5, 4),
               [0.38541, 0.24384, -0.09671, -0.35352, 0.55708], -5.1076, 14.1812),
    "lstm_backwards": (lambda: layers.RNN(layers.LSTMCell(4), go_backwards=True), (2, 4),
                       [0.00208, -0.08652, -0.16685, -0.14242, 0.09592], -0.7458, 0.1491),
    "gru": (lambda: layers.RNN(layers.GRUCell(4), return_sequences=True), (2, 5, 4),
            [0.17578, 0.03114, -0.1747, -0.41363, -0.40244], -10.7449, 6.0609),
    "gru_reset_before": (lambda: layers.RNN(layers.GRUCell(3, reset_after=False)), (2, 3),
                         [0.47611, 0.31544, -0.23935, 0.44311, 0.28481], 0.9945, 0.7425),
    "stacked": (lambda: layers.RNN([layers.LSTMCell(4), layers.GRUCell(2, activation="relu")],
                                   return_sequences=True), (2, 5, 2),
                [0.48857, 0.20495, 0.76586, 0.25267, 0.9473], 13.5772, 10.5835),
}


@pytest.mark.parametrize("name", KERAS)
def test_matches_keras(name):
    make, shape, first, total, squares = KERAS[name]
    layer = make()
    layer(layers.Input(shape=(5, 3)))
    set_sine_weights(layer, 0.9)
    check_figures(layer(X), shape, first, total, squares, squares_abs=1e-3)


@pytest.mark.parametrize("cell, fused", [(lambda: layers.LSTMCell(4), lambda: layers.LSTM(
    4, return_sequences=True)), (lambda: layers.GRUCell(4), lambda: layers.GRU(
        4, return_sequences=True))])
def test_cells_agree_with_the_fused_layers(cell, fused):
    rnn, layer = layers.RNN(cell(), return_sequences=True), fused()
    rnn(X), layer(X)
    layer.set_weights(rnn.get_weights())
    np.testing.assert_allclose(rnn(X), layer(X), rtol=1e-5, atol=1e-6)


class MinimalRNNCell(layers.Layer):
    """The user-defined cell of Keras's RNN docstring."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        h = pd.matmul(inputs, self.kernel) + pd.matmul(states[0], self.recurrent_kernel)
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_user_defined_cell_trains_and_round_trips(tmp_path):
    pd.seed(0)
    cell = MinimalRNNCell(3)
    model = pd.Sequential([layers.Input(shape=(5, 3)), layers.RNN([cell, MinimalRNNCell(2)]),
                           layers.Dense(1)])
    k, u = [w.val() for w in cell.weights]
    h = np.zeros((2, 3), np.float32)
    for t in range(5):  # the recurrence by hand, for the first cell
        h = X[:, t] @ k + h @ u
    first = layers.RNN(cell, return_sequences=True)
    np.testing.assert_allclose(first(X)[:, -1], h, rtol=1e-5)
    model.compile(optimizer="adam", loss="mse")
    before = cell.get_weights()
    model.fit(X, np.ones((2, 1), np.float32), epochs=2, verbose=0)
    assert not np.array_equal(before[0], cell.get_weights()[0])
    model.save(tmp_path / "m.keras")
    loaded = pd.load_model(tmp_path / "m.keras",
                           custom_objects={"MinimalRNNCell": MinimalRNNCell})
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0),
                               rtol=1e-6)


def test_states_masks_and_outputs():
    inp = layers.Input(shape=(5, 3))
    h0, c0 = layers.Input(shape=(4,)), layers.Input(shape=(4,))
    rnn = layers.RNN(layers.LSTMCell(4), return_state=True)
    out, h, c = rnn(inp, initial_state=[h0, c0])
    assert out.shape == h.shape == c.shape == (None, 4) and out is not h
    model = pd.Model([inp, h0, c0], [out, h, c])
    zeros = np.zeros((2, 4), np.float32)
    got = model.predict([X, zeros, zeros], verbose=0)
    np.testing.assert_allclose(got[0], got[1])
    np.testing.assert_allclose(got[0], rnn.__class__(rnn.cell)(X), rtol=1e-6)
    other = model.predict([X, zeros + 1, zeros], verbose=0)[0]
    assert not np.allclose(other, got[0])
    # Masked (padded) trailing steps keep the state: the same as the unpadded sequence.
    ids = layers.Input(shape=(6,), dtype="int64")
    emb = layers.Embedding(10, 3, mask_zero=True)
    seq = layers.RNN(layers.GRUCell(2), return_sequences=True, zero_output_for_mask=True)
    last = layers.RNN(seq.cell)
    y_seq, y_last = pd.eval([seq(emb(ids)), last(emb(ids))],
                            {ids: np.array([[3, 4, 5, 0, 0, 0]])})
    short = layers.Input(shape=(3,), dtype="int64")
    want = pd.eval(last(emb(short)), {short: np.array([[3, 4, 5]])})
    np.testing.assert_allclose(y_last, want, rtol=1e-6)
    np.testing.assert_array_equal(y_seq[0, 3:], 0)


def test_cell_dropout_is_one_mask_per_sequence_in_training_only():
    cell = layers.SimpleRNNCell(3, dropout=0.5, recurrent_dropout=0.3, seed=1)
    rnn = layers.RNN(cell)
    inp = pd.data("x", shape=(None, 5, 3))
    y = rnn(inp)
    train = [pd.eval(y, {inp: X}, training=True) for _ in range(2)]
    infer = pd.eval(y, {inp: X})
    assert not np.allclose(train[0], train[1]) and not np.allclose(train[0], infer)
    np.testing.assert_array_equal(infer, pd.eval(y, {inp: X}))


@pytest.mark.parametrize("cls, kwargs, shape, out, trainable", [
    (layers.RNN, {"cell": layers.SimpleRNNCell(3)}, (2, 4, 2), (None, 3), 3),
    (layers.RNN, {"cell": layers.LSTMCell(3, unit_forget_bias=False),
                  "return_sequences": True}, (2, 4, 2), (None, 4, 3), 3),
    (layers.RNN, {"cell": layers.StackedRNNCells([layers.GRUCell(3), layers.GRUCell(2)]),
                  "go_backwards": True}, (2, 4, 2), (None, 2), 6),
])
def test_layer(cls, kwargs, shape, out, trainable):
    run_layer_test(cls, kwargs, shape, out, trainable)


def test_cell_configs_round_trip():
    for cell in (layers.SimpleRNNCell(3, activation="relu", dropout=0.1),
                 layers.LSTMCell(2, recurrent_activation="hard_sigmoid", seed=4),
                 layers.GRUCell(2, reset_after=False, use_bias=False),
                 layers.StackedRNNCells([layers.LSTMCell(2), layers.SimpleRNNCell(3)])):
        config = cell.get_config()
        again = type(cell).from_config(config).get_config()
        config.pop("name"), again.pop("name")
        if "cells" in config:
            for c in config["cells"] + again["cells"]:
                c["config"].pop("name")
        assert again == config
    assert layers.LSTMCell(3).state_size == [3, 3] and layers.GRUCell(3).state_size == 3


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.RNN(layers.Dense(3)), TypeError, "RNN: expected a cell"),
    (lambda: layers.RNN(layers.LSTMCell(2), stateful=True), ValueError,
     "RNN: stateful=True is not supported"),
    (lambda: layers.RNN(layers.LSTMCell(2), return_sequences="no"), ValueError,
     "RNN: expected return_sequences to be True or False"),
    (lambda: layers.LSTMCell(0), ValueError, "LSTMCell: expected a positive integer units"),
    (lambda: layers.GRUCell(2, dropout=1.5), ValueError, r"GRUCell: expected dropout as a "
     r"rate in \[0, 1\), received 1.5"),
    (lambda: layers.StackedRNNCells([]), ValueError, "StackedRNNCells: expected a non-empty"),
    (lambda: layers.RNN(layers.LSTMCell(2))(layers.Input(shape=(None, 3))), pd.ShapeError,
     "needs a known number of timesteps"),
    (lambda: layers.RNN(layers.LSTMCell(2))(layers.Input(shape=(4, 3)),
                                           initial_state=[layers.Input(shape=(2,))]),
     ValueError, r"expected 2 initial state\(s\), received 1"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_cell_regularizers_reach_the_losses():
    cell = layers.LSTMCell(2, kernel_regularizer=pd.regularizers.L2(0.5),
                           recurrent_constraint="non_neg")
    inp = layers.Input(shape=(3, 2))
    model = pd.Model(inp, layers.RNN(cell)(inp))
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.zeros((2, 3, 2), np.float32), np.zeros((2, 2), np.float32)
    kernel = cell.kernel.val()
    assert model.evaluate(x, y, verbose=0) == pytest.approx(0.5 * (kernel ** 2).sum(),
                                                             rel=1e-5)
    assert cell.get_config()["recurrent_constraint"]["class_name"] == "NonNeg"
