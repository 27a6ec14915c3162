"""Color space conversions of images whose last axis holds 3 channels: rgb_to_hsv and
hsv_to_rgb as ops (one pass over the pixels: csrc/color.cpp, one ElementwiseKernel on
CUDA), with the same arithmetic, step by step, as their compositions of elementwise ops
below (`rgb_to_hsv_ops`, `hsv_to_rgb_ops`: Keras's formulas), whose gradients are theirs.

As ops of elementwise nodes the conversions took 13 passes over memory (three channel
slices, a dozen fused groups, the stack of the result): 2.4-2.5 times JAX's time.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel.ops.color import hsv_to_rgb, rgb_to_hsv
    >>> hsv = rgb_to_hsv(pd.constant(np.array([[0.0, 1.0, 0.0]])))
    >>> pd.eval(hsv).round(4).tolist()
    [[0.3333, 1.0, 1.0]]
    >>> pd.eval(hsv_to_rgb(hsv)).round(4).tolist()
    [[0.0, 1.0, 0.0]]
"""
import numpy as np

from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.graph import apply, as_variable
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import abs as _abs, cast, clip, less, maximum, minimum, where
from paddle.lowlevel.ops.shape import stack
from paddle.lowlevel.ops.special import floor

# The dtypes the kernels compute in; float16 and bfloat16 images take the compositions.
KERNEL_DTYPES = ("float32", "float64")


def rgb_to_hsv_ops(x):
    """HSV of RGB images x (float, channels last) from elementwise ops: Keras's formula
    (values within eps of 0 taken as 0; hue 0 where the pixel is gray)."""
    eps = float(np.finfo(x.dtype).eps)
    x = where(less(_abs(x), eps), 0.0, x)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    value = maximum(maximum(r, g), b)
    low = minimum(minimum(r, g), b)
    span = value - low
    safe_value = where(value > 0.0, value, 1.0)
    safe_span = where(span > 0.0, span, 1.0)
    saturation = where(value > 0.0, span / safe_value, 0.0)
    norm = 1.0 / (6.0 * safe_span)
    hue = where(value == g, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0)
    hue = where(value == r, norm * (g - b), hue)
    hue = where(span > 0.0, hue, 0.0) + cast(less(hue, 0.0), x.dtype)
    return stack([hue, saturation, value], axis=-1)


def hsv_to_rgb_ops(x):
    """RGB of HSV images x (float, channels last) from elementwise ops: Keras's formula
    (hue taken modulo 1)."""
    hue, saturation, value = x[..., 0], x[..., 1], x[..., 2]
    dh = (hue - floor(hue)) * 6.0
    dr = clip(_abs(dh - 3.0) - 1.0, 0.0, 1.0)
    dg = clip(2.0 - _abs(dh - 2.0), 0.0, 1.0)
    db = clip(2.0 - _abs(dh - 4.0), 0.0, 1.0)
    rest = 1.0 - saturation
    return stack([value * (rest + saturation * d) for d in (dr, dg, db)], axis=-1)


class _ColorConversion(Op):
    composition = None

    def infer(self, x):
        shape, dtype = x
        if dtype not in KERNEL_DTYPES:
            raise TypeError(f"{self.name}: expected float32 or float64 images, received "
                            f"{dtype}")
        if not shape or shape[-1] not in (3, None):
            self.fail("expected 3 channels on the last axis", ("x", shape))
        return shape, dtype

    def grad(self, node, g):
        # The composition's gradient: the same values, step by step, built from ops.
        x = node.inputs[0]
        return gradients([type(self).composition(x)], [x], [g[0]])


@register
class RgbToHsv(_ColorConversion):
    """HSV of RGB images (last axis: red, green, blue), as `rgb_to_hsv_ops` computes it."""

    name = "rgb_to_hsv"
    composition = staticmethod(rgb_to_hsv_ops)


@register
class HsvToRgb(_ColorConversion):
    """RGB of HSV images (last axis: hue, saturation, value), as `hsv_to_rgb_ops`."""

    name = "hsv_to_rgb"
    composition = staticmethod(hsv_to_rgb_ops)


def rgb_to_hsv(x):
    """HSV of RGB images x (float, channels last): one pass over the pixels for float32
    and float64, the composition for the half-precision dtypes.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.lowlevel.ops.color import rgb_to_hsv
        >>> pd.eval(rgb_to_hsv(pd.constant(np.array([[1.0, 0.0, 0.0]])))).tolist()
        [[0.0, 1.0, 1.0]]
    """
    x = as_variable(x, where="rgb_to_hsv")
    if x.dtype not in KERNEL_DTYPES:
        return rgb_to_hsv_ops(x)
    return apply(OPS["rgb_to_hsv"], [x], {})


def hsv_to_rgb(x):
    """RGB of HSV images x (float, channels last): one pass over the pixels for float32
    and float64, the composition for the half-precision dtypes.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.lowlevel.ops.color import hsv_to_rgb
        >>> pd.eval(hsv_to_rgb(pd.constant(np.array([[0.5, 1.0, 1.0]])))).tolist()
        [[0.0, 1.0, 1.0]]
    """
    x = as_variable(x, where="hsv_to_rgb")
    if x.dtype not in KERNEL_DTYPES:
        return hsv_to_rgb_ops(x)
    return apply(OPS["hsv_to_rgb"], [x], {})
