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
from paddle.highlevel.callbacks.base import (  # noqa: F401
    HOOKS, Callback, CallbackList, History, ProgbarLogger)
from paddle.highlevel.callbacks.checkpoint import BackupAndRestore, ModelCheckpoint  # noqa: F401
from paddle.highlevel.callbacks.ema import SwapEMAWeights  # noqa: F401
from paddle.highlevel.callbacks.loggers import CSVLogger, LambdaCallback, TerminateOnNaN  # noqa: F401
from paddle.highlevel.callbacks.profiler import ProfilerCallback  # noqa: F401
from paddle.highlevel.callbacks.remote_monitor import RemoteMonitor  # noqa: F401
from paddle.highlevel.callbacks.schedule import (  # noqa: F401
    EarlyStopping, LearningRateScheduler, ReduceLROnPlateau)
from paddle.highlevel.callbacks.tensorboard import TensorBoard  # noqa: F401
