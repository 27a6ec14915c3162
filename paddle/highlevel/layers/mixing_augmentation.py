"""Augmentations that mix the images of a batch or cut boxes out of them, as Keras's:
MixUp, CutMix and RandomErasing.

Each image is mixed with another image of the same batch, chosen by a random permutation of
the batch (drawn in C++, of the batch's size at run time, so the layers work inside `fit`);
the labels, when given as Keras's `{"images": ..., "labels": ...}` dict, are mixed with the
same weights. Like the other random image layers they act in training runs only and are
the identity at inference: the mixing weights are random ops whose value outside training
runs keeps each image whole.

Example:
    >>> import numpy as np, paddle as pd
    >>> images = np.ones((2, 4, 4, 3), np.float32)
    >>> out = pd.layers.MixUp()({"images": images, "labels": np.eye(2, dtype=np.float32)})
    >>> sorted(out), np.asarray(out["labels"]).tolist()    # inference: the identity
    (['images', 'labels'], [[1.0, 0.0], [0.0, 1.0]])
"""
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, constant
from paddle.lowlevel.ops.math import (broadcast_to, cast, clip, greater, greater_equal, less,
                                     sqrt, where)
from paddle.lowlevel.ops.sampling import random as random_op, random_gamma
from paddle.lowlevel.ops.shape import gather, reshape
from paddle.highlevel.layers.color_augmentation import _keras_factor
from paddle.highlevel.layers.image_preprocessing import _RandomImage, _value_range


