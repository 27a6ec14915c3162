"""Initializers: named ones ("glorot_uniform", ...) and objects (Normal, Uniform, Constant).

All draw from paddle's random state, so `pd.seed(n)` makes initialization reproducible.
Fans follow Keras: for a kernel (..., in, out) the receptive field multiplies both.

Example:
    >>> import paddle as pd
    >>> pd.initializers.get("he_normal")((3, 4), "float32").shape
    (3, 4)
"""
import math

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
    def __init__(self, value=0.0):
        self.value = float(value)

    def __call__(self, shape, dtype):
        return np.full(shape, self.value, dtype=dtype)


class Normal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05):
        self.mean, self.stddev = float(mean), float(stddev)

    def __call__(self, shape, dtype):
        return (generator().normal(self.mean, self.stddev, shape)).astype(dtype)


class Uniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05):
        self.minval, self.maxval = float(minval), float(maxval)

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


NAMED = {
    "zeros": lambda: Constant(0.0),
    "ones": lambda: Constant(1.0),
    "glorot_uniform": lambda: VarianceScaling(1.0, "fan_avg", "uniform"),
    "glorot_normal": lambda: VarianceScaling(1.0, "fan_avg", "truncated_normal"),
    "he_normal": lambda: VarianceScaling(2.0, "fan_in", "truncated_normal"),
    "he_uniform": lambda: VarianceScaling(2.0, "fan_in", "uniform"),
    "lecun_normal": lambda: VarianceScaling(1.0, "fan_in", "truncated_normal"),
    "lecun_uniform": lambda: VarianceScaling(1.0, "fan_in", "uniform"),
}


def get(initializer):
    """An initializer from a name, an Initializer, or any callable(shape, dtype)."""
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
    """A name or {'class_name', 'config'} for saving a layer's config."""
    for name, make in NAMED.items():
        made = make()
        if type(made) is type(initializer) and made.get_config() == initializer.get_config():
            return name
    if isinstance(initializer, Initializer):
        return {"class_name": type(initializer).__name__, "config": initializer.get_config()}
    return initializer


def deserialize(config):
    if isinstance(config, dict):
        cls = {"Constant": Constant, "Normal": Normal, "Uniform": Uniform,
               "VarianceScaling": VarianceScaling}[config["class_name"]]
        return cls(**config["config"])
    return get(config)
