"""RandomTranslation, RandomZoom and RandomRotation: random shifts, zooms and rotations of
images in training runs, the identity at inference, resampled as Keras's `affine_transform`
(bilinear or nearest, fill modes "reflect", "wrap", "nearest", "constant").

A rotation mixes rows and columns, so RandomRotation samples through
`pd.ops.image.affine_transform` itself.

Both transforms move rows and columns independently, so each image is resampled by two
products with per-image interpolation matrices, `Ry @ image @ Rx^T`: the weight of input
row j for output row i is the interpolation kernel at (source coordinate of i) - k, summed
over the out-of-range positions k that the fill mode sends to j. Built from elementwise ops
and matmul, so gradients flow through it like any other layer.

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.RandomTranslation(0.2, 0.2)
    >>> x = np.ones((1, 4, 4, 1), np.float32)
    >>> bool(np.array_equal(layer(x), x))    # inference: the identity
    True
"""
import numbers

import numpy as np

from paddle.lowlevel.graph import constant
from paddle.lowlevel.ops.math import abs as abs_, cast, clip, less, relu
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import sum as sum_
from paddle.lowlevel.ops.shape import concat, expand_dims, transpose
from paddle.lowlevel.ops.special import cos, sin
from paddle.lowlevel.ops.sampling import random as random_op
from paddle.highlevel.layers.color_augmentation import _keras_factor
from paddle.highlevel.layers.image_preprocessing import _RandomImage, blend
from paddle.ops import image as image_ops

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
# Reflections / periods covered: source coordinates within [-4 size, 5 size], far beyond
# what the factors allowed here (|shift| <= size, zoom <= 3) reach.
_REPEATS = range(-2, 3)


def _kernel(d, method):
    """The interpolation weight at distance d: the tent (bilinear) or the box (nearest)."""
    if method == "bilinear":
        return relu(1.0 - abs_(d))
    return cast(less(abs_(d), 0.5), d.dtype)


def _positions(size, mode):
    """The integer positions (as a list of (1, 1, size) arrays) each input index j stands
    for under the fill mode: j itself and its reflections / periodic copies."""
    j = np.arange(size, dtype=np.float64)
    if mode == "reflect":       # (d c b a | a b c d | d c b a)
        return [j + 2 * size * m for m in _REPEATS] + \
            [-1 - j + 2 * size * m for m in _REPEATS]
    if mode == "wrap":          # (a b c d | a b c d | a b c d)
        return [j + size * m for m in range(-4, 6)]
    return [j]                  # constant (the rest is fill) and nearest (edges below)


def interpolation_matrices(coords, size, mode, method):
    """(N, out, size) weights from source coordinates `coords` (N, out, 1)."""
    dtype = coords.dtype
    total = None
    for p in _positions(size, mode):
        w = _kernel(coords - constant(p.reshape(1, 1, size), dtype=dtype), method)
        total = w if total is None else total + w
    if mode != "nearest":
        return total
    if size == 1:
        return total * 0.0 + 1.0  # a single row: every position reads it
    # nearest: every position below 0 reads row 0, every one above size - 1 the last row.
    if method == "bilinear":
        first, last = clip(1.0 - coords, 0.0, 1.0), clip(coords - (size - 2), 0.0, 1.0)
    else:
        first = cast(less(coords, 0.5), dtype)
        last = 1.0 - cast(less(coords, size - 1.5), dtype)
    return concat([first, total[:, :, 1:size - 1], last], axis=-1)


