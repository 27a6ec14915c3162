"""Keras's `keras.datasets.cifar100`: CIFAR-100's `load_data` (the code lives in
`paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.cifar100.load_data)
    True
"""
from paddle.dataset.keras_files import cifar100_load_data as load_data  # noqa: F401
