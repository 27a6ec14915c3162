"""Pooling layers: windowed (Max/AveragePooling1D/2D/3D), adaptive
(Adaptive{Average,Max}Pooling1D/2D/3D) and global (Global*Pooling1D/2D/3D).

Windowed pools are the ops `pd.max_pool2d`, `pd.avg_pool2d` and their 1-D forms (3-D:
`pd.ops.max_pool` / `average_pool`); adaptive pools are `pd.ops.adaptive_*_pool`; global
pools are `pd.global_avg_pool2d` or a mean / max reduction over the spatial axes.

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(28, 28, 8))
    >>> pd.layers.MaxPooling2D(2)(x).shape, pd.layers.GlobalAveragePooling2D()(x).shape
    ((None, 14, 14, 8), (None, 8))
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel.ops.pool import (avg_pool1d, avg_pool2d, global_avg_pool2d, max_pool1d,
                                      max_pool2d)
from paddle.lowlevel.ops.reduce import max as reduce_max
from paddle.lowlevel.ops.reduce import mean
from paddle.highlevel.layers.base import InputSpec, Layer, check_flag
from paddle.highlevel.layers.conv import FORMATS, check_data_format, check_padding, int_tuple
from paddle.ops.convolutions import (adaptive_average_pool, adaptive_max_pool, average_pool,
                                     max_pool)


class _Pooling(Layer):
    """A window slid over the spatial axes (rank 1 or 2), reduced by the subclass's op."""

    rank = 2
    op = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        cls, n = type(self).__name__, self.rank
        self.pool_size = int_tuple(pool_size, n, "pool_size", cls)
        self.strides = self.pool_size if strides is None else int_tuple(strides, n, "strides",
                                                                        cls)
        self.padding = check_padding(padding, cls)
        self.data_format = check_data_format(data_format, cls)

    def build(self, input_shape):
        ndim = self.rank + 2
        if len(input_shape) != ndim:
            raise ShapeError(at_user(f"{self.name}: expected an input of rank {ndim} (batch, "
                                     f"{'spatial, ' * self.rank}channels), received shape "
                                     f"{input_shape}"))
        spatial = input_shape[1:-1] if self.data_format == "channels_last" else input_shape[2:]
        if self.padding == "valid" and any(s is not None and p > s
                                           for s, p in zip(spatial, self.pool_size)):
            raise ShapeError(at_user(f"{self.name}: the pool {self.pool_size} is larger than "
                                     f"the input's spatial size {tuple(spatial)} with padding "
                                     f"'valid'; input shape {input_shape}"))
        self.input_spec = InputSpec(ndim=ndim)

    def call(self, inputs, training=False):
        size, strides = self.pool_size, self.strides
        if self.rank == 1:
            size, strides = size[0], strides[0]
        return type(self).op(inputs, size, strides=strides, padding=self.padding,
                             data_format=FORMATS[self.data_format][self.rank - 1])

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format}


class MaxPooling1D(_Pooling):
    """Maximum over windows of steps: (batch, steps, channels) -> (batch, new_steps, channels).

    Args:
        pool_size: window length (default 2).
        strides: step between windows (default: pool_size).
        padding: "valid" or "same" (output ceil(steps / strides)).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.MaxPooling1D(2)(pd.layers.Input(shape=(10, 3))).shape
        (None, 5, 3)
    """

    rank = 1
    op = staticmethod(max_pool1d)


class AveragePooling1D(_Pooling):
    """Mean over windows of steps (padding never counts in a "same" average).

    Args:
        pool_size, strides, padding, data_format: as MaxPooling1D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.AveragePooling1D(3, strides=1)(pd.layers.Input(shape=(10, 3))).shape
        (None, 8, 3)
    """

    rank = 1
    op = staticmethod(avg_pool1d)


class MaxPooling2D(_Pooling):
    """Maximum over windows of pixels: (batch, h, w, channels) -> (batch, h', w', channels).

    Args:
        pool_size: int or (ph, pw) (default 2).
        strides: int or (sh, sw) (default: pool_size).
        padding: "valid" or "same" (output ceil(size / strides)).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.MaxPooling2D((2, 2))(np.ones((1, 4, 6, 2), np.float32)).shape
        (1, 2, 3, 2)
    """

    op = staticmethod(max_pool2d)


class AveragePooling2D(_Pooling):
    """Mean over windows of pixels (padding never counts in a "same" average).

    Args:
        pool_size, strides, padding, data_format: as MaxPooling2D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.AveragePooling2D(2, padding="same")(pd.layers.Input(shape=(5, 5, 1))).shape
        (None, 3, 3, 1)
    """

    op = staticmethod(avg_pool2d)


