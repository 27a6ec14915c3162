"""Callbacks that record or react to the logs: CSVLogger, TerminateOnNaN, LambdaCallback."""
import csv
import math
import os

from paddle.distributed import world
from paddle.highlevel.training import progress
from paddle.highlevel.callbacks.base import HOOKS, Callback
from paddle.highlevel.training.progress import BOOKKEEPING

class CSVLogger(Callback):
    """Writes one row per epoch to a CSV file: the epoch (from 0, as Keras) and its logs.

    Columns are fixed by the first epoch's logs (sorted); a later missing value is "NA".
    In distributed training only rank 0 writes (every rank has the same, averaged logs).

    Args:
        filename: the CSV file.
        separator: the column separator.
        append: add to an existing file (without repeating the header) instead of
            overwriting it.

    Example:
        >>> import os, tempfile
        >>> from paddle.highlevel import callbacks
        >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
        >>> logger = callbacks.CSVLogger(path)
        >>> logger.on_train_begin(); logger.on_epoch_end(0, {"loss": 0.5}); logger.on_train_end()
        >>> with open(path) as f:
        ...     print(f.read().strip())
        epoch,loss
        0,0.5
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.separator = separator
        self.append = bool(append)
        self.keys = None
        self._file = None
        self._writer = None

    def on_train_begin(self, logs=None):
        if not world.is_chief():
            return
        write_header = not (self.append and os.path.exists(self.filename)
                            and os.path.getsize(self.filename) > 0)
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._write_header = write_header
        self._writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if not world.is_chief():
            return
        if self._file is None:  # driven without on_train_begin
            self.on_train_begin()
        if self._writer is None:
            self.keys = sorted(k for k in logs if k not in BOOKKEEPING)
            self._writer = csv.writer(self._file, delimiter=self.separator)
            if self._write_header:
                self._writer.writerow(["epoch"] + self.keys)
        self._writer.writerow([epoch] + [logs.get(k, "NA") for k in self.keys])
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
        self._file = None
        self._writer = None


class TerminateOnNaN(Callback):
    """Stops training as soon as a batch's loss is NaN or infinite.

    Args:
        raise_error: False (the default) sets `model.stop_training`, ending training after
            the batch; True raises a RuntimeError at once (Keras 3's option). paddle runs
            the callbacks' `on_train_end` hooks however `fit` ends, so they run in both
            cases (Keras skips them when it raises).

    Raises:
        TypeError: raise_error is not a bool.
        RuntimeError: (with raise_error=True) from `on_train_batch_end`, naming the batch
            and the loss.

    Example:
        >>> from paddle.highlevel import callbacks
        >>> class Model:
        ...     stop_training = False
        >>> t = callbacks.TerminateOnNaN(); t.set_model(Model())
        >>> t.on_train_batch_end(7, {"loss": float("nan")})
        Batch 7: invalid loss nan, terminating training
        >>> t.model.stop_training
        True
    """

    def __init__(self, raise_error=False):
        super().__init__()
        if not isinstance(raise_error, bool):
            raise TypeError(f"TerminateOnNaN: expected raise_error as True or False, received "
                            f"{raise_error!r}")
        self.raise_error = raise_error

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
            if self.raise_error:
                raise RuntimeError(f"TerminateOnNaN: NaN or Inf loss at batch {batch} "
                                   f"(loss {loss}); terminating training at once")
            progress.message(f"Batch {batch}: invalid loss {loss}, terminating training")
            self.model.stop_training = True


class LambdaCallback(Callback):
    """A callback made of functions given for the hooks you need.

    Args:
        on_epoch_begin, on_epoch_end: `f(epoch, logs)`.
        on_train_begin, on_train_end: `f(logs)`.
        on_train_batch_begin, on_train_batch_end: `f(batch, logs)`.
        **hooks: any other hook by name (`on_test_end=...`).
    Raises:
        ValueError: a keyword that is not a hook name.

    Example:
        >>> from paddle.highlevel import callbacks
        >>> cb = callbacks.LambdaCallback(on_epoch_end=lambda e, logs: print(e, logs))
        >>> cb.on_epoch_end(3, {"loss": 0.5})
        3 {'loss': 0.5}
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **hooks):
        super().__init__()
        unknown = sorted(set(hooks) - set(HOOKS))
        if unknown:
            raise ValueError(f"LambdaCallback: unknown hooks {unknown}; expected some of "
                             f"{', '.join(HOOKS)}")
        hooks.update(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end)
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)
