"""Callbacks: hooks the training loop calls around training, epochs and batches.

A `Callback` has a no-op method per event; a `CallbackList` calls each event on every
callback in order. The loop builds one per fit/evaluate/predict (adding `History` and the
progress bar), sets `model` and `params` on each callback, and stops cleanly after the
epoch (or batch) in which a callback sets `model.stop_training = True`. `logs` are dicts of
plain Python floats and ints.

Example:
    >>> from paddle.highlevel import callbacks
    >>> class Model:
    ...     stop_training = False
    >>> stopper = callbacks.LambdaCallback(
    ...     on_epoch_end=lambda epoch, logs: setattr(stopper.model, "stop_training",
    ...                                              logs["loss"] < 0.1))
    >>> cbs = callbacks.CallbackList([stopper], model=Model(), add_history=True, epochs=3)
    >>> cbs.on_train_begin()
    >>> for epoch, loss in enumerate([0.5, 0.05]):
    ...     cbs.on_epoch_begin(epoch)
    ...     cbs.on_epoch_end(epoch, {"loss": loss})
    >>> cbs.on_train_end()
    >>> cbs.model.stop_training, cbs.history.history
    (True, {'loss': [0.5, 0.05]})
"""
import csv
import inspect
import math
import os
import warnings

from paddle.highlevel import progress
from paddle.highlevel.progress import BOOKKEEPING

HOOKS = ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
         "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
         "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
         "on_predict_batch_begin", "on_predict_batch_end")


class Callback:
    """Base class of callbacks: override the hooks you need (all do nothing here).

    Attributes:
        model: the model being trained (set by `set_model`).
        params: {"epochs", "steps", "verbose"} of the run (set by `set_params`).

    Example:
        >>> from paddle.highlevel import callbacks
        >>> class PrintLoss(callbacks.Callback):
        ...     def on_epoch_end(self, epoch, logs=None):
        ...         print(f"epoch {epoch}: loss {logs['loss']:.2f}")
        >>> PrintLoss().on_epoch_end(0, {"loss": 0.25})
        epoch 0: loss 0.25
    """

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None):
        """Called once before the first epoch."""

    def on_train_end(self, logs=None):
        """Called once after the last epoch, also when training stops early or raises."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called before each epoch (epoch counts from 0)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called after each epoch with its loss, metrics and validation values."""

    def on_train_batch_begin(self, batch, logs=None):
        """Called before each training batch (batch counts from 0 in each epoch)."""

    def on_train_batch_end(self, batch, logs=None):
        """Called after each training batch with the running loss and metrics."""

    def on_test_begin(self, logs=None):
        """Called before evaluation (also validation inside fit)."""

    def on_test_end(self, logs=None):
        """Called after evaluation with its results."""

    def on_test_batch_begin(self, batch, logs=None):
        """Called before each evaluation batch."""

    def on_test_batch_end(self, batch, logs=None):
        """Called after each evaluation batch with the running results."""

    def on_predict_begin(self, logs=None):
        """Called before prediction."""

    def on_predict_end(self, logs=None):
        """Called after prediction."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before each prediction batch."""

    def on_predict_batch_end(self, batch, logs=None):
        """Called after each prediction batch."""


class CallbackList:
    """Callbacks called in order for every event, with the default ones added.

    Args:
        callbacks: a list of Callbacks (or None).
        model: set on every callback.
        add_history: append a `History` (unless the list has one).
        add_progbar: append a `ProgbarLogger` when verbose > 0 (unless the list has one).
        **params: the run's "epochs", "steps" (None when unknown) and "verbose", given to
            every callback as `params`.
    """

    def __init__(self, callbacks=None, model=None, add_history=False, add_progbar=False,
                 **params):
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f"callbacks: expected Callback objects, received "
                                f"{type(cb).__name__}")
        self.params = {"epochs": 1, "steps": None, "verbose": 1, **params}
        self.history = next((cb for cb in self.callbacks if isinstance(cb, History)), None)
        if self.history is None and add_history:
            self.history = History()
            self.callbacks.append(self.history)
        has_bar = any(isinstance(cb, ProgbarLogger) for cb in self.callbacks)
        if add_progbar and not has_bar and self.params["verbose"]:
            self.callbacks.append(ProgbarLogger())
        self.model = None
        if model is not None:
            self.set_model(model)
        self.set_params(self.params)

    def append(self, callback):
        self.callbacks.append(callback)
        callback.set_params(self.params)
        if self.model is not None:
            callback.set_model(self.model)

    def set_model(self, model):
        self.model = model
        for cb in self.callbacks:
            cb.set_model(model)

    def set_params(self, params):
        self.params = params
        for cb in self.callbacks:
            cb.set_params(params)

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self):
        return len(self.callbacks)

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs)


