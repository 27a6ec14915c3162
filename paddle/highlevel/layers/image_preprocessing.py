"""Image preprocessing and augmentation layers, as Keras's: Resizing, CenterCrop, and the
random augmentations RandomFlip, RandomCrop, RandomBrightness, RandomContrast.

Images are (batch, height, width, channels) (or channels first). The random layers draw
anew on every training run (`fit`, `train_on_batch`, `pd.eval(..., training=True)`) and
are the identity at inference (`predict`, `evaluate`, an eager call), the way Dropout is:
each draw is a random op whose value outside training runs marks "inference", so one graph
serves both. A `seed` gives a layer its own reproducible sequence of draws.

Example:
    >>> import numpy as np, paddle as pd
    >>> images = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    >>> pd.layers.Resizing(2, 2)(images)[0, :, :, 0].tolist()
    [[2.5, 4.5], [10.5, 12.5]]
"""
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import constant
from paddle.lowlevel.ops.math import cast, clip, greater, greater_equal
from paddle.lowlevel.ops.reduce import mean
from paddle.lowlevel.ops.sampling import random as random_op
from paddle.lowlevel.ops.shape import gather, reverse
from paddle.highlevel.layers.base import InputSpec, Layer
from paddle.highlevel.layers.conv import check_data_format
from paddle.highlevel.layers.regularization import seeds
from paddle.ops import image as image_ops


def _size(value, what, layer):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{layer}: expected {what} to be an integer >= 1, received {value!r}")
    return int(value)


