"""Keras's dtypes on paddle: their names (`standardize_dtype`), which dtype combining
values of several dtypes gives (`result_type`, the one promotion rule of paddle: `pd.ops`,
`pd.backend.result_type` and the layers use it), and the float/int predicates.

The promotion is Keras's (itself JAX's): a lattice where bool < the weak Python `int` <
the integer dtypes < the weak Python `float` < the float dtypes < the complex ones, and
the result is the least upper bound of the arguments. A weak type (Python's `int` or
`float`, not a NumPy dtype) takes the precision of `floatx()`. paddle keeps 64-bit results
as 64-bit (float64 is a compute dtype of paddle), as Keras does on its TensorFlow and
PyTorch backends; Keras on JAX narrows them to 32 bits (JAX runs without x64 by default).

Example:
    >>> from paddle.lowlevel import dtypes
    >>> dtypes.result_type("int32", "float32"), dtypes.result_type("int8", int)
    ('float32', 'int8')
    >>> dtypes.result_type("uint8", "int8"), dtypes.result_type(float, int)
    ('int16', 'float32')
    >>> dtypes.result_type("int64", "float32"), dtypes.result_type("bool", int)
    ('float32', 'int32')
"""
import numpy as np

from paddle import _settings as settings

# Keras 3's dtype names (keras.src.backend.common.dtypes.ALLOWED_DTYPES) and its map of
# Python types.
ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64",
                  "int8", "int16", "int32", "int64", "bfloat16", "bool", "string",
                  "float8_e4m3fn", "float8_e5m2", "complex64", "complex128")
_PYTHON_DTYPES = {bool: "bool", int: "int32", float: "float32", str: "string",
                  "int": "int32", complex: "complex64"}


def standardize_dtype(dtype):
    """Keras 3's name of a dtype: None gives "float32" (Keras's floatx), Python's `int`,
    `float`, `bool` give "int32", "float32", "bool", NumPy dtypes and types their names.
    The name of a dtype paddle cannot compute in (float16, uint8, ...) is returned all the
    same, as Keras does; paddle's ops take float32, float64, int32, int64 and bool.

    Raises:
        ValueError: not a dtype Keras knows (its message, "Invalid dtype: ...").

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.utils.standardize_dtype(float), pd.utils.standardize_dtype(np.int64)
        ('float32', 'int64')
    """
    if dtype is None:
        return "float32"
    try:
        dtype = _PYTHON_DTYPES.get(dtype, dtype)
    except TypeError:  # unhashable
        pass
    if isinstance(dtype, np.dtype) or hasattr(dtype, "name") and not isinstance(dtype, str):
        dtype = getattr(dtype, "name", dtype)
    elif hasattr(dtype, "__name__"):
        dtype = dtype.__name__
    if not isinstance(dtype, str) or dtype not in ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return dtype


_LATTICE = {  # each node's immediate successors
    "bool": ["int"],
    "int": ["uint8", "int8", "complex64"],
    "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"], "uint64": ["float"],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["float"],
    "float": ["bfloat16", "float16"],
    "bfloat16": ["float32"], "float16": ["float32"],
    "float32": ["float64", "complex64"], "float64": ["complex128"],
    "complex64": ["complex128"], "complex128": [],
}
WEAK = ("int", "float")
FLOAT8 = ("float8_e4m3fn", "float8_e5m2")


def _upper_bounds():
    bounds = {}
    for node in _LATTICE:
        found, todo = {node}, [node]
        while todo:
            for nxt in _LATTICE[todo.pop()]:
                if nxt not in found:
                    found.add(nxt)
                    todo.append(nxt)
        bounds[node] = found
    return bounds


UPPER = _upper_bounds()


def least_upper_bound(nodes):
    """The lowest node of the lattice above every one of `nodes`."""
    nodes = set(nodes)
    unknown = [n for n in nodes if n not in UPPER]
    if unknown:
        raise ValueError(f"result_type: {unknown[0]!r} is not a dtype Keras promotes")
    common = set.intersection(*(UPPER[n] for n in nodes))
    least = (common & nodes) or {c for c in common if common <= UPPER[c]}
    if len(least) != 1:
        raise ValueError(f"result_type: the dtypes {sorted(nodes)} have no implicit "
                         f"promotion; cast them to one dtype")
    return least.pop()


def _weak(dtype):
    """The weak kind of a Python-type argument's dtype ('int', 'float', or 'bool')."""
    if dtype == "bool":
        return "bool"
    return "float" if "float" in dtype else "int" if "int" in dtype else dtype


def result_type(*dtypes):
    """The dtype Keras's promotion rules give to a combination of `dtypes` (dtype names,
    NumPy dtypes, or Python's `int`, `float`, `bool`, which are weak: they adapt to the
    others). No argument gives `floatx()`.

    Example:
        >>> import paddle as pd
        >>> pd.backend.result_type("float32", "float64"), pd.backend.result_type("int32", float)
        ('float64', 'float32')
    """
    if not dtypes:
        return settings.floatx()
    for d in dtypes:
        if isinstance(d, str) and d in FLOAT8:
            raise ValueError(f"result_type: there is no implicit conversion from float8 "
                             f"dtypes, received {dtypes}")
    named = [standardize_dtype(settings.floatx() if d is None else d) for d in dtypes]
    weak = [d is int or d is float for d in dtypes]
    if len(named) == 1 or (len(set(named)) == 1 and not all(weak)):
        out, out_weak = named[0], weak[0] and len(named) == 1
    elif all(weak):
        out, out_weak = least_upper_bound(named), True
    else:
        out = least_upper_bound(_weak(d) if w else d for d, w in zip(named, weak))
        out_weak = out in WEAK
    if out_weak and out != "bool":
        precision = settings.floatx()[-2:]
        kind = _weak(out)
        out = "bool" if kind == "bool" else f"{kind}{precision}"
    return out


def is_float_dtype(dtype):
    """Whether `dtype` is a float dtype (bfloat16, float16/32/64, float8).

    Example:
        >>> import paddle as pd
        >>> pd.backend.is_float_dtype("float32"), pd.backend.is_float_dtype("int32")
        (True, False)
    """
    name = standardize_dtype(dtype)
    return name.startswith("float") or name.startswith("bfloat")


def is_int_dtype(dtype):
    """Whether `dtype` is an integer dtype (signed or unsigned).

    Example:
        >>> import paddle as pd
        >>> pd.backend.is_int_dtype("uint8"), pd.backend.is_int_dtype("bool")
        (True, False)
    """
    name = standardize_dtype(dtype)
    return name.startswith("int") or name.startswith("uint")
