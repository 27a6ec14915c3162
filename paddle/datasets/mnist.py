"""Keras's `keras.datasets.mnist`: MNIST's `load_data` (the code lives in
`paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.mnist.load_data)
    True
"""
from paddle.dataset.keras_files import mnist_load_data as load_data  # noqa: F401
