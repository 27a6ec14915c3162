"""`keras.ops.image` for paddle: resizing, padding, cropping, colour spaces, blurring and
patches, on images of rank 3 (one image) or 4 (a batch), "channels_last" by default.

Everything is composed from existing ops. Resampling is separable, so `resize` and
`scale_and_translate` are two products with (in, out) weight matrices per spatial axis,
built once on the host from the sizes with the kernels JAX uses (triangle, Keys cubic,
Lanczos 3/5, antialiased when downsampling), as Keras on JAX does; "nearest" gathers rows
and columns. Colour conversions are elementwise ops; `gaussian_blur` is a depthwise
convolution; `extract_patches` a convolution with an identity kernel, as in Keras.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
    >>> pd.ops.image.resize(x, (4, 4)).numpy()[0, 0, :, 0].tolist()
    [0.0, 0.25, 0.75, 1.0]
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops import color as _color
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import mean
from paddle.lowlevel.ops.shape import expand_dims, gather, pad, reshape, squeeze, transpose
from paddle.lowlevel.shapes import is_int
from paddle.ops.convolutions import as_tensor, conv, data_format_of, depthwise_conv
from paddle.ops.image_sampling import (affine_transform, elastic_transform,  # noqa: F401
                                       map_coordinates,
                                       perspective_transform)

__all__ = ["affine_transform", "crop_images", "elastic_transform", "extract_patches",
           "extract_patches_3d",
           "gaussian_blur", "hsv_to_rgb", "map_coordinates", "pad_images",
           "perspective_transform", "resize", "rgb_to_grayscale", "rgb_to_hsv",
           "scale_and_translate", "sobel_edges", "ssim"]

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic")


# ---- layout ----------------------------------------------------------------------------------

def _tensor(x):
    return as_tensor(x)


def _images(images, data_format, op):
    """(batch NHWC Variable, undo) for rank-3 or rank-4 images in `data_format`."""
    fmt = data_format_of(data_format, op)
    x = _tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError(at_user(f"{op}: expected images of rank 3 (one image) or 4 (a "
                                 f"batch), received shape {x.shape}"))
    single = x.ndim == 3
    if single:
        x = expand_dims(x, 0)
    if fmt == "channels_first":
        x = transpose(x, (0, 2, 3, 1))

    def undo(y):
        if fmt == "channels_first":
            y = transpose(y, (0, 3, 1, 2))
        return squeeze(y, 0) if single else y
    return x, undo


def _float(x):
    return x if x.dtype in FLOATS else cast(x, "float32")


def _along(x, weights, axis):
    """x (N, ..., C) contracted with weights (in, out) along `axis`, by one matmul."""
    shape = x.shape
    after = int(np.prod(shape[axis + 1:]))
    before = shape[1:axis]
    if any(d is None for d in shape[axis:]) or any(d is None for d in before):
        raise ShapeError(at_user(f"expected known spatial and channel sizes, received "
                                 f"images of shape {shape}"))
    flat = reshape(x, (-1, shape[axis], after))
    y = matmul(constant(weights.T, dtype=x.dtype), flat)
    return reshape(y, (-1,) + tuple(before) + (weights.shape[1],) + tuple(shape[axis + 1:]))


# ---- resampling weights (host) ---------------------------------------------------------------

def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = np.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return np.where(x >= 2.0, 0.0, out)


def _lanczos(radius):
    def kernel(x):
        y = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(x > 1e-3, y / np.where(x != 0, np.pi ** 2 * x ** 2, 1.0), 1.0)
        return np.where(x > radius, 0.0, out)
    return kernel


_KERNELS = {"linear": _triangle, "bilinear": _triangle, "trilinear": _triangle,
            "triangle": _triangle, "cubic": _keys_cubic, "bicubic": _keys_cubic,
            "tricubic": _keys_cubic, "lanczos3": _lanczos(3), "lanczos5": _lanczos(5)}


def _weights(in_size, out_size, scale, translation, kernel, antialias):
    """JAX's scale_and_translate weight matrix (in_size, out_size), in float64."""
    inv = 1.0 / scale
    kernel_scale = max(inv, 1.0) if antialias else 1.0
    sample = (np.arange(out_size) + 0.5) * inv - translation * inv - 0.5
    x = np.abs(sample[None, :] - np.arange(in_size)[:, None]) / kernel_scale
    w = kernel(x)
    total = w.sum(axis=0, keepdims=True)
    w = np.where(np.abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
                 w / np.where(total != 0, total, 1.0), 0.0)
    inside = (sample >= -0.5) & (sample <= in_size - 0.5)
    return np.where(inside[None, :], w, 0.0)


