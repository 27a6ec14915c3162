"""Keras's elementwise `keras.ops.numpy` functions (trigonometry, logarithms, rounding,
remainders, tests of values, logical and bitwise operations), with Keras's names,
signatures and result dtypes.

Result dtypes follow Keras's promotion (`keras.backend.result_type`) on paddle's five dtypes,
keeping 64-bit results as Keras does on its TensorFlow backend (on JAX without x64 Keras
reports every 64-bit result as 32-bit): bool < int32 < int64 < float32 < float64, with
int64 and float32 giving float32; a Python number takes the other operand's kind (int32
for an int beside bool or alone, float32 for a float beside integers). Functions Keras
defines on floats (sin, log2, arctan2...) compute integers and bools as float32 (int64 as
float64 where Keras says so: cbrt, i0, deg2rad, rad2deg). `real`, `imag`, `conj` and `angle`
take complex64/complex128 values too (paddle/ops/complex.py); of real ones, `real` and `conj`
return their input, `imag` zeros, `isreal` all true.

The transcendental functions are the primitives of paddle/lowlevel/ops/special.py (C++ and
CUDA kernels, gradients); the rest are compositions of ops, so their gradients come free.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.array([0.0, 1.0], np.float64))
    >>> np.round(pd.ops.sin(x).numpy(), 4).tolist()
    [0.0, 0.8415]
    >>> pd.ops.sin(np.array([1, 2], np.int32)).dtype
    'float32'
"""
import math

import numpy as np

from paddle.errors import at_user
from paddle.lowlevel.graph import CONSTANT_CLASS, FLOATS, STORAGE_DTYPES, Variable, as_dtype
from paddle.lowlevel.ops import special
from paddle.lowlevel.ops import math as _math
from paddle.lowlevel.ops.activations import logsumexp as row_logsumexp
from paddle.lowlevel.ops.math import abs, cast, where, zeros_like
from paddle.lowlevel.ops.reduce import max as reduce_max
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.shape import expand_dims
from paddle.ops.logic import (  # noqa: F401 - Keras's numpy names, exported here
    allclose, bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or,
    bitwise_right_shift, bitwise_xor, gcd, isclose, isfinite, isinf, isnan, isneginf, isposinf,
    isreal, lcm, left_shift, logical_and, logical_not, logical_or, logical_xor, right_shift,
    signbit)
from paddle.ops import complex as _complex
from paddle.ops._arrays import axes_of as _axes_of
from paddle.ops.promotion import INTS as _INTS
from paddle.ops.promotion import as_dtype_of as _as
from paddle.ops.promotion import float_operands as _float_operands
from paddle.ops.promotion import operands as _operands
from paddle.ops.promotion import result_type
from paddle.ops.promotion import strong_dtype as _strong_dtype
from paddle.ops.promotion import tensor as _tensor
from paddle.ops.promotion import weak_kind as _weak_kind

__all__ = [
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "arcsinh",
    "arccosh", "arctanh", "exp2", "expm1", "log2", "log10", "logaddexp", "logaddexp2",
    "floor", "ceil", "round", "trunc", "fabs", "reciprocal", "rsqrt", "cbrt", "erfc",
    "erfinv", "i0", "sinc", "deg2rad", "rad2deg", "hypot", "heaviside", "fmod", "mod",
    "floor_divide", "divide", "true_divide", "divide_no_nan", "fmax", "fmin", "copy", "isnan",
    "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isclose", "allclose", "isreal",
    "real", "imag", "conj", "conjugate", "angle", "nan_to_num", "nextafter", "ldexp", "gcd",
    "lcm", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert", "bitwise_left_shift",
    "bitwise_right_shift", "left_shift", "right_shift", "saturate_cast", "logsumexp",
    # Keras's dtype rules over the low level's functions of these names (paddle/ops/arith.py
    # would be a better home if this module grows).
    "exp", "log", "sqrt", "log1p", "tanh", "square", "add", "subtract", "multiply", "maximum",
    "minimum", "power", "equal", "not_equal", "greater", "greater_equal", "less",
    "less_equal", "clip"]

