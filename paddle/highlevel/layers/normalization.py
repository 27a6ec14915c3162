"""Normalization layers: BatchNormalization, LayerNormalization, GroupNormalization,
RMSNormalization and UnitNormalization (Keras weights and defaults).

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(8, 8, 16))
    >>> bn = pd.layers.BatchNormalization()
    >>> bn(x).shape, [w.name.split("/")[-1] for w in bn.weights]
    ((None, 8, 8, 16), ['gamma', 'beta', 'moving_mean', 'moving_variance'])
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.ops.math import maximum, sqrt
from paddle.lowlevel.ops.reduce import mean, sum as sum_
from paddle.lowlevel.ops.norm import batch_norm, check_epsilon, check_momentum, layer_norm
from paddle.lowlevel.ops.shape import reshape
from paddle.highlevel.layers.base import InputSpec, Layer, check_flag

INITIALIZER_KEYS = ("beta_initializer", "gamma_initializer", "moving_mean_initializer",
                    "moving_variance_initializer")


def _check_axis(axis, shape, layer):
    """axis (an int, or for LayerNormalization a list) as non-negative ints of known size."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    rank = len(shape)
    out = []
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool) or not -rank <= a < rank:
            raise ShapeError(at_user(f"{layer}: axis {axis} is out of range for an input of "
                                     f"shape {shape}"))
        if shape[a % rank] is None:
            raise ShapeError(at_user(f"{layer}: the size of axis {a} must be known, received "
                                     f"shape {shape}"))
        out.append(a % rank)
    return out


class _Normalization(Layer):
    """Shared arguments, config and initializer handling."""

    supports_masking = True
    # Under a mixed policy the statistics are computed in float32 (Keras's batch, layer
    # and group normalization cast half inputs up), the output cast back to the half type.
    computes_in_float32 = True

    def _init_common(self, epsilon, center, scale, initializer_args):
        self.epsilon = check_epsilon(epsilon, type(self).__name__)
        where = type(self).__name__
        self.center = check_flag(center, "center", where)
        self.scale = check_flag(scale, "scale", where)
        for key, value in initializer_args.items():
            setattr(self, key, initializers.get(value))

    def _config(self, keys):
        config = {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                  "center": self.center, "scale": self.scale}
        for key in keys:
            config[key] = initializers.serialize(getattr(self, key))
        return config



_Normalization.weight_constraints = {"gamma_constraint": "gamma", "beta_constraint": "beta"}
_Normalization.weight_regularizers = {"gamma_regularizer": "gamma",  # keyword arguments
                                      "beta_regularizer": "beta"}


