"""Convolution layers composed from the convolution ops: DepthwiseConv1D, SeparableConv1D,
SeparableConv2D (a depthwise then a 1x1 pointwise convolution), Conv1DTranspose (the 2-D
transposed convolution on a height of 1), Conv3D and Conv3DTranspose (`pd.ops.conv` and
`pd.ops.conv_transpose` in 3-D, then the bias). Weights are laid out as Keras's.

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(8, 8, 3))
    >>> layer = pd.layers.SeparableConv2D(4, 3, depth_multiplier=2)
    >>> layer(x).shape, [w.shape for w in layer.weights]
    ((None, 6, 6, 4), [(3, 3, 3, 2), (1, 1, 6, 4), (4,)])
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.ops.conv import conv1d, conv2d, conv2d_transpose
from paddle.lowlevel.ops.shape import expand_dims, reshape, squeeze
from paddle.ops.convolutions import conv, conv_transpose
from paddle.highlevel import regularizers
from paddle.highlevel.layers.base import InputSpec, regularizer_config
from paddle.highlevel.layers.conv import _Conv, _Depthwise, _Transposed, check_positive


class DepthwiseConv1D(_Depthwise):
    """Depthwise 1-D convolution: each input channel of a (batch, steps, channels) input
    convolved with its own `depth_multiplier` filters; kernel (k, channels,
    depth_multiplier) as Keras's, output channels channels * depth_multiplier.

    Args:
        kernel_size, strides, dilation_rate: ints.
        padding: "valid" or "same" (Keras's two).
        depth_multiplier: filters per input channel.
        data_format, activation, use_bias, bias_initializer: as Conv1D.
        depthwise_initializer, depthwise_regularizer: the kernel's.

    Example:
        >>> import paddle as pd
        >>> pd.layers.DepthwiseConv1D(3, depth_multiplier=2)(pd.layers.Input(shape=(10, 4))).shape
        (None, 8, 8)
    """

    rank = 1


class _Separable(_Depthwise):
    """A depthwise convolution, then a 1x1 convolution to `filters` channels with the
    bias; weights depthwise_kernel, pointwise_kernel, bias (Keras's names and order)."""

    weight_constraints = {"depthwise_constraint": "depthwise_kernel",
                          "pointwise_constraint": "pointwise_kernel", "bias_constraint": "bias"}

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, **kwargs):
        super().__init__(kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, activation, use_bias, depthwise_initializer,
                         bias_initializer, depthwise_regularizer, bias_regularizer, **kwargs)
        self.filters = check_positive(filters, "filters", type(self).__name__)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)

    def build(self, input_shape):
        channels = self.input_channels(input_shape)
        self.check_window(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", self.kernel_size + (channels, self.depth_multiplier),
            self.kernel_initializer, regularizer=self.kernel_regularizer)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", (1,) * self.rank + (channels * self.depth_multiplier,
                                                    self.filters),
            self.pointwise_initializer, regularizer=self.pointwise_regularizer)
        self.bias = self.add_weight("bias", (self.filters,), self.bias_initializer,
                                    regularizer=self.bias_regularizer) \
            if self.use_bias else None
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})

    def convolve(self, x, bias):
        y = self.depthwise(x, self.depthwise_kernel, None)
        if self.rank == 1:
            return conv1d(y, self.pointwise_kernel, data_format=self._format, bias=bias)
        return conv2d(y, self.pointwise_kernel, data_format=self._format, bias=bias)

    def get_config(self):
        return {**super().get_config(), "filters": self.filters,
                "pointwise_initializer": initializers.serialize(self.pointwise_initializer),
                **regularizer_config(self, ("pointwise_regularizer",))}


class SeparableConv1D(_Separable):
    """Depthwise separable 1-D convolution: a depthwise convolution of each channel
    (`depth_multiplier` filters each), then a pointwise (size-1) convolution to `filters`
    channels, plus the bias and the activation.

    Args:
        filters: output channels.
        kernel_size, strides, dilation_rate: ints.
        padding: "valid" or "same" (Keras's two).
        depth_multiplier: depthwise filters per input channel.
        data_format, activation, use_bias, bias_initializer: as Conv1D.
        depthwise_initializer, pointwise_initializer, depthwise_regularizer,
            pointwise_regularizer, bias_regularizer: per weight.

    Example:
        >>> import paddle as pd
        >>> pd.layers.SeparableConv1D(5, 3, padding="same")(pd.layers.Input(shape=(10, 4))).shape
        (None, 10, 5)
    """

    rank = 1


