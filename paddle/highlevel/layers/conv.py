"""Convolution layers: Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D (Keras layouts).

Each is the low-level op (`pd.conv1d`, `pd.conv2d`, `pd.conv2d_transpose`) on weights it
creates in `build`, plus a bias and an activation. Kernels are stored as Keras stores them,
so Keras weight files load as they are.

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(28, 28, 1))
    >>> pd.layers.Conv2D(8, 3, padding="same", activation="relu")(x).shape
    (None, 28, 28, 8)
"""
from paddle import _settings as settings
from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.ops.conv import conv1d, conv2d, conv2d_transpose
from paddle.lowlevel.ops.shape import reshape
from paddle.highlevel import regularizers
from paddle.highlevel.layers.base import InputSpec, Layer, check_flag, regularizer_config
from paddle.highlevel.layers.core import get_activation, serialize_activation

FORMATS = {"channels_last": ("NWC", "NHWC"), "channels_first": ("NCW", "NCHW")}


def int_tuple(value, n, what, layer, minimum=1):
    """`value` as a tuple of n ints >= minimum (an int is repeated); ValueError naming the
    layer."""
    values = (value,) * n if isinstance(value, int) else value
    ok = isinstance(values, (tuple, list)) and len(values) == n and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in values)
    if not ok:
        raise ValueError(f"{layer}: expected {what} as an int >= {minimum} or a tuple of {n} "
                         f"of them, received {value!r}")
    return tuple(values)


def check_padding(padding, layer, allowed=("valid", "same")):
    if not isinstance(padding, str) or padding.lower() not in allowed:
        raise ValueError(f"{layer}: expected padding {' or '.join(map(repr, allowed))}, "
                         f"received {padding!r}")
    return padding.lower()


def check_data_format(data_format, layer):
    if data_format is None:  # Keras: the global default, pd.config.image_data_format()
        return settings.image_data_format()
    if data_format not in FORMATS:
        raise ValueError(f"{layer}: expected data_format 'channels_last' or 'channels_first', "
                         f"received {data_format!r}")
    return data_format


def check_positive(value, what, layer):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{layer}: expected a positive integer {what}, received {value!r}")
    return value


