"""Keras's quantization configs (`pd.quantizers.QuantizationConfig`, ...): which quantizer
`quantize` uses for a layer's weights and for its inputs, and the mode they stand for.

`model.quantize("int8")` is `model.quantize(config=Int8QuantizationConfig())`: weights by
`AbsMaxQuantizer` along the contracted axes, inputs by `AbsMaxQuantizer` along the last axis
at every call. `activation_quantizer=None` quantizes the weights only (the inputs stay
float, the kernel is read back to float: Keras's weight-only mode). `model.quantize("int4")`
is `Int4QuantizationConfig()`: weight-only, the kernel in groups of `block_size` (128) rows
with a scale and a zero point per group and column, two int4 values a byte; `block_size=None`
(or -1) gives one symmetric scale per output channel instead. `model.quantize("float8")`
(`Float8QuantizationConfig()`) keeps the float weights and trains through Keras's scaled
float8 fake quantization. `model.quantize("gptq", config=GPTQConfig(dataset, tokenizer))`
runs Keras's GPTQ on the Dense layers of the model's sequential blocks, and
`model.quantize("awq", config=AWQConfig(dataset, tokenizer))` Keras's AWQ (see
paddle/highlevel/gptq.py).

Example:
    >>> import paddle as pd
    >>> config = pd.quantizers.Int8QuantizationConfig(activation_quantizer=None)
    >>> config.mode, config.activation_quantizer
    ('int8', None)
"""
import numpy as np

from paddle.highlevel import quantizers

# Keras's modes (keras.src.dtype_policies.QUANTIZATION_MODES), in Keras's order: the
# messages list them all; paddle runs them all.
QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")


class QuantizationConfig:
    """Base class of quantization configs: a weight quantizer and an activation (input)
    quantizer; subclasses name the `mode`.

    Args:
        weight_quantizer: the `Quantizer` for the weights (None: the layer's default).
        activation_quantizer: the `Quantizer` for the inputs (None: none).

    Example:
        >>> import paddle as pd
        >>> pd.quantizers.QuantizationConfig().get_config()
        {'weight_quantizer': None, 'activation_quantizer': None}
    """

    def __init__(self, weight_quantizer=None, activation_quantizer=None):
        for name, value in (("weight_quantizer", weight_quantizer),
                            ("activation_quantizer", activation_quantizer)):
            if value is not None and not isinstance(value, quantizers.Quantizer):
                raise TypeError(f"{type(self).__name__}: expected {name} a Quantizer or "
                                f"None, received {value!r}")
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self):
        raise NotImplementedError("Subclasses must implement this property. Do not "
                                  "instantiate QuantizationConfig directly.")

    def get_config(self):
        return {"weight_quantizer": _serialized(self.weight_quantizer),
                "activation_quantizer": _serialized(self.activation_quantizer)}

    @classmethod
    def from_config(cls, config):
        return cls(weight_quantizer=_deserialized(config.get("weight_quantizer")),
                   activation_quantizer=_deserialized(config.get("activation_quantizer")))

    @staticmethod
    def weight_quantizer_or_default(config, default):
        if config is not None and config.weight_quantizer is not None:
            return config.weight_quantizer
        return default

    @staticmethod
    def activation_quantizer_or_default(config, default):
        if config is not None:
            return config.activation_quantizer
        return default


