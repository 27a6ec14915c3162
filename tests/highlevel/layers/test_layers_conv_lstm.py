"""ConvLSTM1D/2D/3D: outputs against Keras 3.15.1 (JAX backend) for the same inputs and
weights (`set_sine_weights(layer, 0.3)`; the constants: the first outputs, the sum and the
sum of squares it printed), the one-call layer test, states, masks, a gradient check,
config and bad arguments. (.keras files both ways: tests/highlevel/saving.)"""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers as L
from gradcheck import check_gradients
from layer_test import check_figures, run_layer_test, set_sine_weights

RNG = np.random.default_rng(0)
X2 = RNG.normal(size=(2, 3, 5, 6, 2)).astype(np.float32)
X1 = RNG.normal(size=(2, 4, 7, 3)).astype(np.float32)
X3 = RNG.normal(size=(2, 2, 3, 4, 4, 2)).astype(np.float32)

KERAS = [  # (layer, input, output shape, first six outputs, sum, sum of squares)
    ("L.ConvLSTM2D(3, (2, 3), padding='same', return_sequences=True)", 'X2', (2, 3, 5, 6, 3), [0.10217, 6e-05, -0.06121, 0.2896, 0.28416, 0.23274], -8.9395, 10.4641),
    ('L.ConvLSTM2D(2, 3, strides=(2, 1))', 'X2', (2, 2, 4, 2), [-0.0306, -0.02798, 0.41798, 0.37709, -0.09719, -0.09529], 2.5229, 1.9964),
    ("L.ConvLSTM2D(2, 2, data_format='channels_first', go_backwards=True, activation='relu')", 'X2.transpose(0, 1, 4, 2, 3).copy()', (2, 2, 4, 5), [0.44533, 0.3817, 0.01141, 0.01598, 0.26061, 0.00092], 23.1784, 28.7314),
    ("L.ConvLSTM1D(4, 3, dilation_rate=2, padding='same', return_sequences=True, use_bias=False)", 'X1', (2, 4, 7, 4), [0.13107, 0.14136, 0.13915, 0.11795, -0.18587, -0.11239], -11.7829, 5.4601),
    ("L.ConvLSTM3D(2, 2, padding='same')", 'X3', (2, 3, 4, 4, 2), [0.10039, 0.09616, 0.38434, 0.03263, -0.11921, -0.10628], 12.3512, 7.4809),
]


@pytest.mark.parametrize("make, x, shape, first, total, squares", KERAS)
def test_matches_keras(make, x, shape, first, total, squares):
    layer, x = eval(make), eval(x)
    layer(L.Input(shape=x.shape[1:]))
    set_sine_weights(layer, 0.3)
    check_figures(np.asarray(layer(x)), shape, first, total, squares, squares_rel=1e-4)


def test_states_are_kerass():
    layer = L.ConvLSTM2D(3, 2, return_state=True)
    layer(L.Input(shape=X2.shape[1:]))
    set_sine_weights(layer, 0.3)
    out, h, c = layer(X2)
    assert [round(float(np.asarray(v).sum()), 4) for v in (out, h, c)] == \
        [-1.8262, -1.8262, -20.5156]
    # starting from the final states of the first half runs the sequence on
    again = L.ConvLSTM2D(3, 2, return_state=True)
    again(L.Input(shape=X2.shape[1:]))
    again.set_weights(layer.get_weights())
    _, h1, c1 = again(X2[:, :2])
    np.testing.assert_allclose(np.asarray(again(X2[:, 2:], initial_state=[h1, c1])[0]),
                               np.asarray(out), atol=1e-5)


@pytest.mark.parametrize("cls, kwargs, shape, out", [
    (L.ConvLSTM2D, {"filters": 2, "kernel_size": 3}, (2, 3, 5, 5, 2), (None, 3, 3, 2)),
    (L.ConvLSTM2D, {"filters": 2, "kernel_size": 2, "padding": "same",
                    "return_sequences": True, "data_format": "channels_first"},
     (2, 3, 2, 4, 4), (None, 3, 2, 4, 4)),
    (L.ConvLSTM1D, {"filters": 3, "kernel_size": 2, "strides": 2}, (2, 3, 6, 2),
     (None, 3, 3)),
    (L.ConvLSTM3D, {"filters": 2, "kernel_size": 2}, (2, 2, 3, 3, 3, 1),
     (None, 2, 2, 2, 2)),
])
def test_layer(cls, kwargs, shape, out):
    run_layer_test(cls, kwargs, shape, out, 3)


