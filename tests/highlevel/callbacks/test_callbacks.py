"""Callbacks driven by hand through a CallbackList on a fake model, and progress output."""
import math
import re

import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import callbacks
from paddle.highlevel.training import progress


class FakeOptimizer:
    def __init__(self, learning_rate=0.1):
        self._lr = learning_rate

    @property
    def learning_rate(self):
        return self._lr

    @learning_rate.setter
    def learning_rate(self, value):
        assert type(value) is float
        self._lr = value


class FakeModel:
    """What callbacks may touch on a model: weights, saving, stop_training, the optimizer."""

    def __init__(self):
        self.weights = [np.zeros(2), np.zeros(1)]
        self.stop_training = False
        self.optimizer = FakeOptimizer()
        self.saved = []

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, weights):
        self.weights = [np.array(w) for w in weights]

    def save(self, path):
        self.saved.append(("model", path))
        with open(path, "w") as f:
            f.write("model")

    def save_weights(self, path):
        self.saved.append(("weights", path))


def fit(cbs, epoch_logs, steps=2, batch_loss=0.5):
    """Simulate fit: epoch k leaves weights filled with k; stops when asked; returns the
    number of epochs run."""
    model = cbs.model
    cbs.on_train_begin()
    run = 0
    try:
        for epoch, logs in enumerate(epoch_logs):
            cbs.on_epoch_begin(epoch)
            for batch in range(steps):
                cbs.on_train_batch_begin(batch)
                cbs.on_train_batch_end(batch, {"loss": batch_loss})
                if model.stop_training:
                    break
            model.weights = [np.full(2, float(epoch)), np.full(1, float(epoch))]
            cbs.on_epoch_end(epoch, dict(logs))
            run += 1
            if model.stop_training:
                break
    finally:
        cbs.on_train_end()
    return run


def make(cb_list, verbose=0, epochs=5, steps=2, **kw):
    return callbacks.CallbackList(cb_list, model=FakeModel(), verbose=verbose, epochs=epochs,
                                  steps=steps, **kw)


# ---- CallbackList and History -------------------------------------------------------------

class Recorder(callbacks.Callback):
    def __init__(self, tag, calls):
        super().__init__()
        self.tag, self.calls = tag, calls

    def __getattribute__(self, name):
        if name.startswith("on_"):
            return lambda *args: self.calls.append((self.tag, name, args))
        return super().__getattribute__(name)


def test_callback_list_calls_every_hook_on_every_callback_in_order():
    calls = []
    model = FakeModel()
    cbs = callbacks.CallbackList([Recorder("a", calls), Recorder("b", calls)], model=model,
                                 epochs=3, steps=10, verbose=0)
    assert all(cb.model is model for cb in cbs)
    assert cbs.callbacks[0].params == {"epochs": 3, "steps": 10, "verbose": 0}
    for hook in callbacks.HOOKS:
        args = (1, {"loss": 0.5}) if "epoch_" in hook or "batch_" in hook else ({"loss": 0.5},)
        getattr(cbs, hook)(*args)
    assert [(tag, hook) for tag, hook, _ in calls] == \
        [(tag, hook) for hook in callbacks.HOOKS for tag in "ab"]
    assert calls[2] == ("a", "on_train_end", ({"loss": 0.5},))


def test_default_callbacks_history_and_progbar():
    cbs = make([], verbose=0, add_history=True, add_progbar=True)
    assert [type(cb) for cb in cbs] == [callbacks.History]
    cbs = make([], verbose=1, add_history=True, add_progbar=True)
    assert [type(cb) for cb in cbs] == [callbacks.History, callbacks.ProgbarLogger]
    mine = callbacks.History()
    assert make([mine], add_history=True).history is mine


def test_history_records_epoch_logs_and_sets_model_history(capsys):
    cbs = make([], add_history=True)
    fit(cbs, [{"loss": 0.5, "accuracy": 0.6, "epoch": 0}, {"loss": 0.4, "accuracy": 0.7}])
    assert cbs.history.history == {"loss": [0.5, 0.4], "accuracy": [0.6, 0.7]}
    assert cbs.history.epoch == [0, 1]
    assert cbs.model.history is cbs.history


def test_callback_list_rejects_non_callbacks():
    with pytest.raises(TypeError, match="Callback"):
        callbacks.CallbackList([print])


