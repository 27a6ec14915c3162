"""Saves are atomic (paddle/_atomic.py): model.save, save_weights, checkpoints and
Trainer.save_params write a unique temporary file, fsync it and rename it over the target.
Two saves at once (threads or processes) both succeed and leave a whole file; temporary
files of killed saves are cleaned up by the next save into their folder after a day."""
import os
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