class _Pooling3D(_Pooling):
    """A window slid over (depth, height, width): Keras's `ops.max_pool` / `average_pool`."""

    rank = 3

    def call(self, inputs, training=False):
        return type(self).op(inputs, self.pool_size, strides=self.strides,
                             padding=self.padding, data_format=self.data_format)


class MaxPooling3D(_Pooling3D):
    """Maximum over windows of voxels: (batch, d, h, w, channels) -> (batch, d', h', w',
    channels) (also `MaxPool3D`).

    Args:
        pool_size: int or three ints (default 2).
        strides: int or three ints (default: pool_size).
        padding: "valid" or "same" (output ceil(size / strides)).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.MaxPooling3D(2)(pd.layers.Input(shape=(4, 6, 8, 3))).shape
        (None, 2, 3, 4, 3)
    """

    op = staticmethod(max_pool)


class AveragePooling3D(_Pooling3D):
    """Mean over windows of voxels (padding never counts in a "same" average; also
    `AvgPool3D`).

    Args:
        pool_size, strides, padding, data_format: as MaxPooling3D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.AveragePooling3D(2, padding="same")(pd.layers.Input(shape=(3, 5, 5, 1))).shape
        (None, 2, 3, 3, 1)
    """

    op = staticmethod(average_pool)


class _AdaptivePooling(Layer):
    """Pooling to a fixed output size: each spatial axis of length L split into `o` bins
    [floor(i L / o), ceil((i + 1) L / o)), reduced by the subclass's op."""

    rank = 2
    op = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        cls, n = type(self).__name__, self.rank
        self.output_size = int_tuple(output_size, n, "output_size", cls)
        self.data_format = check_data_format(data_format, cls)

    def build(self, input_shape):
        ndim = self.rank + 2
        if len(input_shape) != ndim:
            raise ShapeError(at_user(f"{self.name}: expected an input of rank {ndim} (batch, "
                                     f"{'spatial, ' * self.rank}channels), received shape "
                                     f"{input_shape}"))
        spatial = input_shape[1:-1] if self.data_format == "channels_last" else input_shape[2:]
        if None in spatial:
            raise ShapeError(at_user(f"{self.name}: expected known spatial sizes, received "
                                     f"input shape {input_shape}"))
        self.input_spec = InputSpec(ndim=ndim)

    def call(self, inputs, training=False):
        return type(self).op(inputs, self.output_size, data_format=self.data_format)

    def get_config(self):
        return {**super().get_config(), "output_size": self.output_size,
                "data_format": self.data_format}


class AdaptiveAveragePooling1D(_AdaptivePooling):
    """Mean over `output_size` adaptive bins of steps: (batch, steps, channels) ->
    (batch, output_size, channels).

    Args:
        output_size: the output length (int).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.AdaptiveAveragePooling1D(4)(pd.layers.Input(shape=(10, 3))).shape
        (None, 4, 3)
    """

    rank = 1
    op = staticmethod(adaptive_average_pool)


class AdaptiveMaxPooling1D(_AdaptivePooling):
    """Maximum over `output_size` adaptive bins of steps.

    Args:
        output_size, data_format: as AdaptiveAveragePooling1D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.AdaptiveMaxPooling1D(4)(pd.layers.Input(shape=(10, 3))).shape
        (None, 4, 3)
    """

    rank = 1
    op = staticmethod(adaptive_max_pool)


class AdaptiveAveragePooling2D(_AdaptivePooling):
    """Mean over adaptive bins of pixels: (batch, h, w, channels) -> (batch, oh, ow,
    channels).

    Args:
        output_size: an int or (oh, ow).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.AdaptiveAveragePooling2D((2, 3))(pd.layers.Input(shape=(7, 7, 3))).shape
        (None, 2, 3, 3)
    """

    op = staticmethod(adaptive_average_pool)


class AdaptiveMaxPooling2D(_AdaptivePooling):
    """Maximum over adaptive bins of pixels.

    Args:
        output_size, data_format: as AdaptiveAveragePooling2D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.AdaptiveMaxPooling2D(2)(pd.layers.Input(shape=(7, 7, 3))).shape
        (None, 2, 2, 3)
    """

    op = staticmethod(adaptive_max_pool)


