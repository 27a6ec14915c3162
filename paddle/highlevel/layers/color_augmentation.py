"""Colour augmentation layers, as Keras's: RandomGrayscale, RandomInvert,
RandomColorDegeneration, RandomSaturation, RandomHue, Solarization, AutoContrast, and
RandomColorJitter (brightness, contrast, saturation and hue in turn).

Like the other random image layers (image_preprocessing.py), each draws per image in
training runs and is the identity at inference; AutoContrast is deterministic and always
applies, as Keras's. Keras's arithmetic is followed step by step (the value-range
conversions, the clipping, the order of the colour-space round trips), on `pd.ops.image`'s
`rgb_to_grayscale`, `rgb_to_hsv` and `hsv_to_rgb`.

Example:
    >>> import numpy as np, paddle as pd
    >>> images = np.array([[[[0.0, 128.0, 255.0]]]], np.float32)
    >>> np.asarray(pd.layers.AutoContrast()(images)).tolist()    # each channel stretched
    [[[[0.0, 128.0, 255.0]]]]
"""
import numbers

from paddle.lowlevel.ops.math import cast, clip, greater, greater_equal, less, where
from paddle.lowlevel.ops.reduce import max as reduce_max, min as reduce_min
from paddle.lowlevel.ops.shape import stack, transpose
from paddle.highlevel.layers.image_preprocessing import (
    RandomBrightness, RandomContrast, _RandomImage, _value_range, blend)
from paddle.highlevel.layers.base import Layer
from paddle.ops import image as image_ops
from paddle.lowlevel.graph import FLOATS


def _keras_factor(factor, layer, bounds=(-1.0, 1.0), name="factor"):
    """Keras's `_set_factor`: a number f gives (max(-f, low), f); a pair is sorted."""
    message = (f"{layer}: expected {name} as a number (or a list of two numbers) in the "
               f"range [{bounds[0]}, {bounds[1]}], received {name}={factor!r}")
    if isinstance(factor, (list, tuple)):
        if len(factor) != 2 or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                       for v in factor):
            raise ValueError(message)
        if factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(message)
        return tuple(sorted(float(v) for v in factor))
    if isinstance(factor, numbers.Real) and not isinstance(factor, bool):
        if not bounds[0] <= factor <= bounds[1]:
            raise ValueError(message)
        factor = abs(float(factor))
        return (max(-factor, bounds[0]), factor)
    raise ValueError(message)


def _to_range(images, original, target):
    """Keras's `_transform_value_range`: a linear map of `original` onto `target`."""
    if tuple(original) == tuple(target):
        return images
    scaled = (images - original[0]) / (original[1] - original[0])
    return scaled * (target[1] - target[0]) + target[0]


