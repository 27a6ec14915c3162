"""Activations. softmax and log_softmax have kernels of their own, and so has logsumexp over
the last axis (the reduction that shares their row loop); the rest are built from
primitives (their gradients come from those primitives' rules).

Example:
    >>> import numpy as np, paddle as pd
    >>> p = pd.eval(pd.softmax(pd.constant([[0.0, 0.0]])))
    >>> p.tolist()
    [[0.5, 0.5]]
"""

from paddle.errors import at_user
from paddle.lowlevel.graph import FLOATS, apply, as_variable
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import (exp, greater, log1p, maximum, minimum, relu,
                                      sigmoid, tanh, where)
from paddle.lowlevel.ops import special
from paddle.lowlevel.ops.reduce import sum
from paddle.lowlevel.ops.shape import expand_dims, transpose
from paddle.lowlevel.shapes import located, normalize_axis, real_number

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "leaky_relu", "elu", "gelu",
           "softplus", "silu"]


class RowSoftmax(Op):
    """Softmax family over the last axis (other axes go through a transpose)."""

    def infer(self, x):
        if x[1] not in FLOATS:
            raise TypeError(f"{self.name}: expected a float input, received {x[1]}")
        if len(x[0]) < 1 or x[0][-1] == 0:
            self.fail("expected a non-empty last axis", ("x", x[0]))
        return x


@register
class Softmax(RowSoftmax):
    name = "softmax"

    def grad(self, node, g):
        y = node.outputs[0]
        return [y * (g[0] - sum(g[0] * y, axis=-1, keepdims=True))]


@register
class LogSoftmax(RowSoftmax):
    name = "log_softmax"

    def grad(self, node, g):
        y = node.outputs[0]
        return [g[0] - exp(y) * sum(g[0], axis=-1, keepdims=True)]


@register
class LogSumExp(Op):
    """log(sum(exp(x))) over the last axis, one pass per row (csrc/softmax.cpp)."""

    name = "logsumexp"

    def infer(self, x):
        if x[1] not in FLOATS:
            raise TypeError(f"{self.name}: expected a float input, received {x[1]}")
        if len(x[0]) < 1 or x[0][-1] == 0:
            self.fail("expected a non-empty last axis", ("x", x[0]))
        return tuple(x[0][:-1]), x[1]

    def grad(self, node, g):
        x = node.inputs[0]
        return [expand_dims(g[0], x.ndim - 1) * apply(OPS["softmax"], [x])]


def logsumexp(x):
    """log(sum(exp(x))) over the last axis, computed stably (shifted by the row's maximum,
    by 0 where that is infinite); the gradient is softmax(x).

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.lowlevel.ops.activations import logsumexp
        >>> pd.eval(logsumexp(pd.constant(np.zeros((2, 4))))).round(6).tolist()
        [1.386294, 1.386294]
    """
    return apply(OPS["logsumexp"], [as_variable(x, where="logsumexp")])


def _on_axis(name, x, axis):
    x = as_variable(x, where=name)
    with located():
        a = normalize_axis(OPS[name], axis, x.ndim, x.shape)
    if a == x.ndim - 1:
        return apply(OPS[name], [x])
    perm = list(range(x.ndim))
    perm[a], perm[-1] = perm[-1], perm[a]
    return transpose(apply(OPS[name], [transpose(x, perm)]), perm)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`, computed stably."""
    return _on_axis("softmax", x, axis)


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`, computed stably."""
    return _on_axis("log_softmax", x, axis)


def _float_input(name, x):
    x = as_variable(x, where=name)
    if x.dtype not in FLOATS:
        raise TypeError(at_user(f"{name}: expected a float32 or float64 input, received "
                                f"{x.dtype} (cast it with pd.cast)"))
    return x


def leaky_relu(x, negative_slope=0.2):
    """x where x > 0, else negative_slope * x (Keras' default slope 0.2)."""
    x = _float_input("leaky_relu", x)
    negative_slope = real_number(negative_slope, "negative_slope", "leaky_relu")
    return where(greater(x, 0.0), x, x * negative_slope)


def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = _float_input("elu", x)
    alpha = real_number(alpha, "alpha", "elu")
    # exp of min(x, 0) keeps the unused branch finite, so its gradient never makes NaN.
    return where(greater(x, 0.0), x, (exp(minimum(x, 0.0)) - 1.0) * alpha)


def gelu(x, approximate=False):
    """x * Phi(x) (exact, with erf), or the tanh approximation: one elementwise op each
    (`special.gelu_erf`, `special.gelu_tanh`), its gradient built from ops."""
    x = _float_input("gelu", x)
    return special.gelu_tanh(x) if approximate else special.gelu_erf(x)


def softplus(x):
    """log(1 + exp(x)), stable for large |x|."""
    x = _float_input("softplus", x)
    # One smooth branch per side. The form relu(x) + log1p(exp(-|x|)) has kinks at 0 whose
    # subgradients add up to 0 there instead of sigmoid(0) = 0.5. Clamping the exponent in
    # each branch keeps the unused one finite, so its zero gradient never makes NaN.
    x = as_variable(x, where="softplus")
    return where(greater(x, 0.0), x + log1p(exp(-maximum(x, 0.0))),
                 log1p(exp(minimum(x, 0.0))))


def silu(x):
    """x * sigmoid(x) (also called swish)."""
    x = _float_input("silu", x)
    return x * sigmoid(x)
