"""Pooling layers: one-call layer tests, NumPy references, argument and shape errors."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("cls, kwargs, in_shape, out_shape", [
    (layers.MaxPooling2D, {}, (2, 6, 5, 3), (None, 3, 2, 3)),
    (layers.MaxPooling2D, {"pool_size": 3, "strides": 1, "padding": "same"}, (2, 6, 5, 3),
     (None, 6, 5, 3)),
    (layers.AveragePooling2D, {"pool_size": (2, 3)}, (2, 6, 6, 3), (None, 3, 2, 3)),
    (layers.AveragePooling2D, {"data_format": "channels_first"}, (2, 3, 6, 4),
     (None, 3, 3, 2)),
    (layers.MaxPooling1D, {}, (2, 7, 3), (None, 3, 3)),
    (layers.MaxPooling1D, {"pool_size": 3, "strides": 2, "padding": "same"}, (2, 7, 3),
     (None, 4, 3)),
    (layers.AveragePooling1D, {"pool_size": 2, "strides": 1}, (2, 7, 3), (None, 6, 3)),
    (layers.GlobalAveragePooling1D, {}, (2, 7, 3), (None, 3)),
    (layers.GlobalMaxPooling1D, {"keepdims": True}, (2, 7, 3), (None, 1, 3)),
    (layers.GlobalAveragePooling2D, {}, (2, 4, 5, 3), (None, 3)),
    (layers.GlobalAveragePooling2D, {"keepdims": True}, (2, 4, 5, 3), (None, 1, 1, 3)),
    (layers.GlobalMaxPooling2D, {}, (2, 4, 5, 3), (None, 3)),
    (layers.GlobalMaxPooling2D, {"data_format": "channels_first"}, (2, 3, 4, 5), (None, 3)),
])
def test_layer(cls, kwargs, in_shape, out_shape):
    run_layer_test(cls, kwargs, in_shape, out_shape, 0)


def test_values():
    x = RNG.normal(size=(2, 6, 4, 3)).astype(np.float32)
    windows = x.reshape(2, 3, 2, 2, 2, 3)
    np.testing.assert_allclose(layers.MaxPooling2D(2)(x), windows.max((2, 4)), rtol=1e-6)
    np.testing.assert_allclose(layers.AveragePooling2D(2)(x), windows.mean((2, 4)), rtol=1e-5)
    np.testing.assert_allclose(layers.GlobalAveragePooling2D()(x), x.mean((1, 2)), rtol=1e-5)
    np.testing.assert_allclose(layers.GlobalMaxPooling2D()(x), x.max((1, 2)), rtol=1e-6)
    s = RNG.normal(size=(2, 7, 3)).astype(np.float32)
    ref = np.stack([s[:, t:t + 3].max(1) for t in range(0, 5, 2)], 1)
    np.testing.assert_allclose(layers.MaxPooling1D(3, strides=2)(s), ref, rtol=1e-6)
    np.testing.assert_allclose(layers.GlobalAveragePooling1D()(s), s.mean(1), rtol=1e-5)


def test_pooling_trains_inside_a_model():
    """Gradients flow through the pools to a convolution before them."""
    inp = layers.Input(shape=(6, 6, 2))
    conv = layers.Conv2D(3, 3, padding="same")
    y = layers.MaxPooling2D()(conv(inp))
    out = layers.Add()([layers.GlobalAveragePooling2D()(y), layers.GlobalMaxPooling2D()(y)])
    model = pd.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    before = conv.kernel.val()
    loss = model.train_on_batch(RNG.normal(size=(2, 6, 6, 2)).astype(np.float32),
                                RNG.normal(size=(2, 3)).astype(np.float32))
    assert np.isfinite(np.ravel(loss)[0])
    assert not np.array_equal(before, conv.kernel.val())


@pytest.mark.parametrize("cls, kwargs, words", [
    (layers.MaxPooling2D, {"pool_size": 0}, "pool_size"),
    (layers.MaxPooling2D, {"strides": (1, 2, 3)}, "strides"),
    (layers.AveragePooling1D, {"padding": "causal"}, "padding"),
    (layers.AveragePooling1D, {"pool_size": (2, 2)}, "pool_size"),
    (layers.GlobalMaxPooling2D, {"data_format": "NCHW"}, "data_format"),
])
def test_bad_arguments(cls, kwargs, words):
    with pytest.raises(ValueError, match=words) as info:
        cls(**kwargs)
    assert cls.__name__ in str(info.value)


def test_bad_input_shapes():
    with pytest.raises(pd.ShapeError, match=r"pool: the pool \(4, 4\) is larger than the "
                                            r"input's spatial size \(3, 5\)"):
        layers.MaxPooling2D(4, name="pool")(layers.Input(shape=(3, 5, 2)))
    with pytest.raises(pd.ShapeError, match=r"p1: expected an input of rank 3 .*\(None, 4\)"):
        layers.MaxPooling1D(name="p1")(layers.Input(shape=(4,)))
    with pytest.raises(pd.ShapeError, match=r"g2: expected an input of rank 4"):
        layers.GlobalAveragePooling2D(name="g2")(layers.Input(shape=(4, 3)))
    pool = layers.AveragePooling2D(name="p2")
    pool(layers.Input(shape=(4, 4, 2)))
    with pytest.raises(pd.ShapeError, match=r"p2: expected an input of rank 4"):
        pool(layers.Input(shape=(4, 2)))
    # "same" padding fits any size: a pool larger than the input is fine
    assert layers.MaxPooling2D(4, padding="same")(layers.Input(shape=(3, 3, 1))).shape == \
        (None, 1, 1, 1)
