"""Elementwise math: unary and broadcasting binary ops, comparisons, where, cast.

The gradient of each op is written with other ops next to its shape rule. Binary ops
broadcast as NumPy does; their gradients are summed back to each operand's shape.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 3])
    >>> y = pd.maximum(x * 2.0, 1.0)
    >>> pd.eval(y, {x: np.array([[0.0, 1.0, 2.0]], np.float32)}).tolist()
    [[1.0, 2.0, 4.0]]
"""
import math
import sys
import weakref

from paddle.errors import source_location
from paddle.lowlevel.graph import (CONSTANT_CLASS, EAGER_FAST, FLOATS, NUMBERS, Variable, apply,
                                   as_dtype, as_variable)
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.shapes import broadcast, sizes_from


def _float_only(op, x):
    if x[1] not in FLOATS:
        raise TypeError(f"{op.name}: expected a float32 or float64 input, received {x[1]}")


# ---- unary ------------------------------------------------------------------------------

class Unary(Op):
    """y = f(x) elementwise; `code` selects the C++ loop, `dx` builds the gradient."""

    family = "unary"
    code = None
    floats_only = True

    def infer(self, x):
        if self.floats_only:
            _float_only(self, x)
        elif x[1] == "bool":
            raise TypeError(f"{self.name}: expected a numeric input, received bool")
        return x

    def grad(self, node, g):
        return [self.dx(node.inputs[0], node.outputs[0], g[0])]

    def dx(self, x, y, g):
        raise NotImplementedError


SUMMARIES = {
    "neg": "-x, elementwise.", "abs": "|x|, elementwise.", "exp": "e to the power x.",
    "log": "Natural logarithm.", "log1p": "log(1 + x), accurate for small x.",
    "sqrt": "Square root.", "square": "x * x.", "sign": "-1, 0 or 1 (the gradient is zero).",
    "relu": "max(x, 0).", "sigmoid": "1 / (1 + exp(-x)).", "tanh": "Hyperbolic tangent.",
    "erf": "The error function.", "add": "a + b, broadcasting.", "sub": "a - b, broadcasting.",
    "mul": "a * b, broadcasting.", "div": "a / b, broadcasting (float inputs).",
    "pow": "a ** b, broadcasting (float inputs).",
    "maximum": "The larger of a and b, elementwise (the gradient goes to a on ties).",
    "minimum": "The smaller of a and b, elementwise (the gradient goes to a on ties).",
    "relu_grad": "g where y > 0, else 0: relu's gradient (y is relu's output).",
    "greater": "bool a > b.", "greater_equal": "bool a >= b.", "less": "bool a < b.",
    "less_equal": "bool a <= b.", "equal": "bool a == b.", "not_equal": "bool a != b.",
}


def _document(fn, name, operands, example):
    """A docstring for a generated elementwise function: summary, args, runnable example."""
    args = "x: a Variable, an array or a number." if operands == 1 else \
        "a, b: Variables, arrays or numbers (numbers take the other operand's dtype)."
    fn.__name__ = name
    fn.__doc__ = (f"{SUMMARIES[name]}\n\nArgs:\n    {args}\n\nReturns:\n    A Variable; its "
                  f"shape is known at once.\n\nExample:\n    >>> import paddle as pd\n"
                  f"    >>> x = pd.data('x', shape=[None, 3])\n    >>> {example}")
    return fn


def _unary(name, code, dx, floats_only=True):
    cls = type(name.capitalize(), (Unary,), {"name": name, "code": code, "floats_only": floats_only,
                                            "dx": staticmethod(dx)})
    register(cls)

    def fn(x):
        op = OPS[name]
        if x.__class__ is CONSTANT_CLASS[0]:  # an eager tensor: seen before? (graph.EAGER_FAST)
            fast = EAGER_FAST.get((op, (), x.shape, x.dtype))
            if fast is not None:
                out = fast(x)
                if out is not None:
                    return out
        return apply(op, [as_variable(x, where=name)])
    return _document(fn, name, 1, f"pd.{name}(x).shape\n    (None, 3)")


