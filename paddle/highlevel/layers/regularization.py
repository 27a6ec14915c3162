"""Regularization layers: Dropout, SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout,
AlphaDropout and ActivityRegularization.

Each noise layer draws its noise in C++ on every training run and is the identity at
inference.

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.layers.Dropout(0.5)(np.ones((2, 3), np.float32)).tolist()   # inference: identity
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
"""
import numbers

from paddle import _settings as settings
from paddle.lowlevel.ops.math import cast, greater_equal
from paddle.lowlevel.ops.nn import dropout
from paddle.lowlevel.ops.sampling import random as random_op
from paddle.lowlevel.random_state import next_seed
from paddle.random import SeedGenerator, keep_mask
from paddle.highlevel import regularizers
from paddle.highlevel.layers.base import InputSpec, Layer, passthrough


class Dropout(Layer):
    """Zeroes a fraction `rate` of the inputs in training and scales the rest by
    1 / (1 - rate) (`pd.dropout`); the identity at inference.

    Whether it drops follows the plan: `fit` and `train_on_batch` (and `pd.eval(...,
    training=True)`) drop, `predict` and `evaluate` do not.

    Args:
        rate: fraction of the inputs to drop, in [0, 1).
        noise_shape: the shape of the mask, broadcast against the input (Keras's): one
            entry per input axis, each None (the input's size), 1 (one draw shared along
            that axis) or the input's size; `(None, 1, None)` drops the same features at
            every step of a sequence. Default: a draw per element.
        seed: kept in the config for Keras compatibility; the masks come from paddle's
            random state, so `pd.seed(n)` makes them reproducible.

    Raises:
        ValueError: a rate outside [0, 1), a seed that is not an int, a noise_shape that is
            not a sequence of None or ints >= 1, or one that does not fit the input.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Dropout(0.2)(pd.layers.Input(shape=(8,))).shape
        (None, 8)
    """

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(rate, numbers.Real) or isinstance(rate, bool) or not 0 <= rate < 1:
            raise ValueError(f"Dropout: expected a rate in [0, 1), received {rate!r}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"Dropout: expected an integer seed or None, received {seed!r}")
        self.rate, self.seed = float(rate), seed
        self.noise_shape = _noise_shape(noise_shape, self.name)

    def build(self, input_shape):
        if self.noise_shape is None:
            return
        if len(self.noise_shape) != len(input_shape) or any(
                n not in (None, 1) and n != size and size is not None
                for n, size in zip(self.noise_shape, input_shape)):
            raise ValueError(f"{self.name}: expected a noise_shape of {len(input_shape)} "
                             f"entries, each None, 1 or the input's size, received "
                             f"{self.noise_shape} for an input of shape {tuple(input_shape)}")

    def call(self, inputs, training=False):
        if self.noise_shape is None:
            return dropout(inputs, self.rate)  # the fused op
        if self.rate == 0:
            return passthrough(inputs)
        # Sizes equal to the input's are drawn per element, as None is.
        noise = [None if n != 1 else 1 for n in self.noise_shape]
        return inputs * keep_mask(inputs, self.rate, noise, next_seed, training_only=True)

    def get_config(self):
        noise = None if self.noise_shape is None else list(self.noise_shape)
        return {**super().get_config(), "rate": self.rate, "noise_shape": noise,
                "seed": self.seed}


def _noise_shape(value, layer):
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{layer}: expected noise_shape as a tuple of None or ints >= 1, "
                         f"received {value!r}")
    value = tuple(value)
    for n in value:
        if n is not None and (isinstance(n, bool) or not isinstance(n, numbers.Integral)
                              or n < 1):
            raise ValueError(f"{layer}: expected noise_shape as a tuple of None or ints >= 1, "
                             f"received {value!r}")
    return tuple(None if n is None else int(n) for n in value)


def _rate(value, layer):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0 <= value < 1:
        raise ValueError(f"{layer}: expected a rate in [0, 1), received {value!r}")
    return float(value)