def _nearest(x, axis, out_size):
    in_size = x.shape[axis]
    offsets = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * \
        np.float32(in_size) / np.float32(out_size)
    index = np.floor(offsets.astype(np.float32)).astype(np.int64)
    return gather(x, constant(index), axis=axis)


def _resample(x, size, method, antialias):
    """NHWC x resized to `size` (h, w) as jax.image.resize."""
    for axis, out in ((1, size[0]), (2, size[1])):
        n = x.shape[axis]
        if n == out:
            continue
        if method == "nearest":
            x = _nearest(x, axis, out)
        else:
            x = _along(x, _weights(n, out, out / n, 0.0, _KERNELS[method], antialias), axis)
    return x


# ---- resize ----------------------------------------------------------------------------------

def _aspect(x, target, crop, fill_value):
    """Keras's crop_to_aspect_ratio / pad_to_aspect_ratio, on NHWC x."""
    height, width = x.shape[1:3]
    th, tw = target
    if crop:
        ch = max(min(height, int(float(width * th) / tw)), 1)
        cw = max(min(width, int(float(height * tw) / th)), 1)
        top, left = int(float(height - ch) / 2), int(float(width - cw) / 2)
        return x[:, top:top + ch, left:left + cw]
    ph = max(height, int(float(width * th) / tw))
    pw = max(width, int(float(height * tw) / th))
    top, left = int(float(ph - height) / 2), int(float(pw - width) / 2)
    if top > 0:
        return pad(x, ((0, 0), (top, top), (0, 0), (0, 0)), constant_values=fill_value)
    if left > 0:
        return pad(x, ((0, 0), (0, 0), (left, left), (0, 0)), constant_values=fill_value)
    return x