# ---- EarlyStopping --------------------------------------------------------------------------

def val(*values, key="val_loss"):
    return [{"loss": 1.0, key: v} for v in values]


def test_early_stopping_stops_when_patience_runs_out_and_restores_best():
    es = callbacks.EarlyStopping(patience=2, restore_best_weights=True)
    cbs = make([es])
    run = fit(cbs, val(0.9, 0.5, 0.6, 0.7, 0.1, 0.05))
    assert run == 4 and cbs.model.stop_training and es.stopped_epoch == 3
    assert es.best == 0.5 and es.best_epoch == 1
    np.testing.assert_array_equal(cbs.model.weights[0], [1.0, 1.0])   # epoch 1's weights


def test_early_stopping_restores_best_when_training_ends_first():
    es = callbacks.EarlyStopping(patience=10, restore_best_weights=True)
    cbs = make([es])
    assert fit(cbs, val(0.9, 0.3, 0.6, 0.7)) == 4
    assert not cbs.model.stop_training and es.stopped_epoch == 0
    np.testing.assert_array_equal(cbs.model.weights[1], [1.0])


def test_early_stopping_without_restore_keeps_the_last_weights():
    cbs = make([callbacks.EarlyStopping(patience=1)])
    assert fit(cbs, val(0.5, 0.6, 0.7)) == 2
    np.testing.assert_array_equal(cbs.model.weights[0], [1.0, 1.0])


def test_early_stopping_min_delta_and_max_mode_for_accuracy():
    es = callbacks.EarlyStopping(monitor="val_accuracy", min_delta=0.05, patience=1)
    assert es.mode == "max"
    cbs = make([es])
    # 0.52 beats 0.5 by less than min_delta: no improvement, patience 1 is used up.
    assert fit(cbs, val(0.5, 0.52, 0.9, key="val_accuracy")) == 2
    assert es.stopped_epoch == 1


def test_early_stopping_baseline_and_warm_up():
    losses = [{"loss": v} for v in (0.5, 0.4, 0.45, 0.3)]
    # Improvements that miss the baseline still use up patience (stopped at epoch 2) ...
    es = callbacks.EarlyStopping(monitor="loss", patience=2, baseline=0.1)
    assert fit(make([es]), losses) == 3 and es.stopped_epoch == 2
    # ... without a baseline each improvement restarts it.
    assert fit(make([callbacks.EarlyStopping(monitor="loss", patience=2)]), losses) == 4
    es = callbacks.EarlyStopping(monitor="loss", patience=0, start_from_epoch=2)
    assert fit(make([es]), [{"loss": v} for v in (0.5, 0.6, 0.7, 0.8)]) == 4


def test_early_stopping_warns_about_a_missing_monitor():
    es = callbacks.EarlyStopping(monitor="val_loss", patience=0)
    with pytest.warns(UserWarning, match="available keys: loss, accuracy"):
        fit(make([es]), [{"loss": 0.5, "accuracy": 0.5}] * 2)
    assert es.stopped_epoch == 0


def test_unknown_mode_is_an_error():
    with pytest.raises(ValueError, match="'auto', 'min' or 'max'"):
        callbacks.EarlyStopping(mode="up")


# ---- ModelCheckpoint ------------------------------------------------------------------------

def test_checkpoint_every_epoch_with_a_template(tmp_path):
    template = str(tmp_path / "run" / "model-{epoch:02d}-{val_loss:.3f}.h5")
    cbs = make([callbacks.ModelCheckpoint(template)])
    fit(cbs, val(0.91234, 0.5))
    assert cbs.model.saved == [("model", str(tmp_path / "run" / "model-01-0.912.h5")),
                               ("model", str(tmp_path / "run" / "model-02-0.500.h5"))]
    assert (tmp_path / "run" / "model-02-0.500.h5").exists()


def test_checkpoint_save_best_only_and_weights_only(tmp_path, capsys):
    ckpt = callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch}.h5"), save_best_only=True,
                                     save_weights_only=True, verbose=1)
    cbs = make([ckpt])
    fit(cbs, val(0.5, 0.7, 0.4, 0.4))
    assert cbs.model.saved == [("weights", str(tmp_path / "w-1.h5")),
                               ("weights", str(tmp_path / "w-3.h5"))]
    assert ckpt.best == 0.4
    out = capsys.readouterr().out
    assert "Epoch 2: val_loss did not improve from 0.50000" in out
    assert "Epoch 3: val_loss improved from 0.50000 to 0.40000" in out


