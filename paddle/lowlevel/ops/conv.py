"""Convolutions: conv2d, its two gradients as ops, conv2d_transpose and conv1d.

Every convolution runs as one NHWC op, `conv2d`, and its two adjoints,
`conv2d_backprop_input` (the gradient of the input, which is also the transposed
convolution) and `conv2d_backprop_filter`. Each adjoint's gradient is again one of the
three, so gradients of any order exist. NCHW inputs are transposed around the NHWC op;
1-D convolutions are 2-D ones over a height of 1.

Filters are `(kh, kw, in_channels // groups, out_channels)` as in Keras; padding is
"valid", "same" (TensorFlow's rule: output size ceil(in / stride), the odd pad at the
bottom/right), an int, or explicit pairs ((top, bottom), (left, right)).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 28, 28, 1])
    >>> w = pd.Variable("w", shape=[3, 3, 1, 8])
    >>> pd.conv2d(x, w).shape, pd.conv2d(x, w, strides=2, padding="same").shape
    ((None, 26, 26, 8), (None, 14, 14, 8))
"""
from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, apply, as_variable
from paddle.lowlevel.op import OPS, Op, fmt_shape, register
from paddle.lowlevel.ops.math import broadcast_to
from paddle.lowlevel.ops.shape import expand_dims, squeeze, transpose
from paddle.lowlevel.shapes import axis_pads, is_int, located

# ---- geometry shared with pooling -----------------------------------------------------


def int_pair(value, what, op, minimum=1, where=""):
    """(a, b) from an int or a pair of ints, each >= minimum; ShapeError naming the op (and
    `where`, the operands' shapes)."""
    pair = (value, value) if is_int(value) else tuple(value) \
        if isinstance(value, (tuple, list)) else None
    if pair is None or len(pair) != 2 or not all(is_int(v) and v >= minimum for v in pair):
        raise ShapeError(f"{op}: expected {what} as an int >= {minimum} or a pair of them, "
                         f"received {value!r}" + (f"; {where}" if where else ""))
    return tuple(int(v) for v in pair)


def positive_int(value, what, op, where=""):
    """An int >= 1 (or a 1-tuple of one) for 1-D windows; ShapeError naming the op."""
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if not is_int(value) or value < 1:
        raise ShapeError(f"{op}: expected {what} as an int >= 1, received {value!r}"
                         + (f"; {where}" if where else ""))
    return int(value)


def conv_padding(padding, op):
    """'valid', 'same' or ((top, bottom), (left, right)) from what users write."""
    if isinstance(padding, str):
        if padding.lower() in ("valid", "same"):
            return padding.lower()
        raise ValueError(f"{op}: expected padding 'valid', 'same', an int or pairs, "
                         f"received {padding!r}")
    if is_int(padding):
        pairs = ((int(padding), int(padding)), (int(padding), int(padding)))
    else:
        try:
            pairs = tuple(tuple(p) if isinstance(p, (tuple, list)) else (p, p) for p in padding)
        except TypeError:
            pairs = ()
    if len(pairs) != 2 or not all(len(p) == 2 and all(is_int(v) and v >= 0 for v in p)
                                  for p in pairs):
        raise ValueError(f"{op}: expected padding 'valid', 'same', an int >= 0 or pairs "
                         f"((top, bottom), (left, right)) of ints >= 0, received {padding!r}")
    return tuple(tuple(int(v) for v in p) for p in pairs)


