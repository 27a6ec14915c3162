"""Reductions: sum, mean, max, min, prod over axes (keepdims), argmax."""
from types import SimpleNamespace

from paddle.lowlevel.graph import (CONSTANT_CLASS, EAGER_FAST, FLOATS, Variable, apply, as_variable,
                                   attrs_key)
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import broadcast_to, cast, equal, sum_to, where, zeros_like
from paddle.lowlevel.ops.shape import expand_dims, reshape
from paddle.lowlevel.shapes import normalize_axes, normalize_axis


def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


class Reduction(Op):
    code = None

    def infer(self, x, axis=None, keepdims=False, mean=False):
        if x[1] == "bool" and self.code not in (1, 2):  # bool: max (any) and min (all)
            raise TypeError(f"{self.name}: expected a numeric input, received bool")
        if mean and x[1] not in FLOATS:
            raise TypeError(f"mean: expected a float input, received {x[1]}")
        # pd.mean is this op with mean=True: its errors name mean, as the user wrote it
        axes = normalize_axes(SimpleNamespace(name="mean") if mean else self, axis, len(x[0]),
                              x[0])
        if self.code in (1, 2):  # max, min: a sum or product over nothing is 0 or 1
            for a in axes:
                if x[0][a] == 0:
                    self.fail(f"cannot take the {self.name} of an empty axis {a}", ("x", x[0]))
        return _reduced_shape(x[0], axes, keepdims), x[1]

    def kept(self, node, v):
        """v reshaped to keepdims form so it broadcasts against the input."""
        x = node.inputs[0]
        if node.attrs.get("keepdims", False):
            return v
        for a in normalize_axes(self, node.attrs.get("axis"), x.ndim):
            v = expand_dims(v, a)
        return v


@register
class Sum(Reduction):
    """Sum (or mean, with mean=True: the scale is applied in the same pass)."""

    name = "sum"
    code = 0

    def grad(self, node, g):
        x = node.inputs[0]
        gx = broadcast_to(self.kept(node, g[0]), x)
        if node.attrs.get("mean", False):
            gx = gx * _inverse_count(node)
        return [gx]


def _inverse_count(node):
    """1 / (number of elements averaged); the count comes from x's shape when the plan is built."""
    x = node.inputs[0]
    return 1.0 / apply(OPS["count"], [x], {"axis": node.attrs.get("axis")})


@register
class Count(Op):
    """How many elements of x lie along `axis` (a scalar of x's dtype); x is not read."""

    name = "count"
    shape_only = (0,)

    def infer(self, x, axis=None):
        normalize_axes(self, axis, len(x[0]), x[0])
        return (), x[1]

    def grad(self, node, g):
        return [None]


class Extremum(Reduction):
    def grad(self, node, g):
        x, y = node.inputs[0], node.outputs[0]
        # The gradient goes to every position equal to the extremum, split evenly.
        mask = cast(equal(x, broadcast_to(self.kept(node, y), x)), x.dtype)
        count = apply(OPS["sum"], [mask], {"axis": node.attrs.get("axis"), "keepdims": True})
        return [broadcast_to(self.kept(node, g[0]), x) * mask / count]


@register
class Max(Extremum):
    name = "max"
    code = 1


@register
class Min(Extremum):
    name = "min"
    code = 2


@register
class Prod(Reduction):
    """Product, a reduction in lanes (csrc/reduce.cpp), not the last entry of a cumprod."""

    name = "prod"
    code = 3

    def grad(self, node, g):
        # d prod / d x_i is the product of the others: y / x_i where x has no zero; with
        # one zero, the product of the nonzeros at the zero and 0 elsewhere; with more, 0.
        # Built from ops (prod included), so that it differentiates again.
        x, axis = node.inputs[0], node.attrs.get("axis")
        zeros = zeros_like(x)
        is_zero = equal(x, zeros)
        nonzero = where(is_zero, zeros + 1.0, x)
        rest = apply(OPS["prod"], [nonzero], {"axis": axis, "keepdims": True})
        count = apply(OPS["sum"], [cast(is_zero, x.dtype)], {"axis": axis, "keepdims": True})
        at_zero = where(equal(count, zeros_like(count) + 1.0), rest, zeros_like(rest))
        elsewhere = where(equal(count, zeros_like(count)), rest / nonzero, zeros)
        share = where(is_zero, broadcast_to(at_zero, x), elsewhere)
        return [broadcast_to(self.kept(node, g[0]), x) * share]


