"""Equalization, as Keras's: histogram equalization of each channel.

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
from paddle.lowlevel.ops.math import cast, clip, greater, less_equal, where
from paddle.lowlevel.ops.reduce import min as reduce_min, sum as reduce_sum
from paddle.lowlevel.ops.sampling import random as random_op
from paddle.lowlevel.ops.shape import gather, reshape
from paddle.lowlevel.ops.sort import cumsum
from paddle.lowlevel.ops.special import rint
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