def out_size(padding, axis, size, k, stride, dilation):
    """Output length of a window sweep, None if unknown; < 1 when the window does not fit."""
    if size is None:
        return None
    if padding == "same":
        return -(-size // stride)
    before, after = axis_pads(padding, axis, size, k, stride, dilation)
    return (size + before + after - (k - 1) * dilation - 1) // stride + 1


def transposed_size(padding, axis, size, k, stride, dilation):
    """Keras's output length of a transposed convolution over an input of `size`."""
    if size is None:
        return None
    eff = (k - 1) * dilation + 1
    if padding == "valid":
        return size * stride + max(eff - stride, 0)
    if padding == "same":
        return size * stride
    before, after = padding[axis]
    return (size - 1) * stride + eff - before - after


def _check_float_pair(op, a, b, labels):
    if a[1] not in FLOATS or a[1] != b[1]:
        op.fail(f"expected float inputs of one dtype, received {a[1]} and {b[1]}",
                (labels[0], a[0]), (labels[1], b[0]))


def _check_ranks(op, specs, labels):
    for (shape, _), label in zip(specs, labels):
        if len(shape) != 4:
            op.fail(f"expected {label} of rank 4", *[(lb, s[0]) for lb, s in zip(labels, specs)])


# ---- the three ops ----------------------------------------------------------------------

class ConvOp(Op):
    """Shared checks of the NHWC convolution and its adjoints."""

    def spatial_out(self, hw, kernel_hw, strides, padding, dilation, operands):
        out = []
        for axis in range(2):
            what = "height" if axis == 0 else "width"
            k, s, d = kernel_hw[axis], strides[axis], dilation[axis]
            o = out_size(padding, axis, hw[axis], k, s, d)
            if o is not None and o < 1:
                self.fail(f"the {what} of the window ({(k - 1) * d + 1}) is larger than the "
                          f"padded input", *operands)
            if o is not None and k is not None:
                # The kernels compute input coordinates out * stride - pad + tap * dilation
                # in int64: a geometry beyond that would wrap around.
                before, after = axis_pads(padding, axis, hw[axis], k, s, d)
                if o * s + k * d + before + after >= 2**62:
                    self.fail(f"the {what} geometry (stride {s}, dilation {d}, padding "
                              f"{(before, after)}) is too large for 64-bit coordinates",
                              *operands)
            out.append(o)
        return tuple(out)

    def check_channels(self, c_in, filters, groups, operands):
        f = filters
        # A zero-size filter axis or no input channels: nothing to convolve (the kernels
        # need at least one of each).
        if 0 in f or c_in == 0:
            self.fail("expected filters and an input channel axis of sizes >= 1", *operands)
        if f[3] is not None and f[3] % groups:
            self.fail(f"{f[3]} output channels are not divisible by groups={groups}", *operands)
        if c_in is not None and f[2] is not None and c_in != f[2] * groups:
            self.fail(f"the input has {c_in} channels but the filters expect "
                      f"{f[2]} x groups={groups}", *operands)


@register
class Conv2D(ConvOp):
    """y = conv(x, filters) (+ bias, added by the kernel as it writes y, when given)."""

    name = "conv2d"

    def infer(self, x, f, *bias, strides, padding, dilation, groups):
        operands = [("x", x[0]), ("filters", f[0])] + [("bias", b[0]) for b in bias]
        _check_ranks(self, [x, f], ["x", "filters"])
        _check_float_pair(self, x, f, ["x", "filters"])
        if bias and (bias[0][1] != x[1] or len(bias[0][0]) != 1 or
                     not _known_equal(bias[0][0][0], f[0][3])):
            self.fail(f"expected a bias of shape ({f[0][3]},) and dtype {x[1]}", *operands)
        self.check_channels(x[0][3], f[0], groups, operands)
        oh, ow = self.spatial_out(x[0][1:3], f[0][:2], strides, padding, dilation, operands)
        return (x[0][0], oh, ow, f[0][3]), x[1]

    def grad(self, node, g):
        x, f = node.inputs[:2]
        # The filters' gradient op also sums the bias's, while it holds each block of g.
        return [_backprop_input(g[0], f, node.attrs, like=x)] + \
            _backprop_filter(x, g[0], node.inputs[1:], node.attrs)


@register
class Conv2DBackpropInput(ConvOp):
    """The input-shaped adjoint of conv2d: the gradient of its input, and conv2d_transpose.

    The input size comes from `like` (the forward input) when given, else from
    `input_hw` (known sizes; None entries follow Keras's transposed-convolution rule)."""

    name = "conv2d_backprop_input"

    def infer(self, g, f, *like, strides, padding, dilation, groups, input_hw=(None, None)):
        operands = [("grad", g[0]), ("filters", f[0])]
        _check_ranks(self, [g, f], ["grad", "filters"])
        _check_float_pair(self, g, f, ["grad", "filters"])
        if g[0][3] is not None and f[0][3] is not None and g[0][3] != f[0][3]:
            self.fail(f"the input has {g[0][3]} channels but the filters produce {f[0][3]}",
                      *operands)
        if 0 in f[0]:
            self.fail("expected filters of sizes >= 1", *operands)
        if like:
            hw = like[0][0][1:3]
        else:
            hw = tuple(input_hw[a] if input_hw[a] is not None else transposed_size(
                padding, a, g[0][1 + a], f[0][a], strides[a], dilation[a]) for a in range(2))
        if any(d is not None and d < 1 for d in hw):
            self.fail(f"the output size {hw} is not positive", *operands)
        out = self.spatial_out(hw, f[0][:2], strides, padding, dilation,
                               operands + [("output", hw)])
        for a in range(2):
            if out[a] is not None and g[0][1 + a] is not None and out[a] != g[0][1 + a]:
                self.fail(f"an output of size {hw} convolves to {out}, not to the input's "
                          f"{g[0][1:3]}", *operands)
        c = None if f[0][2] is None else f[0][2] * groups
        return (g[0][0],) + hw + (c,), g[1]

    def grad(self, node, g):
        dy, f = node.inputs[:2]
        gf = _backprop_filter(g[0], dy, [f], node.attrs)[0]
        return [conv2d_nhwc(g[0], f, node.attrs), gf, None][:len(node.inputs)]


@register
class Conv2DBackpropFilter(ConvOp):
    """The filter-shaped adjoint of conv2d (`like` gives the filters' shape); with a
    second `like` (the bias), also the bias's gradient, the sum of g over N, H, W."""

    name = "conv2d_backprop_filter"

    def infer(self, x, g, like, *like_bias, strides, padding, dilation, groups):
        operands = [("x", x[0]), ("grad", g[0]), ("filters", like[0])]
        _check_ranks(self, [x, g, like], ["x", "grad", "filters"])
        _check_float_pair(self, x, g, ["x", "grad"])
        self.check_channels(x[0][3], like[0], groups, operands)
        out = self.spatial_out(x[0][1:3], like[0][:2], strides, padding, dilation, operands)
        if any(o is not None and d is not None and o != d for o, d in zip(out, g[0][1:3])):
            self.fail("the gradient does not have the convolution's output size", *operands)
        if like_bias:
            return [(like[0], x[1]), (like_bias[0][0], x[1])]
        return like[0], x[1]

    def grad(self, node, g):
        x, dy = node.inputs[:2]
        gw, gb = g[0], g[1] if len(g) > 1 else None
        gx = None if gw is None else _backprop_input(dy, gw, node.attrs, like=x)
        if gw is not None:
            gdy = conv2d_nhwc(x, gw, node.attrs, bias=gb)
        else:
            gdy = None if gb is None else broadcast_to(gb, dy)
        return [gx, gdy] + [None] * (len(node.inputs) - 2)


@register
class Conv2DTranspose(Conv2DBackpropInput):
    """conv2d_transpose: the same op as conv2d_backprop_input under the name users called."""

    name = "conv2d_transpose"


def _attrs(attrs):
    return {k: attrs[k] for k in ("strides", "padding", "dilation", "groups")}


def _known_equal(a, b):
    return a is None or b is None or a == b


def conv2d_nhwc(x, f, attrs, bias=None):
    return apply(OPS["conv2d"], [x, f] + ([bias] if bias is not None else []), _attrs(attrs))


def _backprop_input(g, f, attrs, like=None, input_hw=(None, None)):
    if like is not None:
        return apply(OPS["conv2d_backprop_input"], [g, f, like], _attrs(attrs))
    return apply(OPS["conv2d_transpose"], [g, f], {**_attrs(attrs), "input_hw": input_hw})


def _backprop_filter(x, g, likes, attrs):
    """[dfilters] or [dfilters, dbias] for `likes` [filters] or [filters, bias]."""
    out = apply(OPS["conv2d_backprop_filter"], [x, g, *likes], _attrs(attrs))
    return out if isinstance(out, list) else [out]


# ---- public functions -----------------------------------------------------------------

def _data_format(data_format, op, options=("NHWC", "NCHW")):
    if not isinstance(data_format, str) or data_format.upper() not in options:
        raise ValueError(f"{op}: expected data_format {' or '.join(map(repr, options))}, "
                         f"received {data_format!r}")
    return data_format.upper()


def _to_nhwc(x, data_format):
    return x if data_format in ("NHWC", "NWC") else transpose(x, (0, 2, 3, 1))


def _from_nhwc(y, data_format):
    return y if data_format in ("NHWC", "NWC") else transpose(y, (0, 3, 1, 2))


def shapes_of(**variables):
    """'x is (None, 8), filters is (3, 3)': the operands, for error messages."""
    return ", ".join(f"{k} is {fmt_shape(v.shape)}" for k, v in variables.items())


def _conv_attrs(op, strides, padding, dilation, groups, where):
    with located():
        strides = int_pair(strides, "strides", op, where=where)
        dilation = int_pair(dilation, "dilation", op, where=where)
        if not is_int(groups) or groups < 1:
            raise ShapeError(f"{op}: expected groups as an int >= 1, received {groups!r}; "
                             f"{where}")
    return {"strides": strides, "padding": conv_padding(padding, op), "dilation": dilation,
            "groups": int(groups)}


def conv2d(x, filters, strides=1, padding="valid", dilation=1, groups=1, data_format="NHWC",
           bias=None):
    """2-D convolution (cross-correlation, as in every framework) of a batch of images.

    Args:
        x: float Variable (N, H, W, C) for "NHWC", (N, C, H, W) for "NCHW".
        filters: Variable (kh, kw, C // groups, out_channels).
        strides: int or (sh, sw), >= 1.
        padding: "valid", "same" (output ceil(in / stride)), an int, or
            ((top, bottom), (left, right)).
        dilation: int or (dh, dw), >= 1.
        groups: channel groups; groups == C with one filter per channel is depthwise.
        data_format: "NHWC" (default) or "NCHW".
        bias: optional Variable (out_channels,), added as the kernel writes the output
            (as PyTorch's conv2d): one pass over the output less than `conv2d(...) + b`,
            and its gradient is summed while the filters' is computed.

    Returns:
        Variable (N, OH, OW, out_channels) (NCHW: (N, out_channels, OH, OW)).

    Raises:
        ShapeError: wrong ranks, channel counts that do not match the filters, a window
            larger than the padded input, or strides/dilation/groups below 1.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.ones((1, 4, 4, 1), np.float32))
        >>> w = pd.constant(np.ones((3, 3, 1, 1), np.float32))
        >>> pd.eval(pd.conv2d(x, w, padding="same"))[0, :, :, 0].tolist()[0]
        [4.0, 6.0, 6.0, 4.0]
    """
    fmt = _data_format(data_format, "conv2d")
    x = as_variable(x, where="conv2d")
    filters = as_variable(filters, like=x, where="conv2d")
    attrs = _conv_attrs("conv2d", strides, padding, dilation, groups,
                        shapes_of(x=x, filters=filters))
    if x.ndim != 4:
        with located():
            OPS["conv2d"].fail(f"expected a 4-D input ({fmt})", ("x", x.shape),
                               ("filters", filters.shape))
    bias = None if bias is None else as_variable(bias, like=x, where="conv2d")
    return _from_nhwc(conv2d_nhwc(_to_nhwc(x, fmt), filters, attrs, bias), fmt)


def conv2d_transpose(x, filters, output_shape=None, strides=1, padding="valid", dilation=1,
                     data_format="NHWC", bias=None):
    """Transposed 2-D convolution (the gradient of conv2d with respect to its input), as
    Keras's Conv2DTranspose.

    Args:
        x: float Variable (N, H, W, C) ("NHWC") or (N, C, H, W) ("NCHW").
        filters: Variable (kh, kw, out_channels, C), Keras's Conv2DTranspose kernel layout.
        output_shape: None (Keras's rule: "valid" gives in * stride + max(k - stride, 0),
            "same" gives in * stride), (OH, OW), or a full 4-D shape of which the spatial
            sizes are used.
        strides, padding, dilation, data_format: as in conv2d, describing the forward
            convolution this op transposes.
        bias: optional Variable (out_channels,) added to the output.

    Returns:
        Variable (N, OH, OW, out_channels) (NCHW: channels second).

    Raises:
        ShapeError: wrong ranks, a channel mismatch, or an output_shape whose convolution
            does not give back the input size.

    Example:
        >>> import paddle as pd
        >>> x = pd.data("x", shape=[None, 7, 7, 16])
        >>> w = pd.Variable("wt", shape=[3, 3, 8, 16])
        >>> pd.conv2d_transpose(x, w, strides=2, padding="same").shape
        (None, 14, 14, 8)
    """
    op = "conv2d_transpose"
    fmt = _data_format(data_format, op)
    x = as_variable(x, where=op)
    filters = as_variable(filters, like=x, where=op)
    attrs = _conv_attrs(op, strides, padding, dilation, 1, shapes_of(x=x, filters=filters))
    hw = (None, None)
    if output_shape is not None:
        shape = tuple(output_shape)
        if len(shape) == 4:
            shape = shape[1:3] if fmt == "NHWC" else shape[2:4]
        if len(shape) != 2 or not all(isinstance(d, int) and d >= 1 for d in shape):
            raise ValueError(f"{op}: expected output_shape (OH, OW) or a 4-D shape, received "
                             f"{output_shape!r}")
        hw = tuple(shape)
    if x.ndim != 4:
        with located():
            OPS[op].fail(f"expected a 4-D input ({fmt})",
                                              ("x", x.shape), ("filters", filters.shape))
    y = _backprop_input(_to_nhwc(x, fmt), filters, attrs, input_hw=hw)
    if bias is not None:
        y = y + as_variable(bias, like=x, where=op)
    return _from_nhwc(y, fmt)


def _padding_1d(padding, k, dilation, op):
    """1-D padding as conv2d padding over a height of 1 ('causal' pads left only)."""
    if isinstance(padding, str) and padding.lower() == "causal":
        return ((0, 0), ((k - 1) * dilation, 0))
    if isinstance(padding, str):
        return conv_padding(padding, op)
    if isinstance(padding, int) and not isinstance(padding, bool):
        return conv_padding(((0, 0), (padding, padding)), op)
    return conv_padding(((0, 0), tuple(padding)), op)


def conv1d(x, filters, strides=1, padding="valid", dilation=1, groups=1, data_format="NWC",
           bias=None):
    """1-D convolution of a batch of sequences, through the 2-D kernel.

    Args:
        x: float Variable (N, W, C) ("NWC") or (N, C, W) ("NCW").
        filters: Variable (k, C // groups, out_channels).
        strides, dilation: ints >= 1.
        padding: "valid", "same", "causal" (left only, as Keras), an int or (left, right).
        groups: channel groups.
        bias: optional Variable (out_channels,), fused as in conv2d.

    Returns:
        Variable (N, OW, out_channels) (NCW: (N, out_channels, OW)).

    Raises:
        ShapeError: wrong ranks, a channel mismatch, or a window larger than the input.

    Example:
        >>> import paddle as pd
        >>> x = pd.data("seq", shape=[None, 10, 4])
        >>> pd.conv1d(x, pd.Variable("k1", shape=[3, 4, 6]), padding="causal").shape
        (None, 10, 6)
    """
    op = "conv1d"
    fmt = _data_format(data_format, op, ("NWC", "NCW"))
    x = as_variable(x, where=op)
    filters = as_variable(filters, like=x, where=op)
    if x.ndim != 3 or filters.ndim != 3:
        with located():
            raise ShapeError(f"{op}: expected a 3-D input ({fmt}) and 3-D filters (k, in, out): "
                             f"x is {x.shape}, filters is {filters.shape}")
    where = shapes_of(x=x, filters=filters)
    with located():
        s = positive_int(strides, "strides", op, where)
        d = positive_int(dilation, "dilation", op, where)
    pad = _padding_1d(padding, filters.shape[0], d, op)
    attrs = _conv_attrs(op, (1, s), pad, (1, d), groups, where)
    x4 = expand_dims(x, 1) if fmt == "NWC" else expand_dims(x, 2)  # NHWC / NCHW, H = 1
    bias = None if bias is None else as_variable(bias, like=x, where=op)
    y = conv2d_nhwc(_to_nhwc(x4, "NHWC" if fmt == "NWC" else "NCHW"), expand_dims(filters, 0),
                    attrs, bias)
    return squeeze(y, 1) if fmt == "NWC" else squeeze(_from_nhwc(y, "NCHW"), 2)
