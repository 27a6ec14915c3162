"""Keras's `keras.datasets.cifar10`: CIFAR-10's `load_data` (the code lives in
`paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.cifar10.load_data)
    True
"""
from paddle.dataset.keras_files import cifar10_load_data as load_data  # noqa: F401