def test_checkpoint_max_mode_and_save_freq_in_batches(tmp_path):
    ckpt = callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}-{batch}.h5"), save_freq=3)
    cbs = make([ckpt], steps=2)
    fit(cbs, val(0.5, 0.5, 0.5))
    assert [p for _, p in cbs.model.saved] == [str(tmp_path / "m-2-1.h5"),
                                               str(tmp_path / "m-3-2.h5")]
    assert callbacks.ModelCheckpoint("x.h5", monitor="val_acc").mode == "max"
    with pytest.raises(ValueError, match="save_freq"):
        callbacks.ModelCheckpoint("x.h5", save_freq=0)


def test_checkpoint_missing_keys(tmp_path):
    cbs = make([callbacks.ModelCheckpoint(str(tmp_path / "m-{val_acc}.h5"))])
    with pytest.raises(KeyError, match="val_acc"):
        fit(cbs, val(0.5))
    ckpt = callbacks.ModelCheckpoint(str(tmp_path / "m.h5"), save_best_only=True)
    cbs = make([ckpt])
    with pytest.warns(UserWarning, match="'val_loss'.*available keys: loss"):
        fit(cbs, [{"loss": 0.3}])
    assert cbs.model.saved == []


# ---- learning rate --------------------------------------------------------------------------

def test_reduce_lr_on_plateau_with_patience_cooldown_and_floor():
    plateau = callbacks.ReduceLROnPlateau(factor=0.5, patience=2, cooldown=2, min_lr=0.03)
    cbs = make([plateau])
    seen = []
    cbs.append(callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(
        logs["learning_rate"])))
    fit(cbs, val(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0))
    # Reduced after epoch 2 (patience 2), then after epoch 5: the cooldown counts down
    # during epochs 3 and 4, and waiting resumes in epoch 4 (Keras' rule); then floored.
    assert seen == pytest.approx([0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.03, 0.03])
    assert all(type(v) is float for v in seen)
    with pytest.raises(ValueError, match="factor"):
        callbacks.ReduceLROnPlateau(factor=1.0)


def test_reduce_lr_resets_on_improvement():
    plateau = callbacks.ReduceLROnPlateau(monitor="loss", factor=0.1, patience=2)
    cbs = make([plateau])
    fit(cbs, [{"loss": v} for v in (1.0, 1.0, 0.5, 0.5, 0.4)])
    assert cbs.model.optimizer.learning_rate == pytest.approx(0.1)


def test_learning_rate_scheduler_two_and_one_argument_schedules(capsys):
    cbs = make([callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5, verbose=1)],
               add_history=True)
    fit(cbs, val(0.5, 0.5, 0.5))
    assert cbs.history.history["learning_rate"] == pytest.approx([0.05, 0.025, 0.0125])
    assert "Epoch 3: LearningRateScheduler setting the learning rate to 0.0125" in \
        capsys.readouterr().out
    cbs = make([callbacks.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))])
    fit(cbs, val(0.5, 0.5))
    assert cbs.model.optimizer.learning_rate == pytest.approx(0.02)
    cbs = make([callbacks.LearningRateScheduler(lambda epoch, lr: "fast")])
    with pytest.raises(ValueError, match="number"):
        fit(cbs, val(0.5))


# ---- CSVLogger, TerminateOnNaN, LambdaCallback ----------------------------------------------

def test_csv_logger_writes_one_row_per_epoch_and_appends(tmp_path):
    path = tmp_path / "log.csv"
    fit(make([callbacks.CSVLogger(str(path))]),
        [{"loss": 0.5, "val_loss": 0.75, "accuracy": 0.25}, {"loss": 0.25, "accuracy": 0.5}])
    assert path.read_text().splitlines() == ["epoch,accuracy,loss,val_loss",
                                             "0,0.25,0.5,0.75", "1,0.5,0.25,NA"]
    fit(make([callbacks.CSVLogger(str(path), separator=";", append=True)]),
        [{"loss": 0.125, "accuracy": 0.75, "val_loss": 0.5}])
    assert path.read_text().splitlines()[-1] == "0;0.75;0.125;0.5"
    assert path.read_text().count("epoch") == 1