class _ColorLayer(_RandomImage):
    """A random colour layer with Keras's `factor` and `value_range` arguments."""

    factor_bounds = (-1.0, 1.0)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, type(self).__name__, self.factor_bounds)
        self.value_range = _value_range(value_range, type(self).__name__)

    def uniform(self, inputs, low, high):
        """(draw in [low, high) per image, training flag) of one random op."""
        u = self.draw(inputs)
        return low + u * (high - low), self.training_flag(u)

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomGrayscale(_RandomImage):
    """In training, turns each image to grayscale with probability `factor` (the gray
    value in all three channels, as Keras's); the identity at inference.

    Args:
        factor: the probability in [0, 1] (default 0.5).
        data_format: "channels_last" (default) or "channels_first".
        seed: an int for the layer's own sequence of draws, or None.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([[[[255.0, 0.0, 0.0]]]], np.float32)
        >>> np.asarray(pd.layers.RandomGrayscale(1.0)(x)).tolist()   # inference: the identity
        [[[[255.0, 0.0, 0.0]]]]
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if not isinstance(factor, numbers.Real) or isinstance(factor, bool) or \
                not 0 <= factor <= 1:
            raise ValueError(f"RandomGrayscale: expected factor between 0 and 1, received "
                             f"factor={factor!r}")
        self.factor = float(factor)

    def call(self, inputs):
        u = self.draw(inputs)
        apply = cast(greater_equal(u, 0.0), inputs.dtype) * \
            cast(less(u, self.factor), inputs.dtype)
        gray = image_ops.rgb_to_grayscale(inputs, data_format=self.data_format)
        return blend(inputs, gray, apply)  # one gray channel, broadcast to the three

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class RandomInvert(_ColorLayer):
    """In training, inverts each image (`value_range[1] - x`) with a probability drawn in
    `factor`; the identity at inference.

    Args:
        factor: the probability of inverting: a number in [0, 1] or a (low, high) pair
            (default 1.0: always, in training).
        value_range: the images' (low, high) range (default (0, 255)).
        seed, data_format: as the other image layers.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomInvert()(pd.layers.Input(shape=(4, 4, 3))).shape
        (None, 4, 4, 3)
    """

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs):
        super().__init__(factor, value_range, data_format=data_format, seed=seed, **kwargs)

    def call(self, inputs):
        probability, flag = self.uniform(inputs, *self.factor)
        threshold = self.draw(inputs)
        apply = flag * cast(less(threshold, probability), inputs.dtype)
        return blend(inputs, self.value_range[1] - inputs, apply)


class RandomColorDegeneration(_ColorLayer):
    """In training, moves each image towards its grayscale version by a factor drawn in
    `factor` (`x + f * (gray - x)`, clipped to value_range); the identity at inference.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomColorDegeneration(0.5)(pd.layers.Input(shape=(4, 4, 3))).shape
        (None, 4, 4, 3)
    """

    factor_bounds = (0.0, 1.0)

    def call(self, inputs):
        f, flag = self.uniform(inputs, *self.factor)
        gray = image_ops.rgb_to_grayscale(inputs, data_format=self.data_format)
        degenerate = clip(inputs + f * (gray - inputs), *self.value_range)
        return blend(inputs, degenerate, flag)


class RandomSaturation(_ColorLayer):
    """In training, scales each image's saturation by `f / (1 - f + epsilon)` for a factor
    f drawn in `factor` (0.5 keeps it; 0 gives gray; 1 the most saturated), then clips the
    saturation to value_range, as Keras; the identity at inference.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomSaturation(0.5)(pd.layers.Input(shape=(4, 4, 3))).shape
        (None, 4, 4, 3)
    """

    factor_bounds = (0.0, 1.0)

    def call(self, inputs):
        f, flag = self.uniform(inputs, *self.factor)
        f = f[:, :, :, 0] / (1.0 - f[:, :, :, 0] + 1e-7)
        x = _last(inputs, self)
        h, s, v = _planes(image_ops.rgb_to_hsv(x))
        rgb = image_ops.hsv_to_rgb(stack([h, clip(s * f, *self.value_range), v], axis=-1))
        return blend(inputs, _back(rgb, self), flag)


class RandomHue(_ColorLayer):
    """In training, shifts each image's hue by half a factor drawn in `factor`, in a
    random direction, wrapped into [0, 1] (Keras's rule, in HSV on [0, 1] values); the
    identity at inference.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomHue(0.5)(pd.layers.Input(shape=(4, 4, 3))).shape
        (None, 4, 4, 3)
    """

    factor_bounds = (0.0, 1.0)

    def call(self, inputs):
        f, flag = self.uniform(inputs, *self.factor)
        direction = where(greater(self.draw(inputs), 0.5), -1.0, 1.0)  # Keras: u > 0.5
        shift = (direction * f * 0.5)[:, :, :, 0]
        x = _to_range(_last(inputs, self), self.value_range, (0.0, 1.0))
        h, s, v = _planes(image_ops.rgb_to_hsv(x))
        h = h + shift
        h = where(greater(h, 1.0), h - 1.0, h)
        h = where(less(h, 0.0), h + 1.0, h)
        rgb = clip(image_ops.hsv_to_rgb(stack([h, s, v], axis=-1)), 0.0, 1.0)
        rgb = _to_range(rgb, (0.0, 1.0), self.value_range)
        return blend(inputs, _back(rgb, self), flag)


class Solarization(_RandomImage):
    """Inverts the values at or above a threshold (`255 - x` where `x + addition >=
    threshold`, on values mapped to [0, 255]) in training, with the addition and threshold
    drawn per image in [0, factor * 255]; the identity at inference (and with both factors
    0: Keras's default draws 0 for both, so every value is inverted in training).

    Args:
        addition_factor: a number in [0, 1] (range [0, f]) or a pair.
        threshold_factor: a number in [0, 1] or a pair.
        value_range: the images' (low, high) range (default (0, 255)).
        seed: an int for the layer's own sequence of draws, or None.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Solarization(0.2, 0.5)(pd.layers.Input(shape=(4, 4, 3))).shape
        (None, 4, 4, 3)
    """

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = _solarization_factor(addition_factor, "addition_factor")
        self.threshold_factor = _solarization_factor(threshold_factor, "threshold_factor")
        self.value_range = tuple(sorted(_value_range(value_range, "Solarization")))

    def call(self, inputs):
        u_add, u_threshold = self.draw(inputs), self.draw(inputs)
        (a0, a1), (t0, t1) = self.addition_factor, self.threshold_factor
        additions = a0 + u_add * (a1 * 255.0 - a0)  # Keras: uniform(low, high * 255)
        thresholds = t0 + u_threshold * (t1 * 255.0 - t0)
        x = _to_range(inputs, self.value_range, (0.0, 255.0))
        result = clip(x + additions, 0.0, 255.0)
        result = where(less(result, thresholds), result, 255.0 - result)
        result = _to_range(result, (0.0, 255.0), self.value_range)
        return blend(inputs, result, self.training_flag(u_add))

    def get_config(self):
        return {**super().get_config(), "addition_factor": list(self.addition_factor),
                "threshold_factor": list(self.threshold_factor),
                "value_range": list(self.value_range)}


def _solarization_factor(factor, name):
    """Keras's Solarization rule: a number f in [0, 1] gives (0, f); a pair is sorted."""
    values = factor if isinstance(factor, (list, tuple)) else [factor]
    if not 1 <= len(values) <= 2 or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and 0 <= v <= 1
            for v in values):
        raise ValueError(f"Solarization: expected {name} as a number or a pair of numbers "
                         f"in [0, 1], received {name}={factor!r}")
    return tuple(sorted(float(v) for v in factor)) if len(values) == 2 else (0.0, float(factor))


class AutoContrast(Layer):
    """Stretches each image's channels to the full value range: per image and channel,
    `(x - min) * 255 / (max - min)` on values mapped to [0, 255], clipped and mapped back;
    a channel without contrast keeps its values (Keras's NaN rule). Deterministic: applied
    in training and at inference alike, as Keras's.

    Args:
        value_range: the images' (low, high) range (default (0, 255)).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([[[[10.0], [20.0]], [[30.0], [50.0]]]], np.float32)
        >>> np.asarray(pd.layers.AutoContrast()(x))[0, :, :, 0].tolist()
        [[0.0, 63.75], [127.5, 255.0]]
    """

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = tuple(sorted(_value_range(value_range, "AutoContrast")))

    def call(self, inputs):
        x = _to_range(inputs, self.value_range, (0.0, 255.0))
        low = reduce_min(x, axis=[1, 2], keepdims=True)
        high = reduce_max(x, axis=[1, 2], keepdims=True)
        span = high - low
        flat = cast(greater(span, 0.0), x.dtype)  # 1 where the channel has contrast
        scale = 255.0 / where(greater(span, 0.0), span, 1.0)
        stretched = clip(x * scale - low * scale, 0.0, 255.0)
        stretched = _to_range(stretched, (0.0, 255.0), self.value_range)
        return blend(inputs, stretched, flat)

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range)}


