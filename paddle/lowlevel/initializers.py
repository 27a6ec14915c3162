"""Initializers: named ones ("glorot_uniform", ...) and objects, under Keras's class names
(GlorotUniform, RandomNormal, ...) and paddle's (Normal, Uniform).

Unseeded ones draw from paddle's random state, so `pd.seed(n)` makes initialization
reproducible; one given `seed=n` draws the same values at every call, as a seeded Keras
initializer does (paddle's numbers, not Keras's: the generators differ).
Fans follow Keras: for a kernel (..., in, out) the receptive field multiplies both.

Example:
    >>> import paddle as pd
    >>> pd.initializers.get("he_normal")((3, 4), "float32").shape
    (3, 4)
"""
import inspect
import math
import numbers
import re

import numpy as np

from paddle import _settings as settings
from paddle.lowlevel.random_state import generator


def _fans(shape):
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


def _truncated_normal(shape, std, gen):
    """Normal(0, std) redrawn beyond two standard deviations, as Keras does."""
    out = gen.standard_normal(shape)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    return out * std


def _seed(seed, owner):
    """None or a seed for NumPy's generator (an int >= 0)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)
                             or seed < 0):
        raise ValueError(f"{owner}: expected seed as None or an int >= 0, received {seed!r}")
    return None if seed is None else int(seed)


def _dtype(dtype):
    """The dtype of an initializer's values: `pd.config.floatx()` (float32 unless set)
    when none is given, as Keras's `init(shape)`."""
    return settings.floatx() if dtype is None else dtype


class Initializer:
    """Base class: `init(shape, dtype=None) -> array` (`pd.config.floatx()` without a
    dtype, as Keras); `get_config()` for saving."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError

    def get_config(self):
        return dict(self.__dict__)

    def _generator(self):
        """paddle's random state, or a new generator of this initializer's seed."""
        seed = getattr(self, "seed", None)
        return generator() if seed is None else np.random.default_rng(seed)


class Constant(Initializer):
    """`value` everywhere (`v=` is accepted for it, the contract's name)."""

    def __init__(self, value=0.0, *, v=None):
        self.value = float(value if v is None else v)

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        return np.full(shape, self.value, dtype=dtype)


class Normal(Initializer):
    """Normal(mean, stddev) draws (`std=` is accepted for `stddev`, the contract's name);
    Keras's `RandomNormal`."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, *, std=None):
        self.mean, self.stddev = float(mean), float(stddev if std is None else std)
        self.seed = _seed(seed, type(self).__name__)

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        return (self._generator().normal(self.mean, self.stddev, shape)).astype(dtype)


class Uniform(Initializer):
    """Uniform draws in [minval, maxval) (`lo=`/`hi=` are accepted, the contract's names);
    Keras's `RandomUniform`."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None, *, lo=None, hi=None):
        self.minval = float(minval if lo is None else lo)
        self.maxval = float(maxval if hi is None else hi)
        self.seed = _seed(seed, type(self).__name__)

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        return self._generator().uniform(self.minval, self.maxval, shape).astype(dtype)


class TruncatedNormal(Initializer):
    """Normal(mean, stddev) draws, those beyond two standard deviations redrawn (Keras)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = float(mean), float(stddev)
        self.seed = _seed(seed, "TruncatedNormal")

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        return (self.mean + _truncated_normal(shape, self.stddev, self._generator())).astype(
            dtype)


class VarianceScaling(Initializer):
    """Keras' family: glorot, he and lecun, uniform or truncated normal."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        self.scale, self.mode, self.distribution = float(scale), mode, distribution
        self.seed = _seed(seed, type(self).__name__)

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        var = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * var)
            return self._generator().uniform(-limit, limit, shape).astype(dtype)
        # 0.8796... is the std of a unit normal truncated at two standard deviations.
        return _truncated_normal(shape, math.sqrt(var) / 0.87962566103423978,
                                 self._generator()).astype(dtype)


class _NamedVarianceScaling(VarianceScaling):
    """Keras's named members of the family: only `seed` is theirs to choose."""
    ARGS = ()

    def __init__(self, seed=None):
        super().__init__(*self.ARGS, seed=seed)

    def get_config(self):
        return {"seed": self.seed}


class GlorotUniform(_NamedVarianceScaling):
    """Uniform in +-sqrt(6 / (fan_in + fan_out)): Keras's default kernel initializer."""
    ARGS = (1.0, "fan_avg", "uniform")


class GlorotNormal(_NamedVarianceScaling):
    """Truncated normal of variance 2 / (fan_in + fan_out)."""
    ARGS = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_NamedVarianceScaling):
    """Truncated normal of variance 2 / fan_in."""
    ARGS = (2.0, "fan_in", "truncated_normal")


