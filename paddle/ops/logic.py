"""Keras's tests of values (`isnan`, `isclose`...), logical, bitwise and integer functions
(`gcd`, `lcm`) of `keras.ops.numpy`, for `pd.ops` (re-exported by paddle/ops/numpy_math.py).

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.ops.logical_xor(np.array([True, False]), True).numpy().tolist()
    [False, True]
"""
import math

import numpy as np

from paddle.errors import at_user
from paddle.lowlevel.graph import FLOATS
from paddle.lowlevel.ops import math as _math
from paddle.lowlevel.ops import special
from paddle.lowlevel.ops.math import abs, cast, where, zeros_like
from paddle.lowlevel.ops.reduce import min as reduce_min
from paddle.ops import complex as _complex
from paddle.ops.promotion import INTS as _INTS
from paddle.ops.promotion import operands as _operands
from paddle.ops.promotion import tensor as _tensor

__all__ = ["isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isreal", "isclose", "allclose", "gcd", "lcm", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "left_shift", "right_shift", "bitwise_not", "bitwise_invert"]


def isnan(x):
    """Whether each element is NaN (never, for integers and bools).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.isnan(pd.constant(np.array([np.nan, 1.0]))).numpy().tolist()
        [True, False]
    """
    x = _tensor(x, "isnan")
    return _math.not_equal(x, x)


def isinf(x):
    """Whether each element is +inf or -inf.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.isinf(pd.constant(np.array([-np.inf, 1.0]))).numpy().tolist()
        [True, False]
    """
    x = _tensor(x, "isinf")
    return _math.equal(abs(x), math.inf) if x.dtype in FLOATS else _math.not_equal(x, x)


def isfinite(x):
    """Whether each element is neither infinite nor NaN (always, for integers).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.isfinite(pd.constant(np.array([np.inf, np.nan, 1.0]))).numpy().tolist()
        [False, False, True]
    """
    x = _tensor(x, "isfinite")
    return _math.less(abs(x), math.inf) if x.dtype in FLOATS else _math.equal(x, x)


def isneginf(x):
    """Whether each element is -inf.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.isneginf(pd.constant(np.array([-np.inf, np.inf]))).numpy().tolist()
        [True, False]
    """
    x = _tensor(x, "isneginf")
    return _math.equal(x, -math.inf) if x.dtype in FLOATS else _math.not_equal(x, x)


def isposinf(x):
    """Whether each element is +inf.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.isposinf(pd.constant(np.array([-np.inf, np.inf]))).numpy().tolist()
        [False, True]
    """
    x = _tensor(x, "isposinf")
    return _math.equal(x, math.inf) if x.dtype in FLOATS else _math.not_equal(x, x)


def signbit(x):
    """Whether the sign bit is set: x < 0, -0.0 and a NaN whose sign is set (as JAX and
    NumPy); for integers x < 0, for bools never.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.signbit(pd.constant(np.array([-0.0, 0.0, -2.0, -np.nan]))).numpy().tolist()
        [True, False, True, True]
    """
    # One op of every dtype (special.py's predicate): a bit test per element, which the
    # elementwise fusion also runs inside a group.
    return special.signbit(_tensor(x, "signbit"))


def isreal(x):
    """Whether each value's imaginary part is zero: true everywhere for real dtypes.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.isreal(pd.constant(np.array([1.5]))).numpy().tolist()
        [True]
        >>> pd.ops.isreal(np.array([1 + 0j, 2j], np.complex64)).numpy().tolist()
        [True, False]
    """
    if _complex.is_complex(x):
        return _math.equal(_complex.imag_part(_complex.complex_tensor(x, "isreal")), 0.0)
    x = _tensor(x, "isreal")
    return _math.equal(x, x) if x.dtype not in FLOATS else _math.equal(zeros_like(x), 0.0)


def _tolerance(value, label, where):
    if not isinstance(value, (int, float, np.integer, np.floating)) or \
            isinstance(value, (bool, np.bool_)) or value < 0:
        raise ValueError(at_user(f"{where}: expected `{label}` as a number >= 0, received "
                                 f"{value!r}"))
    return float(value)


def isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether |x1 - x2| <= atol + rtol * |x2| elementwise; infinities are close only to
    themselves, NaN to NaN only with `equal_nan`; integers compare exactly.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.isclose(pd.constant(np.array([1.0, 1.1])), 1.0 + 1e-9).numpy().tolist()
        [True, False]
    """
    rtol, atol = _tolerance(rtol, "rtol", "isclose"), _tolerance(atol, "atol", "isclose")
    a, b = _operands("isclose", x1, x2)
    if a.dtype not in FLOATS:
        return _math.equal(a, b)
    # Equal, or within the tolerance: |a - b| - tol <= 0 is |a - b| <= tol for finite
    # values (a difference of two finite floats is 0 only when they are equal, and keeps
    # the sign), and false where either side is infinite (an infinite b makes inf - inf,
    # NaN; an infinite a, finite b, leaves inf) or NaN: one fused pass of nine
    # instructions, without isfinite(b)'s absolute value and comparison.
    within = _math.less_equal((abs(a - b) - (abs(b) * rtol + atol)), 0.0)
    close = logical_or(_math.equal(a, b), within)
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close


def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (`isclose`): a bool scalar.

    Example:
        >>> import numpy as np, paddle as pd
        >>> bool(pd.ops.allclose(pd.constant(np.array([1.0, 2.0])), pd.constant(np.array([1.0, 2.0]))).numpy())
        True
    """
    close = isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return _math.equal(reduce_min(cast(close, "int32")), 1)


