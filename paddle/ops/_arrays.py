"""Helpers shared by the Keras array functions of pd.ops (numpy_array.py, numpy_reduce.py,
numpy_products.py, math.py): argument checks that name the user's line, Keras's result
dtypes over paddle's five dtypes, and axis bookkeeping.

Keras on JAX (without x64) computes in 32 bits; paddle keeps int64 and float64 inputs in 64
bits (as Keras on TensorFlow or PyTorch does) and otherwise follows Keras's promotion:
bool < int32 < int64 < float32 < float64 with an int meeting a float giving that float, and
Python numbers taking the other operand's dtype (a Python float makes an int float32).

Example:
    >>> import paddle as pd
    >>> from paddle.ops._arrays import result_type
    >>> result_type("int32", "float32"), result_type("int64", float), result_type("bool", int)
    ('float32', 'float32', 'int32')
"""
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.dtypes import result_type
from paddle.lowlevel.graph import FLOATS, Variable, as_variable, constant
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.shape import reshape, stack, transpose

_ORDER = ("bool", "int32", "int64", "float32", "float64")


def fail(cls, message):
    """Raise `cls` with the message and the user's file:line."""
    raise cls(at_user(message))


def tensor(x, where, dtype=None):
    """x as a Variable (arrays and numbers become constants), cast to `dtype` if given."""
    if not isinstance(x, Variable):
        if isinstance(x, (list, tuple)) and any(isinstance(v, Variable) for v in x):
            x = stack([tensor(v, where) for v in x])
        else:
            try:
                x = as_variable(x, where=where) if dtype is not None else \
                    constant(x, dtype=_keras_dtype(x))
            except TypeError as e:
                fail(TypeError, str(e))
    return x if dtype is None else cast(x, dtype)


def _keras_dtype(x):
    """The dtype Keras's convert_to_tensor gives an array or numbers: a NumPy array keeps
    its dtype (paddle's five), Python ints become int32; floats are pd.constant's weak
    floats (float32, or float64 for a NumPy float64 array, until they meet another float)."""
    kind = np.asarray(x).dtype.kind
    if kind == "f":  # pd.constant's: a weak float, which takes the other operands' float
        return None
    if isinstance(x, (np.ndarray, np.generic)) and x.dtype.name in _ORDER:
        return x.dtype.name
    return {"b": "bool", "i": "int32", "u": "int32"}.get(kind)


def dtype_of(x):
    """The dtype of a Variable, or the kind of a Python number (int, float, bool) as such."""
    if isinstance(x, Variable):
        return x.dtype
    if isinstance(x, bool):
        return bool
    if isinstance(x, numbers.Integral):
        return int
    if isinstance(x, numbers.Real):
        return float
    return np.asarray(x).dtype.name if np.asarray(x).dtype.name in _ORDER else "float32"


def promoted(*xs):
    """result_type of Variables, a weak float constant (see `tensor`) counting as a Python
    float unless all of them are weak."""
    if all(getattr(x, "_weak", False) for x in xs):
        return result_type(*[x.dtype for x in xs])
    return result_type(*[float if getattr(x, "_weak", False) else x.dtype for x in xs])


def float_type(x):
    """Keras's dtype for a float result of x: x's float dtype, float32 for ints and bool."""
    return x.dtype if x.dtype in FLOATS else "float32"


def floats(x):
    return cast(x, float_type(x))


def axis_of(x, axis, where):
    """`axis` in [0, x.ndim): TypeError or ShapeError naming `where` and the user's line."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        fail(TypeError, f"{where}: expected an integer axis, received {axis!r}")
    if not -x.ndim <= axis < max(x.ndim, 1) or (x.ndim == 0):
        fail(ShapeError, f"{where}: axis {axis} is out of range for a tensor of shape "
                         f"{x.shape}")
    return int(axis) % x.ndim


def axes_of(x, axis, where):
    """A sorted tuple of distinct axes (None: all of them)."""
    if axis is None:
        return tuple(range(x.ndim))
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(sorted({axis_of(x, a, where) for a in items}))
    if len(axes) != len(items):
        fail(ValueError, f"{where}: expected distinct axes, received {axis!r}")
    return axes


def known(x, axes, where):
    """The sizes of x along `axes`, which must be known when the graph is built."""
    sizes = [x.shape[a] for a in axes]
    if None in sizes:
        fail(ShapeError, f"{where}: needs the sizes of axes {list(axes)} when the graph is "
                         f"built, received shape {x.shape}")
    return sizes


def to_last(x, axes):
    """x with `axes` moved to the end, merged into one axis (their sizes must be known)."""
    rest = [a for a in range(x.ndim) if a not in axes]
    perm = rest + list(axes)
    if perm != list(range(x.ndim)):
        x = transpose(x, perm)
    if len(axes) == 1:
        return x
    merged = int(np.prod(known(x, range(len(rest), x.ndim), "reduction")))
    return reshape(x, [x.shape[i] for i in range(len(rest))] + [merged])


def is_number(v):
    return isinstance(v, numbers.Number) and not isinstance(v, bool)
