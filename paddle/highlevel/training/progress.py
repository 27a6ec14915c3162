"""Progress bars: fit's, evaluate's and predict's (`Progress`: a live tqdm bar on a
terminal, one line otherwise), and Keras's `Progbar` for custom loops (`pd.utils.Progbar`).

A bar that redraws in place is only useful where something redraws it: when stderr goes to
a file or a pipe (a CI log, `nohup`), the same progress is one line at the end of the run
instead, so logs stay readable. `verbose=2` asks for that line everywhere. `Progbar` writes
Keras's lines on stdout (its text and averaging rules are Keras's, for code ported from
it). Both time a step by one rule (`time_per_step`: the first step, which compiles, is
left out once there are others).

Example:
    >>> from paddle.highlevel.training import progress
    >>> p = progress.Progress(total=2, verbose=2, title="Epoch 1/1")
    >>> p.update(1, {"loss": 0.5}); p.update(2, {"loss": 0.25})
    >>> p.close({"loss": 0.25, "accuracy": 0.875})  # doctest: +ELLIPSIS
    Epoch 1/1 - 2/2 - ...s - loss: 0.2500 - accuracy: 0.8750
"""
import logging
import math
import numbers
import os
import shutil
import sys
import time

import numpy as np
from tqdm import tqdm

from paddle import _settings as settings
from paddle.distributed import world

# Keys a training loop may put in logs for its own bookkeeping; they are not measurements.
BOOKKEEPING = ("batch", "size", "epoch")
BAR_WIDTH = 20  # characters of the bar itself, as Keras's
# Indent of the line of values when they do not fit beside the bar.
VALUES_INDENT = "    "


def stderr_is_terminal():
    """Whether stderr is an interactive terminal, where a bar can redraw in place."""
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def format_logs(logs):
    """'loss: 0.1234 - accuracy: 0.9500' (tiny values in scientific notation, as Keras)."""
    parts = []
    for key, value in (logs or {}).items():
        if key in BOOKKEEPING:
            continue
        if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
            text = f"{value:.4f}" if value == 0 or abs(value) >= 1e-3 else f"{value:.4e}"
        else:
            text = str(value)
        parts.append(f"{key}: {text}")
    return " - ".join(parts)


def format_duration(seconds):
    """A duration in the unit that suits it, as Keras shows them: '850us', '12ms', '1.2s',
    '45s', '2m05s', '1h02m05s' (never '0.0s'; '<1us' below half a microsecond).

    Example:
        >>> [format_duration(t) for t in (0.00085, 0.012, 1.23, 45.2, 125.0)]
        ['850us', '12ms', '1.2s', '45s', '2m05s']
    """
    if seconds < 0.5e-6:
        return "<1us"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f}us"
    if seconds < 1:
        return f"{seconds * 1e3:.0f}ms"
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def time_per_step(now, start, first_step_end, done):
    """Seconds a step takes after `done` steps: over the steps after the first (it
    compiles) once there are some, else over all of them (0.0 before any)."""
    if first_step_end is not None and done > 1:
        return (now - first_step_end) / (done - 1)
    return (now - start) / done if done else 0.0


def format_timing(elapsed, per_step):
    """'4ms/step - 12ms': the time a step takes, then the time so far."""
    step = f"{format_duration(per_step)}/step - " if per_step else ""
    return step + format_duration(elapsed)


def fitting_logs(logs, width):
    """format_logs of the first values that fit in `width` characters, with ' - ...' when
    some were left out ('' when none fits)."""
    parts = format_logs(logs).split(" - ") if format_logs(logs) else []
    for count in range(len(parts), 0, -1):
        text = " - ".join(parts[:count]) + ("" if count == len(parts) else " - ...")
        if len(text) <= width:
            return text
    return ""


def message(text):
    """Print a line on stdout without breaking a live bar (callbacks' verbose messages);
    in distributed training, on rank 0 only. With `pd.config.disable_interactive_logging()`
    the line goes to the "paddle" logger instead, as Keras sends it to absl logging."""
    if world.is_chief():
        if settings.is_interactive_logging_enabled():
            tqdm.write(text, file=sys.stdout)
        else:
            logging.getLogger("paddle").info(text)


class _Bar(tqdm):
    """tqdm drawing paddle's text right of the bar (`info`: times and values) in place of
    its own rate ('13129.08step/s')."""

    info = ""

    @property
    def format_dict(self):
        return {**super().format_dict, "info": self.info}


