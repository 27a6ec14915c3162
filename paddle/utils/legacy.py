"""Keras's `keras.utils.legacy` (`pd.utils.legacy`): the legacy (Keras 2) object configs,
the same functions as `pd.legacy.saving`'s.

Example:
    >>> import paddle as pd
    >>> pd.utils.legacy.serialize_keras_object(pd.regularizers.L1(0.5))
    {'class_name': 'L1', 'config': {'l1': 0.5}}
"""
from paddle.highlevel.saving.legacy_serialization import (  # noqa: F401
    deserialize_keras_object, serialize_keras_object)
