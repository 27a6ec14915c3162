"""The STFT initializer (`pd.initializers.STFT`, `STFTInitializer`, `stft`): kernels
against Keras 3.15.1's (the constants: the sum, the sum of squares and the first values it
printed for the same arguments), names and configs (Keras's, so files load both ways),
and bad arguments."""
import numpy as np
import pytest

import paddle as pd

I = pd.initializers


@pytest.mark.parametrize("kwargs, shape, total, squares", [
    ({}, (8, 1, 5), 1.08012, 3.68832),
    ({"side": "imag", "window": "hamming", "scaling": "spectrum", "periodic": True},
     (6, 1, 4), 0.0, 0.1969),
    ({"window": None, "scaling": None}, (4, 1, 3), 4.0, 10.0),
    ({"side": "imag", "window": np.arange(5.0)}, (5, 1, 3), 0.36515, 0.33333),
])
def test_kernels_are_kerass(kwargs, shape, total, squares):
    k = I.STFT(**kwargs)(shape)
    assert k.shape == shape and k.dtype == np.float32
    assert float(k.sum()) == pytest.approx(total, abs=1e-4)
    assert float((k ** 2).sum()) == pytest.approx(squares, abs=1e-4)


def test_the_kernel_is_the_dft():
    frames = np.random.default_rng(0).normal(size=(3, 8))
    real = I.STFT("real", window=None, scaling=None)((8, 1, 5), "float64")[:, 0]
    imag = I.STFT("imag", window=None, scaling=None)((8, 1, 5), "float64")[:, 0]
    spectrum = np.fft.rfft(frames)
    np.testing.assert_allclose(frames @ real, spectrum.real, atol=1e-12)
    np.testing.assert_allclose(frames @ imag, spectrum.imag, atol=1e-12)


def test_names_and_config():
    assert I.STFTInitializer is I.STFT and I.stft is I.STFT
    init = I.STFT(side="imag", window="hamming", scaling=None, periodic=True)
    config = I.serialize(init)
    assert config == {"class_name": "STFT", "config": {
        "side": "imag", "window": "hamming", "periodic": True, "scaling": None}}
    again = I.deserialize({"class_name": "STFTInitializer", "config": config["config"]})
    np.testing.assert_array_equal(again((6, 1, 4)), init((6, 1, 4)))
    layer = pd.layers.Conv1D(5, 8, kernel_initializer=I.STFT(), use_bias=False)
    layer(np.zeros((1, 16, 1), np.float32))
    np.testing.assert_allclose(layer.kernel.val(), I.STFT()((8, 1, 5)))


@pytest.mark.parametrize("make, message", [
    (lambda: I.STFT(side="both"), "side 'real' or 'imag'"),
    (lambda: I.STFT(window="kaiser"), "window 'hann', 'hamming'"),
    (lambda: I.STFT(scaling="power"), "scaling None"),
    (lambda: I.STFT()((8, 5)), "kernel shape"),
    (lambda: I.STFT(window=np.ones(3))((8, 1, 5)), "shape of window must be"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()
