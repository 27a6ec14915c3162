"""Initializers (Keras's `keras.initializers`): `GlorotUniform`, `HeNormal`, `Constant`, ...

This module is the Keras-style import path (`from paddle.initializers import ...`); the code
lives in `paddle.lowlevel.initializers`, which it re-exports.

Example:
    >>> from paddle.initializers import Constant
    >>> Constant(0.5).get_config()
    {'value': 0.5}
"""
from paddle.lowlevel.initializers import *  # noqa: F401,F403
