"""Pipeline: a plain layer applying a list of layers in turn (Keras's
`keras.layers.Pipeline`, for preprocessing and augmentation), each with the mask the one
before it made.

Example:
    >>> import numpy as np, paddle as pd
    >>> pipe = pd.layers.Pipeline([pd.layers.Rescaling(2.0), pd.layers.Dense(3)])
    >>> pipe(np.ones((4, 2), np.float32)).shape
    (4, 3)
"""
from paddle.lowlevel import eager
from paddle.lowlevel.graph import in_call
from paddle.highlevel.layers.base import Layer
from paddle.highlevel.saving.serialization import deserialize_layer, serialize_keras_object


class Pipeline(Layer):
    """Applies `layers` in order. Unlike a Sequential it is a layer, not a model; as
    Keras's, a direct call on data (outside any model or layer call) runs in training
    mode (augmentation layers augment) unless `training=False` is given.

    Args:
        layers: a list of layers (or their `{"class_name", "config"}` from a config).
        name: the layer's name.

    Raises:
        TypeError: layers is not a list of layers.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pipe = pd.layers.Pipeline([pd.layers.RandomFlip(), pd.layers.Rescaling(0.5)])
        >>> [type(l).__name__ for l in pipe.layers], pipe(np.ones((1, 2, 2, 1))).shape
        (['RandomFlip', 'Rescaling'], (1, 2, 2, 1))
    """

    def __init__(self, layers, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if not isinstance(layers, (list, tuple)):
            raise TypeError(f"Pipeline: expected layers as a list of layers, received "
                            f"{type(layers).__name__} {layers!r}")
        layers = [deserialize_layer(l, None) if isinstance(l, dict) else l for l in layers]
        bad = [l for l in layers if not isinstance(l, Layer)]
        if bad:
            raise TypeError(f"Pipeline: expected layers as a list of layers, received "
                            f"{type(bad[0]).__name__} {bad[0]!r} among them")
        self.layers = list(layers)  # the attribute Keras saves their weights under

    def __call__(self, inputs, *args, **kwargs):
        if "training" not in kwargs and not args and not in_call() and \
                not eager.is_tracing() and eager.is_concrete(inputs):
            kwargs["training"] = True  # Keras's default of Pipeline.call
        return super().__call__(inputs, *args, **kwargs)

    def build(self, input_shape):
        pass  # each layer builds on its first call, on what the one before gave

    def call(self, inputs, training=None, mask=None):
        outputs = inputs
        for layer in self.layers:
            kwargs = {} if training is None else {"training": training}
            if mask is not None:
                kwargs["mask"] = mask
            outputs = layer(outputs, **kwargs)
            mask = getattr(outputs, "_keras_mask", None)
        return outputs

    def get_config(self):
        return {"name": self.name,
                "layers": [serialize_keras_object(l) for l in self.layers]}