class _Mixing(_RandomImage):
    """Images, or Keras's dict of images and labels, mixed within the batch."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.input_spec = None  # images alone, or [images, labels]: build checks both

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, dict):
            if set(inputs) - {"images", "labels"} or "images" not in inputs:
                raise ValueError(at_user(f"{self.name}: expected a dict with the keys 'images' "
                                         f"and (optionally) 'labels', received keys "
                                         f"{sorted(inputs)}"))
            if "labels" not in inputs:
                return {"images": super().__call__(inputs["images"], *args, **kwargs)}
            images, labels = super().__call__([inputs["images"], inputs["labels"]], *args,
                                              **kwargs)
            return {"images": images, "labels": labels}
        return super().__call__(inputs, *args, **kwargs)

    def build(self, input_shape):
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        super().build(shapes[0])
        if len(shapes) == 2 and (len(shapes[1]) < 1 or not _same_batch(shapes[0], shapes[1])):
            raise ShapeError(at_user(f"{self.name}: expected labels with the images' batch "
                                     f"size, received images {shapes[0]} and labels "
                                     f"{shapes[1]}"))

    def call(self, inputs):
        images, labels = (inputs if isinstance(inputs, list) else (inputs, None))
        if images.dtype not in FLOATS:
            images = cast(images, "float32")  # Keras computes in the compute dtype
        # The partner of each image: a permutation of the batch, of its size at run time.
        order = random_op((images.shape[0],), "permutation", 0.0, 0.0, "int64", images,
                          self._seed_fn, like_axis=0)
        images, weight = self.mix(images, gather(images, order, axis=0))
        if labels is None:
            return images
        if labels.dtype not in FLOATS:
            labels = cast(labels, images.dtype)
        weight = reshape(weight, (-1,) + (1,) * (labels.ndim - 1))
        return [images, weight * labels + (1.0 - weight) * gather(labels, order, axis=0)]


def beta_weights(layer, images, alpha):
    """A Beta(alpha, alpha) weight per image, (batch, 1, 1, 1), as Keras: X / (X + Y) of two
    gamma draws (`alpha` a number, or a Variable broadcasting to the batch); exactly 1 at
    inference (X = 1, Y = 0). Where both draws underflow to 0 (alpha near 0, where the
    distribution sits on {0, 1}), a fair coin picks 0 or 1."""
    shape = (None, 1, 1, 1)
    if isinstance(alpha, float):
        x, y = (random_op(shape, "gamma", alpha, 1.0, images.dtype, images, layer._seed_fn,
                          inference_value=v) for v in (1.0, 0.0))
    else:
        alpha = broadcast_to(reshape(alpha, (1, 1, 1, 1)), images[:, :1, :1, :1])
        x, y = (random_gamma(alpha, layer._seed_fn, inference_value=v) for v in (1.0, 0.0))
    total = x + y
    coin = cast(less(layer.draw(images), 0.5), images.dtype)
    return where(greater(total, 0.0), x / where(greater(total, 0.0), total, 1.0), coin)


def random_box(layer, images, ratio_x, ratio_y):
    """Keras's `_compute_crop_bounds` and `_generate_batch_mask`: a box per image of sides
    ratio * size at a uniform position (the x bounds drawn first); (1 inside the box, 0
    elsewhere, of the images' layout; (x0, x1, y0, y1))."""
    h, w = layer._hw(images.shape)
    dtype = images.dtype
    bounds = []
    for size, ratio in ((w, ratio_x), (h, ratio_y)):
        length = ratio * float(size)
        start = random_op((None, 1, 1, 1), "uniform", 0.0, 1.0, dtype, images,
                          layer._seed_fn) * (float(size) - length)
        bounds += [start, start + length]
    x0, x1, y0, y1 = bounds
    shape_x, shape_y = ((1, 1, w, 1), (1, h, 1, 1)) if layer.data_format == \
        "channels_last" else ((1, 1, 1, w), (1, 1, h, 1))
    gx = constant(np.arange(w).reshape(shape_x), dtype=dtype)
    gy = constant(np.arange(h).reshape(shape_y), dtype=dtype)
    inside = cast(greater_equal(gx, x0), dtype) * cast(less(gx, x1), dtype) * \
        cast(greater_equal(gy, y0), dtype) * cast(less(gy, y1), dtype)
    return inside, (x0, x1, y0, y1)


def _same_batch(a, b):
    return a[0] is None or b[0] is None or a[0] == b[0]


class MixUp(_Mixing):
    """MixUp (Zhang et al., 2018): in training, each image becomes `w * image + (1 - w) *
    partner` with a partner from the same batch and w drawn per image from Beta(alpha,
    alpha) (two gamma draws, as Keras); labels, given as `{"images": ..., "labels": ...}`,
    are mixed with the same weights. The identity at inference.

    Args:
        alpha: the Beta distribution's parameter, a number > 0 (default 0.2; small values
            mix little).
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> inp = pd.data("images", shape=(None, 2, 2, 1))
        >>> out = pd.layers.MixUp(alpha=0.4, seed=1)(inp)
        >>> x = np.stack([np.zeros((2, 2, 1)), np.ones((2, 2, 1))]).astype(np.float32)
        >>> y = pd.eval(out, {inp: x}, training=True)    # mixtures of 0 and 1
        >>> bool(np.all((y >= 0) & (y <= 1))), bool(np.all(y == y[:, :1, :1]))
        (True, True)
    """

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool) or \
                not np.isfinite(alpha) or alpha <= 0:
            raise ValueError(f"MixUp: expected alpha as a number > 0, received alpha={alpha!r}")
        self.alpha = float(alpha)

    def mix(self, images, partners):
        weight = beta_weights(self, images, self.alpha)  # 1 at inference: the identity
        return weight * images + (1.0 - weight) * partners, weight

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class CutMix(_Mixing):
    """CutMix (Yun et al., 2019): in training, a box of each image is replaced by the same
    box of a partner image from the batch, as Keras: alpha is drawn per batch in `factor`
    (plus 1e-6), a weight w per image from Beta(alpha, alpha), the box's sides are
    `sqrt(1 - w)` times the image's, at a uniform position; labels, given as
    `{"images": ..., "labels": ...}`, are mixed by the box's area. The identity at
    inference.

    Args:
        factor: a number f in [0, 1] for alpha in [0, f], or a pair (low, high) (default
            1.0).
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> inp = pd.data("images", shape=(None, 4, 4, 1))
        >>> out = pd.layers.CutMix(seed=1)(inp)
        >>> x = np.stack([np.zeros((4, 4, 1)), np.ones((4, 4, 1))]).astype(np.float32)
        >>> y = pd.eval(out, {inp: x}, training=True)     # pixels from either image
        >>> sorted(set(np.unique(y).tolist()) - {0.0, 1.0})
        []
    """

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, "CutMix", (0.0, 1.0))

    def mix(self, images, partners):
        h, w = self._hw(images.shape)
        dtype = images.dtype
        alpha = random_op((1,), "uniform", self.factor[0], self.factor[1], dtype, None,
                          self._seed_fn) + 1e-6
        if self.factor[0] == self.factor[1]:
            alpha = self.factor[0] + 1e-6  # one value: the random op's own gamma kind
        ratio = sqrt(1.0 - beta_weights(self, images, alpha))  # 0 at inference: no box
        inside, (x0, x1, y0, y1) = random_box(self, images, ratio, ratio)
        mixed = where(greater(inside, 0.0), partners, images)
        weight = 1.0 - (x1 - x0) * (y1 - y0) / float(w * h)
        return mixed, weight

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}


