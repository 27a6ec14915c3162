"""Keras's `keras.distribution` (`pd.distribution`): data parallelism over paddle's MPI
training (`pd.distributed`); model parallelism is not available (ModelParallel raises).
The code lives in paddle/distributed/keras_api.py.

Example:
    >>> import paddle as pd
    >>> pd.distribution.get_device_count()
    1
"""
from paddle.distributed.keras_api import (  # noqa: F401
    DataParallel, DeviceMesh, LayoutMap, ModelParallel, TensorLayout, distribute_tensor,
    distribution, get_device_count, initialize, list_devices, set_distribution)
