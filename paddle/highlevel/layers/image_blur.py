"""RandomGaussianBlur and RandomElasticTransform, as Keras's: Gaussian blurs whose sigmas
are drawn per batch (of the images, or of the elastic transform's displacement fields),
applied to each image with a probability drawn per image.

The sigmas are run-time values, so the kernel is built from ops (the taps
`exp(-t^2 / (2 sigma^2))`, normalized) and applied as two passes of shifted sums over the
zero-padded image (rows, then columns): Keras's `gaussian_blur` with its "same" zero
padding, whose 2-D kernel is the outer product of the two.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.zeros((1, 5, 5, 1), np.float32); x[0, 2, 2, 0] = 100.0
    >>> inp = pd.data("images", shape=(None, 5, 5, 1))
    >>> out = pd.layers.RandomGaussianBlur(factor=(1.0, 1.0), sigma=(1.0, 1.0))(inp)
    >>> round(float(pd.eval(out, {inp: x}, training=True).sum()), 3)    # blurred, same mass
    100.0
"""
import numbers

import numpy as np

from paddle.lowlevel.graph import FLOATS, constant
from paddle.lowlevel.ops.math import (abs as abs_, cast, clip, exp, greater, less, less_equal,
                                     maximum, where)
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.sampling import random as random_op
from paddle.lowlevel.ops.shape import expand_dims, pad
from paddle.lowlevel.ops.special import floor
from paddle.ops.image_sampling import FILL_MODES, INTERPOLATIONS, _grid as grid, _warp as warp
from paddle.highlevel.layers.color_augmentation import _back, _keras_factor, _last
from paddle.highlevel.layers.image_preprocessing import _RandomImage, _value_range, blend


def _taps(size, sigma):
    """The normalized taps of a Gaussian of run-time `sigma` (a (1, 1, 1, 1) Variable):
    (1, 1, 1, 1, size)."""
    t = constant((np.arange(size) - (size - 1) / 2.0).reshape(1, 1, 1, 1, size),
                 dtype=sigma.dtype)
    scaled = t / expand_dims(sigma, -1)
    k = exp(-0.5 * (scaled * scaled))
    return k / reduce_sum(k, axis=-1, keepdims=True)


def blur_pass(x, taps, size, axis):
    """x (channels last) convolved along `axis` (1: rows, 2: columns) with `taps`, zero
    padded to keep its size."""
    half = (size - 1) // 2
    pads = [(0, 0)] * 4
    pads[axis] = (half, half)
    padded = pad(x, pads)
    n = x.shape[axis]
    out = None
    for i in range(size):
        index = [slice(None)] * 4
        index[axis] = slice(i, i + n)
        part = padded[tuple(index)] * taps[:, :, :, :, i]
        out = part if out is None else out + part
    return out


