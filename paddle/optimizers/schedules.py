"""Learning-rate schedules (Keras's `keras.optimizers.schedules`): `ExponentialDecay`,
`PiecewiseConstantDecay`, `CosineDecay`, ...

This module is the Keras-style import path (`from paddle.optimizers.schedules import ...`);
the code lives in `paddle.lowlevel.schedules`, which it re-exports.

Example:
    >>> from paddle.optimizers.schedules import ExponentialDecay
    >>> round(ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)(10), 6)
    0.05
"""
from paddle.lowlevel.schedules import *  # noqa: F401,F403
