"""Convolution layers: one-call layer tests, NumPy references, argument and shape errors."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test

RNG = np.random.default_rng(3)


def same_pads(n, k, s, d):
    eff = (k - 1) * d + 1
    total = max((-(-n // s) - 1) * s + eff - n, 0)
    return total // 2, total - total // 2


def conv2d_ref(x, w, strides=(1, 1), padding="valid", dilation=(1, 1), groups=1):
    """Naive NHWC convolution: loops over outputs, one dot product each."""
    kh, kw, cg, out = w.shape
    if padding == "same":
        (t, b), (l, r) = (same_pads(x.shape[1], kh, strides[0], dilation[0]),
                          same_pads(x.shape[2], kw, strides[1], dilation[1]))
        x = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    n, h, wd, c = x.shape
    oh = (h - (kh - 1) * dilation[0] - 1) // strides[0] + 1
    ow = (wd - (kw - 1) * dilation[1] - 1) // strides[1] + 1
    og = out // groups
    y = np.zeros((n, oh, ow, out))
    for i in range(oh):
        for j in range(ow):
            rows = i * strides[0] + dilation[0] * np.arange(kh)
            cols = j * strides[1] + dilation[1] * np.arange(kw)
            patch = x[:, rows][:, :, cols]                     # (n, kh, kw, c)
            for g in range(groups):
                p = patch[..., g * cg:(g + 1) * cg].reshape(n, -1)
                k = w[..., g * og:(g + 1) * og].reshape(-1, og)
                y[:, i, j, g * og:(g + 1) * og] = p @ k
    return y


def conv2d_transpose_ref(x, w, s):
    """Valid transposed convolution by scattering each input pixel through the kernel."""
    n, h, wd, c = x.shape
    kh, kw, out, _ = w.shape
    y = np.zeros((n, (h - 1) * s + kh, (wd - 1) * s + kw, out))
    for i in range(h):
        for j in range(wd):
            y[:, i * s:i * s + kh, j * s:j * s + kw] += np.einsum("nc,aboc->nabo",
                                                                  x[:, i, j], w)
    return y


# ---- one-call layer tests ----------------------------------------------------------------

@pytest.mark.parametrize("kwargs, in_shape, out_shape", [
    ({"filters": 4, "kernel_size": 3}, (2, 9, 8, 3), (None, 7, 6, 4)),
    ({"filters": 4, "kernel_size": (3, 2), "strides": 2, "padding": "same"}, (2, 9, 8, 3),
     (None, 5, 4, 4)),
    ({"filters": 4, "kernel_size": 3, "dilation_rate": 2, "activation": "relu"}, (2, 9, 8, 3),
     (None, 5, 4, 4)),
    ({"filters": 6, "kernel_size": 1, "groups": 3, "use_bias": False}, (2, 5, 5, 3),
     (None, 5, 5, 6)),
    ({"filters": 4, "kernel_size": 3, "data_format": "channels_first"}, (2, 3, 9, 8),
     (None, 4, 7, 6)),
])
def test_conv2d(kwargs, in_shape, out_shape):
    weights = 1 if kwargs.get("use_bias") is False else 2
    run_layer_test(layers.Conv2D, kwargs, in_shape, out_shape, weights)


@pytest.mark.parametrize("kwargs, out_shape", [
    ({"filters": 5, "kernel_size": 3}, (None, 8, 5)),
    ({"filters": 5, "kernel_size": 3, "padding": "causal", "dilation_rate": 2}, (None, 10, 5)),
    ({"filters": 5, "kernel_size": 3, "strides": 2, "padding": "same"}, (None, 5, 5)),
])
def test_conv1d(kwargs, out_shape):
    run_layer_test(layers.Conv1D, kwargs, (2, 10, 4), out_shape, 2)


@pytest.mark.parametrize("kwargs, out_shape", [
    ({"filters": 3, "kernel_size": 3}, (None, 7, 6, 3)),
    ({"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"}, (None, 10, 8, 3)),
    ({"filters": 3, "kernel_size": 3, "strides": 2, "output_padding": 1}, (None, 12, 10, 3)),
])
def test_conv2d_transpose(kwargs, out_shape):
    layer = run_layer_test(layers.Conv2DTranspose, kwargs, (2, 5, 4, 2), out_shape, 2)
    assert layer.kernel.shape == (3, 3, 3, 2)  # (kh, kw, filters, in), Keras's layout


@pytest.mark.parametrize("kwargs, out_shape", [
    ({"kernel_size": 3}, (None, 4, 5, 3)),
    ({"kernel_size": 3, "depth_multiplier": 2, "padding": "same", "strides": 2},
     (None, 3, 4, 6)),
])
def test_depthwise_conv2d(kwargs, out_shape):
    layer = run_layer_test(layers.DepthwiseConv2D, kwargs, (2, 6, 7, 3), out_shape, 2)
    assert layer.kernel.shape == (3, 3, 3, kwargs.get("depth_multiplier", 1))


# ---- numbers ------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {"strides": (1, 2)},
    {"padding": "same", "strides": 2},
    {"dilation_rate": 2},
    {"groups": 2},
])
def test_conv2d_matches_a_naive_loop(kwargs):
    x = RNG.normal(size=(2, 7, 8, 4)).astype(np.float32)
    layer = layers.Conv2D(6, 3, bias_initializer="ones", **kwargs)
    y = layer(x)
    ref = conv2d_ref(x.astype(np.float64), layer.kernel.val().astype(np.float64),
                     layer.strides, layer.padding, layer.dilation_rate, layer.groups) + 1.0
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


def test_depthwise_conv2d_matches_per_channel_convolutions():
    x = RNG.normal(size=(2, 6, 6, 3)).astype(np.float32)
    layer = layers.DepthwiseConv2D(3, depth_multiplier=2, use_bias=False)
    y = layer(x)
    k = layer.kernel.val()                                    # (3, 3, C, M)
    for c in range(3):
        for m in range(2):
            ref = conv2d_ref(x[..., c:c + 1], k[:, :, c:c + 1, m:m + 1])
            np.testing.assert_allclose(y[..., c * 2 + m], ref[..., 0], rtol=1e-4, atol=1e-4)


def test_conv2d_transpose_matches_scattering():
    x = RNG.normal(size=(2, 3, 4, 2)).astype(np.float32)
    layer = layers.Conv2DTranspose(3, 3, strides=2, use_bias=False)
    np.testing.assert_allclose(layer(x), conv2d_transpose_ref(x, layer.kernel.val(), 2),
                               rtol=1e-4, atol=1e-4)


def test_conv1d_causal_sees_no_future():
    x = RNG.normal(size=(1, 6, 2)).astype(np.float32)
    layer = layers.Conv1D(3, 3, padding="causal")
    y = layer(x)
    x2 = x.copy()
    x2[:, 4:] += 1.0                                          # change the last two steps only
    np.testing.assert_allclose(layer(x2)[:, :4], y[:, :4], rtol=1e-6)
    k = layer.kernel.val()
    padded = np.pad(x[0], ((2, 0), (0, 0)))
    ref = np.stack([np.einsum("kc,kco->o", padded[t:t + 3], k) for t in range(6)])
    np.testing.assert_allclose(y[0], ref, rtol=1e-4, atol=1e-4)


# ---- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("cls, kwargs, words", [
    (layers.Conv2D, {"filters": 0, "kernel_size": 3}, "positive integer filters"),
    (layers.Conv2D, {"filters": 4, "kernel_size": 0}, "kernel_size"),
    (layers.Conv2D, {"filters": 4, "kernel_size": 3, "padding": "full"}, "padding"),
    (layers.Conv2D, {"filters": 4, "kernel_size": 3, "padding": "causal"}, "padding"),
    (layers.Conv2D, {"filters": 4, "kernel_size": (3, 3, 3)}, "kernel_size"),
    (layers.Conv2D, {"filters": 5, "kernel_size": 3, "groups": 2}, "divisible by groups"),
    (layers.Conv2D, {"filters": 4, "kernel_size": 3, "data_format": "NHWC"}, "data_format"),
    (layers.Conv2DTranspose, {"filters": 4, "kernel_size": 3, "output_padding": 1},
     "smaller than strides"),
    (layers.DepthwiseConv2D, {"kernel_size": 3, "depth_multiplier": -1}, "depth_multiplier"),
])
def test_bad_arguments(cls, kwargs, words):
    with pytest.raises(ValueError, match=words) as info:
        cls(**kwargs)
    assert cls.__name__ in str(info.value)


def test_bad_input_shapes():
    conv = layers.Conv2D(4, 3, name="c2")
    with pytest.raises(pd.ShapeError, match=r"c2: expected an input of rank 4.*\(None, 8, 3\)"):
        conv(layers.Input(shape=(8, 3)))
    with pytest.raises(pd.ShapeError, match=r"c2: the kernel \(3, 3\).*larger than"):
        conv(layers.Input(shape=(2, 8, 3)))
    conv(layers.Input(shape=(8, 8, 3)))
    with pytest.raises(pd.ShapeError, match=r"c2: expected the last axis of the input to be 3"):
        conv(layers.Input(shape=(8, 8, 5)))
    with pytest.raises(pd.ShapeError, match="not divisible by groups"):
        layers.Conv2D(4, 1, groups=2)(layers.Input(shape=(4, 4, 3)))
