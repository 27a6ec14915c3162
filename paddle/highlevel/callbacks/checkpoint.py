"""Checkpoints during training: ModelCheckpoint and BackupAndRestore."""
import os

from paddle.distributed import training, world
from paddle.highlevel.saving.formats import check_model_file_name, saving
from paddle.highlevel.training import progress
from paddle.highlevel.callbacks.base import Callback
from paddle.highlevel.callbacks.monitor import _improved, _monitored, _resolve_mode

class ModelCheckpoint(Callback):
    """Saves the model (or its weights) every epoch, or every `save_freq` batches.

    In distributed training only rank 0 writes (`model.save` does nothing on the other
    ranks); every rank keeps the same `best`, as the logs are averaged.

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
        ValueError: an unknown mode or save_freq, or (without save_weights_only) a file
            name that does not end in .keras, .h5 or .hdf5.
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
        if not self.save_weights_only:  # as Keras 3, before training rather than after it
            check_model_file_name(self.filepath, "ModelCheckpoint")
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

    In distributed training rank 0 writes and deletes the backup, and every rank restores
    from that one file when rank 0 finds it (the folder must be visible to all ranks).

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
        if training.chief_decides(os.path.exists(self.path)):
            last = saving("restore_training_state")(self.model, self.path)
            if last is not None:
                self._last_epoch = last
                self.model._initial_epoch = max(getattr(self.model, "_initial_epoch", 0),
                                                last + 1)

    def on_epoch_end(self, epoch, logs=None):
        self._last_epoch = epoch
        if world.is_chief():  # the folder is created as needed (saves create none)
            os.makedirs(self.backup_dir, exist_ok=True)
        self.model.save(self.path)

    def on_train_end(self, logs=None):
        epochs = self.params.get("epochs")
        finished = self.model.stop_training or (
            self._last_epoch is not None and epochs is not None and self._last_epoch >= epochs - 1)
        if self.delete_checkpoint and finished and world.is_chief() and \
                os.path.exists(self.path):
            os.remove(self.path)
            try:
                os.rmdir(self.backup_dir)
            except OSError:
                pass  # not empty: the folder holds other files
