"""Learning-rate schedules: callables from the step count (from 0) to a learning rate.

Example:
    >>> import paddle as pd
    >>> s = pd.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> round(s(10), 6)
    0.05
"""
import math
import numbers


def _check(value, owner, name, ok, expected):
    """float(value) if it is a real number for which ok() holds, else ValueError naming it."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
            not math.isfinite(value) or not ok(value):
        raise ValueError(f"{owner}: expected {name} {expected}, received {value!r}")
    return value


def _name(name, owner):
    """A schedule's `name` (Keras's argument: kept in the config, used for nothing else)."""
    if not isinstance(name, str):
        raise TypeError(f"{owner}: expected name as a string, received {name!r}")
    return name


def _steps(value, owner, name="decay_steps", zero=False):
    return _check(value, owner, name, (lambda v: v >= 0) if zero else (lambda v: v > 0),
                  ">= 0" if zero else "> 0")


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

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: expected decay_steps > 0, received {decay_steps}")
        self.name = _name(name, "ExponentialDecay")
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

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        self.name = _name(name, "PiecewiseConstantDecay")
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
    """Half a cosine from the start down to start * alpha over decay_steps, then flat; with
    `warmup_target`, first a linear warmup from initial_learning_rate to warmup_target over
    warmup_steps, then the cosine from warmup_target (Keras 3).

    Example:
        >>> round(CosineDecay(1.0, decay_steps=100)(50), 6)
        0.5
        >>> w = CosineDecay(0.0, decay_steps=10, warmup_target=1.0, warmup_steps=4)
        >>> [round(w(s), 3) for s in (0, 2, 4, 9, 14)]
        [0.0, 0.5, 1.0, 0.5, 0.0]
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        owner = "CosineDecay"
        self.name = _name(name, owner)
        self.initial_learning_rate = float(_check(initial_learning_rate, owner,
                                                  "initial_learning_rate", lambda v: True,
                                                  "a finite number"))
        self.decay_steps = _steps(decay_steps, owner)
        self.alpha = float(_check(alpha, owner, "alpha", lambda v: True, "a finite number"))
        self.warmup_target = None if warmup_target is None else float(_check(
            warmup_target, owner, "warmup_target", lambda v: True, "a finite number or None"))
        self.warmup_steps = _steps(warmup_steps, owner, "warmup_steps", zero=True)

    def _decay(self, step, start):
        p = step / self.decay_steps
        cosine = 0.5 * (1 + math.cos(math.pi * p))
        return start * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step):
        if self.warmup_target is None:
            return self._decay(min(step, self.decay_steps), self.initial_learning_rate)
        step = min(step, self.decay_steps + self.warmup_steps)
        if step < self.warmup_steps:
            done = step / self.warmup_steps
            return self.initial_learning_rate + done * (self.warmup_target -
                                                        self.initial_learning_rate)
        return self._decay(step - self.warmup_steps, self.warmup_target)


class PolynomialDecay(LearningRateSchedule):
    """(initial - end) * (1 - step / decay_steps) ** power + end, flat at `end` after
    decay_steps; with `cycle`, decay_steps grows to the first multiple of itself at or above
    the step, so the rate climbs back and decays again (Keras 3).

    Example:
        >>> PolynomialDecay(1.0, decay_steps=10, end_learning_rate=0.0)(5)
        0.5
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name="PolynomialDecay"):
        owner = "PolynomialDecay"
        self.name = _name(name, owner)
        self.initial_learning_rate = float(_check(initial_learning_rate, owner,
                                                  "initial_learning_rate", lambda v: True,
                                                  "a finite number"))
        self.decay_steps = _steps(decay_steps, owner)
        self.end_learning_rate = float(_check(end_learning_rate, owner, "end_learning_rate",
                                              lambda v: True, "a finite number"))
        self.power = float(_check(power, owner, "power", lambda v: v >= 0, ">= 0"))
        self.cycle = bool(cycle)

    def __call__(self, step):
        steps = self.decay_steps
        if self.cycle:
            steps = steps * (1.0 if step == 0 else math.ceil(step / steps))
        else:
            step = min(step, steps)
        p = step / steps
        return (self.initial_learning_rate - self.end_learning_rate) * (1 - p) ** self.power \
            + self.end_learning_rate


class InverseTimeDecay(LearningRateSchedule):
    """initial / (1 + decay_rate * step / decay_steps), with staircase: an integer ratio.

    Example:
        >>> InverseTimeDecay(0.1, decay_steps=1, decay_rate=0.5)(2)
        0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        owner = "InverseTimeDecay"
        self.name = _name(name, owner)
        self.initial_learning_rate = float(_check(initial_learning_rate, owner,
                                                  "initial_learning_rate", lambda v: True,
                                                  "a finite number"))
        self.decay_steps = _steps(decay_steps, owner)
        self.decay_rate = float(_check(decay_rate, owner, "decay_rate", lambda v: v >= 0,
                                       ">= 0"))
        self.staircase = bool(staircase)

    def __call__(self, step):
        p = step / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return self.initial_learning_rate / (1 + self.decay_rate * p)


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Keras 3): periods of first_decay_steps,
    each `t_mul` times longer and starting `m_mul` times lower than the previous one.

    Example:
        >>> s = CosineDecayRestarts(1.0, first_decay_steps=10, m_mul=0.5)
        >>> round(s(5), 6), round(s(10), 6)
        (0.5, 0.5)
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        owner = "CosineDecayRestarts"
        self.name = _name(name, owner)
        self.initial_learning_rate = float(_check(initial_learning_rate, owner,
                                                  "initial_learning_rate", lambda v: True,
                                                  "a finite number"))
        self.first_decay_steps = _steps(first_decay_steps, owner, "first_decay_steps")
        self.t_mul = float(_check(t_mul, owner, "t_mul", lambda v: v > 0, "> 0"))
        self.m_mul = float(_check(m_mul, owner, "m_mul", lambda v: v >= 0, ">= 0"))
        self.alpha = float(_check(alpha, owner, "alpha", lambda v: True, "a finite number"))

    def __call__(self, step):
        done = step / self.first_decay_steps
        if self.t_mul == 1.0:
            restart = math.floor(done)
            done -= restart
        else:
            restart = math.floor(math.log(1.0 - done * (1.0 - self.t_mul)) /
                                 math.log(self.t_mul))
            passed = (1.0 - self.t_mul ** restart) / (1.0 - self.t_mul)
            done = (done - passed) / self.t_mul ** restart
        cosine = 0.5 * self.m_mul ** restart * (1.0 + math.cos(math.pi * done))
        return self.initial_learning_rate * ((1 - self.alpha) * cosine + self.alpha)


CLASSES = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay, CosineDecay,
                                    PolynomialDecay, InverseTimeDecay, CosineDecayRestarts)}
