"""Elementwise primitives beyond paddle/lowlevel/ops/math.py's: trigonometric, hyperbolic,
exponential and logarithmic variants, rounding, special functions (one row each in
`UNARY`), the binary ones Keras's `ops.numpy` needs (arctan2, hypot, nextafter,
remainders, floor division, bitwise operations and shifts; one row each in `BINARY`), and
the predicates, bool results of one operand of any dtype (signbit; `PREDICATES`).

They run on the kernels of the "unary", "binary" and "predicate" families (the `code` of
each row is its entry in the enums of csrc/elementwise.cpp; the CUDA backend knows them by
name). Each
gradient is built from ops, so higher orders come free. The Keras-facing functions, with
Keras's dtype rules and argument checks, are in paddle/ops/numpy_math.py.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel.ops import special
    >>> x = pd.constant(np.array([0.0, 0.5], np.float64))
    >>> np.round(pd.eval(special.sin(x)), 6).tolist()
    [0.0, 0.479426]
"""
import math

from paddle.lowlevel.graph import apply, as_variable
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import Binary, Unary, _pair, erf, exp, sqrt, square, tanh, where, \
    zeros_like

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_HALF, _INV_SQRT_2PI = math.sqrt(0.5), 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _zero(x, y, g):
    return zeros_like(g)


def _i1_grad(x, y, g):
    # I1'(x) = I0(x) - I1(x) / x, which is 1/2 at 0: x is replaced by 1 there, where the
    # unused branch must stay finite for its zero gradient not to make NaN.
    at_zero = x == 0.0
    safe = where(at_zero, 1.0, x)
    return g * where(at_zero, 0.5, i0(x) - i1(safe) / safe)


# name: (code in csrc/elementwise.cpp's Unary enum, gradient dx(x, y, g), summary)
UNARY = {
    "sin": (12, lambda x, y, g: g * cos(x), "Sine."),
    "cos": (13, lambda x, y, g: -(g * sin(x)), "Cosine."),
    "tan": (14, lambda x, y, g: g * (square(y) + 1.0), "Tangent."),
    "arcsin": (15, lambda x, y, g: g / sqrt(1.0 - square(x)), "Inverse sine."),
    "arccos": (16, lambda x, y, g: -(g / sqrt(1.0 - square(x))), "Inverse cosine."),
    "arctan": (17, lambda x, y, g: g / (square(x) + 1.0), "Inverse tangent."),
    "sinh": (18, lambda x, y, g: g * cosh(x), "Hyperbolic sine."),
    "cosh": (19, lambda x, y, g: g * sinh(x), "Hyperbolic cosine."),
    "arcsinh": (20, lambda x, y, g: g / sqrt(square(x) + 1.0), "Inverse hyperbolic sine."),
    "arccosh": (21, lambda x, y, g: g / (sqrt(x - 1.0) * sqrt(x + 1.0)),
                "Inverse hyperbolic cosine."),
    "arctanh": (22, lambda x, y, g: g / (1.0 - square(x)), "Inverse hyperbolic tangent."),
    "exp2": (23, lambda x, y, g: g * y * _LN2, "2 to the power x."),
    "expm1": (24, lambda x, y, g: g * (y + 1.0), "exp(x) - 1, accurate for small x."),
    "log2": (25, lambda x, y, g: g / (x * _LN2), "Base-2 logarithm."),
    "log10": (26, lambda x, y, g: g / (x * _LN10), "Base-10 logarithm."),
    "floor": (27, _zero, "The largest integer <= x (the gradient is zero)."),
    "ceil": (28, _zero, "The smallest integer >= x (the gradient is zero)."),
    "rint": (29, _zero, "x rounded to the nearest integer, halves to even (zero gradient)."),
    "trunc": (30, _zero, "x rounded toward zero (the gradient is zero)."),
    "cbrt": (31, lambda x, y, g: g / (square(y) * 3.0), "Cube root."),
    "erfc": (32, lambda x, y, g: -(g * _TWO_OVER_SQRT_PI * exp(-square(x))),
             "1 - erf(x), accurate where erf(x) is near 1."),
    "erfinv": (33, lambda x, y, g: g * (math.sqrt(math.pi) / 2.0) * exp(square(y)),
               "The inverse of erf on (-1, 1)."),
    "i0": (34, lambda x, y, g: g * i1(x), "The modified Bessel function I0."),
    "i1": (35, _i1_grad, "The modified Bessel function I1 (i0's derivative)."),
    "gelu_erf": (36, lambda x, y, g: g * _gelu_erf_slope(x),
                 "x * Phi(x), the exact GELU (with erf), in one pass."),
    "gelu_tanh": (37, lambda x, y, g: g * _gelu_tanh_slope(x),
                  "GELU's tanh approximation (Keras's default), in one pass."),
}


