"""Losses for `compile` (Keras's `keras.losses`): classes and per-example functions.

This module is the Keras-style import path (`from paddle.losses import ...`); the code
lives in `paddle.highlevel.losses`, which it re-exports.

Example:
    >>> from paddle.losses import SparseCategoricalCrossentropy
    >>> SparseCategoricalCrossentropy(from_logits=True).from_logits
    True
"""
from paddle.highlevel.losses import *  # noqa: F401,F403
