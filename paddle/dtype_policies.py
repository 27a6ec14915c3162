"""Keras's `keras.dtype_policies` (`pd.dtype_policies`): the dtype a layer computes in and
keeps its weights in. "float32" and "float64" work fully; the mixed (half-precision)
policies raise ValueError, paddle having no float16/bfloat16 kernels. The code lives in
paddle/highlevel/dtype_policies.py.

Example:
    >>> import paddle as pd
    >>> pd.dtype_policies.get("float64").compute_dtype
    'float64'
"""
from paddle.highlevel.dtype_policies import (  # noqa: F401
    DTypePolicy, DTypePolicyMap, FloatDTypePolicy, QuantizedDTypePolicy, deserialize, get,
    serialize)
