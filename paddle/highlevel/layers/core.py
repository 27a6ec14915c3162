"""Core layers: Dense, Activation, Flatten, Reshape, Permute, Lambda, Masking, Identity,
InputLayer.

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(2, 3))
    >>> pd.layers.Dense(4, activation="relu")(pd.layers.Flatten()(x)).shape
    (None, 4)
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.layer_functions import dense
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.graph import Variable, constant
from paddle.lowlevel.ops.math import cast, greater, not_equal
from paddle.lowlevel.ops.reduce import max as ll_max
from paddle.lowlevel.ops.shape import expand_dims, flatten, reshape, transpose
from paddle.lowlevel.shapes import size
from paddle.highlevel import activations, quantizers, regularizers
from paddle.highlevel.layers import quantization
from paddle.highlevel.layers.base import (
    Input, InputSpec, Layer, check_flag, passthrough, regularizer_config)
from paddle.highlevel.quantization_config import (
    QuantizationConfig, block_size_for_layer, config_argument, gptq_setting_for_layer,
    serialize_config)
from paddle.highlevel.layers.bytecode import dump_function, load_function
from paddle.highlevel.layers.eager_calls import pure_activation


def get_activation(act):
    """A layer's activation: None (linear) or a function (`pd.activations.get`'s names,
    'swish', 'relu6', 'selu', ... included)."""
    if act is None or (isinstance(act, str) and act.lower() == "linear"):
        return None
    return activations.get(act)


def serialize_activation(act):
    if act is None:
        return "linear"
    return act if isinstance(act, str) else getattr(act, "__name__", repr(act))


def _parameters(*weights):
    for w in weights:
        if w is not None and not (isinstance(w, Variable) and w.kind == "param"):
            return False
    return True


class Dense(Layer):
    """`activation(inputs @ kernel + bias)` on the last axis; the same code as `pd.fc`.

    Args:
        units: output size.
        activation: name or callable (None: linear).
        use_bias: add a bias vector.
        kernel_initializer, bias_initializer: names or initializer objects.
        kernel_regularizer, bias_regularizer: `pd.regularizers` names, objects or callables:
            their penalties join `layer.losses` (and so the training loss).
        activity_regularizer: a penalty on the output, added on every call.
        kernel_constraint, bias_constraint: `pd.constraints` names, objects or callables,
            applied to the weight after each optimizer update.
    """

    supports_masking = True  # a mask on the timesteps passes through
    weight_constraints = {"kernel_constraint": "kernel", "bias_constraint": "bias"}

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        self.quantization_config = config_argument(quantization_config, "Dense")
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
            raise ValueError(f"Dense: expected a positive integer units, received {units!r}")
        self.units = units
        self.activation = get_activation(activation)
        self._activation_name = serialize_activation(activation)
        self.use_bias = check_flag(use_bias, "use_bias", "Dense")
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, input_shape):
        if len(input_shape) < 1 or input_shape[-1] is None:
            raise ShapeError(at_user(f"{self.name}: expected an input with a known last axis, "
                                     f"received shape {input_shape}"))
        kernel_shape = (input_shape[-1], self.units)
        mode = self.quantization_mode
        if mode in ("int8", "int4", "gptq", "awq"):  # a quantized layer rebuilt (loading):
            self.quantized_build(kernel_shape, mode, self.quantization_config)  # int weights
            if mode in ("gptq", "awq"):  # Keras's: a saved GPTQ/AWQ model is calibrated
                setattr(self, f"is_{mode}_calibrated", True)
                self.kernel = self.quantized_kernel
        else:
            self._kernel = self.kernel = self.add_weight(
                "kernel", kernel_shape, self.kernel_initializer,
                regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", (self.units,), self.bias_initializer,
                                    regularizer=self.bias_regularizer) \
            if self.use_bias else None
        if mode == "float8":  # its scales and histories, after the float weights (Keras's)
            self.quantized_build(kernel_shape, mode, self.quantization_config)
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_shape[-1]})

    def call(self, inputs, training=False):
        return dense(inputs, self.kernel, self.bias, self.activation)

    # ---- int8 and int4 (paddle/highlevel/layers/quantization.py) -----------------------

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the kernel, as Keras's `Dense.quantize`: to int8 with a float32 scale
        per unit; to float8 (the float kernel stays, with Keras's scales and amax
        histories for float8 training); or to int4 (two values a byte, `(input_dim,
        ceil(units / 2))`) with a scale and zero point per group of `block_size` input rows
        and unit (or one scale per unit with `block_size=None`); `model.quantize(mode)`
        calls it on every Dense.

        Example:
            >>> import numpy as np, paddle as pd
            >>> layer = pd.layers.Dense(3)
            >>> _ = layer(np.ones((1, 4), "float32"))
            >>> layer.quantize("int8")
            >>> [(w.name.rsplit("/", 1)[-1], w.dtype) for w in layer.weights]
            [('bias', 'float32'), ('kernel', 'int8'), ('kernel_scale', 'float32')]
            >>> layer = pd.layers.Dense(3)
            >>> _ = layer(np.ones((1, 4), "float32"))
            >>> layer.quantize("int4")
            >>> [(w.name.rsplit("/", 1)[-1], w.shape) for w in layer.weights][1:]
            [('kernel', (4, 2)), ('kernel_scale', (1, 3)), ('kernel_zero', (1, 3)), ('g_idx', (4,))]
        """
        if type_check and type(self) is not Dense:
            raise self._not_implemented_error(self.quantize)
        self.quantization_config = config
        kernel_shape = self.kernel.shape
        if mode in ("gptq", "awq"):  # the float kernel serves until `model.quantize`
            self._gptq_float_kernel = self.kernel  # calibrates (paddle/highlevel/gptq.py)
            self._drop_weight(self.kernel)
            self.quantized_build(kernel_shape, mode, config)
            setattr(self, f"is_{mode}_calibrated", False)
            self._set_quantized_policy(mode, policy=config.dtype_policy_string())
            return
        if mode == "float8":  # the float kernel stays, trained through float8
            self.quantized_build(kernel_shape, mode, config)
            self._set_quantized_policy(mode)
            return
        zero = None
        if mode == "int4":
            block_size = block_size_for_layer(self, config)
            if block_size is None or block_size == -1:
                quantizer = QuantizationConfig.weight_quantizer_or_default(
                    config, quantizers.AbsMaxQuantizer(axis=0, value_range=(-8, 7)))
                values, scale = quantizer(self.kernel.val(), to_numpy=True)
                scale = np.squeeze(scale, axis=0)
            else:
                values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
                    self.kernel.val(), block_size=block_size)
            values = quantizers.pack_int4(values, axis=-1)[0]
        else:
            quantizer = QuantizationConfig.weight_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer(axis=0))
            values, scale = quantizer(self.kernel.val(), to_numpy=True)
            scale = np.squeeze(scale, axis=0)
        self._drop_weight(self.kernel)
        self.quantized_build(kernel_shape, mode, config)
        self._kernel.set_value(values)
        self.kernel_scale.set_value(scale)
        if zero is not None:
            self.kernel_zero.set_value(zero)
        self._set_quantized_policy(mode, block_size_for_layer(self, config))

    def quantized_build(self, kernel_shape, mode, config=None):
        if mode == "int8":
            self.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer())
            self._kernel = self.kernel = self._int8_weight("kernel", kernel_shape)
            self.kernel_scale = self._scale_weight("kernel_scale", (self.units,))
        elif mode == "int4":
            self._int4_build(kernel_shape, config)
        elif mode == "float8":
            self._kernel = self.kernel
            quantization.float8_build(self)
        elif mode in ("gptq", "awq"):
            self._gptq_build(kernel_shape, config, mode)
        else:
            raise self._quantization_mode_error(mode)
        self._is_quantized = True

    _gptq_supported = True  # GPTQ, AWQ quantize Dense layers (paddle/highlevel/gptq.py)

    def _gptq_build(self, kernel_shape, config, mode="gptq"):
        """Keras's GPTQ and AWQ weights: the uint8 `kernel` (Keras's `quantized_kernel`) of
        the transposed values, (units, input_dim), or with 4 bits two values a byte along
        the units, ((units + 1) // 2, input_dim); per unit and group of input rows a
        float32 `kernel_scale` and a uint8 `kernel_zero`; AWQ's float32 `awq_scales` per
        input row; `g_idx`, each input row's group (GPTQ: Keras's float i / group_size)."""
        input_dim, units = kernel_shape
        bits = gptq_setting_for_layer(self, config, "weight_bits")
        group_size = gptq_setting_for_layer(self, config, "group_size")
        rows = (units + 1) // 2 if bits == 4 else units
        self.quantized_kernel = self.add_weight(name="kernel", shape=(rows, input_dim),
                                                initializer="zeros", dtype="uint8",
                                                trainable=False)
        groups = 1 if group_size == -1 else -(-input_dim // group_size)
        self.kernel_scale = self._scale_weight("kernel_scale", (units, groups))
        self.kernel_zero = self.add_weight(name="kernel_zero", shape=(units, groups),
                                           initializer="zeros", dtype="uint8",
                                           trainable=False)
        self.awq_scales = self._scale_weight("awq_scales", (input_dim,)) \
            if mode == "awq" else None
        self.g_idx = self.add_weight(name="g_idx", shape=(input_dim,), initializer="zeros",
                                     dtype="float32", trainable=False)
        self._gptq_bits = bits

    def _gptq_calibrated(self, values, scale, zero, g_idx, awq_scales=None):
        """The GPTQ or AWQ pass's results written into the weights; the float kernel is
        gone."""
        self.quantized_kernel.set_value(values)
        self.kernel_scale.set_value(scale)
        self.kernel_zero.set_value(zero)
        self.g_idx.set_value(g_idx)
        if awq_scales is not None:
            self.awq_scales.set_value(awq_scales)
        self._gptq_float_kernel = None
        self.kernel = self.quantized_kernel
        setattr(self, f"is_{self.quantization_mode}_calibrated", True)

    def _gptq_call(self, inputs, training=None):
        # Keras's: before calibration the float kernel; after, the values (unpacked from
        # two a byte with 4 bits) dequantized by their groups' scales and zero points,
        # transposed, (AWQ: divided by the input rows' scales, as XLA divides: times
        # their reciprocals) and one matmul.
        awq = self.quantization_mode == "awq"
        if not getattr(self, "is_awq_calibrated" if awq else "is_gptq_calibrated"):
            return dense(inputs, self._gptq_float_kernel, self.bias, self.activation)
        if self._gptq_bits == 4:  # AWQ: always
            values = quantization.uint4_values(self.quantized_kernel, self.units,
                                               self.compute_dtype)
        else:
            values = cast(self.quantized_kernel, self.compute_dtype)
        float_kernel = transpose(quantization.dequantize_with_groups(
            values, self.kernel_scale, self.kernel_zero, self.g_idx, group_axis=1), (1, 0))
        if awq:
            float_kernel = float_kernel * expand_dims(
                1.0 / cast(self.awq_scales, self.compute_dtype), -1)
        return self._bias_and_activation(matmul(inputs, float_kernel))

    _awq_call = _gptq_call

    def _int4_build(self, kernel_shape, config):
        self.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
        input_dim, units = kernel_shape
        self._int4_kernel_weights(input_dim, units, config)

    def _int8_call(self, inputs, training=None):
        def inputs_grad(upstream):
            float_kernel = cast(self._kernel, self.compute_dtype) / self.kernel_scale
            return matmul(upstream, transpose(float_kernel, (1, 0)))
        x = quantization.int8_product(self, inputs, matmul, lambda s: s, self.kernel_scale,
                                      -1, inputs_grad)
        return self._bias_and_activation(x)

    def _int4_call(self, inputs, training=None):
        # Keras's: per channel, the product with the int4 values divided by the scales
        # (and the inputs' scale, with an inputs quantizer); in groups, the product with
        # the dequantized kernel. The inputs' gradient goes through the dequantized kernel.
        values = quantization.int4_values(self._kernel, self.units, self.compute_dtype)
        if self._int4_block_size is None:
            float_kernel = values / self.kernel_scale
            scale = self.kernel_scale
        else:
            float_kernel = quantization.dequantize_with_groups(
                values, self.kernel_scale, self.kernel_zero, self.g_idx, group_axis=0)
            float_kernel = cast(float_kernel, self.compute_dtype)
            values, scale = float_kernel, None

        def inputs_grad(upstream):
            return matmul(upstream, transpose(float_kernel, (1, 0)))
        x = quantization.int8_product(self, inputs, matmul, lambda s: s, scale, -1,
                                      inputs_grad, kernel=values)
        return self._bias_and_activation(x)

    def _float8_call(self, inputs, training=None):
        return quantization.float8_call(self, inputs, matmul)

    def _bias_and_activation(self, x):
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x) if self.activation is not None else x

    def _saved_weights(self):
        if not self.quantization_mode:
            return super()._saved_weights()
        if self.quantization_mode == "float8":
            return quantization.float8_saved_weights(self)
        if self.quantization_mode in ("gptq", "awq"):  # Keras's order
            return [w for w in (self.bias, self.quantized_kernel, self.kernel_scale,
                                self.kernel_zero, self.awq_scales, self.g_idx)
                    if w is not None]
        return [w for w in (self._kernel, self.bias, self.kernel_scale,
                            getattr(self, "kernel_zero", None), getattr(self, "g_idx", None))
                if w is not None]

    def _eager_program_reads(self):
        # Pure: matmul, bias add and one of paddle's activations (eager_calls.py), on
        # weights that are parameters (a wrapper may swap in a tensor on every call); not
        # once quantized (its call is quantized_call).
        if self.quantization_mode or type(self).call is not Dense.call or \
                not pure_activation(self.activation) or \
                not _parameters(self.kernel, self.bias):
            return None
        return (self.kernel, self.bias, self.activation)

    def _eager_program_takes_weak(self, dtype):
        return dtype == self.kernel.dtype  # matmul(x, kernel): x settles to the kernel's

    def get_config(self):
        config = {**super().get_config(), "units": self.units,
                  "activation": self._activation_name, "use_bias": self.use_bias,
                  "kernel_initializer": initializers.serialize(self.kernel_initializer),
                  "bias_initializer": initializers.serialize(self.bias_initializer),
                  **regularizer_config(self, ("kernel_regularizer", "bias_regularizer"))}
        if self.quantization_config is not None:
            config["quantization_config"] = serialize_config(
                self.quantization_config)
        return config



