"""Keras's dtype policies (`pd.dtype_policies`, `pd.mixed_precision`): which dtype a layer
computes in and keeps its weights in.

The float policies "float32", "float64", "float16" and "bfloat16" keep weights and
compute in that dtype. The mixed policies "mixed_float16" and "mixed_bfloat16" keep the
weights in float32 and compute in the half type, as Keras 3: a layer casts its float
inputs to the half type and reads its float32 weights through a cast node (one copy of
the weights, in float32, which the optimizer updates), so its outputs are half. Losses
compute in float32 (`pd.losses`), and a layer given `dtype="float32"` (a final softmax)
computes in float32 again. See docs/highlevel.md, "Mixed precision", for what the CPU
and the GPU compute in.
`QuantizedDTypePolicy("int8", "float32")` is the policy `model.quantize("int8")` gives the
layers it quantizes, `Int4DTypePolicy("int4/128", "float32")` the one `model.quantize("int4")`
gives (its block size in the name: -1 for one scale per output channel; see
`pd.quantizers`), `GPTQDTypePolicy("gptq/4/128", "float32")` the one of
`model.quantize("gptq", config=...)` (bits and group size in the name), and
`AWQDTypePolicy("awq/4/128", "float32")` the one of `model.quantize("awq", config=...)`.

Example:
    >>> import paddle as pd
    >>> policy = pd.dtype_policies.DTypePolicy("float64")
    >>> policy.compute_dtype, policy.variable_dtype
    ('float64', 'float64')
    >>> pd.layers.Dense(2, dtype=policy).dtype
    'float64'
    >>> mixed = pd.dtype_policies.DTypePolicy("mixed_float16")
    >>> mixed.compute_dtype, mixed.variable_dtype
    ('float16', 'float32')
"""
import re

from paddle import _settings as settings
from paddle.devices import half

FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
DTYPES = FLOAT_DTYPES + ("int32", "int64", "bool")  # paddle's dtypes
MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}  # name: compute dtype
QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")  # Keras's, all run

_global = {"policy": None}  # None: a float policy named floatx()


def _float_name(name, where):
    if not isinstance(name, str):
        raise TypeError(f"{where}: expected a policy name such as 'float32', received "
                        f"{name!r} (of type {type(name).__name__})")
    if name not in DTYPES and name not in MIXED:
        # Keras's words, with where it was asked
        raise ValueError(f"{where}: Cannot convert {name!r} to a mixed precision "
                         f"DTypePolicy. Valid policies include 'mixed_float16', "
                         f"'mixed_bfloat16', and the name of any float dtype such as "
                         f"'float32' (paddle's: {', '.join(DTYPES)})")
    dtype = MIXED.get(name, name)
    if dtype in half.HALF:
        half.check_available(dtype, f"{where} {name!r}")
    return name


