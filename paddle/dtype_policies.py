"""Keras's `keras.dtype_policies` (`pd.dtype_policies`): the dtype a layer computes in and
keeps its weights in: the float dtypes ("float32", "float64", "float16", "bfloat16") and
the mixed policies "mixed_float16" and "mixed_bfloat16" (float32 weights, half
computation). The code lives in paddle/highlevel/dtype_policies.py.

Example:
    >>> import paddle as pd
    >>> pd.dtype_policies.get("float64").compute_dtype
    'float64'
"""
from paddle.highlevel.dtype_policies import (  # noqa: F401
    AWQDTypePolicy, DTypePolicy, DTypePolicyMap, FloatDTypePolicy, GPTQDTypePolicy,
    Int4DTypePolicy, QuantizedDTypePolicy, QuantizedFloat8DTypePolicy, deserialize, get,
    serialize)
