"""Equalization and ContrastLimitedAdaptiveHistogramEqualization (CLAHE), as Keras's:
histogram equalization of each channel, over the batch or per tile of each image.

Keras equalizes a channel over the whole batch (one histogram of the channel's values in
every image of the batch, as `keras.layers.Equalization` computes it), maps each value
through the histogram's cumulative distribution, and applies it in training only. The
histogram is a `scatter_add` of ones into `bins` counts per channel, so the layer runs on
a batch of any size and on every device; no gradient flows through the equalized values
(they are a lookup table's), as in Keras.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.array([[[[0.0], [10.0]], [[10.0], [20.0]]]], np.float32)
    >>> inp = pd.data("images", shape=(None, 2, 2, 1))
    >>> out = pd.layers.Equalization()(inp)
    >>> pd.eval(out, {inp: x}, training=True)[0, :, :, 0].tolist()
    [[0.0, 170.0], [170.0, 255.0]]
"""
import numbers

import numpy as np

from paddle.lowlevel.graph import FLOATS, apply, constant
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops.math import cast, clip, equal, greater, less_equal, where
from paddle.lowlevel.ops.reduce import min as reduce_min, sum as reduce_sum
from paddle.lowlevel.ops.sampling import random as random_op
from paddle.lowlevel.ops.shape import (concat, expand_dims, gather, one_hot, reshape, reverse,
                                      transpose)
from paddle.lowlevel.ops.sort import cumsum, take_along_axis
from paddle.lowlevel.ops.special import floor, rint
from paddle.lowlevel.random_state import next_seed
from paddle.highlevel.layers.color_augmentation import _back, _last
from paddle.highlevel.layers.image_preprocessing import _Image, _value_range, blend


def _scale(x, source, target):
    """Keras's `_scale_values`: `x * scale + offset`."""
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return x * scale + (target[0] - source[0] * scale)


def equalize(x, bins):
    """Keras's per-channel equalization of channels-last images `x` with values in
    [0, 255]: one histogram per channel over the batch; a channel whose values fill at
    most one bin keeps them."""
    channels = x.shape[-1]
    # Keras's two index rules, each in its own arithmetic: the histogram's
    # x * (bins - 1) / 255 and the lookup's (x / 255) * (bins - 1), truncated and clipped.
    hist_index = cast(clip(x * float(bins - 1) / 255.0, 0.0, bins - 1.0), "int64")
    lookup_index = cast(clip((x / 255.0) * float(bins - 1), 0.0, bins - 1.0), "int64")
    offsets = constant(np.arange(channels, dtype=np.int64) * bins)
    ids = reshape(hist_index + offsets, (-1,))
    ones = reshape(x * 0.0 + 1.0, (-1,))
    zeros = constant(np.zeros(channels * bins), dtype=x.dtype)
    hist = reshape(apply(OPS["scatter_add"], [ones, ids, zeros], {"axis": 0}),
                   (channels, bins))
    cdf = cumsum(hist, axis=1)
    big = float(np.finfo(x.dtype).max)
    cdf_min = reduce_min(where(greater(cdf, 0.0), cdf, big), axis=1, keepdims=True)
    denominator = cdf[:, bins - 1:] - cdf_min
    denominator = where(greater(denominator, 0.0), denominator, 1.0)
    table = clip(rint((cdf - cdf_min) * 255.0 / denominator), 0.0, 255.0)
    equalized = gather(reshape(table, (-1,)), lookup_index + offsets)
    filled = reduce_sum(cast(greater(hist, 0.0), x.dtype), axis=1)  # (channels,)
    return where(less_equal(filled, 1.0), x, equalized)


