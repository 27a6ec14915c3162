"""UpSampling1D/2D, ZeroPadding1D/2D, Cropping1D/2D, RepeatVector, TimeDistributed:
one-call layer tests, NumPy references, gradients, a training step through each, errors."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from gradcheck import check_gradients
from layer_test import run_layer_test, train_through

RNG = np.random.default_rng(23)


@pytest.mark.parametrize("cls, kwargs, in_shape, out_shape", [
    (layers.UpSampling1D, {}, (2, 3, 4), (None, 6, 4)),
    (layers.UpSampling1D, {"size": 3}, (2, 3, 4), (None, 9, 4)),
    (layers.UpSampling2D, {}, (2, 3, 4, 2), (None, 6, 8, 2)),
    (layers.UpSampling2D, {"size": (1, 3), "interpolation": "bilinear"}, (2, 3, 4, 2),
     (None, 3, 12, 2)),
    (layers.UpSampling2D, {"size": 2, "data_format": "channels_first"}, (2, 2, 3, 4),
     (None, 2, 6, 8)),
    (layers.ZeroPadding1D, {}, (2, 3, 4), (None, 5, 4)),
    (layers.ZeroPadding1D, {"padding": (0, 3)}, (2, 3, 4), (None, 6, 4)),
    (layers.ZeroPadding2D, {}, (2, 3, 4, 2), (None, 5, 6, 2)),
    (layers.ZeroPadding2D, {"padding": ((1, 0), (2, 3))}, (2, 3, 4, 2), (None, 4, 9, 2)),
    (layers.ZeroPadding2D, {"padding": (1, 2), "data_format": "channels_first"}, (2, 2, 3, 4),
     (None, 2, 5, 8)),
    (layers.Cropping1D, {}, (2, 5, 4), (None, 3, 4)),
    (layers.Cropping1D, {"cropping": (0, 2)}, (2, 5, 4), (None, 3, 4)),
    (layers.Cropping2D, {"cropping": ((1, 0), (2, 1))}, (2, 5, 6, 3), (None, 4, 3, 3)),
    (layers.Cropping2D, {"cropping": 1, "data_format": "channels_first"}, (2, 3, 5, 6),
     (None, 3, 3, 4)),
    (layers.RepeatVector, {"n": 3}, (2, 4), (None, 3, 4)),
])
def test_layer(cls, kwargs, in_shape, out_shape):
    layer = run_layer_test(cls, kwargs, in_shape, out_shape, 0)
    if layer.get_config().get("data_format", "channels_last") == "channels_last":
        train_through(cls(**kwargs), in_shape[1:])


def test_values():
    x = RNG.normal(size=(2, 3, 4, 2)).astype(np.float32)
    np.testing.assert_array_equal(layers.UpSampling2D((2, 3))(x),
                                  x.repeat(2, axis=1).repeat(3, axis=2))
    s = x[:, :, 0, :]
    np.testing.assert_array_equal(layers.UpSampling1D(2)(s), s.repeat(2, axis=1))
    np.testing.assert_array_equal(layers.ZeroPadding2D(((1, 0), (2, 3)))(x),
                                  np.pad(x, ((0, 0), (1, 0), (2, 3), (0, 0))))
    np.testing.assert_array_equal(layers.ZeroPadding1D((2, 1))(s),
                                  np.pad(s, ((0, 0), (2, 1), (0, 0))))
    np.testing.assert_array_equal(layers.Cropping2D(((1, 1), (0, 2)))(x), x[:, 1:2, 0:2])
    np.testing.assert_array_equal(layers.Cropping1D((1, 0))(s), s[:, 1:])
    v = RNG.normal(size=(2, 4)).astype(np.float32)
    np.testing.assert_array_equal(layers.RepeatVector(3)(v), np.repeat(v[:, None], 3, axis=1))


def np_bilinear(x, sr, sc):
    """Half-pixel bilinear resize of (N, H, W, C), as tf.image.resize / jax.image.resize."""
    def axis_weights(size, scale):
        out = []
        for i in range(size * scale):
            src = min(max((i + 0.5) / scale - 0.5, 0), size - 1)
            lo = int(np.floor(src))
            out.append((lo, min(lo + 1, size - 1), src - lo))
        return out
    n, h, w, c = x.shape
    y = np.zeros((n, h * sr, w * sc, c))
    for i, (r0, r1, fr) in enumerate(axis_weights(h, sr)):
        for j, (c0, c1, fc) in enumerate(axis_weights(w, sc)):
            y[:, i, j] = ((1 - fr) * (1 - fc) * x[:, r0, c0] + (1 - fr) * fc * x[:, r0, c1] +
                          fr * (1 - fc) * x[:, r1, c0] + fr * fc * x[:, r1, c1])
    return y


def test_bilinear_upsampling():
    x = RNG.normal(size=(2, 3, 4, 2)).astype(np.float32)
    got = layers.UpSampling2D((2, 3), interpolation="bilinear")(x)
    np.testing.assert_allclose(got, np_bilinear(x, 2, 3), rtol=1e-5, atol=1e-6)
    # a known case: [0, 1] doubled is [0, 0.25, 0.75, 1]
    row = np.array([0.0, 1.0], np.float32).reshape(1, 1, 2, 1)
    got = layers.UpSampling2D((1, 2), interpolation="bilinear")(row)
    np.testing.assert_allclose(got.ravel(), [0, 0.25, 0.75, 1], atol=1e-7)
    first = layers.UpSampling2D(2, data_format="channels_first", interpolation="bilinear")
    np.testing.assert_allclose(first(x.transpose(0, 3, 1, 2)),
                               np_bilinear(x, 2, 2).transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: layers.UpSampling2D((2, 1)),
    lambda: layers.UpSampling2D(2, interpolation="bilinear"),
    lambda: layers.ZeroPadding2D(((1, 0), (0, 2))),
    lambda: layers.Cropping2D(((1, 0), (0, 1))),
], ids=["nearest", "bilinear", "padding", "cropping"])
def test_gradients(make):
    check_gradients(lambda v: make()(v), [RNG.normal(size=(2, 3, 3, 2))], unknown_batch=True)


def test_repeat_vector_gradient():
    check_gradients(lambda v: layers.RepeatVector(3)(v), [RNG.normal(size=(2, 4))],
                    unknown_batch=True)


def test_time_distributed():
    layer = run_layer_test(layers.TimeDistributed, {"layer": layers.Dense(3)}, (2, 4, 5),
                           (None, 4, 3), 2)
    inner = layer.layer
    x = RNG.normal(size=(2, 4, 5)).astype(np.float32)
    kernel, bias = inner.get_weights()
    np.testing.assert_allclose(layer(x), x @ kernel + bias, rtol=1e-5, atol=1e-6)
    run_layer_test(layers.TimeDistributed, {"layer": layers.Conv2D(2, 3)}, (2, 3, 5, 5, 1),
                   (None, 3, 3, 3, 2), 2)
    run_layer_test(layers.TimeDistributed, {"layer": layers.Flatten()}, (2, 3, 2, 2),
                   (None, 3, 4), 0)
    config = layer.get_config()
    clone = layers.TimeDistributed.from_config(config)
    assert isinstance(clone.layer, layers.Dense) and clone.layer.units == 3


def test_time_distributed_saves_and_loads(tmp_path):
    inp = layers.Input(shape=(4, 5))
    model = pd.Model(inp, layers.TimeDistributed(layers.Dense(3))(inp))
    x = RNG.normal(size=(2, 4, 5)).astype(np.float32)
    model.save(str(tmp_path / "td.h5"))
    np.testing.assert_allclose(pd.load_model(str(tmp_path / "td.h5")).predict(x),
                               model.predict(x), rtol=1e-6)


@pytest.mark.parametrize("make, match", [
    (lambda: layers.UpSampling1D(0), r"UpSampling1D: expected size as a positive integer, "
                                     r"received 0"),
    (lambda: layers.UpSampling2D((2, 2, 2)), r"UpSampling2D: expected size as an int or 2 ints"),
    (lambda: layers.UpSampling2D(interpolation="cubic"), r"expected interpolation 'nearest' "
                                                         r"or 'bilinear', received 'cubic'"),
    (lambda: layers.UpSampling2D(data_format="NHWC"), r"expected data_format 'channels_last'"),
    (lambda: layers.ZeroPadding2D(((1, 2, 3), 1)), r"ZeroPadding2D: expected padding as an "
                                                   r"integer >= 0"),
    (lambda: layers.ZeroPadding2D((1, 2, 3)), r"expected padding as an int, 2 ints or 2 "),
    (lambda: layers.ZeroPadding1D(-1), r"ZeroPadding1D: expected padding as an integer >= 0"),
    (lambda: layers.Cropping1D("1"), r"Cropping1D: expected cropping as an int, 1 ints"),
    (lambda: layers.RepeatVector(0), r"RepeatVector: expected n as a positive integer"),
    (lambda: layers.RepeatVector(2.0), r"RepeatVector: expected n as a positive integer"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_inputs():
    with pytest.raises(pd.ShapeError, match=r"up_sampling2d\w*: expected an input of rank 4, "
                                            r"received shape \(None, 3, 4\)"):
        layers.UpSampling2D()(layers.Input(shape=(3, 4)))
    with pytest.raises(pd.ShapeError, match=r"expected known sizes on axes \[1, 2, 3\]"):
        layers.UpSampling2D()(layers.Input(shape=(None, 4, 2)))
    with pytest.raises(pd.ShapeError, match=r"cropping \(2, 3\) leaves nothing of axis 1 of "
                                            r"size 5"):
        layers.Cropping1D((2, 3))(layers.Input(shape=(5, 2)))
    with pytest.raises(pd.ShapeError, match=r"repeat_vector\w*: expected an input of rank 2"):
        layers.RepeatVector(2)(layers.Input(shape=(3, 4)))
    with pytest.raises(pd.ShapeError, match=r"zero_padding1d\w*: expected an input of rank 3"):
        layers.ZeroPadding1D()(layers.Input(shape=(3,)))
    with pytest.raises(ValueError, match=r"up_sampling2d\w*: the output \(None, 3298534883328, "
                                         r"3, 2\) .* \(more than 2\*\*31\)"):
        layers.UpSampling2D((2 ** 40, 1))(layers.Input(shape=(3, 3, 2)))
    with pytest.raises(ValueError, match=r"repeat_vector\w*: the output .* values per example"):
        layers.RepeatVector(2 ** 62)(layers.Input(shape=(4,)))
    with pytest.raises(TypeError, match="TimeDistributed: expected a Layer, received int"):
        layers.TimeDistributed(3)
    with pytest.raises(pd.ShapeError, match=r"time_distributed\w*: expected an input of rank "
                                            r">= 3"):
        layers.TimeDistributed(layers.Dense(2))(layers.Input(shape=(4,)))
    with pytest.raises(pd.ShapeError, match="expected known sizes but for the batch axis"):
        layers.TimeDistributed(layers.Dense(2))(layers.Input(shape=(None, 4)))