def resize(images, size, interpolation="bilinear", antialias=False,
           crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode="constant",
           fill_value=0.0, data_format=None):
    """Images resized to `size`, as `keras.ops.image.resize` (on JAX: jax.image.resize).

    Args:
        images: rank 3 (H, W, C) or rank 4 (N, H, W, C) ("channels_last"), or channels
            first; integer images compute in float32.
        size: (height, width) of the output.
        interpolation: "bilinear", "nearest", "bicubic" (Keys, a = -0.5), "lanczos3",
            "lanczos5".
        antialias: widen the kernel when downsampling (a low-pass filter).
        crop_to_aspect_ratio: first crop the largest centered box of the target's
            aspect ratio.
        pad_to_aspect_ratio: first pad (with fill_value) to the target's aspect ratio.
        fill_mode: "constant" only, as Keras.
        fill_value: the padding value.
        data_format: "channels_last" (default) or "channels_first".

    Returns:
        The resized images, float.

    Raises:
        ValueError: an unknown interpolation, a bad size, both aspect-ratio options.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(16, dtype=np.float32).reshape(4, 4, 1)
        >>> pd.ops.image.resize(x, (2, 2), interpolation="nearest").numpy()[:, :, 0].tolist()
        [[5.0, 7.0], [13.0, 15.0]]
    """
    op = "resize"
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(at_user(f"{op}: expected interpolation one of "
                                 f"{RESIZE_INTERPOLATIONS}, received {interpolation!r}"))
    if fill_mode != "constant":
        raise ValueError(at_user(f"{op}: only fill_mode 'constant' is supported (as Keras), "
                                 f"received {fill_mode!r}"))
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(at_user(f"{op}: only one of crop_to_aspect_ratio and "
                                 f"pad_to_aspect_ratio can be True"))
    if not isinstance(size, (tuple, list)) or len(size) != 2 or \
            not all(is_int(s) and s >= 1 for s in size):
        raise ValueError(at_user(f"{op}: expected size as (height, width) of ints >= 1, "
                                 f"received {size!r}"))
    x, undo = _images(images, data_format, op)
    if x.shape[1] is None or x.shape[2] is None:
        raise ShapeError(at_user(f"{op}: expected known image sizes, received shape "
                                 f"{x.shape}"))
    x = _float(x)
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        x = _aspect(x, tuple(size), crop_to_aspect_ratio, float(fill_value))
    return undo(_resample(x, tuple(int(s) for s in size), interpolation, antialias))


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """Resample `images` along `spatial_dims` with a scale and a translation, as
    `keras.ops.image.scale_and_translate` (jax.image.scale_and_translate).

    Args:
        images: a float tensor of any rank.
        output_shape: the full output shape (images' rank).
        scale, translation: one number per spatial dim, known when the graph is built
            (arrays or lists: the weights are built from them on the host).
        spatial_dims: the axes to resample.
        method: "linear"/"bilinear"/"trilinear"/"triangle", "cubic"/"bicubic"/"tricubic",
            "lanczos3" or "lanczos5".
        antialias: widen the kernel when downsampling.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
        >>> pd.ops.image.scale_and_translate(x, (4,), [1.0], [1.0], (0,), "linear").numpy().tolist()
        [0.0, 0.0, 1.0, 2.0]
    """
    op = "scale_and_translate"
    if method not in _KERNELS:
        raise ValueError(at_user(f"{op}: expected method one of {sorted(_KERNELS)}, received "
                                 f"{method!r}"))
    x = _float(_tensor(images))
    output_shape = tuple(output_shape)
    if len(output_shape) != x.ndim or not all(is_int(d) and d >= 0 for d in output_shape):
        raise ValueError(at_user(f"{op}: expected output_shape of {x.ndim} ints (the images' "
                                 f"rank), received {output_shape!r}"))
    if any(isinstance(v, Variable) for v in (scale, translation)):
        raise TypeError(at_user(f"{op}: expected scale and translation known when the graph "
                                f"is built (numbers or arrays), received a Variable"))
    dims = [int(d) % x.ndim if is_int(d) else d for d in spatial_dims]
    scale = np.asarray(scale, np.float64).reshape(-1)
    translation = np.asarray(translation, np.float64).reshape(-1)
    if not all(is_int(d) for d in dims) or len(scale) != len(dims) or \
            len(translation) != len(dims):
        raise ValueError(at_user(f"{op}: expected one scale and one translation per spatial "
                                 f"dim, received spatial_dims={spatial_dims!r}, "
                                 f"scale={scale.tolist()}, translation={translation.tolist()}"))
    if any(x.shape[d] is None for d in dims) or \
            any(o != s for i, (o, s) in enumerate(zip(output_shape, x.shape))
                if i not in dims and s is not None):
        raise ShapeError(at_user(f"{op}: expected output_shape {output_shape} to differ from "
                                 f"the images' shape {x.shape} only along known spatial_dims "
                                 f"{tuple(dims)}"))
    for d, s, t in zip(dims, scale, translation):
        w = _weights(x.shape[d], output_shape[d], s, t, _KERNELS[method], antialias)
        moved = transpose(x, tuple(a for a in range(x.ndim) if a != d) + (d,)) \
            if d != x.ndim - 1 else x
        y = matmul(moved, constant(w, dtype=x.dtype))
        if d != x.ndim - 1:
            back = list(range(x.ndim - 1))
            back.insert(d, x.ndim - 1)
            y = transpose(y, tuple(back))
        x = y
    return x


# ---- padding and cropping --------------------------------------------------------------------