def _gelu_erf_slope(x):
    # d/dx x Phi(x) = Phi(x) + x phi(x)
    return (erf(x * _SQRT_HALF) + 1.0) * 0.5 + x * exp(square(x) * -0.5) * _INV_SQRT_2PI


def _gelu_tanh_slope(x):
    # y = x (1 + tanh(u)) / 2 with u = c (x + 0.044715 x^3)
    t = tanh((x + x * square(x) * 0.044715) * _SQRT_2_OVER_PI)
    du = (square(x) * (3.0 * 0.044715) + 1.0) * _SQRT_2_OVER_PI
    return (t + 1.0) * 0.5 + x * (1.0 - square(t)) * du * 0.5


def _unary(name, code, dx, summary):
    register(type(f"Special_{name}", (Unary,), {"name": name, "code": code,
                                               "dx": staticmethod(dx)}))

    def fn(x):
        return apply(OPS[name], [as_variable(x, where=name)])
    fn.__name__ = name
    fn.__doc__ = (f"{summary}\n\nArgs:\n    x: a float Variable, array or number.\n\n"
                  f"Returns:\n    A Variable of x's shape and dtype.\n\nExample:\n"
                  f"    >>> import paddle as pd\n    >>> from paddle.lowlevel.ops import special\n"
                  f"    >>> special.{name}(pd.data('x', shape=[None, 3])).shape\n"
                  f"    (None, 3)")
    return fn


def _ints_only(op, a):
    if a[1] not in ("int32", "int64"):
        raise TypeError(f"{op.name}: expected int32 or int64 inputs, received {a[1]}")


class IntBinary(Binary):
    """A broadcasting binary op on integers only (bitwise operations, shifts)."""

    def infer(self, a, b):
        out = Binary.infer(self, a, b)
        _ints_only(self, a)
        return out

    def grad(self, node, g):
        return [None, None]


def _trunc_div(a, b):
    return trunc(a / b)


# name: (code in the Binary enum, da(a, b, y, g), db(a, b, y, g), floats only, summary)
BINARY = {
    "arctan2": (8, lambda a, b, y, g: g * b / (square(a) + square(b)),
                lambda a, b, y, g: -(g * a) / (square(a) + square(b)), True,
                "The angle of the point (b, a): arctan(a / b) in the right quadrant."),
    "hypot": (9, lambda a, b, y, g: g * a / y, lambda a, b, y, g: g * b / y, True,
              "sqrt(a**2 + b**2) without overflow or underflow in between."),
    "nextafter": (10, lambda a, b, y, g: zeros_like(g), lambda a, b, y, g: zeros_like(g), True,
                  "The next float after a toward b (the gradient is zero)."),
    "fmod": (11, lambda a, b, y, g: g, lambda a, b, y, g: -(g * _trunc_div(a, b)), False,
             "The remainder of a / b with a's sign (C's fmod; integer x % 0 is 0)."),
    "remainder": (12, lambda a, b, y, g: g, lambda a, b, y, g: -(g * floor(a / b)), False,
                  "The remainder of a / b with b's sign (Python's %; integer x % 0 is 0)."),
    "floor_divide": (13, lambda a, b, y, g: zeros_like(g), lambda a, b, y, g: zeros_like(g),
                     False, "floor(a / b) (Python's //; integer x // 0 is 0; zero gradient)."),
    "logaddexp": (21, lambda a, b, y, g: g * exp(a - y), lambda a, b, y, g: g * exp(b - y), True,
                  "log(exp(a) + exp(b)) without overflow."),
}

