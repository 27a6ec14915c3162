"""Keras's dtype promotion on paddle's five dtypes, and the argument checks the `pd.ops`
functions share.

bool < int32 < int64 < float32 < float64, with int64 and float32 giving float32 (JAX's
lattice, which Keras follows); 64-bit results stay 64-bit, as Keras keeps them on its
TensorFlow backend (Keras on JAX reports them as 32-bit). A Python number is weakly typed:
it takes the other operand's kind (an int beside bool, or alone, is int32; a float beside
integers float32). Python lists of ints are int32 and of floats float32, as Keras's
`convert_to_tensor`; NumPy arrays keep their dtype.

Example:
    >>> from paddle.ops.promotion import promoted_dtype, result_type
    >>> result_type("int64", "float32"), result_type("int32", "int64")
    ('float32', 'int64')
    >>> import numpy as np
    >>> promoted_dtype([np.array([1], np.int32), 2.5], "example")
    'float32'
"""
import numpy as np

from paddle.errors import at_user
from paddle.lowlevel.dtypes import result_type
from paddle.lowlevel.graph import FLOATS, NUMBERS, Variable, constant
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.shapes import located, normalize_axis, real_number

INTS = ("int32", "int64")
EPSILON = 1e-7  # keras.backend.epsilon()


def weak_kind(x):
    """'b', 'i' or 'f' for a Python scalar (weakly typed in Keras), else None."""
    if isinstance(x, (bool, np.bool_)):
        return "b"
    if isinstance(x, int):
        return "i"
    if isinstance(x, float):
        return "f"
    return None


def strong_dtype(x, where):
    """The dtype Keras gives a tensor argument: a Variable's own; an array's, with Python
    lists of ints as int32 and of floats as float32 (Keras's convert_to_tensor)."""
    if isinstance(x, Variable):
        return x.dtype
    if not isinstance(x, NUMBERS):
        raise TypeError(at_user(f"{where}: expected a tensor, an array or a number, received "
                                f"{type(x).__name__}"))
    array = np.asarray(x)
    if array.dtype.kind not in "biuf":
        raise TypeError(at_user(f"{where}: expected numbers, received an array of "
                                f"{array.dtype}"))
    if not isinstance(x, (np.ndarray, np.generic)):
        return {"b": "bool", "i": "int32", "u": "int32"}.get(array.dtype.kind, "float32")
    if array.dtype.kind in "iu":
        return "int64" if array.dtype.itemsize > 4 else "int32"
    if array.dtype.kind == "f":
        return "float64" if array.dtype.itemsize > 4 else "float32"
    return "bool"


def promoted_dtype(xs, where):
    strong = [strong_dtype(x, where) for x in xs if weak_kind(x) is None]
    weak = {weak_kind(x) for x in xs} - {None}
    dtype = result_type(*strong) if strong else None
    if "f" in weak and (dtype is None or dtype not in FLOATS):
        return "float32"
    if "i" in weak and (dtype is None or dtype == "bool"):
        return "int32"
    return dtype or "bool"


def as_dtype_of(x, dtype, where):
    """x as a Variable of `dtype` (a cast for Variables, a constant for the rest)."""
    if isinstance(x, Variable):
        return cast(x, dtype)
    strong_dtype(x, where)  # refuses what is no number
    return constant(np.asarray(x), dtype=dtype)


def operands(where, *xs, dtype=None):
    """The arguments as Variables of their promoted dtype (or of `dtype`)."""
    dtype = dtype or promoted_dtype(xs, where)
    return [as_dtype_of(x, dtype, where) for x in xs]


def float_dtype(dtype, int64_to="float32"):
    return dtype if dtype in FLOATS else int64_to if dtype == "int64" else "float32"


def float_operands(where, *xs, int64_to="float32"):
    """Operands promoted as Keras does, then integers and bools as float32 (or int64 as
    `int64_to`): the inputs of the functions Keras computes on floats."""
    return operands(where, *xs, dtype=float_dtype(promoted_dtype(xs, where), int64_to))


def tensor(x, where):
    """x itself if a Variable, else a constant of the dtype Keras gives it (int32 for a list of
    ints, an array's own dtype)."""
    return x if isinstance(x, Variable) else operands(where, x)[0]


def float_tensor(x, where):
    """x as a float Variable: integers and bools as float32 (int64 too)."""
    (x,) = float_operands(where, x)
    return x


def number(value, what, where):
    """`value` as a float; TypeError naming `where` and the user's line otherwise."""
    with located():
        try:
            return real_number(value, what, where)
        except TypeError as e:
            raise TypeError(at_user(str(e))) from None


class Named:
    """What the shape helpers read an op's name from, for a function that is no op."""

    def __init__(self, name):
        self.name = name


def axis_of(name, axis, x):
    """`axis` in [0, x.ndim); ShapeError naming `name` and the user's line otherwise."""
    with located():
        return normalize_axis(Named(name), axis, x.ndim, x.shape)
