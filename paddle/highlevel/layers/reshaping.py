"""Reshaping layers: UpSampling1D/2D, ZeroPadding1D/2D, Cropping1D/2D, RepeatVector.

All are built from the low-level shape ops (reshape, broadcasting, pad, slices), so their
gradients come from those ops. The spatial sizes must be known when the layer is built
(the batch may be None).

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(4, 4, 3))
    >>> pd.layers.UpSampling2D(2)(x).shape, pd.layers.ZeroPadding2D(1)(x).shape
    ((None, 8, 8, 3), (None, 6, 6, 3))
    >>> pd.layers.Cropping2D(((1, 0), (0, 2)))(x).shape
    (None, 3, 2, 3)
"""
import numbers

import numpy as np

from paddle import _settings as settings
from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import constant
from paddle.lowlevel.ops.math import mul
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.shape import expand_dims, pad, reshape, transpose
from paddle.highlevel.layers.base import InputSpec, Layer


def _count(value, layer, name, zero=True):
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and \
        (value >= 0 if zero else value >= 1)
    if not ok:
        expected = "an integer >= 0" if zero else "a positive integer"
        raise ValueError(f"{layer}: expected {name} as {expected}, received {value!r}")
    return int(value)


def _pairs(value, n, layer, name, zero=True):
    """Keras's forms: an int (same everywhere), n ints (one per axis, or (before, after) for
    n == 1 meaning the pair), or n (before, after) pairs -> n pairs of ints."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        v = _count(value, layer, name, zero)
        return ((v, v),) * n
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{layer}: expected {name} as an int, {n} ints or {n} (before, after) "
                         f"pairs, received {value!r}")
    if n == 1 and len(value) == 2 and all(isinstance(v, numbers.Integral) for v in value):
        return ((_count(value[0], layer, name, zero), _count(value[1], layer, name, zero)),)
    if len(value) != n:
        raise ValueError(f"{layer}: expected {name} as an int, {n} ints or {n} (before, after) "
                         f"pairs, received {value!r}")
    out = []
    for v in value:
        if isinstance(v, (list, tuple)) and len(v) == 2:
            out.append((_count(v[0], layer, name, zero), _count(v[1], layer, name, zero)))
        else:
            c = _count(v, layer, name, zero)
            out.append((c, c))
    return tuple(out)


def _data_format(value, layer):
    value = settings.image_data_format() if value is None else value
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"{layer}: expected data_format 'channels_last' or 'channels_first', "
                         f"received {value!r}")
    return value


def _spatial_axes(rank, data_format):
    return list(range(1, rank - 1)) if data_format == "channels_last" else list(range(2, rank))


def _known(layer, shape, axes):
    for a in axes:
        if shape[a] is None:
            raise ShapeError(at_user(f"{layer.name}: expected known sizes on axes {axes}, "
                                     f"received shape {tuple(shape)}"))


# Outputs beyond this many values per example are refused when the layer is built: a
# factor of 2**40 would otherwise fail later as a bare MemoryError of NumPy's.
MAX_VALUES = 2 ** 31


def _check_output(layer, input_shape, output_shape):
    values = 1
    for d in output_shape[1:]:
        values *= d
    if values > MAX_VALUES:
        raise ValueError(at_user(f"{layer.name}: the output {tuple(output_shape)} of an input "
                                 f"{tuple(input_shape)} would hold {values} values per example "
                                 f"(more than 2**31)"))


def _repeat(x, axis, times):
    """Each element of x repeated `times` times along `axis` (nearest-neighbour upsampling):
    a new axis after `axis`, broadcast by a product with ones, then merged."""
    if times == 1:
        return x
    y = expand_dims(x, axis + 1)
    ones = np.ones([times if i == axis + 1 else 1 for i in range(y.ndim)], x.dtype)
    y = mul(y, constant(ones, dtype=x.dtype))
    shape = [-1] + [d * times if i == axis else d for i, d in enumerate(x.shape) if i > 0]
    return reshape(y, tuple(shape))


def _bilinear_matrix(size, scale):
    """(size * scale, size) weights of half-pixel bilinear resizing (TF's and JAX's
    `resize(..., "bilinear")` when enlarging, as Keras's UpSampling2D)."""
    out = size * scale
    m = np.zeros((out, size))
    for i in range(out):
        src = min(max((i + 0.5) / scale - 0.5, 0.0), size - 1)
        lo = int(np.floor(src))
        hi = min(lo + 1, size - 1)
        frac = src - lo
        m[i, lo] += 1 - frac
        m[i, hi] += frac
    return m


class UpSampling1D(Layer):
    """Repeats each time step `size` times: (batch, steps, features) -> (batch, steps *
    size, features).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.UpSampling1D(2)(np.array([[[1.0], [2.0]]], np.float32))[0, :, 0].tolist()
        [1.0, 1.0, 2.0, 2.0]
    """

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = _count(size, "UpSampling1D", "size", zero=False)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        self.input_spec.check(self, input_shape)
        _known(self, input_shape, [1, 2])
        _check_output(self, input_shape, (None, input_shape[1] * self.size, input_shape[2]))

    def call(self, inputs, training=False):
        return _repeat(inputs, 1, self.size)

    def get_config(self):
        return {**super().get_config(), "size": self.size}


class UpSampling2D(Layer):
    """Enlarges images by (size_rows, size_cols), repeating pixels ("nearest") or
    interpolating them ("bilinear", half-pixel centres as Keras's backends).

    Args:
        size: an int or (rows, cols) factors.
        data_format: "channels_last" (default) or "channels_first".
        interpolation: "nearest" or "bilinear".

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
        >>> pd.layers.UpSampling2D(2)(x)[0, :, :, 0].tolist()[0]
        [0.0, 0.0, 1.0, 1.0]
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        sizes = (size, size) if isinstance(size, numbers.Integral) else size
        if not isinstance(sizes, (list, tuple)) or len(sizes) != 2:
            raise ValueError(f"UpSampling2D: expected size as an int or 2 ints, received "
                             f"{size!r}")
        self.size = tuple(_count(s, "UpSampling2D", "size", zero=False) for s in sizes)
        self.data_format = _data_format(data_format, "UpSampling2D")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"UpSampling2D: expected interpolation 'nearest' or 'bilinear', "
                             f"received {interpolation!r}")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape):
        self.input_spec.check(self, input_shape)
        _known(self, input_shape, [1, 2, 3])
        rows, cols = _spatial_axes(4, self.data_format)
        out = list(input_shape)
        out[rows], out[cols] = out[rows] * self.size[0], out[cols] * self.size[1]
        _check_output(self, input_shape, out)

    def call(self, inputs, training=False):
        rows, cols = _spatial_axes(4, self.data_format)
        if self.interpolation == "nearest":
            return _repeat(_repeat(inputs, rows, self.size[0]), cols, self.size[1])
        # bilinear: rows and columns are each a matrix product with fixed weights
        x = inputs if self.data_format == "channels_first" else transpose(inputs, (0, 3, 1, 2))
        a_rows = constant(_bilinear_matrix(x.shape[2], self.size[0]), dtype=x.dtype)
        a_cols = constant(_bilinear_matrix(x.shape[3], self.size[1]).T, dtype=x.dtype)
        y = matmul(matmul(a_rows, x), a_cols)
        return y if self.data_format == "channels_first" else transpose(y, (0, 2, 3, 1))

    def get_config(self):
        return {**super().get_config(), "size": list(self.size),
                "data_format": self.data_format, "interpolation": self.interpolation}


class _Padding(Layer):
    rank = 1

    def __init__(self, padding, data_format=None, **kwargs):
        super().__init__(**kwargs)
        owner = type(self).__name__
        self.padding = _pairs(padding, self.rank, owner, "padding")
        self.data_format = _data_format(data_format, owner)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape):
        self.input_spec.check(self, input_shape)

    def _paddings(self, ndim):
        pairs = [(0, 0)] * ndim
        for axis, pair in zip(_spatial_axes(ndim, self.data_format), self.padding):
            pairs[axis] = pair
        return pairs

    def call(self, inputs, training=False):
        return pad(inputs, self._paddings(inputs.ndim))

    def get_config(self):
        return {**super().get_config(), "padding": [list(p) for p in self.padding],
                "data_format": self.data_format}


class ZeroPadding1D(_Padding):
    """Zeros before and after the time axis: `padding` an int or (before, after);
    `data_format` "channels_last" (default: (batch, steps, features)) or "channels_first"
    ((batch, features, steps)), as Keras 3.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.ZeroPadding1D((1, 2))(np.ones((1, 1, 1), np.float32))[0, :, 0].tolist()
        [0.0, 1.0, 0.0, 0.0]
    """

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding2D(_Padding):
    """Zeros around images: `padding` an int, (rows, cols) or ((top, bottom), (left, right)).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.ZeroPadding2D(((1, 0), (0, 1)))(np.ones((1, 1, 1, 1), np.float32))[0, :, :, 0].tolist()
        [[0.0, 0.0], [1.0, 0.0]]
    """

    rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding3D(_Padding):
    """Zeros around volumes: `padding` an int, 3 ints or 3 (before, after) pairs for the
    three spatial axes.

    Example:
        >>> import paddle as pd
        >>> pd.layers.ZeroPadding3D((1, 0, 2))(pd.layers.Input(shape=(2, 3, 4, 5))).shape
        (None, 4, 3, 8, 5)
    """

    rank = 3

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class UpSampling3D(Layer):
    """Enlarges volumes by repeating each voxel `size` times along the three spatial axes
    ("nearest", Keras's only mode).

    Args:
        size: an int or 3 ints.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.UpSampling3D((2, 1, 3))(pd.layers.Input(shape=(2, 3, 4, 5))).shape
        (None, 4, 3, 12, 5)
    """

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        sizes = (size,) * 3 if isinstance(size, numbers.Integral) else size
        if not isinstance(sizes, (list, tuple)) or len(sizes) != 3:
            raise ValueError(f"UpSampling3D: expected size as an int or 3 ints, received "
                             f"{size!r}")
        self.size = tuple(_count(s, "UpSampling3D", "size", zero=False) for s in sizes)
        self.data_format = _data_format(data_format, "UpSampling3D")
        self.input_spec = InputSpec(ndim=5)

    def build(self, input_shape):
        self.input_spec.check(self, input_shape)
        _known(self, input_shape, [1, 2, 3, 4])
        out = list(input_shape)
        for axis, k in zip(_spatial_axes(5, self.data_format), self.size):
            out[axis] = out[axis] * k
        _check_output(self, input_shape, out)

    def call(self, inputs, training=False):
        for axis, k in zip(_spatial_axes(5, self.data_format), self.size):
            inputs = _repeat(inputs, axis, k)
        return inputs

    def get_config(self):
        return {**super().get_config(), "size": list(self.size),
                "data_format": self.data_format}


class _Cropping(Layer):
    rank = 1

    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        owner = type(self).__name__
        self.cropping = _pairs(cropping, self.rank, owner, "cropping")
        self.data_format = _data_format(data_format, owner)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape):
        self.input_spec.check(self, input_shape)
        axes = _spatial_axes(len(input_shape), self.data_format)
        _known(self, input_shape, axes)
        for axis, (lo, hi) in zip(axes, self.cropping):
            if lo + hi >= input_shape[axis]:
                raise ShapeError(at_user(f"{self.name}: cropping {(lo, hi)} leaves nothing of "
                                         f"axis {axis} of size {input_shape[axis]} (shape "
                                         f"{tuple(input_shape)})"))

    def call(self, inputs, training=False):
        index = [slice(None)] * inputs.ndim
        for axis, (lo, hi) in zip(_spatial_axes(inputs.ndim, self.data_format), self.cropping):
            index[axis] = slice(lo, inputs.shape[axis] - hi)
        return inputs[tuple(index)]

    def get_config(self):
        config = {**super().get_config(), "cropping": [list(p) for p in self.cropping]}
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class Cropping1D(_Cropping):
    """Drops steps from the start and end of the time axis: (before, after) or an int.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Cropping1D((1, 2))(pd.layers.Input(shape=(6, 3))).shape
        (None, 3, 3)
    """

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, None, **kwargs)


class Cropping2D(_Cropping):
    """Crops rows and columns of images: an int, (rows, cols) or ((top, bottom), (left,
    right)).

    Example:
        >>> import paddle as pd
        >>> pd.layers.Cropping2D(((2, 2), (4, 4)))(pd.layers.Input(shape=(28, 28, 3))).shape
        (None, 24, 20, 3)
    """

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crops the three spatial axes of volumes: an int, 3 ints or 3 (before, after) pairs.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Cropping3D(((1, 1), (0, 1), (2, 0)))(pd.layers.Input(shape=(4, 3, 5, 2))).shape
        (None, 2, 2, 3, 2)
    """

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class RepeatVector(Layer):
    """Repeats a (batch, features) input n times: (batch, n, features).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.RepeatVector(3)(np.array([[1.0, 2.0]], np.float32)).tolist()
        [[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]]
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = _count(n, "RepeatVector", "n", zero=False)
        self.input_spec = InputSpec(ndim=2)

    def build(self, input_shape):
        self.input_spec.check(self, input_shape)
        if input_shape[1] is not None:
            _check_output(self, input_shape, (None, self.n, input_shape[1]))

    def call(self, inputs, training=False):
        ones = constant(np.ones((1, self.n, 1), inputs.dtype), dtype=inputs.dtype)
        return mul(expand_dims(inputs, 1), ones)

    def get_config(self):
        return {**super().get_config(), "n": self.n}