class HeUniform(_NamedVarianceScaling):
    """Uniform in +-sqrt(6 / fan_in)."""
    ARGS = (2.0, "fan_in", "uniform")


class LecunNormal(_NamedVarianceScaling):
    """Truncated normal of variance 1 / fan_in."""
    ARGS = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_NamedVarianceScaling):
    """Uniform in +-sqrt(3 / fan_in)."""
    ARGS = (1.0, "fan_in", "uniform")


class Zeros(Constant):
    """0 everywhere."""

    def __init__(self):
        super().__init__(0.0)

    def get_config(self):
        return {}


class Ones(Constant):
    """1 everywhere."""

    def __init__(self):
        super().__init__(1.0)

    def get_config(self):
        return {}


class Orthogonal(Initializer):
    """A random orthogonal matrix (QR of a Gaussian one, signs fixed as Keras does) * gain:
    Keras's default for recurrent kernels."""

    def __init__(self, gain=1.0, seed=None):
        self.gain = float(gain)
        self.seed = _seed(seed, "Orthogonal")

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        q, r = np.linalg.qr(self._generator().standard_normal((max(rows, cols),
                                                               min(rows, cols))))
        q = q * np.sign(np.diag(r))  # makes the distribution uniform over orthogonal matrices
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape).astype(dtype)


class Identity(Initializer):
    """`gain` times the identity matrix, for 2-D weights (Keras's `IdentityInitializer`,
    also `pd.initializers.identity`); a non-square shape gets ones on its main diagonal.

    Example:
        >>> import paddle as pd
        >>> pd.initializers.Identity(gain=2.0)((2, 3)).tolist()
        [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    """

    def __init__(self, gain=1.0):
        self.gain = float(gain)

    def __call__(self, shape, dtype=None):
        dtype = settings.floatx() if dtype is None else dtype  # Keras: floatx()
        if len(shape) != 2:
            raise ValueError(f"Identity: the identity matrix initializer can only be used "
                             f"for 2-D weights, received shape {tuple(shape)}")
        return (self.gain * np.eye(*shape)).astype(dtype)


def _window_values(window, length, periodic, owner):
    """scipy.signal.get_window's "hann" / "hamming" (symmetric, or periodic: DFT-even) of
    `length`, or an array of `length` values, in float64."""
    if isinstance(window, str):
        a = 0.5 if window == "hann" else 0.54
        if length == 1:
            return np.ones(1)
        t = np.arange(length) / (length if periodic else length - 1)
        return a - (1.0 - a) * np.cos(2.0 * np.pi * t)
    win = np.asarray(window, np.float64)
    if win.shape != (length,):
        raise ValueError(f"{owner}: the shape of window must be ({length},) (the frame "
                         f"length), received {win.shape}")
    return win


