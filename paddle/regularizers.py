"""Weight and activity regularizers (Keras's `keras.regularizers`): `L1`, `L2`, `L1L2`.

This module is the Keras-style import path (`from paddle.regularizers import ...`); the code
lives in `paddle.highlevel.regularizers`, which it re-exports.

Example:
    >>> from paddle.regularizers import L2
    >>> L2(0.01).get_config()
    {'l2': 0.01}
"""
from paddle.highlevel.regularizers import *  # noqa: F401,F403
