"""Saves are atomic (paddle/_atomic.py): model.save, save_weights, checkpoints,
Trainer.save_params, exports and plots write a unique temporary file, fsync it and rename
it over the target. Two saves at once (threads or processes) both succeed and leave a whole
file; temporary files of killed saves are cleaned up by the next save into their folder
after a day. A save replaces only a regular file, keeping its permissions and owner, and
creates no folder."""
import importlib.util
import os
import stat
import threading
import time

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle import _atomic
from untrusted import run_probe


def small_model(units=4):
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(units)])
    model.compile(optimizer="adam", loss="mse")
    return model


def run_threads(count, work):
    errors = []

    def run(k):
        try:
            work(k)
        except BaseException as e:  # noqa: B902 (reported below)
            errors.append(e)
    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize("kind", ["save", "save_weights"])
def test_concurrent_saves_from_threads_all_succeed(tmp_path, kind):
    models = [small_model() for _ in range(4)]
    path = tmp_path / "m.h5"
    run_threads(4, lambda k: [getattr(models[k], kind)(path) for _ in range(3)])
    assert os.listdir(tmp_path) == ["m.h5"]
    probe = small_model()
    probe.load_weights(path)
    assert any(all(np.array_equal(a, b) for a, b in zip(probe.get_weights(), m.get_weights()))
               for m in models)


def test_concurrent_trainer_saves_from_threads_all_succeed(tmp_path):
    def net():
        y = pd.data("y", shape=[None, 1])
        return [pd.mean(pd.square(pd.fc(pd.data("x", shape=[None, 3]), size=1) - y))]
    trainer = pd.Trainer(net, lambda: pd.optimizers.SGD(0.1))
    run_threads(4, lambda k: [trainer.save_params(str(tmp_path)) for _ in range(5)])
    assert os.listdir(tmp_path) == ["params.h5"]
    with h5py.File(tmp_path / "params.h5", "r") as f:
        assert f["fc_0/w"].shape == (3, 1)


PROCESS_SAVE = """
import numpy as np
def net():
    y = pd.data("y", shape=[None, 1])
    return [pd.mean(pd.square(pd.fc(pd.data("x", shape=[None, 3]), size=1) - y))]
trainer = pd.Trainer(net, lambda: pd.optimizers.SGD(0.1))
model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(4)])
for _ in range(15):
    trainer.save_params({folder!r})
    model.save({model_path!r})
print("saved")
"""


def test_concurrent_saves_from_processes_all_succeed(tmp_path):
    import concurrent.futures
    body = PROCESS_SAVE.format(folder=str(tmp_path), model_path=str(tmp_path / "m.h5"))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        outputs = list(pool.map(lambda _: run_probe(body), range(2)))
    assert all("saved" in out for out in outputs), outputs
    assert sorted(os.listdir(tmp_path)) == ["m.h5", "params.h5"]
    assert pd.load_model(tmp_path / "m.h5").outputs[0].shape == (None, 4)


def test_stale_temporaries_of_ours_are_removed_by_the_next_save(tmp_path):
    old = time.time() - 2 * 24 * 3600
    stale = tmp_path / ".m.h5.0123456789ab.paddle-tmp"
    fresh = tmp_path / ".m.h5.ba9876543210.paddle-tmp"   # a save in progress elsewhere
    foreign = tmp_path / ".m.h5.swp.tmp"                  # not ours
    for path in (stale, fresh, foreign):
        path.write_bytes(b"partial")
    os.utime(stale, (old, old))
    os.utime(foreign, (old, old))
    small_model().save(tmp_path / "m.h5")
    assert sorted(os.listdir(tmp_path)) == sorted(["m.h5", fresh.name, foreign.name])


def test_a_failed_write_leaves_the_target_and_no_temporary(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="boom"):
        with _atomic.atomic_path(str(target)) as tmp:
            with open(tmp, "w") as f:
                f.write("half")
            raise RuntimeError("boom")
    assert os.listdir(tmp_path) == ["notes.txt"] and target.read_text() == "old"