class Activation(Layer):
    """Applies an activation by name ('relu', 'softmax', ...) or callable."""

    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = get_activation(activation)
        self._activation_name = serialize_activation(activation)

    def call(self, inputs, training=False):
        return self.activation(inputs) if self.activation is not None else passthrough(inputs)

    def _eager_program_reads(self):
        if type(self).call is not Activation.call or not pure_activation(self.activation):
            return None
        return (self.activation,)

    def get_config(self):
        return {**super().get_config(), "activation": self._activation_name}


class Flatten(Layer):
    """Keeps the batch axis and merges the others."""

    def call(self, inputs, training=False):
        return flatten(inputs)

    def _eager_program_reads(self):
        return () if type(self).call is Flatten.call else None


class Reshape(Layer):
    """Reshapes everything but the batch axis to `target_shape` (one -1 allowed)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        target = tuple(target_shape) if isinstance(target_shape, (list, tuple)) else None
        if target is None or not all(isinstance(d, int) and not isinstance(d, bool) and
                                     (d >= 1 or d == -1) for d in target) \
                or target.count(-1) > 1:
            raise ValueError(f"Reshape: expected target_shape as a tuple of sizes >= 1 (one of "
                             f"them may be -1), received {target_shape!r}")
        self.target_shape = target

    def call(self, inputs, training=False):
        if -1 in self.target_shape:
            return _reshape_batch(inputs, self.target_shape)
        # Per example: a batch that happens to divide would otherwise be reshaped across
        # examples ((6, 7) to (-1, 3, 2) gives 7 "examples" made of pieces of the 6).
        rest, want = size(inputs.shape[1:]), size(self.target_shape)
        if rest is not None and rest != want:
            raise ShapeError(at_user(f"{self.name}: cannot reshape each example of shape "
                                     f"{inputs.shape[1:]} ({rest} values) to "
                                     f"{self.target_shape} ({want} values)"))
        return reshape(inputs, (-1,) + self.target_shape)

    def get_config(self):
        return {**super().get_config(), "target_shape": list(self.target_shape)}


def _reshape_batch(x, target):
    """A -1 in the target: inferred from the known sizes, the batch axis kept as it is."""
    rest = size(x.shape[1:])
    known = 1
    for d in target:
        if d != -1:
            known *= d
    if rest is None or known == 0 or rest % known:
        raise ShapeError(at_user(f"reshape: cannot reshape {x.shape} to (batch,) + {target}"))
    return reshape(x, (-1,) + tuple(rest // known if d == -1 else d for d in target))


class Permute(Layer):
    """Permutes the non-batch axes; `dims` counts from 1 as in Keras."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims) if isinstance(dims, (list, tuple)) else (None,)
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in self.dims) or \
                sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Permute: dims must be a permutation of 1..{len(self.dims)}, "
                             f"received {dims}")

    def call(self, inputs, training=False):
        return transpose(inputs, (0,) + self.dims)

    def get_config(self):
        return {**super().get_config(), "dims": list(self.dims)}