_SQRT_2_OVER_PI = 2.0 / math.sqrt(math.pi)

# Codes follow the Unary enum of csrc/elementwise.cpp.
neg = _unary("neg", 0, lambda x, y, g: -g, floats_only=False)
abs = _unary("abs", 1, lambda x, y, g: g * sign(x), floats_only=False)  # noqa: A001
exp = _unary("exp", 2, lambda x, y, g: g * y)
log = _unary("log", 3, lambda x, y, g: g / x)
log1p = _unary("log1p", 4, lambda x, y, g: g / (x + 1.0))
sqrt = _unary("sqrt", 5, lambda x, y, g: g * 0.5 / y)
square = _unary("square", 6, lambda x, y, g: g * x * 2.0, floats_only=False)
sign = _unary("sign", 7, lambda x, y, g: zeros_like(g), floats_only=False)
relu = _unary("relu", 8, lambda x, y, g: relu_grad(y, g), floats_only=False)
sigmoid = _unary("sigmoid", 9, lambda x, y, g: g * y * (1.0 - y))
tanh = _unary("tanh", 10, lambda x, y, g: g * (1.0 - square(y)))
erf = _unary("erf", 11, lambda x, y, g: g * _SQRT_2_OVER_PI * exp(-square(x)))


# ---- binary -----------------------------------------------------------------------------

class Binary(Op):
    """y = f(a, b) with broadcasting; `da`/`db` give the gradients before summing back."""

    family = "binary"
    code = None
    floats_only = False

    def infer(self, a, b):
        if a[1] != b[1]:
            self.fail(f"dtypes differ ({a[1]} and {b[1]}); cast one with pd.cast",
                      ("a", a[0]), ("b", b[0]))
        if a[1] == "bool" or (self.floats_only and a[1] not in FLOATS):
            raise TypeError(f"{self.name}: expected {'float' if self.floats_only else 'numeric'} "
                            f"inputs, received {a[1]}" + ("; cast them with pd.cast" if
                                                          a[1] != "bool" else ""))
        return broadcast(self, a[0], b[0]), a[1]

    def grad(self, node, g):
        a, b = node.inputs
        y, g = node.outputs[0], g[0]
        return [sum_to(self.da(a, b, y, g), a), sum_to(self.db(a, b, y, g), b)]


def _two_operand_function(name):
    """The function of a two-operand op (binary or compare): eager tensors seen before go
    straight to their entry in EAGER_FAST, the rest through `_pair` and `apply`. A closure
    per op, so the eager path pays no extra call."""
    def fn(a, b):
        op = OPS[name]
        tensor = CONSTANT_CLASS[0]
        if a.__class__ is tensor and b.__class__ is tensor:  # eager tensors: seen before?
            fast = EAGER_FAST.get((op, (), a.shape, a.dtype, b.shape, b.dtype))
            out = None if fast is None else fast(a, b)
            if out is not None:
                return out
        elif a.__class__ is tensor or b.__class__ is tensor:  # and a Python number?
            out = _fast_binary(op, a, b)
            if out is not None:
                return out
        a, b = _pair(a, b, name)
        return apply(op, [a, b])
    return fn


def _binary(name, code, da, db, floats_only=False):
    cls = type(name.capitalize(), (Binary,), {"name": name, "code": code,
                                             "floats_only": floats_only,
                                             "da": staticmethod(da), "db": staticmethod(db)})
    register(cls)

    fn = _two_operand_function(name)
    # relu_grad is internal: reach it by its module in the example.
    qualified = "pd.lowlevel.ops.math." if name == "relu_grad" else "pd."
    return _document(fn, name, 2, f"{qualified}{name}(x, 2.0).shape\n    (None, 3)")


