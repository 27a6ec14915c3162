"""Callbacks that steer training: EarlyStopping, LearningRateScheduler, ReduceLROnPlateau."""
import inspect

from paddle.highlevel.training import progress
from paddle.highlevel.callbacks.base import Callback
from paddle.highlevel.callbacks.monitor import (_improved, _learning_rate, _monitored,
                                               _resolve_mode)

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
        verbose: 1 prints when stopping and restoring (fourth, as in Keras).
        mode: "min", "max", or "auto" (max for accuracy-like names, min otherwise).
        baseline: a value to beat; epochs that improve on the best but not on the baseline
            still count towards patience.
        restore_best_weights: restore the best epoch's weights when training ends.
        start_from_epoch: epochs to wait before watching (warm-up).

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

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
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
        verbose: 1 prints each reduction (fourth, as in Keras).
        mode: "min", "max", or "auto" (max for accuracy-like names, min otherwise).
        min_delta: the smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the rate never goes below this.
    Raises:
        ValueError: factor >= 1, or an unknown mode.

    Example:
        >>> from paddle.highlevel import callbacks
        >>> plateau = callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2)
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0):
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
