"""Keras's `keras.legacy` (`pd.legacy`): `pd.legacy.saving`, the legacy (Keras 2) object
configs.

Example:
    >>> import paddle as pd
    >>> pd.legacy.saving.serialize_keras_object(pd.regularizers.L1(0.5))["class_name"]
    'L1'
"""
from paddle.legacy import saving  # noqa: F401
