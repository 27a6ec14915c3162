"""Convolutional LSTMs: ConvLSTM1D, ConvLSTM2D, ConvLSTM3D, as Keras's (Shi et al., 2015).

An LSTM whose products are convolutions: every step's gates (i, f, c, o) are a
convolution of the step's input (strides, padding and dilation as given) plus a "same"
convolution of the previous output, so states keep their spatial axes. The input
convolution of every step runs as one `pd.ops.conv` over (batch * steps) images; the
recurrence is unrolled over the (known) steps from `pd.ops.conv` and the activations.
Weights are Keras's: kernel (k..., channels, 4 * filters), recurrent_kernel
(k..., filters, 4 * filters), bias (4 * filters,), saved in the layer's cell as Keras's.

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(5, 8, 8, 3))
    >>> pd.layers.ConvLSTM2D(4, 3, padding="same", return_sequences=True)(x).shape
    (None, 5, 8, 8, 4)
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.ops.math import zeros_like
from paddle.lowlevel.ops.shape import reshape
from paddle.ops.convolutions import conv
from paddle.highlevel.layers.conv import check_data_format, check_padding, int_tuple
from paddle.highlevel.layers.core import get_activation, serialize_activation
from paddle.highlevel.layers.base import check_flag
from paddle.highlevel.layers.recurrent import BaseRNN, _ForgetBias, unroll


class _ConvLSTM(BaseRNN):
    """What ConvLSTM1D/2D/3D share (`rank` spatial axes); BaseRNN runs the sequence
    (masks, go_backwards, initial and kept states, return_sequences / return_state).

    Dropout draws one mask per sequence over each step's whole input (and one over the
    state for recurrent_dropout), shared by the four gates."""

    rank = 2
    num_states = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, **kwargs):
        super().__init__(filters, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, return_sequences=return_sequences,
                         return_state=return_state, go_backwards=go_backwards, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, stateful=stateful,
                         **kwargs)
        cls, n = type(self).__name__, self.rank
        self.filters = self.units
        self.kernel_size = int_tuple(kernel_size, n, "kernel_size", cls)
        self.strides = int_tuple(strides, n, "strides", cls)
        self.padding = check_padding(padding, cls)
        self.data_format = check_data_format(data_format, cls)
        self.dilation_rate = int_tuple(dilation_rate, n, "dilation_rate", cls)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{cls}: strides > 1 are not compatible with dilation_rate > 1, "
                             f"received strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        self.recurrent_activation = get_activation(recurrent_activation)
        self._recurrent_activation_name = serialize_activation(recurrent_activation)
        self.unit_forget_bias = check_flag(unit_forget_bias, "unit_forget_bias", cls)

    @property
    def _channel_axis(self):
        return -1 if self.data_format == "channels_last" else 1

    def _spatial(self, step_shape):
        """The spatial sizes of a (batch, spatial..., channels) step in the data format."""
        return step_shape[1:-1] if self.data_format == "channels_last" else step_shape[2:]

    def check_sequence(self, shape):
        ndim = self.rank + 3
        channels = None if len(shape) != ndim else \
            shape[-1] if self.data_format == "channels_last" else shape[2]
        spatial = () if len(shape) != ndim else self._spatial(shape[1:])
        expected = self.kernel.shape[-2] if self.built else channels
        if len(shape) != ndim or channels is None or channels != expected or \
                None in spatial or shape[1] is None:
            raise ShapeError(at_user(
                f"{self.name}: expected an input of rank {ndim} (batch, timesteps, "
                f"{'spatial, ' * self.rank}channels in {self.data_format}) with known "
                f"timesteps, spatial sizes and {expected if expected else ''} channels, "
                f"received {shape}"))
        for size, k, d in zip(spatial, self.kernel_size, self.dilation_rate):
            if self.padding == "valid" and (k - 1) * d + 1 > size:
                raise ShapeError(at_user(f"{self.name}: the kernel {self.kernel_size} is "
                                         f"larger than the input's spatial size "
                                         f"{tuple(spatial)} with padding 'valid'"))

    def state_shape(self, input_shape):
        spatial = []
        for size, k, s, d in zip(self._spatial(input_shape[1:]), self.kernel_size,
                                 self.strides, self.dilation_rate):
            if self.padding == "same":
                spatial.append(-(-size // s))
            else:
                spatial.append((size - (k - 1) * d - 1) // s + 1)
        if self.data_format == "channels_last":
            return tuple(spatial) + (self.filters,)
        return (self.filters,) + tuple(spatial)

    def build(self, input_shape):
        shape = input_shape[0] if isinstance(input_shape, list) else input_shape
        self.check_sequence(shape)
        channels = shape[-1] if self.data_format == "channels_last" else shape[2]
        f = self.filters
        self.kernel = self.add_weight("kernel", self.kernel_size + (channels, 4 * f),
                                      self.kernel_initializer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel",
                                                self.kernel_size + (f, 4 * f),
                                                self.recurrent_initializer)
        bias_init = _ForgetBias(self.bias_initializer, f) if self.unit_forget_bias else \
            self.bias_initializer
        self.bias = self.add_weight("bias", (4 * f,), bias_init) if self.use_bias else None
        if self.stateful:
            self.create_states(shape)

    def _gate(self, z, i):
        """The i-th quarter of z's channels (gates i, f, c, o)."""
        f = self.filters
        if self.data_format == "channels_last":
            return z[..., i * f:(i + 1) * f]
        return z[:, i * f:(i + 1) * f]

    def run(self, x, states, return_sequences, mask=None, rdrop=None):
        steps = x.shape[1]
        # Every step's input convolution (and the bias) at once, over (batch * steps).
        zx = conv(reshape(x, (-1,) + tuple(x.shape[2:])), self.kernel, strides=self.strides,
                  padding=self.padding, data_format=self.data_format,
                  dilation_rate=self.dilation_rate)
        if self.bias is not None:
            bias = self.bias if self.data_format == "channels_last" else \
                reshape(self.bias, (4 * self.filters,) + (1,) * self.rank)
            zx = zx + bias
        zx = reshape(zx, (-1, steps) + tuple(zx.shape[1:]))
        if not states:
            zero = zeros_like(self._gate(zx[:, 0], 0))
            states = [zero, zero]
        gate, act = self.recurrent_activation, self.activation

        def step(z_t, s):
            h, c = s
            h_in = h if rdrop is None else h * rdrop
            z = z_t + conv(h_in, self.recurrent_kernel, padding="same",
                           data_format=self.data_format)
            i, f = _apply(gate, self._gate(z, 0)), _apply(gate, self._gate(z, 1))
            c = f * c + i * _apply(act, self._gate(z, 2))
            h = _apply(gate, self._gate(z, 3)) * _apply(act, c)
            return h, [h, c]

        return unroll(step, zx, states, mask, return_sequences)

    def get_config(self):
        config = super().get_config()
        for key in ("units",):
            del config[key]
        config["zero_output_for_mask"] = self.zero_output_for_mask
        return {**config, "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding,
                "data_format": self.data_format, "dilation_rate": self.dilation_rate,
                "recurrent_activation": self._recurrent_activation_name,
                "unit_forget_bias": self.unit_forget_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer)}


