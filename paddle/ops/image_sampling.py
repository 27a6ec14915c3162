"""Sampling images at computed coordinates, for `pd.ops.image`: `map_coordinates`,
`affine_transform` and `perspective_transform`, as Keras on JAX computes them
(jax.scipy.ndimage.map_coordinates: order 0 rounds half away from zero, order 1 is linear;
fill modes constant, nearest, wrap, mirror, reflect).

Each corner of the interpolation is one `gather` of the flattened input at indices built
from the coordinates with elementwise ops, weighted and summed: the input's gradient is
gather's (a scatter-add), the coordinates' comes through the linear weights.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.arange(4, dtype=np.float32)
    >>> pd.ops.image.map_coordinates(x, np.array([[0.5, 2.25, 5.0]]), order=1).numpy().tolist()
    [0.5, 2.25, 0.0]
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops.math import abs as _abs, cast, clip, greater_equal, less, ones_like, \
    sign, zeros_like
from paddle.lowlevel.ops.sort import take_along_axis
from paddle.lowlevel.ops.shape import expand_dims, gather, reshape, squeeze, stack, \
    transpose
from paddle.lowlevel.shapes import is_int
from paddle.ops.convolutions import as_tensor, data_format_of, depthwise_conv
from paddle.ops.linalg import solve
from paddle.random import normal

__all__ = ["affine_transform", "elastic_transform", "map_coordinates", "perspective_transform"]

FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
INTERPOLATIONS = {"nearest": 0, "bilinear": 1}


# ---- integer arithmetic on integer-valued floats ------------------------------------------------

def floor(x):
    """floor(x) from ops that exist: truncation toward zero, less one where that rounded up."""
    t = cast(cast(x, "int64"), x.dtype)
    return t - cast(less(x, t), x.dtype)


def _mod(x, n):
    return x - n * floor(x / n)


def _mirror(i, size):
    if size == 1:
        return i * 0.0
    s = size - 1
    return _abs(_mod(i + s, 2 * s) - s)


def _fix(i, size, mode):
    """A valid index for corner index i (JAX's index fixers); 'constant' clips, and the
    caller masks the corners outside."""
    if mode in ("constant", "nearest"):
        return clip(i, 0.0, float(size - 1))
    if mode == "wrap":
        return _mod(i, size)
    if mode == "mirror":
        return _mirror(i, size)
    return floor((_mirror(2.0 * i + 1.0, 2 * size + 1) - 1.0) * 0.5)   # reflect


def _corners(c, order):
    if order == 0:  # round half away from zero
        return [(sign(c) * floor(_abs(c) + 0.5), None)]
    low = floor(c)
    up = c - low
    return [(low, 1.0 - up), (low + 1.0, up)]


def sample(flat, coords, sizes, order, mode, cval, exact_axes=0):
    """Interpolate `flat` (prod(sizes), *rest) at `coords` (one float Variable per axis of
    `sizes`, all of one shape S): a Variable (*S, *rest). The first `exact_axes` coordinates
    are whole numbers inside their axes (a batch index): read with order 0."""
    strides = np.cumprod((1,) + tuple(sizes[::-1]))[::-1][1:]
    rest = flat.ndim - 1
    total = None
    # per axis and corner, once: (its term of the flat index, its weight, inside the input)
    per_axis = []
    for a, c in enumerate(coords):
        entries = []
        for i, w in _corners(c, 0 if a < exact_axes else order):
            inside = None
            if mode == "constant" and a >= exact_axes:
                inside = cast(greater_equal(i, 0.0), i.dtype) * \
                    cast(less(i, float(sizes[a])), i.dtype)
            entries.append((_fix(i, sizes[a], mode) * float(strides[a]), w, inside))
        per_axis.append(entries)
    for combo in np.ndindex(*[len(p) for p in per_axis]):
        index, weight, valid = None, None, None
        for axis, pick in enumerate(combo):
            term, w, inside = per_axis[axis][pick]
            index = term if index is None else index + term
            if w is not None:
                weight = w if weight is None else weight * w
            if inside is not None:
                valid = inside if valid is None else valid * inside
        value = gather(flat, cast(index, "int64"), axis=0)
        factor = [valid, weight]
        for _ in range(rest):
            factor = [None if f is None else expand_dims(f, -1) for f in factor]
        if factor[0] is not None:   # constant: cval where any corner index is outside
            value = value * factor[0] + (1.0 - factor[0]) * cval
        if factor[1] is not None:
            value = value * factor[1]
        total = value if total is None else total + value
    return total


def _check_mode(fill_mode, op, modes=FILL_MODES):
    if fill_mode not in modes:
        raise ValueError(at_user(f"{op}: expected fill_mode one of {modes}, received "
                                 f"{fill_mode!r}"))


# ---- public functions ---------------------------------------------------------------------------

def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """`inputs` interpolated at `coordinates`, as `keras.ops.image.map_coordinates`.

    Args:
        inputs: a tensor of rank n, known sizes.
        coordinates: (n, ...) positions, one row per axis of inputs.
        order: 0 (nearest, halves away from zero) or 1 (linear).
        fill_mode: "constant" (fill_value outside), "nearest", "wrap", "mirror" or
            "reflect".
        fill_value: the constant outside the input.

    Returns:
        A tensor of coordinates.shape[1:], of the inputs' dtype (float inputs).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(4, dtype=np.float32)
        >>> pd.ops.image.map_coordinates(x, np.array([[-1.0, 4.0]]), 0, "wrap").numpy().tolist()
        [3.0, 0.0]
    """
    op = "map_coordinates"
    _check_mode(fill_mode, op)
    if order not in (0, 1):
        raise ValueError(at_user(f"{op}: expected order 0 or 1, received {order!r}"))
    x = as_tensor(inputs)
    coords = as_tensor(coordinates)
    if x.dtype not in FLOATS:
        x = cast(x, "float32")
    if coords.ndim < 2 or coords.shape[0] != x.ndim:
        raise ValueError(at_user(f"{op}: expected coordinates of shape ({x.ndim}, ...) for "
                                 f"inputs of shape {x.shape}, received {coords.shape}"))
    if any(d is None for d in x.shape):
        raise ShapeError(at_user(f"{op}: expected inputs of known shape, received {x.shape}"))
    coords = cast(coords, x.dtype)
    flat = reshape(x, (-1,))
    rows = [coords[i] for i in range(x.ndim)]
    return sample(flat, rows, x.shape, order, fill_mode, float(fill_value))


def _images(images, data_format, op):
    fmt = data_format_of(data_format, op)
    x = as_tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError(at_user(f"{op}: expected images of rank 3 (one image) or 4 (a "
                                 f"batch), received shape {x.shape}"))
    if x.dtype not in FLOATS:
        x = cast(x, "float32")
    single = x.ndim == 3
    x = expand_dims(x, 0) if single else x
    if fmt == "channels_first":
        x = transpose(x, (0, 2, 3, 1))
    if any(d is None for d in x.shape[1:]):
        raise ShapeError(at_user(f"{op}: expected images of known height, width and "
                                 f"channels, received {x.shape}"))

    def undo(y):
        y = transpose(y, (0, 3, 1, 2)) if fmt == "channels_first" else y
        return squeeze(y, 0) if single else y
    return x, undo


def _warp(x, x_in, y_in, order, mode, cval):
    """Sample NHWC x at per-pixel source columns x_in and rows y_in, (B or 1, H, W), each
    image reading its own pixels only (the batch size may be unknown until run time)."""
    _, h, w, c = x.shape
    ones = ones_like(x[:, :1, :1, 0])                  # (B, 1, 1): one per image
    coords = [y_in * ones, x_in * ones]
    return sample_per_image(reshape(x, (-1, h * w, c)), coords, (h, w), order, mode, cval)


def sample_per_image(flat, coords, sizes, order, mode, cval):
    """Interpolate each image of `flat` (B, prod(sizes), C) at its own `coords` (one float
    Variable (B, *S) per axis of `sizes`): a Variable (B, *S, C), read with
    take_along_axis (no batch offset: any batch size)."""
    strides = np.cumprod((1,) + tuple(sizes[::-1]))[::-1][1:]
    out_shape = coords[0].shape[1:]
    channels = flat.shape[-1]
    per_axis = []
    for a, coord in enumerate(coords):
        entries = []
        for i, wt in _corners(coord, order):
            inside = None
            if mode == "constant":
                inside = cast(greater_equal(i, 0.0), i.dtype) * \
                    cast(less(i, float(sizes[a])), i.dtype)
            entries.append((_fix(i, sizes[a], mode) * float(strides[a]), wt, inside))
        per_axis.append(entries)
    total = None
    for combo in np.ndindex(*[len(p) for p in per_axis]):
        index, weight, valid = None, None, None
        for axis, pick in enumerate(combo):
            term, wt, inside = per_axis[axis][pick]
            index = term if index is None else index + term
            if wt is not None:
                weight = wt if weight is None else weight * wt
            if inside is not None:
                valid = inside if valid is None else valid * inside
        rows = reshape(cast(index, "int64"), (-1, int(np.prod(out_shape)), 1))
        rows = rows + cast(zeros_like(flat[:, :1, :]), "int64")  # (B, P, C): every channel
        value = reshape(take_along_axis(flat, rows, axis=1), (-1,) + tuple(out_shape) +
                        (channels,))
        if valid is not None:  # constant: cval where any corner index is outside
            v = expand_dims(valid, -1)
            value = value * v + (1.0 - v) * cval
        if weight is not None:
            value = value * expand_dims(weight, -1)
        total = value if total is None else total + value
    return total


def _grid(h, w, dtype):
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    return constant(xs[None].astype(np.float64), dtype=dtype), \
        constant(ys[None].astype(np.float64), dtype=dtype)


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """Images warped by projective transforms, as `keras.ops.image.affine_transform`:
    [a0, a1, a2, b0, b1, b2, c0, c1] maps each output pixel (x, y) to the input point
    ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, Keras's
    documented rule (Keras's JAX backend ignores c0, c1 for the position: with them
    non-zero its numbers differ from these).

    Args:
        images: rank 3 or 4, known shape.
        transform: (8,) or (batch, 8).
        interpolation: "bilinear" or "nearest".
        fill_mode: "constant", "nearest", "wrap", "mirror" or "reflect".
        fill_value: the constant outside the input.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(9, dtype=np.float32).reshape(3, 3, 1)
        >>> shift = np.array([1, 0, 1, 0, 1, 0, 0, 0], np.float32)   # x' = x + 1
        >>> pd.ops.image.affine_transform(x, shift).numpy()[:, :, 0].tolist()[0]
        [1.0, 2.0, 0.0]
    """
    op = "affine_transform"
    if interpolation not in INTERPOLATIONS:
        raise ValueError(at_user(f"{op}: expected interpolation 'bilinear' or 'nearest', "
                                 f"received {interpolation!r}"))
    _check_mode(fill_mode, op)
    x, undo = _images(images, data_format, op)
    t = transform if isinstance(transform, Variable) else as_tensor(np.asarray(transform))
    if t.ndim not in (1, 2) or t.shape[-1] != 8:
        raise ValueError(at_user(f"{op}: expected transform of shape (8,) or (batch, 8), "
                                 f"received {t.shape}"))
    t = cast(t, x.dtype) if t.dtype != x.dtype else t
    t = expand_dims(t, 0) if t.ndim == 1 else t
    gx, gy = _grid(x.shape[1], x.shape[2], x.dtype)
    a = [expand_dims(expand_dims(t[:, i], -1), -1) for i in range(8)]
    k = a[6] * gx + a[7] * gy + 1.0
    x_in = (a[0] * gx + a[1] * gy + a[2]) / k
    y_in = (a[3] * gx + a[4] * gy + a[5]) / k
    out = _warp(x, x_in, y_in, INTERPOLATIONS[interpolation], fill_mode, float(fill_value))
    return undo(out)


def _homography(start, end):
    """Keras's 8 coefficients mapping end points to start points: one 8x8 solve each."""
    sx, sy, ex, ey = start[..., 0], start[..., 1], end[..., 0], end[..., 1]
    zeros, ones = ex * 0.0, ex * 0.0 + 1.0
    x_rows = stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], axis=-1)
    y_rows = stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], axis=-1)
    from_rows = stack([x_rows, y_rows], axis=1)                  # (B, 2, 4, 8)
    matrix = reshape(from_rows, (-1, 8, 8))
    target = reshape(stack([sx, sy], axis=1), (-1, 8, 1))
    return squeeze(solve(matrix, target), -1)


