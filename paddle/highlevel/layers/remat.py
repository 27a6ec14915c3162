"""Keras 3's rematerialization API: `pd.remat(f)` and `pd.RematScope(mode=...)`, with
Keras's modes, arguments, errors and the choice of what a layer call rematerializes
(`Layer.rematerialized_call`).

What differs: memory. Keras on JAX recomputes a rematerialized call's activations in the
backward pass instead of keeping them. paddle's executor keeps the activations a gradient
needs (it has no recompute pass), so `remat(f)` computes exactly `f`'s values and gradients
and the memory is not reduced. Programs written for Keras run unchanged.

Example:
    >>> import numpy as np, paddle as pd
    >>> twice = pd.remat(lambda x: x * 2)
    >>> twice(np.ones(2, "float32")).tolist()
    [2.0, 2.0]
    >>> with pd.RematScope(mode="larger_than", output_size_threshold=8) as scope:
    ...     scope.mode, scope.output_size_threshold
    ('larger_than', 8)
"""
import collections
import functools

MODES = ("full", "activations", "larger_than", "list_of_layers", None)

RematMode = collections.namedtuple("RematMode",
                                   ["mode", "output_size_threshold", "layer_names"])

_SCOPES = []


class RematScope:
    """Context manager choosing which layers made inside it rematerialize their calls
    (Keras's `keras.RematScope`; memory is not reduced in paddle: see the module).

    Args:
        mode: "full" (every call), "activations" (the `activation` of layers that have
            one), "larger_than" (calls whose output has more than `output_size_threshold`
            elements), "list_of_layers" (the layers named in `layer_names`), or None (none).
        output_size_threshold: the threshold of "larger_than".
        layer_names: the names of "list_of_layers".

    Raises:
        ValueError: another mode.

    Example:
        >>> import paddle as pd
        >>> with pd.RematScope(mode="list_of_layers", layer_names=["d1"]):
        ...     dense = pd.layers.Dense(2, name="d1")
        >>> dense._remat_mode.mode
        'list_of_layers'
    """

    def __init__(self, mode="full", output_size_threshold=1024, layer_names=None):
        if mode not in MODES:
            raise ValueError(f"Invalid mode '{mode}'. Supported modes are: 'full', "
                             f"'activations', 'larger_than', 'list_of_layers', or  None.")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = layer_names or []
        self._pop_on_exit = False

    def __enter__(self):
        _SCOPES.append(self)
        self._pop_on_exit = True
        return self

    def __exit__(self, *args, **kwargs):
        if self._pop_on_exit:
            _SCOPES.pop()


def get_current_remat_mode():
    """The innermost RematScope's `RematMode(mode, output_size_threshold, layer_names)`, or
    None outside any (Keras's `keras.src.backend.common.remat.get_current_remat_mode`)."""
    if not _SCOPES:
        return None
    scope = _SCOPES[-1]
    return RematMode(scope.mode, scope.output_size_threshold, scope.layer_names)


def remat(f):
    """`f` marked for rematerialization (Keras's `keras.remat`): the returned function
    computes `f`'s values and gradients. paddle keeps the activations (see the module), so
    memory is not reduced.

    Args:
        f: a callable.

    Returns:
        A function with `f`'s signature and results.

    Raises:
        TypeError: `f` is not callable.

    Example:
        >>> import numpy as np, paddle as pd
        >>> def block(x):
        ...     return pd.ops.relu(x) * 0.5
        >>> pd.remat(block)(np.array([-1.0, 4.0], "float32")).numpy().tolist()
        [0.0, 2.0]
    """
    if not callable(f):
        raise TypeError(f"remat: expected a callable, received {type(f).__name__}")

    @functools.wraps(f)
    def rematerialized(*args, **kwargs):
        return f(*args, **kwargs)
    rematerialized.rematerialized = True
    return rematerialized