class AdaptiveAveragePooling3D(_AdaptivePooling):
    """Mean over adaptive bins of voxels: (batch, d, h, w, channels) -> (batch, od, oh,
    ow, channels).

    Args:
        output_size: an int or (od, oh, ow).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.AdaptiveAveragePooling3D(2)(pd.layers.Input(shape=(5, 5, 5, 1))).shape
        (None, 2, 2, 2, 1)
    """

    rank = 3
    op = staticmethod(adaptive_average_pool)


class AdaptiveMaxPooling3D(_AdaptivePooling):
    """Maximum over adaptive bins of voxels.

    Args:
        output_size, data_format: as AdaptiveAveragePooling3D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.AdaptiveMaxPooling3D((1, 2, 3))(pd.layers.Input(shape=(5, 5, 5, 1))).shape
        (None, 1, 2, 3, 1)
    """

    rank = 3
    op = staticmethod(adaptive_max_pool)


class _GlobalPooling(Layer):
    """A reduction over every spatial axis: (batch, ..., channels) -> (batch, channels)."""

    rank = 2

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, type(self).__name__)
        self.keepdims = check_flag(keepdims, "keepdims", type(self).__name__)

    @property
    def spatial_axes(self):
        first = 1 if self.data_format == "channels_last" else 2
        return tuple(range(first, first + self.rank))

    def build(self, input_shape):
        ndim = self.rank + 2
        if len(input_shape) != ndim:
            raise ShapeError(at_user(f"{self.name}: expected an input of rank {ndim} (batch, "
                                     f"{'spatial, ' * self.rank}channels), received shape "
                                     f"{input_shape}"))
        self.input_spec = InputSpec(ndim=ndim)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}


class GlobalAveragePooling1D(_GlobalPooling):
    """Mean over the steps: (batch, steps, channels) -> (batch, channels).

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the steps axis with size 1.

    Example:
        >>> import paddle as pd
        >>> pd.layers.GlobalAveragePooling1D()(pd.layers.Input(shape=(10, 3))).shape
        (None, 3)
    """

    rank = 1

    def call(self, inputs, training=False):
        return mean(inputs, axis=self.spatial_axes, keepdims=self.keepdims)


class GlobalMaxPooling1D(_GlobalPooling):
    """Maximum over the steps: (batch, steps, channels) -> (batch, channels).

    Args:
        data_format, keepdims: as GlobalAveragePooling1D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.GlobalMaxPooling1D()(pd.layers.Input(shape=(10, 3))).shape
        (None, 3)
    """

    rank = 1

    def call(self, inputs, training=False):
        return reduce_max(inputs, axis=self.spatial_axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling):
    """Mean over height and width: (batch, h, w, channels) -> (batch, channels).

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the spatial axes with size 1.

    Example:
        >>> import paddle as pd
        >>> pd.layers.GlobalAveragePooling2D(keepdims=True)(pd.layers.Input(shape=(4, 4, 8))).shape
        (None, 1, 1, 8)
    """

    def call(self, inputs, training=False):
        return global_avg_pool2d(inputs, data_format=FORMATS[self.data_format][1],
                                 keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    """Maximum over height and width: (batch, h, w, channels) -> (batch, channels).

    Args:
        data_format, keepdims: as GlobalAveragePooling2D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.GlobalMaxPooling2D()(pd.layers.Input(shape=(4, 4, 8))).shape
        (None, 8)
    """

    def call(self, inputs, training=False):
        return reduce_max(inputs, axis=self.spatial_axes, keepdims=self.keepdims)


class GlobalAveragePooling3D(_GlobalPooling):
    """Mean over the three spatial axes: (batch, d, h, w, channels) -> (batch, channels)
    (also `GlobalAvgPool3D`).

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the spatial axes with size 1.

    Example:
        >>> import paddle as pd
        >>> pd.layers.GlobalAveragePooling3D()(pd.layers.Input(shape=(2, 3, 4, 5))).shape
        (None, 5)
    """

    rank = 3

    def call(self, inputs, training=False):
        return mean(inputs, axis=self.spatial_axes, keepdims=self.keepdims)


class GlobalMaxPooling3D(_GlobalPooling):
    """Maximum over the three spatial axes: (batch, d, h, w, channels) -> (batch, channels)
    (also `GlobalMaxPool3D`).

    Args:
        data_format, keepdims: as GlobalAveragePooling3D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.GlobalMaxPooling3D(keepdims=True)(pd.layers.Input(shape=(2, 3, 4, 5))).shape
        (None, 1, 1, 1, 5)
    """

    rank = 3

    def call(self, inputs, training=False):
        return reduce_max(inputs, axis=self.spatial_axes, keepdims=self.keepdims)