def _fast_binary(op, a, b):
    """The result of the binary `op` on an eager tensor and an eager tensor or a Python
    number when graph.EAGER_FAST has the call (the op on these shapes and dtypes passed
    its checks and ran before), else None. (The functions look two tensors up
    themselves.)"""
    tensor = CONSTANT_CLASS[0]
    if a.__class__ is tensor:
        if b.__class__ is not tensor:
            b = _scalar(b, a)
            if b is None:
                return None
    else:
        a = _scalar(a, b)
        if a is None:
            return None
    fast = EAGER_FAST.get((op, (), a.shape, a.dtype, b.shape, b.dtype))
    return None if fast is None else fast(a, b)


# Python numbers as the constants _pair makes of them beside eager tensors, per (value,
# type, dtype of the tensor): `x * 2.0` in a loop makes its constant once (making one
# reads the user's line, about 20 us). Constants are immutable; at most MAX_SCALARS.
_SCALARS = {}
MAX_SCALARS = 1024


def _scalar(s, like):
    """The constant _pair makes of the Python int or float `s` beside the eager tensor
    `like` (its dtype; float32 for a float beside integers), cached; None for anything
    else, where _pair would fail, and for the numbers equal keys cannot tell apart (NaN,
    and 0.0 from -0.0)."""
    if s.__class__ is not float and s.__class__ is not int:
        return None
    key = (s, s.__class__, like.dtype)
    c = _SCALARS.get(key)
    if c is None:
        if s != s or (s == 0 and s.__class__ is float) or len(_SCALARS) >= MAX_SCALARS:
            return None
        try:
            c = as_variable(s, like=like)
        except (TypeError, ValueError):  # _pair raises it, naming the op
            return None
        _SCALARS[key] = c
    return c


def _pair(a, b, where):
    """Both operands as Variables; a Python number takes the other operand's dtype."""
    if isinstance(a, Variable) and isinstance(b, Variable) and not (a._weak or b._weak):
        return a, b  # (as as_variable gives them: the common case of eager calls, first)
    if not isinstance(a, Variable) and not isinstance(b, Variable):
        a = as_variable(a, where=where)
    a = as_variable(a, like=b if isinstance(b, Variable) else None, where=where)
    return a, as_variable(b, like=a, where=where)


# Codes follow the Binary enum of csrc/elementwise.cpp.
add = _binary("add", 0, lambda a, b, y, g: g, lambda a, b, y, g: g)
sub = _binary("sub", 1, lambda a, b, y, g: g, lambda a, b, y, g: -g)
mul = _binary("mul", 2, lambda a, b, y, g: g * b, lambda a, b, y, g: g * a)
# Floats only: integer division would truncate silently, and divide by zero kills the process.
div = _binary("div", 3, lambda a, b, y, g: g / b, lambda a, b, y, g: -(g * y) / b,
              floats_only=True)
pow = _binary("pow", 4, lambda a, b, y, g: g * b * (a ** (b - 1.0)),  # noqa: A001
              lambda a, b, y, g: g * y * log(a), floats_only=True)
maximum = _binary("maximum", 5, lambda a, b, y, g: where(greater_equal(a, b), g, 0.0),
                  lambda a, b, y, g: where(less(a, b), g, 0.0))
# relu's gradient as one fused op: g where relu's output y > 0, else 0.
relu_grad = _binary("relu_grad", 7, lambda y, g, out, gg: None,
                    lambda y, g, out, gg: relu_grad(y, gg))
minimum = _binary("minimum", 6, lambda a, b, y, g: where(less_equal(a, b), g, 0.0),
                  lambda a, b, y, g: where(greater(a, b), g, 0.0))


class Compare(Op):
    """bool y = a <op> b with broadcasting; no gradient flows through a comparison."""

    family = "compare"
    code = None

    def infer(self, a, b):
        if a[1] != b[1]:
            self.fail(f"dtypes differ ({a[1]} and {b[1]})", ("a", a[0]), ("b", b[0]))
        return broadcast(self, a[0], b[0]), "bool"

    def grad(self, node, g):
        return [None, None]


def _compare(name, code):
    register(type(name.capitalize(), (Compare,), {"name": name, "code": code}))

    fn = _two_operand_function(name)
    return _document(fn, name, 2, f"pd.{name}(x, 0.0).dtype\n    'bool'")