class RandomErasing(_RandomImage):
    """Random erasing (Zhong et al., 2020), as Keras's: in training, each image is erased
    with a probability drawn in `factor`: a box whose sides are sqrt(s) times the image's
    (s drawn in `scale` for each side) at a uniform position is filled with `fill_value`,
    or with Keras's noise (a normal draw times value_range[1]) when it is None, clipped to
    value_range; the identity at inference.

    Args:
        factor: the erasing probability: a number f in [0, 1] for [0, f], or a pair
            (default 1.0).
        scale: the range of each side's squared fraction, a number or a pair in [0, 1]
            (default (0.02, 0.33)).
        fill_value: a number, three numbers (per channel), or None for noise.
        value_range: the images' (low, high) range (default (0, 255)).
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomErasing(fill_value=0.0)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, "RandomErasing", (0.0, 1.0))
        self.scale = _keras_factor(scale, "RandomErasing", (0.0, 1.0), "scale")
        if not (fill_value is None or (isinstance(fill_value, numbers.Real) and
                                       not isinstance(fill_value, bool)) or
                (isinstance(fill_value, (list, tuple)) and len(fill_value) == 3 and all(
                    isinstance(v, numbers.Real) and not isinstance(v, bool)
                    for v in fill_value))):
            raise ValueError(f"RandomErasing: expected fill_value as None, a number or a list "
                             f"of three numbers, received fill_value={fill_value!r}")
        self.fill_value = list(fill_value) if isinstance(fill_value, (list, tuple)) else \
            fill_value
        self.value_range = tuple(sorted(_value_range(value_range, "RandomErasing")))

    def _fill(self, images):
        low, high = self.value_range
        if self.fill_value is None:
            noise = random_op(images.shape, "normal", 0.0, 1.0, images.dtype, images,
                              self._seed_fn) * high
            return clip(noise, low, high)
        value = np.clip(np.asarray(self.fill_value, np.float64), low, high)
        if value.ndim:
            value = value.reshape((1, 1, 1, 3) if self.data_format == "channels_last"
                                  else (1, 3, 1, 1))
        return constant(value, dtype=images.dtype)

    def call(self, inputs):
        images = inputs if inputs.dtype in FLOATS else cast(inputs, "float32")
        channels = images.shape[3 if self.data_format == "channels_last" else 1]
        if isinstance(self.fill_value, list) and channels != 3:
            raise ShapeError(at_user(f"{self.name}: a fill_value of three numbers needs images "
                                     f"of 3 channels, received shape {images.shape}"))
        sides = [sqrt(self.scale[0] + self.draw(images) * (self.scale[1] - self.scale[0]))
                 for _ in range(2)]
        inside, _ = random_box(self, images, *sides)
        probability = self.factor[0] + self.draw(images) * (self.factor[1] - self.factor[0])
        threshold = self.draw(images)  # -1 at inference
        apply = cast(less(threshold, probability), images.dtype) * \
            self.training_flag(threshold)
        erased = where(greater(inside * apply, 0.0), self._fill(images) + images * 0.0, images)
        return erased

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "scale": list(self.scale),
                "fill_value": self.fill_value, "value_range": list(self.value_range)}