def test_masked_steps_keep_the_states():
    layer = L.ConvLSTM1D(2, 2, return_sequences=True)
    layer(L.Input(shape=X1.shape[1:]))
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)
    out = np.asarray(layer(X1, mask=mask))
    np.testing.assert_array_equal(out[0, 2], out[0, 1])
    np.testing.assert_allclose(out[0, :2], np.asarray(layer(X1[:1, :2]))[0], atol=1e-6)


def test_stateful_runs_on():
    layer = L.ConvLSTM1D(2, 2, stateful=True)
    inp = L.Input(batch_shape=(2, 2) + X1.shape[2:])
    model = pd.Model(inp, layer(inp))
    whole = L.ConvLSTM1D(2, 2)
    whole(L.Input(shape=X1.shape[1:]))
    whole.set_weights(layer.get_weights())
    model.predict(X1[:, :2], verbose=0)
    np.testing.assert_allclose(model.predict(X1[:, 2:], verbose=0), np.asarray(whole(X1)),
                               atol=1e-5)
    layer.reset_states()
    np.testing.assert_allclose(model.predict(X1[:, :2], verbose=0),
                               np.asarray(whole(X1[:, :2])), atol=1e-5)


def test_gradient():
    layer = L.ConvLSTM2D(2, 2, padding="same", return_sequences=True, dtype="float64")
    layer(L.Input(shape=(2, 3, 3, 2), dtype="float64"))
    set_sine_weights(layer, 0.3)
    layer.set_weights([w.astype(np.float64) for w in layer.get_weights()])
    check_gradients(lambda x: layer(x), [RNG.normal(size=(2, 2, 3, 3, 2))])


def test_config_and_weights_are_kerass():
    layer = L.ConvLSTM2D(3, 2, strides=(2, 1), unit_forget_bias=False, dropout=0.1)
    layer.build((None, 4, 5, 6, 2))
    assert [(w.name.split("/")[-1], w.shape) for w in layer.weights] == [
        ("kernel", (2, 2, 2, 12)), ("recurrent_kernel", (2, 2, 3, 12)), ("bias", (12,))]
    config = layer.get_config()
    assert "units" not in config and config["filters"] == 3
    assert (config["kernel_size"], config["strides"], config["unit_forget_bias"]) == \
        ((2, 2), (2, 1), False)
    assert config["recurrent_activation"] == "sigmoid" and config["dropout"] == 0.1
    assert L.ConvLSTM2D.from_config(config).get_config() == config
    forget = L.ConvLSTM1D(2, 2)
    forget.build((None, 3, 5, 1))
    np.testing.assert_array_equal(forget.bias.val(), [0, 0, 1, 1, 0, 0, 0, 0])


@pytest.mark.parametrize("make, message", [
    (lambda: L.ConvLSTM2D(0, 2), "positive integer units"),
    (lambda: L.ConvLSTM2D(2, (2, 2, 2)), "kernel_size as an int >= 1 or a tuple of 2"),
    (lambda: L.ConvLSTM2D(2, 2, strides=2, dilation_rate=2), "not compatible"),
    (lambda: L.ConvLSTM1D(2, 2, padding="causal"), "padding 'valid' or 'same'"),
    (lambda: L.ConvLSTM3D(2, 2, dropout=1.5), "dropout as a rate"),
    (lambda: L.ConvLSTM2D(2, 2, unit_forget_bias="yes"), "unit_forget_bias"),
])
def test_bad_arguments(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


@pytest.mark.parametrize("shape, message", [
    ((3, 5, 5), "rank 5"),
    ((None, 5, 5, 2), "known"),
    ((3, None, 5, 2), "known"),
    ((3, 1, 5, 2), "larger than"),
])
def test_bad_inputs_name_the_layer_and_line(shape, message):
    with pytest.raises(pd.ShapeError, match=message) as info:
        L.ConvLSTM2D(2, 2)(L.Input(shape=shape))
    assert "test_layers_conv_lstm.py" in str(info.value)