_RANK = {"bool": 0, "int32": 1, "int64": 2, "float32": 3, "float64": 4}
# An eager tensor of these dtypes is its own float operand (_float_operands gives it back
# as it is): the functions below skip the promotion for it (eager calls of one op).
_OWN_FLOATS = ("float32", "float64")


def _unary_float(name, primitive, int64_to="float32", doc=None):
    def fn(x):
        if x.__class__ is not CONSTANT_CLASS[0] or x.dtype not in _OWN_FLOATS:
            (x,) = _float_operands(name, x, int64_to=int64_to)
        return primitive(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or _doc(name, special.UNARY[primitive.__name__][2])
    return fn


def _doc(name, summary, example=None):
    example = example or (f"pd.ops.{name}(pd.constant(np.array([0.5], np.float32))).dtype\n"
                          f"    'float32'")
    return (f"{summary}\n\nKeras's `keras.ops.{name}`: integers and bools are computed as "
            f"float32.\n\nArgs:\n    x: a tensor, an array or a number.\n\nReturns:\n    A "
            f"float Variable of x's shape.\n\nExample:\n    >>> import numpy as np, paddle as pd\n"
            f"    >>> {example}")


# ---- unary: primitives --------------------------------------------------------------------

sin = _unary_float("sin", special.sin)
cos = _unary_float("cos", special.cos)
tan = _unary_float("tan", special.tan)
arcsin = _unary_float("arcsin", special.arcsin)
arccos = _unary_float("arccos", special.arccos)
arctan = _unary_float("arctan", special.arctan)
sinh = _unary_float("sinh", special.sinh)
cosh = _unary_float("cosh", special.cosh)
arcsinh = _unary_float("arcsinh", special.arcsinh)
arccosh = _unary_float("arccosh", special.arccosh)
arctanh = _unary_float("arctanh", special.arctanh)
exp2 = _unary_float("exp2", special.exp2)
expm1 = _unary_float("expm1", special.expm1)
log2 = _unary_float("log2", special.log2)
log10 = _unary_float("log10", special.log10)
floor = _unary_float("floor", special.floor)
ceil = _unary_float("ceil", special.ceil)
cbrt = _unary_float("cbrt", special.cbrt, int64_to="float64")
erfc = _unary_float("erfc", special.erfc)
# Keras's symbolic erfinv keeps an integer dtype; its backends compute floats: float32 here.
erfinv = _unary_float("erfinv", special.erfinv)
i0 = _unary_float("i0", special.i0, int64_to="float64")


def trunc(x):
    """x rounded toward zero; integers and bools are returned as they are (Keras's
    `keras.ops.trunc`; the gradient is zero).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.trunc(pd.constant(np.array([-1.7, 2.5], np.float32))).numpy().tolist()
        [-1.0, 2.0]
    """
    x = _tensor(x, "trunc")
    return special.trunc(x) if x.dtype in FLOATS else x


def round(x, decimals=0):  # noqa: A001
    """x rounded to `decimals` decimals, halves to even (NumPy's and Keras's `round`: x
    scaled by 10**decimals, rounded, scaled back). Integers keep their dtype.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.round(pd.constant(np.array([0.5, 1.5, 2.675], np.float64)), 2).numpy().tolist()
        [0.5, 1.5, 2.68]
    """
    if not isinstance(decimals, (int, np.integer)) or isinstance(decimals, bool):
        raise TypeError(at_user(f"round: expected an integer `decimals`, received "
                                f"{decimals!r}"))
    x = _tensor(x, "round")
    if x.dtype == "bool" or (x.dtype in _INTS and decimals >= 0):
        return x
    if x.dtype in _INTS:  # decimals < 0: to a multiple of 10**-decimals, exact below 2**53
        factor = float(10 ** -decimals)
        return cast(special.rint(cast(x, "float64") / factor) * factor, x.dtype)
    if decimals == 0:
        return special.rint(x)
    if decimals > 0:
        factor = float(10 ** decimals)
        return special.rint(x * factor) / factor
    factor = float(10 ** -decimals)
    return special.rint(x / factor) * factor


# ---- unary: compositions ------------------------------------------------------------------

def fabs(x):
    """|x| as a float (Keras's `keras.ops.fabs`: integers and bools become float32).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.fabs(pd.constant(np.array([-2], np.int32))).numpy().tolist()
        [2.0]
    """
    (x,) = _float_operands("fabs", x)
    return abs(x)


def reciprocal(x):
    """1 / x as a float (integers and bools become float32).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.reciprocal(pd.constant(np.array([4.0], np.float32))).numpy().tolist()
        [0.25]
    """
    (x,) = _float_operands("reciprocal", x)
    return 1.0 / x


def rsqrt(x):
    """1 / _math.sqrt(x) (Keras's `keras.ops.rsqrt`; integers are computed as float32, where
    Keras's symbolic rule would keep the integer dtype).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.rsqrt(pd.constant(np.array([4.0], np.float32))).numpy().tolist()
        [0.5]
    """
    (x,) = _float_operands("rsqrt", x)
    return 1.0 / _math.sqrt(x)


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0 (NumPy's normalized sinc; the gradient at 0 is 0).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.sinc(pd.constant(np.array([0.0, 1.0], np.float64))).numpy().round(6).tolist()
        [1.0, 0.0]
    """
    (x,) = _float_operands("sinc", x)
    at_zero = _math.equal(x, 0.0)
    safe = where(at_zero, 1.0, x) * math.pi
    return where(at_zero, 1.0, special.sin(safe) / safe)


def deg2rad(x):
    """Degrees to radians (int64 becomes float64, other integers float32, as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.deg2rad(pd.constant(np.array([180.0], np.float64))).numpy().tolist()
        [3.141592653589793]
    """
    (x,) = _float_operands("deg2rad", x, int64_to="float64")
    return x * (math.pi / 180.0)


def rad2deg(x):
    """Radians to degrees (int64 becomes float64, other integers float32, as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.rad2deg(pd.constant(np.array([math.pi] if False else [np.pi]))).numpy().tolist()
        [180.0]
    """
    (x,) = _float_operands("rad2deg", x, int64_to="float64")
    return x * (180.0 / math.pi)


def copy(x):
    """x itself: graph values are never changed in place, so a Variable is its own copy
    (arrays and numbers become constants, holding a copy).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.copy(np.array([1, 2], np.int32)).numpy().tolist()
        [1, 2]
    """
    return x if isinstance(x, Variable) else _operands("copy", x)[0]


def real(x):
    """The real part: of complex64 (complex128) values float32 (float64), of real ones x
    itself.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.real(pd.constant(np.array([1.5]))).numpy().tolist()
        [1.5]
    """
    if _complex.is_complex(x):
        return _complex.real_part(_complex.complex_tensor(x, "real"))
    return _tensor(x, "real")


def imag(x):
    """The imaginary part: of complex64 (complex128) values float32 (float64), of real ones
    zeros of x's dtype.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.imag(pd.constant(np.array([1.5]))).numpy().tolist()
        [0.0]
    """
    if _complex.is_complex(x):
        return _complex.imag_part(_complex.complex_tensor(x, "imag"))
    x = _tensor(x, "imag")
    return _math.not_equal(x, x) if x.dtype == "bool" else zeros_like(x)


def conj(x):
    """The complex conjugate (of real values, x itself).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.conj(pd.constant(np.array([1.5]))).numpy().tolist()
        [1.5]
    """
    if _complex.is_complex(x):
        return _complex.conjugate(_complex.complex_tensor(x, "conj"))
    return _tensor(x, "conj")


conjugate = conj


def angle(x):
    """The argument of x as a complex number, in [-pi, pi] (float32 from complex64, float64
    from complex128); of real values pi for negative ones (and -0.0), 0 else.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.angle(pd.constant(np.array([-2.0, 3.0]))).numpy().round(6).tolist()
        [3.141593, 0.0]
    """
    if _complex.is_complex(x):
        return _complex.complex_angle(_complex.complex_tensor(x, "angle"))
    (x,) = _float_operands("angle", x)
    return special.arctan2(zeros_like(x), x)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (by default the largest
    and smallest finite value of x's dtype); integers are returned as they are.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nan_to_num(pd.constant(np.array([np.nan, -np.inf, 1.0])), neginf=-9).numpy().tolist()
        [0.0, -9.0, 1.0]
    """
    x = _tensor(x, "nan_to_num")
    if x.dtype not in FLOATS:
        return x
    info = np.finfo(x.dtype)
    values = {}
    for label, value, default in (("nan", nan, 0.0), ("posinf", posinf, float(info.max)),
                                  ("neginf", neginf, float(info.min))):
        if value is None:
            value = default
        if not isinstance(value, (int, float, np.integer, np.floating)) or \
                isinstance(value, (bool, np.bool_)):
            raise TypeError(at_user(f"nan_to_num: expected `{label}` as a number, received "
                                    f"{value!r}"))
        values[label] = float(value)
    out = where(_math.not_equal(x, x), values["nan"], x)
    out = where(_math.equal(x, math.inf), values["posinf"], out)
    return where(_math.equal(x, -math.inf), values["neginf"], out)


# ---- binary -------------------------------------------------------------------------------

def arctan2(x1, x2):
    """The angle of the point (x2, x1) in radians, in [-pi, pi] (Keras's `arctan2`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.arctan2(1.0, pd.constant(np.array([-1.0]))).numpy().round(6).tolist()
        [2.356194]
    """
    a, b = _float_operands("arctan2", x1, x2)
    return special.arctan2(a, b)


def hypot(x1, x2):
    """_math.sqrt(x1**2 + x2**2), without overflow in between (int64 operands give float64).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.hypot(pd.constant(np.array([3.0])), 4.0).numpy().tolist()
        [5.0]
    """
    a, b = _float_operands("hypot", x1, x2, int64_to="float64")
    return special.hypot(a, b)


def nextafter(x1, x2):
    """The next representable float after x1 toward x2.

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.ops.nextafter(pd.constant(np.float64(1.0)), 2.0).numpy()) - 1.0
        2.220446049250313e-16
    """
    a, b = _float_operands("nextafter", x1, x2)
    return special.nextafter(a, b)


def logaddexp(x1, x2):
    """_math.log(_math.exp(x1) + _math.exp(x2)), computed without overflow.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.logaddexp(pd.constant(np.array([0.0])), 0.0).numpy().round(6).tolist()
        [0.693147]
    """
    a, b = _float_operands("logaddexp", x1, x2)
    return special.logaddexp(a, b)


def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2), computed without overflow.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.logaddexp2(pd.constant(np.array([1.0])), 1.0).numpy().tolist()
        [2.0]
    """
    a, b = _float_operands("logaddexp2", x1, x2)
    ln2 = math.log(2.0)
    return special.logaddexp(a * ln2, b * ln2) / ln2


def logsumexp(x, axis=None, keepdims=False):
    """_math.log(sum(_math.exp(x))) over `axis` (None: all), computed stably (Keras's
    `keras.ops.logsumexp`; integers are computed as float32).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.logsumexp(pd.constant(np.zeros((2, 4))), axis=1).numpy().round(6).tolist()
        [1.386294, 1.386294]
    """
    (x,) = _float_operands("logsumexp", x)
    # a bad axis is named as logsumexp's, at the user's line
    axes = _axes_of(x, axis, "logsumexp")
    if axes == (x.ndim - 1,) and x.shape[-1] and x.dtype in ("float32", "float64"):
        out = row_logsumexp(x)  # the last axis: one pass per row, its own kernel
        return expand_dims(out, x.ndim - 1) if keepdims else out
    # The shift's gradient cancels: d/dx [_math.log(sum(_math.exp(x - p))) + p] does not depend on p.
    peak = reduce_max(x, axis=axis, keepdims=True)
    # An infinite peak would make x - peak NaN: shift by 0 there instead.
    peak = where(_math.equal(abs(peak), math.inf), 0.0, peak)
    total = reduce_sum(_math.exp(x - peak), axis=axis, keepdims=keepdims)
    return _math.log(total) + (peak if keepdims else reduce_max(peak, axis=axis))


def heaviside(x1, x2):
    """0 where x1 < 0, 1 where x1 > 0, x2 where x1 is 0 (or NaN, as JAX's).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.heaviside(pd.constant(np.array([-1.0, 0.0, 2.0])), 0.5).numpy().tolist()
        [0.0, 0.5, 1.0]
    """
    a, b = _float_operands("heaviside", x1, x2, int64_to="float64")
    return where(_math.less(a, 0.0), 0.0, where(_math.greater(a, 0.0), 1.0, b))


def _integer_ready(where, *xs, bool_to="int32"):
    xs = _operands(where, *xs)
    if xs[0].dtype == "bool":
        xs = [cast(x, bool_to) for x in xs]
    return xs


def fmod(x1, x2):
    """The remainder of x1 / x2 with x1's sign (C's fmod); integer x % 0 is 0.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.fmod(pd.constant(np.array([-7, 7], np.int32)), 3).numpy().tolist()
        [-1, 1]
    """
    a, b = _integer_ready("fmod", x1, x2)
    return special.fmod(a, b)


def mod(x1, x2):
    """The remainder of x1 / x2 with x2's sign (Python's %); integer x % 0 is 0.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.mod(pd.constant(np.array([-7, 7], np.int32)), 3).numpy().tolist()
        [2, 1]
    """
    a, b = _integer_ready("mod", x1, x2)
    return special.remainder(a, b)


def floor_divide(x1, x2):
    """floor(x1 / x2) in the promoted dtype (Python's //; integer x // 0 is 0).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.floor_divide(pd.constant(np.array([-7, 7], np.int32)), 2).numpy().tolist()
        [-4, 3]
    """
    a, b = _operands("floor_divide", x1, x2)
    if a.dtype == "bool":
        return logical_and(a, b)  # True // True is 1; anything // False is 0
    return special.floor_divide(a, b)


def divide(x1, x2):
    """x1 / x2, true division: integers and bools are divided as float32 (Keras's
    `keras.ops.divide`; it used to refuse integers).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.divide(pd.constant(np.array([1, 3], np.int32)), 2).numpy().tolist()
        [0.5, 1.5]
    """
    a, b = _float_operands("divide", x1, x2)
    return a / b


def true_divide(x1, x2):
    """x1 / x2 (Keras's `true_divide`, the same as `divide`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.true_divide(pd.constant(np.array([1], np.int32)), 4).numpy().tolist()
        [0.25]
    """
    return divide(x1, x2)


def divide_no_nan(x1, x2):
    """x1 / x2, and 0 where x2 is 0.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.divide_no_nan(pd.constant(np.array([1.0, 1.0])), pd.constant(np.array([0.0, 2.0]))).numpy().tolist()
        [0.0, 0.5]
    """
    a, b = _float_operands("divide_no_nan", x1, x2)
    zero = _math.equal(b, 0.0)
    return where(zero, 0.0, a / where(zero, 1.0, b))


def fmax(x1, x2):
    """The larger of x1 and x2, ignoring NaN (NaN only where both are).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.fmax(pd.constant(np.array([np.nan, 1.0])), 0.0).numpy().tolist()
        [0.0, 1.0]
    """
    a, b = _operands("fmax", x1, x2)
    if a.dtype == "bool":
        return logical_or(a, b)
    if a.dtype in _INTS:
        return _math.maximum(a, b)
    return where(_math.not_equal(b, b), a, where(_math.not_equal(a, a), b, _math.maximum(a, b)))


def fmin(x1, x2):
    """The smaller of x1 and x2, ignoring NaN (NaN only where both are).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.fmin(pd.constant(np.array([np.nan, 1.0])), 0.0).numpy().tolist()
        [0.0, 0.0]
    """
    a, b = _operands("fmin", x1, x2)
    if a.dtype == "bool":
        return logical_and(a, b)
    if a.dtype in _INTS:
        return _math.minimum(a, b)
    return where(_math.not_equal(b, b), a, where(_math.not_equal(a, a), b, _math.minimum(a, b)))


def ldexp(x1, x2):
    """x1 * 2**x2 with integer exponents x2 (Keras's `ldexp`; x2 must be an integer).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.ldexp(pd.constant(np.array([3.0])), pd.constant(np.array([2], np.int32))).numpy().tolist()
        [12.0]
    """
    if _strong_dtype(x2, "ldexp") in FLOATS and _weak_kind(x2) != "i":
        raise TypeError(at_user(f"ldexp: expected integer exponents x2, received "
                                f"{_strong_dtype(x2, 'ldexp')}"))
    (a,) = _float_operands("ldexp", x1) if not isinstance(x1, (int, float)) else \
        _operands("ldexp", x1, dtype="float32")
    dtype = result_type(a.dtype, "float32") if a.dtype in FLOATS else "float32"
    return cast(a, dtype) * special.exp2(_as(x2, dtype, "ldexp"))


# ---- casts --------------------------------------------------------------------------------

_LIMITS = {"int8": (-128, 127), "uint8": (0, 255),
           "int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1),
           "float32": (float(np.finfo(np.float32).min), float(np.finfo(np.float32).max)),
           "float64": (float(np.finfo(np.float64).min), float(np.finfo(np.float64).max))}


def saturate_cast(x, dtype):
    """x converted to `dtype`, values clipped to its range first (no wrap-around; NaN to
    an integer gives 0).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.saturate_cast(pd.constant(np.array([3e9, -1.5])), "int32").numpy().tolist()
        [2147483647, -1]
    """
    dtype = as_dtype(dtype, "saturate_cast")
    x = _tensor(x, "saturate_cast")
    if x.dtype in STORAGE_DTYPES and dtype != x.dtype:
        x = cast(x, "int32")  # int8/uint8 are read through cast alone; int32 holds them all
    if dtype in STORAGE_DTYPES and x.dtype != dtype:
        return _clipped_cast(x, dtype)  # the storage dtypes hold no other dtype's range
    if dtype == "bool" or x.dtype == "bool" or _RANK[dtype] >= _RANK[x.dtype] and \
            (dtype in FLOATS) == (x.dtype in FLOATS):
        return cast(x, dtype)  # every value fits
    return _clipped_cast(x, dtype)


def _clipped_cast(x, dtype):
    low, high = _LIMITS[dtype]
    if x.dtype in FLOATS:
        kind = np.dtype(x.dtype).type
        # The bounds as x's floats, inside the range (float32(2**31 - 1) is 2**31, outside).
        high_f, low_f = kind(high), kind(low)
        if float(high_f) > high:
            high_f = np.nextafter(high_f, kind(0))
        if float(low_f) < low:
            low_f = np.nextafter(low_f, kind(0))
        x = _math.minimum(_math.maximum(x, float(low_f)), float(high_f))
        if dtype not in FLOATS:
            x = where(_math.not_equal(x, x), 0.0, x)
        return cast(x, dtype)
    return cast(_math.minimum(_math.maximum(x, low), high), dtype)


# ---- Keras's dtype rules for the low level's elementwise functions ------------------------

def _unary_keras(name, primitive, summary):
    def fn(x):
        if x.__class__ is not CONSTANT_CLASS[0] or x.dtype not in _OWN_FLOATS:
            (x,) = _float_operands(name, x)
        return primitive(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(name, summary)
    return fn


exp = _unary_keras("exp", _math.exp, "e to the power x.")
log = _unary_keras("log", _math.log, "Natural logarithm.")
sqrt = _unary_keras("sqrt", _math.sqrt, "Square root.")
log1p = _unary_keras("log1p", _math.log1p, "log(1 + x), accurate for small x.")
tanh = _unary_keras("tanh", _math.tanh, "Hyperbolic tangent.")


def square(x):
    """x * x (Keras's `square`: bools are squared as int32).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.square(np.array([True, False])).numpy().tolist()
        [1, 0]
    """
    x = _tensor(x, "square")
    return _math.square(cast(x, "int32") if x.dtype == "bool" else x)


def _binary_keras(name, primitive, on_bool, summary):
    def fn(x1, x2):
        a, b = _operands(name, x1, x2)
        if a.dtype == "bool":
            if on_bool is None:
                raise TypeError(at_user(f"{name}: expected numeric arguments, received bool "
                                        f"(use logical_xor for booleans)"))
            return on_bool(a, b)
        return primitive(a, b)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}\n\nKeras's `keras.ops.{name}`: the arguments are promoted to one "
                  f"dtype first (int32 with float32 gives float32, a Python number takes the "
                  f"other argument's kind).\n\nExample:\n"
                  f"    >>> import numpy as np, paddle as pd\n"
                  f"    >>> pd.ops.{name}(np.array([1, 2], np.int32), 1.5).dtype\n"
                  f"    '{'bool' if primitive in _COMPARISONS else 'float32'}'")
    return fn


_COMPARISONS = (_math.equal, _math.not_equal, _math.greater, _math.greater_equal, _math.less,
                _math.less_equal)
add = _binary_keras("add", _math.add, lambda a, b: logical_or(a, b), "x1 + x2.")
subtract = _binary_keras("subtract", _math.sub, None, "x1 - x2.")
multiply = _binary_keras("multiply", _math.mul, lambda a, b: logical_and(a, b), "x1 * x2.")
maximum = _binary_keras("maximum", _math.maximum, lambda a, b: logical_or(a, b),
                        "The larger of x1 and x2 (NaN wins).")
minimum = _binary_keras("minimum", _math.minimum, lambda a, b: logical_and(a, b),
                        "The smaller of x1 and x2 (NaN wins).")
equal = _binary_keras("equal", _math.equal, _math.equal, "x1 == x2, a bool tensor.")
not_equal = _binary_keras("not_equal", _math.not_equal, _math.not_equal,
                          "x1 != x2, a bool tensor.")
greater = _binary_keras("greater", _math.greater, lambda a, b: logical_and(a, logical_not(b)),
                        "x1 > x2, a bool tensor.")
greater_equal = _binary_keras("greater_equal", _math.greater_equal,
                              lambda a, b: logical_or(a, logical_not(b)),
                              "x1 >= x2, a bool tensor.")
less = _binary_keras("less", _math.less, lambda a, b: logical_and(logical_not(a), b),
                     "x1 < x2, a bool tensor.")
less_equal = _binary_keras("less_equal", _math.less_equal,
                           lambda a, b: logical_or(logical_not(a), b), "x1 <= x2, a bool tensor.")


def power(x1, x2):
    """x1 ** x2 after Keras's promotion (an int32 tensor to a float power is float32).
    Integer powers of integers are refused: paddle computes powers in floats only.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.power(np.array([2, 3], np.int32), 2.0).numpy().tolist()
        [4.0, 9.0]
    """
    a, b = _operands("power", x1, x2)
    if a.dtype not in FLOATS:
        raise TypeError(at_user(f"power: expected a float base or exponent, received {a.dtype} "
                                f"and {b.dtype} (integer powers are not supported: cast to "
                                f"float)"))
    return _math.pow(a, b)


def clip(x, x_min, x_max):
    """x limited to [x_min, x_max] (Keras's `clip`: bools are clipped as int32; the gradient
    passes where x is inside).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.clip(np.array([-2.0, 0.5, 3.0], np.float32), 0.0, 1.0).numpy().tolist()
        [0.0, 0.5, 1.0]
    """
    x = _tensor(x, "clip")
    if x.dtype == "bool":
        x = cast(x, "int32")
    lo, hi = (_as(v, x.dtype, "clip") if not isinstance(v, Variable) else cast(v, x.dtype)
              for v in (x_min, x_max))
    return _math.minimum(_math.maximum(x, lo), hi)
