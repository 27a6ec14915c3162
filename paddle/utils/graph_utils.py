"""Keras's utilities about symbolic tensors and global state, on paddle's graph:
`is_keras_tensor`, `get_source_inputs`, `standardize_dtype`, `clear_session`.

A Keras "KerasTensor" is a symbolic value of a model being built: in paddle, a graph
Variable that is an input (`pd.Input`, `pd.data`) or computed from one. Parameters and
constants are not (Keras's variables and backend tensors are not KerasTensors either).

Example:
    >>> import paddle as pd
    >>> inp = pd.Input(shape=(3,))
    >>> out = pd.layers.Dense(2)(inp)
    >>> pd.utils.is_keras_tensor(out), pd.utils.get_source_inputs(out) == [inp]
    (True, True)
"""
import gc

from paddle.lowlevel.dtypes import standardize_dtype  # noqa: F401  (pd.utils's and pd.backend's)
from paddle.lowlevel.executor import topological_nodes
from paddle.lowlevel.graph import NAMES, Variable


def is_keras_tensor(x):
    """Whether `x` is a symbolic value of a graph being built: a data Variable
    (`pd.Input`) or an op output that reads one."""
    if not isinstance(x, Variable):
        return False
    return x.kind == "data" or (x.kind == "op" and bool(get_source_inputs(x)))


def get_source_inputs(tensor):
    """The data Variables (`pd.Input`s) that `tensor` is computed from, in the order the
    graph first reads them; `[tensor]` for an input itself, as Keras.

    Raises:
        TypeError: tensor is not a Variable.
    """
    if not isinstance(tensor, Variable):
        raise TypeError(f"get_source_inputs: expected a Variable (a symbolic tensor), received "
                        f"{type(tensor).__name__}")
    if tensor.kind == "data":
        return [tensor]
    found, seen = [], set()
    for node in topological_nodes([tensor]):
        for v in node.inputs:
            if v.kind == "data" and id(v) not in seen:
                seen.add(id(v))
                found.append(v)
    return found


_UIDS = {}  # prefix -> the last uid get_uid gave it (clear_session starts them afresh)


def get_uid(prefix=""):
    """A number for `prefix`, counting from 1 on each call (Keras's unique-name helper);
    `clear_session` starts every prefix at 1 again.

    Example:
        >>> import paddle as pd
        >>> pd.backend.clear_session()
        >>> pd.backend.get_uid("block"), pd.backend.get_uid("block"), pd.backend.get_uid("x")
        (1, 2, 1)
    """
    if not isinstance(prefix, str):
        raise TypeError(f"get_uid: expected a string prefix, received {prefix!r}")
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return _UIDS[prefix]


def clear_session(free_memory=True):
    """Forget the global names of layers and parameters, as Keras's `clear_session`: new
    layers are named from "dense" again and parameters may take names of old ones. Objects
    still alive keep their names (paddle holds names weakly, so models you drop free theirs
    anyway). With `free_memory`, run Python's garbage collector too.

    Example:
        >>> import paddle as pd
        >>> _ = [pd.layers.Dense(2, name=None) for _ in range(3)]
        >>> pd.utils.clear_session()
        >>> pd.layers.Dense(2).name
        'dense'
    """
    if NAMES.prefix:
        raise RuntimeError(f"clear_session: called inside pd.namespace("
                           f"{'/'.join(NAMES.prefix)!r}); call it outside any namespace")
    NAMES.taken.clear()
    NAMES.params.clear()
    _UIDS.clear()
    if free_memory:
        gc.collect()
