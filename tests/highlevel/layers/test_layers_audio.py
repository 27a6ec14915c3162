"""MelSpectrogram and STFTSpectrogram: outputs against Keras 3.15.1 (JAX backend) for the
same signals (the constants: the first outputs, the sum and the sum of squares it
printed), the one-call layer test, one signal, gradient checks and bad arguments. (.keras
files both ways: tests/highlevel/saving.)"""
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


SIG = np.random.default_rng(0).normal(size=(2, 100, 2)).astype(np.float32)
SIG_FIRST = SIG.transpose(0, 2, 1).copy()
STFT_KERAS = [  # (layer, input, output shape, first five outputs, sum, sum of squares)
    ("L.STFTSpectrogram(frame_length=16, frame_step=8)", 'SIG', (2, 11, 18), [0.5862, 0.5295, 0.4269, 0.2115, -0.198], -145.019, 296.036),
    ("L.STFTSpectrogram(mode='magnitude', frame_length=12, frame_step=5, fft_length=16, window='hamming', periodic=True, padding='same')", 'SIG', (2, 20, 18), [0.6854, 1.1153, 1.2089, 0.8598, 0.6481], 622.392, 714.373),
    ("L.STFTSpectrogram(mode='psd', frame_length=16, expand_dims=True, scaling='spectrum')", 'SIG', (2, 11, 9, 2), [0.323, 0.0052, 0.5767, 0.1358, 0.4697], 69.855, 25.269),
    ("L.STFTSpectrogram(mode='real', frame_length=8, frame_step=4, window=None)", 'SIG', (2, 24, 10), [-3.3635, -0.08, 2.2827, 1.739, -3.5139], 7.971, 2579.725),
    ("L.STFTSpectrogram(mode='imag', frame_length=8, frame_step=4, data_format='channels_first')", 'SIG_FIRST', (2, 10, 24), [0.0, 0.0, 0.0, 0.0, 0.0], 1.948, 145.289),
    ("L.STFTSpectrogram(mode='angle', frame_length=8, frame_step=4, scaling=None)", 'SIG', (2, 24, 10), [3.1416, -1.4615, 1.5067, -0.7552, 3.1416], 265.453, 1929.34),
    ("L.STFTSpectrogram(mode='stft', frame_length=8, frame_step=4, expand_dims=True, data_format='channels_first')", 'SIG_FIRST', (2, 2, 24, 10), [-0.2808, 0.0908, 0.0594, 0.7349, -1.4894], 0.523, 488.968),
]


@pytest.mark.parametrize("make, x, shape, first, total, squares", STFT_KERAS)
def test_stft_spectrogram_matches_keras(make, x, shape, first, total, squares):
    check_figures(np.asarray(eval(make)(eval(x))), shape, first, total, squares, atol=2e-3,
                  total_abs=0.02, squares_rel=1e-4)


def test_stft_spectrogram_weights_layer_test_and_config():
    layer = L.STFTSpectrogram(mode="stft", frame_length=8, frame_step=4)
    layer(SIG)
    assert [(w.name.split("/")[-1], w.shape) for w in layer.weights] == [
        ("real_kernel", (8, 1, 5)), ("imag_kernel", (8, 1, 5))]
    real_only = L.STFTSpectrogram(mode="real", frame_length=8)
    real_only(SIG)
    assert [w.name.split("/")[-1] for w in real_only.weights] == ["real_kernel"]
    run_layer_test(L.STFTSpectrogram, {"mode": "magnitude", "frame_length": 8,
                                       "frame_step": 4}, (2, 32, 1), (None, 7, 5), 2)
    config = L.STFTSpectrogram(frame_length=12, fft_length=16, window="hamming").get_config()
    assert (config["frame_step"], config["fft_length"], config["window"]) == (None, 16,
                                                                             "hamming")


def test_stft_spectrogram_gradient():
    layer = L.STFTSpectrogram(mode="magnitude", frame_length=8, frame_step=4,
                              dtype="float64")
    layer(np.zeros((1, 24, 1)))
    layer.set_weights([w.astype(np.float64) for w in layer.get_weights()])
    check_gradients(lambda x: layer(x), [RNG.normal(size=(2, 24, 1))])


@pytest.mark.parametrize("make, message", [
    (lambda: L.STFTSpectrogram(mode="power"), "mode one of"),
    (lambda: L.STFTSpectrogram(frame_length=16, frame_step=32), "frame_step"),
    (lambda: L.STFTSpectrogram(frame_length=16, fft_length=8), "fft_length"),
    (lambda: L.STFTSpectrogram(padding="causal"), "padding"),
    (lambda: L.STFTSpectrogram(window="kaiser"), "window"),
    (lambda: L.STFTSpectrogram(scaling="power"), "scaling"),
    (lambda: L.STFTSpectrogram(frame_length=8)(np.ones((2, 32), np.float32)), "rank 3"),
])
def test_stft_spectrogram_bad_arguments(make, message):
    with pytest.raises((ValueError, TypeError, pd.ShapeError), match=message):
        make()