def _two_of(a, b, target, names, op):
    if [a, b, target].count(None) != 1:
        raise ValueError(at_user(f"{op}: expected exactly two of {', '.join(names)}, "
                                 f"received {names[0]}={a}, {names[1]}={b}, {names[2]}={target}"))
    for value, name in zip((a, b, target), names):
        if value is not None and (not is_int(value) or value < 0):
            raise ValueError(at_user(f"{op}: expected {name} as an int >= 0, received "
                                     f"{value!r}"))


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Images padded with zeros, as `keras.ops.image.pad_images`: give two of top, bottom
    and target height, and two of left, right and target width.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.ones((2, 2, 1), np.float32)
        >>> pd.ops.image.pad_images(x, 1, 0, target_height=4, target_width=3).shape
        (4, 3, 1)
    """
    op = "pad_images"
    _two_of(top_padding, bottom_padding, target_height,
            ("top_padding", "bottom_padding", "target_height"), op)
    _two_of(left_padding, right_padding, target_width,
            ("left_padding", "right_padding", "target_width"), op)
    x, undo = _images(images, data_format, op)
    height, width = x.shape[1:3]
    if (height is None and None in (top_padding, bottom_padding)) or \
            (width is None and None in (left_padding, right_padding)):
        raise ShapeError(at_user(f"{op}: a target size needs known image sizes, received "
                                 f"shape {x.shape}"))
    top = target_height - bottom_padding - height if top_padding is None else top_padding
    bottom = target_height - top - height if bottom_padding is None else bottom_padding
    left = target_width - right_padding - width if left_padding is None else left_padding
    right = target_width - left - width if right_padding is None else right_padding
    for value, name in ((top, "top_padding"), (bottom, "bottom_padding"),
                        (left, "left_padding"), (right, "right_padding")):
        if value < 0:
            raise ValueError(at_user(f"{op}: {name} must be >= 0 for images of shape "
                                     f"{x.shape}, received {name}={value}"))
    return undo(pad(x, ((0, 0), (top, bottom), (left, right), (0, 0))))


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """A box cut from the images, as `keras.ops.image.crop_images`: give two of top,
    bottom and target height, and two of left, right and target width.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(16, dtype=np.float32).reshape(4, 4, 1)
        >>> y = pd.ops.image.crop_images(x, 1, 1, target_height=2, target_width=2)
        >>> y.numpy()[:, :, 0].tolist()
        [[5.0, 6.0], [9.0, 10.0]]
    """
    op = "crop_images"
    _two_of(top_cropping, bottom_cropping, target_height,
            ("top_cropping", "bottom_cropping", "target_height"), op)
    _two_of(left_cropping, right_cropping, target_width,
            ("left_cropping", "right_cropping", "target_width"), op)
    x, undo = _images(images, data_format, op)
    height, width = x.shape[1:3]
    if height is None or width is None:
        raise ShapeError(at_user(f"{op}: expected known image sizes, received shape "
                                 f"{x.shape}"))
    top = height - target_height - bottom_cropping if top_cropping is None else top_cropping
    th = height - bottom_cropping - top if target_height is None else target_height
    left = width - target_width - right_cropping if left_cropping is None else left_cropping
    tw = width - right_cropping - left if target_width is None else target_width
    if top < 0 or left < 0 or th < 0 or tw < 0 or top + th > height or left + tw > width:
        raise ValueError(at_user(f"{op}: the box (top {top}, left {left}, height {th}, width "
                                 f"{tw}) does not fit in images of shape {x.shape}"))
    return undo(x[:, top:top + th, left:left + tw])


# ---- colour ----------------------------------------------------------------------------------

def _channels(x, op, allowed=(3,)):
    if x.shape[-1] not in allowed:
        raise ValueError(at_user(f"{op}: expected {' or '.join(map(str, allowed))} channels, "
                                 f"received images of shape {x.shape}"))


def rgb_to_grayscale(images, data_format=None):
    """Luma of RGB images (weights 0.2989, 0.5870, 0.1140), one channel kept, as
    `keras.ops.image.rgb_to_grayscale`; one-channel images come back as they are.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([[[1.0, 1.0, 1.0]]], np.float32)
        >>> round(float(pd.ops.image.rgb_to_grayscale(x).numpy()[0, 0, 0]), 4)
        0.9999
    """
    op = "rgb_to_grayscale"
    x, undo = _images(images, data_format, op)
    _channels(x, op, (1, 3))
    if x.shape[-1] == 1:
        return _tensor(images)
    dtype = x.dtype
    weights = constant(np.array([[0.2989], [0.5870], [0.1140]]), dtype=_float(x).dtype)
    y = matmul(_float(x), weights)
    return undo(y if y.dtype == dtype else cast(y, dtype))


def _float_images(images, data_format, op):
    x, undo = _images(images, data_format, op)
    if x.dtype not in FLOATS:
        raise ValueError(at_user(f"{op}: expected float images, received dtype {x.dtype}"))
    _channels(x, op)
    return x, undo


def rgb_to_hsv(images, data_format=None):
    """RGB float images to HSV (all channels in [0, 1]), as `keras.ops.image.rgb_to_hsv`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.image.rgb_to_hsv(np.array([[[0.0, 1.0, 0.0]]])).numpy().round(4).tolist()
        [[[0.3333, 1.0, 1.0]]]
    """
    x, undo = _float_images(images, data_format, "rgb_to_hsv")
    # one op (paddle/lowlevel/ops/color.py: one pass over the pixels), Keras's formula
    return undo(_color.rgb_to_hsv(x))


def hsv_to_rgb(images, data_format=None):
    """HSV float images to RGB, as `keras.ops.image.hsv_to_rgb` (hue taken modulo 1).

    Example:
        >>> import numpy as np, paddle as pd
        >>> hsv = np.array([[[1 / 3, 1.0, 1.0]]], np.float32)
        >>> pd.ops.image.hsv_to_rgb(hsv).numpy().round(4).tolist()
        [[[0.0, 1.0, 0.0]]]
    """
    x, undo = _float_images(images, data_format, "hsv_to_rgb")
    return undo(_color.hsv_to_rgb(x))


# ---- filters and patches ---------------------------------------------------------------------

def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Images blurred by a Gaussian (zero padding, "same" size), as
    `keras.ops.image.gaussian_blur` (which builds the kernel's rows from kernel_size[1],
    sigma[1] and its columns from kernel_size[0], sigma[0]).

    Args:
        kernel_size: two ints >= 1.
        sigma: two positive numbers, known when the graph is built.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.zeros((3, 3, 1), np.float32); x[1, 1] = 1.0
        >>> round(float(pd.ops.image.gaussian_blur(x).numpy().sum()), 5)
        1.0
    """
    op = "gaussian_blur"
    size = (kernel_size, kernel_size) if is_int(kernel_size) else tuple(kernel_size)
    if len(size) != 2 or not all(is_int(k) and k >= 1 for k in size):
        raise ValueError(at_user(f"{op}: expected kernel_size as two ints >= 1, received "
                                 f"{kernel_size!r}"))
    if isinstance(sigma, Variable):
        raise TypeError(at_user(f"{op}: expected sigma known when the graph is built, "
                                f"received a Variable"))
    sig = np.broadcast_to(np.asarray(sigma, np.float64), (2,))
    if not np.all(sig > 0):
        raise ValueError(at_user(f"{op}: expected positive sigma, received {sigma!r}"))
    x, undo = _images(images, data_format, op)
    x = _float(x)

    def taps(n, s):
        t = np.arange(n) - (n - 1) / 2.0
        k = np.exp(-0.5 * (t / s) ** 2)
        return k / k.sum()
    kernel2d = np.outer(taps(size[1], sig[1]), taps(size[0], sig[0]))
    c = x.shape[-1]
    kernel = np.broadcast_to(kernel2d[:, :, None, None], kernel2d.shape + (c, 1))
    return undo(depthwise_conv(x, constant(np.ascontiguousarray(kernel), dtype=x.dtype),
                               padding="same"))