def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """Images warped so that `start_points` land on `end_points` (four (x, y) corners
    each), as `keras.ops.image.perspective_transform`.

    Args:
        images: rank 3 or 4, known shape.
        start_points, end_points: (4, 2) or (batch, 4, 2).
        interpolation: "bilinear" or "nearest".
        fill_value: the value outside the input.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(9, dtype=np.float32).reshape(3, 3, 1)
        >>> corners = np.array([[0, 0], [2, 0], [0, 2], [2, 2]], np.float32)
        >>> same = pd.ops.image.perspective_transform(x, corners, corners)
        >>> bool(np.allclose(same.numpy(), x, atol=1e-4))
        True
    """
    op = "perspective_transform"
    if interpolation not in INTERPOLATIONS:
        raise ValueError(at_user(f"{op}: expected interpolation 'bilinear' or 'nearest', "
                                 f"received {interpolation!r}"))
    x, undo = _images(images, data_format, op)
    points = []
    for name, p in (("start_points", start_points), ("end_points", end_points)):
        p = as_tensor(p)
        if p.ndim not in (2, 3) or tuple(p.shape[-2:]) != (4, 2):
            raise ValueError(at_user(f"{op}: expected {name} of shape (4, 2) or (batch, 4, "
                                     f"2), received {p.shape}"))
        p = cast(p, "float32") if p.dtype != "float32" else p
        points.append(expand_dims(p, 0) if p.ndim == 2 else p)
    if points[0].shape != points[1].shape:
        raise ValueError(at_user(f"{op}: expected start_points and end_points of one shape, "
                                 f"received {points[0].shape} and {points[1].shape}"))
    coeffs = _homography(*points)                                 # (B, 8), float32
    coeffs = cast(coeffs, x.dtype) if x.dtype != "float32" else coeffs
    gx, gy = _grid(x.shape[1], x.shape[2], x.dtype)
    a = [expand_dims(expand_dims(coeffs[:, i], -1), -1) for i in range(8)]
    k = a[6] * gx + a[7] * gy + 1.0
    x_in = (a[0] * gx + a[1] * gy + a[2]) / k
    y_in = (a[3] * gx + a[4] * gy + a[5]) / k
    out = _warp(x, x_in, y_in, INTERPOLATIONS[interpolation], "constant", float(fill_value))
    return undo(out)


