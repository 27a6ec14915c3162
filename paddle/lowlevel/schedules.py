"""Learning-rate schedules: callables from the step count (from 0) to a learning rate.

Example:
    >>> import paddle as pd
    >>> s = pd.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> round(s(10), 6)
    0.05
"""
import math


class LearningRateSchedule:
    """Base class: `schedule(step) -> float`; `get_config()` for saving."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self):
        return dict(self.__dict__)


class ExponentialDecay(LearningRateSchedule):
    """initial * decay_rate ** (step / decay_steps), with staircase: an integer exponent.

    Example:
        >>> ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5, staircase=True)(15)
        0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: expected decay_steps > 0, received {decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps, self.decay_rate = decay_steps, float(decay_rate)
        self.staircase = bool(staircase)

    def __call__(self, step):
        p = step / self.decay_steps
        return self.initial_learning_rate * self.decay_rate ** (math.floor(p) if self.staircase else p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[i] while step <= boundaries[i] (the last value after the last boundary).

    Example:
        >>> PiecewiseConstantDecay([100, 200], [1.0, 0.5, 0.1])(150)
        0.5
    """

    def __init__(self, boundaries, values):
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseConstantDecay: expected one more value than boundaries, "
                             f"received {len(boundaries)} boundaries and {len(values)} values")
        self.boundaries, self.values = list(boundaries), [float(v) for v in values]

    def __call__(self, step):
        for b, v in zip(self.boundaries, self.values):
            if step <= b:
                return v
        return self.values[-1]


class CosineDecay(LearningRateSchedule):
    """Half a cosine from initial down to initial * alpha over decay_steps, then flat.

    Example:
        >>> round(CosineDecay(1.0, decay_steps=100)(50), 6)
        0.5
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0):
        if decay_steps <= 0:
            raise ValueError(f"CosineDecay: expected decay_steps > 0, received {decay_steps}")
        self.initial_learning_rate, self.decay_steps = float(initial_learning_rate), decay_steps
        self.alpha = float(alpha)

    def __call__(self, step):
        p = min(step, self.decay_steps) / self.decay_steps
        cosine = 0.5 * (1 + math.cos(math.pi * p))
        return self.initial_learning_rate * ((1 - self.alpha) * cosine + self.alpha)


CLASSES = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay, CosineDecay)}
