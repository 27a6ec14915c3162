"""Keras's `keras.preprocessing.sequence`: `pad_sequences` (paddle/utils/sequence.py).

Example:
    >>> import paddle as pd
    >>> pd.preprocessing.sequence.pad_sequences([[1]], maxlen=3).tolist()
    [[0, 0, 1]]
"""
from paddle.utils.sequence import pad_sequences  # noqa: F401