class Lambda(Layer):
    """Wraps a function of Variables (any low-level ops) as a layer.

    Args:
        function: called as `function(inputs, **arguments)`; returns a Variable.
        arguments: extra keyword arguments for the function (plain values).

    The config holds the function's bytecode (as Keras's does), so a model with a Lambda
    layer can be saved and rebuilt by the same Python version; names it reads are looked
    up in its module when it is rebuilt in the same process, else among `pd` and `np`.

    Loading bytecode runs it, so `pd.load_model` refuses a file holding a Lambda unless
    given `safe_mode=False` (as Keras 3 does): pass it only for files you trust. Even then
    the bytecode is checked before it becomes a function (operands within their tables,
    stack depth, jump targets, constant types), and damaged or crafted bytecode is a
    `CheckpointError`, never a crash (see docs/security.md).

    Raises:
        CheckpointError: built from a config inside a loader's safe mode; outside any
            loader, from bytecode this process did not turn into a config (a layer
            holding a Lambda, such as TimeDistributed, rebuilt from a file's config);
            or from bytecode that fails its checks.

    Example:
        >>> import numpy as np, paddle as pd
        >>> double = pd.layers.Lambda(lambda x, k: x * k, arguments={"k": 2.0})
        >>> double(np.ones((1, 2), np.float32)).tolist()
        [[2.0, 2.0]]
    """

    def __init__(self, function, arguments=None, **kwargs):
        super().__init__(**kwargs)
        # marshal's bytes differ between a code object and its reloaded copy: a layer
        # rebuilt from a config keeps that config, so configs round-trip exactly.
        self._function_config = function if isinstance(function, dict) else None
        if isinstance(function, dict):
            function = load_function(function, self.name)
        if not callable(function):
            raise TypeError(f"Lambda: expected a callable, received {function!r}")
        self.function = function
        self.arguments = dict(arguments or {})

    def call(self, inputs, training=False):
        return self.function(inputs, **self.arguments)

    def get_config(self):
        return {**super().get_config(),
                "function": self._function_config or dump_function(self.function),
                "arguments": dict(self.arguments)}