def seeds(value, layer):
    """(seed, seed function) of a layer that draws random numbers: the seed checked, and
    what gives each draw its seed: a SeedGenerator of the layer's own when a seed is given
    (a new draw each step, the same sequence in every run), paddle's random state
    (pd.seed) without one."""
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or
                              not 0 <= value < 2 ** 63):
        raise ValueError(f"{layer}: expected an integer seed in [0, 2**63) or None, received "
                         f"{value!r}")
    return value, next_seed if value is None else SeedGenerator(value).next


class _Noise(Layer):
    """Base of the layers that draw noise in training runs only: a seed gives the layer a
    SeedGenerator of its own (a new draw each step, the same sequence in every run);
    without one, the draws come from paddle's random state (pd.seed)."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed, self._seed_fn = seeds(seed, type(self).__name__)

    def get_config(self):
        return {**super().get_config(), "seed": self.seed}


class SpatialDropout1D(_Noise):
    """Dropout of whole feature maps: in training, each (example, channel) of a
    (batch, steps, channels) input is dropped at every step together (Keras's noise shape
    (batch, 1, channels)); the identity at inference.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.SpatialDropout1D(0.5)(np.ones((1, 2, 3), np.float32)).tolist()[0][0]
        [1.0, 1.0, 1.0]
    """

    rank = 1

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed, **kwargs)
        self.rate = _rate(rate, type(self).__name__)
        self.data_format = "channels_last"
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape):
        self.input_spec.check(self, input_shape)

    def call(self, inputs, training=False):
        if self.rate == 0:
            return passthrough(inputs)
        noise = [None] + [1] * self.rank + [None]
        if self.data_format == "channels_first":
            noise = [None, None] + [1] * self.rank
        return inputs * keep_mask(inputs, self.rate, noise, self._seed_fn, training_only=True)

    def get_config(self):
        config = {**super().get_config(), "rate": self.rate}
        config.pop("trainable")  # Keras's spatial dropouts take no `trainable` (nor save it)
        return config


class SpatialDropout2D(SpatialDropout1D):
    """Dropout of whole channels of images (noise shape (batch, 1, 1, channels), or
    (batch, channels, 1, 1) with data_format="channels_first"); the identity at inference.

    Example:
        >>> import paddle as pd
        >>> pd.layers.SpatialDropout2D(0.2)(pd.layers.Input(shape=(8, 8, 4))).shape
        (None, 8, 8, 4)
    """

    rank = 2

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed, **kwargs)
        data_format = settings.image_data_format() if data_format is None else data_format
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(f"{type(self).__name__}: expected data_format 'channels_last' or "
                             f"'channels_first', received {data_format!r}")
        self.data_format = data_format

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class SpatialDropout3D(SpatialDropout2D):
    """Dropout of whole channels of volumes (noise shape (batch, 1, 1, 1, channels), or
    (batch, channels, 1, 1, 1) with data_format="channels_first"); the identity at
    inference.

    Args:
        rate: fraction of the channels to drop, in [0, 1).
        data_format: "channels_last" (default) or "channels_first".
        seed: an int for a layer-own sequence of masks, or None (paddle's random state).

    Example:
        >>> import paddle as pd
        >>> pd.layers.SpatialDropout3D(0.2)(pd.layers.Input(shape=(4, 4, 4, 2))).shape
        (None, 4, 4, 4, 2)
    """

    rank = 3


class AlphaDropout(_Noise):
    """Dropout that keeps the mean and variance of its inputs (for SELU networks): in
    training, dropped inputs are set to SELU's negative saturation value and the result is
    scaled and shifted back, as Keras does; the identity at inference.

    Args:
        rate: fraction of the inputs to drop, in [0, 1).
        noise_shape: the shape of the mask, as Dropout's (None entries: the input's size).
        seed: an int for a layer-own sequence of masks, or None (paddle's random state).

    Raises:
        ValueError: a rate outside [0, 1), a bad seed or noise_shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.AlphaDropout(0.5)(np.ones((1, 3), np.float32)).tolist()  # inference
        [[1.0, 1.0, 1.0]]
    """

    supports_masking = True
    _ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(seed, **kwargs)
        self.rate = _rate(rate, "AlphaDropout")
        self.noise_shape = _noise_shape(noise_shape, "AlphaDropout")

    def build(self, input_shape):
        if self.noise_shape is not None and len(self.noise_shape) != len(input_shape):
            raise ValueError(f"{self.name}: expected a noise_shape of {len(input_shape)} "
                             f"entries, received {self.noise_shape} for an input of shape "
                             f"{tuple(input_shape)}")

    def call(self, inputs, training=False):
        if self.rate == 0:
            return passthrough(inputs)
        shape = (None,) * inputs.ndim if self.noise_shape is None else tuple(
            None if n != 1 else 1 for n in self.noise_shape)
        # kept: 1 or 0 in training runs; -1 outside them, which marks inference below.
        draw = random_op(shape, "uniform", 0.0, 1.0, inputs.dtype, inputs, self._seed_fn,
                         inference_value=-1.0)
        kept = cast(greater_equal(draw, self.rate), inputs.dtype)
        training_run = cast(greater_equal(draw, 0.0), inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * self._ALPHA_P ** 2)) ** -0.5
        b = -a * self._ALPHA_P * self.rate
        dropped = a * (inputs * kept + self._ALPHA_P * (1.0 - kept)) + b
        return inputs * (1.0 - training_run) + dropped * training_run

    def get_config(self):
        noise = None if self.noise_shape is None else list(self.noise_shape)
        return {**super().get_config(), "rate": self.rate, "noise_shape": noise}


class ActivityRegularization(Layer):
    """The identity, adding `l1 * sum(|x|) + l2 * sum(x**2)` of its inputs to the layer's
    losses (Keras's activity regularization, a `pd.regularizers.L1L2` penalty).

    Args:
        l1, l2: the factors (floats >= 0).

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.ActivityRegularization(l1=0.5)
        >>> layer(np.array([[1.0, -2.0]], np.float32)).tolist()
        [[1.0, -2.0]]
    """

    supports_masking = True

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        kwargs.pop("activity_regularizer", None)  # ours is made from l1 and l2
        l1 = regularizers._factor(l1, "l1", "ActivityRegularization")
        l2 = regularizers._factor(l2, "l2", "ActivityRegularization")
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def call(self, inputs):
        return passthrough(inputs)

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}


class GaussianNoise(_Noise):
    """Adds zero-mean normal noise of standard deviation `stddev` in training; the identity
    at inference (a regularizer, as in Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.GaussianNoise(0.1)(np.ones((1, 2), np.float32)).tolist()
        [[1.0, 1.0]]
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(seed, **kwargs)
        if not isinstance(stddev, numbers.Real) or isinstance(stddev, bool) or \
                not 0 <= stddev < float("inf"):
            raise ValueError(f"GaussianNoise: expected stddev >= 0 (a finite number), received "
                             f"{stddev!r}")
        self.stddev = float(stddev)

    def call(self, inputs, training=False):
        if self.stddev == 0:
            return passthrough(inputs)
        noise = random_op((None,) * inputs.ndim, "normal", 0.0, self.stddev, inputs.dtype,
                          inputs, self._seed_fn, inference_value=0.0)
        return inputs + noise

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev}


class GaussianDropout(_Noise):
    """Multiplies by normal noise of mean 1 and standard deviation sqrt(rate / (1 - rate))
    in training; the identity at inference.

    Example:
        >>> import paddle as pd
        >>> pd.layers.GaussianDropout(0.3)(pd.layers.Input(shape=(5,))).shape
        (None, 5)
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed, **kwargs)
        self.rate = _rate(rate, "GaussianDropout")

    def call(self, inputs, training=False):
        if self.rate == 0:
            return passthrough(inputs)
        std = (self.rate / (1.0 - self.rate)) ** 0.5
        noise = random_op((None,) * inputs.ndim, "normal", 1.0, std, inputs.dtype, inputs,
                          self._seed_fn, inference_value=1.0)
        return inputs * noise

    def get_config(self):
        return {**super().get_config(), "rate": self.rate}