class Int8QuantizationConfig(QuantizationConfig):
    """The int8 mode's config, as Keras's.

    Args:
        weight_quantizer: the weights' quantizer (None: `AbsMaxQuantizer` along the
            contracted axes); its output_dtype must be "int8".
        activation_quantizer: the inputs' quantizer ("default": `AbsMaxQuantizer()`, along
            the last axis; None: weight-only quantization).

    Example:
        >>> import paddle as pd
        >>> config = pd.quantizers.Int8QuantizationConfig()
        >>> config.mode, type(config.activation_quantizer).__name__
        ('int8', 'AbsMaxQuantizer')
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default"):
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = quantizers.AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if self.weight_quantizer is not None and self.weight_quantizer.output_dtype != "int8":
            raise ValueError("Int8QuantizationConfig requires a weight_quantizer with "
                             "output_dtype='int8'. Received: "
                             f"output_dtype={self.weight_quantizer.output_dtype}")

    @property
    def mode(self):
        return "int8"


class Int4QuantizationConfig(QuantizationConfig):
    """The int4 mode's config, as Keras's.

    Args:
        weight_quantizer: the weights' quantizer for per-channel quantization (None:
            `AbsMaxQuantizer(axis=0, value_range=(-8, 7))`); its value_range must be (-8, 7)
            and its output_dtype "int8".
        activation_quantizer: the inputs' quantizer ("default" or None: none, weight-only
            quantization).
        block_size: rows of the kernel per group of scales and zero points (default 128:
            `ceil(input_dim / 128)` groups, asymmetric); None or -1: one symmetric scale per
            output channel. Groups take no custom quantizers.

    Example:
        >>> import paddle as pd
        >>> config = pd.quantizers.Int4QuantizationConfig(block_size=64)
        >>> config.mode, config.block_size, config.activation_quantizer
        ('int4', 64, None)
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default", block_size=128):
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = None  # int4 is weight-only by default
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and (not isinstance(block_size, int) or
                                       isinstance(block_size, bool) or
                                       (block_size != -1 and block_size <= 0)):
            raise ValueError(f"block_size must be None, -1, or a positive integer. "
                             f"Received: block_size={block_size}")
        self.block_size = block_size
        if block_size is not None and block_size > 0 and (
                self.weight_quantizer is not None or self.activation_quantizer is not None):
            raise ValueError("Int4 sub-channel quantization (block_size > 0) does not support "
                             "custom quantizers. Either set block_size to None or -1 for "
                             "per-channel quantization, or remove the custom quantizer "
                             f"arguments. Received: block_size={block_size}")
        if self.weight_quantizer is not None:
            value_range = tuple(getattr(self.weight_quantizer, "value_range", ()))
            if value_range != (-8, 7):
                raise ValueError("Int4QuantizationConfig requires a weight_quantizer with "
                                 f"value_range=(-8, 7). Received: value_range={value_range}")
            if self.weight_quantizer.output_dtype != "int8":
                raise ValueError("Int4QuantizationConfig requires a weight_quantizer with "
                                 "output_dtype='int8'. Received: "
                                 f"output_dtype={self.weight_quantizer.output_dtype}")

    @property
    def mode(self):
        return "int4"

    def get_config(self):
        return {**super().get_config(), "block_size": self.block_size}

    @classmethod
    def from_config(cls, config):
        # no block_size: a file from before Keras had it (per-channel then)
        return cls(weight_quantizer=_deserialized(config.get("weight_quantizer")),
                   activation_quantizer=_deserialized(config.get("activation_quantizer")),
                   block_size=config.get("block_size", None))


class Float8QuantizationConfig(QuantizationConfig):
    """The float8 mode's config, as Keras's: it takes no quantizers (float8 training
    quantizes the inputs, kernel and output gradients with scales of its own).

    Example:
        >>> import paddle as pd
        >>> pd.quantizers.Float8QuantizationConfig().mode
        'float8'
    """

    def __init__(self):
        super().__init__(None, None)

    @property
    def mode(self):
        return "float8"

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls()