# ---- shared by the monitoring callbacks -------------------------------------------------

def _resolve_mode(mode, monitor, who):
    """'min' or 'max'; 'auto' maximizes accuracy-like names and minimizes the rest."""
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"{who}: expected mode 'auto', 'min' or 'max', received {mode!r}")
    if mode != "auto":
        return mode
    name = monitor[4:] if monitor.startswith("val_") else monitor
    higher_is_better = ("acc", "auc", "precision", "recall", "fmeasure", "f1")
    return "max" if any(word in name for word in higher_is_better) else "min"


def _improved(mode, current, reference, min_delta=0.0):
    """Whether `current` beats `reference` by more than min_delta in the mode's direction."""
    if reference is None:
        return True
    if mode == "min":
        return current < reference - abs(min_delta)
    return current > reference + abs(min_delta)


def _monitored(logs, monitor, who):
    """The monitored value as a float, or None with a warning naming the available keys."""
    value = (logs or {}).get(monitor)
    if value is None:
        keys = ", ".join(k for k in (logs or {}) if k not in BOOKKEEPING) or "none"
        warnings.warn(f"{who} monitors {monitor!r}, which is not in the logs; available "
                      f"keys: {keys}", stacklevel=3)
        return None
    return float(value)


def _learning_rate(model, who):
    """The optimizer's learning rate as a float (a schedule cannot be overridden)."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not hasattr(optimizer, "learning_rate"):
        raise ValueError(f"{who}: the model has no optimizer with a learning_rate; compile "
                         "the model first")
    lr = optimizer.learning_rate
    try:
        return float(lr)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: expected the optimizer's learning_rate to be a number, "
                        f"received {type(lr).__name__}; a schedule already sets it") from None


# ---- built-ins --------------------------------------------------------------------------

class History(Callback):
    """Records the logs of every epoch; `fit` returns it.

    Attributes:
        history: {"loss": [...], "val_loss": [...], ...}, one value per epoch.
        epoch: the epoch indices recorded.

    Example:
        >>> from paddle.highlevel import callbacks
        >>> h = callbacks.History()
        >>> h.on_train_begin(); h.on_epoch_end(0, {"loss": 0.5, "accuracy": 0.75})
        >>> h.history, h.epoch
        ({'loss': [0.5], 'accuracy': [0.75]}, [0])
    """

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []
        if self.model is not None:
            self.model.history = self

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            if key not in BOOKKEEPING:
                self.history.setdefault(key, []).append(value)
        if self.model is not None:
            self.model.history = self


class ProgbarLogger(Callback):
    """Shows progress: a tqdm bar per epoch with live loss and metrics on a terminal, one
    line per epoch otherwise or with verbose=2 (see `paddle.highlevel.progress`).

    `fit`, `evaluate` and `predict` add one when verbose > 0; `params` give its verbose,
    epochs and steps. Inside fit, validation does not draw a bar of its own.
    """

    def __init__(self):
        super().__init__()
        self.progress = None
        self._in_fit = False
        self._last_logs = None

    @property
    def verbose(self):
        return self.params.get("verbose", 1)

    def _start(self, title=None):
        self._finish(None)
        self._last_logs = None
        self.progress = progress.Progress(self.params.get("steps"), self.verbose, title)

    def _step(self, batch, logs):
        if self.progress is not None:
            self._last_logs = logs
            self.progress.update(batch + 1, logs)

    def _finish(self, logs):
        if self.progress is not None:
            self.progress.close(logs if logs is not None else self._last_logs)
            self.progress = None

    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._finish(None)  # only left open when an epoch raised
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        epochs = self.params.get("epochs")
        self._start(f"Epoch {epoch + 1}/{epochs}" if epochs else f"Epoch {epoch + 1}")

    def on_train_batch_end(self, batch, logs=None):
        self._step(batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._finish(logs)

    def on_test_begin(self, logs=None):
        if not self._in_fit:
            self._start()

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._step(batch, logs)

    def on_test_end(self, logs=None):
        if not self._in_fit:
            self._finish(logs)

    def on_predict_begin(self, logs=None):
        self._start()

    def on_predict_batch_end(self, batch, logs=None):
        self._step(batch, None)

    def on_predict_end(self, logs=None):
        self._finish(None)


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) every epoch, or every `save_freq` batches.

    The file name is formatted from the logs: `{epoch}` (counting from 1, as Keras) and any
    logged value, e.g. `"ckpt-{epoch:02d}-{val_loss:.3f}.h5"`. Folders are created as needed.

    Args:
        filepath: file name template.
        monitor: the logged value that decides what "best" means with save_best_only.
        verbose: 1 prints a line on each save (or skipped save).
        save_best_only: save only when `monitor` improved on the best value so far.
        save_weights_only: `model.save_weights(path)` instead of `model.save(path)`.
        mode: "min", "max", or "auto" (max for accuracy-like names, min otherwise).
        save_freq: "epoch", or a number of batches between saves.
        initial_value_threshold: the value to beat first with save_best_only.
    Raises:
        ValueError: an unknown mode or save_freq.
        KeyError: (when saving) the template names a key that is not in the logs.

    Example:
        >>> from paddle.highlevel import callbacks
        >>> ckpt = callbacks.ModelCheckpoint("ckpt/model-{epoch:02d}-{val_loss:.3f}.h5",
        ...                                  save_best_only=True)
        >>> ckpt.file_path(0, {"val_loss": 0.12345})
        'ckpt/model-01-0.123.h5'
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = bool(save_best_only)
        self.save_weights_only = bool(save_weights_only)
        self.mode = _resolve_mode(mode, monitor, "ModelCheckpoint")
        if save_freq != "epoch" and (isinstance(save_freq, bool) or
                                     not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError("ModelCheckpoint: expected save_freq 'epoch' or a number of "
                             f"batches >= 1, received {save_freq!r}")
        self.save_freq = save_freq
        self.best = None if initial_value_threshold is None else float(initial_value_threshold)
        self._epoch = 0
        self._batches_since_save = 0

    def file_path(self, epoch, logs, batch=None):
        """The template filled from the logs; epoch and batch count from 1."""
        values = {**(logs or {}), "epoch": epoch + 1}
        if batch is not None:
            values["batch"] = batch + 1
        try:
            return self.filepath.format(**values)
        except KeyError as e:
            keys = ", ".join(sorted(values))
            raise KeyError(f"ModelCheckpoint: the filepath {self.filepath!r} names {e}, which "
                           f"is not in the logs; available keys: {keys}") from None

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_since_save += 1
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            self._save(self._epoch, logs, batch)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, logs)

    def _save(self, epoch, logs, batch=None):
        path = self.file_path(epoch, logs, batch)
        if self.save_best_only:
            current = _monitored(logs, self.monitor, "ModelCheckpoint")
            if current is None:
                return
            if not _improved(self.mode, current, self.best):
                if self.verbose:
                    progress.message(f"Epoch {epoch + 1}: {self.monitor} did not improve "
                                     f"from {self.best:.5f}")
                return
            if self.verbose:
                before = "nothing" if self.best is None else f"{self.best:.5f}"
                progress.message(f"Epoch {epoch + 1}: {self.monitor} improved from {before} "
                                 f"to {current:.5f}, saving the model to {path}")
            self.best = current
        elif self.verbose:
            progress.message(f"Epoch {epoch + 1}: saving the model to {path}")
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)


class BackupAndRestore(Callback):
    """Backs training up at every epoch end and resumes from the backup after a crash.

    At each epoch end the model is saved (weights, optimizer state, epoch, paddle's random
    state) to `backup_dir`. When `fit` starts and a backup exists, it is restored and
    training resumes with the epoch after the last finished one, as if it had never
    stopped. The backup is deleted when training ends normally (all epochs done, or
    stopped by `model.stop_training`) if `delete_checkpoint`.

    Args:
        backup_dir: the folder for the backup (created as needed; one file, "backup.h5").
        delete_checkpoint: delete the backup at the successful end of training.

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
        >>> folder = os.path.join(tempfile.mkdtemp(), "backup")
        >>> backup = pd.callbacks.BackupAndRestore(folder)
        >>> history = model.fit(x, y, epochs=2, callbacks=[backup], verbose=0)
        >>> os.path.exists(backup.path)  # deleted once training finished
        False
    """

    def __init__(self, backup_dir, delete_checkpoint=True):
        super().__init__()
        self.backup_dir = os.fspath(backup_dir)
        self.delete_checkpoint = bool(delete_checkpoint)
        self.path = os.path.join(self.backup_dir, "backup.h5")
        self._last_epoch = None

    def on_train_begin(self, logs=None):
        self._last_epoch = None
        if os.path.exists(self.path):
            from paddle.highlevel import saving
            last = saving.restore_training_state(self.model, self.path)
            if last is not None:
                self._last_epoch = last
                self.model._initial_epoch = max(getattr(self.model, "_initial_epoch", 0),
                                                last + 1)

    def on_epoch_end(self, epoch, logs=None):
        self._last_epoch = epoch
        self.model.save(self.path)

    def on_train_end(self, logs=None):
        epochs = self.params.get("epochs")
        finished = self.model.stop_training or (
            self._last_epoch is not None and epochs is not None and self._last_epoch >= epochs - 1)
        if self.delete_checkpoint and finished and os.path.exists(self.path):
            os.remove(self.path)
            try:
                os.rmdir(self.backup_dir)
            except OSError:
                pass  # not empty: the folder holds other files


class EarlyStopping(Callback):
    """Stops training when a monitored value has stopped improving.

    Each epoch whose value does not beat the best by more than `min_delta` counts towards
    `patience`; when `patience` is used up, `model.stop_training` is set. With
    `restore_best_weights`, the weights of the best epoch are put back at the end of
    training, whether patience ran out or the epochs did.

    Args:
        monitor: the logged value to watch.
        min_delta: the smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        mode: "min", "max", or "auto" (max for accuracy-like names, min otherwise).
        baseline: a value to beat; epochs that improve on the best but not on the baseline
            still count towards patience.
        restore_best_weights: restore the best epoch's weights when training ends.
        start_from_epoch: epochs to wait before watching (warm-up).
        verbose: 1 prints when stopping and restoring.

    Attributes:
        stopped_epoch: the epoch in which training was stopped (0 if it was not).
        best, best_epoch: the best value seen and its epoch.

    Example:
        >>> from paddle.highlevel import callbacks
        >>> class Model:
        ...     stop_training = False
        >>> es = callbacks.EarlyStopping(monitor="loss", patience=1)
        >>> cbs = callbacks.CallbackList([es], model=Model())
        >>> cbs.on_train_begin()
        >>> for epoch, loss in enumerate([0.5, 0.4, 0.45, 0.41]):
        ...     cbs.on_epoch_end(epoch, {"loss": loss})
        ...     if cbs.model.stop_training:
        ...         break
        >>> es.stopped_epoch, es.best
        (2, 0.4)
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0, verbose=0):
        super().__init__()
        self.monitor = monitor
        self.min_delta = abs(float(min_delta))
        self.patience = int(patience)
        self.mode = _resolve_mode(mode, monitor, "EarlyStopping")
        self.baseline = None if baseline is None else float(baseline)
        self.restore_best_weights = bool(restore_best_weights)
        self.start_from_epoch = int(start_from_epoch)
        self.verbose = verbose
        self.on_train_begin()

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_epoch = 0
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = _monitored(logs, self.monitor, "EarlyStopping")
        if current is None or epoch < self.start_from_epoch:
            return
        self.wait += 1
        if _improved(self.mode, current, self.best, self.min_delta):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            # Patience restarts only when the baseline is beaten too.
            if self.baseline is None or _improved(self.mode, current, self.baseline,
                                                  self.min_delta):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose:
            progress.message(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose:
                progress.message("Restoring the model weights from the end of the best epoch: "
                                 f"{self.best_epoch + 1}")
            self.model.set_weights(self.best_weights)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate at the start of every epoch.

    Args:
        schedule: `schedule(epoch, lr) -> new lr` (epoch counts from 0; a one-argument
            `schedule(epoch)` works too).
        verbose: 1 prints the new rate each epoch.
    The epoch's rate is added to its logs as "learning_rate".

    Example:
        >>> from paddle.highlevel import callbacks
        >>> halve_after_two = callbacks.LearningRateScheduler(
        ...     lambda epoch, lr: lr if epoch < 2 else lr * 0.5)
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        if not callable(schedule):
            raise TypeError(f"LearningRateScheduler: expected a callable schedule, received "
                            f"{schedule!r}")
        self.schedule = schedule
        self.verbose = verbose
        self._takes_lr = _positional_count(schedule) != 1

    def on_epoch_begin(self, epoch, logs=None):
        lr = _learning_rate(self.model, "LearningRateScheduler")
        out = self.schedule(epoch, lr) if self._takes_lr else self.schedule(epoch)
        try:
            new = float(out)
        except (TypeError, ValueError):
            raise ValueError("LearningRateScheduler: expected the schedule to return a number, "
                             f"received {out!r}") from None
        self.model.optimizer.learning_rate = new
        if self.verbose:
            progress.message(f"Epoch {epoch + 1}: LearningRateScheduler setting the learning "
                             f"rate to {new:g}")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _learning_rate(self.model, "LearningRateScheduler")


def _positional_count(fn):
    """How many positional arguments fn takes (2 when it cannot be told)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return 2
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` when a monitored value stops improving.

    Args:
        monitor: the logged value to watch.
        factor: new_lr = lr * factor (< 1).
        patience: epochs without improvement before reducing.
        mode: "min", "max", or "auto" (max for accuracy-like names, min otherwise).
        min_delta: the smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the rate never goes below this.
        verbose: 1 prints each reduction.
    Raises:
        ValueError: factor >= 1, or an unknown mode.

    Example:
        >>> from paddle.highlevel import callbacks
        >>> plateau = callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2)
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, verbose=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: expected factor < 1, received {factor!r}")
        self.monitor = monitor
        self.factor = float(factor)
        self.patience = int(patience)
        self.mode = _resolve_mode(mode, monitor, "ReduceLROnPlateau")
        self.min_delta = abs(float(min_delta))
        self.cooldown = int(cooldown)
        self.min_lr = float(min_lr)
        self.verbose = verbose
        self.on_train_begin()

    def on_train_begin(self, logs=None):
        self.best = None
        self.wait = 0
        self.cooldown_counter = 0

    def on_epoch_end(self, epoch, logs=None):
        lr = _learning_rate(self.model, "ReduceLROnPlateau")
        if logs is not None:
            logs["learning_rate"] = lr
        current = _monitored(logs, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if _improved(self.mode, current, self.best, self.min_delta):
            self.best = current
            self.wait = 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait >= self.patience and lr > self.min_lr:
            new = max(lr * self.factor, self.min_lr)
            self.model.optimizer.learning_rate = new
            if self.verbose:
                progress.message(f"Epoch {epoch + 1}: ReduceLROnPlateau reducing the learning "
                                 f"rate to {new:g}")
            self.cooldown_counter = self.cooldown
            self.wait = 0


class CSVLogger(Callback):
    """Writes one row per epoch to a CSV file: the epoch (from 0, as Keras) and its logs.

    Columns are fixed by the first epoch's logs (sorted); a later missing value is "NA".

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
        write_header = not (self.append and os.path.exists(self.filename)
                            and os.path.getsize(self.filename) > 0)
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._write_header = write_header
        self._writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
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

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
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
