"""Keras's implicit casts: integer data into float models, float ids into Embedding."""
import numpy as np
import pytest

import paddle as pd


def ints(shape, high=255, seed=0):
    return np.random.default_rng(seed).integers(0, high, shape)


@pytest.mark.parametrize("make", [
    lambda: pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3)]),
    lambda: pd.Sequential([pd.layers.Dense(3)]),                      # built from int data
])
def test_integer_x_into_a_float_model_computes_in_float(make):
    x = ints((12, 4))
    model = make()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    model.fit(x, ints((12,), 3), verbose=0)
    kernel, bias = model.layers[-1].get_weights()
    out = model.predict(x, verbose=0)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, x.astype(np.float32) @ kernel + bias, rtol=1e-5)


def test_uint8_images_into_a_convnet_and_a_subclassed_model():
    images = ints((6, 5, 5, 1)).astype(np.uint8)
    conv = pd.Sequential([pd.layers.Conv2D(2, 3), pd.layers.Flatten(), pd.layers.Dense(2)])
    conv.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    conv.fit(images, ints((6,), 2), verbose=0)

    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)

    net = Net()
    net.compile(optimizer="sgd", loss="mse")
    history = net.fit(ints((8, 3)), np.zeros((8, 1), np.float32), verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_float_ids_from_a_default_input_feed_embedding():
    inp = pd.Input(shape=(5,))                      # float32, as Keras's default
    emb = pd.layers.Embedding(10, 3)
    model = pd.Model(inp, emb(inp))
    ids = ints((4, 5), 10)
    out = model.predict(ids.astype(np.float32), verbose=0)
    np.testing.assert_array_equal(out, emb.embeddings.val()[ids])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(ids.astype(np.float32), np.zeros((4, 5, 3), np.float32), verbose=0)


def test_integer_inputs_keep_their_dtype_in_weightless_layers():
    x = pd.Input(shape=(2, 3), dtype="int64")
    assert pd.layers.Flatten()(x).dtype == "int64"
    assert pd.layers.Dense(2)(x).dtype == "float32"
