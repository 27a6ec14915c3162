"""The newer layers (normalization, separable, transposed and 3-D convolutions, 3-D and
adaptive poolings, ConvLSTMs, Pipeline, ReversibleEmbedding, SpectralNormalization,
MelSpectrogram, STFTSpectrogram, RNN cells, EinsumDense, preprocessing and augmentation)
in Keras 3's native `.keras` files, both ways: Keras loads paddle's files and paddle loads
Keras's, with the same predictions (runs when Keras 3 with the PyTorch or JAX backend is
installed, skips otherwise)."""
import h5py
import numpy as np
import pytest

import paddle as pd

from keras3 import keras, quiet  # noqa: F401  (quiet: an autouse fixture)

RNG = np.random.default_rng(0)


def _cases(L):
    return {
        "normalization": ((6, 4), [L.GroupNormalization(2), L.RMSNormalization(),
                                   L.UnitNormalization(), L.Flatten(), L.Dense(2)]),
        "convolution": ((8, 8, 3), [L.SeparableConv2D(4, 3, depth_multiplier=2),
                                    L.Reshape((36, 4)), L.Conv1DTranspose(3, 2, strides=2),
                                    L.DepthwiseConv1D(3), L.SeparableConv1D(2, 2), L.Flatten()]),
        "convolution3d": ((4, 5, 6, 2), [
            L.Conv3D(3, (2, 3, 1), padding="same"), L.MaxPooling3D((1, 2, 2)),
            L.Conv3DTranspose(2, 2, strides=(1, 2, 2), data_format="channels_first"),
            L.AdaptiveAveragePooling3D((2, 2, 3)), L.AveragePooling3D(2, padding="same"),
            L.AdaptiveMaxPooling3D(1), L.Flatten()]),
        "conv_lstm": ((3, 5, 6, 2), [
            L.ConvLSTM2D(3, (2, 3), padding="same", return_sequences=True),
            L.ConvLSTM2D(2, 2, data_format="channels_first", go_backwards=True),
            L.ConvLSTM1D(2, 2, return_sequences=True), L.Flatten()]),
        "pipeline": ((5, 4), [L.Pipeline([L.Dense(3), L.Rescaling(0.5), L.Dense(2)]),
                              L.Flatten(), L.Dense(2)]),
        "spectral": ((6, 6, 2), [L.SpectralNormalization(L.Conv2D(3, 2)), L.Flatten(),
                                 L.SpectralNormalization(L.Dense(2), power_iterations=2)]),
        "audio": ((400,), [L.MelSpectrogram(fft_length=64, sequence_stride=32,
                                            num_mel_bins=8, sampling_rate=4000),
                           L.Flatten(), L.Dense(2)]),
        "stft": ((64, 2), [L.STFTSpectrogram(mode="magnitude", frame_length=16, frame_step=8),
                           L.STFTSpectrogram(mode="real", frame_length=4, window=None),
                           L.Flatten(), L.Dense(2)]),
        "rnn_cells": ((5, 3), [L.RNN(L.LSTMCell(4), return_sequences=True),
                               L.RNN([L.SimpleRNNCell(4), L.GRUCell(3)]), L.Dense(2)]),
        "einsum": ((5, 6), [L.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="de"),
                            L.EinsumDense("abcd,cde->abe", (None, 4))]),
        "preprocessing": ((6, 6, 3), [
            L.Rescaling(0.5, 1.0), L.Resizing(4, 4), L.CenterCrop(3, 3), L.RandomFlip(),
            L.RandomZoom(0.1), L.RandomTranslation(0.1, 0.1), L.RandomContrast(0.1),
            L.RandomBrightness(0.1), L.Flatten(), L.Identity(), L.Dense(2)]),
        "statistics": ((5, 4), [L.Normalization(mean=[1.0, 2.0, 3.0, 4.0],
                                                variance=[1.0, 2.0, 3.0, 4.0]),
                                L.Dense(3), L.AlphaDropout(0.1),
                                L.ActivityRegularization(0.01), L.SpatialDropout1D(0.1)]),
    }


def _model(lib, case):
    shape, layers = _cases(lib.layers)[case]
    model = lib.Sequential([lib.layers.Input(shape=shape)] + layers)
    for layer in model.layers:
        layer.set_weights([RNG.standard_normal(np.shape(w)).astype(np.float32) * 0.3
                           for w in layer.get_weights()])
    return model, RNG.standard_normal((3,) + shape).astype(np.float32)


@pytest.mark.parametrize("case", list(_cases(pd.layers)))
def test_keras_files_both_ways(tmp_path, case):
    k, x = _model(keras, case)
    k.save(tmp_path / "keras.keras")
    np.testing.assert_allclose(pd.load_model(tmp_path / "keras.keras").predict(x, verbose=0),
                               k.predict(x, verbose=0), rtol=1e-4, atol=1e-5)
    p, x = _model(pd, case)
    p.save(tmp_path / "paddle.keras")
    rebuilt = keras.saving.load_model(tmp_path / "paddle.keras")
    assert [type(l).__name__ for l in rebuilt.layers] == [type(l).__name__ for l in p.layers]
    np.testing.assert_allclose(rebuilt.predict(x, verbose=0), p.predict(x, verbose=0),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("tie_weights", [True, False])
def test_reversible_embedding_both_ways(tmp_path, tie_weights):
    ids = np.array([[1, 2, 3, 0], [4, 4, 1, 2]])

    def model(lib):
        inp = lib.layers.Input(shape=(4,), dtype="int32")
        embedding = lib.layers.ReversibleEmbedding(6, 3, tie_weights=tie_weights)
        out = embedding(embedding(inp), reverse=True)
        m = lib.Model(inp, out)
        m.set_weights([RNG.standard_normal(np.shape(w)).astype(np.float32)
                       for w in m.get_weights()])
        return m

    k = model(keras)
    k.save(tmp_path / "keras.keras")
    np.testing.assert_allclose(pd.load_model(tmp_path / "keras.keras").predict(ids, verbose=0),
                               k.predict(ids, verbose=0), rtol=1e-5, atol=1e-6)
    p = model(pd)
    p.save(tmp_path / "paddle.keras")
    np.testing.assert_allclose(keras.saving.load_model(tmp_path / "paddle.keras")
                               .predict(ids, verbose=0), p.predict(ids, verbose=0),
                               rtol=1e-5, atol=1e-6)