class DTypePolicy:
    """A layer's dtype policy: the dtype it computes in and the dtype of its weights.

    Args:
        name: "mixed_float16" or "mixed_bfloat16" (weights in float32, computing in the
            half type), a float dtype "float32", "float64", "float16", "bfloat16" (both
            dtypes are that one), or None for the global policy
            (`pd.config.dtype_policy()`). Other names raise Keras's ValueError.

    Example:
        >>> import paddle as pd
        >>> pd.dtype_policies.DTypePolicy("float32")
        <DTypePolicy "float32">
    """

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = _float_name(name, type(self).__name__)
        self._compute_dtype = MIXED.get(self._name, self._name)
        self._variable_dtype = "float32" if self._name in MIXED else self._name
        self._quantization_mode = None

    @property
    def name(self):
        """The policy's name."""
        return self._name

    @property
    def compute_dtype(self):
        """The dtype a layer computes in (its inputs are cast to it)."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype of a layer's weights."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """The quantization mode ("int8", "int4"), or None for a float policy."""
        return self._quantization_mode

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        kind = "DTypePolicy" if type(self) in (DTypePolicy, FloatDTypePolicy) else \
            type(self).__name__
        return f'<{kind} "{self._name}">'

    def __eq__(self, other):
        if type(self) in (DTypePolicy, FloatDTypePolicy):
            if type(other) not in (DTypePolicy, FloatDTypePolicy):
                return False
        elif type(self) is not type(other):
            return False
        return self._name == other._name

    def __hash__(self):
        return hash((type(self).__name__, self._name))


class FloatDTypePolicy(DTypePolicy):
    """Keras's older name of a float `DTypePolicy` (the same policy).

    Example:
        >>> import paddle as pd
        >>> pd.dtype_policies.FloatDTypePolicy("float64") == pd.dtype_policies.DTypePolicy("float64")
        True
    """


class QuantizedDTypePolicy(DTypePolicy):
    """The policy of a quantized layer: weights stored as `mode` integers with a float scale,
    computing in the float dtype `source_name`.

    Args:
        mode: the quantization mode, "int8", "float8", "int4", "gptq" or "awq".
        source_name: the float policy the layer computes in (None: the global one).

    Example:
        >>> import paddle as pd
        >>> p = pd.dtype_policies.QuantizedDTypePolicy("int8", "float32")
        >>> p.name, p.quantization_mode, p.compute_dtype
        ('int8_from_float32', 'int8', 'float32')
    """

    def __init__(self, mode, source_name=None):
        if mode not in QUANTIZATION_MODES:
            raise ValueError(f"{type(self).__name__}: expected mode one of "
                             f"{', '.join(QUANTIZATION_MODES)}, received {mode!r}")
        if source_name is None:
            source_name = dtype_policy().name
        source = _float_name(source_name, type(self).__name__)
        super().__init__(source)
        self._name = f"{mode}_from_{source}"
        self._quantization_mode = mode
        self._source_name = source

    def get_config(self):
        return {"mode": self._quantization_mode, "source_name": self._source_name}


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """The policy of a float8-trained layer (Keras's): float32 weights, computed through
    float8 fake quantization with scales from the last `amax_history_length` absolute
    maxima.

    Args:
        mode: "float8".
        source_name: the float policy the layer computes in (None: the global one).
        amax_history_length: the length of the histories of absolute maxima (1024).

    Example:
        >>> import paddle as pd
        >>> p = pd.dtype_policies.QuantizedFloat8DTypePolicy("float8", "float32", 16)
        >>> p.name, p.amax_history_length
        ('float8_from_float32', 16)
    """

    default_amax_history_length = 1024

    def __init__(self, mode, source_name=None, amax_history_length=1024):
        super().__init__(mode, source_name)
        if not isinstance(amax_history_length, int) or isinstance(amax_history_length, bool):
            raise TypeError("`amax_history_length` must be an integer. Received: "
                            f"amax_history_length={amax_history_length}")
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self):
        """The length of the amax history window (the float8 scales' memory)."""
        return self._amax_history_length

    def __eq__(self, other):
        return super().__eq__(other) and \
            self._amax_history_length == other._amax_history_length

    def __hash__(self):
        return hash((type(self).__name__, self._name, self._amax_history_length))

    def get_config(self):
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


class Int4DTypePolicy(QuantizedDTypePolicy):
    """The policy of an int4-quantized layer, as Keras's: the mode "int4/<block_size>"
    carries the block size (rows per group of scales; -1: one scale per output channel),
    so that a loaded layer rebuilds the same weights.

    Args:
        mode: "int4/<block_size>", block_size -1 or a positive integer.
        source_name: the float policy the layer computes in (None: the global one).

    Example:
        >>> import paddle as pd
        >>> p = pd.dtype_policies.Int4DTypePolicy("int4/128", "float32")
        >>> p.name, p.quantization_mode, p.block_size
        ('int4/128_from_float32', 'int4', 128)
    """

    def __init__(self, mode, source_name=None):
        expected = "'int4/<block_size>'"
        parts = mode.split("/") if isinstance(mode, str) else []
        if len(parts) != 2 or parts[0] != "int4":
            raise ValueError(f"Invalid mode for Int4DTypePolicy. Expected format {expected}, "
                             f"but got '{mode}'.")
        try:
            block_size = int(parts[1])
        except ValueError:
            raise ValueError(f"Invalid mode for Int4DTypePolicy. <block_size> must be an "
                             f"integer. Expected format {expected}, but got '{mode}'.") \
                from None
        if block_size < -1 or block_size == 0:
            raise ValueError(f"Invalid block_size in mode. Supported values are -1 "
                             f"(per-channel) or a positive integer (sub-channel), but got "
                             f"{block_size} from '{mode}'.")
        super().__init__("int4", source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "int4"
        self.block_size = block_size

    def __eq__(self, other):
        return super().__eq__(other) and self.block_size == other.block_size

    def __hash__(self):
        return hash((type(self).__name__, self._name))

    def get_config(self):
        return {"mode": f"int4/{self.block_size}", "source_name": self._source_name}


class _BitsAndGroupPolicy(QuantizedDTypePolicy):
    """A policy whose mode "<mode>/<weight_bits>/<group_size>" carries the bits and the
    group size (GPTQ's and AWQ's), with Keras's errors; a subclass names its mode, the
    bits it allows (`_check_bits`) and the word for group size -1."""

    _whole = ""  # what group size -1 means, in the error

    def __init__(self, mode, source_name=None):
        kind, name = self._mode, type(self).__name__
        expected = f"'{kind}/<weight_bits>/<group_size>'"
        parts = mode.split("/") if isinstance(mode, str) else []
        if len(parts) != 3 or parts[0] != kind:
            raise ValueError(f"Invalid mode for {name}. Expected format {expected}, "
                             f"but got '{mode}'.")
        try:
            weight_bits, group_size = int(parts[1]), int(parts[2])
        except ValueError:
            raise ValueError(f"Invalid mode for {name}. <weight_bits> and "
                             f"<group_size> must be integers. Expected format {expected}, "
                             f"but got '{mode}'.") from None
        self._check_bits(weight_bits, mode)
        if group_size < -1 or group_size == 0:
            raise ValueError(f"Invalid group_size in mode. Supported values are -1 "
                             f"({self._whole}) or a positive integer, but got {group_size} "
                             f"from '{mode}'.")
        super().__init__(kind, source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = kind
        self.weight_bits = weight_bits
        self.group_size = group_size

    def __eq__(self, other):
        return super().__eq__(other) and self.weight_bits == other.weight_bits and \
            self.group_size == other.group_size

    def __hash__(self):
        return hash((type(self).__name__, self._name))

    def get_config(self):
        return {"mode": f"{self._mode}/{self.weight_bits}/{self.group_size}",
                "source_name": self._source_name}


class GPTQDTypePolicy(_BitsAndGroupPolicy):
    """The policy of a GPTQ-quantized layer, as Keras's: the mode
    "gptq/<weight_bits>/<group_size>" carries the bits (2, 3, 4 or 8) and the group size
    (-1 or a positive integer), so that a loaded layer rebuilds the same weights.

    Args:
        mode: "gptq/<weight_bits>/<group_size>", e.g. "gptq/4/128".
        source_name: the float policy the layer computes in (None: the global one).

    Example:
        >>> import paddle as pd
        >>> p = pd.dtype_policies.GPTQDTypePolicy("gptq/4/128", "float32")
        >>> p.name, p.quantization_mode, p.weight_bits, p.group_size
        ('gptq/4/128_from_float32', 'gptq', 4, 128)
    """

    _mode, _whole = "gptq", "whole-tensor"

    @staticmethod
    def _check_bits(weight_bits, mode):
        if weight_bits not in (2, 3, 4, 8):
            raise ValueError(f"Invalid weight_bits in mode. Supported values are 2, 3, 4, "
                             f"and 8, but got {weight_bits} from '{mode}'.")


class AWQDTypePolicy(_BitsAndGroupPolicy):
    """The policy of an AWQ-quantized layer, as Keras's: the mode
    "awq/<weight_bits>/<group_size>", weight_bits 4 (AWQ's only), group_size -1 or a
    positive integer.

    Args:
        mode: "awq/4/<group_size>", e.g. "awq/4/128".
        source_name: the float policy the layer computes in (None: the global one).

    Example:
        >>> import paddle as pd
        >>> p = pd.dtype_policies.AWQDTypePolicy("awq/4/128", "float32")
        >>> p.name, p.quantization_mode, p.weight_bits, p.group_size
        ('awq/4/128_from_float32', 'awq', 4, 128)
    """

    _mode, _whole = "awq", "per-channel"

    @staticmethod
    def _check_bits(weight_bits, mode):
        if weight_bits != 4:
            raise ValueError(f"Invalid weight_bits in mode. AWQ only supports 4-bit "
                             f"quantization, but got {weight_bits} from '{mode}'.")


class DTypePolicyMap(dict):
    """Policies by layer path: `policy_map["decoder/dense"]` is the policy of the layers
    whose path matches that key (a regular expression searched in the path), else the
    default policy.

    Args:
        default_policy: the policy of paths no key matches (None: the global policy).
        policy_map: {path pattern: policy or policy name}.

    Example:
        >>> import paddle as pd
        >>> m = pd.dtype_policies.DTypePolicyMap(policy_map={"encoder": "float64"})
        >>> m["encoder/dense"].name, m["decoder/dense"].name
        ('float64', 'float32')
    """

    def __init__(self, default_policy=None, policy_map=None):
        super().__init__()
        self.default_policy = get(default_policy) if default_policy is not None else \
            dtype_policy()
        for key, value in (policy_map or {}).items():
            self[key] = value

    def __setitem__(self, key, policy):
        if not isinstance(key, str):
            raise TypeError(f"DTypePolicyMap: expected a path string as key, received {key!r}")
        super().__setitem__(key, get(policy))

    def __getitem__(self, key):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        matches = [k for k in self if re.search(k, key)]
        if len(matches) > 1:
            raise ValueError(f"DTypePolicyMap: the path {key!r} matches several keys "
                             f"{matches}; make the keys more specific")
        return dict.__getitem__(self, matches[0]) if matches else self.default_policy

    @property
    def name(self):
        return "map_" + self.default_policy.name

    def get_config(self):
        return {"default_policy": serialize(self.default_policy),
                "policy_map": {k: serialize(v) for k, v in self.items()}}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["default_policy"] = deserialize(config["default_policy"])
        config["policy_map"] = {k: deserialize(v) for k, v in config["policy_map"].items()}
        return cls(**config)


_CLASSES = {c.__name__: c for c in (DTypePolicy, FloatDTypePolicy, QuantizedDTypePolicy,
                                    QuantizedFloat8DTypePolicy, Int4DTypePolicy,
                                    GPTQDTypePolicy, AWQDTypePolicy, DTypePolicyMap)}


def get(identifier):
    """A policy from a policy, a name ("float32", "int8_from_float32", "int4/128_from_float32")
    or a serialized config.

    Example:
        >>> import paddle as pd
        >>> pd.dtype_policies.get("float64")
        <DTypePolicy "float64">
    """
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier.startswith(QUANTIZATION_MODES):
            return _quantized_policy(identifier)
        return DTypePolicy(identifier)
    name = getattr(identifier, "name", None)  # a NumPy dtype
    if isinstance(name, str):
        return DTypePolicy(name)
    raise ValueError(f"dtype_policies.get: expected a DTypePolicy, a policy name or a config, "
                     f"received {identifier!r}")


def _quantized_policy(name):
    """Keras's `_get_quantized_dtype_policy_by_str`: "int8_from_float32",
    "int4_from_float32", "int4/128_from_float32"."""
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError(f"Cannot convert `policy` into a valid pair (`mode`, `source_name`) "
                         f"to instantiate `QuantizedDTypePolicy`. Received: policy={name}")
    mode, source = parts
    if mode.startswith("int4") and "/" in mode:
        return Int4DTypePolicy(mode, source)
    if mode.startswith("gptq"):
        return GPTQDTypePolicy(mode, source)
    if mode.startswith("awq"):
        return AWQDTypePolicy(mode, source)
    if mode.startswith("float8"):
        return QuantizedFloat8DTypePolicy(mode, source)
    return QuantizedDTypePolicy(mode, source)


def serialize(dtype_policy):
    """The Keras config of a policy: {"module", "class_name", "config", ...}.

    Example:
        >>> import paddle as pd
        >>> pd.dtype_policies.serialize(pd.dtype_policies.DTypePolicy("float32"))["config"]
        {'name': 'float32'}
    """
    if not isinstance(dtype_policy, DTypePolicy) and not isinstance(dtype_policy, DTypePolicyMap):
        raise TypeError(f"dtype_policies.serialize: expected a DTypePolicy, received "
                        f"{dtype_policy!r}")
    return {"module": "keras.dtype_policies" if isinstance(dtype_policy, QuantizedDTypePolicy)
            else "keras", "class_name": type(dtype_policy).__name__,
            "config": dtype_policy.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """The policy a `serialize` config (or a policy name) describes.

    Example:
        >>> import paddle as pd
        >>> pd.dtype_policies.deserialize({"class_name": "DTypePolicy",
        ...                                "config": {"name": "float64"}})
        <DTypePolicy "float64">
    """
    if isinstance(config, (str, DTypePolicy)):
        return get(config)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"dtype_policies.deserialize: expected a config with 'class_name' "
                         f"and 'config', received {config!r}")
    cls = (custom_objects or {}).get(config["class_name"]) or _CLASSES.get(config["class_name"])
    if cls is None:
        raise ValueError(f"dtype_policies.deserialize: unknown policy class "
                         f"{config['class_name']!r}; expected one of {', '.join(_CLASSES)}")
    return cls.from_config(config.get("config", {}))


def dtype_policy():
    """The global policy: the one `set_dtype_policy` set, else the float policy of
    `pd.config.floatx()`.

    Example:
        >>> import paddle as pd
        >>> pd.config.dtype_policy()
        <DTypePolicy "float32">
    """
    policy = _global["policy"]
    return policy if policy is not None else DTypePolicy(settings.floatx())


def set_dtype_policy(policy):
    """Set the global policy: layers created without a `dtype` use it.

    Args:
        policy: a DTypePolicy or a name: "mixed_float16", "mixed_bfloat16", or a float
            dtype ("float32", "float64", "float16", "bfloat16").

    Example:
        >>> import paddle as pd
        >>> pd.config.set_dtype_policy("float64")
        >>> pd.layers.Dense(2).dtype_policy
        <DTypePolicy "float64">
        >>> pd.config.set_dtype_policy("float32")
    """
    if isinstance(policy, str):
        policy = get(policy)
    if not isinstance(policy, DTypePolicy):
        raise ValueError(f"set_dtype_policy: expected a DTypePolicy or a policy name, "
                         f"received {policy!r}")
    _global["policy"] = policy


def layer_policy(dtype):
    """The policy of a layer given `dtype` (None, a name, a NumPy dtype or a policy)."""
    if dtype is None:
        return dtype_policy()
    if isinstance(dtype, DTypePolicyMap):
        return dtype.default_policy
    return get(dtype)
