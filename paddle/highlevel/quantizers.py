"""Keras's quantizer utilities (`pd.quantizers`): symmetric int8 quantization by the
absolute maximum, Keras's fake quantization, int4 packing, the float8 scaling rules, and the
quantization configs `model.quantize` takes (paddle/highlevel/quantization_config.py).

`abs_max_quantize` follows Keras's formula exactly: `scale = value_range[1] / (max|x| +
epsilon)` along `axis`, `q = clip(round(x * scale), *value_range)`, `x ~ q / scale`. On
NumPy arrays (and on parameters, or with `to_numpy=True`) it computes on the host, as
Keras's `to_numpy` path; on graph or eager tensors it builds ops, so a quantized layer
quantizes its inputs inside the graph. int8 and uint8 are storage dtypes of paddle's graph:
only `cast` reads them (paddle/lowlevel/graph.py, STORAGE_DTYPES).

Example:
    >>> import numpy as np, paddle as pd
    >>> q, scale = pd.quantizers.abs_max_quantize(np.array([[0.5, -1.0]]), axis=-1)
    >>> q.tolist(), q.dtype.name
    ([[63, -127]], 'int8')
"""
import math
import numbers

import numpy as np

from paddle.lowlevel import eager
from paddle.lowlevel.graph import FLOATS, Variable, as_variable
from paddle.lowlevel.ops import special
from paddle.lowlevel.ops.math import abs as ll_abs
from paddle.lowlevel.ops.control_flow import custom_gradient
from paddle.lowlevel.ops.math import (
    cast, clip, greater_equal, less, less_equal, maximum, where, zeros_like)
from paddle.lowlevel.ops.reduce import max as ll_max
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.shape import concat, reshape
from paddle.lowlevel.ops.shape import slice as ll_slice

INT_RANGES = {"int8": (-128, 127), "uint8": (0, 255)}
EPSILON = 1e-7  # Keras's default: backend.epsilon() when keras.quantizers is imported


def _axes(axis, ndim, where):
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    for a in axes:
        if not isinstance(a, numbers.Integral) or not -ndim <= a < ndim:
            raise ValueError(f"{where}: expected axis within [-{ndim}, {ndim}), received "
                             f"{axis!r}")
    return tuple(int(a) % ndim for a in axes)


def _as_array(inputs, where):
    if hasattr(inputs, "val") and not isinstance(inputs, np.ndarray):  # a parameter
        inputs = inputs.val()
    array = np.asarray(inputs)
    if array.dtype.kind != "f" and array.dtype.name != "bfloat16":  # ml_dtypes' is kind V
        raise TypeError(f"{where}: expected a float array, received dtype {array.dtype}")
    return array


def _symbolic(inputs):
    """Whether `inputs` is a tensor of the graph to quantize with ops (not a parameter,
    whose value the host quantizes as Keras's to_numpy path does)."""
    return isinstance(inputs, Variable) and inputs.kind != "param"


def abs_max_quantize(inputs, axis, value_range=(-127, 127), dtype="int8", epsilon=EPSILON,
                     to_numpy=False):
    """Quantize `inputs` by their absolute maximum along `axis`, as Keras's.

    Args:
        inputs: a float array, a parameter Variable (its value), or a graph or eager tensor
            (then the result is built from ops: `abs`, `max`, `rint`, `clip`, `cast`).
        axis: the axis (or axes) reduced for the scale: `-1` gives one scale per row.
        value_range: the integer range (-127, 127).
        dtype: the integer dtype of the result, "int8" or "uint8".
        epsilon: added to the maximum (Keras's 1e-7).
        to_numpy: compute on the host even for a tensor (Keras's memory-saving path).

    Returns:
        `(quantized, scale)`: the integers and the float scale (keepdims shape), so that
        `quantized / scale` approximates `inputs`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> q, s = pd.quantizers.abs_max_quantize(np.array([[2.0, -1.0]], "float32"), axis=0)
        >>> q.tolist(), s.shape
        ([[127, -127]], (1, 2))
    """
    if dtype not in INT_RANGES:
        raise ValueError(f"abs_max_quantize: expected dtype one of {', '.join(INT_RANGES)}, "
                         f"received {dtype!r}")
    low, high = value_range
    if low < INT_RANGES[dtype][0] or high > INT_RANGES[dtype][1] or low >= high:
        raise ValueError(f"abs_max_quantize: expected value_range within "
                         f"{INT_RANGES[dtype]} for {dtype}, received {value_range!r}")
    if _symbolic(inputs) and not to_numpy:
        if inputs.dtype not in FLOATS:
            raise TypeError(f"abs_max_quantize: expected a float tensor, received dtype "
                            f"{inputs.dtype}")
        axes = _axes(axis, inputs.ndim, "abs_max_quantize")
        amax = ll_max(ll_abs(inputs), axis=axes, keepdims=True)
        scale = float(high) / (amax + float(epsilon))
        quantized = clip(special.rint(inputs * scale), float(low), float(high))
        return cast(quantized, dtype), scale
    x = _as_array(inputs, "abs_max_quantize")
    axes = _axes(axis, x.ndim, "abs_max_quantize")
    scale = np.divide(high, np.max(np.abs(x), axis=axes, keepdims=True) + epsilon).astype(x.dtype)
    quantized = np.clip(np.round(x * scale), low, high).astype(dtype)
    return quantized, scale