class GPTQConfig(QuantizationConfig):
    """The GPTQ mode's config, as Keras's `GPTQConfig`: the calibration data and the
    settings of the GPTQ algorithm (post-training quantization of the weights with error
    compensation through the inverse Hessian of the layer's inputs; see
    paddle/highlevel/gptq.py).

    Args:
        dataset: the calibration data: an iterable of strings (tokenized by `tokenizer`)
            or of token ids (arrays, lists); None only to describe a config (`quantize`
            refuses it).
        tokenizer: an object with `tokenize(text)` for string data (Keras requires one
            even for token ids).
        weight_bits: bits per weight: 2, 3, 4 (packed two a byte) or 8 (4).
        num_samples: calibration windows (128).
        per_channel: a scale per output channel (True), else one per tensor.
        sequence_length: tokens per calibration window (512).
        hessian_damping: the fraction of the mean Hessian diagonal added to the
            diagonal before the inverse (0.01), in [0, 1].
        group_size: input rows per group of scales and zero points (128); -1: one group.
        symmetric: symmetric quantization (zero point at the middle of the range).
        activation_order: quantize the input rows in decreasing order of the Hessian's
            diagonal.
        quantization_layer_structure: {"pre_block_layers": [...], "sequential_blocks":
            [...]}: the layers the token ids go through first and the blocks quantized one
            after the other (None: `model.get_quantization_layer_structure("gptq")`).

    Example:
        >>> import paddle as pd
        >>> config = pd.quantizers.GPTQConfig(dataset=None, tokenizer=None, group_size=64)
        >>> config.mode, config.dtype_policy_string()
        ('gptq', 'gptq/4/64')
    """

    def __init__(self, dataset, tokenizer, *, weight_bits=4, num_samples=128,
                 per_channel=True, sequence_length=512, hessian_damping=0.01,
                 group_size=128, symmetric=False, activation_order=False,
                 quantization_layer_structure=None):
        super().__init__()
        for name, value in (("weight_bits", weight_bits), ("num_samples", num_samples),
                            ("sequence_length", sequence_length),
                            ("group_size", group_size)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise TypeError(f"GPTQConfig: expected {name} an integer, received "
                                f"{value!r} (of type {type(value).__name__})")
        if not isinstance(hessian_damping, (int, float, np.floating)) or \
                isinstance(hessian_damping, bool):
            raise TypeError(f"GPTQConfig: expected hessian_damping a number, received "
                            f"{hessian_damping!r}")
        if weight_bits not in [2, 3, 4, 8]:
            raise ValueError(f"Unsupported weight_bits {weight_bits}. Supported values are "
                             f"2, 3, 4, and 8.")
        if num_samples <= 0:
            raise ValueError("num_samples must be a positive integer.")
        if sequence_length <= 0:
            raise ValueError("sequence_length must be a positive integer.")
        if hessian_damping < 0 or hessian_damping > 1:
            raise ValueError("hessian_damping must be between 0 and 1.")
        if group_size < -1 or group_size == 0:
            raise ValueError("Invalid group_size. Supported values are -1 (whole-tensor) or "
                             f"a positive integer, but got {group_size}.")
        if quantization_layer_structure is not None and \
                not isinstance(quantization_layer_structure, dict):
            raise TypeError("GPTQConfig: expected quantization_layer_structure a dict with "
                            "'pre_block_layers' and 'sequential_blocks', received "
                            f"{quantization_layer_structure!r}")
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.num_samples = int(num_samples)
        self.per_channel = bool(per_channel)
        self.sequence_length = int(sequence_length)
        self.hessian_damping = float(hessian_damping)
        self.weight_bits = int(weight_bits)
        self.group_size = int(group_size)
        self.symmetric = bool(symmetric)
        self.activation_order = bool(activation_order)
        self.quantization_layer_structure = quantization_layer_structure

    def get_config(self):
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "per_channel": self.per_channel,
                "sequence_length": self.sequence_length,
                "hessian_damping": self.hessian_damping, "group_size": self.group_size,
                "symmetric": self.symmetric, "activation_order": self.activation_order,
                # the structure holds layers, which a saved config cannot (Keras's saving
                # recurses without end on them): None then, as the dataset
                "quantization_layer_structure": self.quantization_layer_structure
                if _plain(self.quantization_layer_structure) else None}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    @property
    def mode(self):
        return "gptq"

    def dtype_policy_string(self):
        """The mode of the layers' `GPTQDTypePolicy`: "gptq/<weight_bits>/<group_size>"."""
        return f"gptq/{self.weight_bits}/{self.group_size}"


