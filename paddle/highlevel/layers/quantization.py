"""Quantization of layers, as Keras 3's: `Layer.quantize(mode)`, `quantization_mode`,
`quantized_build`, `quantized_call`, and the int8 product that Dense and EinsumDense run
once quantized.

After `quantize("int8")` a layer keeps its kernel as an int8 weight `kernel` (Keras's
`_kernel`) with a float32 `kernel_scale`, the float kernel is gone from its weights, and
its policy is Keras's `int8_from_<policy>` (`QuantizedDTypePolicy`). A call then computes
what Keras computes: the inputs quantized by the config's activation quantizer (by default
`AbsMaxQuantizer` along the contracted axes), the product of the two integer tensors,
divided by the product of the two scales. The product runs as a float32 BLAS product of the
integers (the int8 weight read through one `cast`): it is exact while
K * 127 * 127 < 2**24 (K, the contracted size, up to 1040) and within float32 rounding
beyond. The gradient with respect to the inputs is Keras's custom one, through the
dequantized kernel `kernel / kernel_scale`, so a quantized model still trains its other
weights (its bias, other layers).

After `quantize("int4")` the kernel is Keras's packed int8 weight (two int4 values a byte
along its last axis, `pd.quantizers.pack_int4`), read at every call by `int4_values`: ops
only (`cast`, `floor`, `where`, `stack`, `reshape`, `slice`), no host code. With the
default `block_size=128` the kernel keeps a float scale and an int8 zero point per group of
128 input rows and output column (`kernel_scale`, `kernel_zero`, and `g_idx`, each row's
group), dequantized as `(q - zero) * scale` (`dequantize_with_groups`); with
`block_size=None` one symmetric scale per output channel, as int8.

`quantize("float8")` keeps the float kernel and adds Keras's six float32 weights: a scale
and a history of absolute maxima (`amax_history_length`, 1024) for the inputs, the kernel
and the outputs' gradient. A call fake-quantizes the inputs and the kernel to float8
e4m3fn with their scales (`pd.quantizers.quantize_and_dequantize`, built from ops) and,
in the backward pass, the outputs' gradient to e5m2; the gradients of the scales and
histories are their next values (Keras's custom gradients), which the optimizer writes
into them (`overwrite_with_gradient`) instead of a step.

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.Dense(2)
    >>> _ = layer(np.ones((1, 3), "float32"))
    >>> layer.quantize("int8")
    >>> layer.quantization_mode, layer.kernel.dtype, layer.dtype_policy.name
    ('int8', 'int8', 'int8_from_float32')
"""
import functools

import numpy as np

from paddle.lowlevel.graph import NAMES, as_variable
from paddle.lowlevel.ops import special
from paddle.lowlevel.ops.math import cast, greater_equal, where
from paddle.lowlevel.ops.reduce import max as ll_max
from paddle.lowlevel.ops.shape import gather, reshape, slice as ll_slice, stack
from paddle.highlevel import dtype_policies
from paddle.highlevel import quantizers
from paddle.highlevel.quantizers import with_custom_gradient
from paddle.highlevel.quantization_config import (
    QUANTIZATION_MODES, block_size_for_layer, validate_and_resolve_config)


def checked_quantize(fn):
    """`fn` (a layer's `quantize(mode, type_check, config)`) behind Keras's checks: the
    mode and config resolved into a config, the layer built and not yet quantized."""
    if getattr(fn, "_checked", False):
        return fn

    @functools.wraps(fn)
    def quantize(self, mode=None, type_check=True, config=None):
        config = validate_and_resolve_config(mode, config)
        self._check_quantize_args(config.mode, self.compute_dtype)
        return fn(self, mode=config.mode, type_check=type_check, config=config)
    quantize._checked = True
    return quantize


