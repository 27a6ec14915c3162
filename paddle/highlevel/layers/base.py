"""The Layer base class, its input contract, and `Input`.

A layer is a callable that builds low-level ops: called on a Variable it returns a
Variable, creating its parameters (`add_weight`) under the current namespace the first
time (`build(input_shape)`). Called on a NumPy array it evaluates at once and returns one.

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.Dense(3)
    >>> y = layer(pd.layers.Input(shape=(4,)))
    >>> y.shape, [w.shape for w in layer.weights]
    ((None, 3), [(4, 3), (3,)])
    >>> layer(np.ones((2, 4), np.float32)).shape
    (2, 3)
"""
import re

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.executor import eval as run
from paddle.lowlevel.graph import NAMES, Variable, as_dtype, data
from paddle.lowlevel.layers import parameter


def check_flag(value, name, layer):
    """`value` as a bool if it is one (or 0 / 1); ValueError naming the layer and the argument
    otherwise: bool('no') is True, so return_sequences='no' silently meant yes."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and
                                              value in (0, 1)):
        return bool(value)
    raise ValueError(f"{layer}: expected {name} to be True or False, received {value!r}")


def snake_case(name):
    """Keras's default layer names: Conv2D -> conv2d, Conv2DTranspose -> conv2d_transpose,
    SimpleRNN -> simple_rnn (so names match those of a Keras model of the same layers)."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


class InputSpec:
    """What a built layer accepts: a rank (ndim / min_ndim) and fixed sizes on some axes."""

    def __init__(self, ndim=None, min_ndim=None, axes=None):
        self.ndim, self.min_ndim, self.axes = ndim, min_ndim, dict(axes or {})

    def check(self, layer, shape):
        if self.ndim is not None and len(shape) != self.ndim:
            raise ShapeError(at_user(f"{layer.name}: expected an input of rank {self.ndim}, "
                                     f"received shape {shape}"))
        if self.min_ndim is not None and len(shape) < self.min_ndim:
            raise ShapeError(at_user(f"{layer.name}: expected an input of rank >= "
                                     f"{self.min_ndim}, received shape {shape}"))
        for axis, size in self.axes.items():
            got = shape[axis] if -len(shape) <= axis < len(shape) else "missing"
            if got is not None and got != size:
                where = "the last axis" if axis == -1 else f"axis {axis}"
                raise ShapeError(at_user(f"{layer.name}: expected {where} of the input to be "
                                         f"{size}, received shape {shape}"))


