"""MelSpectrogram: outputs against Keras 3.15.1 (JAX backend) for the same audio (the
constants: the first outputs, the sum and the sum of squares it printed), the one-call
layer test, one signal, a gradient check and bad arguments. (.keras files both ways:
tests/highlevel/saving.)"""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers as L
from gradcheck import check_gradients
from layer_test import check_figures, run_layer_test

RNG = np.random.default_rng(0)
AUDIO = (np.sin(np.arange(2 * 1000).reshape(2, 1000) * 0.07)
         + 0.3 * RNG.normal(size=(2, 1000))).astype(np.float32)

KERAS = [  # (layer, output shape, first five outputs, sum, sum of squares)
    (lambda: L.MelSpectrogram(fft_length=256, sequence_stride=64, num_mel_bins=20,
                              sampling_rate=8000),
     (2, 20, 16), [33.2763, 36.0315, 36.925, 36.9791, 36.6744], 11531.25, 230175.11),
    (lambda: L.MelSpectrogram(fft_length=128, sequence_stride=50, sequence_length=100,
                              window="hamming", num_mel_bins=12, sampling_rate=8000,
                              min_freq=100.0, max_freq=3000, power_to_db=False, mag_exp=1.0),
     (2, 12, 21), [12.7002, 15.3615, 11.9401, 16.2494, 12.1154], 3411.267, 29812.66),
    (lambda: L.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8,
                              sampling_rate=4000, top_db=20.0, ref_power=2.0, window=None),
     (2, 8, 32), [16.2843, 22.1318, 21.4713, 23.6969, 24.0015], 6215.073, 85759.15),
]


@pytest.mark.parametrize("make, shape, first, total, squares", KERAS)
def test_matches_keras(make, shape, first, total, squares):
    check_figures(np.asarray(make()(AUDIO)), shape, first, total, squares, atol=2e-3,
                  total_abs=0.05, squares_rel=1e-5)


def test_one_signal_and_layer_test():
    layer = L.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8,
                             sampling_rate=4000)
    one = np.asarray(layer(AUDIO[0]))
    assert one.shape == (8, 32) and float(one.sum()) == pytest.approx(2387.865, abs=0.05)
    run_layer_test(L.MelSpectrogram, {"fft_length": 32, "sequence_stride": 8,
                                      "num_mel_bins": 4, "sampling_rate": 1000},
                   (2, 64), (None, 4, 9), 0)


def test_gradient():
    layer = L.MelSpectrogram(fft_length=16, sequence_stride=8, num_mel_bins=4,
                             sampling_rate=1000, power_to_db=False, dtype="float64")
    check_gradients(lambda x: layer(x), [RNG.normal(size=(2, 40))])


@pytest.mark.parametrize("make, message", [
    (lambda: L.MelSpectrogram(fft_length=64, sequence_length=128), "greater than or equal"),
    (lambda: L.MelSpectrogram(window="kaiser"), "window"),
    (lambda: L.MelSpectrogram(num_mel_bins=0), "num_mel_bins > 0"),
    (lambda: L.MelSpectrogram(min_freq=9000.0), "min_freq < max_freq"),
    (lambda: L.MelSpectrogram(power_to_db="yes"), "power_to_db"),
])
def test_bad_arguments(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_bad_input_names_the_layer_and_line():
    with pytest.raises(pd.ShapeError, match="audio of shape") as info:
        L.MelSpectrogram(64, 32)(L.Input(shape=(10, 400)))
    assert "test_layers_audio.py" in str(info.value)
