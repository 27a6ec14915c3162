"""Wrappers: layers around another layer. `Wrapper` is Keras's base class (it holds the
layer, builds it and saves it in its config); `TimeDistributed` applies the layer to every
time step of a sequence.

Example:
    >>> import paddle as pd
    >>> frames = pd.layers.Input(shape=(10, 8, 8, 3))
    >>> conv = pd.layers.TimeDistributed(pd.layers.Conv2D(4, 3))
    >>> conv(frames).shape, len(conv.weights)
    ((None, 10, 6, 6, 4), 2)
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel.ops.shape import reshape
from paddle.highlevel.layers.base import Layer
from paddle.highlevel.saving.serialization import deserialize_layer


class Wrapper(Layer):
    """Base class of the layers that wrap another one (Keras's `keras.layers.Wrapper`): it
    holds `layer` (built on its first call, as any layer) and saves it in its config;
    its weights are the wrapper's. Subclasses define `call`.

    Args:
        layer: a Layer (or its `{"class_name", "config"}` from a saved config).

    Raises:
        TypeError: layer is not a Layer.

    Example:
        >>> import numpy as np, paddle as pd
        >>> class Doubled(pd.layers.Wrapper):
        ...     def call(self, inputs, training=False):
        ...         return self.layer(inputs) * 2.0
        >>> Doubled(pd.layers.Dense(1, kernel_initializer="ones"))(np.ones((1, 2), "float32")).tolist()
        [[4.0]]
    """

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if isinstance(layer, dict):
            layer = deserialize_layer(layer, None)
        if not isinstance(layer, Layer):
            raise TypeError(f"{type(self).__name__}: expected a Layer, received "
                            f"{type(layer).__name__} {layer!r}")
        self.layer = layer

    def get_config(self):
        return {**super().get_config(), "layer": {"class_name": type(self.layer).__name__,
                                                  "config": self.layer.get_config()}}


class TimeDistributed(Wrapper):
    """Applies `layer` to every slice along axis 1: the steps are folded into the batch,
    the layer runs once on (batch * steps, ...) and the result is unfolded again. The
    layer's weights are shared by all steps (they are the wrapper's weights).

    Args:
        layer: a Layer (or its `{"class_name", "config"}` from a saved config).

    Raises:
        TypeError: layer is not a Layer.
        ShapeError: inputs of rank < 3, or an unknown number of steps (it must be known
            when the layer is built, as the batch axis is the only one left open).

    Example:
        >>> import numpy as np, paddle as pd
        >>> td = pd.layers.TimeDistributed(pd.layers.Dense(2, kernel_initializer="ones"))
        >>> td(np.ones((1, 3, 4), np.float32)).tolist()
        [[[4.0, 4.0], [4.0, 4.0], [4.0, 4.0]]]
    """

    def build(self, input_shape):
        if not isinstance(input_shape, tuple) or len(input_shape) < 3:
            raise ShapeError(at_user(f"{self.name}: expected an input of rank >= 3 (batch, "
                                     f"steps, ...), received shape {input_shape}"))
        if input_shape[1] is None or None in input_shape[2:]:
            raise ShapeError(at_user(f"{self.name}: expected known sizes but for the batch "
                                     f"axis, received shape {input_shape}"))

    def call(self, inputs, training=False):
        steps = inputs.shape[1]
        folded = reshape(inputs, (-1,) + tuple(inputs.shape[2:]))
        out = self.layer(folded, training=training)
        if None in out.shape[1:]:
            raise ShapeError(at_user(f"{self.name}: {self.layer.name} gave an output of shape "
                                     f"{out.shape}, whose sizes must be known to unfold the "
                                     f"steps"))
        return reshape(out, (-1, steps) + tuple(out.shape[1:]))
