"""Keras's `keras.ops.nn.unfold` (im2col) and `fold` (col2im) on channels-first images,
built from pad, strided slices, stack, reshape and add (their kernels and gradients):
`unfold` gathers each kernel tap's strided view of the padded image; `fold` is its
adjoint, each tap's values spread back to their strided places and summed.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.arange(16.0, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> cols = pd.ops.nn.unfold(x, 2, stride=2)
    >>> cols.shape, pd.ops.nn.fold(cols, (4, 4), 2, stride=2).numpy().tolist() == x.tolist()
    ((1, 4, 4), True)
"""
import numpy as np

from paddle.errors import ShapeError
from paddle.ops._arrays import fail, tensor
from paddle.ops.numpy_shape import pad, reshape, stack

__all__ = ["fold", "unfold"]


def _pair(value, name, where, least):
    """(a, b) from an int or a pair of ints, each >= least."""
    pair = (value, value) if isinstance(value, (int, np.integer)) else value
    try:
        pair = tuple(pair)
    except TypeError:
        pair = ()
    if len(pair) != 2 or any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) or
                             v < least for v in pair):
        fail(ValueError, f"{where}: expected {name} to be an int >= {least} or a pair of them, "
                         f"received {value!r}")
    return int(pair[0]), int(pair[1])


def _windows(size, k, d, p, s, axis, where):
    """How many windows fit along an axis of `size` (padded by p on each side)."""
    n = (size + 2 * p - d * (k - 1) - 1) // s + 1
    if n < 1:
        fail(ShapeError, f"{where}: the kernel ({k} taps, dilation {d}) does not fit spatial "
                         f"axis {axis} of size {size} padded by {p}")
    return n


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of a batch of channels-first images, flattened (im2col), as
    `keras.ops.nn.unfold`.

    Args:
        x: (N, C, H, W).
        kernel_size, dilation, stride: ints or pairs (dilation and stride >= 1).
        padding: zeros added on both sides of each spatial axis (an int or pair >= 0).

    Returns:
        (N, C * kH * kW, L), L the number of blocks (row-major over the output grid);
        axis 1 runs over channels, then kernel rows, then kernel columns.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.unfold(np.ones((1, 2, 4, 4), np.float32), kernel_size=2, stride=2).shape
        (1, 8, 4)
    """
    x = tensor(x, "unfold")
    if x.ndim != 4:
        fail(ValueError, f"unfold: expected a 4-D input (N, C, H, W), received shape {x.shape}")
    if None in x.shape[1:]:
        fail(ShapeError, f"unfold: needs C, H and W when the graph is built, received shape "
                         f"{x.shape}")
    k = _pair(kernel_size, "kernel_size", "unfold", 1)
    d = _pair(dilation, "dilation", "unfold", 1)
    p = _pair(padding, "padding", "unfold", 0)
    s = _pair(stride, "stride", "unfold", 1)
    _, c, h, w = x.shape
    n = [_windows(size, k[a], d[a], p[a], s[a], a, "unfold") for a, size in enumerate((h, w))]
    if p != (0, 0):
        x = pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    taps = [x[:, :, i * d[0]:i * d[0] + s[0] * (n[0] - 1) + 1:s[0],
              j * d[1]:j * d[1] + s[1] * (n[1] - 1) + 1:s[1]]
            for i in range(k[0]) for j in range(k[1])]
    cols = stack(taps, axis=2)  # (N, C, kH * kW, nH, nW)
    return reshape(cols, (-1, c * k[0] * k[1], n[0] * n[1]))


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The images whose blocks `x` holds, overlapping values summed (col2im): the adjoint of
    `unfold`, as `keras.ops.nn.fold`.

    Args:
        x: (N, C * kH * kW, L), as `unfold` gives.
        output_size: (H, W) of the images (an int for both).
        kernel_size, dilation, padding, stride: as given to `unfold`.

    Returns:
        (N, C, H, W).

    Example:
        >>> import numpy as np, paddle as pd
        >>> cols = np.ones((1, 4, 9), np.float32)  # 2x2 blocks at stride 1 of a 4x4 image
        >>> pd.ops.nn.fold(cols, (4, 4), 2).numpy()[0, 0].tolist()[1]
        [2.0, 4.0, 4.0, 2.0]
    """
    x = tensor(x, "fold")
    if x.ndim != 3:
        fail(ValueError, f"fold: expected a 3-D input (N, C * kH * kW, L), received shape "
                         f"{x.shape}")
    if None in x.shape[1:]:
        fail(ShapeError, f"fold: needs the sizes of axes 1 and 2 when the graph is built, "
                         f"received shape {x.shape}")
    size = _pair(output_size, "output_size", "fold", 1)
    k = _pair(kernel_size, "kernel_size", "fold", 1)
    d = _pair(dilation, "dilation", "fold", 1)
    p = _pair(padding, "padding", "fold", 0)
    s = _pair(stride, "stride", "fold", 1)
    _, ckk, blocks = x.shape
    taps = k[0] * k[1]
    n = [_windows(size[a], k[a], d[a], p[a], s[a], a, "fold") for a in range(2)]
    if ckk % taps or blocks != n[0] * n[1]:
        fail(ShapeError, f"fold: expected axis 1 to be a multiple of kH * kW = {taps} and "
                         f"axis 2 to be the {n[0]} x {n[1]} = {n[0] * n[1]} blocks of an "
                         f"output of {size} (kernel {k}, dilation {d}, padding {p}, stride "
                         f"{s}), received shape {x.shape}")
    c = ckk // taps
    cols = reshape(x, (-1, c, taps, n[0], 1, n[1], 1))
    if s != (1, 1):  # each block's value at its strided place: zeros in between
        cols = pad(cols, ((0, 0),) * 4 + ((0, s[0] - 1), (0, 0), (0, s[1] - 1)))
    cols = reshape(cols, (-1, c, taps, n[0] * s[0], n[1] * s[1]))
    span = (s[0] * (n[0] - 1) + 1, s[1] * (n[1] - 1) + 1)
    cols = cols[:, :, :, :span[0], :span[1]]
    full = (size[0] + 2 * p[0], size[1] + 2 * p[1])
    out = None
    for i in range(k[0]):
        for j in range(k[1]):
            top, left = i * d[0], j * d[1]
            placed = pad(cols[:, :, i * k[1] + j],
                         ((0, 0), (0, 0), (top, full[0] - top - span[0]),
                          (left, full[1] - left - span[1])))
            out = placed if out is None else out + placed
    return out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