class Equalization(_Image):
    """Histogram equalization, as Keras's: in training, each channel's values are mapped
    through the cumulative histogram (`bins` bins) of that channel over the batch, spreading
    them over the value range; the identity at inference (Keras applies it in training
    only).

    Args:
        value_range: the images' (low, high) range (default (0, 255)).
        bins: the number of histogram bins, an integer >= 1 (default 256).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([[[[0.0], [10.0]], [[10.0], [20.0]]]], np.float32)
        >>> np.asarray(pd.layers.Equalization()(x)).tolist() == x.tolist()  # inference
        True
    """

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = tuple(sorted(_value_range(value_range, "Equalization")))
        if not isinstance(bins, numbers.Integral) or isinstance(bins, bool) or bins < 1:
            raise ValueError(f"Equalization: expected bins as an integer >= 1, received "
                             f"bins={bins!r}")
        self.bins = int(bins)

    def call(self, inputs):
        x = inputs if inputs.dtype in FLOATS else cast(inputs, "float32")
        x = _last(x, self)
        if self.value_range != (0.0, 255.0):
            x = _scale(x, self.value_range, (0.0, 255.0))
        out = equalize(x, self.bins)
        if self.value_range != (0.0, 255.0):
            out = _scale(out, (0.0, 255.0), self.value_range)
        out = _back(out, self)
        # 1 in training runs, 0 otherwise: Keras equalizes in training only.
        u = random_op((1, 1, 1, 1), "uniform", 0.0, 1.0, out.dtype, None, next_seed,
                      inference_value=-1.0)
        original = inputs if inputs.dtype in FLOATS else cast(inputs, "float32")
        return blend(original, out, cast(greater(u, -0.5), out.dtype))

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range),
                "bins": self.bins}


def _symmetric_pad(x, axis, count):
    """x (channels last) with `count` more rows (axis 1) or columns (axis 2) at the end,
    mirrored with the edge repeated (NumPy's "symmetric" mode, as Keras pads)."""
    if count == 0:
        return x
    n = x.shape[axis]
    index = [slice(None)] * 4
    index[axis] = slice(n - count, n)
    return concat([x, reverse(x[tuple(index)], axis=axis)], axis=axis)