def _blur_field(field, size, sigma):
    """A (B, H, W) field blurred by a (size x size) Gaussian, zero padded (Keras's
    gaussian_blur of the displacements)."""
    t = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-0.5 * (t / sigma) ** 2)
    g /= g.sum()
    kernel = constant(np.outer(g, g)[:, :, None, None], dtype=field.dtype)
    return squeeze(depthwise_conv(expand_dims(field, -1), kernel, padding="same"), -1)


def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Images displaced by smooth random fields, as `keras.ops.image.elastic_transform`:
    per pixel a normal(0, sigma) displacement in x and in y, blurred by a Gaussian of
    standard deviation sigma (kernel int(6 sigma) | 1), scaled by alpha; the images are
    sampled there. The draws are paddle's (`pd.random.normal` with `seed`): they are not
    JAX's numbers, and x and y get independent fields (Keras on JAX draws one field twice
    from the same seed, so its x and y displacements are equal).

    Args:
        images: rank 3 or 4, known shape.
        alpha, sigma: numbers (known when the graph is built).
        interpolation: "bilinear" or "nearest".
        fill_mode, fill_value: as in `affine_transform` (default "reflect").
        seed: None, an int or a `pd.random.SeedGenerator`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.ones((8, 8, 1), np.float32)
        >>> float(pd.ops.image.elastic_transform(x, seed=1).numpy().round(5).min())   # reflect
        1.0
    """
    op = "elastic_transform"
    if interpolation not in INTERPOLATIONS:
        raise ValueError(at_user(f"{op}: expected interpolation 'bilinear' or 'nearest', "
                                 f"received {interpolation!r}"))
    _check_mode(fill_mode, op)
    if isinstance(alpha, Variable) or isinstance(sigma, Variable) or not float(sigma) > 0:
        raise ValueError(at_user(f"{op}: expected numbers alpha and sigma > 0, received "
                                 f"alpha={alpha!r}, sigma={sigma!r}"))
    x, undo = _images(images, data_format, op)
    b, h, w, _ = x.shape
    size = int(6 * float(sigma)) | 1
    # an int seed draws the y field from seed + 1: the same seed would repeat the x field
    seeds = (seed, seed + 1) if is_int(seed) else (seed, seed)
    fields = [_blur_field(normal((b, h, w), stddev=float(sigma), dtype=x.dtype, seed=s),
                          size, float(sigma)) * float(alpha) for s in seeds]
    gx, gy = _grid(h, w, x.dtype)
    out = _warp(x, gx + fields[0], gy + fields[1], INTERPOLATIONS[interpolation], fill_mode,
                float(fill_value))
    return undo(out)
