"""DepthwiseConv1D, SeparableConv1D/2D, Conv1DTranspose: outputs against Keras 3.15.1 (JAX
backend) for the same inputs and weights (the constants: the first outputs, the sum and the
sum of squares it printed), the one-call layer test, saving and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import check_figures, run_layer_test, set_sine_weights

RNG = np.random.default_rng(0)
X2 = RNG.normal(size=(2, 6, 5, 3)).astype(np.float32)
X1 = RNG.normal(size=(2, 7, 3)).astype(np.float32)


KERAS = [  # (layer, input, output shape, first six outputs, sum, sum of squares)
    (lambda: layers.SeparableConv2D(4, (3, 2), strides=(1, 2), padding="same",
                                    depth_multiplier=2), X2, (2, 6, 3, 4),
     [0.41966, 0.28805, 0.02095, -0.25599, 0.80572, 0.97604], 9.0168, 31.475),
    (lambda: layers.SeparableConv1D(4, 3, padding="same", depth_multiplier=2,
                                    dilation_rate=2), X1, (2, 7, 4),
     [0.46087, 0.37597, 0.11424, -0.20121, 0.55634, 0.2248], 6.6879, 9.759),
    (lambda: layers.DepthwiseConv1D(3, strides=2, depth_multiplier=2, padding="same"), X1,
     (2, 4, 6), [0.42426, 0.56434, 0.74694, 0.20418, -0.35903, -0.3465], 6.6181, 24.134),
    (lambda: layers.Conv1DTranspose(4, 3, strides=2, padding="same"), X1, (2, 14, 4),
     [0.38692, 0.12535, 0.74562, -0.02057, 0.05461, 0.90687], 36.256, 72.804),
    (lambda: layers.Conv1DTranspose(2, 4, strides=3, output_padding=1), X1, (2, 23, 2),
     [0.38692, 0.12535, 0.82862, 0.45447, 0.05461, 0.90687], 41.1662, 59.535),
]


@pytest.mark.parametrize("make, x, shape, first, total, squares", KERAS,
                         ids=["sep2d", "sep1d", "depthwise1d", "transpose1d", "output_padding"])
def test_matches_keras(make, x, shape, first, total, squares):
    layer = make()
    layer(layers.Input(shape=x.shape[1:]))
    set_sine_weights(layer, 0.7)
    check_figures(layer(x), shape, first, total, squares, squares_rel=1e-4)


@pytest.mark.parametrize("cls, kwargs, shape, out, trainable", [
    (layers.SeparableConv2D, {"filters": 4, "kernel_size": 3}, (2, 6, 6, 3),
     (None, 4, 4, 4), 3),
    (layers.SeparableConv2D, {"filters": 2, "kernel_size": 2, "use_bias": False,
                              "data_format": "channels_first"}, (2, 3, 5, 5),
     (None, 2, 4, 4), 2),
    (layers.SeparableConv1D, {"filters": 4, "kernel_size": 3, "strides": 2}, (2, 9, 3),
     (None, 4, 4), 3),
    (layers.DepthwiseConv1D, {"kernel_size": 2, "depth_multiplier": 3}, (2, 5, 2),
     (None, 4, 6), 2),
    (layers.Conv1DTranspose, {"filters": 3, "kernel_size": 2, "strides": 2}, (2, 5, 4),
     (None, 10, 3), 2),
    (layers.Conv1DTranspose, {"filters": 3, "kernel_size": 3,
                              "data_format": "channels_first"}, (2, 4, 5), (None, 3, 7), 2),
])
def test_layer(cls, kwargs, shape, out, trainable):
    run_layer_test(cls, kwargs, shape, out, trainable)


def test_weight_names_and_saving(tmp_path):
    sep = layers.SeparableConv2D(4, 3, depth_multiplier=2)
    model = pd.Sequential([layers.Input(shape=(8, 8, 3)), sep, layers.Reshape((36, 4)),
                           layers.Conv1DTranspose(2, 3), layers.DepthwiseConv1D(3),
                           layers.SeparableConv1D(2, 2)])
    assert [w.name.split("/")[-1] for w in sep.weights] == [
        "depthwise_kernel", "pointwise_kernel", "bias"]
    x = RNG.normal(size=(2, 8, 8, 3)).astype(np.float32)
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))
    assert pd.layers.SeparableConvolution2D is pd.layers.SeparableConv2D


def test_constraints_hold_after_training():
    sep = layers.SeparableConv1D(2, 2, depthwise_constraint="non_neg",
                                 pointwise_constraint="non_neg")
    depthwise = layers.DepthwiseConv1D(2, depthwise_constraint="non_neg")
    model = pd.Sequential([layers.Input(shape=(6, 3)), sep, depthwise, layers.Flatten(),
                           layers.Dense(1)])
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    x = RNG.normal(size=(8, 6, 3)).astype(np.float32)
    model.fit(x, RNG.normal(size=(8, 1)).astype(np.float32), epochs=3, verbose=0)
    for w in sep.get_weights()[:2] + depthwise.get_weights()[:1]:
        assert np.all(np.isfinite(w)) and w.min() >= 0 and w.max() > 0
    assert sep.get_config()["pointwise_constraint"]["class_name"] == "NonNeg"


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.SeparableConv2D(0, 3), ValueError,
     "SeparableConv2D: expected a positive integer filters, received 0"),
    (lambda: layers.SeparableConv1D(2, 3, padding="causal"), ValueError,
     "SeparableConv1D: expected padding 'valid' or 'same', received 'causal'"),
    (lambda: layers.DepthwiseConv1D(3, depth_multiplier=0), ValueError,
     "DepthwiseConv1D: expected a positive integer depth_multiplier"),
    (lambda: layers.DepthwiseConv1D(3, filters=2), TypeError, "unexpected argument filters"),
    (lambda: layers.Conv1DTranspose(2, 3, strides=2, output_padding=2), ValueError,
     "Conv1DTranspose: output_padding 2 must be smaller than strides 2"),
    (lambda: layers.SeparableConv2D(2, 3)(layers.Input(shape=(5, 3))), pd.ShapeError,
     "expected an input of rank 4"),
    (lambda: layers.DepthwiseConv1D(5)(layers.Input(shape=(3, 2))), pd.ShapeError,
     "larger than the input"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()