class BatchNormalization(_Normalization):
    """Normalizes each channel with the batch's statistics in training and with moving
    averages of them at inference (`pd.batch_norm`).

    Which statistics are used follows the plan (`fit` trains, `predict` infers). A layer
    with `trainable = False` when it is called always uses the moving statistics, as
    Keras does for frozen layers (fine-tuning).

    Args:
        axis: the channel axis (-1 for channels_last, 1 for channels_first).
        momentum: weight of the old moving statistics in each update.
        epsilon: added to the variance.
        center, scale: learn an offset beta / a scale gamma.
        beta_initializer, gamma_initializer, moving_mean_initializer,
            moving_variance_initializer: names or initializer objects.

    Example:
        >>> import numpy as np, paddle as pd
        >>> bn = pd.layers.BatchNormalization()
        >>> bn(np.ones((4, 3), np.float32)).shape     # inference: moving mean 0, variance 1
        (4, 3)
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"BatchNormalization: expected an integer axis, received {axis!r}")
        self.axis, self.momentum = axis, check_momentum(momentum, "BatchNormalization")
        self._init_common(epsilon, center, scale, {
            "beta_initializer": beta_initializer, "gamma_initializer": gamma_initializer,
            "moving_mean_initializer": moving_mean_initializer,
            "moving_variance_initializer": moving_variance_initializer})

    def build(self, input_shape):
        a, = _check_axis(self.axis, input_shape, self.name)
        c = (input_shape[a],)
        self.gamma = self.add_weight("gamma", c, self.gamma_initializer) if self.scale else None
        self.beta = self.add_weight("beta", c, self.beta_initializer) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", c, self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", c,
                                               self.moving_variance_initializer,
                                               trainable=False)
        # Keyed by the axis as the user wrote it: errors then say "the last axis".
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: input_shape[a]})

    def call(self, inputs, training=False):
        if not self.trainable:
            return self._frozen(inputs)
        return batch_norm(inputs, self.gamma, self.beta, self.moving_mean,
                          self.moving_variance, momentum=self.momentum, epsilon=self.epsilon,
                          axis=self.axis)

    def _frozen(self, x):
        """Inference with the moving statistics, in training runs too (no updates)."""
        a = self.axis % x.ndim
        shape = tuple(-1 if i == a else 1 for i in range(a, x.ndim))  # broadcast on axis a

        def along(v):
            return reshape(v, shape)

        y = (x - along(self.moving_mean)) / sqrt(along(self.moving_variance) + self.epsilon)
        if self.gamma is not None:
            y = y * along(self.gamma)
        return y + along(self.beta) if self.beta is not None else y

    def get_config(self):
        return {**self._config(INITIALIZER_KEYS), "momentum": self.momentum}


class LayerNormalization(_Normalization):
    """Normalizes each example over `axis` (the features), then scales and shifts.

    Args:
        axis: int or list of ints, the normalized axes (default -1).
        epsilon: added to the variance.
        center, scale: learn an offset beta / a scale gamma, shaped like the axes.
        beta_initializer, gamma_initializer: names or initializer objects.

    Example:
        >>> import numpy as np, paddle as pd
        >>> y = pd.layers.LayerNormalization(epsilon=0.0)(np.array([[1.0, 3.0]], np.float32))
        >>> y.tolist()
        [[-1.0, 1.0]]
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        axes = [axis] if isinstance(axis, int) else list(axis) \
            if isinstance(axis, (list, tuple)) else []
        if not axes or any(not isinstance(a, int) or isinstance(a, bool) for a in axes):
            raise ValueError(f"LayerNormalization: expected an integer axis or a list of them, "
                             f"received {axis!r}")
        axis = axis if isinstance(axis, int) else axes
        self.axis = axis
        self._init_common(epsilon, center, scale, {"beta_initializer": beta_initializer,
                                                   "gamma_initializer": gamma_initializer})

    def build(self, input_shape):
        axes = _check_axis(self.axis, input_shape, self.name)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{self.name}: repeated axis in {self.axis}")
        self._axes = sorted(axes)
        shape = tuple(input_shape[a] for a in self._axes)
        self.gamma = self.add_weight("gamma", shape, self.gamma_initializer) \
            if self.scale else None
        self.beta = self.add_weight("beta", shape, self.beta_initializer) \
            if self.center else None
        given = [self.axis] if isinstance(self.axis, int) else self.axis
        self.input_spec = InputSpec(ndim=len(input_shape),
                                    axes={a: input_shape[a % len(input_shape)] for a in given})

    def call(self, inputs, training=False):
        return layer_norm(inputs, self.gamma, self.beta, axis=self._axes, epsilon=self.epsilon)

    def get_config(self):
        return self._config(("beta_initializer", "gamma_initializer"))


def _axes_arg(axis, layer):
    """An int or a non-empty list/tuple of ints, as given; ValueError naming the layer."""
    axes = [axis] if isinstance(axis, int) and not isinstance(axis, bool) else list(axis) \
        if isinstance(axis, (list, tuple)) else []
    if not axes or any(not isinstance(a, int) or isinstance(a, bool) for a in axes):
        raise ValueError(f"{layer}: expected an integer axis or a list of them, received "
                         f"{axis!r}")
    return axis if isinstance(axis, int) else list(axis)


def _broadcast_shape(shape, axes):
    """The shape a weight over `axes` (sorted, non-negative) takes to broadcast against an
    input of `shape`: its sizes on those axes, 1 between them, nothing before the first."""
    return tuple(shape[a] if a in axes else 1 for a in range(axes[0], len(shape)))


