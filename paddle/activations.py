"""Activation functions by name (Keras's `keras.activations`): `relu`, `gelu`, `get`, ...

This module is the Keras-style import path (`from paddle.activations import ...`); the code
lives in `paddle.highlevel.activations`, which it re-exports.

Example:
    >>> from paddle.activations import get, relu
    >>> get("relu") is relu
    True
"""
from paddle.highlevel.activations import *  # noqa: F401,F403
from paddle.highlevel.activations import ALL, __all__  # noqa: F401  (ALL: name -> function)