class Progress:
    """Progress of one run of steps: an epoch of fit, an evaluation or a prediction.

    On a terminal, a bar that fits its width: the title, the steps, the bar, the time a step
    takes and the time so far, then as many of the values as fit. At the end, the values
    that did not all fit beside the bar get a line of their own below it.

    Args:
        total: number of steps expected, or None when unknown (the bar then counts without
            a total).
        verbose: 0 shows nothing; 1 a bar on a terminal and one line at the end otherwise;
            2 one line at the end always. In distributed training only rank 0 shows
            anything (the others act as verbose=0).
        title: shown before the progress ("Epoch 1/5"), or None.

    Example:
        >>> from paddle.highlevel.training import progress
        >>> p = progress.Progress(total=None, verbose=2)
        >>> for step in range(1, 4):
        ...     p.update(step, {"loss": 1.0 / step})
        >>> p.close({"loss": 0.5})  # doctest: +ELLIPSIS
        3/3 - ...s/step - ...s - loss: 0.5000
    """

    def __init__(self, total=None, verbose=1, title=None):
        self.total = total
        self.verbose = verbose if world.is_chief() else 0
        self.title = title
        self.done = 0
        self.closed = False
        self.start = time.perf_counter()
        self.first_step_end = None  # the first step compiles: left out of the time per step
        self.bar = None
        if verbose == 1 and stderr_is_terminal() and settings.is_interactive_logging_enabled():
            # A bare pty (script, some CI runners) reports a 0 x 0 terminal, where tqdm draws
            # nothing; shutil falls back to $COLUMNS/$LINES or 80 x 24.
            width, height = shutil.get_terminal_size()
            self.bar = _Bar(total=total, unit="step", file=sys.stderr, leave=True,
                            ncols=width, nrows=height, bar_format=self._bar_format())

    def _bar_format(self):
        title = (self.title or "").replace("{", "{{").replace("}", "}}")
        title = f"{title} " if title else ""
        if self.total is None:
            return title + "{n_fmt}step {info}"
        return title + "{n_fmt}/{total_fmt} {bar:%d} {info}" % BAR_WIDTH

    def _timing(self):
        now = time.perf_counter()
        if self.done == 0:
            return format_timing(now - self.start, None)
        per_step = time_per_step(now, self.start, self.first_step_end, self.done)
        return format_timing(now - self.start, per_step)

    def _steps_text(self):
        return f"{self.done}/{self.total}" if self.total is not None else f"{self.done}step"

    def _room_for_values(self, timing):
        """Characters left on the bar's line for the values (the line is kept a character
        short of the width: a full line makes some terminals wrap)."""
        used = len(self.title or "") + 1 + len(self._steps_text()) + 1 + BAR_WIDTH + 1
        return self.bar.ncols - 1 - used - len(timing) - len(" - ")

    def update(self, done, logs=None):
        """`done` steps are finished; `logs` are the running values to show."""
        if done >= 1 and self.first_step_end is None:
            self.first_step_end = time.perf_counter()
        self.done = done
        if self.bar is not None:
            timing = self._timing()
            values = fitting_logs(logs, self._room_for_values(timing)) if logs else ""
            self.bar.info = timing + (f" - {values}" if values else "")
            self.bar.update(max(done - self.bar.n, 0))

    def close(self, logs=None):
        """End the run: the bar shows the final `logs` and stays, or the line is printed."""
        if self.closed or self.verbose == 0:
            self.closed = True
            return
        self.closed = True
        text, timing = format_logs(logs), self._timing()
        if self.bar is not None:
            fits = len(text) <= self._room_for_values(timing)
            self.bar.info = timing + (f" - {text}" if text and fits else "")
            self.bar.close()
            if text and not fits:  # below the bar, whole (the terminal wraps a long line)
                print(VALUES_INDENT + text, file=sys.stderr, flush=True)
            return
        total = self.total if self.total is not None else self.done
        parts = [self.title] if self.title else []
        parts += [f"{self.done}/{total}", timing, text]
        line = " - ".join(p for p in parts if p)
        if settings.is_interactive_logging_enabled():
            print(line, flush=True)
        else:
            logging.getLogger("paddle").info(line)


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
        return time_per_step(now, self._start, self._time_after_first_step, current)


def _eta(seconds):
    if seconds > 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds > 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % seconds
