"""Conv3D, Conv3DTranspose, the 3-D poolings and the adaptive poolings: outputs against
Keras 3.15.1 (JAX backend) for the same inputs and weights (the constants: the first
outputs, the sum and the sum of squares it printed, with `set_sine_weights(layer, 0.7)`),
the one-call layer test, saving and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers as L
from layer_test import check_figures, run_layer_test, set_sine_weights

RNG = np.random.default_rng(0)
X3 = RNG.normal(size=(2, 4, 5, 6, 3)).astype(np.float32)
X3F = X3.transpose(0, 4, 1, 2, 3).copy()

KERAS = [  # (layer, input, output shape, first six outputs, sum, sum of squares)
    (lambda: L.Conv3D(4, (2, 3, 2), strides=(1, 2, 1), padding='same'), X3, (2, 4, 3, 6, 4),
     [-2.20088, -0.9343, 0.7717, 2.11475, 0.92767, -0.52482], 172.6638, 1749.5037),
    (lambda: L.Conv3D(3, 2, dilation_rate=(1, 2, 2), groups=3), X3, (2, 3, 3, 4, 3),
     [1.21393, 1.75706, 0.87481, -0.05345, 0.97342, 0.41767], 95.7814, 257.5811),
    (lambda: L.Conv3D(4, 2, data_format='channels_first'), X3F, (2, 4, 3, 4, 5),
     [0.05511, 0.71471, 0.5512, -2.06797, 1.24162, 0.03705], 118.7202, 1334.0641),
    (lambda: L.Conv3DTranspose(4, 3, strides=2, padding='same'), X3, (2, 8, 10, 12, 4),
     [0.69374, 0.41565, 0.14569, 0.29487, 0.33603, 0.30727], 2348.5938, 9150.8145),
    (lambda: L.Conv3DTranspose(2, (2, 3, 2), strides=(2, 1, 3), output_padding=(1, 0, 2)), X3, (2, 9, 7, 19, 2),
     [0.69374, 0.41565, 0.2287, 0.76992, 0.42074, 0.49583], 2194.7539, 2980.4353),
    (lambda: L.Conv3DTranspose(3, 2, strides=2, data_format='channels_first'), X3F, (2, 3, 8, 10, 12),
     [0.69374, 0.69482, 0.42636, 0.42431, 0.37905, 0.3951], 2408.7454, 3167.6096),
    (lambda: L.MaxPooling3D((2, 2, 3), strides=(1, 2, 2), padding='same'), X3, (2, 4, 3, 3, 3),
     [1.36646, 1.57441, 1.42098, 1.304, 0.94708, 1.42098], 277.3016, 452.2661),
    (lambda: L.AveragePooling3D(2, padding='same'), X3, (2, 2, 3, 3, 3),
     [-0.14438, 0.23055, 0.18052, 0.02501, -0.00467, 0.13108], -0.1088, 21.1845),
    (lambda: L.AveragePooling3D(2, data_format='channels_first'), X3, (2, 4, 2, 3, 1),
     [0.21478, -0.00245, -0.53545, -0.2413, 0.18726, 0.33204], -2.1512, 4.7724),
    (lambda: L.AdaptiveAveragePooling3D((2, 3, 4)), X3, (2, 2, 3, 4, 3),
     [-0.14438, 0.23055, 0.18052, 0.48848, -0.1662, 0.0724], -2.8383, 15.7297),
    (lambda: L.AdaptiveMaxPooling3D((3, 2, 4)), X3, (2, 3, 2, 4, 3),
     [1.49343, 1.57441, 1.51392, 1.49343, 1.32246, 1.51392], 229.1758, 417.0648),
    (lambda: L.AdaptiveAveragePooling2D((3, 4)), X3[:, 0], (2, 3, 4, 3),
     [0.50218, -0.07261, 0.30625, 0.91971, -0.03994, -0.18353], 3.8921, 16.3075),
    (lambda: L.AdaptiveMaxPooling2D(3, data_format='channels_first'), X3[:, 0], (2, 5, 3, 3),
     [0.12573, -0.1321, 0.64042, 1.304, 0.94708, 0.04133], 64.4191, 96.3711),
    (lambda: L.AdaptiveAveragePooling1D(3), X3[:, 0, 0], (2, 3, 3),
     [0.11532, -0.33389, 0.50101, 0.01929, 0.1619, -0.3312], -2.0787, 6.6702),
    (lambda: L.AdaptiveMaxPooling1D(4), X3[:, 0, 0], (2, 4, 3),
     [0.12573, -0.1321, 0.64042, 1.304, 0.94708, 0.3616], 6.4177, 17.1702),
]


@pytest.mark.parametrize("make, x, shape, first, total, squares", KERAS)
def test_matches_keras(make, x, shape, first, total, squares):
    layer = make()
    layer(L.Input(shape=x.shape[1:]))
    set_sine_weights(layer, 0.7)
    check_figures(np.asarray(layer(x)), shape, first, total, squares, atol=2e-4,
                  total_abs=2e-2, squares_rel=1e-4)


@pytest.mark.parametrize("cls, kwargs, shape, out, trainable", [
    (L.Conv3D, {"filters": 2, "kernel_size": 2}, (2, 3, 4, 4, 3), (None, 2, 3, 3, 2), 2),
    (L.Conv3D, {"filters": 2, "kernel_size": 3, "padding": "same", "use_bias": False,
                "data_format": "channels_first"}, (2, 3, 4, 4, 3), (None, 2, 4, 4, 3), 1),
    (L.Conv3DTranspose, {"filters": 2, "kernel_size": 2, "strides": 2}, (2, 2, 3, 3, 4),
     (None, 4, 6, 6, 2), 2),
    (L.MaxPooling3D, {"pool_size": 2}, (2, 4, 4, 4, 2), (None, 2, 2, 2, 2), 0),
    (L.AveragePooling3D, {"pool_size": (1, 2, 2), "strides": 1}, (2, 3, 4, 4, 2),
     (None, 3, 3, 3, 2), 0),
    (L.AdaptiveAveragePooling1D, {"output_size": 2}, (2, 5, 3), (None, 2, 3), 0),
    (L.AdaptiveMaxPooling2D, {"output_size": (2, 3)}, (2, 5, 7, 3), (None, 2, 3, 3), 0),
    (L.AdaptiveMaxPooling3D, {"output_size": 2, "data_format": "channels_first"},
     (2, 3, 4, 5, 6), (None, 3, 2, 2, 2), 0),
])
def test_layer(cls, kwargs, shape, out, trainable):
    run_layer_test(cls, kwargs, shape, out, trainable)


def test_weights_as_keras_and_saving(tmp_path):
    conv = L.Conv3D(3, (2, 3, 1), groups=1)
    up = L.Conv3DTranspose(2, 2, strides=(1, 2, 2))
    model = pd.Sequential([L.Input(shape=(4, 5, 6, 2)), conv, L.MaxPooling3D((1, 2, 2)), up,
                           L.AdaptiveAveragePooling3D((2, 2, 3)), L.AveragePooling3D(2),
                           L.Flatten(), L.Dense(1)])
    assert [(w.name.split("/")[-1], w.shape) for w in conv.weights] == [
        ("kernel", (2, 3, 1, 2, 3)), ("bias", (3,))]
    assert up.kernel.shape == (2, 2, 2, 2, 3)  # (k..., filters, in_channels), as Keras
    x = RNG.normal(size=(2, 4, 5, 6, 2)).astype(np.float32)
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))
    assert (L.Convolution3D, L.Convolution3DTranspose) == (L.Conv3D, L.Conv3DTranspose)
    assert (L.MaxPool3D, L.AvgPool3D) == (L.MaxPooling3D, L.AveragePooling3D)


def test_config_is_kerass():
    config = L.Conv3DTranspose(4, 3, strides=2, output_padding=1).get_config()
    assert config["output_padding"] == (1, 1, 1) and "groups" not in config
    assert config["kernel_size"] == (3, 3, 3) and config["dilation_rate"] == (1, 1, 1)
    config = L.AdaptiveAveragePooling2D(3).get_config()
    assert config["output_size"] == (3, 3) and config["data_format"] == "channels_last"
    assert L.MaxPooling3D().get_config()["pool_size"] == (2, 2, 2)


@pytest.mark.parametrize("make, message", [
    (lambda: L.Conv3D(4, (2, 2)), "kernel_size as an int >= 1 or a tuple of 3"),
    (lambda: L.Conv3D(4, 2, padding="causal"), "padding 'valid' or 'same'"),
    (lambda: L.Conv3D(5, 2, groups=2), "divisible by groups"),
    (lambda: L.Conv3DTranspose(4, 2, strides=2, output_padding=2), "smaller than strides"),
    (lambda: L.Conv3DTranspose(4, 2, groups=2), "unexpected argument groups"),
    (lambda: L.MaxPooling3D(0), "pool_size as an int >= 1"),
    (lambda: L.AveragePooling3D(2, data_format="NDHWC"), "data_format"),
    (lambda: L.AdaptiveMaxPooling2D((2, 2, 2)), "output_size as an int >= 1 or a tuple of 2"),
    (lambda: L.AdaptiveAveragePooling1D(0), "output_size"),
])
def test_bad_arguments(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


@pytest.mark.parametrize("layer, shape, message", [
    (lambda: L.Conv3D(2, 2), (4, 4, 3), "rank 5"),
    (lambda: L.Conv3D(2, 5), (4, 4, 4, 3), "larger than the input"),
    (lambda: L.Conv3DTranspose(2, 2), (None, 4, 4, 3), "known spatial sizes"),
    (lambda: L.MaxPooling3D(3), (2, 4, 4, 1), "larger than"),
    (lambda: L.AdaptiveMaxPooling3D(2), (4, 4, 1), "rank 5"),
    (lambda: L.AdaptiveAveragePooling2D(2), (None, 4, 1), "known spatial sizes"),
])
def test_bad_inputs_name_the_layer_and_line(layer, shape, message):
    with pytest.raises(pd.ShapeError, match=message) as info:
        layer()(L.Input(shape=shape))
    assert "test_layers_3d_conv_pooling.py" in str(info.value)
