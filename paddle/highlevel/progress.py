"""Progress of fit, evaluate and predict: a live tqdm bar on a terminal, one line otherwise.

A bar that redraws in place is only useful where something redraws it: when stderr goes to
a file or a pipe (a CI log, `nohup`), the same progress is one line at the end of the run
instead, so logs stay readable. `verbose=2` asks for that line everywhere.

Example:
    >>> from paddle.highlevel import progress
    >>> p = progress.Progress(total=2, verbose=2, title="Epoch 1/1")
    >>> p.update(1, {"loss": 0.5}); p.update(2, {"loss": 0.25})
    >>> p.close({"loss": 0.25, "accuracy": 0.875})  # doctest: +ELLIPSIS
    Epoch 1/1 - 2/2 - ...s - loss: 0.2500 - accuracy: 0.8750
"""
import shutil
import sys
import time

from tqdm import tqdm

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
    in distributed training, on rank 0 only."""
    if world.is_chief():
        tqdm.write(text, file=sys.stdout)


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
        >>> from paddle.highlevel import progress
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
        if verbose == 1 and stderr_is_terminal():
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
        if self.first_step_end is not None and self.done > 1:
            per_step = (now - self.first_step_end) / (self.done - 1)
        else:
            per_step = (now - self.start) / self.done
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
        print(" - ".join(p for p in parts if p), flush=True)
