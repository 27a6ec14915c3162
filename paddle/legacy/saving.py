"""Keras's `keras.legacy.saving` (`pd.legacy.saving`): legacy (Keras 2) object configs,
`{"class_name", "config"}`. The code lives in
paddle/highlevel/saving/legacy_serialization.py.

Example:
    >>> import paddle as pd
    >>> pd.legacy.saving.deserialize_keras_object(
    ...     {"class_name": "L1", "config": {"l1": 0.5}}).get_config()
    {'l1': 0.5}
"""
from paddle.highlevel.saving.legacy_serialization import (  # noqa: F401
    deserialize_keras_object, serialize_keras_object)