class _Image(Layer):
    """Rank-4 images with known spatial sizes; the axes of height, width and channels."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, type(self).__name__)
        self.input_spec = InputSpec(ndim=4)

    @property
    def _axes(self):
        """(height axis, width axis)."""
        return (1, 2) if self.data_format == "channels_last" else (2, 3)

    def build(self, input_shape):
        if len(input_shape) != 4:
            raise ShapeError(at_user(f"{self.name}: expected images of rank 4 (batch, height, "
                                     f"width, channels), received shape {input_shape}"))

    def _hw(self, shape, need_known=True):
        h, w = (shape[a] for a in self._axes)
        if need_known and (h is None or w is None):
            raise ShapeError(at_user(f"{self.name}: expected the image height and width to be "
                                     f"known, received shape {shape}"))
        return h, w

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class _RandomImage(_Image):
    """A seed of its own (or paddle's random state) and a per-image draw that tells the
    training runs from the others."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.seed, self._seed_fn = seeds(seed, type(self).__name__)

    def draw(self, images, per_image=True):
        """Uniform [0, 1) draws, one per image (batch, 1, 1, 1) or one for the batch
        (1, 1, 1, 1), in training runs; -1 outside them."""
        shape = (None, 1, 1, 1) if per_image else (1, 1, 1, 1)
        return random_op(shape, "uniform", 0.0, 1.0, images.dtype, images, self._seed_fn,
                         inference_value=-1.0)

    @staticmethod
    def training_flag(u):
        return cast(greater_equal(u, 0.0), u.dtype)

    def get_config(self):
        return {**super().get_config(), "seed": self.seed}


# ---- resizing and cropping -------------------------------------------------------------

class Resizing(_Image):
    """Resizes images to (height, width), as Keras's: `pd.ops.image.resize` with the
    layer's arguments (so the gradient flows through it).

    Args:
        height, width: the output size.
        interpolation: "bilinear" (default), "nearest", "bicubic", "lanczos3", "lanczos5".
        crop_to_aspect_ratio: first crop the largest centered box of the output's aspect
            ratio (no distortion).
        pad_to_aspect_ratio: first pad (with fill_value) to the output's aspect ratio.
        fill_mode, fill_value: the padding of pad_to_aspect_ratio ("constant" only).
        antialias: widen the kernel when downsampling.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> np.asarray(pd.layers.Resizing(8, 6)(np.zeros((2, 4, 3, 3), np.float32))).shape
        (2, 8, 6, 3)
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = _size(height, "height", "Resizing")
        self.width = _size(width, "width", "Resizing")
        if interpolation not in image_ops.RESIZE_INTERPOLATIONS:
            raise ValueError(f"Resizing: expected interpolation one of "
                             f"{image_ops.RESIZE_INTERPOLATIONS}, received {interpolation!r}")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Resizing: only one of crop_to_aspect_ratio and "
                             "pad_to_aspect_ratio can be True")
        if fill_mode != "constant":
            raise ValueError(f"Resizing: only fill_mode 'constant' is supported (as Keras), "
                             f"received {fill_mode!r}")
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.antialias = bool(antialias)
        self.fill_mode, self.fill_value = fill_mode, fill_value

    def call(self, inputs):
        self._hw(inputs.shape)
        if tuple(inputs.shape[a] for a in self._axes) == (self.height, self.width):
            return inputs
        out = image_ops.resize(inputs, (self.height, self.width), self.interpolation,
                               self.antialias, self.crop_to_aspect_ratio,
                               self.pad_to_aspect_ratio, self.fill_mode, self.fill_value,
                               self.data_format)
        return out if out.dtype == inputs.dtype or inputs.dtype not in ("float32", "float64") \
            else cast(out, inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias}


def _crop(images, axes, starts, size):
    """images[.., start:start + size, ..] on each of `axes` (static starts)."""
    index = [slice(None)] * 4
    for a, s, n in zip(axes, starts, size):
        index[a] = slice(s, s + n)
    return images[tuple(index)]


def smart_resize(images, height, width, data_format):
    """Keras's smart_resize: the largest centered window of the target's aspect ratio,
    resized (bilinear) to (height, width): `pd.ops.image.resize(crop_to_aspect_ratio=True)`."""
    return image_ops.resize(images, (height, width), "bilinear", crop_to_aspect_ratio=True,
                            data_format=data_format)


class CenterCrop(_Image):
    """Crops the center (height, width) of images (an odd margin leaves the extra pixel
    on the bottom / right, as Keras); images smaller than that get Keras's smart resize
    instead (the largest centered window of the target's aspect ratio, resized).

    Args:
        height, width: the output size.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> images = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
        >>> pd.layers.CenterCrop(2, 2)(images)[0, :, :, 0].tolist()
        [[5.0, 6.0], [9.0, 10.0]]
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = _size(height, "height", "CenterCrop")
        self.width = _size(width, "width", "CenterCrop")

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        if h < self.height or w < self.width:
            return smart_resize(inputs, self.height, self.width, self.data_format)
        return _crop(inputs, self._axes, ((h - self.height) // 2, (w - self.width) // 2),
                     (self.height, self.width))

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


class RandomCrop(_RandomImage):
    """In training, crops a random (height, width) window, one offset for the whole
    batch (as Keras); at inference, the center crop (CenterCrop's, as Keras documents).
    Images smaller than the window get CenterCrop's smart resize, in either mode.

    Args:
        height, width: the output size.
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> images = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
        >>> pd.layers.RandomCrop(2, 2)(images)[0, :, :, 0].tolist()   # inference: center
        [[5.0, 6.0], [9.0, 10.0]]
    """

    def __init__(self, height, width, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height = _size(height, "height", "RandomCrop")
        self.width = _size(width, "width", "RandomCrop")

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        if h < self.height or w < self.width:
            return smart_resize(inputs, self.height, self.width, self.data_format)
        out = inputs
        for axis, size, target in zip(self._axes, (h, w), (self.height, self.width)):
            margin = size - target
            if margin == 0:
                continue
            # An offset in [0, margin] in training runs, the center offset otherwise.
            start = random_op((1,), "randint", 0, margin + 1, "int64", None, self._seed_fn,
                              inference_value=margin // 2)
            offsets = constant(np.arange(target, dtype=np.int64))
            out = gather(out, start + offsets, axis=axis)
        return out

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


# ---- random appearance and flips -------------------------------------------------------

class RandomFlip(_RandomImage):
    """In training, flips each image with probability 1/2: left-right ("horizontal"),
    upside down ("vertical"), or both at once ("horizontal_and_vertical", the default, one
    draw for both as in Keras); the identity at inference.

    Args:
        mode: "horizontal", "vertical" or "horizontal_and_vertical".
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> inp = pd.data("images", shape=(None, 2, 2, 1))
        >>> out = pd.layers.RandomFlip("horizontal")(inp)
        >>> x = np.array([[[[1.0], [2.0]], [[3.0], [4.0]]]], np.float32)
        >>> pd.eval(out, {inp: x})[0, :, :, 0].tolist()     # inference: the identity
        [[1.0, 2.0], [3.0, 4.0]]
    """

    MODES = ("horizontal", "vertical", "horizontal_and_vertical")

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in self.MODES:
            raise ValueError(f"RandomFlip: expected mode in {self.MODES}, received {mode!r}")
        self.mode = mode

    def call(self, inputs):
        flipped = inputs
        if self.mode != "vertical":
            flipped = reverse(flipped, axis=self._axes[1])
        if self.mode != "horizontal":
            flipped = reverse(flipped, axis=self._axes[0])
        u = self.draw(inputs)  # flip where 0 <= u < 1/2 (never at inference: u = -1)
        flip = cast(greater_equal(u, 0.0), inputs.dtype) * cast(greater(0.5, u), inputs.dtype)
        return inputs * (1.0 - flip) + flipped * flip  # exact for flip in {0, 1}

    def get_config(self):
        return {**super().get_config(), "mode": self.mode}


def blend(inputs, changed, flag):
    """`changed` where flag is 1, `inputs` where it is 0, each exactly."""
    return inputs * (1.0 - flag) + changed * flag


def _value_range(value, layer):
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value) or \
            not value[0] < value[1]:
        raise ValueError(f"{layer}: expected value_range as (low, high) with low < high, "
                         f"received {value!r}")
    return (float(value[0]), float(value[1]))


def _factor_pair(factor, layer, low, high):
    """A number f -> (f, f), a pair as it is; each in [low, high]."""
    pair = (factor, factor) if isinstance(factor, numbers.Real) and \
        not isinstance(factor, bool) else factor
    if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and low <= v <= high
            for v in pair):
        raise ValueError(f"{layer}: expected factor as a number or a pair of numbers in "
                         f"[{low}, {high}], received {factor!r}")
    return pair


class RandomBrightness(_RandomImage):
    """In training, adds to each image a random delta drawn in
    [lower, upper] * (value_range width), then clips to value_range; the identity at
    inference.

    Args:
        factor: a number f in [0, 1] for [-f, f], or a pair (lower, upper) in [-1, 1].
        value_range: the images' (low, high) range (default (0, 255)).
        seed: an int for the layer's own sequence of draws, or None.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomBrightness(0.2)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if isinstance(factor, numbers.Real) and not isinstance(factor, bool):
            if not 0 <= factor <= 1:
                raise ValueError(f"RandomBrightness: expected factor in [0, 1] (or a pair in "
                                 f"[-1, 1]), received {factor!r}")
            pair = (-float(factor), float(factor))
        else:
            pair = _factor_pair(factor, "RandomBrightness", -1.0, 1.0)
        self.factor, self._range = factor, (float(min(pair)), float(max(pair)))
        self.value_range = _value_range(value_range, "RandomBrightness")

    def call(self, inputs):
        u = self.draw(inputs)
        lower, upper = self._range
        low, high = self.value_range
        delta = (lower + u * (upper - lower)) * (high - low)
        bright = clip(inputs + delta, low, high)
        return blend(inputs, bright, self.training_flag(u))

    def get_config(self):
        factor = list(self.factor) if isinstance(self.factor, (list, tuple)) else self.factor
        return {**super().get_config(), "factor": factor,
                "value_range": list(self.value_range)}


class RandomContrast(_RandomImage):
    """In training, scales each image's deviation from its per-channel mean by a random
    factor in [1 - lower, 1 + upper], then clips to value_range (Keras's
    `(x - mean) * factor + mean`); the identity at inference.

    Args:
        factor: a number f in [0, 1] for [1 - f, 1 + f], or a pair (lower, upper).
        value_range: the images' (low, high) range (default (0, 255)).
        seed: an int for the layer's own sequence of draws, or None.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomContrast(0.5)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        lower, upper = _factor_pair(factor, "RandomContrast", 0.0, 1.0)
        self.factor, self._range = factor, (1.0 - lower, 1.0 + upper)
        self.value_range = _value_range(value_range, "RandomContrast")

    def call(self, inputs):
        u = self.draw(inputs)
        lower, upper = self._range
        factor = lower + u * (upper - lower)
        means = mean(inputs, axis=list(self._axes), keepdims=True)
        contrast = clip((inputs - means) * factor + means, *self.value_range)
        return blend(inputs, contrast, self.training_flag(u))

    def get_config(self):
        factor = list(self.factor) if isinstance(self.factor, (list, tuple)) else self.factor
        return {**super().get_config(), "factor": factor,
                "value_range": list(self.value_range)}
