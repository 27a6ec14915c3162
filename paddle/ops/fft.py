"""Keras's Fourier transforms (`keras.ops.fft`, `fft2`, `ifft2`, `rfft`, `irfft`, `stft`,
`istft`), with Keras's convention for complex numbers: a (real, imag) pair of float
tensors in, a pair out (paddle has no complex dtype).

`fft`, `fft2`, `ifft2`, `rfft` and `irfft` are the transform ops of
paddle/lowlevel/ops/fft.py (pocketfft through numpy.fft on the CPU, cuFFT on CUDA; their
gradients are the transforms' adjoints). `stft` and `istft` work on short frames: `stft` is
one strided conv1d whose filters are the window times the DFT matrices (built once on the
host in float64), `istft` one conv_transpose (the overlap-add) whose filters are the
windowed inverse matrices, so both run on the convolution kernels and have their
gradients; their cost is O(fft_length) per output sample.

Example:
    >>> import numpy as np, paddle as pd
    >>> real, imag = pd.ops.rfft(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    >>> real.numpy().tolist(), imag.numpy().tolist()
    ([10.0, -2.0, -2.0], [0.0, 2.0, 0.0])
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops.conv import conv1d
from paddle.lowlevel.ops.fft import c2c, c2r, r2c
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.shape import concat, gather, reshape
from paddle.lowlevel.shapes import is_int
from paddle.ops.convolutions import as_tensor, conv_transpose

__all__ = ["fft", "fft2", "ifft2", "irfft", "istft", "rfft", "stft"]


# ---- inputs ---------------------------------------------------------------------------------

def _real(x, op):
    x = as_tensor(x)
    if x.dtype not in FLOATS:
        x = cast(x, "float32")
    if x.ndim < 1:
        raise ValueError(at_user(f"{op}: expected an input of rank >= 1, received a scalar"))
    return x


def _pair(x, op, rank=1):
    """(real, imag) Variables of one float dtype and one shape."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(at_user(f"{op}: expected x as a tuple of two tensors (real, imag), "
                                 f"received {type(x).__name__} {x!r:.80}"))
    real, imag = (as_tensor(v) for v in x)
    if real.dtype not in FLOATS or imag.dtype not in FLOATS:
        raise ValueError(at_user(f"{op}: expected float real and imaginary parts, received "
                                 f"{real.dtype} and {imag.dtype}"))
    if real.shape != imag.shape:
        raise ValueError(at_user(f"{op}: expected real and imaginary parts of one shape, "
                                 f"received {real.shape} and {imag.shape}"))
    if real.ndim < rank:
        raise ValueError(at_user(f"{op}: expected parts of rank >= {rank}, received shape "
                                 f"{real.shape}"))
    if any(d is None for d in real.shape[-rank:]):
        raise ShapeError(at_user(f"{op}: expected known sizes of the transformed axes, "
                                 f"received shape {real.shape}"))
    if real.dtype != imag.dtype:
        real, imag = cast(real, "float64"), cast(imag, "float64")
    return real, imag


def _length(value, what, op):
    if not is_int(value) or value < 1:
        raise ValueError(at_user(f"{op}: expected {what} as an int >= 1, received {value!r}"))
    return int(value)


# ---- DFT matrices (host, float64) -------------------------------------------------------

def _trig(rows, cols, n):
    """cos and sin of 2 pi j k / n for j < rows, k < cols, exact at multiples of pi / 2
    (where float64's sin(pi) = 1.2e-16 would leave a residue numpy.fft does not have)."""
    r = np.outer(np.arange(rows), np.arange(cols)) % n   # reduced first: exact angles
    angle = 2.0 * np.pi * r / n
    c, s = np.cos(angle), np.sin(angle)
    quarter = (4 * r) % n == 0
    q = (4 * r) // n % 4
    c = np.where(quarter, np.choose(q, [1.0, 0.0, -1.0, 0.0]), c)
    s = np.where(quarter, np.choose(q, [0.0, 1.0, 0.0, -1.0]), s)
    return c, s


