"""Spectrogram layers, as Keras's.

MelSpectrogram: audio (batch, samples) -> (batch, num_mel_bins, frames): `pd.ops.stft` (a
real FFT on the host, cuFFT on a GPU), the magnitude to the power `mag_exp`, a product with
the HTK mel filterbank (a constant made once on the host) and, with power_to_db, decibels
clipped `top_db` below the maximum.

STFTSpectrogram: signals (batch, samples, channels) -> (batch, frames, bins * channels):
two strided `pd.ops.conv`s with (trainable) kernels of windowed DFT filters
(`pd.initializers.STFT`), then Keras's modes (log, magnitude, psd, real, imag, angle, stft).

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.MelSpectrogram(fft_length=64, sequence_stride=16, num_mel_bins=8)
    >>> layer(np.zeros((2, 160), np.float32)).shape
    (2, 8, 11)
"""
import math
import numbers
import warnings

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle import _settings as settings
from paddle.lowlevel import initializers
from paddle.lowlevel import ops as ll
from paddle.lowlevel.graph import FLOATS, constant
from paddle.ops.convolutions import conv
from paddle.ops.fft import stft
from paddle.ops.numpy_math import arctan2
from paddle.highlevel.layers.base import InputSpec, Layer, check_flag
from paddle.highlevel.layers.conv import check_data_format

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz):
    return _MEL_HIGH_FREQUENCY_Q * np.log(1.0 + hertz / _MEL_BREAK_FREQUENCY_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins, num_spectrogram_bins, sampling_rate,
                                lower_edge_hertz, upper_edge_hertz):
    """(num_spectrogram_bins, num_mel_bins) triangles of peak 1 on the HTK mel scale, the
    DC bin zero (Keras's and TensorFlow's `linear_to_mel_weight_matrix`), in float32."""
    f32 = np.float32
    linear = np.linspace(f32(0), f32(sampling_rate) / f32(2), num_spectrogram_bins,
                         dtype=f32)[1:]
    bins_mel = _hertz_to_mel(linear)[:, None].astype(f32)
    edges = np.linspace(_hertz_to_mel(f32(lower_edge_hertz)),
                        _hertz_to_mel(f32(upper_edge_hertz)), num_mel_bins + 2).astype(f32)
    lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    lower_slopes = (bins_mel - lower) / (center - lower)
    upper_slopes = (upper - bins_mel) / (upper - center)
    weights = np.maximum(f32(0), np.minimum(lower_slopes, upper_slopes))
    return np.pad(weights, [[1, 0], [0, 0]]).astype(f32)


def _positive(value, what, cls, kind=numbers.Integral):
    if not isinstance(value, kind) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{cls}: expected {what} > 0, received {value!r}")
    return value