def _apply(fn, z):
    return fn(z) if fn is not None else z


class ConvLSTM1D(_ConvLSTM):
    """Convolutional LSTM over sequences of 1-D signals: (batch, timesteps, length,
    channels) (channels_last).

    Args:
        filters: channels of the output and the states.
        kernel_size, strides, dilation_rate: an int (strides > 1 excludes dilation > 1).
        padding: "valid" or "same" (of the input convolution; the recurrent one is "same").
        data_format: "channels_last" (default) or "channels_first".
        activation, recurrent_activation: "tanh" and "sigmoid" by default.
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
            unit_forget_bias: as LSTM.
        dropout, recurrent_dropout, seed: dropout of the inputs and of the states.
        return_sequences, return_state, go_backwards, stateful: as LSTM.

    Example:
        >>> import paddle as pd
        >>> pd.layers.ConvLSTM1D(4, 3)(pd.layers.Input(shape=(5, 10, 2))).shape
        (None, 8, 4)
    """

    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """Convolutional LSTM over sequences of images: (batch, timesteps, rows, cols,
    channels) (channels_last) -> (batch, rows', cols', filters), or every step's with
    return_sequences.

    Args:
        filters: channels of the output and the states.
        kernel_size, strides, dilation_rate: an int or two.
        padding, data_format, activation, recurrent_activation, use_bias, initializers,
            unit_forget_bias, dropout, recurrent_dropout, seed, return_sequences,
            return_state, go_backwards, stateful: as ConvLSTM1D.

    Example:
        >>> import numpy as np, paddle as pd
        >>> out, h, c = pd.layers.ConvLSTM2D(2, 3, return_state=True)(np.ones((1, 3, 5, 5, 1), np.float32))
        >>> out.shape, c.shape
        ((1, 3, 3, 2), (1, 3, 3, 2))
    """

    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """Convolutional LSTM over sequences of volumes: (batch, timesteps, depth, rows, cols,
    channels) (channels_last).

    Args:
        filters: channels of the output and the states.
        kernel_size, strides, dilation_rate: an int or three.
        padding, data_format, and the rest: as ConvLSTM1D.

    Example:
        >>> import paddle as pd
        >>> pd.layers.ConvLSTM3D(2, 2, padding="same")(pd.layers.Input(shape=(3, 4, 4, 4, 1))).shape
        (None, 4, 4, 4, 2)
    """

    rank = 3