class STFT(Initializer):
    """The real or imaginary DFT filters of a short-time Fourier transform, windowed, for
    a (frame_length, 1, fft_length // 2 + 1) Conv1D kernel (Keras's `STFT`, also
    `STFTInitializer`): kernel[t, 0, f] = cos or sin(-2 pi t f / fft_length) * window[t]
    / scaling.

    Args:
        side: "real" (cosines) or "imag" (sines).
        window: "hann", "hamming", an array of frame_length values, or None.
        scaling: "density" (divide by the window's L2 norm), "spectrum" (by its sum) or
            None.
        periodic: the periodic (DFT-even) window instead of the symmetric one.

    Example:
        >>> import paddle as pd
        >>> k = pd.initializers.STFT("real", window=None, scaling=None)((4, 1, 3))
        >>> (k[:, 0, 1].round(6) + 0.0).tolist()   # cos(-2 pi t / 4), t = 0..3
        [1.0, 0.0, -1.0, 0.0]
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError(f"STFT: expected side 'real' or 'imag', received {side!r}")
        if isinstance(window, str) and window not in ("hann", "hamming"):
            raise ValueError(f"STFT: expected window 'hann', 'hamming', an array or None, "
                             f"received {window!r}")
        if scaling not in (None, "density", "spectrum"):
            raise ValueError(f"STFT: expected scaling None, 'density' or 'spectrum', "
                             f"received {scaling!r}")
        self.side, self.window, self.scaling = side, window, scaling
        self.periodic = bool(periodic)

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        if len(shape) != 3:
            raise ValueError(f"STFT: expected a kernel shape (frame_length, channels, "
                             f"fft_length // 2 + 1), received {tuple(shape)}")
        frame_length, _, bins = shape
        f32 = np.dtype(dtype)
        time = np.arange(frame_length, dtype=f32).reshape(frame_length, 1, 1)
        freq = np.arange(bins, dtype=f32).reshape(1, 1, bins) / f32.type((bins - 1) * 2)
        args = (f32.type(-2) * time * freq) * f32.type(np.pi)
        kernel = np.cos(args) if self.side == "real" else np.sin(args)
        if self.window is not None:
            win = _window_values(self.window, frame_length, self.periodic, "STFT")
            win = win.astype(f32).reshape(frame_length, 1, 1)
            scaling = np.sqrt(np.sum(np.square(win))) if self.scaling == "density" else \
                np.sum(np.abs(win)) if self.scaling == "spectrum" else 1
            kernel = kernel * win / scaling
        return np.broadcast_to(kernel, tuple(shape)).astype(dtype)

    def get_config(self):
        window = self.window if self.window is None or isinstance(self.window, str) else \
            np.asarray(self.window).tolist()
        return {"side": self.side, "window": window, "periodic": self.periodic,
                "scaling": self.scaling}


NAMED = {
    "zeros": lambda: Constant(0.0),
    "ones": lambda: Constant(1.0),
    "glorot_uniform": lambda: VarianceScaling(1.0, "fan_avg", "uniform"),
    "glorot_normal": lambda: VarianceScaling(1.0, "fan_avg", "truncated_normal"),
    "he_normal": lambda: VarianceScaling(2.0, "fan_in", "truncated_normal"),
    "he_uniform": lambda: VarianceScaling(2.0, "fan_in", "uniform"),
    "lecun_normal": lambda: VarianceScaling(1.0, "fan_in", "truncated_normal"),
    "lecun_uniform": lambda: VarianceScaling(1.0, "fan_in", "uniform"),
    "orthogonal": lambda: Orthogonal(1.0),
    "identity": lambda: Identity(1.0),
    # Keras's plain "uniform" and "normal" (random_uniform / random_normal defaults).
    "uniform": lambda: Uniform(-0.05, 0.05),
    "random_uniform": lambda: Uniform(-0.05, 0.05),
    "normal": lambda: Normal(0.0, 0.05),
    "random_normal": lambda: Normal(0.0, 0.05),
}

# Keras class names, so that Keras can rebuild a config paddle wrote, and the reverse.
RandomNormal, RandomUniform = Normal, Uniform
KERAS_CLASSES = {"Constant": Constant, "RandomNormal": Normal, "RandomUniform": Uniform,
                 "TruncatedNormal": TruncatedNormal, "VarianceScaling": VarianceScaling,
                 "Orthogonal": Orthogonal, "GlorotUniform": GlorotUniform,
                 "GlorotNormal": GlorotNormal, "HeNormal": HeNormal, "HeUniform": HeUniform,
                 "LecunNormal": LecunNormal, "LecunUniform": LecunUniform, "Zeros": Zeros,
                 "Ones": Ones, "Identity": Identity, "IdentityInitializer": Identity,
                 "OrthogonalInitializer": Orthogonal, "STFT": STFT, "STFTInitializer": STFT}
CLASSES = dict(KERAS_CLASSES, Normal=Normal, Uniform=Uniform)
# Keras 3's class names of these two (keras.initializers.IdentityInitializer, ...).
IdentityInitializer, OrthogonalInitializer, identity = Identity, Orthogonal, Identity
STFTInitializer, stft = STFT, STFT
# Keras's lowercase names for the same classes (keras.initializers.glorot_uniform).
constant, random_normal, random_uniform, truncated_normal = (
    Constant, Normal, Uniform, TruncatedNormal)
variance_scaling, orthogonal, zeros, ones = VarianceScaling, Orthogonal, Zeros, Ones
glorot_uniform, glorot_normal, he_normal, he_uniform, lecun_normal, lecun_uniform = (
    GlorotUniform, GlorotNormal, HeNormal, HeUniform, LecunNormal, LecunUniform)


def get(initializer):
    """An initializer from a name, a saved {'class_name', 'config'}, an Initializer, or any
    callable(shape, dtype)."""
    if isinstance(initializer, dict):
        return deserialize(initializer)
    if isinstance(initializer, str):
        key = initializer.lower()
        if key not in NAMED:
            raise ValueError(f"initializer: unknown name {initializer!r}; expected one of "
                             f"{', '.join(sorted(NAMED))}")
        return NAMED[key]()
    if callable(initializer):
        return initializer
    raise TypeError(f"initializer: expected a name or a callable, received {initializer!r}")


def serialize(initializer):
    """A name ("glorot_uniform") or Keras's {'class_name', 'config'} for saving a config."""
    for name, make in NAMED.items():
        made = make()
        if isinstance(initializer, (VarianceScaling, Constant)) and \
                _values(made) == _values(initializer):
            return name
        if type(made) is type(initializer) and made.get_config() == initializer.get_config():
            return name
    for keras_name, cls in KERAS_CLASSES.items():
        if type(initializer) is cls:
            config = initializer.get_config()
            if cls not in (Constant, Zeros, Ones, Identity, STFT):
                config = {"seed": None, **config}
            return {"class_name": keras_name, "config": config}
    return initializer