class _Affine(_RandomImage):
    """Arguments and the resampling shared by RandomTranslation and RandomZoom."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        where = type(self).__name__
        if fill_mode not in FILL_MODES:
            raise ValueError(f"{where}: expected fill_mode in {FILL_MODES}, received "
                             f"{fill_mode!r}")
        if interpolation not in ("bilinear", "nearest"):
            raise ValueError(f"{where}: expected interpolation 'bilinear' or 'nearest', "
                             f"received {interpolation!r}")
        if not isinstance(fill_value, numbers.Real) or isinstance(fill_value, bool):
            raise ValueError(f"{where}: expected a number fill_value, received "
                             f"{fill_value!r}")
        self.fill_mode, self.interpolation = fill_mode, interpolation
        self.fill_value = float(fill_value)

    def _factor(self, factor, name, low, high):
        """A number f -> (-f, f), a pair -> sorted; each within [low, high]."""
        where = type(self).__name__
        pair = (-factor, factor) if isinstance(factor, numbers.Real) and \
            not isinstance(factor, bool) else factor
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) and low <= v <= high
                for v in pair):
            raise ValueError(f"{where}: expected {name} as a number or a pair of numbers in "
                             f"[{low}, {high}], received {factor!r}")
        return tuple(sorted(float(v) for v in pair))

    def resample(self, images, ys, xs, flag):
        """images read at rows ys (N, H, 1) and columns xs (N, W, 1); images where flag is
        0 (inference)."""
        h, w = self._hw(images.shape)
        rows = interpolation_matrices(ys, h, self.fill_mode, self.interpolation)
        cols = interpolation_matrices(xs, w, self.fill_mode, self.interpolation)
        x = transpose(images, (0, 3, 1, 2)) if self.data_format == "channels_last" \
            else images                                               # (N, C, H, W)
        out = matmul(matmul(expand_dims(rows, 1), x),
                     expand_dims(transpose(cols, (0, 2, 1)), 1))
        if self.fill_mode == "constant" and self.fill_value:
            inside = expand_dims(sum_(rows, axis=-1), -1) * expand_dims(sum_(cols, axis=-1), 1)
            out = out + self.fill_value * (1.0 - expand_dims(inside, 1))
        if self.data_format == "channels_last":
            out = transpose(out, (0, 2, 3, 1))
        return blend(images, out, flag)

    def grid(self, size, dtype):
        """The output positions 0 .. size - 1 as a (1, size, 1) constant."""
        return constant(np.arange(size, dtype=np.float64).reshape(1, size, 1), dtype=dtype)

    def between(self, u, pair):
        return pair[0] + u * (pair[1] - pair[0])

    def get_config(self):
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "fill_value": self.fill_value}


def _listed(factor):
    return list(factor) if isinstance(factor, (list, tuple)) else factor


class RandomTranslation(_Affine):
    """In training, shifts each image by a random fraction of its height and width
    (Keras's: `height_factor=0.2` shifts by up to 20% up or down), filling the uncovered
    part by `fill_mode`; the identity at inference.

    Args:
        height_factor, width_factor: a number f in [0, 1] for [-f, f] of the size, or a
            pair (lower, upper) in [-1, 1].
        fill_mode: "reflect" (default), "wrap", "nearest" or "constant".
        interpolation: "bilinear" (default) or "nearest".
        seed: an int for the layer's own sequence of draws, or None.
        fill_value: the value "constant" fills with (default 0).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomTranslation(0.1, 0.1)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height = self._factor(height_factor, "height_factor", -1.0, 1.0)
        self._width = self._factor(width_factor, "width_factor", -1.0, 1.0)

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        uh, uw = self.draw(inputs), self.draw(inputs)                 # (N, 1, 1, 1)
        dy = self.between(uh[:, :, :, 0], self._height) * h            # (N, 1, 1)
        dx = self.between(uw[:, :, :, 0], self._width) * w
        ys = self.grid(h, inputs.dtype) - dy                           # source rows
        xs = self.grid(w, inputs.dtype) - dx
        return self.resample(inputs, ys, xs, self.training_flag(uh))

    def get_config(self):
        return {**super().get_config(), "height_factor": _listed(self.height_factor),
                "width_factor": _listed(self.width_factor)}


class RandomZoom(_Affine):
    """In training, zooms each image about its center by random factors (Keras's:
    `height_factor=0.2` zooms by 1 + [-0.2, 0.2]: positive values zoom out, negative ones
    in; without width_factor both axes zoom alike), filling by `fill_mode`; the identity
    at inference.

    Args:
        height_factor: a number f in [0, 1] for [-f, f], or a pair (lower, upper) in
            [-1, 2].
        width_factor: the same for the width, or None to keep the aspect ratio.
        fill_mode, interpolation, seed, fill_value, data_format: as RandomTranslation.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomZoom(0.2)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height = self._factor(height_factor, "height_factor", -1.0, 2.0)
        self._width = None if width_factor is None else \
            self._factor(width_factor, "width_factor", -1.0, 2.0)

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        uh = self.draw(inputs)
        zy = 1.0 + self.between(uh[:, :, :, 0], self._height)         # (N, 1, 1)
        zx = zy if self._width is None else \
            1.0 + self.between(self.draw(inputs)[:, :, :, 0], self._width)
        ys = self.grid(h, inputs.dtype) * zy + (h - 1) / 2.0 * (1.0 - zy)
        xs = self.grid(w, inputs.dtype) * zx + (w - 1) / 2.0 * (1.0 - zx)
        return self.resample(inputs, ys, xs, self.training_flag(uh))

    def get_config(self):
        return {**super().get_config(), "height_factor": _listed(self.height_factor),
                "width_factor": _listed(self.width_factor)}


class RandomRotation(_Affine):
    """In training, rotates each image by a random angle about its center (Keras's:
    `factor=0.1` turns by up to 10% of a full turn, 36 degrees, either way), filling the
    uncovered corners by `fill_mode`; the identity at inference.

    Args:
        factor: a number f in [0, 1] for [-f, f] of a full turn, or a pair (lower, upper)
            in [-1, 1] (positive angles turn counter-clockwise).
        fill_mode: "reflect" (default), "wrap", "nearest" or "constant".
        interpolation: "bilinear" (default) or "nearest".
        seed: an int for the layer's own sequence of draws, or None.
        fill_value: the value "constant" fills with (default 0).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomRotation(0.1)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor
        self._angles = tuple(v * 360.0 for v in self._factor(factor, "factor", -1.0, 1.0))

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        drawn = self.draw(inputs)                                      # (N, 1, 1, 1)
        theta = self.between(drawn[:, 0, 0, :], self._angles) * (np.pi / 180.0)   # (N, 1)
        c, s = cos(theta), sin(theta)
        cx, cy = 0.5 * (w - 1), 0.5 * (h - 1)   # Keras's _compute_affine_matrix
        zeros = theta * 0.0
        transform = concat([c, -s, cx - cx * c + cy * s, s, c, cy - cx * s - cy * c,
                            zeros, zeros], axis=-1)                   # (N, 8)
        rotated = image_ops.affine_transform(inputs, transform, self.interpolation,
                                             self.fill_mode, self.fill_value,
                                             self.data_format)
        return blend(inputs, rotated, self.training_flag(drawn))

    def get_config(self):
        return {**super().get_config(), "factor": _listed(self.factor)}


class RandomShear(_Affine):
    """In training, shears each image by random factors, as Keras's: shear_x drawn in
    `x_factor` and shear_y in `y_factor`, both negated together with probability 1/2, and
    each output pixel (x, y) read at (x + shear_x * y, shear_y * x + y) through
    `pd.ops.image.affine_transform`; the identity at inference.

    Args:
        x_factor, y_factor: a number f in [0, 1] for [-f, f], or a pair (lower, upper) of
            numbers in [0, 1] (default 0: no shear along that axis).
        interpolation: "bilinear" (default) or "nearest".
        fill_mode: "reflect" (default), "wrap", "nearest" or "constant".
        fill_value: the value "constant" fills with (default 0).
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomShear(0.2, 0.1)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear",
                 fill_mode="reflect", fill_value=0.0, data_format=None, seed=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.x_factor, self.y_factor = x_factor, y_factor  # as given: the config's
        self._x = self._shear_factor(x_factor, "x_factor")
        self._y = self._shear_factor(y_factor, "y_factor")

    def _shear_factor(self, factor, name):
        values = factor if isinstance(factor, (list, tuple)) else [factor]
        if not 1 <= len(values) <= 2 or not all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) and 0 <= v <= 1
                for v in values):
            raise ValueError(f"RandomShear: expected {name} as a number or a pair of numbers "
                             f"in [0, 1], received {name}={factor!r}")
        if len(values) == 1:
            return (-abs(float(factor)), abs(float(factor)))
        return tuple(sorted(float(v) for v in factor))

    def call(self, inputs):
        self._hw(inputs.shape)
        drawn = self.draw(inputs)
        u_invert, u_y, u_x = drawn[:, 0, 0, :], self.draw(inputs)[:, 0, 0, :], \
            self.draw(inputs)[:, 0, 0, :]                                 # Keras's order
        invert = 1.0 - 2.0 * cast(less(0.5, u_invert), inputs.dtype)     # -1 where u > 0.5
        sx = self.between(u_x, self._x) * invert                          # (N, 1)
        sy = self.between(u_y, self._y) * invert
        ones, zeros = sx * 0.0 + 1.0, sx * 0.0
        transform = concat([ones, sx, zeros, sy, ones, zeros, zeros, zeros], axis=-1)
        sheared = image_ops.affine_transform(inputs, transform, self.interpolation,
                                             self.fill_mode, self.fill_value,
                                             self.data_format)
        return blend(inputs, sheared, self.training_flag(drawn))

    def get_config(self):
        return {**super().get_config(), "x_factor": _listed(self.x_factor),
                "y_factor": _listed(self.y_factor)}


class RandomPerspective(_RandomImage):
    """In training, warps each image with a probability drawn in `factor`, as Keras's: the
    four corners (x, y) move to (x, y) * (1 + d), each d drawn in [-scale / 2, scale / 2],
    and the image follows through `pd.ops.image.perspective_transform` (the outside filled
    with `fill_value`); the identity at inference.

    Args:
        factor: the warp probability, a number f in [0, 1] for [0, f], or a pair (default
            1.0).
        scale: the corners' largest move, a number in [0, 1] (default 1.0).
        interpolation: "bilinear" (default) or "nearest".
        fill_value: the value outside the warped image (default 0).
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomPerspective(scale=0.2)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0,
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, "RandomPerspective", (0.0, 1.0))
        if not isinstance(scale, numbers.Real) or isinstance(scale, bool) or \
                not 0 <= scale <= 1:
            raise ValueError(f"RandomPerspective: expected scale as a number in [0, 1], "
                             f"received scale={scale!r}")
        if interpolation not in ("bilinear", "nearest"):
            raise ValueError(f"RandomPerspective: expected interpolation 'bilinear' or "
                             f"'nearest', received {interpolation!r}")
        if not isinstance(fill_value, numbers.Real) or isinstance(fill_value, bool):
            raise ValueError(f"RandomPerspective: expected a number fill_value, received "
                             f"{fill_value!r}")
        self.scale, self.interpolation = float(scale), interpolation
        self.fill_value = float(fill_value)

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        dtype = inputs.dtype
        probability = self.factor[0] + self.draw(inputs) * (self.factor[1] - self.factor[0])
        threshold = self.draw(inputs)  # -1 at inference
        moves = random_op((None, 4, 2), "uniform", -0.5 * self.scale, 0.5 * self.scale,
                          dtype, inputs, self._seed_fn)
        corners = constant(np.array([[[0.0, 0.0], [w - 1.0, 0.0], [0.0, h - 1.0],
                                      [w - 1.0, h - 1.0]]]), dtype=dtype)
        start = corners + moves * 0.0
        end = start + start * moves
        warped = image_ops.perspective_transform(inputs, start, end, self.interpolation,
                                                 self.fill_value, self.data_format)
        apply = cast(less(threshold, probability), dtype)
        return blend(inputs, warped, apply * self.training_flag(threshold))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value}
