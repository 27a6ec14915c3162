"""EinsumDense: a dense layer whose product is an einsum equation, as Keras's, for the
equations Keras's layers use: `"<input>,<kernel>-><output>"` where the kernel shares no
axis with the batch (every kernel letter is contracted with the input or appears in the
output), e.g. "ab,bc->ac", "abc,cd->abd", "abc,cde->abde" (multi-head projections) and
"abcd,cde->abe". It runs as one matmul: the input's contracted axes are flattened
against the kernel's, then the output axes put in order.

Example:
    >>> import paddle as pd
    >>> layer = pd.layers.EinsumDense("abc,cde->abde", output_shape=(None, 4, 8))
    >>> layer(pd.layers.Input(shape=(5, 16))).shape, layer.kernel.shape
    ((None, 5, 4, 8), (16, 4, 8))
"""
import math
import re

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.graph import as_variable
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.shape import expand_dims, reshape, squeeze, transpose
from paddle.highlevel import quantizers, regularizers
from paddle.highlevel.layers import quantization
from paddle.highlevel.layers.base import Layer, regularizer_config
from paddle.highlevel.quantization_config import (
    QuantizationConfig, block_size_for_layer, config_argument, serialize_config)
from paddle.highlevel.layers.core import get_activation, serialize_activation

_EQUATION = re.compile(r"^([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$")


def parse_equation(equation):
    """(input letters, kernel letters, output letters); ValueError naming EinsumDense for
    the forms it does not run."""
    match = _EQUATION.match(equation.replace(" ", "")) if isinstance(equation, str) else None
    if match is None:
        raise ValueError(f"EinsumDense: expected an equation '<input>,<kernel>-><output>' of "
                         f"letters (no '...'), received {equation!r}")
    inp, ker, out = match.groups()
    for spec in (inp, ker, out):
        if len(set(spec)) != len(spec):
            raise ValueError(f"EinsumDense: a letter repeats within {spec!r} of {equation!r}")
    for letter in out:
        if letter not in inp and letter not in ker:
            raise ValueError(f"EinsumDense: output axis {letter!r} of {equation!r} is in "
                             f"neither the input nor the kernel")
    for letter in inp:
        if letter not in out and letter not in ker:
            raise ValueError(f"EinsumDense: input axis {letter!r} of {equation!r} is summed "
                             "away without the kernel; only equations whose input axes are "
                             "contracted with the kernel or kept are supported")
    for letter in ker:
        if letter in inp and letter in out:
            raise ValueError(f"EinsumDense: kernel axis {letter!r} of {equation!r} is both "
                             "contracted and kept (a batch axis of the kernel); not supported")
    return inp, ker, out


