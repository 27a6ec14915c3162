"""Initializers: named ones ("glorot_uniform", ...) and objects (Normal, Uniform, Constant).

All draw from paddle's random state, so `pd.seed(n)` makes initialization reproducible.
Fans follow Keras: for a kernel (..., in, out) the receptive field multiplies both.

Example:
    >>> import paddle as pd
    >>> pd.initializers.get("he_normal")((3, 4), "float32").shape
    (3, 4)
"""
import math

import inspect
import re

import numpy as np

from paddle.lowlevel.random import generator


def _fans(shape):
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


def _truncated_normal(shape, std):
    """Normal(0, std) redrawn beyond two standard deviations, as Keras does."""
    gen = generator()
    out = gen.standard_normal(shape)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    return out * std


class Initializer:
    """Base class: `init(shape, dtype) -> array`; `get_config()` for saving."""

    def __call__(self, shape, dtype):
        raise NotImplementedError

    def get_config(self):
        return dict(self.__dict__)


class Constant(Initializer):
    """`value` everywhere (`v=` is accepted for it, the contract's name)."""

    def __init__(self, value=0.0, *, v=None):
        self.value = float(value if v is None else v)

    def __call__(self, shape, dtype):
        return np.full(shape, self.value, dtype=dtype)


class Normal(Initializer):
    """Normal(mean, stddev) draws (`std=` is accepted for `stddev`, the contract's name)."""

    def __init__(self, mean=0.0, stddev=0.05, *, std=None):
        self.mean, self.stddev = float(mean), float(stddev if std is None else std)

    def __call__(self, shape, dtype):
        return (generator().normal(self.mean, self.stddev, shape)).astype(dtype)


class Uniform(Initializer):
    """Uniform draws in [minval, maxval) (`lo=`/`hi=` are accepted, the contract's names)."""

    def __init__(self, minval=-0.05, maxval=0.05, *, lo=None, hi=None):
        self.minval = float(minval if lo is None else lo)
        self.maxval = float(maxval if hi is None else hi)

    def __call__(self, shape, dtype):
        return generator().uniform(self.minval, self.maxval, shape).astype(dtype)


class VarianceScaling(Initializer):
    """Keras' family: glorot, he and lecun, uniform or truncated normal."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        self.scale, self.mode, self.distribution = float(scale), mode, distribution

    def __call__(self, shape, dtype):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        var = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * var)
            return generator().uniform(-limit, limit, shape).astype(dtype)
        # 0.8796... is the std of a unit normal truncated at two standard deviations.
        return _truncated_normal(shape, math.sqrt(var) / 0.87962566103423978).astype(dtype)


class Orthogonal(Initializer):
    """A random orthogonal matrix (QR of a Gaussian one, signs fixed as Keras does) * gain:
    Keras's default for recurrent kernels."""

    def __init__(self, gain=1.0):
        self.gain = float(gain)

    def __call__(self, shape, dtype):
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        q, r = np.linalg.qr(generator().standard_normal((max(rows, cols), min(rows, cols))))
        q = q * np.sign(np.diag(r))  # makes the distribution uniform over orthogonal matrices
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape).astype(dtype)


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
    # Keras's plain "uniform" and "normal" (random_uniform / random_normal defaults).
    "uniform": lambda: Uniform(-0.05, 0.05),
    "random_uniform": lambda: Uniform(-0.05, 0.05),
    "normal": lambda: Normal(0.0, 0.05),
    "random_normal": lambda: Normal(0.0, 0.05),
}

# Keras class names, so that Keras can rebuild a config paddle wrote, and the reverse.
KERAS_CLASSES = {"Constant": Constant, "RandomNormal": Normal, "RandomUniform": Uniform,
                 "VarianceScaling": VarianceScaling, "Orthogonal": Orthogonal}
CLASSES = dict(KERAS_CLASSES, Normal=Normal, Uniform=Uniform)


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
        if type(made) is type(initializer) and made.get_config() == initializer.get_config():
            return name
    for keras_name, cls in KERAS_CLASSES.items():
        if type(initializer) is cls:
            return {"class_name": keras_name, "config": {**initializer.get_config(), "seed": None}}
    return initializer


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
        # Keras adds arguments paddle does not have (seed, input_axes): unset ones are dropped.
        kwargs = {k: v for k, v in (config.get("config") or {}).items()
                  if k != "seed" and (k in accepted or v is not None)}
        return cls(**kwargs)
    return get(config)
