"""`Sequential`: a stack of layers, each fed the previous one's output (a functional
`Model` whose graph is rebuilt as layers are added).

Example:
    >>> import numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(2)])
    >>> model.add(pd.layers.Dense(1))
    >>> model(np.ones((3, 4), np.float32)).shape
    (3, 1)
"""
import numpy as np

from paddle.errors import CheckpointError, ShapeError
from paddle.lowlevel.graph import Variable
from paddle.highlevel.layers.base import Input, Layer
from paddle.highlevel.layers.core import InputLayer
from paddle.highlevel.models.model import Model, _safe_unless_told
from paddle.highlevel.saving.formats import saving


def _input_for_first_layer(layer):
    """The input a Sequential model can build from at once: the first layer's
    `input_shape=` argument, or, for a layer already called on one Variable (taken from
    another model, as Keras's transfer-learning recipe does), that input's shape."""
    if layer._input_shape_arg is not None:
        return Input(shape=layer._input_shape_arg)
    if layer.built and layer._inbound and len(layer._inbound[0][0]) == 1:
        source = layer._inbound[0][0][0]
        if source.ndim >= 1:
            return Input(shape=source.shape[1:], dtype=source.dtype)
    return None


class Sequential(Model):
    """A stack of layers, each fed the previous one's output.

    Example:
        >>> import paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(2)])
        >>> model.outputs[0].shape
        (None, 2)
    """

    _builds_under_own_name = True  # Keras builds its layers in its name scope (state paths)


    _summary_lists_inputs = False  # as Keras: no InputLayer row

    def __init__(self, layers=None, trainable=True, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._layers = []
        self._input = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer):
        """Append a layer (or set the input with a `pd.layers.Input` Variable)."""
        if isinstance(layer, InputLayer):
            layer = layer.output  # Keras's InputLayer: the Input it holds
        if isinstance(layer, Variable):
            if self._layers or self._input is not None:
                raise ValueError("Sequential: an Input can only come first")
            self._input = layer
            self._rebuild()
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential: expected a Layer, received {type(layer).__name__}")
        self._layers.append(layer)
        if self._input is None and len(self._layers) == 1:
            self._input = _input_for_first_layer(layer)
        if self.outputs is not None and len(self._layers) > 1:
            self._init_graph(self._input, layer(self.outputs[0]))  # extend; no rebuild
        else:
            self._rebuild()

    def pop(self):
        """Remove the last layer."""
        if not self._layers:
            raise ValueError("Sequential: there is no layer to pop")
        layer = self._layers.pop()
        self._rebuild()
        return layer

    def _rebuild(self):
        if self._input is None:
            return
        x = self._input
        for layer in self._layers:
            x = layer(x)
        self._init_graph(self._input, x)

    @property
    def layers(self):
        return list(self._layers)

    def _ensure_graph(self, arrays):
        if self.inputs is None:
            if len(arrays) != 1:
                raise ValueError("Sequential: expected one input array")
            a = np.asarray(arrays[0])
            self._input = Input(shape=a.shape[1:],
                                dtype="int64" if a.dtype.kind in "iu" else self.dtype)
            self._from_data = True
            self._rebuild()
        elif len(arrays) == 1:
            self._relax(np.shape(arrays[0]))

    def _relax(self, shape):
        """A model built by its first call (no Input) keeps the dimensions that a later
        call changes unknown, as Keras's (which runs its layers on whatever fits them):
        the graph is rebuilt on an Input with those axes None, when the layers accept
        that; else the graph stays and the input check reports the mismatch."""
        old = self._input
        if not getattr(self, "_from_data", False) or len(shape) != len(old.shape):
            return
        relaxed = tuple(None if a is None or a != b else a
                        for a, b in zip(old.shape[1:], shape[1:]))
        if relaxed == tuple(old.shape[1:]):
            return
        try:  # the layers on the new shape itself (their shape rules accept None dims)
            x = Input(shape=tuple(shape[1:]), dtype=old.dtype)
            for layer in self._layers:
                x = layer(x)
        except (ShapeError, ValueError):  # they refuse it: keep the graph, whose input
            return                        # check reports the mismatch
        self._input = Input(shape=relaxed, dtype=old.dtype)
        self._rebuild()

    def _replay(self, inputs):
        if isinstance(inputs, Variable):
            self._relax(inputs.shape)
        return super()._replay(inputs)

    def build(self, input_shape=None):
        if input_shape is not None and self.inputs is None:
            self._input = Input(shape=tuple(input_shape)[1:])
            self._rebuild()

    def graph(self, training=False, example=None):
        if self.inputs is None:
            if example is None:
                raise ValueError(f"{self.name}: the model has no input shape yet; start it "
                                 "with pd.layers.Input(shape=...) or call it on data")
            self._ensure_graph(example)
        elif example is not None and len(example) == 1:
            self._relax(np.shape(example[0]))
        return self._functional_graph(training)

    def call(self, inputs, training=None):
        x = inputs
        for layer in self._layers:
            x = layer(x, training=training)
        return x

    def _eager_program_takes_weak(self, dtype):
        # Only the first layer sees the input: the others see its (strong) outputs.
        return bool(self._layers) and self._layers[0]._eager_program_takes_weak(dtype)

    def get_config(self):
        """The layers' configs (an InputLayer entry first once the input shape is known),
        in Keras's layout; `Sequential.from_config` rebuilds the model."""
        if self.inputs is not None:
            return saving("model_config")(self, top=False)["config"]
        return {"name": self.name, "trainable": self.trainable,
                "layers": [saving("serialize_layer")(layer) for layer in self._layers]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new Sequential model from `get_config()`'s dict (new weights).

        Example:
            >>> import paddle as pd
            >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
            >>> pd.Sequential.from_config(model.get_config()).outputs[0].shape
            (None, 2)
        """
        if not isinstance(config, dict):
            raise TypeError(f"Sequential.from_config: expected a dict, received "
                            f"{type(config).__name__}")
        try:
            with _safe_unless_told():
                return saving("sequential_from_config")(config, custom_objects)
        except CheckpointError as e:
            raise ValueError(f"Sequential.from_config: {e}") from e