def _reduce(name, x, axis, keepdims, mean=False):
    if x.__class__ is CONSTANT_CLASS[0] and (axis is None or axis.__class__ is int) and \
            keepdims.__class__ is bool:  # an eager tensor: seen before? (graph.EAGER_FAST)
        attrs = _ATTRS.get((axis, keepdims, mean))
        if attrs is None:
            attrs = _ATTRS[(axis, keepdims, mean)] = attrs_key(_attrs(axis, keepdims, mean))
        fast = EAGER_FAST.get((OPS[name], attrs, x.shape, x.dtype))
        out = None if fast is None else fast(x)
        if out is not None:
            return out
    if not isinstance(x, Variable):
        x = as_variable(x, where="mean" if mean else name)
    return apply(OPS[name], [x], _attrs(axis, keepdims, mean))


def _attrs(axis, keepdims, mean):
    attrs = {"axis": axis, "keepdims": bool(keepdims)}
    if mean:
        attrs["mean"] = True
    return attrs


# {(axis: None or an int, keepdims, mean): the attributes _reduce gives its op, as
# graph.EAGER_FAST keys hold them}
_ATTRS = {}


def sum(x, axis=None, keepdims=False):  # noqa: A001
    """Sum over `axis` (an int, a tuple, or None for all)."""
    return _reduce("sum", x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    """Mean over `axis` (an int, a tuple, or None for all).

    Example:
        >>> import numpy as np, paddle as pd
        >>> float(pd.eval(pd.mean(pd.constant([[1.0, 3.0]]))))
        2.0
    """
    return _reduce("sum", x, axis, keepdims, mean=True)


def max(x, axis=None, keepdims=False):  # noqa: A001
    """Largest value over `axis`; the gradient is shared among tied maxima."""
    return _reduce("max", x, axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    """Smallest value over `axis`; the gradient is shared among tied minima."""
    return _reduce("min", x, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    """Product over `axis` (an int, a tuple, or None for all; over nothing: 1); the
    gradient is the product of the other elements, zeros included.

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.ops.reduce import prod
        >>> pd.eval(prod(pd.constant([[1.0, 2.0], [3.0, 0.0]]), axis=1)).tolist()
        [2.0, 0.0]
    """
    return _reduce("prod", x, axis, keepdims)


@register
class ArgMax(Op):
    name = "argmax"

    def infer(self, x, axis=-1):
        if x[1] == "bool":
            raise TypeError("argmax: expected a numeric input, received bool")
        a = normalize_axis(self, axis, len(x[0]), x[0])
        if x[0][a] == 0:
            self.fail(f"empty axis {a}", ("x", x[0]))
        return tuple(d for i, d in enumerate(x[0]) if i != a), "int64"

    def grad(self, node, g):
        return [None]


def argmax(x, axis=-1, keepdims=False):
    """int64 index of the largest value along `axis` (the first on ties); axis=None: the
    index into the flattened x, as NumPy."""
    x = as_variable(x, where="argmax")
    if axis is None:
        out = apply(OPS["argmax"], [reshape(x, [-1])], {"axis": 0})
        return reshape(out, [1] * x.ndim) if keepdims else out
    out = apply(OPS["argmax"], [x], {"axis": axis})
    return expand_dims(out, normalize_axis(OPS["argmax"], axis, x.ndim)) if keepdims else out