# Codes follow the Compare enum of csrc/elementwise.cpp.
greater = _compare("greater", 0)
greater_equal = _compare("greater_equal", 1)
less = _compare("less", 2)
less_equal = _compare("less_equal", 3)
equal = _compare("equal", 4)
not_equal = _compare("not_equal", 5)


@register
class Where(Op):
    name = "where"

    def infer(self, cond, a, b):
        if cond[1] != "bool":
            raise TypeError(f"where: expected a bool condition, received {cond[1]}")
        if a[1] != b[1]:
            self.fail(f"dtypes differ ({a[1]} and {b[1]})", ("x", a[0]), ("y", b[0]))
        return broadcast(self, cond[0], a[0], b[0], labels=["condition", "x", "y"]), a[1]

    def grad(self, node, g):
        cond, a, b = node.inputs
        zero = zeros_like(g[0])
        return [None, sum_to(where(cond, g[0], zero), a), sum_to(where(cond, zero, g[0]), b)]


def where(condition, x, y):
    """Elementwise `x` where `condition` is true, else `y` (broadcasting all three)."""
    x, y = _pair(x, y, "where")
    return apply(OPS["where"], [as_variable(condition, where="where"), x, y])


@register
class Cast(Op):
    name = "cast"

    def infer(self, x, dtype):
        return x[0], dtype

    def aliases(self, inputs, outputs):
        # A cast to x's own dtype (a layer call's output kept distinct from its input, see
        # highlevel/layers/base.py `_distinct_output`) is x's buffer: no copy runs.
        return inputs[0] == outputs[0]

    def grad(self, node, g):
        x = node.inputs[0]
        return [cast(g[0], x.dtype) if x.dtype in FLOATS else None]


def cast(x, dtype):
    """`x` converted to `dtype` ('float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32',
    'bool'); a float cast to a narrower float rounds to nearest even."""
    x = as_variable(x, where="cast")
    dtype = as_dtype(dtype, "cast")
    return x if x.dtype == dtype else apply(OPS["cast"], [x], {"dtype": dtype})


@register
class FullLike(Op):
    """A tensor of x's shape and dtype filled with a value; x's values are not read. With
    `shape` (None where x gives the size at run time, see `shapes.sizes_from`) and
    `dtype`, a tensor of that shape and dtype instead: `pd.ones((ops.shape(x)[0], 1))`."""

    name = "full_like"
    shape_only = (0,)

    def infer(self, x, value, shape=None, dtype=None):
        if shape is None:
            return x
        sized = sizes_from(shape, x[0])
        if sized is None:
            self.fail(f"the shape {tuple(shape)} has None sizes that x cannot give", ("x", x[0]))
        return sized, dtype or x[1]

    def grad(self, node, g):
        return [None]


def zeros_like(x):
    """Zeros of x's shape and dtype (x's values are not read).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.zeros_like(pd.constant([1.0, 2.0]))).tolist()
        [0.0, 0.0]
    """
    return apply(OPS["full_like"], [as_variable(x, where="zeros_like")], {"value": 0.0})


def ones_like(x):
    """Ones of x's shape and dtype (x's values are not read).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ones_like(pd.constant([1.0, 2.0]))).tolist()
        [1.0, 1.0]
    """
    return apply(OPS["full_like"], [as_variable(x, where="ones_like")], {"value": 1.0})


# ---- broadcasting and its adjoint -------------------------------------------------------

@register
class SumTo(Op):
    """Sum a broadcast gradient back to the shape of `like` (its values are not read)."""

    name = "sum_to"
    shape_only = (1,)

    def aliases(self, inputs, outputs):
        return inputs[0] == outputs[0]  # nothing was broadcast: the gradient as it is

    def infer(self, x, like):
        # like must broadcast to x: summing can only remove what broadcasting added.
        out = broadcast(self, x[0], like[0], labels=["x", "like"])
        if len(like[0]) > len(x[0]) or any(o is not None and d is not None and o != d
                                           for o, d in zip(out, x[0])):
            self.fail("cannot sum x to the shape of like", ("x", x[0]), ("like", like[0]))
        return like[0], x[1]

    def grad(self, node, g):
        return [broadcast_to(g[0], node.inputs[0]), None]