class RandomGaussianBlur(_RandomImage):
    """In training, blurs each image with a probability drawn in `factor`, as Keras's:
    a Gaussian of `kernel_size` whose two sigmas are drawn per batch in `sigma` (plus
    1e-6), then clips the images to value_range; the identity at inference.

    Args:
        factor: the blur probability, a number f in [0, 1] for [0, f], or a pair (default
            1.0).
        kernel_size: an odd int, or two (columns, rows) as Keras's (default 3).
        sigma: the sigmas' range, a number in [0, 1] for [0, f], or a pair (default 1.0).
        value_range: the images' (low, high) range (default (0, 255)).
        data_format: "channels_last" (default) or "channels_first".
        seed: an int for the layer's own sequence of draws, or None.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomGaussianBlur(kernel_size=5)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, "RandomGaussianBlur", (0.0, 1.0))
        sizes = kernel_size if isinstance(kernel_size, (list, tuple)) else \
            [kernel_size, kernel_size]
        if len(sizes) != 2 or not all(isinstance(k, numbers.Integral) and
                                      not isinstance(k, bool) and k >= 1 and k % 2 == 1
                                      for k in sizes):
            raise ValueError(f"RandomGaussianBlur: expected kernel_size as an odd int >= 1 "
                             f"or two of them, received kernel_size={kernel_size!r}")
        self.kernel_size = (int(sizes[0]), int(sizes[1]))
        self.sigma = _keras_factor(sigma, "RandomGaussianBlur", (0.0, 1.0), "sigma")
        self.value_range = tuple(sorted(_value_range(value_range, "RandomGaussianBlur")))

    def call(self, inputs):
        self._hw(inputs.shape)
        images = inputs if inputs.dtype in FLOATS else cast(inputs, "float32")
        probability = self.factor[0] + self.draw(images) * (self.factor[1] - self.factor[0])
        threshold = self.draw(images)  # -1 at inference
        low, high = self.sigma
        # Keras: sigma[0] with kernel_size[0] for the columns, sigma[1] for the rows
        s_cols, s_rows = (low + self.draw(images, per_image=False) * (high - low) + 1e-6
                          for _ in range(2))
        x = _last(images, self)
        x = blur_pass(x, _taps(self.kernel_size[1], s_rows), self.kernel_size[1], 1)
        x = blur_pass(x, _taps(self.kernel_size[0], s_cols), self.kernel_size[0], 2)
        apply = cast(less(threshold, probability), images.dtype)
        blurred = clip(where(greater(apply, 0.0), _back(x, self), images), *self.value_range)
        return blend(images, blurred, self.training_flag(threshold))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor),
                "kernel_size": list(self.kernel_size), "sigma": list(self.sigma),
                "value_range": list(self.value_range)}


def _masked_taps(size, sigma):
    """Keras's taps of a Gaussian of run-time `sigma` and kernel int(6 sigma) | 1, laid in
    `size` (the largest such kernel) with zeros beyond: (1, 1, 1, 1, size)."""
    t = constant((np.arange(size) - (size - 1) / 2.0).reshape(1, 1, 1, 1, size),
                 dtype=sigma.dtype)
    half = floor(floor(6.0 * sigma) * 0.5)  # (int(6 sigma) | 1 - 1) / 2
    scaled = t / expand_dims(sigma, -1)
    k = exp(-0.5 * (scaled * scaled)) * cast(less_equal(abs_(t), expand_dims(half, -1)),
                                             sigma.dtype)
    return k / reduce_sum(k, axis=-1, keepdims=True)


class RandomElasticTransform(_RandomImage):
    """In training, displaces each image's pixels by a smooth random field with a
    probability drawn in `factor`, as Keras's: a distortion d drawn per batch in `scale`
    gives alpha = 0.1 d max(H, W) and sigma = 0.05 d min(H, W); per pixel, normal(0, sigma)
    displacements in x and y are blurred by Keras's Gaussian (kernel int(6 sigma) | 1,
    zero padding) and scaled by alpha, the image is sampled there (`fill_mode`), and the
    result is clipped to value_range; the identity at inference. The draws are paddle's,
    and x and y get independent fields, as `pd.ops.image.elastic_transform`.

    Args:
        factor: the probability, a number f in [0, 1] for [0, f], or a pair (default 1.0).
        scale: the distortion's range, a number in [0, 1] for [0, f], or a pair (default
            1.0).
        interpolation: "bilinear" (default) or "nearest".
        fill_mode: "reflect" (default), "constant", "nearest", "wrap" or "mirror".
        fill_value: the value "constant" fills with (default 0).
        value_range: the images' (low, high) range (default (0, 255)).
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomElasticTransform()(pd.layers.Input(shape=(16, 16, 3))).shape
        (None, 16, 16, 3)
    """

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect",
                 fill_value=0.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, "RandomElasticTransform", (0.0, 1.0))
        self.scale = _keras_factor(scale, "RandomElasticTransform", (0.0, 1.0), "scale")
        if interpolation not in INTERPOLATIONS:
            raise ValueError(f"RandomElasticTransform: expected interpolation 'bilinear' or "
                             f"'nearest', received {interpolation!r}")
        if fill_mode not in FILL_MODES:
            raise ValueError(f"RandomElasticTransform: expected fill_mode one of {FILL_MODES}, "
                             f"received {fill_mode!r}")
        if not isinstance(fill_value, numbers.Real) or isinstance(fill_value, bool):
            raise ValueError(f"RandomElasticTransform: expected a number fill_value, received "
                             f"{fill_value!r}")
        self.interpolation, self.fill_mode = interpolation, fill_mode
        self.fill_value = float(fill_value)
        self.value_range = tuple(sorted(_value_range(value_range, "RandomElasticTransform")))

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        images = inputs if inputs.dtype in FLOATS else cast(inputs, "float32")
        if self.scale[1] == 0 or self.factor[1] == 0:
            return images  # Keras: no transformation at all
        dtype = images.dtype
        probability = self.factor[0] + self.draw(images) * (self.factor[1] - self.factor[0])
        threshold = self.draw(images)  # -1 at inference
        low, high = self.scale
        distortion = low + self.draw(images, per_image=False) * (high - low)  # (1, 1, 1, 1)
        alpha = distortion * (0.1 * max(h, w))
        sigma = maximum(distortion * (0.05 * min(h, w)), 1e-12)
        size = int(6.0 * 0.05 * min(h, w) * high) | 1
        taps = _masked_taps(size, sigma)
        fields = []
        for _ in range(2):
            noise = random_op((None, h, w, 1), "normal", 0.0, 1.0, dtype, images,
                              self._seed_fn) * sigma
            field = blur_pass(blur_pass(noise, taps, size, 1), taps, size, 2)
            fields.append((field * alpha)[:, :, :, 0])
        gx, gy = grid(h, w, dtype)
        x = _last(images, self)
        warped = warp(x, gx + fields[0], gy + fields[1], INTERPOLATIONS[self.interpolation],
                      self.fill_mode, self.fill_value)
        apply = cast(less(threshold, probability), dtype)
        out = clip(where(greater(apply, 0.0), _back(warped, self), images), *self.value_range)
        return blend(images, out, self.training_flag(threshold))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "scale": list(self.scale),
                "interpolation": self.interpolation, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "value_range": list(self.value_range)}
