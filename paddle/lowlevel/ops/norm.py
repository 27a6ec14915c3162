"""Normalization: batch_norm (a kernel with batch or moving statistics) and layer_norm
(composed from primitives, so every order of gradient works).

batch_norm's graph is the same for training and inference: its kernel reads
`ctx.training` when a plan is built. The op has two extra outputs, the mean and inverse
standard deviation it used, which `batch_norm_grad` reads; its kernel also branches on
`ctx.training` (batch statistics depend on x, moving ones do not).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32))
    >>> ones, zeros = pd.constant(np.ones(2, np.float32)), pd.constant(np.zeros(2, np.float32))
    >>> mm = pd.Variable("mm", shape=[2], initializer="zeros", trainable=False)
    >>> mv = pd.Variable("mv", shape=[2], initializer="ones", trainable=False)
    >>> y = pd.batch_norm(x, ones, zeros, mm, mv, epsilon=0.0)
    >>> pd.eval(y, training=True).tolist(), [round(float(v), 2) for v in mm.val()]
    ([[-1.0, -1.0], [1.0, 1.0]], [0.02, 0.04])
"""
import math
import numbers
from types import SimpleNamespace

import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, apply, as_variable, constant
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import sqrt, square
from paddle.lowlevel.ops.reduce import mean
from paddle.lowlevel.ops.shape import reshape
from paddle.lowlevel.shapes import located, normalize_axes, normalize_axis


def keep_siblings(outputs):
    """Let the first output hold the others: a node keeps its outputs only weakly, and
    the gradient rule needs the saved ones (statistics, masks) as long as the first lives."""
    outputs[0]._siblings = tuple(outputs[1:])
    return outputs[0]


def check_epsilon(epsilon, where):
    """epsilon as a float, finite and >= 0: a negative or NaN one makes every output NaN."""
    if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool) or \
            not 0 <= epsilon < math.inf:
        raise ValueError(f"{where}: expected epsilon >= 0 (a finite number), received "
                         f"{epsilon!r}")
    return float(epsilon)


def check_momentum(momentum, where):
    """momentum as a float in [0, 1]: outside it the moving statistics diverge."""
    if not isinstance(momentum, numbers.Real) or isinstance(momentum, bool) or \
            not 0 <= momentum <= 1:
        raise ValueError(f"{where}: expected momentum in [0, 1], received {momentum!r}")
    return float(momentum)


def _channel_params(op, x, params, labels, c):
    """Each parameter must be a float vector of x's channel count c and dtype."""
    for (shape, dtype), label in zip(params, labels):
        if dtype != x[1]:
            op.fail(f"expected {label} of dtype {x[1]}, received {dtype}", ("x", x[0]),
                    (label, shape))
        if len(shape) != 1 or (c is not None and shape[0] is not None and shape[0] != c):
            op.fail(f"expected {label} of shape ({c},), one value per channel", ("x", x[0]),
                    (label, shape))


@register
class BatchNorm(Op):
    name = "batch_norm"
    writes_inputs = True  # the moving statistics, in training

    def infer(self, x, scale, offset, moving_mean, moving_variance, momentum, epsilon, axis):
        if x[1] not in FLOATS:
            raise TypeError(f"batch_norm: expected a float input, received {x[1]}")
        a = normalize_axis(self, axis, len(x[0]), x[0])
        c = x[0][a]
        _channel_params(self, x, [scale, offset, moving_mean, moving_variance],
                        ["scale", "offset", "moving_mean", "moving_variance"], c)
        return [x, ((c,), x[1]), ((c,), x[1])]

    def grad(self, node, g):
        if g[0] is None:
            return [None] * 5
        x, scale = node.inputs[:2]
        _, saved_mean, saved_inv_std = node.outputs
        dx, dscale, doffset = apply(OPS["batch_norm_grad"],
                                    [x, scale, saved_mean, saved_inv_std, g[0]],
                                    {"axis": node.attrs["axis"]})
        return [dx, dscale, doffset, None, None]


@register
class BatchNormGrad(Op):
    """dx, dscale, doffset of batch_norm from the statistics its forward used."""

    name = "batch_norm_grad"

    def infer(self, x, scale, mean, inv_std, g, axis):
        if len(g[0]) != len(x[0]) or any(a is not None and b is not None and a != b
                                         for a, b in zip(g[0], x[0])):
            self.fail("the gradient does not have the input's shape", ("x", x[0]), ("grad", g[0]))
        return [x, scale, scale]

    def grad(self, node, g):
        raise NotImplementedError("batch_norm: second-order gradients are not implemented")


