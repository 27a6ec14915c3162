"""Keras's `keras.datasets.boston_housing`: Boston housing's `load_data` (the code lives in
`paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.boston_housing.load_data)
    True
"""
from paddle.dataset.keras_files import boston_housing_load_data as load_data  # noqa: F401
