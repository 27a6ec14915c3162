"""Keras's `keras.mixed_precision` (`pd.mixed_precision`): the dtype-policy API under its
mixed-precision names. paddle computes in float32 and float64 only, so `set_global_policy`
accepts "float32" and "float64" and refuses "mixed_float16"/"mixed_bfloat16" with a
ValueError that says why; `LossScaleOptimizer` wraps an optimizer as Keras's (with no
float16 gradients to rescue, it computes the same steps as the optimizer it wraps).

Example:
    >>> import paddle as pd
    >>> pd.mixed_precision.set_global_policy("float32")
    >>> pd.mixed_precision.global_policy()
    <DTypePolicy "float32">
"""
from paddle.highlevel.dtype_policies import (  # noqa: F401
    DTypePolicy, dtype_policy, set_dtype_policy)

Policy = DTypePolicy  # Keras's older name
global_policy = dtype_policy
set_global_policy = set_dtype_policy
