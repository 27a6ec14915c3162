"""Layers (Keras's `keras.layers`): `Dense`, `Conv2D`, `LSTM`, `Input`, ...

This module is the Keras-style import path (`from paddle.layers import ...`); the code
lives in `paddle.highlevel.layers`, which it re-exports.

Example:
    >>> from paddle.layers import Dense
    >>> Dense(4).units
    4
"""
from paddle.highlevel.layers import *  # noqa: F401,F403