def test_terminate_on_nan_stops_at_the_bad_batch(capsys):
    for bad in (float("nan"), math.inf):
        cbs = make([callbacks.TerminateOnNaN()], steps=5)
        assert fit(cbs, val(0.5, 0.5), batch_loss=bad) == 1
        assert cbs.model.stop_training
        assert "Batch 0: invalid loss" in capsys.readouterr().out
    cbs = make([callbacks.TerminateOnNaN()])
    assert fit(cbs, val(0.5, 0.5)) == 2


def test_lambda_callback_calls_given_functions_only():
    events = []
    cb = callbacks.LambdaCallback(on_train_begin=lambda logs: events.append("begin"),
                                  on_epoch_end=lambda e, logs: events.append(("end", e)),
                                  on_train_batch_end=lambda b, logs: events.append(b),
                                  on_test_end=lambda logs: events.append("test"))
    cbs = make([cb])
    fit(cbs, val(0.5, 0.5), steps=1)
    cbs.on_test_end({})
    assert events == ["begin", 0, ("end", 0), 0, ("end", 1), "test"]
    with pytest.raises(ValueError, match="unknown hooks"):
        callbacks.LambdaCallback(on_epoch_finish=print)


# ---- progress -------------------------------------------------------------------------------

@pytest.fixture
def terminal(monkeypatch):
    def use(is_terminal):
        monkeypatch.setattr(progress, "stderr_is_terminal", lambda: is_terminal)
        monkeypatch.setenv("COLUMNS", "100")   # the bar's width, whatever runs the tests
        monkeypatch.setenv("LINES", "24")
    return use


EPOCHS = [{"loss": 0.5, "accuracy": 0.75, "val_loss": 0.625}, {"loss": 0.25, "accuracy": 0.875}]


def test_progress_one_line_per_epoch_when_not_a_terminal(terminal, capsys):
    terminal(False)
    fit(make([], verbose=1, epochs=2, steps=3, add_progbar=True), EPOCHS, steps=3)
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2 and err == ""
    assert lines[0].startswith("Epoch 1/2 - 3/3 - ")
    assert lines[0].endswith("s - loss: 0.5000 - accuracy: 0.7500 - val_loss: 0.6250")
    assert lines[1].endswith("loss: 0.2500 - accuracy: 0.8750")


def test_progress_verbose_2_is_one_line_even_on_a_terminal(terminal, capsys):
    terminal(True)
    fit(make([], verbose=2, epochs=2, steps=None, add_progbar=True), EPOCHS, steps=4)
    out, err = capsys.readouterr()
    assert [line.split(" - ")[:2] for line in out.splitlines()] == [["Epoch 1/2", "4/4"],
                                                                    ["Epoch 2/2", "4/4"]]
    assert err == ""


def test_progress_bar_on_a_terminal(terminal, capsys):
    terminal(True)
    fit(make([], verbose=1, epochs=2, steps=3, add_progbar=True), EPOCHS, steps=3)
    out, err = capsys.readouterr()
    assert out == ""
    assert "Epoch 1/2" in err and "Epoch 2/2" in err and "3/3" in err
    assert "loss: 0.5000 - accuracy: 0.7500 - val_loss: 0.6250" in err


def test_progress_bar_gives_values_that_do_not_fit_a_line_of_their_own(terminal, capsys):
    terminal(True)
    short = progress.Progbar(2, verbose=1, title="Epoch 1/1")
    short.update(2, {"loss": 0.5}, finalize=False)  # as ProgbarLogger: close() ends it
    short.close({"loss": 0.25})
    err = capsys.readouterr().err
    assert "2/2" in err and "loss: 0.2500" in err and "\nloss: 0.2500" not in err
    logs = {f"metric_{i}": 0.5 for i in range(8)}
    wide = progress.Progbar(2, verbose=1, title="Epoch 1/1")
    wide.update(2, logs, finalize=False)
    wide.close(logs)
    assert progress.format_logs(logs) + "\n" in capsys.readouterr().err


def test_progress_bar_with_unknown_steps(terminal, capsys):
    terminal(True)
    fit(make([], verbose=1, epochs=1, steps=None, add_progbar=True), EPOCHS[:1], steps=5)
    err = capsys.readouterr().err
    assert "5step" in err and "loss: 0.5000" in err


