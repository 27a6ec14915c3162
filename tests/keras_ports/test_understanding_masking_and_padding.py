"""keras-io `guides/understanding_masking_and_padding.py` ("Understanding masking &
padding", Scott Zhu, Francois Chollet), in its Keras 3 text (`keras.utils.pad_sequences`,
`keras.ops`), ported by renaming `keras` to `pd`.

Each section is a test asserting what the guide prints (the masks, compared with Keras
3.15.1's printout). Lines changed, and why:
- `masked_output._keras_mask` of `embedding(padded_inputs)`: paddle's layers called on
  NumPy arrays return NumPy arrays, which carry no mask (until eager tensors, issue #31's
  eager core); the port prints `embedding.compute_mask(padded_inputs)` instead, the same
  mask, through `pd.eval` (compute_mask gives a graph Variable today).
- The simulated embedding `ops.cast(ops.tile(ops.expand_dims(padded_inputs, -1),
  [1, 1, 10]), "float32")` is built with NumPy (`np.tile`; paddle has no `ops.tile` yet)
  and given to `Masking` as `pd.constant(...)`, so that the output is a Variable carrying
  its mask (`_keras_mask`), which `TemporalSplit` then splits; masks print via `pd.eval`.
- `CustomEmbedding.call`'s `ops.take(self.embeddings, inputs)` is `ops.gather(...)` (paddle
  has no `ops.take` yet: the same row lookup).
- The last line, `model(ids, np.random.random((32, 100, 1)))`, passes the second array
  as `training`: Keras 3.15.1 fails on it ("Functional.call() got multiple values for
  argument 'training'") and paddle refuses it by name; the port calls `model(ids)`.
- `np.random` is a seeded generator.
"""
import numpy as np
import pytest

import paddle as pd
from paddle import layers, ops

keras = pd
rng = np.random.default_rng(0)

raw_inputs = [
    [711, 632, 71],
    [73, 8, 3215, 55, 927],
    [83, 91, 1, 645, 1253, 927],
]

# Keras 3.15.1 prints for padded_inputs and for the masks of the guide:
PADDED = [[711, 632, 71, 0, 0, 0], [73, 8, 3215, 55, 927, 0], [83, 91, 1, 645, 1253, 927]]
MASK = [[True, True, True, False, False, False], [True, True, True, True, True, False],
        [True, True, True, True, True, True]]


def padded():
    # By default, this will pad using 0s; it is configurable via the
    # "value" parameter.
    return keras.utils.pad_sequences(raw_inputs, padding="post")


def masked_embedding():
    masking_layer = layers.Masking()
    # Simulate the embedding lookup by expanding the 2D input to 3D,
    # with embedding dimension of 10.
    unmasked_embedding = np.tile(np.expand_dims(padded(), axis=-1), [1, 1, 10]).astype(
        "float32")
    return masking_layer(pd.constant(unmasked_embedding))


def test_padding_sequence_data():
    assert padded().tolist() == PADDED


def test_mask_generating_layers():
    padded_inputs = padded()
    embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
    masked_output = embedding(padded_inputs)
    assert masked_output.shape == (3, 6, 16)
    assert pd.eval(embedding.compute_mask(padded_inputs)).tolist() == MASK
    assert pd.eval(masked_embedding()._keras_mask).tolist() == MASK


def test_mask_propagation_in_the_functional_and_sequential_api():
    model = keras.Sequential(
        [
            layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True),
            layers.LSTM(32),
        ]
    )
    assert model(padded()).shape == (3, 32)

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    outputs = layers.LSTM(32)(x)

    model = keras.Model(inputs, outputs)
    # The padding is skipped: a sequence's output does not depend on its trailing zeros.
    ids = padded()
    np.testing.assert_allclose(model(ids)[0], model(ids[:1, :3])[0], rtol=1e-5, atol=1e-6)