class Layer:
    """Base class of all layers.

    Subclasses override `build(input_shape)` (create weights with `add_weight`) and
    `call(inputs, training=False)` (build the output from low-level ops), and extend
    `get_config()` with their constructor arguments.

    Args:
        name: unique layer name (default: the class name in snake_case, numbered).
        trainable: whether the layer's trainable weights are updated by training.
        dtype: the dtype of its weights.
    """

    def __init__(self, name=None, trainable=True, dtype="float32", input_shape=None,
                 **unknown):
        if unknown:
            raise TypeError(f"{type(self).__name__}: unexpected arguments "
                            f"{', '.join(sorted(unknown))}")
        if name is None:
            saved_prefix, NAMES.prefix = NAMES.prefix, []
            try:  # layer names are global (as in Keras); namespaces prefix their weights only
                self.name = NAMES.unique(snake_case(type(self).__name__), self)
            finally:
                NAMES.prefix = saved_prefix
        else:  # a given name is kept as it is (a model checks its layers' names are unique)
            if not isinstance(name, str) or not name or "/" in name:
                raise ValueError(f"{type(self).__name__}: expected a non-empty name without "
                                 f"'/', received {name!r}")
            self.name = name
            NAMES.taken.setdefault(name, self)
        self._trainable = bool(trainable)
        self.dtype = as_dtype(dtype, self.name)
        self.built = False
        self.input_spec = None
        self._weights = []
        self._input_shape_arg = tuple(input_shape) if input_shape is not None else None
        self._inbound = []       # [(input Variables, output Variables, call kwargs)]
        self._eager = {}         # eager NumPy calls: signature -> (inputs, output)

    # ---- weights ------------------------------------------------------------------------

    def add_weight(self, name, shape, initializer="glorot_uniform", trainable=True, dtype=None):
        """Create a parameter `<namespace>/<layer name>/<name>` (or fetch it under reuse)."""
        full = NAMES.full(f"{self.name}/{name}")
        var = parameter(full, shape, dtype or self.dtype, initializer,
                        trainable=trainable and self._trainable)
        var._layer_trainable = bool(trainable)
        self._weights.append(var)
        return var

    @property
    def weights(self):
        """Every weight, trainable ones first, each group in creation order (Keras order)."""
        return self.trainable_weights + self.non_trainable_weights

    @property
    def trainable_weights(self):
        own = [w for w in self._weights if self._trainable and w._layer_trainable]
        return own + [w for layer in self._sublayers() for w in layer.trainable_weights
                      if self._trainable]

    @property
    def non_trainable_weights(self):
        own = [w for w in self._weights if not (self._trainable and w._layer_trainable)]
        nested = [w for layer in self._sublayers() for w in
                  (layer.weights if not self._trainable else layer.non_trainable_weights)]
        return own + nested

    def _sublayers(self):
        """Layers held as attributes (wrappers such as Bidirectional), in attribute order."""
        found = []
        for value in self.__dict__.values():
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(item, Layer) and item is not self and item not in found:
                    found.append(item)
        return found

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        for w in self._weights:
            w.trainable = self._trainable and w._layer_trainable
        for layer in self._sublayers():
            layer.trainable = value

    def get_weights(self):
        """The weights' values as NumPy arrays, in `weights` order."""
        return [w.val() for w in self.weights]

    def set_weights(self, weights):
        """Assign values in `weights` order; shapes must match."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"{self.name}: set_weights expected {len(mine)} arrays, received "
                             f"{len(weights)}")
        for w, value in zip(mine, weights):
            if np.shape(value) != w.shape:
                raise ShapeError(f"{self.name}: weight {w.name!r} has shape {w.shape}, received "
                                 f"{np.shape(value)}")
        for w, value in zip(mine, weights):
            w.set_value(value)

    def count_params(self):
        return int(sum(np.prod(w.shape) for w in self.weights))

    # ---- calling ------------------------------------------------------------------------

    def build(self, input_shape):
        """Create the weights for inputs of this shape (batch dim may be None)."""

    def call(self, inputs, training=False):
        raise NotImplementedError(f"{type(self).__name__} must implement call()")

    def compute_output_shape(self, input_shape):
        """The output shape for an input shape, found by building the ops on a pd.data."""
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        inputs = [data(f"{self.name}_probe", s) for s in shapes]
        out = self(inputs if isinstance(input_shape, list) else inputs[0])
        return [o.shape for o in out] if isinstance(out, (list, tuple)) else out.shape

    def __call__(self, inputs, training=False, **kwargs):
        flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        if flat and all(isinstance(x, np.ndarray) for x in flat):
            return self._call_eager(inputs, training, kwargs)
        for x in flat:
            if not isinstance(x, Variable):
                raise TypeError(at_user(f"{self.name}: expected a Variable (or a NumPy array), "
                                        f"received {type(x).__name__}"))
        shapes = [x.shape for x in flat]
        shape = shapes if isinstance(inputs, (list, tuple)) else shapes[0]
        if not self.built:
            self.build(shape)
            self.built = True
        elif self.input_spec is not None:
            for s in shapes:
                self.input_spec.check(self, s)
        outputs = self.call(inputs, training=training, **kwargs)
        outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        self._inbound.append((list(flat), list(outs), dict(kwargs)))
        self._list_input = isinstance(inputs, (list, tuple))
        for k, o in enumerate(outs):
            if isinstance(o, Variable):
                o._history = (self, len(self._inbound) - 1, k)
        return outputs

    def _call_eager(self, inputs, training, kwargs):
        flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        # Keyword arguments shape the graph too (return_attention_scores=True adds an output).
        key = (tuple((a.shape[1:], a.dtype.str) for a in flat), bool(training),
               repr(sorted(kwargs.items())))
        if key not in self._eager:
            names = [data(f"{self.name}_in{i}", (None,) + a.shape[1:], _feed_dtype(a, self.dtype))
                     for i, a in enumerate(flat)]
            graph_in = names if isinstance(inputs, (list, tuple)) else names[0]
            self._eager[key] = (names, self(graph_in, training=training, **kwargs))
        names, out = self._eager[key]
        return run(out, dict(zip(names, flat)), training=training)

    # ---- configuration ------------------------------------------------------------------

    def get_config(self):
        """Constructor arguments that rebuild this layer (extended by subclasses)."""
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}
        if self._input_shape_arg is not None:
            config["input_shape"] = list(self._input_shape_arg)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r} built={self.built}>"


def _feed_dtype(array, float_dtype):
    """Integers stay integers (ids, labels); everything else is fed as the layer's dtype."""
    return "int64" if array.dtype.kind in "iu" else float_dtype


def Input(shape, dtype="float32", name=None, batch_size=None):
    """A model input: a pd.data Variable whose first axis is the batch (None = any size).

    Example:
        >>> import paddle as pd
        >>> pd.layers.Input(shape=(28, 28, 1)).shape
        (None, 28, 28, 1)
    """
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    base = name or "input_layer"
    holder = _InputName()
    full = NAMES.unique(base, holder)
    var = data(full.rsplit("/", 1)[-1], (batch_size,) + shape, dtype)
    var._input_name_claim = holder
    var._input_key = name  # dicts of input arrays are keyed by the name asked for
    var._is_input = True
    return var


class _InputName:
    """Owner of an Input's name claim (lives as long as the Input Variable)."""
