"""Keras's tensor-creation names: `shape`, `ones`, `zeros`, `full`, `arange`.

`ones`, `zeros`, `full` and `arange` make constant Variables (as `pd.constant` does, so
they need no kernel of their own); `shape` reads a Variable's static shape, with None for
sizes known only when data arrives (as `keras.ops.shape` on a symbolic tensor).

Example:
    >>> import paddle as pd
    >>> pd.shape(pd.data("x", shape=[None, 3]))
    (None, 3)
    >>> pd.eval(pd.ones((2,)) + pd.arange(0.0, 2.0)).tolist()
    [1.0, 2.0]
"""
import numbers

import numpy as np

from paddle.lowlevel.graph import Variable, apply, as_dtype, as_shape, call_input_like, constant
from paddle.lowlevel.op import OPS


class VariableShape(tuple):
    """A Variable's shape as `shape(x)` gives it: a plain tuple (None for sizes known only
    at run time) that remembers its Variable, so that `pd.random.uniform(pd.shape(x))` or
    `pd.zeros(pd.shape(x))` takes those sizes from `x` itself, as `tf.shape(x)` would."""

    def __new__(cls, variable):
        self = super().__new__(cls, variable.shape)
        self.variable = variable
        return self


def shape(x):
    """The shape of a Variable (None for unknown sizes) or of an array, as a tuple."""
    if isinstance(x, Variable):
        return VariableShape(x) if None in x.shape else x.shape
    try:
        return tuple(np.shape(x))
    except ValueError:  # ragged nested lists
        raise TypeError(f"shape: expected a Variable or an array, received {x!r}") from None


def _shape(value, where):
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        value = (value,)
    return as_shape(value, where)


def _filled(shape, value, dtype, where):
    """A constant, or, where `shape` holds None sizes (`ops.shape(x)[0]` in a layer's `call`
    or a custom train_step), a fill whose sizes come at run time from the call's input."""
    value_shape, shape, dtype = shape, _shape(shape, where), as_dtype(dtype, where)
    if None not in shape:
        return constant(np.full(shape, value), dtype=dtype)
    like = value_shape.variable if isinstance(value_shape, VariableShape) else \
        call_input_like(shape)
    if like is None:
        raise ValueError(f"{where}: expected a fully known shape, or None sizes inside a "
                         f"layer call or train_step whose input has them, received {shape}")
    return apply(OPS["full_like"], [like], {"value": float(value), "shape": shape,
                                            "dtype": dtype})


def full(shape, fill_value, dtype=None):
    """A constant of `shape` filled with `fill_value` (float32 for a float, int64 for an
    int, unless `dtype` says otherwise). A None size (the batch of `ops.shape(x)[0]`) is
    allowed inside a layer's `call` or a custom train_step: it is the input's at run time."""
    if not isinstance(fill_value, (numbers.Real, np.number)):
        raise TypeError(f"full: expected a number as fill_value, received {fill_value!r}")
    if dtype is None:
        dtype = "float32" if isinstance(fill_value, (float, np.floating)) else \
            "bool" if isinstance(fill_value, (bool, np.bool_)) else "int64"
    return _filled(shape, fill_value, dtype, "full")


def ones(shape, dtype="float32"):
    """A constant of ones (float32 by default); a None size as in `full`."""
    return _filled(shape, 1, dtype, "ones")


def zeros(shape, dtype="float32"):
    """A constant of zeros (float32 by default); a None size as in `full`."""
    return _filled(shape, 0, dtype, "zeros")


def arange(start, stop=None, step=1, dtype=None):
    """A 1-D constant of evenly spaced values in [start, stop), as `np.arange` (int64 for
    integer arguments, float32 when any is a float, unless `dtype` says otherwise)."""
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        if value is not None and (not isinstance(value, (numbers.Real, np.number)) or
                                  isinstance(value, bool)):
            raise TypeError(f"arange: expected {name} as a number, received {value!r}")
    if step == 0:
        raise ValueError("arange: step must not be 0")
    values = np.arange(start, step=step) if stop is None else np.arange(start, stop, step)
    if dtype is None:
        dtype = "float32" if values.dtype.kind == "f" else "int64"
    return constant(values, dtype=as_dtype(dtype, "arange"))