class MelSpectrogram(Layer):
    """Mel spectrogram of audio signals: (batch, samples) or (samples,) -> (batch,
    num_mel_bins, frames) or (num_mel_bins, frames), frames = 1 + samples //
    sequence_stride (centered frames).

    Args:
        fft_length: DFT size (2048).
        sequence_stride: hop between frames (512).
        sequence_length: window length, <= fft_length (None: fft_length).
        window: "hann", "hamming" or None.
        sampling_rate: samples per second of the input (16000).
        num_mel_bins: mel bands (128).
        min_freq, max_freq: the band edges in Hz (20, and None: sampling_rate / 2).
        power_to_db: decibels (10 log10 of the power over ref_power, at least min_power,
            clipped to top_db below the largest value of the batch).
        top_db, mag_exp, min_power, ref_power: as Keras (80, 2, 1e-10, 1).

    Example:
        >>> import numpy as np, paddle as pd
        >>> audio = np.sin(np.arange(400) * 0.3).astype(np.float32)[None]
        >>> pd.layers.MelSpectrogram(128, 32, num_mel_bins=16, sampling_rate=8000)(audio).shape
        (1, 16, 13)
    """

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None,
                 window="hann", sampling_rate=16000, num_mel_bins=128, min_freq=20.0,
                 max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0, min_power=1e-10,
                 ref_power=1.0, **kwargs):
        super().__init__(**kwargs)
        cls = type(self).__name__
        self.fft_length = _positive(fft_length, "fft_length", cls)
        self.sequence_stride = _positive(sequence_stride, "sequence_stride", cls)
        self.sequence_length = _positive(sequence_length or fft_length, "sequence_length",
                                         cls)
        if self.fft_length < self.sequence_length:
            raise ValueError(f"{cls}: fft_length must be greater than or equal to "
                             f"sequence_length, received sequence_length="
                             f"{self.sequence_length}, fft_length={self.fft_length}")
        if window not in ("hann", "hamming", None):
            raise ValueError(f"{cls}: expected window 'hann', 'hamming' or None, received "
                             f"{window!r}")
        self.window = window
        self.sampling_rate = _positive(sampling_rate, "sampling_rate", cls, numbers.Real)
        self.num_mel_bins = _positive(num_mel_bins, "num_mel_bins", cls)
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        if not isinstance(min_freq, numbers.Real) or not 0 <= min_freq < self.max_freq:
            raise ValueError(f"{cls}: expected 0 <= min_freq < max_freq, received min_freq="
                             f"{min_freq!r}, max_freq={self.max_freq!r}")
        self.power_to_db = check_flag(power_to_db, "power_to_db", cls)
        self.top_db = _positive(top_db, "top_db", cls, numbers.Real)
        self.mag_exp = _positive(mag_exp, "mag_exp", cls, numbers.Real)
        self.min_power = _positive(min_power, "min_power", cls, numbers.Real)
        self.ref_power = _positive(ref_power, "ref_power", cls, numbers.Real)

    def build(self, input_shape):
        if len(input_shape) != 1:  # one signal's length is the axis an eager build opens
            self._check(input_shape)

    def _check(self, shape):
        if len(shape) not in (1, 2) or shape[-1] is None:
            raise ShapeError(at_user(f"{self.name}: expected audio of shape (batch, samples) "
                                     f"or (samples,) with known samples, received {shape}"))

    def call(self, inputs, training=False):
        self._check(inputs.shape)  # (an eager call builds on (None,) for one signal)
        x = inputs if inputs.dtype in FLOATS else ll.cast(inputs, "float32")
        real, imag = stft(x, self.sequence_length, self.sequence_stride, self.fft_length,
                          window=self.window, center=True)
        spec = ll.pow(ll.sqrt(ll.square(real) + ll.square(imag)), float(self.mag_exp))
        matrix = linear_to_mel_weight_matrix(self.num_mel_bins, spec.shape[-1],
                                             self.sampling_rate, self.min_freq, self.max_freq)
        out = ll.matmul(spec, constant(matrix, dtype=spec.dtype))
        if self.power_to_db:
            log10 = float(np.log(10.0))
            db = 10.0 * (ll.log(ll.maximum(out, float(self.min_power))) / log10)
            db = db - 10.0 * float(np.log10(max(abs(self.ref_power), self.min_power)))
            out = ll.maximum(db, ll.max(db) - float(self.top_db))
        axes = tuple(range(out.ndim - 2)) + (out.ndim - 1, out.ndim - 2)
        return ll.transpose(out, axes)

    def get_config(self):
        return {**super().get_config(), "fft_length": self.fft_length,
                "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": self.window,
                "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
                "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db,
                "mag_exp": self.mag_exp, "min_power": self.min_power,
                "ref_power": self.ref_power}


_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")