class AWQConfig(QuantizationConfig):
    """The AWQ mode's config, as Keras's `AWQConfig`: activation-aware weight quantization
    to 4 bits, each input row of a kernel scaled by a power of its inputs' largest
    magnitude (the power searched on a grid) before the groups are quantized (see
    paddle/highlevel/gptq.py).

    Args:
        dataset: the calibration data: an iterable of strings (tokenized by `tokenizer`)
            or of token ids; None only to describe a config (`quantize` refuses it).
        tokenizer: an object with `tokenize(text)`.
        weight_bits: 4 (the only value AWQ takes).
        num_samples: calibration windows (128).
        sequence_length: tokens per calibration window (512).
        group_size: input rows per group of scales and zero points (128); -1: one group.
        num_grid_points: the exponents tried are i / num_grid_points, i = 0..num (20).
        quantization_layer_structure: {"pre_block_layers": [...], "sequential_blocks":
            [...]} (None: `model.get_quantization_layer_structure("awq")`).

    Example:
        >>> import paddle as pd
        >>> config = pd.quantizers.AWQConfig(dataset=None, tokenizer=None, group_size=-1)
        >>> config.mode, config.dtype_policy_string()
        ('awq', 'awq/4/-1')
    """

    def __init__(self, dataset, tokenizer, *, weight_bits=4, num_samples=128,
                 sequence_length=512, group_size=128, num_grid_points=20,
                 quantization_layer_structure=None):
        super().__init__()
        for name, value in (("weight_bits", weight_bits), ("num_samples", num_samples),
                            ("sequence_length", sequence_length),
                            ("group_size", group_size),
                            ("num_grid_points", num_grid_points)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise TypeError(f"AWQConfig: expected {name} an integer, received "
                                f"{value!r} (of type {type(value).__name__})")
        if weight_bits != 4:
            raise ValueError(f"AWQ only supports 4-bit quantization. Received "
                             f"weight_bits={weight_bits}.")
        if num_samples <= 0:
            raise ValueError("num_samples must be a positive integer.")
        if sequence_length <= 0:
            raise ValueError("sequence_length must be a positive integer.")
        if group_size < -1 or group_size == 0:
            raise ValueError("Invalid group_size. Supported values are -1 (per-channel) or "
                             f"a positive integer, but got {group_size}.")
        if num_grid_points <= 0:
            raise ValueError("num_grid_points must be a positive integer.")
        if quantization_layer_structure is not None and \
                not isinstance(quantization_layer_structure, dict):
            raise TypeError("AWQConfig: expected quantization_layer_structure a dict with "
                            "'pre_block_layers' and 'sequential_blocks', received "
                            f"{quantization_layer_structure!r}")
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.weight_bits = int(weight_bits)
        self.num_samples = int(num_samples)
        self.sequence_length = int(sequence_length)
        self.group_size = int(group_size)
        self.num_grid_points = int(num_grid_points)
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self):
        return "awq"

    def dtype_policy_string(self):
        """The mode of the layers' `AWQDTypePolicy`: "awq/<weight_bits>/<group_size>"."""
        return f"awq/{self.weight_bits}/{self.group_size}"

    def get_config(self):
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "sequence_length": self.sequence_length,
                "group_size": self.group_size, "num_grid_points": self.num_grid_points,
                # layers cannot be saved in a config (see GPTQConfig)
                "quantization_layer_structure": self.quantization_layer_structure
                if _plain(self.quantization_layer_structure) else None}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _plain(value):
    """Whether `value` is made of JSON's types only."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def gptq_setting_for_layer(layer, config, name):
    """Keras's `get_weight_bits_for_layer` / `get_group_size_for_layer` (of gptq_core and
    awq_core): `name` ("weight_bits", "group_size") from a GPTQConfig or AWQConfig, else
    from the layer's `GPTQDTypePolicy` or `AWQDTypePolicy` (a loaded layer's).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel.quantization_config import gptq_setting_for_layer
        >>> config = pd.quantizers.GPTQConfig(None, None, weight_bits=8)
        >>> gptq_setting_for_layer(pd.layers.Dense(2), config, "weight_bits")
        8
    """
    if isinstance(config, (GPTQConfig, AWQConfig)):
        return getattr(config, name)
    value = getattr(layer.dtype_policy, name, None)
    if value is None:
        kind = (layer.dtype_policy.quantization_mode or "gptq").upper()
        raise ValueError(f"For {kind} quantization, the {name} must be specified either "
                         f"through a `dtype_policy` of type `{kind}DTypePolicy` or the "
                         f"`config` argument.")
    return value


def block_size_for_layer(layer, config):
    """Keras's `get_block_size_for_layer`: the int4 block size from the config, else from
    the layer's `Int4DTypePolicy` (a loaded layer's); None: per-channel.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel.quantization_config import block_size_for_layer
        >>> block_size_for_layer(pd.layers.Dense(2), pd.quantizers.Int4QuantizationConfig())
        128
    """
    if isinstance(config, Int4QuantizationConfig):
        return config.block_size
    block_size = getattr(layer.dtype_policy, "block_size", None)
    return None if block_size in (None, -1) else block_size


CLASSES = {"QuantizationConfig": QuantizationConfig,
           "Int8QuantizationConfig": Int8QuantizationConfig,
           "Int4QuantizationConfig": Int4QuantizationConfig,
           "Float8QuantizationConfig": Float8QuantizationConfig,
           "GPTQConfig": GPTQConfig, "AWQConfig": AWQConfig}


def serialize_config(config):
    """Keras's serialized form of a quantization config (a layer's `quantization_config`).

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel.quantization_config import serialize_config
        >>> serialize_config(pd.quantizers.Int8QuantizationConfig())["class_name"]
        'Int8QuantizationConfig'
    """
    return {"module": "keras.quantizers", "class_name": type(config).__name__,
            "config": config.get_config(), "registered_name": None}


def config_argument(value, where):
    """A layer's `quantization_config` argument: None, a config, or its serialized form
    (a saved layer's).

    Example:
        >>> from paddle.highlevel.quantization_config import config_argument
        >>> config_argument({"class_name": "Int8QuantizationConfig",
        ...                  "config": {"activation_quantizer": None}}, "Dense").mode
        'int8'
    """
    if value is None or isinstance(value, QuantizationConfig):
        return value
    if isinstance(value, dict) and value.get("class_name") in CLASSES and \
            isinstance(value.get("config", {}), dict):
        return CLASSES[value["class_name"]].from_config(dict(value.get("config") or {}))
    raise ValueError(f"{where}: expected quantization_config a QuantizationConfig, its "
                     f"serialized form or None, received {value!r}")


def _serialized(quantizer):
    return None if quantizer is None else quantizers.serialize(quantizer)


def _deserialized(config):
    return None if config is None else quantizers.deserialize(config)


def validate_and_resolve_config(mode, config):
    """The config `quantize(mode, config)` stands for, with Keras's errors: a mode gives
    its default config, a config its mode, and the two must agree.

    Example:
        >>> from paddle.highlevel.quantization_config import validate_and_resolve_config
        >>> validate_and_resolve_config("int8", None).mode
        'int8'
    """
    if isinstance(config, str):  # Keras's backward compatibility: the mode as config
        mode, config = config, None
    _validate_mode(mode)
    if config is None:
        if mode == "int8":
            config = Int8QuantizationConfig()
        elif mode == "int4":
            config = Int4QuantizationConfig()
        elif mode == "float8":
            config = Float8QuantizationConfig()
        elif mode in ("gptq", "awq"):
            name = {"gptq": "GPTQConfig", "awq": "AWQConfig"}[mode]
            raise ValueError(f"For {mode.upper()}, you must pass a `{name}` object in the "
                             f"`config` argument.")
        else:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
    elif not isinstance(config, QuantizationConfig):
        raise ValueError("Argument `config` must be an instance of `QuantizationConfig`. "
                         f"Received: config={config} (of type {type(config)})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but "
                         f"config.mode='{config.mode}'")
    _validate_mode(config.mode)
    return config


def _validate_mode(mode):
    if mode is not None and mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                         f"Received: mode={mode}")
