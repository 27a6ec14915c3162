"""Pooling: max_pool2d, avg_pool2d, global_avg_pool2d and their 1-D forms.

Both pools run as NHWC ops (NCHW is transposed around them; 1-D pools are 2-D pools over
a height of 1). Max pooling also outputs where in each window its first maximum was (as
PyTorch breaks ties); its gradient `max_pool2d_grad` routes each window's gradient there,
and that op's own gradient is `max_pool2d_select` and back, so any order works. Average
pooling's gradient spreads it over the window and is linear. With padding="same"
(TensorFlow's rule) padded positions never win a max and are not counted in an average.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
    >>> pd.eval(pd.max_pool2d(x, 2))[0, :, :, 0].tolist()
    [[5.0, 7.0], [13.0, 15.0]]
"""
from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, apply, as_variable
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.conv import (_data_format, _from_nhwc, _to_nhwc, int_pair, out_size,
                                      positive_int, shapes_of)
from paddle.lowlevel.ops.norm import keep_siblings
from paddle.lowlevel.ops.reduce import mean
from paddle.lowlevel.ops.shape import expand_dims, squeeze
from paddle.lowlevel.shapes import located


class PoolOp(Op):
    """Shared shape rule: x (N, H, W, C) -> (N, OH, OW, C)."""

    # Max pooling saves each window's arg-max as an int32 position (kh * pool width + kw).
    saves_positions = False

    def pooled_shape(self, x, pool_size, strides, padding):
        if len(x[0]) != 4:
            self.fail("expected a 4-D input (N, H, W, C)", ("x", x[0]))
        if x[1] not in FLOATS:
            raise TypeError(f"{self.name}: expected a float input, received {x[1]}")
        if self.saves_positions and pool_size[0] * pool_size[1] > 2**31 - 1:
            self.fail(f"the pool window {tuple(pool_size)} has more than 2**31 - 1 positions",
                      ("x", x[0]))
        out = []
        for a in range(2):
            o = out_size(padding, a, x[0][1 + a], pool_size[a], strides[a], 1)
            if o is not None and o < 1:
                self.fail(f"the pool window {tuple(pool_size)} is larger than the input",
                          ("x", x[0]))
            out.append(o)
        return (x[0][0], *out, x[0][3])


@register
class MaxPool2D(PoolOp):
    """y and, per output element, the position of its first maximum in the window (int32)."""

    name = "max_pool2d"
    saves_positions = True

    def infer(self, x, pool_size, strides, padding):
        y = self.pooled_shape(x, pool_size, strides, padding)
        return [(y, x[1]), (y, "int32")]

    def grad(self, node, g):
        if g[0] is None:
            return [None]
        return [apply(OPS["max_pool2d_grad"], [g[0], node.outputs[1], node.inputs[0]],
                      node.attrs)]


@register
class MaxPool2DGrad(PoolOp):
    """dx of max pooling: g at each window's saved arg-max, zero elsewhere (`like` gives
    x's shape; its values are not read)."""

    name = "max_pool2d_grad"
    shape_only = (2,)
    saves_positions = True

    def infer(self, g, where, like, pool_size, strides, padding):
        y = self.pooled_shape(like, pool_size, strides, padding)
        if len(g[0]) != 4 or any(a is not None and b is not None and a != b
                                 for a, b in zip(y, g[0])):
            self.fail("the gradient does not have the pooled shape", ("x", like[0]),
                      ("grad", g[0]))
        return like[0], g[1]

    def grad(self, node, g):
        return [apply(OPS["max_pool2d_select"], [g[0], node.inputs[1]], node.attrs), None, None]


@register
class MaxPool2DSelect(PoolOp):
    """The value of `gg` (x-shaped) at each window's saved arg-max."""

    name = "max_pool2d_select"
    saves_positions = True

    def infer(self, gg, where, pool_size, strides, padding):
        return self.pooled_shape(gg, pool_size, strides, padding), gg[1]

    def grad(self, node, g):
        gg, where = node.inputs
        return [apply(OPS["max_pool2d_grad"], [g[0], where, gg], node.attrs), None]


@register
class AvgPool2D(PoolOp):
    name = "avg_pool2d"

    def infer(self, x, pool_size, strides, padding):
        return self.pooled_shape(x, pool_size, strides, padding), x[1]

    def grad(self, node, g):
        return [apply(OPS["avg_pool2d_grad"], [g[0], node.inputs[0]], node.attrs)]


@register
class AvgPool2DGrad(PoolOp):
    """dx of average pooling (`like` gives x's shape; its values are not read)."""

    name = "avg_pool2d_grad"
    shape_only = (1,)

    def infer(self, g, like, pool_size, strides, padding):
        self.pooled_shape(like, pool_size, strides, padding)
        return like[0], g[1]

    def grad(self, node, g):
        return [apply(OPS["avg_pool2d"], [g[0]], node.attrs), None]


def _pool_attrs(op, pool_size, strides, padding, where):
    with located():
        pool_size = int_pair(pool_size, "pool_size", op, where=where)
        strides = pool_size if strides is None else int_pair(strides, "strides", op,
                                                             where=where)
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(f"{op}: expected padding 'valid' or 'same', received {padding!r}")
    return {"pool_size": pool_size, "strides": strides, "padding": padding.lower()}


def _pool2d(op, x, pool_size, strides, padding, data_format):
    fmt = _data_format(data_format, op)
    x = as_variable(x, where=op)
    attrs = _pool_attrs(op, pool_size, strides, padding, shapes_of(x=x))
    if x.ndim != 4:
        with located():
            OPS[op].fail(f"expected a 4-D input ({fmt})", ("x", x.shape))
    out = apply(OPS[op], [_to_nhwc(x, fmt)], attrs)
    return _from_nhwc(keep_siblings(out) if isinstance(out, list) else out, fmt)


