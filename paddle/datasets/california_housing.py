"""Keras's `keras.datasets.california_housing`: California housing's `load_data` (the code lives in
`paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.california_housing.load_data)
    True
"""
from paddle.dataset.keras_files import california_housing_load_data as load_data  # noqa: F401