INT_BINARY = {
    "bitwise_and": (14, "a & b, on integers."),
    "bitwise_or": (15, "a | b, on integers."),
    "bitwise_xor": (16, "a ^ b, on integers."),
    "left_shift": (17, "a << b, on integers (0 when b is negative or the width or more)."),
    "right_shift": (18, "a >> b, arithmetic, on integers (the sign when b is out of range)."),
    "gcd": (19, "The greatest common divisor of |a| and |b|, on integers."),
    "lcm": (20, "The least common multiple of |a| and |b|, on integers (wraps on overflow)."),
}


def _binary_fn(name, summary):
    def fn(a, b):
        a, b = _pair(a, b, name)
        return apply(OPS[name], [a, b])
    fn.__name__ = name
    fn.__doc__ = (f"{summary}\n\nArgs:\n    a, b: Variables, arrays or numbers of one dtype "
                  f"(broadcasting).\n\nReturns:\n    A Variable of the broadcast shape.\n\n"
                  f"Example:\n    >>> import paddle as pd\n"
                  f"    >>> from paddle.lowlevel.ops import special\n"
                  f"    >>> special.{name}(pd.data('x', shape=[None, 3], dtype="
                  f"'{'int32' if name in INT_BINARY else 'float32'}'), 2).shape\n"
                  f"    (None, 3)")
    return fn


for _name, (_code, _dx, _summary) in UNARY.items():
    globals()[_name] = _unary(_name, _code, _dx, _summary)

for _name, (_code, _da, _db, _floats, _summary) in BINARY.items():
    register(type(f"Special_{_name}", (Binary,), {"name": _name, "code": _code,
                                                 "floats_only": _floats,
                                                 "da": staticmethod(_da),
                                                 "db": staticmethod(_db)}))
    globals()[_name] = _binary_fn(_name, _summary)

for _name, (_code, _summary) in INT_BINARY.items():
    register(type(f"Special_{_name}", (IntBinary,), {"name": _name, "code": _code}))
    globals()[_name] = _binary_fn(_name, _summary)



class Predicate(Op):
    """bool y = p(x) elementwise, for x of any dtype; `code` selects the C++ loop (the
    Predicate enum of csrc/elementwise.cpp). No gradient flows through a bool result."""

    family = "predicate"
    code = None

    def infer(self, x):
        return x[0], "bool"

    def grad(self, node, g):
        return [None]


# name: (code in csrc/elementwise.cpp's Predicate enum, summary)
PREDICATES = {
    # The sign bit itself, not x < 0 or 1 / x < 0: one bit test per element, and the sign
    # of a NaN is read too (JAX's and NumPy's signbit of -nan is True).
    "signbit": (0, "Whether x's sign bit is set: for floats x < 0, -0.0 and a NaN whose sign "
                   "is set; for integers x < 0; for bools never."),
}


def _predicate_fn(name, summary):
    def fn(x):
        return apply(OPS[name], [as_variable(x, where=name)])
    fn.__name__ = name
    fn.__doc__ = (f"{summary}\n\nArgs:\n    x: a Variable, array or number (any dtype).\n\n"
                  f"Returns:\n    A bool Variable of x's shape.\n\nExample:\n"
                  f"    >>> import numpy as np, paddle as pd\n"
                  f"    >>> from paddle.lowlevel.ops import special\n"
                  f"    >>> x = pd.constant(np.array([-0.0, 0.0, -np.nan, np.nan, -2.0]))\n"
                  f"    >>> pd.eval(special.{name}(x)).tolist()\n"
                  f"    [True, False, True, False, True]")
    return fn


for _name, (_code, _summary) in PREDICATES.items():
    register(type(f"Special_{_name}", (Predicate,), {"name": _name, "code": _code}))
    globals()[_name] = _predicate_fn(_name, _summary)

__all__ = sorted(list(UNARY) + list(BINARY) + list(INT_BINARY) + list(PREDICATES))

# Defined by the loops above; named here for the gradients that use them (and for linters).
sin, cos, sinh, cosh, floor, trunc, i0, i1 = (
    globals()[n] for n in ("sin", "cos", "sinh", "cosh", "floor", "trunc", "i0", "i1"))