def test_progress_of_evaluate_and_predict(terminal, capsys):
    terminal(False)
    cbs = make([], verbose=1, steps=2, add_progbar=True)
    cbs.on_test_begin()
    for batch in range(2):
        cbs.on_test_batch_end(batch, {"loss": 0.5, "accuracy": 1.0})
    cbs.on_test_end({"loss": 0.25, "accuracy": 0.5})
    cbs.on_predict_begin()
    cbs.on_predict_batch_end(0)
    cbs.on_predict_end()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("2/2 - ") and lines[0].endswith("loss: 0.2500 - accuracy: 0.5000")
    assert lines[1].startswith("1/2 - ")


def test_validation_inside_fit_draws_no_bar_of_its_own(terminal, capsys):
    terminal(False)
    cbs = make([], verbose=1, epochs=1, steps=1, add_progbar=True)
    cbs.on_train_begin()
    cbs.on_epoch_begin(0)
    cbs.on_train_batch_end(0, {"loss": 0.5})
    cbs.on_test_begin()
    cbs.on_test_batch_end(0, {"loss": 0.25})
    cbs.on_test_end({"loss": 0.25})
    cbs.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.25})
    cbs.on_train_end()
    assert capsys.readouterr().out.splitlines()[0].endswith("loss: 0.5000 - val_loss: 0.2500")


def test_progress_bar_fits_an_80_column_terminal(terminal, capsys, monkeypatch):
    # In 80 columns the bar cut the values off, then repeated them on a line without the
    # epoch. Now: the bar line fits; values that do not fit beside it get the next line,
    # once, whole.
    terminal(True)
    monkeypatch.setenv("COLUMNS", "80")
    logs = {"loss": 0.25, "accuracy": 0.9, "val_loss": 0.3, "val_accuracy": 0.875}
    bar = progress.Progbar(50, verbose=1, title="Epoch 3/20")
    bar.update(7, logs)
    bar.bar.refresh()  # a live frame (tqdm draws at most ten a second)
    bar.update(50, logs)
    bar.close(logs)
    err = capsys.readouterr().err
    frames = [frame for chunk in err.split("\r") for frame in chunk.split("\n") if frame]
    values = progress.format_logs(logs)
    assert all(len(frame) < 80 for frame in frames), [f for f in frames if len(f) >= 80]
    live = [f for f in frames if "7/50" in f]
    assert live and live[-1].rstrip().endswith(" - loss: 0.2500 - ...")  # the first that fit
    assert err.count(values) == 1
    assert f"\n{progress.VALUES_INDENT}{values}\n" in err  # below the epoch's own bar line
    last_bar = err.split(f"\n{progress.VALUES_INDENT}{values}")[0].split("\r")[-1]
    assert last_bar.startswith("Epoch 3/20 50/50 ") and "/step - " in last_bar


def test_progress_bar_keeps_the_values_on_its_line_when_they_fit(terminal, capsys):
    terminal(True)  # 100 columns
    bar = progress.Progbar(3, verbose=1, title="Epoch 1/1")
    bar.update(3, {"loss": 0.5}, finalize=False)
    bar.close({"loss": 0.5, "accuracy": 0.75})
    err = capsys.readouterr().err
    last = err.rstrip("\n").split("\r")[-1]
    assert last.startswith("Epoch 1/1 3/3 ") and last.rstrip().endswith(
        "s - loss: 0.5000 - accuracy: 0.7500")
    assert progress.VALUES_INDENT + "loss" not in err


TIME = r"(<1us|\d+us|\d+ms|\d\.\ds|\d+s|\d+m\d\ds)"


def test_progress_shows_the_time_a_step_takes_in_a_unit_that_suits_it(terminal, capsys):
    # Tiny models showed "0.0s" an epoch and "13129.08step/s".
    terminal(False)
    fit(make([], verbose=1, epochs=2, steps=3, add_progbar=True), EPOCHS, steps=3)
    terminal(True)
    fit(make([], verbose=1, epochs=1, steps=3, add_progbar=True), EPOCHS[:1], steps=3)
    out, err = capsys.readouterr()
    for line in out.splitlines():
        assert re.match(rf"^Epoch \d/2 - 3/3 - {TIME}/step - {TIME} - loss: ", line), line
    assert re.search(rf"Epoch 1/1 3/3 \S+ {TIME}/step - {TIME}", err), err
    assert "step/s" not in out + err and "0.0s" not in out + err