class Masking(Layer):
    """Masks the timesteps whose features all equal `mask_value` (padding): they are
    zeroed, and the output carries a mask (batch, timesteps) that recurrent layers skip
    and that losses and metrics leave out, as Keras's Masking.

    Args:
        mask_value: the padding value.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.array([[[1.0, 2.0], [0.0, 0.0]]], np.float32)
        >>> pd.layers.Masking()(x).tolist()
        [[[1.0, 2.0], [0.0, 0.0]]]
    """

    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(mask_value, (int, float)) or isinstance(mask_value, bool):
            raise ValueError(f"Masking: expected a number as mask_value, received "
                             f"{mask_value!r}")
        self.mask_value = float(mask_value)

    def _keep(self, inputs):
        if len(inputs.shape) < 3:
            raise ShapeError(at_user(f"{self.name}: expected an input (batch, timesteps, "
                                     f"features), received shape {inputs.shape}"))
        differs = cast(not_equal(inputs, constant(self.mask_value, dtype=inputs.dtype)),
                       inputs.dtype)
        return ll_max(differs, axis=-1)  # 1 where any feature differs from mask_value

    def call(self, inputs, training=False):
        return inputs * expand_dims(self._keep(inputs), -1)

    def compute_mask(self, inputs, mask=None):
        return greater(self._keep(inputs), constant(0.5, dtype=inputs.dtype))

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}


