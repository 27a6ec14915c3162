"""The Callback base class, CallbackList, and the two callbacks every fit gets:
History and ProgbarLogger."""
from paddle.highlevel.training import progress
from paddle.highlevel.training.progress import BOOKKEEPING

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
        """Called before each training batch (batch counts from 0 in each epoch); calls the
        legacy `on_batch_begin` unless overridden, as Keras does."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called after each training batch with the running loss and metrics; calls the
        legacy `on_batch_end` unless overridden, as Keras does."""
        self.on_batch_end(batch, logs=logs)

    def on_batch_begin(self, batch, logs=None):
        """Keras's legacy name for `on_train_batch_begin`."""

    def on_batch_end(self, batch, logs=None):
        """Keras's legacy name for `on_train_batch_end`."""

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

    Args (in Keras 3's order):
        callbacks: a list of Callbacks (or None).
        add_history: append a `History` (unless the list has one).
        add_progbar: append a `ProgbarLogger` when verbose > 0 (unless the list has one).
        model: set on every callback.
        **params: the run's "epochs", "steps" (None when unknown) and "verbose", given to
            every callback as `params`.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        if callbacks is not None and not isinstance(callbacks, (list, tuple)):
            raise TypeError(f"callbacks: expected a list of Callback objects, received "
                            f"{type(callbacks).__name__}")
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
        # Hooks receive a dict, never None (Keras passes {}): a callback may read or
        # update logs in any hook.
        *head, logs = args
        for cb in self.callbacks:
            getattr(cb, hook)(*head, {} if logs is None else logs)

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
    line per epoch otherwise or with verbose=2 (see `paddle.highlevel.training.progress`).

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
        # A bar redrawn in place only on a terminal; one line per run in a file or a pipe.
        verbose = self.verbose if self.verbose != 1 or progress.stderr_is_terminal() else 2
        self.progress = progress.Progbar(self.params.get("steps"), verbose=verbose,
                                         title=title)

    def _step(self, batch, logs):
        if self.progress is not None:
            self._last_logs = logs
            self.progress.update(batch + 1, dict(logs or {}), finalize=False)

    def _finish(self, logs):
        if self.progress is not None:
            self.progress.close(dict(logs if logs is not None else self._last_logs or {}))
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
