"""Keras 3's `keras.Operation` and `keras.Function` on paddle's graphs.

In Keras an Operation computes on tensors in `call` and describes its outputs in
`compute_output_spec` for symbolic inputs. paddle's ops build graph nodes on symbolic
inputs (Variables) and run at once on arrays, so `Operation.__call__` is `call` either way:
on `pd.Input`s its result is a symbolic Variable (paddle's KerasTensor) whose shape and
dtype come from paddle's own shape rules; a `compute_output_spec` a subclass writes is kept
for callers that ask for it.

`Function(inputs, outputs)` is a callable graph from symbolic inputs to outputs (Keras's
base of functional models): paddle runs it as a functional model's graph, on arrays
(values) or on symbolic inputs (a bigger graph).

Example:
    >>> import numpy as np, paddle as pd
    >>> class AddOne(pd.Operation):
    ...     def call(self, x):
    ...         return pd.ops.add(x, 1.0)
    >>> inp = pd.Input((2,))
    >>> fn = pd.Function(inp, AddOne()(inp) * 2.0)
    >>> np.asarray(fn(np.zeros((1, 2), "float32"))).tolist()
    [[2.0, 2.0]]
"""
import inspect

from paddle.lowlevel import eager
from paddle.lowlevel.graph import NAMES
from paddle.highlevel.layers.base import snake_case
from paddle.highlevel.layers.keras_api import _symbolic
from paddle.highlevel.models.model import Model


class Operation:
    """Base class of Keras 3's operations: subclasses write `call` (with `pd.ops`) and may
    write `compute_output_spec`; calling the operation calls `call` (see the module).

    Args:
        name: a name without "/" (default: the class name in snake_case, numbered).

    Raises:
        ValueError: a name that is not a string or contains "/".

    Example:
        >>> import numpy as np, paddle as pd
        >>> class Square(pd.Operation):
        ...     def call(self, x):
        ...         return x * x
        >>> op = Square(name="square_op")
        >>> np.asarray(op(np.array([3.0], "float32"))).tolist(), op.get_config()
        ([9.0], {'name': 'square_op'})
    """

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        # Keras's automatic config: the constructor's arguments, defaults included.
        try:
            bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
            bound.apply_defaults()
            config = dict(bound.arguments)
            config.pop(next(iter(config)))  # self
            for key, param in inspect.signature(cls.__init__).parameters.items():
                if param.kind == param.VAR_KEYWORD and key in config:
                    config.update(config.pop(key))
                elif param.kind == param.VAR_POSITIONAL:
                    config.pop(key, None)
        except TypeError:
            config = None
        instance._auto_config = config
        return instance

    def __init__(self, name=None):
        if name is None:
            name = NAMES.unique(snake_case(type(self).__name__), self)
        if not isinstance(name, str) or "/" in name:
            raise ValueError(f"Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name} (of type {type(name)})")
        self.name = name

    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    def call(self, *args, **kwargs):
        """The computation: subclasses write it."""
        raise NotImplementedError(f"{type(self).__name__}: an Operation subclass must "
                                  f"write call()")

    def symbolic_call(self, *args, **kwargs):
        """The call on symbolic inputs: its outputs (graph Variables)."""
        return self.compute_output_spec(*args, **kwargs)

    def compute_output_spec(self, *args, **kwargs):
        """The outputs of `call` on symbolic stand-ins of the arguments (arrays become graph
        inputs of their shape and dtype), traced: nothing runs.

        Example:
            >>> import numpy as np, paddle as pd
            >>> class Double(pd.Operation):
            ...     def call(self, x):
            ...         return x * 2
            >>> Double().compute_output_spec(np.zeros((4, 3), "float32")).shape
            (4, 3)
        """
        where = f"{self.name}.compute_output_spec"
        args = _symbolic(args, where)
        kwargs = dict(zip(kwargs, _symbolic(kwargs.values(), where)))
        with eager.tracing():
            try:
                return self.call(*args, **kwargs)
            except Exception as error:
                raise type(error)(
                    f"Could not automatically infer the output shape / dtype of "
                    f"'{self.name}' (of type {type(self).__name__}). Either the "
                    f"`{type(self).__name__}.call()` method is incorrect, or you need to "
                    f"implement the `{type(self).__name__}.compute_output_spec() / "
                    f"compute_output_shape()` method. Error encountered:\n\n{error}"
                ).with_traceback(error.__traceback__) from None

    def get_config(self):
        """{"name": ..., and the constructor's arguments} (Keras's automatic config).

        Raises:
            NotImplementedError: arguments that are not plain values (as Keras)."""
        config = {"name": self.name}
        extra = dict(self._auto_config or {})
        extra.pop("name", None)
        for key, value in extra.items():
            if not isinstance(value, (str, int, float, bool, type(None), list, tuple, dict)):
                raise NotImplementedError(
                    f"Object {type(self).__name__} was created by passing non-serializable "
                    f"argument values in `__init__()` ({key}={value!r}), and therefore the "
                    f"object must override `get_config()` in order to be serializable.")
        config.update(extra)
        return config

    @classmethod
    def from_config(cls, config):
        """The operation made from `get_config()`'s dict."""
        try:
            return cls(**config)
        except Exception as error:
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using "
                            f"config={config}.\n\nException encountered: {error}") from error

    def __repr__(self):
        return f"<Operation name={self.name}>"


class Function(Operation):
    """A callable graph from symbolic inputs (`pd.Input`) to outputs built from them with
    layers, operations and `pd.ops` (Keras 3's `keras.Function`).

    Args:
        inputs: a `pd.Input`, or a list or dict of them.
        outputs: a Variable computed from the inputs, or a list or dict of them.
        name: the function's name.

    Raises:
        ValueError, TypeError: inputs that are not graph inputs, outputs that are not
            Variables (as paddle's functional models).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.Input((3,), name="fn_x")
        >>> fn = pd.Function([x], [pd.ops.sum(x, axis=1), x * 2], name="fn")
        >>> total, doubled = fn([np.ones((2, 3), "float32")])
        >>> total.tolist(), [op.name for op in fn.operations]
        ([3.0, 3.0], [])
    """

    def __init__(self, inputs, outputs, name=None):
        super().__init__(name=name)
        self._graph = Model(inputs, outputs, name=f"{self.name}_graph")
        self._inputs_struct, self._outputs_struct = inputs, outputs

    @property
    def inputs(self):
        """The graph's input Variables (flat)."""
        return list(self._graph.inputs)

    @property
    def outputs(self):
        """The graph's output Variables (flat)."""
        return list(self._graph.outputs)

    @property
    def operations(self):
        """The layers of the graph, inputs first (paddle's plain ops are graph nodes, not
        listed: see Model.operations)."""
        return self._graph.operations

    def call(self, inputs):
        """The outputs for `inputs` (structured as the function's inputs)."""
        return self._graph(inputs)

    def compute_output_spec(self, inputs):
        """The symbolic outputs for symbolic stand-ins of `inputs`."""
        return self._graph(_symbolic([inputs], f"{self.name}.compute_output_spec")[0])

    def get_config(self):
        raise NotImplementedError("Function: a graph of Variables has no config of its own; "
                                  "save it as a functional pd.Model instead")
