"""Keras's `keras.backend` (`pd.backend`): global state and dtype utilities.

`backend()` is "paddle"; `floatx`, `epsilon`, `image_data_format` and their setters are
`pd.config`'s; `clear_session` forgets the global names (new layers are named "dense"
again) and `get_uid`'s counters; `standardize_dtype`, `result_type`, `is_float_dtype`,
`is_int_dtype` apply Keras's dtype rules; `is_keras_tensor` tells a symbolic value of a
model being built. paddle's devices are `pd.devices` (`pd.set_device`), not this module.

Example:
    >>> import paddle as pd
    >>> pd.backend.backend(), pd.backend.result_type("int32", "float32")
    ('paddle', 'float32')
"""
from paddle.config import backend  # noqa: F401
from paddle._settings import (  # noqa: F401
    epsilon, floatx, image_data_format, set_epsilon, set_floatx, set_image_data_format)
from paddle.lowlevel.dtypes import is_float_dtype, is_int_dtype, result_type  # noqa: F401
from paddle.utils.graph_utils import (  # noqa: F401
    clear_session, get_uid, is_keras_tensor, standardize_dtype)