def abs_max_quantize_grouped_with_zero_point(inputs, block_size, value_range=(-8, 7),
                                             dtype="int8", epsilon=EPSILON, to_numpy=False):
    """Asymmetric quantization of a 2-D kernel in groups of `block_size` rows (Keras's, on
    the host as its `to_numpy` path): per group and column, `scale = (max - min +
    epsilon) / (qmax - qmin)`, `zero = clip(round(-min / scale) + qmin, qmin, qmax)`,
    `q = clip(round(x / scale) + zero, qmin, qmax)`; a last, shorter group is padded
    with zeros.

    Args:
        inputs: a float array (input_dim, output_dim) (or a parameter: its value).
        block_size: the rows per group (> 0).
        value_range: the integer range, (-8, 7) for int4.
        dtype: the dtype of the quantized values ("int8" or "uint8").
        epsilon: added to each group's range.
        to_numpy: kept for Keras's signature (this always computes on the host).

    Returns:
        `(quantized, scale, zero_point)`: (input_dim, output_dim) integers, and the
        (n_groups, output_dim) float scales and int8 zero points.

    Example:
        >>> import numpy as np, paddle as pd
        >>> q, scale, zero = pd.quantizers.abs_max_quantize_grouped_with_zero_point(
        ...     np.array([[0.0], [1.5], [-1.5]], "float32"), block_size=2)
        >>> q.ravel().tolist(), scale.shape, zero.ravel().tolist()
        ([-8, 7, -8], (2, 1), [-8, 7])
    """
    x = _as_array(inputs, "abs_max_quantize_grouped_with_zero_point")
    if x.ndim != 2:
        raise ValueError(f"abs_max_quantize_grouped_with_zero_point: expected a 2-D array "
                         f"(input_dim, output_dim), received shape {x.shape}")
    if not isinstance(block_size, numbers.Integral) or block_size <= 0:
        raise ValueError(f"abs_max_quantize_grouped_with_zero_point: expected block_size an "
                         f"integer > 0, received {block_size!r}")
    input_dim, output_dim = x.shape
    n_groups = -(-input_dim // block_size)
    qmin, qmax = value_range
    padded = np.concatenate([x, np.zeros((n_groups * block_size - input_dim, output_dim),
                                         x.dtype)]).reshape(n_groups, block_size, output_dim)
    low = np.min(padded, axis=1, keepdims=True)
    high = np.max(padded, axis=1, keepdims=True)
    scale = np.divide(np.subtract(high, low) + epsilon, qmax - qmin)
    zero = np.clip(np.round(np.divide(-low, scale)) + qmin, qmin, qmax)
    quantized = np.clip(np.round(np.divide(padded, scale)) + zero, qmin, qmax).astype(dtype)
    quantized = quantized.reshape(n_groups * block_size, output_dim)[:input_dim]
    return (quantized, np.squeeze(scale, axis=1).astype(x.dtype),
            np.squeeze(zero, axis=1).astype("int8"))


def _int4_array(arr, where, dtypes):
    if isinstance(arr, Variable) and arr.kind not in ("param", "const"):
        raise TypeError(f"{where}: expected an array (int8 and uint8 are storage dtypes of "
                        f"paddle's graph: int4 packing runs on the host), received the graph "
                        f"tensor {arr.name!r}")
    array = arr.val() if isinstance(arr, Variable) and arr.kind == "param" else np.asarray(arr)
    if array.dtype.name not in dtypes:
        raise TypeError(f"{where}: expected {' or '.join(dtypes)} values, received "
                        f"{array.dtype}")
    return array


def _pack_axis(axis, ndim, where):
    if not isinstance(axis, numbers.Integral) or not -ndim <= axis < ndim:
        raise ValueError(f"{where}: expected axis within [-{ndim}, {ndim}), received {axis!r}")
    return int(axis) % ndim


def pack_int4(arr, axis=0, dtype="int8"):
    """Two int4 values in [-8, 7] per byte along `axis` (Keras's): the first of each pair
    in the low nibble, the second in the high one; an odd length is padded with a zero.

    Args:
        arr: an int8 (or uint8) array of int4 values.
        axis: the axis packed in pairs.
        dtype: "int8" or "uint8", the dtype of `arr` and of the result.

    Returns:
        `(packed, packed_shape, orig_len)`: the packed bytes, their shape, and the length
        of `axis` before padding (for `unpack_int4`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> packed, shape, n = pd.quantizers.pack_int4(np.array([[-3, 7], [2, -8], [1, 0]],
        ...                                                     np.int8))
        >>> packed.tolist(), shape, n
        ([[45, -121], [1, 0]], (2, 2), 3)
    """
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    array = _int4_array(arr, "pack_int4", (dtype,))
    axis = _pack_axis(axis, array.ndim, "pack_int4")
    array = np.moveaxis(array, axis, 0)
    n = array.shape[0]
    if n % 2:
        array = np.concatenate([array, np.zeros((1,) + array.shape[1:], array.dtype)])
    mask = np.array(0x0F, dtype)
    low = np.bitwise_and(array[::2].astype(dtype), mask)
    high = np.bitwise_and(array[1::2].astype(dtype), mask)
    packed = np.bitwise_or(low, np.left_shift(high, np.array(4, dtype))).astype(dtype)
    packed = np.ascontiguousarray(np.moveaxis(packed, 0, axis))
    return packed, tuple(packed.shape), n


def unpack_int4(packed, orig_len, axis=0, dtype="int8"):
    """The int4 values `pack_int4` packed: int8 values in [-8, 7] (or, with
    dtype="uint8", the nibbles in [0, 15]), `orig_len` of them along `axis`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.quantizers.unpack_int4(np.array([[45, -121], [1, 0]], np.int8), 3).tolist()
        [[-3, 7], [2, -8], [1, 0]]
    """
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    array = _int4_array(packed, "unpack_int4", ("int8", "uint8"))
    axis = _pack_axis(axis, array.ndim, "unpack_int4")
    moved = np.moveaxis(array, axis, 0)
    if not isinstance(orig_len, numbers.Integral) or not 0 <= orig_len <= 2 * moved.shape[0]:
        raise ValueError(f"unpack_int4: expected orig_len within [0, {2 * moved.shape[0]}] "
                         f"for {moved.shape[0]} packed rows, received {orig_len!r}")
    mask = np.array(0x0F, array.dtype)
    low = np.bitwise_and(moved, mask)
    high = np.bitwise_and(np.right_shift(moved, np.array(4, array.dtype)), mask)
    if dtype == "int8":  # nibbles [0, 15] to [-8, 7]: (x ^ 8) - 8
        eight = np.array(8, array.dtype)
        low, high = (np.subtract(np.bitwise_xor(v, eight), eight) for v in (low, high))
    stacked = np.stack([low.astype(dtype), high.astype(dtype)], axis=1)
    unpacked = stacked.reshape((-1,) + moved.shape[1:])[:orig_len]
    return np.ascontiguousarray(np.moveaxis(unpacked, 0, axis))


def _nudged(min_vals, max_vals, num_bits, narrow_range):
    """Keras's `adjust_and_nudge`: the range [min, max] moved so that 0 is a quantized
    value, with its scale and inverse scale (in float32 at least)."""
    dtype = "float64" if "float64" in (min_vals.dtype, max_vals.dtype) else "float32"
    low, high = cast(min_vals, dtype), cast(max_vals, dtype)
    quant_max, quant_min = float((1 << num_bits) - 1), 1.0 if narrow_range else 0.0
    diff = high - low
    scale = diff / (quant_max - quant_min)
    inv_scale = (quant_max - quant_min) / diff
    zero = special.rint(clip(quant_min - low / scale, quant_min, quant_max))
    return (quant_min - zero) * scale, (quant_max - zero) * scale, scale, inv_scale


def with_custom_gradient(forward, *xs):
    """`custom_gradient(forward)(*xs)`, or on eager values (nothing traced: no gradient to
    define) `forward`'s output alone, so that no eager program keeps the gradient function
    (and whatever layer it holds) in its cache."""
    if not eager.is_tracing() and all(eager.is_concrete(x) for x in xs):
        return forward(*xs)[0]
    return custom_gradient(forward)(*xs)


def fake_quant_with_min_max_vars(inputs, min_vals, max_vals, num_bits=8, narrow_range=False,
                                 axis=None):
    """Quantize `inputs` to `num_bits` levels within [min_vals, max_vals] and back (Keras's
    and TensorFlow's fake quantization): per tensor, or per channel along `axis`. The
    gradient passes `inputs`' inside the (nudged) range, and goes to `min_vals` /
    `max_vals` from the values clipped to them, so the range can be trained. Built from
    ops with Keras's custom gradient.

    Args:
        inputs: a float tensor or array.
        min_vals, max_vals: the range: scalars, or one value per channel of `axis`.
        num_bits: the bit width (levels 0 .. 2**num_bits - 1).
        narrow_range: levels from 1 instead of 0.
        axis: the channel axis (None: one range for the whole tensor).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([-1.2, -0.3, 0.0, 0.26, 2.0], "float32")
        >>> y = pd.quantizers.fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=3)
        >>> [round(float(v), 3) for v in np.asarray(y)]  # 7 steps of 2/7 around 0
        [-0.857, -0.286, 0.0, 0.286, 1.143]
    """
    if not isinstance(num_bits, numbers.Integral) or isinstance(num_bits, bool) or \
            not 2 <= num_bits <= 16:
        raise ValueError(f"fake_quant_with_min_max_vars: expected num_bits an integer in "
                         f"[2, 16], received {num_bits!r}")
    x = as_variable(inputs, where="fake_quant_with_min_max_vars")
    if x.dtype not in FLOATS:
        raise TypeError(f"fake_quant_with_min_max_vars: expected a float tensor, received "
                        f"dtype {x.dtype}")
    if axis is not None:
        axis = _axes(axis, x.ndim, "fake_quant_with_min_max_vars")[0]
    low = as_variable(min_vals, like=x, where="fake_quant_with_min_max_vars")
    high = as_variable(max_vals, like=x, where="fake_quant_with_min_max_vars")
    return with_custom_gradient(_fake_quant(int(num_bits), bool(narrow_range), axis), x, low,
                                high)


def _fake_quant(num_bits, narrow_range, axis):
    def forward(x, low, high):
        nudged_min, nudged_max, scale, inv_scale = _nudged(low, high, num_bits, narrow_range)
        quant_zero = special.floor(-nudged_min * inv_scale + 0.5)
        shifted = clip(cast(x, nudged_min.dtype), nudged_min, nudged_max) - nudged_min
        result = cast(special.floor(shifted * inv_scale - quant_zero + 0.5) * scale, x.dtype)
        inside = where(greater_equal(x, nudged_min), less_equal(x, nudged_max), False)

        def grad(upstream):
            zero = zeros_like(upstream)
            axes = None if axis is None else [i for i in range(x.ndim) if i != axis]
            below = reduce_sum(where(less_equal(x, nudged_min), upstream, zero), axis=axes)
            above = reduce_sum(where(greater_equal(x, nudged_max), upstream, zero), axis=axes)
            return (where(inside, upstream, zero), reshape(below, low.shape),
                    reshape(above, high.shape))
        return result, grad
    return forward


FLOAT8 = {"float8_e4m3fn": (448.0, 3, -6), "float8_e5m2": (57344.0, 2, -14)}


def _round_to_float8(x, mantissa, min_exponent):
    """x (finite, within the float8 range) rounded to the nearest float8 value, halves to
    even, as a cast to float8 rounds: the step between neighbours is 2**(e - mantissa)
    for |x| in [2**e, 2**(e+1)) (subnormals: e at its minimum). Exact: the step is a power
    of two, so x / step and the product back are exact in float32."""
    a = ll_abs(x)
    e = special.floor(special.log2(maximum(a, 2.0 ** min_exponent)))
    e = where(special.exp2(e) > a, e - 1.0, e)  # log2 rounded across a power of two
    e = where(special.exp2(e + 1.0) <= a, e + 1.0, e)
    step = special.exp2(maximum(e, float(min_exponent)) - float(mantissa))
    return special.rint(x / step) * step


def quantize_and_dequantize(inputs, scale, quantized_dtype, compute_dtype):
    """`inputs / scale` clipped to the float8 range, rounded to float8, and scaled back
    (Keras's float8 fake quantization), built from ops.

    Args:
        inputs: a float tensor or array.
        scale: the scale (a tensor, array or number).
        quantized_dtype: "float8_e4m3fn" or "float8_e5m2".
        compute_dtype: the float dtype of the result.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([1.0, 1.07, 500.0, -0.3], "float32")
        >>> np.asarray(pd.quantizers.quantize_and_dequantize(
        ...     x, np.float32(1.0), "float8_e4m3fn", "float32")).tolist()
        [1.0, 1.125, 448.0, -0.3125]
    """
    if quantized_dtype not in FLOAT8:
        raise ValueError(f"quantize_and_dequantize: expected quantized_dtype one of "
                         f"{', '.join(FLOAT8)}, received {quantized_dtype!r}")
    if compute_dtype not in FLOATS:
        raise ValueError(f"quantize_and_dequantize: expected a float compute_dtype, received "
                         f"{compute_dtype!r}")
    largest, mantissa, min_exponent = FLOAT8[quantized_dtype]
    x = as_variable(inputs, where="quantize_and_dequantize")
    scale = cast(as_variable(scale, where="quantize_and_dequantize"), compute_dtype)
    x = clip(x / scale, -largest, largest)
    x = _round_to_float8(cast(x, "float32"), mantissa, min_exponent)
    return cast(x, compute_dtype) * scale


class Quantizer:
    """Base class of quantizers: `quantizer(x) -> (quantized, scale)`.

    Args:
        output_dtype: the dtype of the quantized values.

    Example:
        >>> import paddle as pd
        >>> pd.quantizers.Quantizer("int8").get_config()
        {'output_dtype': 'int8'}
    """

    def __init__(self, output_dtype="int8"):
        self.output_dtype = output_dtype

    def __call__(self, x):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(x)")

    def get_config(self):
        return {"output_dtype": self.output_dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class AbsMaxQuantizer(Quantizer):
    """`abs_max_quantize` as an object: quantizes along `axis` (the call's, else the
    constructor's, else -1).

    Args:
        axis: the default axis (Keras keeps it for older code; pass it to the call).
        value_range: the integer range, within [-128, 127] for int8.
        epsilon: added to the maximum.
        output_dtype: "int8".

    Example:
        >>> import numpy as np, paddle as pd
        >>> q, scale = pd.quantizers.AbsMaxQuantizer()(np.array([[0.5, -2.0]], "float32"))
        >>> q.tolist(), scale.tolist()
        ([[32, -127]], [[63.5]])
    """

    def __init__(self, axis=None, value_range=(-127, 127), epsilon=1e-7, output_dtype="int8"):
        super().__init__(output_dtype=output_dtype)
        if axis is not None:
            axis = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        self.axis = axis
        self.value_range = tuple(value_range)
        self.epsilon = epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError(f"AbsMaxQuantizer: output_dtype 'int8' needs value_range within "
                             f"[-128, 127], received {value_range!r}")

    def __call__(self, x, axis=None, to_numpy=False):
        axis = self.axis if axis is None else axis
        return abs_max_quantize(x, -1 if axis is None else axis, self.value_range,
                                self.output_dtype, self.epsilon)

    def get_config(self):
        config = {"value_range": self.value_range, "epsilon": self.epsilon,
                  "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config


def compute_float8_scale(amax, scale, dtype_max, margin=0):
    """The next float8 scale from the absolute maximum seen (`amax`), as Keras's (itself
    Transformer Engine's): `amax / dtype_max * 2**margin`, keeping `scale` where `amax` is 0
    or not finite. On arrays it computes on the host; given a tensor (a graph or eager
    Variable, a parameter) it builds ops (a float8 layer's training step).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.quantizers.compute_float8_scale(np.array([2.0, 0.0]), np.array([0.5, 0.5]),
        ...                                    448.0, margin=1).round(6).tolist()
        [0.008929, 0.5]
    """
    if any(isinstance(v, Variable) for v in (amax, scale)):
        scale = as_variable(scale, where="compute_float8_scale")
        amax = as_variable(amax, like=scale, where="compute_float8_scale")
        inverse = 1.0 / scale
        factor = (float(dtype_max) / amax) / float(2 ** margin)
        factor = where(amax > 0.0, factor, inverse)
        factor = where(less(ll_abs(amax), math.inf), factor, inverse)
        return 1.0 / factor
    amax, scale = np.asarray(amax), np.asarray(scale)
    inverse = np.reciprocal(scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.divide(np.divide(dtype_max, amax), 2 ** margin)
    factor = np.where(amax > 0.0, factor, inverse)
    factor = np.where(np.isfinite(amax), factor, inverse)
    return np.reciprocal(factor).astype(scale.dtype)


def compute_float8_amax_history(x, amax_history):
    """The history of absolute maxima with `max|x|` in front: the history rolled one place
    to the left, its first entry replaced (Keras's rule). On arrays on the host; given a
    tensor, built from ops (`abs`, `max`, `slice`, `concat`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.quantizers.compute_float8_amax_history(np.array([-2.0, 1.0]),
        ...                                           np.array([1.0, 2.0, 3.0])).tolist()
        [2.0, 3.0, 1.0]
    """
    if any(isinstance(v, Variable) for v in (x, amax_history)):
        history = as_variable(amax_history, where="compute_float8_amax_history")
        x = as_variable(x, where="compute_float8_amax_history")
        if history.ndim != 1 or history.shape[0] is None:
            raise ValueError(f"compute_float8_amax_history: expected a 1-D history of known "
                             f"length, received shape {history.shape}")
        n = history.shape[0]
        newest = reshape(cast(ll_max(ll_abs(x)), history.dtype), (1,))
        # roll(history, -1) with its first entry replaced: [newest, h2 .. h(n-1), h0]
        parts = [newest] + ([ll_slice(history, [2], [n - 2])] if n > 2 else []) + \
            ([ll_slice(history, [0], [1])] if n > 1 else [])
        return concat(parts, axis=0) if len(parts) > 1 else newest
    history = np.roll(np.asarray(amax_history), -1)
    history[0] = np.max(np.abs(np.asarray(x))).astype(history.dtype)
    return history


CLASSES = {"Quantizer": Quantizer, "AbsMaxQuantizer": AbsMaxQuantizer,
           "abs_max_quantizer": AbsMaxQuantizer}


def serialize(initializer):
    """Keras's config of a quantizer: {"module", "class_name", "config", ...}.

    Example:
        >>> import paddle as pd
        >>> pd.quantizers.serialize(pd.quantizers.AbsMaxQuantizer())["class_name"]
        'AbsMaxQuantizer'
    """
    if not isinstance(initializer, Quantizer):
        raise TypeError(f"quantizers.serialize: expected a Quantizer, received {initializer!r}")
    return {"module": "keras.quantizers", "class_name": type(initializer).__name__,
            "config": initializer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """The quantizer a `serialize` config describes.

    Example:
        >>> import paddle as pd
        >>> pd.quantizers.deserialize({"class_name": "AbsMaxQuantizer",
        ...                            "config": {"value_range": [-100, 100]}}).value_range
        (-100, 100)
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"quantizers.deserialize: expected a config with 'class_name' and "
                         f"'config', received {config!r}")
    cls = (custom_objects or {}).get(config["class_name"]) or CLASSES.get(config["class_name"])
    if cls is None:
        raise ValueError(f"quantizers.deserialize: unknown quantizer {config['class_name']!r}; "
                         f"expected one of {', '.join(sorted(CLASSES))}")
    return cls.from_config(dict(config.get("config") or {}))


def get(identifier, **kwargs):
    """A quantizer from a name ("abs_max_quantizer"), a config, or a Quantizer; None stays
    None.

    Example:
        >>> import paddle as pd
        >>> type(pd.quantizers.get("abs_max_quantizer")).__name__
        'AbsMaxQuantizer'
    """
    if identifier is None or isinstance(identifier, Quantizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier in CLASSES:
        return CLASSES[identifier](**kwargs)
    raise ValueError(f"quantizers.get: could not interpret the quantizer {identifier!r}; "
                     f"expected one of {', '.join(sorted(CLASSES))}, a config or a Quantizer")
