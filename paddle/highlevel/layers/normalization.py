"""Normalization layers: BatchNormalization and LayerNormalization (Keras weights and
defaults).

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(8, 8, 16))
    >>> bn = pd.layers.BatchNormalization()
    >>> bn(x).shape, [w.name.split("/")[-1] for w in bn.weights]
    ((None, 8, 8, 16), ['gamma', 'beta', 'moving_mean', 'moving_variance'])
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.ops.math import sqrt
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