class SeparableConv2D(_Separable):
    """Depthwise separable 2-D convolution: a depthwise convolution of each channel
    (`depth_multiplier` filters each), then a 1x1 convolution to `filters` channels, plus
    the bias and the activation (Keras's weights: depthwise_kernel (kh, kw, C, M),
    pointwise_kernel (1, 1, C * M, filters), bias).

    Args:
        filters: output channels.
        kernel_size, strides, dilation_rate: ints or pairs.
        padding: "valid" or "same".
        depth_multiplier: depthwise filters per input channel.
        data_format, activation, use_bias, bias_initializer: as Conv2D.
        depthwise_initializer, pointwise_initializer, depthwise_regularizer,
            pointwise_regularizer, bias_regularizer: per weight.

    Example:
        >>> import paddle as pd
        >>> pd.layers.SeparableConv2D(8, 3, strides=2)(pd.layers.Input(shape=(9, 9, 3))).shape
        (None, 4, 4, 8)
    """

    rank = 2


class Conv1DTranspose(_Transposed):
    """Transposed 1-D convolution (upsampling sequences); kernel (k, filters, channels) as
    Keras's. It runs as the 2-D transposed convolution on a height of 1.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, kernel_initializer, bias_initializer: as Conv1D ("valid" or "same").
        output_padding: None, or an int added to the output length, below `strides`.

    Example:
        >>> import paddle as pd
        >>> x = pd.layers.Input(shape=(5, 3))
        >>> pd.layers.Conv1DTranspose(4, 3, strides=2, padding="same")(x).shape
        (None, 10, 4)
    """

    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, output_padding, data_format,
                         dilation_rate, **kwargs)

    def convolve(self, x, bias):
        last = self.data_format == "channels_last"
        length = self.output_sizes([x.shape[1] if last else x.shape[2]])
        out_shape = None if length is None else (1,) + length
        image = expand_dims(x, 1 if last else 2)         # a height of 1
        kernel = reshape(self.kernel, (1,) + self.kernel.shape)
        y = conv2d_transpose(image, kernel, output_shape=out_shape,
                             strides=(1, self.strides[0]), padding=self.padding,
                             dilation=(1, self.dilation_rate[0]),
                             data_format="NHWC" if last else "NCHW", bias=bias)
        return squeeze(y, [1 if last else 2])


def _add_bias(layer, y, bias):
    """y + bias on the channel axis of y, in the layer's data format."""
    if bias is None:
        return y
    if layer.data_format == "channels_first":
        bias = reshape(bias, (bias.shape[0],) + (1,) * layer.rank)
    return y + bias


class Conv3D(_Conv):
    """3-D convolution over volumes (batch, depth, height, width, channels); kernel
    (kd, kh, kw, in_channels // groups, filters) as Keras's. It runs as `pd.ops.conv`.

    Args:
        filters: number of output channels.
        kernel_size, strides, dilation_rate: an int or three.
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
        groups: channel groups (the input channels and filters must divide by it).
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer: as Conv2D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Conv3D(4, 3, padding="same")(pd.layers.Input(shape=(6, 6, 6, 2))).shape
        (None, 6, 6, 6, 4)
    """

    rank = 3

    def kernel_shape(self, channels):
        return self.kernel_size + (channels // self.groups, self.filters)

    def convolve(self, x, bias):
        y = conv(x, self.kernel, strides=self.strides, padding=self.padding,
                 data_format=self.data_format, dilation_rate=self.dilation_rate)
        return _add_bias(self, y, bias)


class Conv3DTranspose(_Transposed):
    """Transposed 3-D convolution (upsampling volumes); kernel (kd, kh, kw, filters,
    in_channels) as Keras's. It runs as `pd.ops.conv_transpose`, whose output sizes and
    padding are Keras's.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, kernel_initializer, bias_initializer: as Conv3D.
        output_padding: None, or an int / three ints added to the output sizes, each
            below its stride.

    Example:
        >>> import paddle as pd
        >>> x = pd.layers.Input(shape=(3, 4, 4, 2))
        >>> pd.layers.Conv3DTranspose(5, 3, strides=2, padding="same")(x).shape
        (None, 6, 8, 8, 5)
    """

    rank = 3

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 output_padding=None, dilation_rate=1, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, output_padding, data_format,
                         dilation_rate, **kwargs)

    def check_window(self, input_shape):
        spatial = input_shape[1:-1] if self.data_format == "channels_last" else input_shape[2:]
        if None in spatial:
            raise ShapeError(at_user(f"{self.name}: expected known spatial sizes, received "
                                     f"input shape {input_shape}"))

    def convolve(self, x, bias):
        y = conv_transpose(x, self.kernel, strides=self.strides, padding=self.padding,
                           output_padding=self.output_padding, data_format=self.data_format,
                           dilation_rate=self.dilation_rate)
        return _add_bias(self, y, bias)
