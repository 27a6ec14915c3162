"""pd.ops's Fourier transforms (numpy.fft / cupy.fft kernels) against numpy.fft (and an
explicit framing for stft/istft), gradient checks (the transforms' adjoints), Keras's
(real, imag) convention and errors."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(1)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def close(pair, want, atol=1e-4):
    got = pair[0].numpy() + 1j * pair[1].numpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, atol=atol, rtol=1e-4)


@pytest.mark.parametrize("shape", [(8,), (3, 7), (2, 3, 16)])
def test_fft_and_fft2(device, shape):
    a, b = rand(*shape), rand(*shape)
    close(pd.ops.fft((a, b)), np.fft.fft(a + 1j * b))
    if len(shape) >= 2:
        close(pd.ops.fft2((a, b)), np.fft.fft2(a + 1j * b))
        close(pd.ops.ifft2((a, b)), np.fft.ifft2(a + 1j * b))


@pytest.mark.parametrize("n, fft_length", [(9, None), (9, 6), (9, 12), (8, 8)])
def test_rfft(device, n, fft_length):
    x = rand(3, n)
    close(pd.ops.rfft(x, fft_length), np.fft.rfft(x, fft_length))


@pytest.mark.parametrize("bins, fft_length", [(5, None), (5, 9), (5, 4), (5, 12), (4, 7)])
def test_irfft(device, bins, fft_length):
    a, b = rand(3, bins), rand(3, bins)
    got = pd.ops.irfft((a, b), fft_length).numpy()
    np.testing.assert_allclose(got, np.fft.irfft(a + 1j * b, fft_length), atol=1e-5)


def periodic(name, n):
    a = 0.5 if name == "hann" else 0.54
    return a - (1 - a) * np.cos(2 * np.pi * np.arange(n) / n)


def ref_stft(x, length, stride, nfft, window, center):
    left = (nfft - length) // 2
    # Keras's window=None is ones over all fft_length samples, not a padded one
    win = np.ones(nfft) if window is None else \
        np.pad(periodic(window, length), (left, nfft - length - left))
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(nfft // 2, nfft // 2)], mode="reflect")
    frames = (x.shape[-1] - nfft) // stride + 1
    framed = np.stack([x[..., f * stride:f * stride + nfft] for f in range(frames)], -2)
    return np.fft.rfft(framed * win, nfft)


@pytest.mark.parametrize("length, stride, nfft, window, center", [
    (16, 4, 16, "hann", True), (10, 3, 16, "hamming", False), (12, 5, 16, None, True)])
def test_stft(device, length, stride, nfft, window, center):
    x = rand(2, 50)
    got = pd.ops.stft(x, length, stride, nfft, window=window, center=center)
    close(got, ref_stft(x.astype(np.float64), length, stride, nfft, window, center))


def test_stft_custom_window_and_batch_dims():
    x = rand(2, 3, 40)
    win = np.linspace(0, 1, 8).astype(np.float32)
    re, im = pd.ops.stft(x, 8, 4, 8, window=win)
    framed = np.pad(x, [(0, 0), (0, 0), (4, 4)], mode="reflect")
    want = np.fft.rfft(np.stack([framed[..., f * 4:f * 4 + 8] for f in range(11)], -2) * win)
    close((re, im), want)


@pytest.mark.parametrize("window", ["hann", "hamming"])
def test_istft_inverts_stft(device, window):
    x = rand(2, 64)
    spec = pd.ops.stft(x, 16, 4, 16, window=window)
    back = pd.ops.istft(spec, 16, 4, 16, length=64, window=window)
    np.testing.assert_allclose(back.numpy(), x, atol=1e-4)
    # center=False, no length: the frames' span (16 + 4 * (frames - 1))
    spec = pd.ops.stft(x, 16, 4, 16, window=window, center=False)
    back = pd.ops.istft(spec, 16, 4, 16, window=window, center=False)
    assert back.shape == (2, 64)
    np.testing.assert_allclose(back.numpy()[:, 4:-4], x[:, 4:-4], atol=1e-4)


def test_istft_value_from_keras():
    # keras.ops.istft((re, im), 4, 2, 4, window=None) with re = arange(6).reshape(2, 3) / 2,
    # im = 0 (computed once with Keras 3.15 on JAX)
    re = np.arange(6, dtype=np.float32).reshape(2, 3) / 2
    got = pd.ops.istft((re, np.zeros_like(re)), 4, 2, 4, window=None).numpy()
    np.testing.assert_allclose(got, [2.0, -0.5], atol=1e-6)


def test_dtypes_and_symbolic_shapes():
    x = pd.data("sig", shape=[None, 32])
    re, im = pd.ops.stft(x, 8, 4, 8)
    assert re.shape == (None, 9, 5) and im.dtype == "float32"
    re, im = pd.ops.rfft(np.ones(6))  # float64 stays float64
    assert re.dtype == "float64" and re.shape == (4,)
    assert pd.ops.rfft(np.ones(6, np.int32))[0].dtype == "float32"


def test_gradients_are_the_adjoints():
    check_gradients(lambda a, b: pd.ops.fft((a, b)), [rand(2, 6), rand(2, 6)])
    check_gradients(lambda a, b: pd.ops.ifft2((a, b)), [rand(3, 4), rand(3, 4)])
    check_gradients(lambda x: pd.ops.rfft(x, 10), [rand(2, 7)])
    check_gradients(lambda a, b: pd.ops.irfft((a, b), 8), [rand(2, 5), rand(2, 5)])
    check_gradients(lambda x: pd.ops.rfft(x, 5), [rand(2, 7)])           # cut to 5
    check_gradients(lambda x: pd.ops.rfft(x), [rand(3, 8)])
    check_gradients(lambda a, b: pd.ops.irfft((a, b), 7), [rand(2, 6), rand(2, 6)])
    check_gradients(lambda a, b: pd.ops.irfft((a, b), 12), [rand(2, 4), rand(2, 4)])
    check_gradients(lambda a, b: pd.ops.fft2((a, b)), [rand(2, 3, 4), rand(2, 3, 4)])
    check_gradients(lambda a, b: pd.ops.fft((a * a, b)), [rand(5), rand(5)], order=2)
    check_gradients(lambda x: pd.ops.stft(x, 8, 3, 8), [rand(2, 20)])
    check_gradients(lambda a, b: pd.ops.istft((a, b), 8, 3, 8), [rand(4, 5), rand(4, 5)])


def test_errors():
    with pytest.raises(ValueError, match=r"fft: expected x as a tuple of two tensors \(real, "
                                         r"imag\).*\(at test_fft.py:\d+\)"):
        pd.ops.fft(np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"one shape, received \(4,\) and \(3,\)"):
        pd.ops.fft((np.ones(4), np.ones(3)))
    with pytest.raises(ValueError, match=r"float real and imaginary parts, received int64"):
        pd.ops.fft((np.ones(4, np.int64), np.ones(4)))
    with pytest.raises(ValueError, match=r"fft_length >= sequence_length"):
        pd.ops.stft(np.ones(32, np.float32), 16, 4, 8)
    with pytest.raises(ValueError, match=r"window 'hann', 'hamming'.*'blackman'"):
        pd.ops.stft(np.ones(32, np.float32), 8, 4, 8, window="blackman")
    with pytest.raises(TypeError, match=r"float32 or float64 input, received int32"):
        pd.ops.stft(np.ones(32, np.int32), 8, 4, 8)
    with pytest.raises(ValueError, match=r"rank >= 2"):
        pd.ops.istft((np.ones(4), np.ones(4)), 4, 2, 4)
