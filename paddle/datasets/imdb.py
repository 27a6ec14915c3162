"""Keras's `keras.datasets.imdb`: IMDB's `load_data` and `get_word_index` (the code
lives in `paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.imdb.get_word_index)
    True
"""
from paddle.dataset.keras_files import (  # noqa: F401
    imdb_load_data as load_data, imdb_get_word_index as get_word_index)