@pytest.mark.parametrize("seconds, text", [
    (2e-7, "<1us"), (8.5e-4, "850us"), (0.012, "12ms"), (0.9994, "999ms"), (1.234, "1.2s"),
    (45.2, "45s"), (125.0, "2m05s"), (3725.0, "1h02m05s")])
def test_format_duration_picks_the_unit(seconds, text):
    assert progress.format_duration(seconds) == text


def test_format_logs_uses_scientific_notation_for_tiny_values():
    assert progress.format_logs({"loss": 1.5e-5, "batch": 3, "lr": 0.001}) == \
        "loss: 1.5000e-05 - lr: 0.0010"


# ---- Keras's calling conventions ------------------------------------------------------------

def test_every_hook_receives_a_dict_never_none():
    received = []

    class Recorder(pd.callbacks.Callback):
        pass

    for hook in ("on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
                 "on_predict_begin", "on_predict_end"):
        setattr(Recorder, hook, lambda self, logs=None, _h=hook: received.append((_h, logs)))
    for hook in ("on_epoch_begin", "on_train_batch_begin", "on_test_batch_begin",
                 "on_predict_batch_begin"):
        setattr(Recorder, hook, lambda self, i, logs=None, _h=hook: received.append((_h, logs)))
    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32)
    model.fit(x, y, epochs=1, verbose=0, validation_data=(x, y), callbacks=[Recorder()])
    model.predict(x, verbose=0, callbacks=[Recorder()])
    hooks = {h for h, _ in received}
    assert len(hooks) == 10
    assert all(isinstance(logs, dict) for _, logs in received)
    # Writing into the logs of a *_begin hook is allowed (Keras callbacks do it).
    update = pd.callbacks.LambdaCallback(on_train_begin=lambda logs: logs.update(seen=1))
    model.fit(x, y, epochs=1, verbose=0, callbacks=[update])


def test_legacy_on_batch_hooks_are_called_in_training():
    calls = []

    class Legacy(pd.callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            calls.append(("begin", batch))

        def on_batch_end(self, batch, logs=None):
            calls.append(("end", batch, round(logs["loss"], 6) >= 0))

    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32), batch_size=2,
              epochs=1, verbose=0, callbacks=[Legacy()])
    assert calls == [("begin", 0), ("end", 0, True), ("begin", 1), ("end", 1, True)]


def test_overriding_on_train_batch_end_replaces_the_legacy_alias():
    calls = []

    class Both(pd.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            calls.append("new")

        def on_batch_end(self, batch, logs=None):
            calls.append("legacy")

    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32), epochs=1, verbose=0,
              callbacks=[Both()])
    assert calls == ["new"]


def test_verbose_is_the_fourth_positional_argument_as_in_keras():
    es = callbacks.EarlyStopping("loss", 0.1, 3, 1)
    assert (es.monitor, es.min_delta, es.patience, es.verbose, es.mode) == (
        "loss", 0.1, 3, 1, "min")
    plateau = callbacks.ReduceLROnPlateau("val_accuracy", 0.5, 2, 1)
    assert (plateau.factor, plateau.patience, plateau.verbose, plateau.mode) == (
        0.5, 2, 1, "max")


def test_terminate_on_nan_raise_error():
    """raise_error=True raises at the bad batch (Keras 3); fit's on_train_end still runs."""
    ended = []
    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 2), np.float32)
    y = np.full((8, 1), np.nan, np.float32)
    with pytest.raises(RuntimeError, match="TerminateOnNaN: NaN or Inf loss at batch 0"):
        model.fit(x, y, batch_size=4, epochs=2, verbose=0, callbacks=[
            callbacks.TerminateOnNaN(raise_error=True),
            callbacks.LambdaCallback(on_train_end=lambda logs: ended.append(True))])
    assert ended == [True]
    with pytest.raises(TypeError, match="TerminateOnNaN: expected raise_error as True or False"):
        callbacks.TerminateOnNaN(raise_error="yes")


def test_callback_list_takes_kerass_positional_order():
    """keras.callbacks.CallbackList(callbacks, add_history, add_progbar, model, **params)."""
    model = FakeModel()
    cbs = callbacks.CallbackList([], True, False, model, epochs=3)
    assert isinstance(cbs.history, callbacks.History) and cbs.model is model
    assert cbs.params["epochs"] == 3