class Identity(Layer):
    """Returns its inputs unchanged (a placeholder layer, as Keras's): a Variable, or a
    list / dict of them.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.Identity()(np.array([[1.0, 2.0]], np.float32)).tolist()
        [[1.0, 2.0]]
    """

    supports_masking = True

    def call(self, inputs):
        return passthrough(inputs)


class InputLayer(Layer):
    """Keras's layer form of `pd.Input`: holds the input Variable as `output`.

    `pd.Sequential([pd.layers.InputLayer(shape=(4,)), ...])` starts a model as
    `pd.Input(shape=(4,))` does; `InputLayer(...).output` is the Input Variable for a
    functional model. Called on a Variable, it returns it unchanged.

    Args:
        shape: the shape of one sample (without the batch axis).
        batch_size: a fixed batch size, or None for any.
        dtype: the input's dtype (default float32).
        sparse: False only (paddle has no sparse inputs).
        batch_shape: instead of `shape` and `batch_size`, the whole shape.
        input_tensor: an existing Input Variable to wrap instead of a new one.
        optional: False only (paddle has no optional inputs).
        name: the input's name.

    Example:
        >>> import paddle as pd
        >>> model = pd.Sequential([pd.layers.InputLayer(shape=(4,)), pd.layers.Dense(2)])
        >>> model.inputs[0].shape, model.outputs[0].shape
        ((None, 4), (None, 2))
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None,
                 batch_shape=None, input_tensor=None, optional=False, name=None, **kwargs):
        if sparse or optional:
            raise ValueError(f"InputLayer: paddle has no sparse or optional inputs, received "
                             f"sparse={sparse!r}, optional={optional!r}")
        for key in ("input_shape", "batch_input_shape"):  # Keras 2 spellings
            if key in kwargs and shape is None and batch_shape is None:
                value = kwargs.pop(key)
                shape, batch_shape = (value, None) if key == "input_shape" else (None, value)
        super().__init__(name=name, **{k: v for k, v in kwargs.items() if k == "trainable"})
        unknown = sorted(k for k in kwargs if k != "trainable")
        if unknown:
            raise TypeError(f"InputLayer: unexpected arguments {', '.join(unknown)}")
        if input_tensor is not None:
            if not isinstance(input_tensor, Variable) or not getattr(input_tensor, "_is_input",
                                                                     False):
                raise ValueError(f"InputLayer: expected input_tensor to be a pd.Input "
                                 f"Variable, received {input_tensor!r}")
            self._output = input_tensor
        else:
            self._output = Input(shape=shape, batch_size=batch_size,
                                 dtype=dtype or "float32", batch_shape=batch_shape,
                                 name=name or self.name)
        self.batch_shape = tuple(self._output.shape)
        self.dtype = self._output.dtype
        self.built = True

    @property
    def output(self):
        """The Input Variable."""
        return self._output

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": list(self.batch_shape), "dtype": self.dtype, "sparse": False,
                "name": self.name}
