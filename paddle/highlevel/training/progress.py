"""The progress bar (`Progbar`): fit's, evaluate's and predict's (through the
`ProgbarLogger` callback), and Keras's `keras.utils.Progbar` for custom loops
(`pd.utils.Progbar`): one class, one way of timing a step and of showing values.

A bar that redraws in place is only useful where something redraws it: fit's callback
asks for `verbose=1` only when stderr is an interactive terminal, and for one line at the
end of each epoch (`verbose=2`) when it goes to a file or a pipe (a CI log, `nohup`), so
logs stay readable. A `Progbar` of a custom loop follows Keras: with `verbose=1` off a
terminal it writes Keras's lines on stdout.

Example:
    >>> from paddle.highlevel.training import progress
    >>> p = progress.Progbar(2, verbose=2, title="Epoch 1/1")
    >>> p.update(1, {"loss": 0.5})
    >>> p.update(2, {"loss": 0.25, "accuracy": 0.875})  # doctest: +ELLIPSIS
    Epoch 1/1 - 2/2 - ...s - loss: 0.2500 - accuracy: 0.8750
"""
import logging
import math
import numbers
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


class Progbar:
    """The progress bar: fit's, evaluate's and predict's (through `ProgbarLogger`), and
    Keras's `keras.utils.Progbar` for custom loops (`pd.utils.Progbar`).

    `update(current, values)` moves the bar to step `current`. `values` is Keras's list of
    `(name, value of the last step)` pairs: each metric that is not stateful is averaged
    over the steps since the start, weighted by the steps each update covers (Keras 3's
    rule), a stateful one is shown as given. A dict (what fit's callbacks hold: values
    that are already running means) is shown as given, in its order.

    Drawing: with `verbose=1` on an interactive terminal, a tqdm bar on stderr redrawn in
    place that fits the terminal's width (the title, the steps, the bar, the time a step
    takes and the time so far, then as many values as fit; at the end, values that did not
    fit get a line of their own below it); elsewhere Keras's text, one line per update at
    most every `interval` seconds, on stdout. With `verbose=2`, one line at the end:
    `Epoch 1/5 - 4/4 - 2ms/step - 9ms - loss: 0.2500`. `verbose=0` shows nothing. In
    distributed training only rank 0 shows anything.

    Args:
        target: the number of steps, or None if unknown.
        width: the bar's width in characters.
        verbose: 0, 1 or 2.
        interval: the least time between two lines of Keras's text, in seconds.
        stateful_metrics: names of metrics shown as given (not averaged).
        stateless_metrics: names of the metrics to average (the others are shown as given);
            at most one of the two may be given.
        unit_name: what a step is called in the time per step ("step", "sample").
        title: shown before the progress ("Epoch 1/5"), or None.

    Raises:
        ValueError: both metric lists, or arguments of the wrong kind.

    Example:
        >>> from paddle.highlevel.training import progress
        >>> bar = progress.Progbar(3, verbose=2, title="Epoch 1/1")
        >>> bar.update(1, [("loss", 0.5)]); bar.update(2, [("loss", 0.25)])
        >>> bar.average("loss")  # over the steps so far
        0.375
        >>> bar.update(3, [("loss", 0.125)])  # the last update is shown as given (Keras)
        ... # doctest: +ELLIPSIS
        Epoch 1/1 - 3/3 - ...s - loss: 0.1250
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step", title=None):
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
        self.target, self.width = target, int(width)
        self.verbose = verbose if world.is_chief() else 0
        self.interval, self.unit_name, self.title = float(interval), str(unit_name), title
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics is not None else (
            None if stateless_metrics is not None else set())
        self.stateless_metrics = set(stateless_metrics) if stateless_metrics is not None \
            else None
        self._seen_so_far = 0
        self._values, self._order = {}, []
        self._start = time.perf_counter()
        self._last_update = 0.0
        self._time_after_first_step = None  # the first step compiles: left out of the time
        self._prev_width = 0
        self._finalized = False
        self.bar = None
        if self.verbose == 1 and stderr_is_terminal() and \
                settings.is_interactive_logging_enabled():
            # A bare pty (script, some CI runners) reports a 0 x 0 terminal, where tqdm draws
            # nothing; shutil falls back to $COLUMNS/$LINES or 80 x 24.
            columns, rows = shutil.get_terminal_size()
            self.bar = _Bar(total=target, unit=self.unit_name, file=sys.stderr, leave=True,
                            ncols=columns, nrows=rows, bar_format=self._bar_format())

    # ---- values ---------------------------------------------------------------------------

    def _stateless(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def _fold(self, current, values, finalize):
        if isinstance(values, dict):  # running means already: shown as given
            values = [(k, v) for k, v in values.items() if k not in BOOKKEEPING]
            as_given = True
        else:
            as_given = False
        for name, value in values or []:
            if name not in self._order:
                self._order.append(name)
            if as_given or not self._stateless(name) or finalize:
                self._values[name] = [value, 1]
            else:
                steps = max(current - self._seen_so_far, 1)
                total = self._values.setdefault(name, [0.0, 0])
                total[0] += value * steps
                total[1] += steps

    def average(self, name):
        """The value shown for metric `name` (its running average when it is averaged)."""
        total, count = self._values[name]
        return float(np.mean(total)) / max(1, count)

    def _shown(self):
        """{name: value shown}, in the order the names came."""
        shown = {}
        for name in self._order:
            total, count = self._values[name]
            shown[name] = self.average(name) if isinstance(total, (numbers.Number, np.ndarray,
                                                                   np.generic)) else total
        return shown

    # ---- steps ----------------------------------------------------------------------------

    def update(self, current, values=None, finalize=None):
        """Move to step `current`, folding in `values`.

        Args:
            current: the index of the current step (the number of steps done).
            values: a list of (name, number) pairs, or a dict of values shown as given.
            finalize: whether this is the last update (default: current >= target).
        """
        if not isinstance(current, numbers.Real) or isinstance(current, bool):
            raise ValueError(f"Progbar.update: expected current to be a number, received "
                             f"{current!r}")
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._fold(current, values, finalize)
        self._seen_so_far = current
        now = time.perf_counter()
        if current >= 1 and self._time_after_first_step is None:
            self._time_after_first_step = now
        if self._finalized or self.verbose == 0:
            self._finalized = self._finalized or finalize
            return
        if self.bar is not None:
            self._draw_live(current, finalize)
        elif self.verbose == 1 and (finalize or now - self._last_update >= self.interval):
            self._draw_line(current, now, finalize)
        elif self.verbose == 2 and finalize:
            self._print_summary(current)
        self._finalized = finalize
        self._last_update = now

    def add(self, n, values=None):
        """`update(steps so far + n, values)`."""
        self.update(self._seen_so_far + n, values)

    def close(self, values=None):
        """The last update at the current step (once): the bar keeps its final values, or
        the summary line is printed. Safe to call twice."""
        if not self._finalized:
            self.update(self._seen_so_far, values, finalize=True)

    # ---- drawing --------------------------------------------------------------------------

    def _per_step(self, now):
        return time_per_step(now, self._start, self._time_after_first_step, self._seen_so_far)

    def _timing(self):
        now = time.perf_counter()
        return format_timing(now - self._start,
                             self._per_step(now) if self._seen_so_far else None)

    def _steps_text(self):
        done = self._seen_so_far
        return f"{done}/{self.target}" if self.target is not None else f"{done}{self.unit_name}"

    def _bar_format(self):
        title = (self.title or "").replace("{", "{{").replace("}", "}}")
        title = f"{title} " if title else ""
        if self.target is None:
            return title + "{n_fmt}%s {info}" % self.unit_name
        return title + "{n_fmt}/{total_fmt} {bar:%d} {info}" % self.width

    def _room_for_values(self, timing):
        """Characters left on the bar's line for the values (the line is kept a character
        short of the width: a full line makes some terminals wrap)."""
        used = len(self.title or "") + 1 + len(self._steps_text()) + 1 + self.width + 1
        return self.bar.ncols - 1 - used - len(timing) - len(" - ")

    def _draw_live(self, current, finalize):
        timing, shown = self._timing(), self._shown()
        if not finalize:
            values = fitting_logs(shown, self._room_for_values(timing)) if shown else ""
            self.bar.info = timing + (f" - {values}" if values else "")
            self.bar.update(max(int(current) - self.bar.n, 0))
            return
        text = format_logs(shown)
        fits = len(text) <= self._room_for_values(timing)
        self.bar.info = timing + (f" - {text}" if text and fits else "")
        self.bar.update(max(int(current) - self.bar.n, 0))
        self.bar.close()
        if text and not fits:  # below the bar, whole (the terminal wraps a long line)
            print(VALUES_INDENT + text, file=sys.stderr, flush=True)

    def _print_summary(self, current):
        total = self.target if self.target is not None else current
        parts = [self.title] if self.title else []
        parts += [f"{current}/{total}", self._timing(), format_logs(self._shown())]
        line = " - ".join(p for p in parts if p)
        if settings.is_interactive_logging_enabled():
            print(line, flush=True)
        else:
            logging.getLogger("paddle").info(line)

    def _draw_line(self, current, now, finalize):
        """Keras's text, for output that is not an interactive terminal."""
        per_step = self._per_step(now)
        if self.target:
            digits = int(math.log10(self.target)) + 1
            done = int(self.width * current / self.target)
            bar = f"{current:{digits}d}/{self.target} " + "━" * min(done, self.width) + \
                " " * max(self.width - done, 0)
            info = f" {now - self._start:.0f}s" if finalize else \
                f" {_eta(per_step * (self.target - current))}"
        else:
            bar = "%7d/Unknown" % current
            info = f" {now - self._start:.0f}s"
        text = (f"{self.title} " if self.title else "") + bar + info + \
            self._time(per_step) + self._metrics()
        start = "\n" if self._prev_width else ""
        sys.stdout.write(start + text + ("\n" if finalize else ""))
        sys.stdout.flush()
        self._prev_width = 0 if finalize else len(text)

    def _metrics(self):
        out = ""
        for name, value in self._shown().items():
            out += f" - {name}: " + (f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}")
        return out

    def _time(self, per_step):
        if per_step >= 1 or per_step == 0:
            return f" {per_step:.0f}s/{self.unit_name}"
        if per_step >= 1e-3:
            return f" {per_step * 1e3:.0f}ms/{self.unit_name}"
        return f" {per_step * 1e6:.0f}us/{self.unit_name}"


def _eta(seconds):
    if seconds > 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds > 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % seconds
