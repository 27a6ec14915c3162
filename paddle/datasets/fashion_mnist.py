"""Keras's `keras.datasets.fashion_mnist`: Fashion-MNIST's `load_data` (the code lives in
`paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.fashion_mnist.load_data)
    True
"""
from paddle.dataset.keras_files import fashion_mnist_load_data as load_data  # noqa: F401