def sobel_edges(images, data_format=None):
    """Sobel derivatives of a batch of images, as `keras.ops.image.sobel_edges`: zero
    padding ("same" size), stacked as [d/dy, d/dx] on a new last axis.

    Returns:
        (N, H, W, C, 2) for channels_last, (N, C, H, W, 2) for channels_first.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.tile(np.arange(4, dtype=np.float32), (4, 1))[None, :, :, None]
        >>> pd.ops.image.sobel_edges(x).numpy()[0, 1, 1, 0].tolist()   # [dy, dx]
        [0.0, 8.0]
    """
    op = "sobel_edges"
    fmt = data_format_of(data_format, op)
    x = _float(_tensor(images))
    if x.ndim != 4:
        raise ValueError(at_user(f"{op}: expected a batch of images (rank 4), received "
                                 f"shape {x.shape}"))
    if fmt == "channels_first":
        x = transpose(x, (0, 2, 3, 1))
    c = x.shape[-1]
    dx = np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    kernels = np.stack([dx.T, dx], axis=-1)                      # (3, 3, [dy, dx])
    kernel = np.broadcast_to(kernels[:, :, None, :], (3, 3, c, 2))
    y = depthwise_conv(x, constant(np.ascontiguousarray(kernel), dtype=x.dtype),
                       padding="same")                           # channel c * 2 + k
    y = reshape(y, (-1,) + tuple(x.shape[1:3]) + (c, 2))
    return transpose(y, (0, 3, 1, 2, 4)) if fmt == "channels_first" else y


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """Structural similarity per image pair (Gaussian windows, "valid" positions, averaged
    over positions and channels), as `keras.ops.image.ssim`.

    Returns:
        (batch,) values, or a scalar for single images, in the images' dtype.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.random.default_rng(0).random((16, 16, 3)).astype(np.float32)
        >>> round(float(pd.ops.image.ssim(x, x).numpy()), 5)
        1.0
    """
    op = "ssim"
    a, _ = _images(image1, data_format, op)
    b, _ = _images(image2, data_format, op)
    if a.shape != b.shape:
        raise ValueError(at_user(f"{op}: expected two images of one shape, received "
                                 f"{a.shape} and {b.shape}"))
    if not is_int(filter_size) or filter_size < 1:
        raise ValueError(at_user(f"{op}: expected filter_size as an int >= 1, received "
                                 f"{filter_size!r}"))
    dtype = a.dtype
    a, b = _float(a), _float(b)
    h, w, c = a.shape[1:]
    if None in (h, w, c):
        raise ShapeError(at_user(f"{op}: expected known image sizes, received {a.shape}"))
    t = np.arange(filter_size) - (filter_size - 1) / 2.0
    g = np.exp(-t ** 2 / (2.0 * filter_sigma ** 2))
    g /= g.sum()
    kernel = constant(np.outer(g, g)[:, :, None, None], dtype=a.dtype)

    def blur(v):  # each channel as its own image, one "valid" conv
        return conv(reshape(transpose(v, (0, 3, 1, 2)), (-1, h, w, 1)), kernel)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = blur(a), blur(b)
    var1 = blur(a * a) - mu1 * mu1
    var2 = blur(b * b) - mu2 * mu2
    cov = blur(a * b) - mu1 * mu2
    ratio = (2.0 * mu1 * mu2 + c1) * (2.0 * cov + c2) / \
        ((mu1 * mu1 + mu2 * mu2 + c1) * (var1 + var2 + c2))
    per_image = mean(reshape(mean(ratio, axis=(1, 2, 3)), (-1, c)), axis=-1)
    per_image = per_image if per_image.dtype == dtype else cast(per_image, dtype)
    return squeeze(per_image, 0) if _tensor(image1).ndim == 3 else per_image


