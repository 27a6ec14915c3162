"""Callbacks for `fit`, `evaluate` and `predict` (Keras's `keras.callbacks`): `EarlyStopping`,
`ModelCheckpoint`, `CSVLogger`, ...

This module is the Keras-style import path (`from paddle.callbacks import ...`); the code
lives in `paddle.highlevel.callbacks`, which it re-exports.

Example:
    >>> from paddle.callbacks import EarlyStopping
    >>> EarlyStopping(patience=2).patience
    2
"""
from paddle.highlevel.callbacks import *  # noqa: F401,F403