class _Conv(Layer):
    """What every convolution layer shares: argument checks, build, bias, activation, config.

    Subclasses set `rank` (1 or 2) and define `kernel_shape(channels)` and `convolve(x)`.
    """

    rank = 2
    paddings = ("valid", "same")
    takes_filters = True  # DepthwiseConv2D's output channels come from depth_multiplier
    weight_constraints = {"kernel_constraint": "kernel", "bias_constraint": "bias"}

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, **kwargs):
        super().__init__(**kwargs)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        cls, n = type(self).__name__, self.rank
        self.filters = check_positive(filters, "filters", cls) if self.takes_filters else None
        self.kernel_size = int_tuple(kernel_size, n, "kernel_size", cls)
        self.strides = int_tuple(strides, n, "strides", cls)
        self.padding = check_padding(padding, cls, self.paddings)
        self.data_format = check_data_format(data_format, cls)
        self.dilation_rate = int_tuple(dilation_rate, n, "dilation_rate", cls)
        self.groups = check_positive(groups, "groups", cls)
        if self.filters is not None and self.filters % self.groups:
            raise ValueError(f"{cls}: filters ({filters}) must be divisible by groups "
                             f"({groups})")
        self.activation = get_activation(activation)
        self._activation_name = serialize_activation(activation)
        self.use_bias = check_flag(use_bias, "use_bias", cls)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    @property
    def _format(self):
        return FORMATS[self.data_format][self.rank - 1]

    @property
    def _channel_axis(self):
        return -1 if self.data_format == "channels_last" else 1

    def input_channels(self, input_shape):
        """The input's channel count, after checking its rank and that the count is known."""
        ndim = self.rank + 2
        if len(input_shape) != ndim:
            raise ShapeError(at_user(f"{self.name}: expected an input of rank {ndim} (batch, "
                                     f"{'spatial, ' * self.rank}channels), received shape "
                                     f"{input_shape}"))
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ShapeError(at_user(f"{self.name}: the channel axis of the input must be "
                                     f"known, received shape {input_shape}"))
        return channels

    def build(self, input_shape):
        channels = self.input_channels(input_shape)
        self.check_channels(channels, input_shape)
        self.check_window(input_shape)
        self.kernel = self.add_weight("kernel", self.kernel_shape(channels),
                                      self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", (self.out_channels(channels),),
                                    self.bias_initializer, regularizer=self.bias_regularizer) \
            if self.use_bias else None
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})

    def check_channels(self, channels, input_shape):
        if channels % self.groups:
            raise ShapeError(at_user(f"{self.name}: the input's {channels} channels are not "
                                     f"divisible by groups={self.groups} (input shape "
                                     f"{input_shape})"))

    def check_window(self, input_shape):
        """A 'valid' window must fit the input (the op would say so too, without the name)."""
        if self.padding != "valid":
            return
        spatial = input_shape[1:-1] if self.data_format == "channels_last" else input_shape[2:]
        for size, k, d in zip(spatial, self.kernel_size, self.dilation_rate):
            if size is not None and (k - 1) * d + 1 > size:
                raise ShapeError(at_user(
                    f"{self.name}: the kernel {self.kernel_size} (dilation "
                    f"{self.dilation_rate}) is larger than the input's spatial size "
                    f"{tuple(spatial)} with padding 'valid'; input shape {input_shape}"))

    def out_channels(self, channels):
        return self.filters

    def call(self, inputs, training=False):
        # The op adds the bias as its kernel writes the output (and sums its gradient in
        # the filter-gradient pass), in either data format.
        y = self.convolve(inputs, self.bias)
        return self.activation(y) if self.activation is not None else y

    def get_config(self):
        return {**super().get_config(), "filters": self.filters,
                "kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": self.dilation_rate, "groups": self.groups,
                "activation": self._activation_name, "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                **regularizer_config(self, ("kernel_regularizer", "bias_regularizer"))}



class Conv1D(_Conv):
    """1-D convolution over sequences (batch, steps, channels); kernel (k, in/groups, filters).

    Args:
        filters: number of output channels.
        kernel_size: window length (int).
        strides, dilation_rate: ints >= 1.
        padding: "valid", "same" or "causal" (left padding only: no step sees the future).
        data_format: "channels_last" (batch, steps, channels) or "channels_first".
        groups: channel groups (the input channels and filters must divide by it).
        activation, use_bias, kernel_initializer, bias_initializer: as Dense.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Conv1D(4, 3, padding="causal")(pd.layers.Input(shape=(10, 2))).shape
        (None, 10, 4)
    """

    rank = 1
    paddings = ("valid", "same", "causal")

    def kernel_shape(self, channels):
        return self.kernel_size + (channels // self.groups, self.filters)

    def convolve(self, x, bias):
        return conv1d(x, self.kernel, strides=self.strides[0], padding=self.padding,
                      dilation=self.dilation_rate[0], groups=self.groups,
                      data_format=self._format, bias=bias)


class Conv2D(_Conv):
    """2-D convolution over images (batch, height, width, channels).

    The kernel is (kh, kw, in_channels // groups, filters), as in Keras.

    Args:
        filters: number of output channels.
        kernel_size: int or (kh, kw).
        strides: int or (sh, sw).
        padding: "valid" or "same" (output size ceil(input / stride)).
        data_format: "channels_last" (NHWC, default) or "channels_first" (NCHW).
        dilation_rate: int or (dh, dw).
        groups: channel groups (the input channels and filters must divide by it).
        activation: name or callable applied to the output (None: linear).
        use_bias: add a bias per filter.
        kernel_initializer, bias_initializer: names or initializer objects.

    Example:
        >>> import numpy as np, paddle as pd
        >>> conv = pd.layers.Conv2D(2, (3, 3), strides=2)
        >>> conv(np.zeros((1, 9, 9, 3), np.float32)).shape
        (1, 4, 4, 2)
    """

    def kernel_shape(self, channels):
        return self.kernel_size + (channels // self.groups, self.filters)

    def convolve(self, x, bias):
        return conv2d(x, self.kernel, strides=self.strides, padding=self.padding,
                      dilation=self.dilation_rate, groups=self.groups, data_format=self._format,
                      bias=bias)


class _Transposed(_Conv):
    """The transposed convolutions (Conv1DTranspose, Conv2DTranspose): no groups, kernel
    (k..., filters, in_channels) as Keras, and an optional `output_padding` (an int for
    rank 1, a tuple for rank 2) added to each output size, below its stride."""

    def __init__(self, filters, kernel_size, strides, padding, output_padding, data_format,
                 dilation_rate, **kwargs):
        cls = type(self).__name__
        if "groups" in kwargs:
            raise TypeError(f"{cls}: unexpected argument groups")
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         **kwargs)
        if output_padding is not None:
            output_padding = int_tuple(output_padding, self.rank, "output_padding", cls,
                                       minimum=0)
            if any(p >= s for p, s in zip(output_padding, self.strides)):
                shown = (output_padding, self.strides) if self.rank > 1 else \
                    (output_padding[0], self.strides[0])
                raise ValueError(f"{cls}: output_padding {shown[0]} must be smaller than "
                                 f"strides {shown[1]}")
            if self.rank == 1:
                output_padding, = output_padding
        self.output_padding = output_padding

    def check_window(self, input_shape):
        pass  # a transposed convolution grows its input: any window fits

    def kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def output_sizes(self, spatial):
        """Keras's deconv_output_length of each spatial size when output_padding is given,
        else None (the op's own rule)."""
        if self.output_padding is None:
            return None
        if None in spatial:
            raise ShapeError(at_user(f"{self.name}: output_padding needs known spatial sizes, "
                                     f"received {tuple(spatial)}"))
        extra = (self.output_padding,) if self.rank == 1 else self.output_padding
        out = []
        for size, k, s, d, p in zip(spatial, self.kernel_size, self.strides,
                                    self.dilation_rate, extra):
            k = (k - 1) * d + 1
            pad = k // 2 if self.padding == "same" else 0
            out.append((size - 1) * s + k - 2 * pad + p)
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        del config["groups"]
        return {**config, "output_padding": self.output_padding}


class Conv2DTranspose(_Transposed):
    """Transposed 2-D convolution (upsampling); kernel (kh, kw, filters, in_channels) as Keras.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, kernel_initializer, bias_initializer: as Conv2D.
        output_padding: None (output size: "valid" in * stride + max(k - stride, 0), "same"
            in * stride), or an int / pair added to the output size, each below its stride.

    Example:
        >>> import paddle as pd
        >>> x = pd.layers.Input(shape=(7, 7, 16))
        >>> pd.layers.Conv2DTranspose(8, 3, strides=2, padding="same")(x).shape
        (None, 14, 14, 8)
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, output_padding, data_format,
                         dilation_rate, **kwargs)

    def convolve(self, x, bias):
        spatial = x.shape[1:3] if self.data_format == "channels_last" else x.shape[2:4]
        return conv2d_transpose(x, self.kernel, output_shape=self.output_sizes(spatial),
                                strides=self.strides, padding=self.padding,
                                dilation=self.dilation_rate, data_format=self._format,
                                bias=bias)


class _Depthwise(_Conv):
    """Keras's depthwise arguments (depth_multiplier, depthwise_initializer /
    _regularizer) over _Conv's kernel; the kernel is (k..., channels, depth_multiplier)."""

    takes_filters = False
    weight_constraints = {"depthwise_constraint": "kernel", "bias_constraint": "bias"}

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, **kwargs):
        where = type(self).__name__
        for key in ("filters", "groups", "kernel_initializer", "kernel_regularizer"):
            if key in kwargs:
                raise TypeError(f"{where}: unexpected argument {key}")
        super().__init__(None, kernel_size, strides, padding, data_format, dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer, **kwargs)
        self.depth_multiplier = check_positive(depth_multiplier, "depth_multiplier", where)

    def kernel_shape(self, channels):
        return self.kernel_size + (channels, self.depth_multiplier)

    def out_channels(self, channels):
        return channels * self.depth_multiplier

    def depthwise(self, x, kernel, bias):
        """The grouped convolution: (k..., C, M) is the buffer of grouped filters
        (k..., 1, C * M), group c owning output channels c * M ... c * M + M - 1 (Keras's
        order)."""
        channels, multiplier = kernel.shape[-2:]
        filters = reshape(kernel, self.kernel_size + (1, channels * multiplier))
        if self.rank == 1:
            return conv1d(x, filters, strides=self.strides[0], padding=self.padding,
                          dilation=self.dilation_rate[0], groups=channels,
                          data_format=self._format, bias=bias)
        return conv2d(x, filters, strides=self.strides, padding=self.padding,
                      dilation=self.dilation_rate, groups=channels, data_format=self._format,
                      bias=bias)

    def convolve(self, x, bias):
        return self.depthwise(x, self.kernel, bias)

    def get_config(self):
        config = super().get_config()
        for key in ("filters", "groups"):
            del config[key]
        config["depthwise_initializer"] = config.pop("kernel_initializer")
        if "kernel_regularizer" in config:
            config["depthwise_regularizer"] = config.pop("kernel_regularizer")
        return {**config, "depth_multiplier": self.depth_multiplier}


class DepthwiseConv2D(_Depthwise):
    """Depthwise 2-D convolution: each input channel convolved with its own filters.

    The kernel is (kh, kw, in_channels, depth_multiplier) as in Keras; the output has
    in_channels * depth_multiplier channels (channel c * depth_multiplier + m comes from
    input channel c and filter m). It runs as `pd.conv2d` with groups = in_channels.

    Args:
        kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
            bias_initializer: as Conv2D.
        depth_multiplier: filters per input channel.
        depthwise_initializer: initializer of the kernel.

    Example:
        >>> import paddle as pd
        >>> x = pd.layers.Input(shape=(8, 8, 3))
        >>> pd.layers.DepthwiseConv2D(3, depth_multiplier=2)(x).shape
        (None, 6, 6, 6)
    """

    rank = 2