def _vector(value, c, like, what, op):
    if value is not None:
        return as_variable(value, like=like, where=op)
    if c is None:
        raise ShapeError(f"{op}: {what}=None needs a known channel count, input shape is "
                         f"{like.shape}")
    return constant(np.full(c, 1.0 if what == "scale" else 0.0), dtype=like.dtype)


def batch_norm(x, scale, offset, moving_mean, moving_variance, momentum=0.99, epsilon=1e-3,
               axis=-1):
    """Batch normalization over every axis but `axis`, as Keras's BatchNormalization.

    In a training run (`pd.eval(..., training=True)`) it normalizes with the batch's mean
    and (biased) variance and updates the moving statistics in place:
    `moving = moving * momentum + batch * (1 - momentum)`. Otherwise it uses the moving
    statistics. Gradients flow to x, scale and offset.

    Args:
        x: float Variable of any rank >= 1.
        scale, offset: Variables (C,) with C = x.shape[axis] (None: ones / zeros).
        moving_mean, moving_variance: parameters (C,) (pd.Variable, trainable=False),
            updated in place by training runs.
        momentum: weight of the old moving statistics.
        epsilon: added to the variance.
        axis: the channel axis (-1 for NHWC, 1 for NCHW).

    Returns:
        Variable shaped like x.

    Raises:
        ShapeError: a parameter is not a (C,) vector of x's dtype, or axis out of range.
        ValueError (at eval): a training run with moving statistics that are not
            writable parameters.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.data("x", shape=[None, 4, 4, 8])
        >>> mm = pd.Variable("bn_mean", shape=[8], initializer="zeros", trainable=False)
        >>> mv = pd.Variable("bn_var", shape=[8], initializer="ones", trainable=False)
        >>> pd.batch_norm(x, None, None, mm, mv).shape
        (None, 4, 4, 8)
    """
    x = as_variable(x, where="batch_norm")
    momentum = check_momentum(momentum, "batch_norm")
    epsilon = check_epsilon(epsilon, "batch_norm")
    with located():
        a = normalize_axis(OPS["batch_norm"], axis, x.ndim, x.shape)
    c = x.shape[a]
    scale = _vector(scale, c, x, "scale", "batch_norm")
    offset = _vector(offset, c, x, "offset", "batch_norm")
    moving_mean = as_variable(moving_mean, like=x, where="batch_norm")
    moving_variance = as_variable(moving_variance, like=x, where="batch_norm")
    outs = apply(OPS["batch_norm"], [x, scale, offset, moving_mean, moving_variance],
                 {"momentum": momentum, "epsilon": epsilon, "axis": a})
    return keep_siblings(outs)


def layer_norm(x, scale, offset, axis=-1, epsilon=1e-3):
    """Layer normalization: each example normalized over `axis`, as Keras's
    LayerNormalization (composed from primitives: gradients of any order).

    Args:
        x: float Variable.
        scale, offset: Variables shaped like x's `axis` dims (None: ones / zeros).
        axis: int or list of ints, the normalized axes.
        epsilon: added to the variance.

    Returns:
        Variable shaped like x.

    Raises:
        ShapeError: axis out of range, or scale/offset not shaped like the normalized axes.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.array([[1.0, 3.0]], np.float32))
        >>> pd.eval(pd.layer_norm(x, None, None, epsilon=0.0)).tolist()
        [[-1.0, 1.0]]
    """
    x = as_variable(x, where="layer_norm")
    epsilon = check_epsilon(epsilon, "layer_norm")
    with located():
        if x.dtype not in FLOATS:
            raise TypeError(f"layer_norm: expected a float input, received {x.dtype}")
        axes = normalize_axes(SimpleNamespace(name="layer_norm"), axis, x.ndim, x.shape)
        if not axes:
            raise ShapeError(f"layer_norm: expected at least one axis to normalize, received "
                             f"{axis!r}")
    param_shape = tuple(x.shape[a] for a in axes)
    # Parameters broadcast against x from the first normalized axis on.
    target = tuple(x.shape[i] if i in axes else 1 for i in range(axes[0], x.ndim))
    params = []
    for value, what in ((scale, "scale"), (offset, "offset")):
        if value is None:
            params.append(None)
            continue
        v = as_variable(value, like=x, where="layer_norm")
        if v.shape != param_shape:
            with located():
                raise ShapeError(f"layer_norm: expected {what} of shape {param_shape} (the "
                                 f"normalized axes {list(axes)}), received {v.shape}; x is "
                                 f"{x.shape}")
        params.append(v if target == param_shape else reshape(v, target))
    mu = mean(x, axis=axes, keepdims=True)
    centered = x - mu
    y = centered / sqrt(mean(square(centered), axis=axes, keepdims=True) + epsilon)
    if params[0] is not None:
        y = y * params[0]
    if params[1] is not None:
        y = y + params[1]
    return y