class Quantizable:
    """The quantization half of `Layer` (Keras's methods of the same names). A subclass's
    own `quantize` is wrapped in Keras's checks (`checked_quantize`) when it is defined."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fn = cls.__dict__.get("quantize")
        if fn is not None and callable(fn):
            cls.quantize = checked_quantize(fn)

    @property
    def quantization_mode(self):
        """The quantization mode of this layer ("int8"), None when it is not quantized."""
        return self.dtype_policy.quantization_mode

    @checked_quantize
    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the layer's weights (Dense, EinsumDense and Embedding implement it).

        Raises:
            NotImplementedError: the layer has no quantized form.
        """
        raise self._not_implemented_error(self.quantize)

    def quantized_build(self, input_shape, mode, config=None):
        raise self._not_implemented_error(self.quantized_build)

    def quantized_call(self, *args, **kwargs):
        """The call of a quantized layer: `_int8_call`, `_int4_call` or `_float8_call`."""
        if self.quantization_mode == "int8":
            return self._int8_call(*args, **kwargs)
        if self.quantization_mode == "int4":
            return self._int4_call(*args, **kwargs)
        if self.quantization_mode == "float8":
            return self._float8_call(*args, **kwargs)
        if self.quantization_mode == "gptq":
            return self._gptq_call(*args, **kwargs)
        if self.quantization_mode == "awq":
            return self._awq_call(*args, **kwargs)
        raise self._quantization_mode_error(self.quantization_mode)

    def _int8_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._int8_call)

    def _int4_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._int4_call)

    def _float8_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._float8_call)

    def _gptq_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._gptq_call)

    def _awq_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._awq_call)

    def _check_quantize_args(self, mode, compute_dtype):
        if not self.built:
            raise ValueError(f"Cannot quantize a layer that isn't yet built. Layer "
                             f"'{self.name}' (of type '{type(self).__name__}') is not built "
                             f"yet.")
        if getattr(self, "_is_quantized", False):
            raise ValueError(f"Layer '{self.name}' is already quantized with "
                             f"dtype_policy='{self.dtype_policy.name}'. Received: mode={mode}")
        if mode not in QUANTIZATION_MODES:
            raise ValueError(f"Invalid quantization mode. Expected one of "
                             f"{QUANTIZATION_MODES}. Received: mode={mode}")
        if mode == "int8" and compute_dtype == "float16":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                             "compute_dtype='float16'. Consider loading model/layer with "
                             "another dtype policy such as 'mixed_bfloat16' or "
                             "'mixed_float16' before calling `quantize()`.")

    def _not_implemented_error(self, attr, msg=None):
        name, kind = (attr.__name__, "method") if callable(attr) else (str(attr), "attribute")
        msg = f" {msg}" if msg is not None else ""
        return NotImplementedError(f"Layer {type(self).__name__} does not have a `{name}` "
                                   f"{kind} implemented.{msg}")

    def _quantization_mode_error(self, mode):
        return NotImplementedError(f"Invalid quantization mode. Expected one of "
                                   f"{QUANTIZATION_MODES}. Received: quantization_mode={mode}")

    # ---- helpers of the quantized layers ------------------------------------------------

    def _saved_weights(self):
        """The layer's own weights in the order its file keeps them (`vars/0`, ...): the
        ones created trainable, then the others (a quantized layer: Keras's order)."""
        return [w for w in self._weights if w._layer_trainable] + \
            [w for w in self._weights if not w._layer_trainable]

    def _drop_weight(self, weight):
        """Forget a weight (the float kernel a quantized one replaces): out of the layer's
        weights and penalties, its name free for the new weight."""
        self._weights = [w for w in self._weights if w is not weight]
        self._penalties = [(w, p) for w, p in self._penalties if w is not weight]
        for table in (NAMES.taken, NAMES.params):
            if table.get(weight.name) is weight:
                del table[weight.name]

    def _int8_weight(self, name, shape):
        return self.add_weight(name=name, shape=shape, initializer="zeros", dtype="int8",
                               trainable=False)

    def _scale_weight(self, name, shape):
        return self.add_weight(name=name, shape=shape, initializer="ones", trainable=False)

    def _group_index_weight(self, name, length, block_size):
        """Keras's `g_idx`: the group of each of `length` rows, floor(i / block_size), kept
        as a float32 weight (Keras's dtype and file layout)."""
        weight = self.add_weight(name=name, shape=(length,), initializer="zeros",
                                 dtype="float32", trainable=False)
        weight.set_value(np.floor_divide(np.arange(length, dtype="float32"),
                                         np.float32(block_size)))
        return weight

    def _int4_kernel_weights(self, rows, columns, config):
        """Keras's int4 weights of a (rows, columns) kernel: `_kernel` (two int4 values a
        byte along the columns), and per output column a `kernel_scale`, or with a block
        size (the config's, else the layer's) per group of rows a scale, a `kernel_zero`
        point and `g_idx` (the group of each row)."""
        self._kernel = self.kernel = self._int8_weight("kernel", (rows, (columns + 1) // 2))
        block_size = block_size_for_layer(self, config)
        self._int4_block_size = None if block_size == -1 else block_size
        if self._int4_block_size is None:
            self.kernel_scale = self._scale_weight("kernel_scale", (columns,))
            return
        groups = -(-rows // block_size)
        self.kernel_scale = self._scale_weight("kernel_scale", (groups, columns))
        self.kernel_zero = self._int8_weight("kernel_zero", (groups, columns))
        self.g_idx = self._group_index_weight("g_idx", rows, block_size)

    def _set_quantized_policy(self, mode, block_size=None, policy=None):
        """The policy `<mode>_from_<policy>` (`policy`: the mode's full name, e.g. a
        GPTQConfig's "gptq/4/128"), unless the layer has a quantized one already."""
        if self.dtype_policy.quantization_mode is None:
            name = policy if policy is not None else mode if mode != "int4" else \
                f"int4/{-1 if block_size is None else block_size}"
            self.dtype_policy = dtype_policies.get(f"{name}_from_{self.dtype_policy.name}")
        self._is_quantized = True


def int8_product(layer, inputs, product, input_scale, kernel_scale, axis, inputs_grad,
                 kernel=None):
    """Keras's int8 call core: `product(x, k)` (a float product: matmul, einsum) of the
    inputs quantized along `axis` by `layer.inputs_quantizer` (or left float without one)
    and the int8 kernel read as floats (or `kernel`, float values: an unpacked int4
    kernel), divided by `input_scale(inputs_scale) * kernel_scale` (None: no kernel scale);
    the inputs' gradient is `inputs_grad(upstream)` (through the dequantized kernel), as
    Keras's custom gradient."""
    compute = layer.compute_dtype

    def forward(x):
        output_scale = kernel_scale
        if layer.inputs_quantizer is not None:
            x, inputs_scale = layer.inputs_quantizer(x, axis=axis)
            output_scale = input_scale(inputs_scale) if kernel_scale is None else \
                input_scale(inputs_scale) * kernel_scale
        k = cast(layer._kernel, compute) if kernel is None else kernel
        y = product(cast(x, compute), k)
        return (y if output_scale is None else y / output_scale), inputs_grad

    return with_custom_gradient(forward, as_variable(inputs, where=layer.name))


def int4_values(packed, length, dtype):
    """The int4 values `pack_int4(values, axis=-1)` packed into the int8 tensor `packed`,
    as `dtype` floats in [-8, 7], `length` of them along the last axis (Keras's
    `unpack_int4(packed, length, axis=-1)`), built from ops: a byte b holds the low value
    in its low nibble and the high one in its high nibble, so high = floor(b / 16) (the
    arithmetic shift) and low = b - 16 * high in [0, 15], less 16 from 8 on (its sign).
    Every step is exact in any float dtype (|b| <= 128).

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel.layers.quantization import int4_values
        >>> packed, _, _ = pd.quantizers.pack_int4(np.array([[-8, 7, 3]], np.int8), axis=-1)
        >>> np.asarray(int4_values(pd.constant(packed), 3, "float32")).tolist()
        [[-8.0, 7.0, 3.0]]
    """
    b = cast(packed, dtype)
    high = special.floor(b * 0.0625)
    low = b - high * 16.0
    low = where(greater_equal(low, 8.0), low - 16.0, low)
    shape = tuple(packed.shape)  # a weight's: known but for a leading axis at most
    lead = tuple(-1 if d is None else d for d in shape[:-1])
    values = reshape(stack([low, high], axis=-1), lead + (2 * shape[-1],))
    if length == 2 * shape[-1]:
        return values
    return ll_slice(values, [0] * len(shape), [-1] * len(lead) + [length])


def uint4_values(packed, length, dtype):
    """The unsigned int4 values `pack_int4(values, axis=0, dtype="uint8")` packed into the
    uint8 tensor `packed` (Keras's GPTQ kernel), as `dtype` floats in [0, 15], `length`
    rows of them (Keras's `unpack_int4(packed, length, axis=0, dtype="uint8")`), built
    from ops: a byte b holds the first row's value in its low nibble and the next row's
    in its high nibble, high = floor(b / 16) and low = b - 16 * high; exact in any float
    dtype (b <= 255).

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel.layers.quantization import uint4_values
        >>> packed, _, _ = pd.quantizers.pack_int4(np.uint8([[15], [3], [9]]), axis=0,
        ...                                        dtype="uint8")
        >>> np.asarray(uint4_values(pd.constant(packed), 3, "float32")).tolist()
        [[15.0], [3.0], [9.0]]
    """
    b = cast(packed, dtype)
    high = special.floor(b * 0.0625)
    low = b - high * 16.0
    rows, columns = tuple(packed.shape)
    values = reshape(stack([low, high], axis=1), (2 * rows, columns))
    if length == 2 * rows:
        return values
    return ll_slice(values, [0, 0], [length, -1])


def dequantize_with_groups(values, scale, zero, group_index, group_axis):
    """Keras's `dequantize_with_sz_map`: `(values - zero[g]) * scale[g]`, each position of
    `values` along its axis taking its group's scale and zero point (`group_index`, Keras's
    float `g_idx`) from `group_axis` of `scale` and `zero` (int8, read as floats).

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel.layers.quantization import dequantize_with_groups
        >>> y = dequantize_with_groups(pd.constant(np.float32([[2.0], [4.0]])),
        ...     pd.constant(np.float32([[0.5]])), pd.constant(np.int8([[1]])),
        ...     pd.constant(np.float32([0.0, 0.0])), group_axis=0)
        >>> np.asarray(y).tolist()
        [[0.5], [1.5]]
    """
    groups = cast(group_index, "int64")
    # in the dtype of `values` (the compute dtype): Keras reads the scale autocast
    scales = gather(cast(scale, values.dtype), groups, axis=group_axis)
    zeros = gather(cast(zero, values.dtype), groups, axis=group_axis)
    return (values - zeros) * scales


E4M3_MAX, E5M2_MAX = 448.0, 57344.0  # the largest float8_e4m3fn and float8_e5m2 values


def float8_build(layer):
    """Keras's `_float8_build`: the scales (ones) and amax histories (zeros) of the inputs,
    the kernel and the outputs' gradient, float32, trainable and overwritten with their
    gradients."""
    length = getattr(layer.dtype_policy, "amax_history_length",
                     dtype_policies.QuantizedFloat8DTypePolicy.default_amax_history_length)
    for name in ("inputs", "kernel", "outputs_grad"):
        setattr(layer, f"{name}_scale", layer.add_weight(
            name=f"{name}_scale", shape=(), initializer="ones", dtype="float32",
            autocast=False, overwrite_with_gradient=True))
        setattr(layer, f"{name}_amax_history", layer.add_weight(
            name=f"{name}_amax_history", shape=(length,), initializer="zeros",
            dtype="float32", autocast=False, overwrite_with_gradient=True))


def float8_inputs(layer, x, scale, history):
    """Keras's `quantized_dequantize_inputs`: x fake-quantized to e4m3fn by `scale`; its
    gradient passes straight through, and the scale's and history's gradients are their
    next values."""
    compute = layer.compute_dtype

    def forward(x, scale, history):
        def grad(upstream):
            new_scale = quantizers.compute_float8_scale(
                ll_max(history, axis=0), scale, E4M3_MAX)
            return upstream, new_scale, quantizers.compute_float8_amax_history(x, history)
        return quantizers.quantize_and_dequantize(x, scale, "float8_e4m3fn", compute), grad
    return with_custom_gradient(forward, as_variable(x, where=layer.name), scale, history)


def float8_outputs(layer, y):
    """Keras's `quantized_dequantize_outputs`: y itself, and its gradient fake-quantized to
    e5m2 by the outputs' gradient scale, whose next value (and history's) is their
    gradient."""
    compute = layer.compute_dtype

    def forward(y, scale, history):
        def grad(upstream):
            new_scale = quantizers.compute_float8_scale(
                ll_max(history, axis=0), scale, E5M2_MAX)
            qdq = quantizers.quantize_and_dequantize(upstream, scale, "float8_e5m2", compute)
            return qdq, new_scale, quantizers.compute_float8_amax_history(upstream, history)
        return y, grad
    return with_custom_gradient(forward, y, layer.outputs_grad_scale,
                                layer.outputs_grad_amax_history)


def float8_call(layer, inputs, product):
    """Keras's `_float8_call` of Dense and EinsumDense: `product` of the fake-quantized
    inputs and kernel, the outputs' gradient fake-quantized, then the bias (rounded to
    bfloat16 under a float32 policy, as Keras's) and the activation."""
    x = float8_inputs(layer, inputs, layer.inputs_scale, layer.inputs_amax_history)
    k = float8_inputs(layer, layer._kernel, layer.kernel_scale, layer.kernel_amax_history)
    y = float8_outputs(layer, product(x, k))
    if layer.bias is not None:
        bias = layer.bias
        if layer.dtype_policy.compute_dtype == "float32":
            bias = cast(cast(bias, "bfloat16"), bias.dtype)
        y = y + bias
    return layer.activation(y) if layer.activation is not None else y


def float8_saved_weights(layer):
    """A float8 layer's weights in Keras's file order."""
    names = ("inputs_scale", "inputs_amax_history", "kernel_scale", "kernel_amax_history",
             "outputs_grad_scale", "outputs_grad_amax_history")
    return [w for w in [layer._kernel, layer.bias] + [getattr(layer, n) for n in names]
            if w is not None]
