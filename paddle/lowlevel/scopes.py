"""Keras 3's `keras.StatelessScope` and `keras.SymbolicScope` on paddle's parameters and
eager execution.

`StatelessScope(state_mapping)` runs its block with the given values in the mapped
parameters and gives them back on exit: what the block computed or assigned is read with
`scope.get_current_value(variable)`, and the parameters hold their old values again, as
Keras. paddle's parameters are stored arrays that kernels write in place, so the scope
covers the parameters it maps (give it every variable the block may update, as Keras's
`stateless_call` does); an unmapped parameter assigned inside keeps the assignment.

`SymbolicScope()` is paddle's `tracing()`: inside it nothing runs eagerly, every op builds
a graph node (Keras's symbolic stage).

Example:
    >>> import numpy as np, paddle as pd
    >>> v = pd.Variable(np.zeros(2, "float32"))
    >>> with pd.StatelessScope([(v, np.ones(2, "float32"))]) as scope:
    ...     _ = v.assign(v * 3)
    >>> scope.get_current_value(v).tolist(), v.numpy().tolist()
    ([3.0, 3.0], [0.0, 0.0])
"""
import numpy as np

from paddle.lowlevel import eager, stored_state
from paddle.lowlevel.graph import Variable

_STACK = {"stateless": [], "symbolic": []}


class StatelessScope:
    """Scope in which the mapped variables take the given values and keep none of what the
    block assigns them (Keras's `keras.StatelessScope`).

    Args:
        state_mapping: a list of `(variable, value)` pairs; each value is cast to its
            variable's dtype and must have its shape.
        collect_losses: whether `add_loss` calls inside are collected in `scope.losses`.
        initialize_variables: kept for Keras's signature (paddle's variables are
            initialized when made).

    Raises:
        ValueError: a key that is not a paddle parameter, or a value of another shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> dense = pd.layers.Dense(1, kernel_initializer="ones")
        >>> _ = dense(np.ones((1, 2), "float32"))
        >>> mapping = [(w, np.full(w.shape, 2.0, "float32")) for w in dense.weights]
        >>> with pd.StatelessScope(mapping):
        ...     out = dense(np.ones((1, 2), "float32"))
        >>> out.numpy().tolist(), dense.kernel.numpy().ravel().tolist()
        ([[6.0]], [1.0, 1.0])
    """

    def __init__(self, state_mapping=None, collect_losses=False, initialize_variables=True):
        self.collect_losses = collect_losses
        self.initialize_variables = initialize_variables
        self.losses = []
        self.state_mapping = {}
        self._variables = {}
        for pair in state_mapping or {}:
            k, v = pair
            if not isinstance(k, Variable) or k.kind != "param":
                raise ValueError(f"Invalid reference variable in StatelessScope: all keys in "
                                 f"argument `mapping` must be Variable instances. Received "
                                 f"instead: {k}")
            value = np.asarray(v.numpy() if isinstance(v, Variable) else v)
            if value.shape != tuple(k.shape):
                raise ValueError(f"Invalid variable value in StatelessScope: all values in "
                                 f"argument `mapping` must be tensors with a shape that "
                                 f"matches the corresponding variable shape. For variable "
                                 f"{k.name}, received a value with shape {value.shape}, "
                                 f"expected {tuple(k.shape)}.")
            self.state_mapping[id(k)] = k.checked_value(value)
            self._variables[id(k)] = k
        self._saved = None

    def __enter__(self):
        with stored_state.LOCK:
            self._saved = [(k, k.val()) for k in self._variables.values()]
            for key, k in self._variables.items():
                k.assign_checked(self.state_mapping[key])
        _STACK["stateless"].append(self)
        return self

    def __exit__(self, *exc):
        _STACK["stateless"].remove(self)
        with stored_state.LOCK:
            for key, k in self._variables.items():  # what the block left in them
                self.state_mapping[key] = k.val()
            for k, value in self._saved:
                k.assign_checked(value)

    def add_loss(self, loss):
        """Collect a loss computed in the scope (Keras's)."""
        self.losses.append(loss)

    def add_update(self, update):
        """Record `(variable, value)` as the variable's current value in the scope."""
        variable, value = update
        self.state_mapping[id(variable)] = value
        self._variables.setdefault(id(variable), variable)

    def get_current_value(self, variable):
        """The variable's value in the scope (after the block, once it has exited), or None
        for a variable the scope does not map."""
        key = id(variable)
        if key not in self.state_mapping:
            return None
        if self._saved is not None and self in _STACK["stateless"]:
            return variable.val()
        return self.state_mapping[key]


class SymbolicScope:
    """Scope of Keras's symbolic stage: inside it nothing runs eagerly, every op builds a
    graph node (paddle's `tracing()`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> with pd.SymbolicScope():
        ...     y = pd.ops.add(np.ones(2), 1.0)
        >>> type(y).__name__, y.shape
        ('Variable', (2,))
    """

    def __enter__(self):
        self._tracing = eager.tracing()
        self._tracing.__enter__()
        _STACK["symbolic"].append(self)
        return self

    def __exit__(self, *exc):
        _STACK["symbolic"].remove(self)
        return self._tracing.__exit__(*exc)


def in_stateless_scope():
    """Whether a StatelessScope is open."""
    return bool(_STACK["stateless"])


def get_stateless_scope():
    """The innermost open StatelessScope, or None."""
    return _STACK["stateless"][-1] if _STACK["stateless"] else None


def in_symbolic_scope():
    """Whether a SymbolicScope is open."""
    return bool(_STACK["symbolic"])
