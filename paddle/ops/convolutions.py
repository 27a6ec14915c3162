"""Keras's convolution and pooling functions of `keras.ops.nn`, on paddle's conv/pool ops.

Every function here is a composition of existing ops (conv2d and its adjoint, the 2-D
pools, reshape, transpose, slice, gather, matmul), so each has the CPU and CUDA kernels
and the gradients of those ops. Keras's layouts throughout: inputs (batch, spatial...,
channels) for data_format "channels_last" (None: `pd.config.image_data_format()`, as
Keras's, "channels_last" unless set), (batch, channels, spatial...) for "channels_first";
kernels (spatial..., in_channels // groups, out_channels), transposed kernels
(spatial..., out_channels, in_channels), depthwise kernels
(spatial..., in_channels, multiplier).

How the 3-D forms are built (no 3-D kernel exists):
- conv over (D, H, W): the kd depth taps of every output depth are gathered into the
  channel axis (one strided slice per tap) and one conv2d over (N * OD, H, W) contracts
  them with the kernel reshaped to (kh, kw, kd * C // groups, out) - exact, one GEMM.
- pools over (D, H, W): max and mean are separable, so a 2-D pool over (H, W) and one
  over (D, H * W) give the 3-D result (with "same" padding the mean still counts only the
  input elements each window covers, as Keras on JAX does).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.ones((1, 5, 5, 2), np.float32)
    >>> k = np.ones((3, 3, 2, 4), np.float32)
    >>> pd.ops.conv(x, k, padding="same").numpy()[0, :, :, 0].tolist()[0]
    [8.0, 12.0, 12.0, 12.0, 8.0]
"""
import numpy as np

from paddle import _settings as settings
from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops.conv import conv1d, conv2d, conv2d_transpose
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.pool import avg_pool2d, max_pool2d
from paddle.lowlevel.ops.reduce import max as _max
from paddle.lowlevel.ops.shape import expand_dims, gather, pad, reshape, stack, transpose
from paddle.lowlevel.shapes import is_int

# depth_to_space and space_to_depth, of the same family in Keras, are in paddle/ops/nn.py.
__all__ = ["adaptive_average_pool", "adaptive_max_pool", "average_pool", "conv",
           "conv_transpose", "depthwise_conv", "max_pool", "separable_conv"]


# ---- argument checks --------------------------------------------------------------------

def data_format_of(data_format, op):
    """The data format: `pd.config.image_data_format()` for None (as Keras's ops), else
    `data_format` once checked."""
    if data_format is None:
        return settings.image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(at_user(f"{op}: expected data_format 'channels_last' or "
                                 f"'channels_first', received {data_format!r}"))
    return data_format


_DTYPES = ("float32", "float64", "int32", "int64", "bool")


def as_tensor(x):
    """x as a Variable, keeping an array's dtype where paddle has it (as Keras's
    convert_to_tensor: int32 stays int32, Python floats become float32)."""
    if isinstance(x, Variable):
        return x
    array = np.asarray(x)
    if array.dtype.name in _DTYPES:
        return constant(array, dtype=array.dtype.name)
    if array.dtype.kind == "f":
        return constant(array, dtype="float32")
    return constant(array)


def float_tensor(x, op=None):
    """A float Variable of x (integers become float32: Keras's convolutions compute in
    floats)."""
    x = as_tensor(x)
    if x.dtype not in FLOATS:
        x = cast(x, "float32")
    return x


def _tuple(value, n, what, op, minimum=1):
    """n ints >= minimum from an int or a sequence of n ints."""
    values = (value,) * n if is_int(value) else tuple(value) \
        if isinstance(value, (tuple, list)) else None
    if values is None or len(values) != n or not all(is_int(v) and v >= minimum
                                                     for v in values):
        raise ValueError(at_user(f"{op}: expected {what} as an int >= {minimum} or {n} of them "
                                 f"for {n} spatial axes, received {value!r}"))
    return tuple(int(v) for v in values)


def _padding(padding, op):
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(at_user(f"{op}: expected padding 'valid' or 'same', received "
                                 f"{padding!r}"))
    return padding.lower()