class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over `axis`: `x / max(||x||, 1e-12)`, as Keras's
    `x * min(rsqrt(sum(x**2)), 1e12)`.

    Args:
        axis: an int or a list of ints, the axes the norm is taken over (default -1).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.UnitNormalization()(np.array([[3.0, 4.0]], np.float32)).tolist()
        [[0.6000000238418579, 0.800000011920929]]
    """

    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = _axes_arg(axis, "UnitNormalization")

    def build(self, input_shape):
        self._axes = sorted(set(_check_axis_range(self.axis, input_shape, self.name)))

    def call(self, inputs):
        squares = sum_(inputs * inputs, axis=self._axes, keepdims=True)
        return inputs / sqrt(maximum(squares, 1e-24))  # min(rsqrt(s), 1 / 1e-12)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _check_axis_range(axis, shape, layer):
    rank = len(shape)
    out = []
    for a in [axis] if isinstance(axis, int) else axis:
        if not -rank <= a < rank:
            raise ShapeError(at_user(f"{layer}: axis {axis} is out of range for an input of "
                                     f"shape {shape}"))
        out.append(a % rank)
    return out


class RMSNormalization(Layer):
    """Root-mean-square normalization: `x / sqrt(mean(x**2 over axis) + epsilon) * scale`,
    with a learned `scale` shaped like the normalized axes (Keras's weight, initialized to
    ones).

    Args:
        axis: an int or a list of ints, the normalized axes (default -1).
        epsilon: added to the mean square (default 1e-6, as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> y = pd.layers.RMSNormalization(epsilon=0.0)(np.array([[3.0, 4.0]], np.float32))
        >>> [round(float(v), 4) for v in y[0]]
        [0.8485, 1.1314]
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = _axes_arg(axis, "RMSNormalization")
        self.epsilon = check_epsilon(epsilon, "RMSNormalization")

    def build(self, input_shape):
        axes = _check_axis(self.axis, input_shape, self.name)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{self.name}: repeated axis in {self.axis}")
        self._axes = sorted(axes)
        self.scale = self.add_weight("scale", tuple(input_shape[a] for a in self._axes),
                                     "ones")
        self._scale_shape = _broadcast_shape(input_shape, self._axes)

    def call(self, inputs):
        mean_square = mean(inputs * inputs, axis=self._axes, keepdims=True)
        return inputs / sqrt(mean_square + self.epsilon) * reshape(self.scale,
                                                                   self._scale_shape)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}


class GroupNormalization(_Normalization):
    """Normalizes each example over groups of channels: the `axis` channels are split into
    `groups` groups, and each group is normalized with its own mean and variance over the
    group's channels and all other non-batch axes, then scaled by `gamma` and shifted by
    `beta` per channel (Keras's layer; `groups=-1` is instance normalization,
    `groups=1` layer normalization over all axes).

    Args:
        groups: the number of groups, dividing the number of channels (or -1: one group
            per channel). Default 32.
        axis: the channel axis (default -1).
        epsilon: added to the variance (default 1e-3).
        center, scale: learn an offset beta / a scale gamma, one per channel.
        beta_initializer, gamma_initializer: names or initializer objects.

    The non-batch sizes of the input must be known when the layer is built.

    Example:
        >>> import paddle as pd
        >>> layer = pd.layers.GroupNormalization(groups=2)
        >>> layer(pd.layers.Input(shape=(5, 4))).shape, [w.shape for w in layer.weights]
        ((None, 5, 4), [(4,), (4,)])
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(groups, int) or isinstance(groups, bool) or \
                (groups <= 0 and groups != -1):
            raise ValueError(f"GroupNormalization: expected groups to be a positive integer "
                             f"(or -1 for instance normalization), received {groups!r}")
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"GroupNormalization: expected an integer axis, received "
                             f"{axis!r}")
        self.groups, self.axis = groups, axis
        self._init_common(epsilon, center, scale, {"beta_initializer": beta_initializer,
                                                   "gamma_initializer": gamma_initializer})

    def build(self, input_shape):
        a, = _check_axis(self.axis, input_shape, self.name)
        if a == 0:
            raise ValueError(f"{self.name}: axis {self.axis} is the batch axis of an input of "
                             f"shape {input_shape}; expected a channel axis")
        if None in input_shape[1:]:
            raise ShapeError(at_user(f"{self.name}: expected the non-batch sizes of the input "
                                     f"to be known, received shape {input_shape}"))
        channels = input_shape[a]
        groups = channels if self.groups == -1 else self.groups
        if channels % groups:
            raise ValueError(f"{self.name}: expected groups ({groups}) to divide the number of "
                             f"channels, received {channels} channels on axis {self.axis}")
        self._axis, self._groups = a, groups
        grouped = list(input_shape[1:])
        grouped[a - 1:a] = [groups, channels // groups]
        self._grouped_shape = (-1,) + tuple(grouped)
        self._reduce = [i for i in range(1, len(grouped) + 1) if i != a]
        self._shape = (-1,) + tuple(input_shape[1:])
        self._channel_shape = _broadcast_shape(input_shape, [a])
        self.gamma = self.add_weight("gamma", (channels,), self.gamma_initializer) \
            if self.scale else None
        self.beta = self.add_weight("beta", (channels,), self.beta_initializer) \
            if self.center else None
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: channels})

    def call(self, inputs):
        x = reshape(inputs, self._grouped_shape)
        centered = x - mean(x, axis=self._reduce, keepdims=True)
        variance = mean(centered * centered, axis=self._reduce, keepdims=True)
        y = reshape(centered / sqrt(variance + self.epsilon), self._shape)
        if self.gamma is not None:
            y = y * reshape(self.gamma, self._channel_shape)
        return y + reshape(self.beta, self._channel_shape) if self.beta is not None else y

    def get_config(self):
        return {**self._config(("beta_initializer", "gamma_initializer")),
                "groups": self.groups}
