"""Weight constraints (Keras's `keras.constraints`): `MaxNorm`, `NonNeg`, `UnitNorm`, ...

This module is the Keras-style import path (`from paddle.constraints import ...`); the code
lives in `paddle.highlevel.constraints`, which it re-exports.

Example:
    >>> from paddle.constraints import NonNeg
    >>> NonNeg().get_config()
    {}
"""
from paddle.highlevel.constraints import *  # noqa: F401,F403