def _spatial_rank(x, op, ranks=(1, 2, 3)):
    n = x.ndim - 2
    if n not in ranks:
        raise ShapeError(at_user(f"{op}: expected inputs of rank "
                                 f"{' or '.join(str(r + 2) for r in ranks)} (batch, spatial "
                                 f"axes, channels), received shape {x.shape}"))
    return n


def _channels_last(x, fmt):
    """x as (batch, spatial..., channels)."""
    if fmt == "channels_last":
        return x
    return transpose(x, (0,) + tuple(range(2, x.ndim)) + (1,))


def _restore(y, fmt):
    if fmt == "channels_last":
        return y
    return transpose(y, (0, y.ndim - 1) + tuple(range(1, y.ndim - 1)))


def _kernel(kernel, x, n, op, what="kernel"):
    kernel = float_tensor(kernel, op)
    if kernel.ndim != n + 2:
        raise ShapeError(at_user(f"{op}: expected a {what} of rank {n + 2} (spatial axes, "
                                 f"in, out) for inputs of shape {x.shape}, received shape "
                                 f"{kernel.shape}"))
    if kernel.dtype != x.dtype:
        kernel = cast(kernel, x.dtype)
    return kernel


def _groups(x, kernel, op):
    """Keras's implicit groups: input channels // the kernel's input channels."""
    c, kc = x.shape[-1], kernel.shape[-2]
    if c is None or kc is None:
        raise ShapeError(at_user(f"{op}: expected known channel sizes, received inputs "
                                 f"{x.shape} and kernel {kernel.shape}"))
    if kc < 1 or c % kc:
        raise ShapeError(at_user(f"{op}: the inputs have {c} channels, which is not a multiple "
                                 f"of the kernel's {kc} input channels (inputs {x.shape}, "
                                 f"kernel {kernel.shape})"))
    groups = c // kc
    if kernel.shape[-1] is not None and kernel.shape[-1] % groups:
        raise ShapeError(at_user(f"{op}: {kernel.shape[-1]} output channels are not divisible "
                                 f"by the {groups} channel groups (inputs {x.shape}, kernel "
                                 f"{kernel.shape})"))
    return groups


# ---- convolutions -----------------------------------------------------------------------

