"""`Progbar`: Keras's text progress bar, for custom loops (paddle's own `fit` output is
paddle/highlevel/progress.py).

Example:
    >>> import paddle as pd
    >>> bar = pd.utils.Progbar(target=10, verbose=0)
    >>> for step in range(4):
    ...     bar.update(step + 1, values=[("loss", 4.0 - step)])
    >>> bar.average("loss")
    2.5
"""
import math
import numbers
import os
import sys
import time

import numpy as np


class Progbar:
    """A progress bar with running averages, as `keras.utils.Progbar`.

    `update(current, values)` moves the bar to step `current`; each `(name, value)` of a
    metric that is not stateful is averaged over the steps since the start, weighted by the
    steps each update covers (Keras 3's rule); a stateful metric is shown as given.
    With `verbose=1` the bar is redrawn in place (at most every `interval` seconds) on a
    terminal, one line per update otherwise; with `verbose=2` one line at the end; 0 prints
    nothing. Lines read as Keras's, without its colours:
    `3/4 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step - loss: 2.5000`.

    Args:
        target: the number of steps, or None if unknown.
        width: the bar's width in characters.
        verbose: 0, 1 or 2.
        interval: the least time between two redraws, in seconds.
        stateful_metrics: names of metrics shown as given (not averaged).
        stateless_metrics: names of the metrics to average (the others are shown as given);
            at most one of the two may be given.
        unit_name: what a step is called in the time per step ("step", "sample").

    Raises:
        ValueError: both metric lists, or arguments of the wrong kind.
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` or `stateless_metrics` can be "
                             "provided.")
        if target is not None and (not isinstance(target, numbers.Integral) or
                                   isinstance(target, bool) or target < 0):
            raise ValueError(f"Progbar: expected target to be an integer >= 0 or None, "
                             f"received {target!r}")
        if not isinstance(width, numbers.Integral) or isinstance(width, bool) or width < 1:
            raise ValueError(f"Progbar: expected width to be an integer >= 1, received "
                             f"{width!r}")
        if verbose not in (0, 1, 2):
            raise ValueError(f"Progbar: expected verbose to be 0, 1 or 2, received {verbose!r}")
        if not isinstance(interval, numbers.Real) or isinstance(interval, bool) or interval < 0:
            raise ValueError(f"Progbar: expected interval to be a number >= 0, received "
                             f"{interval!r}")
        self.target, self.width, self.verbose = target, int(width), verbose
        self.interval, self.unit_name = float(interval), str(unit_name)
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics is not None else (
            None if stateless_metrics is not None else set())
        self.stateless_metrics = set(stateless_metrics) if stateless_metrics is not None \
            else None
        self._dynamic = (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or \
            "ipykernel" in sys.modules or "PYCHARM_HOSTED" in os.environ
        self._seen_so_far = 0
        self._values, self._order = {}, []
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step = None
        self._prev_width = 0

    def _stateless(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def update(self, current, values=None, finalize=None):
        """Move to step `current`, folding in `values` ([(name, value of the last step)]).

        Args:
            current: the index of the current step (the number of steps done).
            values: a list of (name, number) pairs.
            finalize: whether this is the last update (default: current >= target).
        """
        if not isinstance(current, numbers.Real) or isinstance(current, bool):
            raise ValueError(f"Progbar.update: expected current to be a number, received "
                             f"{current!r}")
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            if name not in self._order:
                self._order.append(name)
            if not self._stateless(name) or finalize:
                self._values[name] = [value, 1]
            else:
                steps = max(current - self._seen_so_far, 1)
                total = self._values.setdefault(name, [0.0, 0])
                total[0] += value * steps
                total[1] += steps
        self._seen_so_far = current
        now = time.time()
        per_step = self._step_duration(current, now)
        if self.verbose == 1 and (finalize or now - self._last_update >= self.interval):
            self._draw(current, now, per_step, finalize)
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            line = f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s -" \
                f"{self._time(per_step)}{self._metrics()}\n"
            sys.stdout.write(line)
            sys.stdout.flush()
        self._last_update = now

    def add(self, n, values=None):
        """`update(steps so far + n, values)`."""
        self.update(self._seen_so_far + n, values)

    def average(self, name):
        """The value shown for metric `name` (its running average when it is averaged)."""
        total, count = self._values[name]
        return float(np.mean(total)) / max(1, count)

    def _draw(self, current, now, per_step, finalize):
        if self.target:
            digits = int(math.log10(self.target)) + 1
            done = int(self.width * current / self.target)
            bar = f"{current:{digits}d}/{self.target} " + "━" * min(done, self.width) + \
                " " * max(self.width - done, 0)
            if finalize:
                info = f" {now - self._start:.0f}s"
            else:
                info = f" {_eta(per_step * (self.target - current))}"
        else:
            bar = "%7d/Unknown" % current
            info = f" {now - self._start:.0f}s"
        text = bar + info + self._time(per_step) + self._metrics()
        pad = " " * max(self._prev_width - len(text), 0)
        start = "\r" if self._dynamic else ("\n" if self._prev_width else "")
        sys.stdout.write(start + text + pad + ("\n" if finalize else ""))
        sys.stdout.flush()
        self._prev_width = 0 if finalize else len(text)

    def _metrics(self):
        out = ""
        for name in self._order:
            average = self.average(name)
            out += f" - {name}: " + (f"{average:.4f}" if abs(average) > 1e-3 else
                                     f"{average:.4e}")
        return out

    def _time(self, per_step):
        if per_step >= 1 or per_step == 0:
            return f" {per_step:.0f}s/{self.unit_name}"
        if per_step >= 1e-3:
            return f" {per_step * 1e3:.0f}ms/{self.unit_name}"
        return f" {per_step * 1e6:.0f}us/{self.unit_name}"

    def _step_duration(self, current, now):
        """Time per step, leaving the first step (compilation) out once there are more."""
        if current == 1:
            self._time_after_first_step = now
        if current > 1 and self._time_after_first_step is not None:
            return (now - self._time_after_first_step) / (current - 1)
        return (now - self._start) / current if current else 0.0


def _eta(seconds):
    if seconds > 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds > 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % seconds
