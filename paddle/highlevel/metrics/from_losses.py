"""Metrics that average a loss function over examples: the cross-entropies, the
Kullback-Leibler divergence, Poisson and the hinges (Keras 3's `probabilistic_metrics` and
`hinge_metrics`).

Each is a `MeanMetricWrapper` of the function of the same name in `pd.losses` (which
`pd.metrics` re-exports, as Keras does), so a metric and the loss agree to the last digit.

Example:
    >>> import numpy as np, paddle as pd
    >>> m = pd.metrics.BinaryCrossentropy()
    >>> m.update_state(np.array([[0.0, 1.0]]), np.array([[0.4, 0.6]]))
    >>> round(m.result(), 4)
    0.5108
"""
from paddle.highlevel import losses
from paddle.highlevel.losses.classification import _real
from paddle.highlevel.metrics.base import MeanMetricWrapper

__all__ = ["BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
           "Hinge", "SquaredHinge", "CategoricalHinge", "KLDivergence", "Poisson"]


def _label_smoothing(value, owner):
    return _real(value, owner, "label_smoothing", 0.0, 1.0)


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean over examples of `pd.losses.binary_crossentropy`.

    Args:
        name: the key in logs ("binary_crossentropy").
        from_logits: predictions are logits.
        label_smoothing: pull targets towards 0.5 by this fraction, in [0, 1].

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.BinaryCrossentropy(from_logits=True)
        >>> m.update_state(np.array([[1.0], [0.0]]), np.array([[2.0], [-1.0]]))
        >>> round(m.result(), 4)
        0.2201
    """

    def __init__(self, name="binary_crossentropy", from_logits=False, label_smoothing=0.0):
        super().__init__(losses.binary_crossentropy, name, from_logits=bool(from_logits),
                         label_smoothing=_label_smoothing(label_smoothing, "BinaryCrossentropy"))


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean over examples of `pd.losses.categorical_crossentropy` (one-hot targets).

    Args:
        name: the key in logs ("categorical_crossentropy").
        from_logits: predictions are logits.
        label_smoothing: pull targets towards 1/classes by this fraction, in [0, 1].

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.CategoricalCrossentropy()
        >>> m.update_state(np.array([[0, 1, 0], [0, 0, 1]]),
        ...                np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]))
        >>> round(m.result(), 4)
        1.1769
    """

    def __init__(self, name="categorical_crossentropy", from_logits=False, label_smoothing=0.0):
        super().__init__(losses.categorical_crossentropy, name, from_logits=bool(from_logits),
                         label_smoothing=_label_smoothing(label_smoothing,
                                                          "CategoricalCrossentropy"))


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean over examples of `pd.losses.sparse_categorical_crossentropy` (integer
    labels).

    Args:
        name: the key in logs ("sparse_categorical_crossentropy").
        from_logits: predictions are logits.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.SparseCategoricalCrossentropy()
        >>> m.update_state(np.array([1, 2]), np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]))
        >>> round(m.result(), 4)
        1.1769
    """

    def __init__(self, name="sparse_categorical_crossentropy", from_logits=False):
        super().__init__(losses.sparse_categorical_crossentropy, name,
                         from_logits=bool(from_logits))


class Hinge(MeanMetricWrapper):
    """The mean over examples of `pd.losses.hinge`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.Hinge()
        >>> m.update_state(np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([[0.6, 0.4], [0.4, 0.6]]))
        >>> round(m.result(), 4)
        1.3
    """

    def __init__(self, name="hinge"):
        super().__init__(losses.hinge, name)


class SquaredHinge(MeanMetricWrapper):
    """The mean over examples of `pd.losses.squared_hinge`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.SquaredHinge()
        >>> m.update_state(np.array([[0.0, 1.0]]), np.array([[0.6, 0.4]]))
        >>> round(m.result(), 4)
        1.46
    """

    def __init__(self, name="squared_hinge"):
        super().__init__(losses.squared_hinge, name)


class CategoricalHinge(MeanMetricWrapper):
    """The mean over examples of `pd.losses.categorical_hinge`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> m = pd.metrics.CategoricalHinge()
        >>> m.update_state(np.array([[0.0, 1.0]]), np.array([[0.6, 0.4]]))
        >>> round(m.result(), 4)
        1.2
    """

    def __init__(self, name="categorical_hinge"):
        super().__init__(losses.categorical_hinge, name)


class KLDivergence(MeanMetricWrapper):
    """Mean over examples of the Kullback-Leibler divergence of each."""

    def __init__(self, name="kl_divergence"):
        super().__init__(losses.kl_divergence, name)


class Poisson(MeanMetricWrapper):
    """Mean over examples of the Poisson loss of each."""

    def __init__(self, name="poisson"):
        super().__init__(losses.poisson, name)