def _same_pads(size, k, stride, dilation):
    eff = (k - 1) * dilation + 1
    total = max((-(-size // stride) - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def _conv3d(x, kernel, strides, padding, dilation, groups, op):
    """(N, D, H, W, C) conv through one conv2d over (N * OD, H, W) (see the module doc)."""
    kd, d, s = kernel.shape[0], dilation[0], strides[0]
    if any(v is None for v in x.shape[1:]):
        raise ShapeError(at_user(f"{op}: 3-D convolutions need known spatial and channel "
                                 f"sizes, received inputs of shape {x.shape}"))
    depth = x.shape[1]
    if padding == "same":
        x = pad(x, ((0, 0), _same_pads(depth, kd, s, d), (0, 0), (0, 0), (0, 0)))
        depth = x.shape[1]
    od = (depth - (kd - 1) * d - 1) // s + 1
    if od < 1:
        raise ShapeError(at_user(f"{op}: the depth of the window ({(kd - 1) * d + 1}) is larger "
                                 f"than the input's {depth} (inputs {x.shape}, kernel "
                                 f"{kernel.shape})"))
    # taps: (N, OD, H, W, kd, C) -> channels ordered (group, tap, channel in group)
    taps = stack([x[:, t * d:t * d + (od - 1) * s + 1:s] for t in range(kd)], axis=4)
    _, _, h, w, _, c = taps.shape
    cg = c // groups
    taps = reshape(taps, (-1, od, h, w, kd, groups, cg))
    taps = reshape(transpose(taps, (0, 1, 2, 3, 5, 4, 6)), (-1, h, w, groups * kd * cg))
    _, kh, kw, _, out = kernel.shape
    k2 = reshape(transpose(kernel, (1, 2, 0, 3, 4)), (kh, kw, kd * cg, out))
    y = conv2d(taps, k2, strides=strides[1:], padding=padding, dilation=dilation[1:],
               groups=groups)
    return reshape(y, (-1, od) + tuple(y.shape[1:]))


def _conv(x, kernel, strides, padding, dilation, groups, n, op):
    """x channels-last, kernel in Keras's layout, n spatial axes."""
    if n == 1:
        return conv1d(x, kernel, strides=strides[0], padding=padding, dilation=dilation[0],
                      groups=groups)
    if n == 2:
        return conv2d(x, kernel, strides=strides, padding=padding, dilation=dilation,
                      groups=groups)
    return _conv3d(x, kernel, strides, padding, dilation, groups, op)


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """General N-D convolution (N = 1, 2, 3), as `keras.ops.conv`.

    Args:
        inputs: tensor of rank 3, 4 or 5 (batch, spatial..., channels) for
            "channels_last", (batch, channels, spatial...) for "channels_first".
        kernel: (spatial..., in_channels // groups, out_channels); groups is
            in_channels // kernel.shape[-2], as in Keras.
        strides: int or one int per spatial axis.
        padding: "valid" or "same" (output ceil(in / stride)).
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: int or one int per spatial axis.

    Returns:
        A tensor of rank N + 2 in `data_format`, of the inputs' float dtype (integer
        inputs compute in float32).

    Raises:
        ShapeError: a rank other than 3-5, channel counts the kernel does not fit, a
            window larger than the padded input.
        ValueError: bad padding, data_format, strides or dilation_rate.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(5, dtype=np.float32).reshape(1, 5, 1)
        >>> pd.ops.conv(x, np.ones((2, 1, 1), np.float32)).numpy()[0, :, 0].tolist()
        [1.0, 3.0, 5.0, 7.0]
    """
    op = "conv"
    fmt = data_format_of(data_format, op)
    x = float_tensor(inputs, op)
    n = _spatial_rank(x, op)
    strides = _tuple(strides, n, "strides", op)
    dilation = _tuple(dilation_rate, n, "dilation_rate", op)
    padding = _padding(padding, op)
    x = _channels_last(x, fmt)
    kernel = _kernel(kernel, x, n, op)
    groups = _groups(x, kernel, op)
    return _restore(_conv(x, kernel, strides, padding, dilation, groups, n, op), fmt)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Depthwise convolution (each input channel with its own `multiplier` filters), as
    `keras.ops.depthwise_conv`: a grouped convolution with one group per channel.

    Args:
        inputs: tensor of rank 3 or 4 (1-D or 2-D), in `data_format`.
        kernel: (spatial..., in_channels, multiplier).
        strides, padding, data_format, dilation_rate: as in `conv`.

    Returns:
        A tensor with in_channels * multiplier channels (channel c * multiplier + m is
        channel c under filter m, as in Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.ones((1, 4, 4, 2), np.float32)
        >>> pd.ops.depthwise_conv(x, np.ones((3, 3, 2, 2), np.float32)).shape
        (1, 2, 2, 4)
    """
    op = "depthwise_conv"
    fmt = data_format_of(data_format, op)
    x = float_tensor(inputs, op)
    n = _spatial_rank(x, op, (1, 2))
    strides = _tuple(strides, n, "strides", op)
    dilation = _tuple(dilation_rate, n, "dilation_rate", op)
    padding = _padding(padding, op)
    x = _channels_last(x, fmt)
    kernel = _kernel(kernel, x, n, op)
    c, kc, m = x.shape[-1], kernel.shape[-2], kernel.shape[-1]
    if c is None or kc != c:
        raise ShapeError(at_user(f"{op}: expected a kernel with the inputs' {c} channels on "
                                 f"its second-to-last axis, received inputs {x.shape} and "
                                 f"kernel {kernel.shape}"))
    grouped = reshape(kernel, tuple(kernel.shape[:n]) + (1, c * m))
    return _restore(_conv(x, grouped, strides, padding, dilation, c, n, op), fmt)


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """A depthwise convolution followed by a 1x1 (pointwise) one, as
    `keras.ops.separable_conv`.

    Args:
        inputs: tensor of rank 3 or 4, in `data_format`.
        depthwise_kernel: (spatial..., in_channels, multiplier).
        pointwise_kernel: (1..., in_channels * multiplier, out_channels).
        strides, padding, data_format, dilation_rate: of the depthwise step, as in `conv`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.ones((1, 4, 4, 2), np.float32)
        >>> dk, pk = np.ones((3, 3, 2, 1), np.float32), np.ones((1, 1, 2, 3), np.float32)
        >>> pd.ops.separable_conv(x, dk, pk).numpy()[0, 0, 0].tolist()
        [18.0, 18.0, 18.0]
    """
    op = "separable_conv"
    fmt = data_format_of(data_format, op)
    y = depthwise_conv(inputs, depthwise_kernel, strides, padding, fmt, dilation_rate)
    return conv(y, pointwise_kernel, 1, "valid", fmt, 1)


def _transpose_pads(k, stride, dilation, padding, output_padding):
    """Keras-on-JAX's (left, right) padding of the stride-dilated input."""
    eff = (k - 1) * dilation + 1
    if padding == "valid":
        extra = max(eff, stride) - eff if output_padding is None else output_padding
        return eff - 1, eff - 1 + extra
    total = stride + eff - 2 if output_padding is None else eff + eff % 2 - 2 + output_padding
    left = min(total // 2 + total % 2, eff - 1)
    return left, total - left


def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """Transposed convolution (1-D, 2-D or 3-D), as `keras.ops.conv_transpose`.

    Args:
        inputs: tensor of rank 3, 4 or 5, in `data_format`.
        kernel: (spatial..., out_channels, in_channels), Keras's layout.
        strides, padding, data_format, dilation_rate: as in `conv`.
        output_padding: None (output in * stride for "same", (in - 1) * stride +
            max(k, stride) for "valid") or an int / one int per axis added at the end,
            smaller than the stride.

    Returns:
        A tensor with out_channels channels.

    Raises:
        ShapeError: ranks or channels that do not fit, unknown spatial sizes.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.ones((1, 3, 3, 4), np.float32)
        >>> pd.ops.conv_transpose(x, np.ones((3, 3, 2, 4), np.float32), 2, "same").shape
        (1, 6, 6, 2)
    """
    op = "conv_transpose"
    fmt = data_format_of(data_format, op)
    x = float_tensor(inputs, op)
    n = _spatial_rank(x, op)
    strides = _tuple(strides, n, "strides", op)
    dilation = _tuple(dilation_rate, n, "dilation_rate", op)
    padding = _padding(padding, op)
    out_pad = None if output_padding is None else \
        _tuple(output_padding, n, "output_padding", op, minimum=0)
    x = _channels_last(x, fmt)
    kernel = _kernel(kernel, x, n, op)
    if x.shape[-1] is not None and kernel.shape[-1] != x.shape[-1]:
        raise ShapeError(at_user(f"{op}: expected a kernel whose last axis is the inputs' "
                                 f"{x.shape[-1]} channels, received inputs {x.shape} and "
                                 f"kernel {kernel.shape}"))
    if out_pad is not None and any(p >= s for p, s in zip(out_pad, strides)):
        raise ValueError(at_user(f"{op}: expected output_padding smaller than the strides "
                                 f"{strides}, received {output_padding!r}"))
    if any(d is None for d in x.shape[1:-1]):
        raise ShapeError(at_user(f"{op}: expected known spatial sizes, received inputs of "
                                 f"shape {x.shape}"))
    out_pad = (None,) * n if out_pad is None else out_pad
    if n == 1:
        y = _transpose2d(expand_dims(x, 1), expand_dims(kernel, 0), (1,) + strides,
                         (1,) + dilation, padding, (0,) + out_pad)
        return _restore(y[:, 0], fmt)
    if n == 2:
        return _restore(_transpose2d(x, kernel, strides, dilation, padding, out_pad), fmt)
    return _restore(_transpose3d(x, kernel, strides, dilation, padding, out_pad), fmt)


def _transpose2d(x, kernel, strides, dilation, padding, out_pad):
    """NHWC transposed convolution with Keras-on-JAX's padding rule, as the adjoint of a
    conv2d with explicit pads."""
    pads, size = [], []
    for a in range(2):
        k, s, d = kernel.shape[a], strides[a], dilation[a]
        left, right = _transpose_pads(k, s, d, padding, out_pad[a])
        eff = (k - 1) * d + 1
        pads.append((eff - 1 - left, max(eff - 1 - right, 0)))
        size.append((x.shape[1 + a] - 1) * s + left + right - eff + 2)
    return conv2d_transpose(x, kernel, output_shape=tuple(size), strides=strides,
                            padding=tuple(pads), dilation=dilation)


def _transpose3d(x, kernel, strides, dilation, padding, out_pad):
    """(N, D, H, W, C) transposed convolution: one 2-D transposed convolution over (H, W)
    with the kd depth taps as kd groups of output channels, then each tap's slab placed
    at depth i * stride + tap * dilation (a stride-dilation and a shift) and summed."""
    n_d, h, w, c = x.shape[1:]
    kd, kh, kw, out_c, _ = kernel.shape
    s, d = strides[0], dilation[0]
    k2 = reshape(transpose(kernel, (1, 2, 0, 3, 4)), (kh, kw, kd * out_c, c))
    y = _transpose2d(reshape(x, (-1, h, w, c)), k2, strides[1:], dilation[1:], padding,
                     out_pad[1:])
    oh, ow = y.shape[1:3]
    y = reshape(y, (-1, n_d, oh, ow, kd, out_c))
    left, right = _transpose_pads(kd, s, d, padding, out_pad[0])
    eff = (kd - 1) * d + 1
    span = (n_d - 1) * s + eff                  # every position a tap reaches
    total = None
    for t in range(kd):                         # one slab per depth tap (a few)
        slab = y[:, :, :, :, t]
        if s > 1:                               # insert s - 1 zero slices between inputs
            slab = stack([slab] + [slab * 0.0] * (s - 1), axis=2)
            slab = reshape(slab, (-1, n_d * s, oh, ow, out_c))[:, :(n_d - 1) * s + 1]
        slab = pad(slab, ((0, 0), (t * d, span - t * d - (n_d - 1) * s - 1), (0, 0), (0, 0),
                          (0, 0)))
        total = slab if total is None else total + slab
    start = eff - 1 - left
    size = (n_d - 1) * s + left + right - eff + 2
    total = total[:, start:start + size]
    missing = size - total.shape[1]
    if missing > 0:                             # output_padding past the last tap: zeros
        total = pad(total, ((0, 0), (0, missing), (0, 0), (0, 0), (0, 0)))
    return total


# ---- pooling ------------------------------------------------------------------------------

def _pool(kind, inputs, pool_size, strides, padding, data_format):
    op = f"{kind}_pool"
    fmt = data_format_of(data_format, op)
    x = float_tensor(inputs, op)
    n = _spatial_rank(x, op)
    pool = _tuple(pool_size, n, "pool_size", op)
    strides = pool if strides is None else _tuple(strides, n, "strides", op)
    padding = _padding(padding, op)
    pool2d = max_pool2d if kind == "max" else avg_pool2d
    x = _channels_last(x, fmt)
    if n == 1:
        y = pool2d(expand_dims(x, 1), (1, pool[0]), (1, strides[0]), padding)[:, 0]
    elif n == 2:
        y = pool2d(x, pool, strides, padding)
    else:
        if any(v is None for v in x.shape[1:]):
            raise ShapeError(at_user(f"{op}: 3-D pooling needs known spatial and channel "
                                     f"sizes, received inputs of shape {x.shape}"))
        _, d, h, w, c = x.shape
        hw = pool2d(reshape(x, (-1, h, w, c)), pool[1:], strides[1:], padding)
        oh, ow = hw.shape[1:3]
        y = pool2d(reshape(hw, (-1, d, oh * ow, c)), (pool[0], 1), (strides[0], 1), padding)
        y = reshape(y, (-1, y.shape[1], oh, ow, c))
    return _restore(y, fmt)


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Maximum over windows (1-D, 2-D or 3-D), as `keras.ops.max_pool`.

    Args:
        inputs: tensor of rank 3, 4 or 5, in `data_format`.
        pool_size: int or one int per spatial axis.
        strides: int, one per axis, or None (pool_size).
        padding: "valid" or "same" (padded positions never win).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(8, dtype=np.float32).reshape(1, 8, 1)
        >>> pd.ops.max_pool(x, 3, 2, "same").numpy()[0, :, 0].tolist()
        [2.0, 4.0, 6.0, 7.0]
    """
    return _pool("max", inputs, pool_size, strides, padding, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Mean over windows (1-D, 2-D or 3-D), as `keras.ops.average_pool`; with "same"
    padding each window's mean counts only the input elements it covers (as Keras).

    Args:
        inputs, pool_size, strides, padding, data_format: as in `max_pool`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 4, 1)
        >>> pd.ops.average_pool(x, 3, 2, "same").numpy()[0, :, 0].tolist()
        [1.0, 2.5]
    """
    return _pool("average", inputs, pool_size, strides, padding, data_format)


def _adaptive_windows(size, out):
    """PyTorch's (and Keras's) adaptive bins: [floor(i * L / o), ceil((i + 1) * L / o))."""
    start = (np.arange(out) * size) // out
    end = -((-(np.arange(out) + 1) * size) // out)
    return start, end


def _adaptive(kind, inputs, output_size, data_format):
    op = f"adaptive_{kind}_pool"
    fmt = data_format_of(data_format, op)
    x = float_tensor(inputs, op)
    n = _spatial_rank(x, op)
    out = _tuple(output_size, n, "output_size", op)
    x = _channels_last(x, fmt)
    if any(v is None for v in x.shape[1:-1]):
        raise ShapeError(at_user(f"{op}: expected known spatial sizes, received inputs of "
                                 f"shape {x.shape}"))
    for axis in range(1, n + 1):
        size, o = x.shape[axis], out[axis - 1]
        start, end = _adaptive_windows(size, o)
        if kind == "average":
            # The bins' means as one product with a (size, o) averaging matrix.
            weights = np.zeros((size, o))
            for i in range(o):  # o bins, built once on the host
                weights[start[i]:end[i], i] = 1.0 / (end[i] - start[i])
            moved = transpose(x, tuple(a for a in range(x.ndim) if a != axis) + (axis,))
            pooled = matmul(moved, constant(weights, dtype=x.dtype))
            back = list(range(x.ndim - 1))
            back.insert(axis, x.ndim - 1)
            x = transpose(pooled, tuple(back))
        else:
            # Each bin's positions, the short ones repeating their last (which keeps the max).
            width = int((end - start).max())
            index = np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)
            taken = gather(x, constant(index.astype(np.int64)), axis=axis)
            x = _max(taken, axis=axis + 1)
    return _restore(x, fmt)


def adaptive_average_pool(inputs, output_size, data_format=None):
    """Mean over `output_size` adaptive bins per spatial axis (1-D, 2-D or 3-D), as
    `keras.ops.adaptive_average_pool` (bin i of an axis of length L covers
    [floor(i L / o), ceil((i + 1) L / o))).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(5, dtype=np.float32).reshape(1, 5, 1)
        >>> pd.ops.adaptive_average_pool(x, 2).numpy()[0, :, 0].tolist()
        [1.0, 3.0]
    """
    return _adaptive("average", inputs, output_size, data_format)


def adaptive_max_pool(inputs, output_size, data_format=None):
    """Maximum over `output_size` adaptive bins per spatial axis, as
    `keras.ops.adaptive_max_pool` (bins as in `adaptive_average_pool`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(5, dtype=np.float32).reshape(1, 5, 1)
        >>> pd.ops.adaptive_max_pool(x, 2).numpy()[0, :, 0].tolist()
        [2.0, 4.0]
    """
    return _adaptive("max", inputs, output_size, data_format)