class STFTSpectrogram(Layer):
    """Short-time Fourier transform of multi-channel signals as a layer, with the DFT
    filters as (trainable) Conv1D kernels "real_kernel" and "imag_kernel" of shape
    (frame_length, 1, fft_length // 2 + 1), as Keras's.

    Args:
        mode: "log" (log magnitude, default), "magnitude", "psd" (power, the inner bins
            doubled), "real", "imag", "angle" or "stft" (real then imaginary bins).
        frame_length: window length (256).
        frame_step: hop, 1 to frame_length (None: frame_length // 2).
        fft_length: DFT size >= frame_length (None: the next power of two).
        window: "hann", "hamming", an array of frame_length values, or None.
        periodic, scaling: of the window (see `pd.initializers.STFT`).
        padding: "valid" or "same" (of the strided convolution).
        expand_dims: keep channels on an axis of their own: (batch, frames, bins, channels)
            instead of (batch, frames, bins * channels).
        data_format: "channels_last" (batch, samples, channels) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.STFTSpectrogram(mode="magnitude", frame_length=16, frame_step=8)
        >>> layer(np.ones((2, 64, 1), np.float32)).shape
        (2, 7, 9)
    """

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None,
                 window="hann", periodic=False, scaling="density", padding="valid",
                 expand_dims=False, data_format=None, **kwargs):
        cls = type(self).__name__
        frame_length = _positive(frame_length, "frame_length", cls)
        if frame_step is not None and (not isinstance(frame_step, numbers.Integral) or
                                       isinstance(frame_step, bool) or
                                       not 1 <= frame_step <= frame_length):
            raise ValueError(f"{cls}: frame_step should be a positive integer not greater "
                             f"than frame_length, received frame_step={frame_step!r}, "
                             f"frame_length={frame_length}")
        if fft_length is not None and (not isinstance(fft_length, numbers.Integral) or
                                       fft_length < frame_length):
            raise ValueError(f"{cls}: fft_length should be not less than frame_length, "
                             f"received fft_length={fft_length!r}, frame_length="
                             f"{frame_length}")
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn(f"{cls}: fft_length is recommended to be a power of two, "
                          f"received fft_length={fft_length}", stacklevel=2)
        if mode not in _MODES:
            raise ValueError(f"{cls}: expected mode one of {', '.join(_MODES)}, received "
                             f"{mode!r}")
        if padding not in ("valid", "same"):
            raise ValueError(f"{cls}: expected padding 'valid' or 'same', received "
                             f"{padding!r}")
        initializers.STFT("real", window, scaling, periodic)  # checks window and scaling
        super().__init__(**kwargs)
        self.mode, self.frame_length, self.frame_step = mode, frame_length, frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window, self.periodic, self.scaling = window, periodic, scaling
        self.padding = padding
        self.expand_dims = check_flag(expand_dims, "expand_dims", cls)
        self.data_format = check_data_format(data_format, cls)

    def build(self, input_shape):
        channel_axis = -1 if self.data_format == "channels_last" else 1
        if len(input_shape) != 3 or input_shape[channel_axis] is None:
            raise ShapeError(at_user(f"{self.name}: expected signals of rank 3 (batch, "
                                     f"samples, channels in {self.data_format}) with known "
                                     f"channels, received {input_shape}"))
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(
                "real_kernel", shape,
                initializers.STFT("real", self.window, self.scaling, self.periodic))
        if self.mode != "real":
            self.imag_kernel = self.add_weight(
                "imag_kernel", shape,
                initializers.STFT("imag", self.window, self.scaling, self.periodic))
        self.input_spec = InputSpec(ndim=3)

    def _apply_conv(self, x, kernel):
        """(batch, channels, bins, frames): every channel convolved alone."""
        if self.data_format == "channels_last":
            _, steps, channels = x.shape
            x = ll.reshape(ll.transpose(x, (0, 2, 1)), (-1, steps, 1))
        else:
            _, channels, steps = x.shape
            x = ll.reshape(x, (-1, 1, steps))
        y = conv(x, kernel if kernel.dtype == x.dtype else ll.cast(kernel, x.dtype),
                 strides=self._frame_step, padding=self.padding,
                 data_format=self.data_format)
        if self.data_format == "channels_last":
            y = ll.transpose(y, (0, 2, 1))
        return ll.reshape(y, (-1, channels) + tuple(y.shape[1:]))

    def _adjust_shapes(self, y):
        _, channels, bins, frames = y.shape
        if self.expand_dims:
            return ll.transpose(y, (0, 3, 2, 1) if self.data_format == "channels_last"
                                else (0, 1, 3, 2))
        y = ll.reshape(y, (-1, channels * bins, frames))
        return ll.transpose(y, (0, 2, 1)) if self.data_format == "channels_last" else y

    def call(self, inputs, training=False):
        if inputs.dtype not in FLOATS:
            raise TypeError(at_user(f"{self.name}: expected float32 or float64 signals, "
                                    f"received {inputs.dtype}"))
        real = self._apply_conv(inputs, self.real_kernel) if self.mode != "imag" else None
        imag = self._apply_conv(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode == "real":
            return self._adjust_shapes(real)
        if self.mode == "imag":
            return self._adjust_shapes(imag)
        if self.mode == "angle":
            return self._adjust_shapes(arctan2(imag, real))
        if self.mode == "stft":
            return self._adjust_shapes(ll.concat([real, imag], axis=2))
        power = ll.square(real) + ll.square(imag)
        if self.mode == "psd":
            inner = ll.pad(power[:, :, 1:-1, :], ((0, 0), (0, 0), (1, 1), (0, 0)))
            return self._adjust_shapes(power + inner)
        eps = settings.epsilon()
        linear = self._adjust_shapes(ll.sqrt(ll.maximum(power, eps)))
        if self.mode == "magnitude":
            return linear
        return ll.log(ll.maximum(linear, eps))

    def get_config(self):
        window = self.window if self.window is None or isinstance(self.window, str) else \
            np.asarray(self.window).tolist()
        return {**super().get_config(), "mode": self.mode,
                "frame_length": self.frame_length, "frame_step": self.frame_step,
                "fft_length": self.fft_length, "window": window, "periodic": self.periodic,
                "scaling": self.scaling, "padding": self.padding,
                "data_format": self.data_format, "expand_dims": self.expand_dims}
