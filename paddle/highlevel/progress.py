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
# Width of a finished bar besides its title and values: "100%|█| 32/32 [00:01<00:00, 25.3step/s, ]"
BAR_OVERHEAD = 48


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


def message(text):
    """Print a line on stdout without breaking a live bar (callbacks' verbose messages);
    in distributed training, on rank 0 only."""
    if world.is_chief():
        tqdm.write(text, file=sys.stdout)


class Progress:
    """Progress of one run of steps: an epoch of fit, an evaluation or a prediction.

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
        3/3 - ...s - loss: 0.5000
    """

    def __init__(self, total=None, verbose=1, title=None):
        self.total = total
        self.verbose = verbose if world.is_chief() else 0
        self.title = title
        self.done = 0
        self.closed = False
        self.start = time.perf_counter()
        self.bar = None
        if verbose == 1 and stderr_is_terminal():
            # A bare pty (script, some CI runners) reports a 0 x 0 terminal, where tqdm draws
            # nothing; shutil falls back to $COLUMNS/$LINES or 80 x 24.
            width, height = shutil.get_terminal_size()
            self.bar = tqdm(total=total, desc=title, unit="step", file=sys.stderr,
                            leave=True, ncols=width, nrows=height)

    def update(self, done, logs=None):
        """`done` steps are finished; `logs` are the running values to show."""
        if self.bar is not None:
            if logs:
                self.bar.set_postfix_str(format_logs(logs), refresh=False)
            self.bar.update(max(done - self.bar.n, 0))
        self.done = done

    def close(self, logs=None):
        """End the run: the bar shows the final `logs` and stays, or the line is printed."""
        if self.closed or self.verbose == 0:
            self.closed = True
            return
        self.closed = True
        if self.bar is not None:
            text = format_logs(logs)
            if text:
                self.bar.set_postfix_str(text, refresh=False)
            self.bar.close()
            # tqdm cuts what does not fit the terminal; then the final values (validation
            # included) get a line of their own rather than being lost.
            if text and len(self.title or "") + len(text) + BAR_OVERHEAD > self.bar.ncols:
                print(text, file=sys.stderr, flush=True)
            return
        total = self.total if self.total is not None else self.done
        parts = [self.title] if self.title else []
        parts.append(f"{self.done}/{total}")
        parts.append(f"{time.perf_counter() - self.start:.1f}s")
        if logs:
            parts.append(format_logs(logs))
        print(" - ".join(p for p in parts if p), flush=True)