def _patches(images, size, strides, dilation_rate, padding, data_format, n, op):
    sizes = (size,) * n if is_int(size) else tuple(size)
    if len(sizes) != n or not all(is_int(s) and s >= 1 for s in sizes):
        raise TypeError(at_user(f"{op}: expected size as an int or {n} ints >= 1, received "
                                f"{size!r}"))
    fmt = data_format_of(data_format, op)
    x = _tensor(images)
    single = x.ndim == n + 1
    if x.ndim not in (n + 1, n + 2):
        raise ValueError(at_user(f"{op}: expected inputs of rank {n + 1} or {n + 2}, received "
                                 f"shape {x.shape}"))
    if single:
        x = expand_dims(x, 0)
    channels = x.shape[-1] if fmt == "channels_last" else x.shape[1]
    if channels is None:
        raise ShapeError(at_user(f"{op}: expected a known channel size, received shape "
                                 f"{x.shape}"))
    out = int(np.prod(sizes)) * channels
    kernel = np.eye(out).reshape(sizes + (channels, out))
    x = _float(x)
    y = conv(x, constant(kernel, dtype=x.dtype), strides=strides or sizes, padding=padding,
             data_format=fmt, dilation_rate=dilation_rate)
    return squeeze(y, 0) if single else y


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Patches of the images laid out along the channels, as
    `keras.ops.image.extract_patches` (a 3-element size gives 3-D patches of volumes).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
        >>> pd.ops.image.extract_patches(x, 2).numpy()[0, 0, 0].tolist()
        [0.0, 1.0, 4.0, 5.0]
    """
    if not is_int(size) and len(size) == 3:
        return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    return _patches(images, size, strides, dilation_rate, padding, data_format, 2,
                    "extract_patches")


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """3-D patches of volumes (N, D, H, W, C) laid out along the channels, as
    `keras.ops.image.extract_patches_3d`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.ones((1, 4, 4, 4, 1), np.float32)
        >>> pd.ops.image.extract_patches_3d(x, 2).shape
        (1, 2, 2, 2, 8)
    """
    return _patches(volumes, size, strides, dilation_rate, padding, data_format, 3,
                    "extract_patches_3d")
