"""Regularization layers: Dropout.

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.layers.Dropout(0.5)(np.ones((2, 3), np.float32)).tolist()   # inference: identity
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
"""
import numbers

from paddle.lowlevel.ops.nn import dropout
from paddle.highlevel.layers.base import Layer


class Dropout(Layer):
    """Zeroes a fraction `rate` of the inputs in training and scales the rest by
    1 / (1 - rate) (`pd.dropout`); the identity at inference.

    Whether it drops follows the plan: `fit` and `train_on_batch` (and `pd.eval(...,
    training=True)`) drop, `predict` and `evaluate` do not.

    Args:
        rate: fraction of the inputs to drop, in [0, 1).
        seed: kept in the config for Keras compatibility; the masks come from paddle's
            random state, so `pd.seed(n)` makes them reproducible.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Dropout(0.2)(pd.layers.Input(shape=(8,))).shape
        (None, 8)
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(rate, numbers.Real) or isinstance(rate, bool) or not 0 <= rate < 1:
            raise ValueError(f"Dropout: expected a rate in [0, 1), received {rate!r}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"Dropout: expected an integer seed or None, received {seed!r}")
        self.rate, self.seed = float(rate), seed

    def call(self, inputs, training=False):
        return dropout(inputs, self.rate)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}