def test_passing_mask_tensors_directly_to_layers():
    class MyLayer(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
            self.lstm = layers.LSTM(32)

        def call(self, inputs):
            x = self.embedding(inputs)
            # Note that you could also prepare a `mask` tensor manually.
            # It only needs to be a boolean tensor
            # with the right shape, i.e. (batch_size, timesteps).
            mask = self.embedding.compute_mask(inputs)
            output = self.lstm(x, mask=mask)  # The layer will ignore the masked values
            return output

    layer = MyLayer()
    x = rng.random((32, 10)) * 100
    x = x.astype("int32")
    assert layer(x).shape == (32, 32)


def test_supporting_masking_in_custom_layers():
    class TemporalSplit(keras.layers.Layer):
        """Split the input tensor into 2 tensors along the time dimension."""

        def call(self, inputs):
            # Expect the input to be 3D and mask to be 2D, split the input tensor into 2
            # subtensors along the time axis (axis 1).
            return ops.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            # Also split the mask into 2 if it presents.
            if mask is None:
                return None
            return ops.split(mask, 2, axis=1)

    first_half, second_half = TemporalSplit()(masked_embedding())
    assert pd.eval(first_half._keras_mask).tolist() == [row[:3] for row in MASK]
    assert pd.eval(second_half._keras_mask).tolist() == [row[3:] for row in MASK]

    class CustomEmbedding(keras.layers.Layer):
        def __init__(self, input_dim, output_dim, mask_zero=False, **kwargs):
            super().__init__(**kwargs)
            self.input_dim = input_dim
            self.output_dim = output_dim
            self.mask_zero = mask_zero

        def build(self, input_shape):
            self.embeddings = self.add_weight(
                shape=(self.input_dim, self.output_dim),
                initializer="random_normal",
                dtype="float32",
            )

        def call(self, inputs):
            inputs = ops.cast(inputs, "int32")
            return ops.gather(self.embeddings, inputs)

        def compute_mask(self, inputs, mask=None):
            if not self.mask_zero:
                return None
            return ops.not_equal(inputs, 0)

    layer = CustomEmbedding(10, 32, mask_zero=True)
    x = rng.random((3, 10)) * 9
    x = x.astype("int32")

    y = layer(x)
    mask = layer.compute_mask(x)
    assert y.shape == (3, 10, 32)
    assert pd.eval(mask).tolist() == (x != 0).tolist()


def test_opting_in_to_mask_propagation():
    class MyActivation(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            # Signal that the layer is safe for mask propagation
            self.supports_masking = True

        def call(self, inputs):
            return ops.relu(inputs)

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    x = MyActivation()(x)  # Will pass the mask along
    assert x._keras_mask is not None and x._keras_mask.shape == (None, None)  # "Mask found"
    outputs = layers.LSTM(32)(x)  # Will receive the mask

    model = keras.Model(inputs, outputs)
    ids = padded()
    np.testing.assert_allclose(model(ids)[0], model(ids[:1, :3])[0], rtol=1e-5, atol=1e-6)


def test_writing_layers_that_need_mask_information():
    class TemporalSoftmax(keras.layers.Layer):
        def call(self, inputs, mask=None):
            assert mask is not None
            broadcast_float_mask = ops.expand_dims(ops.cast(mask, "float32"), -1)
            inputs_exp = ops.exp(inputs) * broadcast_float_mask
            inputs_sum = ops.sum(
                inputs_exp * broadcast_float_mask, axis=-1, keepdims=True
            )
            return inputs_exp / inputs_sum

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=32, mask_zero=True)(inputs)
    x = layers.Dense(1)(x)
    outputs = TemporalSoftmax()(x)

    model = keras.Model(inputs, outputs)
    ids = rng.integers(0, 10, size=(32, 100))
    y = model(ids)
    assert y.shape == (32, 100, 1)
    # The guide's softmax is over the last axis, of size 1: 1 where unmasked, 0 / 0 where
    # masked (as in Keras 3.15.1).
    np.testing.assert_array_equal(np.isnan(y[..., 0]), ids == 0)
    np.testing.assert_allclose(y[..., 0][ids != 0], 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match=r"expected training to be True, False or None, "
                                         r"received an array of shape \(32, 100, 1\)"):
        model(ids, rng.random((32, 100, 1)))  # the guide's line (Keras 3.15 fails on it)
