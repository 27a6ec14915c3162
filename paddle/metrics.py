"""Metrics for `compile` (Keras's `keras.metrics`): stateful classes and functions.

This module is the Keras-style import path (`from paddle.metrics import ...`); the code
lives in `paddle.highlevel.metrics`, which it re-exports.

Example:
    >>> from paddle.metrics import Mean
    >>> m = Mean()
    >>> m.update_state([1.0, 3.0])
    >>> float(m.result())
    2.0
"""
from paddle.highlevel.metrics import *  # noqa: F401,F403
