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
import numbers

import numpy as np

from paddle.lowlevel.graph import FLOATS, Variable
from paddle.lowlevel.ops import special
from paddle.lowlevel.ops.math import abs as ll_abs
from paddle.lowlevel.ops.math import cast, clip
from paddle.lowlevel.ops.reduce import max as ll_max

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
    if array.dtype.kind != "f":
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
    or not finite.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.quantizers.compute_float8_scale(np.array([2.0, 0.0]), np.array([0.5, 0.5]),
        ...                                    448.0, margin=1).round(6).tolist()
        [0.008929, 0.5]
    """
    amax, scale = np.asarray(amax), np.asarray(scale)
    inverse = np.reciprocal(scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.divide(np.divide(dtype_max, amax), 2 ** margin)
    factor = np.where(amax > 0.0, factor, inverse)
    factor = np.where(np.isfinite(amax), factor, inverse)
    return np.reciprocal(factor).astype(scale.dtype)


def compute_float8_amax_history(x, amax_history):
    """The history of absolute maxima with `max|x|` in front: the history rolled one place
    to the left, its first entry replaced (Keras's rule).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.quantizers.compute_float8_amax_history(np.array([-2.0, 1.0]),
        ...                                           np.array([1.0, 2.0, 3.0])).tolist()
        [2.0, 3.0, 1.0]
    """
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