def _last(x, layer):
    return transpose(x, (0, 2, 3, 1)) if layer.data_format == "channels_first" else x


def _back(x, layer):
    return transpose(x, (0, 3, 1, 2)) if layer.data_format == "channels_first" else x


def _planes(x):
    return x[..., 0], x[..., 1], x[..., 2]


class RandomColorJitter(_RandomImage):
    """In training, RandomBrightness, RandomContrast, RandomSaturation and RandomHue in
    turn, each with its own factor (None leaves it out), as Keras's; the identity at
    inference.

    Args:
        value_range: the images' (low, high) range (default (0, 255)).
        brightness_factor, contrast_factor, saturation_factor, hue_factor: the factor of
            each layer (see those layers), or None.
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> layer = pd.layers.RandomColorJitter(brightness_factor=0.2, hue_factor=0.1)
        >>> layer(pd.layers.Input(shape=(4, 4, 3))).shape
        (None, 4, 4, 3)
    """

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = tuple(sorted(_value_range(value_range, "RandomColorJitter")))
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        vr, common = self.value_range, {"seed": seed, "data_format": self.data_format}
        self._layers = [layer for factor, layer in (
            (brightness_factor, lambda f: RandomBrightness(f, value_range=vr, **common)),
            (contrast_factor, lambda f: RandomContrast(f, value_range=vr, **common)),
            (saturation_factor, lambda f: RandomSaturation(f, value_range=vr, **common)),
            (hue_factor, lambda f: RandomHue(f, value_range=vr, **common)),
        ) for layer in ([layer(factor)] if factor is not None else [])]

    def call(self, inputs):
        images = inputs if inputs.dtype in FLOATS else cast(inputs, "float32")
        for layer in self._layers:
            images = layer(images)
        return images

    def get_config(self):
        listed = {name: list(f) if isinstance(f, (list, tuple)) else f for name, f in (
            ("brightness_factor", self.brightness_factor),
            ("contrast_factor", self.contrast_factor),
            ("saturation_factor", self.saturation_factor), ("hue_factor", self.hue_factor))}
        return {**super().get_config(), "value_range": list(self.value_range), **listed}