@register
class BroadcastTo(Op):
    """Broadcast x to the shape of `like` (its values are not read)."""

    name = "broadcast_to"
    shape_only = (1,)

    def aliases(self, inputs, outputs):
        return inputs[0] == outputs[0]

    def infer(self, x, like):
        broadcast(self, x[0], like[0], labels=["x", "like"])
        return like[0], x[1]

    def grad(self, node, g):
        return [sum_to(g[0], node.inputs[0]), None]


def sum_to(g, like):
    """g summed over the axes along which `like` was broadcast to g's shape."""
    if g is None:
        return None
    if g.shape == like.shape and None not in g.shape:
        return g
    return apply(OPS["sum_to"], [g, like])


def broadcast_to(x, like):
    """x broadcast to the shape of the Variable `like`."""
    if x.shape == like.shape and None not in x.shape:
        return x
    return apply(OPS["broadcast_to"], [x, like])


def clip(x, clip_value_min, clip_value_max):
    """x limited to [min, max]; the gradient passes where x is inside."""
    return minimum(maximum(x, clip_value_min), clip_value_max)


# ---- operators on Variables -------------------------------------------------------------

class Comparison(Variable):
    """What `a == b` and `a != b` give when `a` is a Variable: the bool Variable of
    `pd.equal(a, b)` / `pd.not_equal(a, b)`, built the first time one of its attributes
    is read (by an op, `pd.eval`, `.shape`...), with identity as its truth value.

    Python compares list members itself (`v in a_list`, `index`, `remove`, `count`), and
    reads only the truth value: built then, the op would cost a node, a name and a shape
    rule per member, and raise for members of unrelated shapes or dtypes."""

    def __new__(cls, *args):
        return object.__new__(cls)  # not Variable.__new__: that makes a parameter

    def __init__(self, name, a, b, truth, caller):
        self._pending = name, a, b, caller  # caller: (file, line) of the frame that compared
        self._truth = truth

    def __bool__(self):
        return self._truth

    def __getattr__(self, attr):
        # Reached only for attributes not yet set: a built Variable's (name, shape, node...).
        pending = self.__dict__.get("_pending")
        if pending is None or attr.startswith("__"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")
        name, a, b, caller = pending
        built = apply(OPS[name], list(_pair(a, b, name)), location=source_location(*caller))
        del self._pending
        self.__dict__.update(built.__dict__)
        built.node.outputs_ref = (weakref.ref(self),)  # the node's output is this object
        return getattr(self, attr)


def _comparison(name, identical):
    """The `==` (identical=True) or `!=` operator of Variables: a Comparison of op `name`."""
    def operator(a, b):
        if not isinstance(b, (Variable,) + NUMBERS):
            return NotImplemented  # None, strings, objects: Python compares identity
        frame = sys._getframe(1)
        return Comparison(name, a, b, (a is b) == identical, (frame.f_code.co_filename,
                                                               frame.f_lineno))
    return operator


def _install_operators():
    def swap(f):
        return lambda a, b: f(b, a)
    Variable.__add__, Variable.__radd__ = add, swap(add)
    Variable.__sub__, Variable.__rsub__ = sub, swap(sub)
    Variable.__mul__, Variable.__rmul__ = mul, swap(mul)
    Variable.__truediv__, Variable.__rtruediv__ = div, swap(div)
    Variable.__pow__, Variable.__rpow__ = pow, swap(pow)
    Variable.__neg__ = neg
    Variable.__abs__ = abs
    Variable.__gt__, Variable.__ge__ = greater, greater_equal
    Variable.__lt__, Variable.__le__ = less, less_equal
    Variable.__eq__, Variable.__ne__ = _comparison("equal", True), \
        _comparison("not_equal", False)


_install_operators()