def _values(initializer):
    """What decides an unseeded VarianceScaling's or Constant's draws (None if seeded)."""
    if getattr(initializer, "seed", None) is not None:
        return None
    if isinstance(initializer, VarianceScaling):
        return ("vs", initializer.scale, initializer.mode, initializer.distribution)
    if isinstance(initializer, Constant):
        return ("const", initializer.value)
    return ("other", type(initializer), tuple(sorted(initializer.get_config().items())))


def deserialize(config):
    """The initializer of a name or {'class_name', 'config'} (Keras's or paddle's)."""
    if isinstance(config, dict):
        name = config.get("class_name")
        cls = CLASSES.get(name)
        if cls is None:
            # Keras 3 writes its named initializers as classes: GlorotUniform, Zeros, ...
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", str(name)).lower()
            if snake in NAMED:
                return NAMED[snake]()
            raise ValueError(f"initializer: unknown class {name!r}; expected one of "
                             f"{', '.join(sorted(CLASSES))} or a Keras name such as "
                             f"GlorotUniform")
        accepted = inspect.signature(cls.__init__).parameters
        # Keras adds arguments paddle does not have (input_axes): unset ones are dropped.
        kwargs = {k: v for k, v in (config.get("config") or {}).items()
                  if k in accepted or v is not None}
        return cls(**kwargs)
    return get(config)