class EinsumDense(Layer):
    """A dense layer with an einsum product `einsum(equation, inputs, kernel) + bias`,
    then the activation (Keras's weights: kernel shaped by the equation; bias on
    `bias_axes`).

    Args:
        equation: "<input>,<kernel>-><output>" (see the module docstring for the forms).
        output_shape: the output's shape without the batch axis: an int for rank 2, or a
            tuple (None where the size follows the input).
        activation: name or callable (None: linear).
        bias_axes: output letters the bias spans (None: no bias).
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
            kernel_constraint, bias_constraint: as Dense.

    The input axes that are kept, other than the batch, must have known sizes unless the
    batch is the only unknown one (the product flattens them).

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c")
        >>> layer(np.ones((2, 4), np.float32)).shape
        (2, 3)
    """

    weight_regularizers = {"kernel_regularizer": "kernel", "bias_regularizer": "bias"}
    weight_constraints = {"kernel_constraint": "kernel", "bias_constraint": "bias"}

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        self.quantization_config = config_argument(quantization_config, "EinsumDense")
        self.equation = equation
        self._specs = parse_equation(equation)
        out = self._specs[2]
        shape = (output_shape,) if isinstance(output_shape, int) else output_shape
        if not isinstance(shape, (list, tuple)) or len(shape) != len(out) - 1 or any(
                d is not None and (not isinstance(d, int) or isinstance(d, bool) or d < 1)
                for d in shape):
            raise ValueError(f"EinsumDense: expected output_shape with {len(out) - 1} sizes "
                             f"(ints >= 1 or None) for output {out!r}, received "
                             f"{output_shape!r}")
        self.partial_output_shape = tuple(shape)
        if bias_axes is not None and (not isinstance(bias_axes, str) or
                                      any(a not in out for a in bias_axes)):
            raise ValueError(f"EinsumDense: expected bias_axes as letters of the output "
                             f"{out!r}, received {bias_axes!r}")
        self.bias_axes = bias_axes
        self.activation = get_activation(activation)
        self._activation_name = serialize_activation(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, input_shape):
        inp, ker, out = self._specs
        if len(input_shape) != len(inp):
            raise ShapeError(at_user(f"{self.name}: expected an input of rank {len(inp)} for "
                                     f"{self.equation!r}, received shape {input_shape}"))
        sizes = dict(zip(inp, input_shape))
        for letter, size in zip(out[1:], self.partial_output_shape):
            known = sizes.get(letter)
            if size is not None and known is not None and size != known:
                raise ShapeError(at_user(f"{self.name}: output_shape says {letter!r} is "
                                         f"{size}, the input has {known} (shape "
                                         f"{input_shape})"))
            if size is not None:
                sizes[letter] = size
        kernel_shape = tuple(sizes.get(letter) for letter in ker)
        if None in kernel_shape:
            raise ShapeError(at_user(f"{self.name}: the kernel {ker!r} of {self.equation!r} "
                                     f"needs known sizes, found {kernel_shape} from the input "
                                     f"{input_shape} and output_shape "
                                     f"{self.partial_output_shape}"))
        self._sizes = sizes
        mode = self.quantization_mode
        if mode in ("int8", "int4"):  # a quantized layer rebuilt (loading): its int weights
            self.quantized_build(kernel_shape, mode, self.quantization_config)
        else:
            self._kernel = self.kernel = self.add_weight("kernel", kernel_shape,
                                                         self.kernel_initializer)
        self.bias = None
        if self.bias_axes:
            first = min(out.index(a) for a in self.bias_axes)
            bias_shape = tuple(sizes[a] if a in self.bias_axes else 1 for a in out[first:])
            self.bias = self.add_weight("bias", bias_shape, self.bias_initializer)
        if mode == "float8":  # its scales and histories, after the float weights (Keras's)
            self.quantized_build(kernel_shape, mode, self.quantization_config)

    def call(self, inputs):
        y = self._product(inputs, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y) if self.activation is not None else y

    def _product(self, inputs, kernel):
        """einsum(equation, inputs, kernel) as one matmul between transposes."""
        inp, ker, out = self._specs
        contracted = [a for a in inp if a in ker]
        kept = [a for a in inp if a not in ker]               # the input's output axes
        free = [a for a in ker if a not in inp]               # the kernel's output axes
        x = inputs
        order = [inp.index(a) for a in kept + contracted]
        if order != list(range(len(inp))):
            x = transpose(x, order)
        k = kernel
        korder = [ker.index(a) for a in contracted + free]
        if korder != list(range(len(ker))):
            k = transpose(k, korder)
        size = math.prod(self._sizes[a] for a in contracted)
        width = math.prod(self._sizes[a] for a in free)
        kept_shape = [x.shape[i] for i in range(len(kept))]
        if sum(s is None for s in kept_shape) > 1:
            raise ShapeError(at_user(f"{self.name}: {self.equation!r} flattens the input "
                                     f"axes {''.join(kept)}; at most one of them may be "
                                     f"unknown, received shape {inputs.shape}"))
        flat = matmul(reshape(x, (-1, size)), reshape(k, (size, width)))
        y = reshape(flat, [-1 if s is None else s for s in kept_shape] +
                    [self._sizes[a] for a in free])
        current = kept + free
        if current != list(out):
            y = transpose(y, [current.index(a) for a in out])
        return y

    # ---- int8 and int4 (paddle/highlevel/layers/quantization.py) -----------------------

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the kernel, as Keras's `EinsumDense.quantize` ("float8": the float kernel
        stays, trained through float8 as Dense's): to int8, one float32
        scale per output position of the kernel (its contracted axes reduced), stored in
        Keras's layout (shaped to broadcast against the output); or to int4, the kernel
        read as a (rows, columns) matrix (rows: the contracted sizes), packed two values a
        byte along its columns, with a scale (and zero point) per column (and group of
        `block_size` rows).

        Example:
            >>> import numpy as np, paddle as pd
            >>> layer = pd.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3))
            >>> _ = layer(np.ones((1, 5, 4), "float32"))
            >>> layer.quantize("int8")
            >>> layer.kernel.dtype, layer.kernel_scale.shape
            ('int8', (1, 1, 2, 3))
            >>> layer = pd.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3))
            >>> _ = layer(np.ones((1, 5, 4), "float32"))
            >>> layer.quantize(config=pd.quantizers.Int4QuantizationConfig(block_size=None))
            >>> layer.kernel.shape, layer.kernel_scale.shape
            ((4, 3), (6,))
        """
        if type_check and type(self) is not EinsumDense:
            raise self._not_implemented_error(self.quantize)
        if mode not in ("int8", "int4", "float8"):  # Keras's gptq and awq: not in paddle's
            raise self._not_implemented_error(  # EinsumDense (model.quantize warns)
                self.quantize, f"Paddle's EinsumDense has no {mode!r} form (GPTQ quantizes "
                               f"Dense layers).")
        self.quantization_config = config
        info = quantization_info(self._specs)
        kernel_shape = self.kernel.shape
        if mode == "float8":  # the float kernel stays, trained through float8
            self.quantized_build(kernel_shape, mode, config)
            self._set_quantized_policy(mode)
            return
        zero = None
        if mode == "int4":
            rows, columns = _int4_matrix_shape(kernel_shape, info)
            flat = np.reshape(self.kernel.val(), (rows, columns))  # Keras's plain reshape
            block_size = block_size_for_layer(self, config)
            if block_size is None or block_size == -1:
                values, scale = quantizers.abs_max_quantize(flat, axis=0, value_range=(-8, 7))
                scale = np.squeeze(scale, axis=0)
            else:
                values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
                    flat, block_size=block_size)
            values = quantizers.pack_int4(values, axis=-1)[0]
        else:
            quantizer = QuantizationConfig.weight_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer(axis=info["kernel_reduced"]))
            values, scale = quantizer(self.kernel.val(), to_numpy=True)
            scale = _adjust_scale(scale, info, "kernel", np.transpose, np.expand_dims,
                                  np.squeeze)
        self._drop_weight(self.kernel)
        self.quantized_build(kernel_shape, mode, config)
        self._kernel.set_value(values)
        self.kernel_scale.set_value(scale)
        if zero is not None:
            self.kernel_zero.set_value(zero)
        self._set_quantized_policy(mode, block_size_for_layer(self, config))

    def quantized_build(self, kernel_shape, mode, config=None):
        if mode not in ("int8", "int4", "float8"):
            raise self._quantization_mode_error(mode)
        if mode == "float8":
            self._kernel = self.kernel
            quantization.float8_build(self)
            self._is_quantized = True
            return
        self._quantization = quantization_info(self._specs)
        self.quantization_axis = tuple(self._quantization["input_reduced"])
        if mode == "int4":
            self._int4_build(kernel_shape, config)
        else:
            self.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer())
            self._kernel = self.kernel = self._int8_weight("kernel", kernel_shape)
            self.kernel_scale = self._scale_weight(
                "kernel_scale", _kernel_scale_shape(kernel_shape, self._quantization))
        self._is_quantized = True

    def _int4_build(self, kernel_shape, config):
        self.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
        self.original_kernel_shape = tuple(kernel_shape)
        rows, columns = _int4_matrix_shape(kernel_shape, self._quantization)
        self._int4_columns = columns
        self._int4_kernel_weights(rows, columns, config)

    def _int8_call(self, inputs, training=None):
        info = self._quantization

        def input_scale(scale):
            return _adjust_scale(scale, info, "input", transpose, _expand_dims, _squeeze)

        def inputs_grad(upstream):  # through the dequantized kernel, as Keras's
            scale = _unadjusted_kernel_scale(self.kernel_scale, info)
            float_kernel = cast(self._kernel, self.compute_dtype) / scale
            return gradients([self._product(x, float_kernel)], [x], grad_ys=[upstream])[0]

        x = as_variable(inputs, where=self.name)
        y = quantization.int8_product(self, x, self._product, input_scale, self.kernel_scale,
                                      self.quantization_axis, inputs_grad)
        return self._bias_and_activation(y)

    def _int4_call(self, inputs, training=None):
        # Keras's: the product with the dequantized kernel (divided by the inputs' scale
        # with an inputs quantizer); the inputs' gradient through the dequantized kernel.
        info = self._quantization
        values = quantization.int4_values(self._kernel, self._int4_columns,
                                          self.compute_dtype)
        if self._int4_block_size is None:
            float_kernel = values / self.kernel_scale
        else:
            float_kernel = cast(quantization.dequantize_with_groups(
                values, self.kernel_scale, self.kernel_zero, self.g_idx, group_axis=0),
                self.compute_dtype)
        float_kernel = reshape(float_kernel, self.original_kernel_shape)

        def input_scale(scale):
            return _adjust_scale(scale, info, "input", transpose, _expand_dims, _squeeze)

        def inputs_grad(upstream):
            return gradients([self._product(x, float_kernel)], [x], grad_ys=[upstream])[0]

        x = as_variable(inputs, where=self.name)
        y = quantization.int8_product(self, x, self._product, input_scale, None,
                                      self.quantization_axis, inputs_grad, kernel=float_kernel)
        return self._bias_and_activation(y)

    def _float8_call(self, inputs, training=None):
        return quantization.float8_call(self, inputs, self._product)

    def _bias_and_activation(self, y):
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y) if self.activation is not None else y

    def _saved_weights(self):
        if not self.quantization_mode:
            return super()._saved_weights()
        if self.quantization_mode == "float8":
            return quantization.float8_saved_weights(self)
        return [w for w in (self._kernel, self.bias, self.kernel_scale,
                            getattr(self, "kernel_zero", None), getattr(self, "g_idx", None))
                if w is not None]

    def get_config(self):
        config = {**super().get_config(), "equation": self.equation,
                  "output_shape": list(self.partial_output_shape),
                  "activation": self._activation_name, "bias_axes": self.bias_axes,
                  "kernel_initializer": initializers.serialize(self.kernel_initializer),
                  "bias_initializer": initializers.serialize(self.bias_initializer)}
        if self.quantization_config is not None:
            config["quantization_config"] = serialize_config(self.quantization_config)
        return config


def quantization_info(specs):
    """Keras's `_analyze_quantization_info` for an equation without '...': the axes each
    operand's scale reduces, and how a scale is laid out to broadcast against the output
    (transposed, axes added, axes removed)."""
    inp, ker, out = specs
    info = {}
    for name, spec in (("input", inp), ("kernel", ker)):
        reduced = [i for i, a in enumerate(spec) if a not in out]
        expand = [i for i, a in enumerate(out) if a not in spec]
        order = [spec.index(a) for a in out if a in spec]
        squeeze, index = [], None
        for axis in reduced:  # each reduced axis takes an output axis it lacks, in turn
            if expand:
                index = expand.pop(0)
            else:  # none left: it is removed, and sits where the last one went (Keras's)
                squeeze.append(axis)
            order.insert(index, axis)
        info.update({f"{name}_reduced": reduced, f"{name}_transpose": order,
                     f"{name}_expand": expand, f"{name}_squeeze": squeeze})
    return info


def _adjust_scale(scale, info, name, transpose_fn, expand_fn, squeeze_fn):
    """Keras's `_adjust_scale_for_quant`: a keepdims scale laid out against the output."""
    if info[f"{name}_transpose"]:
        scale = transpose_fn(scale, info[f"{name}_transpose"])
    if info[f"{name}_expand"]:
        scale = expand_fn(scale, tuple(info[f"{name}_expand"]))
    if info[f"{name}_squeeze"]:
        scale = squeeze_fn(scale, tuple(info[f"{name}_squeeze"]))
    return scale