def _integers(where, x1, x2):
    a, b = _operands(where, x1, x2)
    if a.dtype not in _INTS and a.dtype != "bool":
        raise TypeError(at_user(f"{where}: expected integer or bool arguments, received "
                                f"{a.dtype}"))
    return a, b


def gcd(x1, x2):
    """The greatest common divisor of |x1| and |x2| (integers only, as JAX's).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.gcd(pd.constant(np.array([12, -18], np.int32)), 8).numpy().tolist()
        [4, 2]
    """
    a, b = _integers("gcd", x1, x2)
    if a.dtype == "bool":
        return logical_or(a, b)
    return special.gcd(a, b)


def lcm(x1, x2):
    """The least common multiple of |x1| and |x2| (integers only, as JAX's).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.lcm(pd.constant(np.array([4, 6], np.int32)), 6).numpy().tolist()
        [12, 6]
    """
    a, b = _integers("lcm", x1, x2)
    if a.dtype == "bool":
        return logical_and(a, b)
    return special.lcm(a, b)


# ---- logical and bitwise ------------------------------------------------------------------

def _truth(x, where):
    x = _tensor(x, where)
    return x if x.dtype == "bool" else _math.not_equal(x, 0)


def logical_and(x1, x2):
    """Elementwise `x1 and x2` of the truth values (nonzero is true): a bool tensor.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.logical_and(pd.constant(np.array([True, False])), True).numpy().tolist()
        [True, False]
    """
    a, b = _truth(x1, "logical_and"), _truth(x2, "logical_and")
    return where(a, b, False)


def logical_or(x1, x2):
    """Elementwise `x1 or x2` of the truth values: a bool tensor.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.logical_or(pd.constant(np.array([True, False])), False).numpy().tolist()
        [True, False]
    """
    a, b = _truth(x1, "logical_or"), _truth(x2, "logical_or")
    return where(a, True, b)


def logical_xor(x1, x2):
    """Elementwise exclusive or of the truth values: a bool tensor.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.logical_xor(pd.constant(np.array([True, False])), True).numpy().tolist()
        [False, True]
    """
    return _math.not_equal(_truth(x1, "logical_xor"), _truth(x2, "logical_xor"))


def logical_not(x):
    """Elementwise `not x` (zero is false): a bool tensor.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.logical_not(pd.constant(np.array([0, 2], np.int32))).numpy().tolist()
        [True, False]
    """
    return _math.equal(_truth(x, "logical_not"), False)


def _bitwise(name, logical, primitive):
    def fn(x, y):
        a, b = _integers(name, x, y)
        if a.dtype == "bool":
            if logical is None:
                a, b = cast(a, "int32"), cast(b, "int32")
            else:
                return logical(a, b)
        return primitive(a, b)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{special.INT_BINARY[primitive.__name__][1]} Keras's `keras.ops.{name}`: "
                  f"integers and bools (bools give bools{'' if logical else ', as int32'}); "
                  f"floats are refused.\n\nExample:\n    >>> import numpy as np, paddle as pd\n"
                  f"    >>> pd.ops.{name}(np.array([12], np.int32), 2).dtype\n"
                  f"    'int32'")
    return fn


bitwise_and = _bitwise("bitwise_and", logical_and, special.bitwise_and)
bitwise_or = _bitwise("bitwise_or", logical_or, special.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", logical_xor, special.bitwise_xor)
bitwise_left_shift = _bitwise("bitwise_left_shift", None, special.left_shift)
bitwise_right_shift = _bitwise("bitwise_right_shift", None, special.right_shift)
left_shift = _bitwise("left_shift", None, special.left_shift)
right_shift = _bitwise("right_shift", None, special.right_shift)


def bitwise_not(x):
    """~x: the bits of an integer inverted (-x - 1 in two's complement), `not` of a bool.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.bitwise_not(pd.constant(np.array([0, 5], np.int32))).numpy().tolist()
        [-1, -6]
    """
    x = _tensor(x, "bitwise_not")
    if x.dtype == "bool":
        return logical_not(x)
    if x.dtype not in _INTS:
        raise TypeError(at_user(f"bitwise_not: expected an integer or bool argument, "
                                f"received {x.dtype}"))
    return -x - 1


bitwise_invert = bitwise_not
