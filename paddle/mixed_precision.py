"""Keras's `keras.mixed_precision` (`pd.mixed_precision`): the dtype-policy API under its
mixed-precision names. `set_global_policy("mixed_float16")` (or "mixed_bfloat16") makes
new layers keep their weights in float32 and compute in the half type; `compile` then
wraps the optimizer in a `LossScaleOptimizer` (float16 only), as Keras does. See
docs/highlevel.md, "Mixed precision", for what the CPU and the GPU compute in.

Example:
    >>> import paddle as pd
    >>> pd.mixed_precision.set_global_policy("mixed_float16")
    >>> pd.mixed_precision.global_policy()
    <DTypePolicy "mixed_float16">
    >>> pd.layers.Dense(2).compute_dtype
    'float16'
    >>> pd.mixed_precision.set_global_policy("float32")
"""
from paddle.highlevel.dtype_policies import (  # noqa: F401
    DTypePolicy, dtype_policy, set_dtype_policy)
from paddle.lowlevel.loss_scale import LossScaleOptimizer  # noqa: F401

Policy = DTypePolicy  # Keras's older name
global_policy = dtype_policy
set_global_policy = set_dtype_policy
