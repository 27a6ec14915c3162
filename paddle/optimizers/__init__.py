"""Optimizers (Keras's `keras.optimizers`): `SGD`, `Adam`, `AdamW`, `RMSprop`, ..., and their
learning-rate schedules in `paddle.optimizers.schedules`.

This package is the Keras-style import path (`from paddle.optimizers import Adam`,
`pd.optimizers.X`); the code lives in `paddle.lowlevel.optimizers` and
`paddle.lowlevel.schedules`, which it re-exports.

Example:
    >>> from paddle.optimizers import Adam
    >>> from paddle.optimizers.schedules import ExponentialDecay
    >>> Adam(learning_rate=ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)).name
    'adam'
"""
from paddle.lowlevel.optimizers import *  # noqa: F401,F403
# The submodule by its import path (a plain `from . import` would keep the low-level module
# that the star import brought in under the same name).
import paddle.optimizers.schedules as schedules  # noqa: E402,F401