class ContrastLimitedAdaptiveHistogramEqualization(_Image):
    """Contrast limited adaptive histogram equalization (CLAHE), as Keras's: each image is
    cut into `tile_grid_size` tiles (padded by mirroring to a multiple of the grid); each
    tile's 256-bin histogram is clipped at `clip_limit` times the mean bin count (the excess
    shared by all bins), turned into an equalization table, and every pixel is mapped
    through the tables of its four nearest tiles, interpolated bilinearly. Deterministic:
    applied in training and at inference alike, as Keras's. The histograms are one-hot
    sums, as Keras's: memory grows with 256 times the image size.

    Args:
        value_range: the images' (low, high) range (default (0, 255)).
        clip_limit: the contrast limit, a number (default 4.0; 0 or less: no clipping).
        tile_grid_size: (rows, columns) of tiles, integers >= 1 (default (8, 8)).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.random.default_rng(0).uniform(0, 255, (1, 8, 8, 1)).astype(np.float32)
        >>> layer = pd.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2))
        >>> np.asarray(layer(x)).shape
        (1, 8, 8, 1)
    """

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        where_ = "ContrastLimitedAdaptiveHistogramEqualization"
        self.value_range = tuple(sorted(_value_range(value_range, where_)))
        if not isinstance(clip_limit, numbers.Real) or isinstance(clip_limit, bool) or \
                not np.isfinite(clip_limit):
            raise ValueError(f"{where_}: expected clip_limit as a number, received "
                             f"clip_limit={clip_limit!r}")
        if not isinstance(tile_grid_size, (list, tuple)) or len(tile_grid_size) != 2 or \
                not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1
                        for v in tile_grid_size):
            raise ValueError(f"{where_}: expected tile_grid_size as two integers >= 1, "
                             f"received tile_grid_size={tile_grid_size!r}")
        self.clip_limit = float(clip_limit)
        self.tile_grid_size = (int(tile_grid_size[0]), int(tile_grid_size[1]))

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        images = inputs if inputs.dtype in FLOATS else cast(inputs, "float32")
        x = _last(images, self)
        if self.value_range != (0.0, 255.0):
            x = _scale(x, self.value_range, (0.0, 255.0))
        out = self._clahe(x, h, w)
        if self.value_range != (0.0, 255.0):
            out = _scale(out, (0.0, 255.0), self.value_range)
        return _back(out, self)

    def _tables(self, padded, tile_h, tile_w):
        """The equalization table of each tile, edge-padded by one tile:
        (B, gh + 2, gw + 2, C, 256)."""
        gh, gw = self.tile_grid_size
        c = padded.shape[-1]
        tiles = reshape(padded, (-1, gh, tile_h, gw, tile_w, c))
        tiles = reshape(transpose(tiles, (0, 1, 3, 5, 2, 4)), (-1, gh, gw, c, tile_h * tile_w))
        values = cast(clip(floor(tiles), 0.0, 255.0), "int64")
        hists = reduce_sum(one_hot(values, 256, dtype=padded.dtype), axis=-2)
        count = float(tile_h * tile_w)
        if self.clip_limit > 0:
            clipped = clip(hists, 0.0, self.clip_limit * count / 256.0)
            hists = clipped + reduce_sum(hists - clipped, axis=-1, keepdims=True) / 256.0
        cdf = cumsum(hists, axis=-1)
        cdf_min = reduce_min(cdf, axis=-1, keepdims=True)
        denominator = count - cdf_min
        denominator = where(equal(denominator, 0.0), 1.0, denominator)
        table = clip((cdf - cdf_min) * 255.0 / denominator, 0.0, 255.0)
        table = concat([table[:, :1], table, table[:, -1:]], axis=1)
        return concat([table[:, :, :1], table, table[:, :, -1:]], axis=2)

    def _clahe(self, x, h, w):
        gh, gw = self.tile_grid_size
        tile_h, tile_w = -(-h // gh), -(-w // gw)
        padded = _symmetric_pad(_symmetric_pad(x, 1, tile_h * gh - h), 2, tile_w * gw - w)
        table = self._tables(padded, tile_h, tile_w)
        rows, cols = _neighbours(tile_h * gh, tile_h, gh), _neighbours(tile_w * gw, tile_w, gw)
        pixels = expand_dims(cast(clip(floor(padded), 0.0, 255.0), "int64"), -1)
        corners = {}
        for r, row_index in enumerate(rows[:2]):
            by_row = gather(table, constant(row_index), axis=1)
            for k, col_index in enumerate(cols[:2]):
                cell = gather(by_row, constant(col_index), axis=2)     # (B, Hp, Wp, C, 256)
                corners[r, k] = take_along_axis(cell, pixels, axis=-1)[..., 0]
        wy = constant(rows[2].reshape(1, -1, 1, 1), dtype=x.dtype)
        wx = constant(cols[2].reshape(1, 1, -1, 1), dtype=x.dtype)
        top = corners[0, 0] * (1.0 - wx) + corners[0, 1] * wx
        bottom = corners[1, 0] * (1.0 - wx) + corners[1, 1] * wx
        return (top * (1.0 - wy) + bottom * wy)[:, :h, :w, :]

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range),
                "clip_limit": self.clip_limit, "tile_grid_size": list(self.tile_grid_size)}


def _neighbours(size, tile, grid):
    """Keras's interpolation along one axis of `size` positions, in float32 as Keras: (first
    tile index, second tile index, weight of the second), in the edge-padded tile grid."""
    g = (np.arange(size, dtype=np.float32) - np.float32(tile / 2.0)) / np.float32(tile) + \
        np.float32(1.0)
    first = np.floor(g)
    weight = (g - first).astype(np.float64)
    second = np.clip(first + 1.0, 0, grid + 1).astype(np.int64)
    first = np.clip(first, 0, grid + 1).astype(np.int64)
    return first, second, weight