def _const(array, like):
    return constant(array, dtype=like.dtype)


def fft(x):
    """The discrete Fourier transform along the last axis, as `keras.ops.fft`.

    Args:
        x: a tuple (real, imag) of float tensors of one shape.

    Returns:
        A tuple (real, imag) of the transform, of the inputs' shape and dtype.

    Raises:
        ValueError: x is not a pair of float tensors of one shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> re, im = pd.ops.fft((np.array([1.0, 0.0]), np.array([0.0, 1.0])))
        >>> re.numpy().tolist(), im.numpy().tolist()
        ([1.0, 1.0], [1.0, -1.0])
    """
    real, imag = _pair(x, "fft")
    return tuple(c2c(real, imag, axes=1))


def fft2(x):
    """The 2-D discrete Fourier transform over the last two axes, as `keras.ops.fft2`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> re, im = pd.ops.fft2((np.ones((2, 2)), np.zeros((2, 2))))
        >>> re.numpy().tolist()
        [[4.0, 0.0], [0.0, 0.0]]
    """
    real, imag = _pair(x, "fft2", rank=2)
    return tuple(c2c(real, imag, axes=2))


def ifft2(x):
    """The inverse 2-D discrete Fourier transform over the last two axes (divided by the
    number of elements), as `keras.ops.ifft2`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> re, im = pd.ops.ifft2((np.array([[4.0, 0.0], [0.0, 0.0]]), np.zeros((2, 2))))
        >>> re.numpy().tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    real, imag = _pair(x, "ifft2", rank=2)
    return tuple(c2c(real, imag, axes=2, inverse=True))


def _rfft_matrices(length, n):
    """(length, n // 2 + 1) cos and -sin matrices; input rows past n are zero (truncation),
    an input shorter than n is implicitly zero-padded."""
    bins = n // 2 + 1
    cos, sin = _trig(min(length, n), bins, n)
    c, s = np.zeros((length, bins)), np.zeros((length, bins))
    c[:min(length, n)], s[:min(length, n)] = cos, -sin
    return c, s


def rfft(x, fft_length=None):
    """The DFT of a real signal along the last axis, non-negative frequencies only, as
    `keras.ops.rfft`.

    Args:
        x: float tensor (integers compute in float32).
        fft_length: the transform's length; the signal is cut or zero-padded to it.
            Default: the last axis's size.

    Returns:
        A tuple (real, imag) with a last axis of fft_length // 2 + 1.

    Example:
        >>> import numpy as np, paddle as pd
        >>> re, im = pd.ops.rfft(np.array([1.0, 1.0, 1.0, 1.0], np.float32), fft_length=2)
        >>> re.numpy().tolist(), im.numpy().tolist()
        ([2.0, 0.0], [0.0, 0.0])
    """
    op = "rfft"
    x = _real(x, op)
    if x.shape[-1] is None:
        raise ShapeError(at_user(f"{op}: expected a known last axis, received shape {x.shape}"))
    n = x.shape[-1] if fft_length is None else _length(fft_length, "fft_length", op)
    return tuple(r2c(x, n))


def _irfft_matrices(bins, n):
    """(bins, n) matrices mapping the first n // 2 + 1 of `bins` frequencies to the real
    signal (numpy's irfft: the other bins are mirrored, extra bins ignored)."""
    used = min(bins, n // 2 + 1)
    weight = np.full(used, 2.0)
    weight[0] = 1.0
    if n % 2 == 0 and used == n // 2 + 1:
        weight[-1] = 1.0
    cos, sin = _trig(used, n, n)
    c, s = np.zeros((bins, n)), np.zeros((bins, n))
    c[:used] = weight[:, None] * cos / n
    s[:used] = -weight[:, None] * sin / n
    return c, s


def irfft(x, fft_length=None):
    """The real signal of a one-sided spectrum (the inverse of `rfft`), as
    `keras.ops.irfft`.

    Args:
        x: a tuple (real, imag) of float tensors, the frequencies on the last axis.
        fft_length: the output length; default 2 * (bins - 1).

    Returns:
        A float tensor with a last axis of fft_length.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.irfft((np.array([10.0, -2.0, -2.0]), np.array([0.0, 2.0, 0.0]))).numpy().tolist()
        [1.0, 2.0, 3.0, 4.0]
    """
    op = "irfft"
    real, imag = _pair(x, op)
    bins = real.shape[-1]
    n = 2 * (bins - 1) if fft_length is None else _length(fft_length, "fft_length", op)
    if n < 1:
        raise ValueError(at_user(f"{op}: expected fft_length >= 1 (a spectrum of one bin "
                                 f"needs it given), received {n}"))
    return c2r(real, imag, n)


# ---- short-time transforms -------------------------------------------------------------------

def _window(window, sequence_length, fft_length, op):
    """The window padded to fft_length (centered), float64 on the host, or None."""
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(at_user(f"{op}: expected window 'hann', 'hamming', a tensor or "
                                     f"None, received {window!r}"))
        # scipy.signal.get_window's periodic (DFT-even) windows, as Keras uses
        t = np.arange(sequence_length) / sequence_length
        a = 0.5 if window == "hann" else 0.54
        win = a - (1.0 - a) * np.cos(2.0 * np.pi * t)
    else:
        if isinstance(window, Variable):
            raise TypeError(at_user(f"{op}: expected the window as an array (it becomes "
                                    f"constant filters), received a Variable"))
        win = np.asarray(window, np.float64)
        if win.shape != (sequence_length,):
            raise ValueError(at_user(f"{op}: expected a window of shape ({sequence_length},), "
                                     f"received shape {win.shape}"))
    left = (fft_length - sequence_length) // 2
    return np.pad(win, (left, fft_length - sequence_length - left))


def _stft_args(sequence_length, sequence_stride, fft_length, op):
    sequence_length = _length(sequence_length, "sequence_length", op)
    sequence_stride = _length(sequence_stride, "sequence_stride", op)
    fft_length = _length(fft_length, "fft_length", op)
    if fft_length < sequence_length:
        raise ValueError(at_user(f"{op}: expected fft_length >= sequence_length, received "
                                 f"sequence_length={sequence_length}, fft_length={fft_length}"))
    return sequence_length, sequence_stride, fft_length


def _batched(x):
    """x (..., L) as (B, L, 1) and the leading shape to restore."""
    lead = tuple(x.shape[:-1])
    if any(d is None for d in lead[1:]):
        raise ShapeError(at_user(f"stft: expected known sizes but the first, received shape "
                                 f"{x.shape}"))
    return reshape(x, (-1, x.shape[-1], 1)), lead


def _unbatch(y, lead, tail):
    return reshape(y, (-1,) + lead[1:] + tail) if lead else reshape(y, tail)


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Short-time Fourier transform along the last axis, as `keras.ops.stft`.

    Args:
        x: float tensor (..., samples).
        sequence_length: frame length (the window's length).
        sequence_stride: hop between frames.
        fft_length: DFT length, >= sequence_length (the window is zero-padded to it,
            centered).
        window: "hann", "hamming" (scipy's periodic windows), an array of
            sequence_length values, or None (all ones).
        center: reflect-pad fft_length // 2 samples at both ends first.

    Returns:
        A tuple (real, imag) of shape (..., frames, fft_length // 2 + 1).

    Example:
        >>> import numpy as np, paddle as pd
        >>> re, im = pd.ops.stft(np.ones(16, np.float32), 8, 4, 8, window=None)
        >>> re.shape, float(re.numpy()[0, 0])
        ((5, 5), 8.0)
    """
    op = "stft"
    sequence_length, sequence_stride, fft_length = _stft_args(
        sequence_length, sequence_stride, fft_length, op)
    x = as_tensor(x)
    if x.dtype not in FLOATS:
        raise TypeError(at_user(f"{op}: expected a float32 or float64 input, received "
                                f"{x.dtype}"))
    if x.ndim < 1 or x.shape[-1] is None:
        raise ShapeError(at_user(f"{op}: expected an input with a known last axis, received "
                                 f"shape {x.shape}"))
    win = _window(window, sequence_length, fft_length, op)
    win = np.ones(fft_length) if win is None else win
    length = x.shape[-1]
    if center:
        half = fft_length // 2
        if half >= length:
            raise ValueError(at_user(f"{op}: reflect padding by fft_length // 2 = {half} needs "
                                     f"more than {half} samples, received {length}"))
        index = np.arange(-half, length + half)
        index = np.abs(index)
        index = np.where(index >= length, 2 * (length - 1) - index, index)
        x = gather(x, constant(index.astype(np.int64)), axis=x.ndim - 1)
        length += 2 * half
    if length < fft_length:
        raise ValueError(at_user(f"{op}: expected at least fft_length = {fft_length} samples "
                                 f"(after centering), received {length}"))
    c, s = _rfft_matrices(fft_length, fft_length)
    filters = np.concatenate([c, s], axis=1) * win[:, None]   # (fft_length, 2 * bins)
    signal, lead = _batched(x)
    y = conv1d(signal, _const(filters[:, None, :], x), strides=sequence_stride)
    bins = fft_length // 2 + 1
    frames = y.shape[1]
    real = _unbatch(y[:, :, :bins], lead, (frames, bins))
    imag = _unbatch(y[:, :, bins:], lead, (frames, bins))
    return real, imag


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """Inverse short-time Fourier transform (windowed overlap-add), as `keras.ops.istft`.

    Args:
        x: a tuple (real, imag) of float tensors (..., frames, bins).
        sequence_length, sequence_stride, fft_length, window, center: as in `stft`.
        length: the number of samples to return (default: all, less the centering
            padding when center is True).

    Returns:
        A float tensor (..., samples).

    Example:
        >>> import numpy as np, paddle as pd
        >>> signal = np.sin(np.arange(32) / 3.0).astype(np.float32)
        >>> back = pd.ops.istft(pd.ops.stft(signal, 8, 2, 8), 8, 2, 8, length=32)
        >>> bool(np.allclose(back.numpy(), signal, atol=1e-5))
        True
    """
    op = "istft"
    sequence_length, sequence_stride, fft_length = _stft_args(
        sequence_length, sequence_stride, fft_length, op)
    real, imag = _pair(x, op, rank=2)
    if length is not None and (not is_int(length) or length < 0):
        raise ValueError(at_user(f"{op}: expected length as an int >= 0 or None, received "
                                 f"{length!r}"))
    frames, bins = real.shape[-2:]
    given = _window(window, sequence_length, fft_length, op)
    win = np.ones(fft_length) if given is None else given
    c, s = _irfft_matrices(bins, fft_length)
    kernel = np.concatenate([c, s], axis=0).T * win[:, None]   # (fft_length, 2 * bins)
    lead = tuple(real.shape[:-2])
    spectrum = concat([real, imag], axis=-1)
    spectrum = reshape(spectrum, (-1, frames, 2 * bins))
    out = conv_transpose(spectrum, _const(kernel[:, None, :], real), strides=sequence_stride,
                         padding="valid")
    total = out.shape[1]
    # scipy's normalization by the overlapped squared window, then Keras's scale
    norm = np.zeros(total)
    for f in range(frames):  # one slice per frame, on the host, once
        norm[f * sequence_stride:f * sequence_stride + fft_length] += win ** 2
    scale = win.sum() / np.where(norm > 1e-10, norm, 1.0)
    scale /= win.sum() if given is not None else sequence_stride
    out = reshape(out, (-1, total)) * _const(scale, real)
    start = fft_length // 2 if center else 0
    expected = fft_length + sequence_stride * (frames - 1)
    if length is not None:
        end = start + length
    else:
        end = total - fft_length // 2 if center else expected
    end = min(end, total)
    out = out[:, start:end]
    return reshape(out, (-1,) + lead[1:] + (out.shape[-1],)) if lead else \
        reshape(out, (out.shape[-1],))