def test_saved_files_get_the_usual_permissions(tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    small_model().save(tmp_path / "m.h5")
    assert os.stat(tmp_path / "m.h5").st_mode & 0o777 == 0o666 & ~mask


# ---- what sits at the target (issue 25, item 4) -------------------------------------------

SAVES = {
    "save": lambda model, path: model.save(path),
    "save .keras": lambda model, path: model.save(path.with_suffix(".keras")),
    "save_weights": lambda model, path: model.save_weights(path),
    "save_weights .weights.h5": lambda model, path: model.save_weights(
        path.with_name("m.weights.h5")),
}


def target_of(kind, path):
    return {"save .keras": path.with_suffix(".keras"),
            "save_weights .weights.h5": path.with_name("m.weights.h5")}.get(kind, path)


@pytest.mark.parametrize("kind", sorted(SAVES))
def test_resaving_keeps_the_permissions_of_a_private_file(tmp_path, kind):
    path = target_of(kind, tmp_path / "m.h5")
    model = small_model()
    SAVES[kind](model, tmp_path / "m.h5")
    os.chmod(path, 0o600)
    SAVES[kind](model, tmp_path / "m.h5")
    assert os.stat(path).st_mode & 0o777 == 0o600
    os.chmod(path, 0o640)
    SAVES[kind](model, tmp_path / "m.h5")
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == [path.name]


def test_model_checkpoint_keeps_a_private_file_private_at_every_epoch(tmp_path):
    path = tmp_path / "ckpt.h5"
    model = small_model()
    model.save(path)
    os.chmod(path, 0o600)
    modes = []

    class Watch(pd.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            modes.append(os.stat(path).st_mode & 0o777)
    x = np.ones((8, 3), np.float32)
    model.fit(x, x[:, :1].repeat(4, 1), epochs=3, verbose=0,
              callbacks=[pd.callbacks.ModelCheckpoint(str(path)), Watch()])
    assert modes == [0o600] * 3


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_resaving_keeps_the_owner(tmp_path):
    path = tmp_path / "m.h5"
    model = small_model()
    model.save(path)
    os.chown(path, 12345, 23456)
    model.save(path)
    st = os.stat(path)
    assert (st.st_uid, st.st_gid) == (12345, 23456)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_a_file_that_may_not_be_written_is_left_alone(tmp_path):
    path = tmp_path / "m.h5"
    path.write_bytes(b"read only")
    os.chmod(path, 0o444)
    with pytest.raises(PermissionError, match=r"m\.h5 exists and is not writable"):
        small_model().save(path)
    assert path.read_bytes() == b"read only" and os.listdir(tmp_path) == ["m.h5"]


@pytest.mark.parametrize("kind", sorted(SAVES))
def test_a_fifo_at_the_target_is_refused_before_anything_is_written(tmp_path, kind):
    path = target_of(kind, tmp_path / "m.h5")
    os.mkfifo(path)
    with pytest.raises(OSError, match=r"is a FIFO \(named pipe\), not a regular file"):
        SAVES[kind](small_model(), tmp_path / "m.h5")
    assert stat.S_ISFIFO(os.lstat(path).st_mode) and os.listdir(tmp_path) == [path.name]


def test_a_device_node_behind_a_link_is_refused_and_kept(tmp_path):
    # Saving onto /dev/null itself as root replaced the device node with a regular file; a
    # link to it is followed and refused the same way, without risking the real node.
    link = tmp_path / "m.h5"
    os.symlink(os.devnull, link)
    with pytest.raises(OSError, match=r"/dev/null is a character device, not a regular"):
        small_model().save(link)
    assert os.path.islink(link) and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert os.listdir(tmp_path) == ["m.h5"]


def test_a_folder_at_the_target_is_refused(tmp_path):
    (tmp_path / "m.h5").mkdir()
    with pytest.raises(IsADirectoryError, match=r"m\.h5 is a folder; give a file name"):
        small_model().save(tmp_path / "m.h5")
    assert os.listdir(tmp_path / "m.h5") == []


def test_a_link_to_a_file_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.h5"
    model = small_model()
    model.save(real)
    os.symlink(real, tmp_path / "latest.h5")
    model.layers[0].kernel.set_value(np.full((3, 4), 0.5, np.float32))
    model.save(tmp_path / "latest.h5")
    assert os.path.islink(tmp_path / "latest.h5")
    assert np.all(pd.load_model(real).layers[0].kernel.val() == 0.5)


@pytest.mark.parametrize("kind", sorted(SAVES) + ["checkpoint"])
def test_a_missing_folder_is_an_error_naming_it_and_nothing_is_created(tmp_path, kind):
    folder = tmp_path / "no" / "such"
    if kind == "checkpoint":  # ModelCheckpoint creates its folder, as Keras's does
        model = small_model()
        model.fit(np.ones((4, 3), np.float32), np.ones((4, 4), np.float32), verbose=0,
                  callbacks=[pd.callbacks.ModelCheckpoint(str(folder / "m.h5"))])
        assert os.listdir(folder) == ["m.h5"]
        return
    with pytest.raises(FileNotFoundError, match=rf"the folder {folder} does not exist"):
        SAVES[kind](small_model(), folder / "m.h5")
    assert os.listdir(tmp_path) == []


def test_backup_and_restore_creates_its_folder(tmp_path):
    folder = tmp_path / "backup"
    model = small_model()
    seen = []

    class Watch(pd.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append(os.listdir(folder))
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 4), np.float32), epochs=2, verbose=0,
              callbacks=[pd.callbacks.BackupAndRestore(str(folder)), Watch()])
    assert seen == [["backup.h5"]] * 2


# ---- exports and plots are as durable as saves (issue 25, item 12) --------------------------

def test_exports_and_plots_fsync_the_file_and_the_folder(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(_atomic, "_fsync_file", lambda p: synced.append(("file", p)))
    monkeypatch.setattr(_atomic, "fsync_folder", lambda p: synced.append(("folder", p)))
    pytest.importorskip("pydot")
    pd.utils.plot_model(small_model(), to_file=tmp_path / "m.dot")
    assert [kind for kind, _ in synced] == ["file", "folder"]
    assert synced[0][1].endswith(".paddle-tmp") and synced[1][1] == str(tmp_path)
    assert os.listdir(tmp_path) == ["m.dot"]
    if importlib.util.find_spec("onnx") is not None:
        synced.clear()
        small_model().export(tmp_path / "m.onnx")
        assert [kind for kind, _ in synced] == ["file", "folder"]


def test_plots_and_exports_keep_permissions_and_refuse_fifos(tmp_path):
    pytest.importorskip("pydot")
    path = tmp_path / "m.dot"
    pd.utils.plot_model(small_model(), to_file=path)
    os.chmod(path, 0o600)
    pd.utils.plot_model(small_model(), to_file=path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    os.mkfifo(tmp_path / "p.dot")
    with pytest.raises(OSError, match=r"plot_model: .*p\.dot is a FIFO"):
        pd.utils.plot_model(small_model(), to_file=tmp_path / "p.dot")
