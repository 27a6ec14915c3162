"""Keras's `keras.datasets.reuters`: Reuters' `load_data`, `get_word_index` and
`get_label_names` (the code lives in `paddle/dataset/keras_files.py`).

Example:
    >>> import paddle as pd
    >>> callable(pd.datasets.reuters.get_word_index)
    True
"""
from paddle.dataset.keras_files import (  # noqa: F401
    reuters_get_label_names as get_label_names, reuters_get_word_index as get_word_index,
    reuters_load_data as load_data)