def max_pool2d(x, pool_size, strides=None, padding="valid", data_format="NHWC"):
    """Maximum over each pooling window.

    Args:
        x: float Variable (N, H, W, C) ("NHWC") or (N, C, H, W) ("NCHW").
        pool_size: int or (ph, pw).
        strides: int or (sh, sw); None means pool_size.
        padding: "valid" or "same" (output ceil(in / stride); padding never wins).
        data_format: "NHWC" (default) or "NCHW".

    Returns:
        Variable (N, OH, OW, C) (or NCHW).

    Raises:
        ShapeError: not 4-D, a window larger than the input, sizes or strides below 1.

    Example:
        >>> import paddle as pd
        >>> pd.max_pool2d(pd.data("x", shape=[None, 26, 26, 32]), 2).shape
        (None, 13, 13, 32)
    """
    return _pool2d("max_pool2d", x, pool_size, strides, padding, data_format)


def avg_pool2d(x, pool_size, strides=None, padding="valid", data_format="NHWC"):
    """Mean over each pooling window ("same": over the input elements the window covers).

    Args:
        x: float Variable (N, H, W, C) ("NHWC") or (N, C, H, W) ("NCHW").
        pool_size: int or (ph, pw).
        strides: int or (sh, sw); None means pool_size.
        padding: "valid" or "same".
        data_format: "NHWC" (default) or "NCHW".

    Returns:
        Variable (N, OH, OW, C) (or NCHW).

    Raises:
        ShapeError: not 4-D, a window larger than the input, sizes or strides below 1.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1))
        >>> pd.eval(pd.avg_pool2d(x, 2, padding="same"))[0, :, :, 0].tolist()
        [[2.0, 3.5], [6.5, 8.0]]
    """
    return _pool2d("avg_pool2d", x, pool_size, strides, padding, data_format)


def global_avg_pool2d(x, data_format="NHWC", keepdims=False):
    """Mean over the spatial axes.

    Args:
        x: float Variable (N, H, W, C) ("NHWC") or (N, C, H, W) ("NCHW").
        data_format: "NHWC" (default) or "NCHW".
        keepdims: keep the spatial axes with size 1.

    Returns:
        Variable (N, C), or (N, 1, 1, C) / (N, C, 1, 1) with keepdims.

    Raises:
        ShapeError: x is not 4-D.

    Example:
        >>> import paddle as pd
        >>> pd.global_avg_pool2d(pd.data("x", shape=[None, 7, 7, 64])).shape
        (None, 64)
    """
    fmt = _data_format(data_format, "global_avg_pool2d")
    x = as_variable(x, where="global_avg_pool2d")
    if x.ndim != 4:
        with located():
            raise ShapeError(f"global_avg_pool2d: expected a 4-D input ({fmt}), received "
                             f"shape {x.shape}")
    return mean(x, axis=(1, 2) if fmt == "NHWC" else (2, 3), keepdims=keepdims)


def _pool1d(op, x, pool_size, strides, padding, data_format):
    fmt = _data_format(data_format, op, ("NWC", "NCW"))
    x = as_variable(x, where=op)
    with located():
        k = positive_int(pool_size, "pool_size", op, shapes_of(x=x))
        s = k if strides is None else positive_int(strides, "strides", op, shapes_of(x=x))
    if x.ndim != 3:
        with located():
            raise ShapeError(f"{op}: expected a 3-D input ({fmt}), received shape {x.shape}")
    two_d = "max_pool2d" if op.startswith("max") else "avg_pool2d"
    if fmt == "NWC":
        return squeeze(_pool2d(two_d, expand_dims(x, 1), (1, k), (1, s), padding, "NHWC"), 1)
    return squeeze(_pool2d(two_d, expand_dims(x, 2), (1, k), (1, s), padding, "NCHW"), 2)


def max_pool1d(x, pool_size=2, strides=None, padding="valid", data_format="NWC"):
    """Maximum over windows of a batch of sequences (through the 2-D kernel).

    Args:
        x: float Variable (N, W, C) ("NWC") or (N, C, W) ("NCW").
        pool_size: int; strides: int or None (pool_size); padding: "valid" or "same".

    Returns:
        Variable (N, OW, C) (or NCW).

    Raises:
        ShapeError: not 3-D, or a window larger than the input.

    Example:
        >>> import paddle as pd
        >>> pd.max_pool1d(pd.data("s", shape=[None, 10, 4]), 3).shape
        (None, 3, 4)
    """
    return _pool1d("max_pool1d", x, pool_size, strides, padding, data_format)


def avg_pool1d(x, pool_size=2, strides=None, padding="valid", data_format="NWC"):
    """Mean over windows of a batch of sequences (through the 2-D kernel).

    Args:
        x: float Variable (N, W, C) ("NWC") or (N, C, W) ("NCW").
        pool_size: int; strides: int or None (pool_size); padding: "valid" or "same".

    Returns:
        Variable (N, OW, C) (or NCW).

    Raises:
        ShapeError: not 3-D, or a window larger than the input.

    Example:
        >>> import paddle as pd
        >>> pd.avg_pool1d(pd.data("s", shape=[None, 10, 4]), 2, padding="same").shape
        (None, 5, 4)
    """
    return _pool1d("avg_pool1d", x, pool_size, strides, padding, data_format)