def _unadjusted_kernel_scale(scale, info):
    """Keras's `_adjust_scale_for_dequant`: the stored scale back in the kernel's layout."""
    if info["kernel_squeeze"]:
        scale = _expand_dims(scale, tuple(info["kernel_squeeze"]))
    if info["kernel_expand"]:
        scale = _squeeze(scale, tuple(info["kernel_expand"]))
    order = info["kernel_transpose"]
    if order:
        scale = transpose(scale, sorted(range(len(order)), key=order.__getitem__))
    return scale


def _int4_matrix_shape(kernel_shape, info):
    """Keras's int4 view of a kernel: (rows, columns), rows the product of the contracted
    axes' sizes, columns of the others."""
    rows = math.prod(d for i, d in enumerate(kernel_shape) if i in info["kernel_reduced"])
    columns = math.prod(d for i, d in enumerate(kernel_shape)
                        if i not in info["kernel_reduced"])
    return rows, columns


def _kernel_scale_shape(kernel_shape, info):
    shape = [1 if i in info["kernel_reduced"] else d for i, d in enumerate(kernel_shape)]
    shape = [shape[i] for i in info["kernel_transpose"]]
    for axis in sorted(info["kernel_expand"]):
        shape.insert(axis, 1)
    for axis in sorted(info["kernel_squeeze"], reverse=True):
        shape.pop(axis)
    return tuple(shape)


def _expand_dims(x, axes):
    for axis in sorted(axes):  # NumPy's expand_dims with several axes, one at a time
        x = expand_dims(x, axis)
    return x


def _squeeze(x, axes):
    return squeeze(x, axis=tuple(axes))
