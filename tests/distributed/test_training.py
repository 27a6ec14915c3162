"""Data-parallel training in real 2-process MPI jobs, against one process:

(a) two ranks with batch 32 each take, step for step, the same updates as one process with
    batch 64 (low level, fit with shuffling, a custom train_step with two optimizers);
(b) fit with validation, EarlyStopping, ModelCheckpoint and CSVLogger: identical logs on
    both ranks, files written by rank 0 alone;
(c) the seeds' Trainer;
(d) a rank that raises ends the whole job at once, with that rank's message;
(e) the same scripts with one process;
and bad input: more ranks than samples, parameters that differ between ranks."""
import os
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LOWLEVEL = """
    import os, numpy as np, paddle as pd
    from paddle.lowlevel.optimizers import trainable_parameters
    pd.distributed.init()
    r, n = pd.distributed.rank(), pd.distributed.size()
    dtype = os.environ["DTYPE"]
    pd.seed(3 + 7 * r)          # other initial values on rank 1: rank 0's must win
    x = pd.data("x", [None, 6], dtype)
    y = pd.data("y", [None], "int64")
    with pd.namespace("net"):
        logits = pd.fc(pd.fc(x, 16, act="tanh"), 3)
    loss = pd.mean(pd.softmax_cross_entropy(logits, y))
    optimizer = {"adam": pd.optimizers.Adam(0.01),    # global_clipnorm: of the averaged
                 "clipped": pd.optimizers.SGD(0.1, momentum=0.9, global_clipnorm=0.05),
                 "clipvalue": pd.optimizers.RMSprop(0.01, clipvalue=0.01),
                 "decayed": pd.optimizers.SGD(0.1, momentum=0.9, weight_decay=0.05),
                 "plain": pd.optimizers.SGD(0.1),
                 }[os.environ["OPT"]]
    step = optimizer.minimize(loss)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(20 * 64, 6)).astype(dtype), rng.integers(0, 3, 20 * 64)
    per = 64 // n
    for k in range(20):                      # rank r: its half of global batch k
        lo = k * 64 + r * per
        pd.eval([loss, step], {x: X[lo:lo + per], y: Y[lo:lo + per]})
    saved = {v.name: v.val() for v in trainable_parameters(loss)}
    for v in trainable_parameters(loss):     # the optimizer's state too (what a checkpoint holds)
        saved.update({f"slot {v.name} {s}": a for s, a in optimizer.slots(v).items()})
    np.savez(f"lowlevel_{n}_{r}.npz", **saved)
    from paddle.distributed import sharding
    print(f"rank {r}: update split between the ranks: {any(sharding._SHARDS.values())}",
          flush=True)
"""

FIT = """
    import numpy as np, paddle as pd
    pd.distributed.init()
    r, n = pd.distributed.rank(), pd.distributed.size()
    pd.seed(5 + 11 * r)    # rank 0 draws the shuffled order, as one process with seed 5

    class TwoHalves(pd.Model):
        def __init__(self):
            super().__init__()
            self.a = pd.layers.Dense(8, activation="tanh")
            self.b = pd.layers.Dense(3)
            self.opt_b = pd.optimizers.SGD(0.05, momentum=0.9)

        def call(self, x, training=False):
            return self.b(self.a(x))

        def train_step(self, data):
            x, y = data
            loss = pd.mean(pd.softmax_cross_entropy(self(x, training=True), y))
            self.optimizer.minimize(loss, var_list=self.a.trainable_weights)
            self.opt_b.minimize(loss, var_list=self.b.trainable_weights)
            return {"loss": loss}

    rng = np.random.default_rng(1)
    X = rng.normal(size=(20 * 64, 6)).astype(np.float32)
    Y = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.3)
    seq = pd.Sequential([pd.layers.Input(shape=(6,)), pd.layers.Dense(16, activation="relu"),
                         pd.layers.Dense(3)])
    seq.compile(optimizer=pd.optimizers.Adam(0.01),
                loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=["accuracy"])
    h1 = seq.fit(X, Y, batch_size=64 // n, epochs=1, shuffle=True, verbose=0)
    two = TwoHalves()
    two.compile(optimizer=pd.optimizers.Adam(0.01))
    h2 = two.fit(X, Y, batch_size=64 // n, epochs=1, shuffle=True, verbose=0)
    weights = {f"seq_{i}": w for i, w in enumerate(seq.get_weights())}
    weights.update({f"two_{i}": w for i, w in enumerate(two.get_weights())})
    np.savez(f"fit_{n}_{r}.npz", **weights)
    with open(f"fit_{n}_{r}.txt", "w") as f:   # (files: the ranks' stdout interleaves)
        f.write(f"steps {two.optimizer.iterations} {two.opt_b.iterations} "
                f"loss {h1.history['loss'][0]:.6f} {h2.history['loss'][0]:.6f}")
"""


def _max_difference(a, b):
    assert sorted(a.files) == sorted(b.files)
    return max(float(np.max(np.abs(a[k] - b[k]))) for k in a.files)


def _two_ranks_against_one(mpirun, tmp_path, script, env, tolerance, timeout=None):
    """Runs `script` on 2 ranks and alone; checks that the ranks end identical and close
    to the one process; returns both runs."""
    timeout = {} if timeout is None else {"timeout": timeout}
    done = mpirun(script, env=env, **timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    one = mpirun(script, env=env, plain=True, **timeout)
    assert one.returncode == 0, one.stdout + one.stderr
    r0, r1 = (np.load(tmp_path / f"lowlevel_2_{r}.npz") for r in (0, 1))
    alone = np.load(tmp_path / "lowlevel_1_0.npz")
    assert _max_difference(r0, r1) == 0.0          # the ranks never drift apart
    assert _max_difference(r0, alone) < tolerance
    return done, one


@pytest.mark.parametrize("dtype, tolerance, optimizer", [
    ("float64", 1e-10, "adam"), ("float32", 1e-5, "adam"), ("float64", 1e-10, "clipped"),
    ("float64", 1e-10, "clipvalue"), ("float64", 1e-10, "decayed"), ("float64", 1e-10, "plain")])
def test_a_two_ranks_match_one_process_low_level(mpirun, tmp_path, dtype, tolerance,
                                                 optimizer):
    """Parameters and the optimizer's slots. Without clipping, each rank updates its share
    of the variables (paddle/distributed/sharding.py): both ranks' slots must still be
    whole and current. Plain SGD has no slots to split: its update runs whole."""
    done, _ = _two_ranks_against_one(mpirun, tmp_path, LOWLEVEL,
                                     {"DTYPE": dtype, "OPT": optimizer}, tolerance)
    split = optimizer in ("adam", "decayed")
    for r in (0, 1):
        assert f"rank {r}: update split between the ranks: {split}" in done.stdout
    start = np.load(tmp_path / "lowlevel_1_0.npz")  # (and training moved them)
    slots = [k for k in start.files if k.startswith("slot ")]
    assert len(slots) == {"adam": 8, "plain": 0}.get(optimizer, 4)
    assert not slots or any(np.abs(start[k]).sum() > 0 for k in slots)
    assert any(np.abs(start[k]).sum() > 0 for k in start.files if k not in slots)


# The same script on GPUs, each rank on its own (`pd.set_device("gpu")`: gpu:<local_rank>).
GPU_PER_RANK = """
    import paddle
    paddle.distributed.init()
    paddle.set_device("gpu")
    print(f"rank {paddle.distributed.rank()} trains on {paddle.get_device()}", flush=True)
""" + LOWLEVEL

# On the CUDA backend simulated on NumPy (CI has no GPU): the GPU update kernel averages
# its gradients and places them in the averaging buffer, and the device copies of the
# parameters take rank 0's values (the NCCL run is the `gpu` test below).
SIMULATED_GPU = """
    from paddle.devices import cuda
    simulation = cuda.simulated(devices=2)  # (kept: the block ends when it is collected)
    simulation.__enter__()
""" + GPU_PER_RANK


@pytest.mark.parametrize("dtype, tolerance, optimizer", [
    ("float64", 1e-10, "adam"), ("float32", 1e-5, "clipped")])
def test_a_on_the_simulated_gpu_two_ranks_match_one_process(mpirun, tmp_path, dtype,
                                                            tolerance, optimizer):
    done, one = _two_ranks_against_one(mpirun, tmp_path, SIMULATED_GPU,
                                       {"DTYPE": dtype, "OPT": optimizer}, tolerance)
    assert "rank 0 trains on gpu:0" in done.stdout and "rank 1 trains on gpu:1" in done.stdout
    assert "rank 0 trains on gpu:0" in one.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, tolerance, optimizer", [
    ("float64", 1e-10, "adam"), ("float32", 1e-5, "clipped")])
def test_a_on_two_gpus_over_nccl_match_one_process(mpirun, tmp_path, dtype, tolerance,
                                                   optimizer):
    """The same check on real GPUs: the gradients averaged over NCCL, one GPU per rank."""
    import cupy
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("two ranks over NCCL need two GPUs; this machine has fewer")
    done, _ = _two_ranks_against_one(mpirun, tmp_path, GPU_PER_RANK,
                                     {"DTYPE": dtype, "OPT": optimizer}, tolerance,
                                     timeout=300)
    assert "rank 0 trains on gpu:0" in done.stdout and "rank 1 trains on gpu:1" in done.stdout


ONE_GPU_TWO_RANKS = """
    import paddle as pd
    from paddle.devices import cuda
    pd.distributed.init()
    with cuda.simulated(devices=1):
        pd.set_device("gpu:0")                 # an explicit index is kept
        print(f"rank {pd.distributed.rank()}: {pd.get_device()}", flush=True)
        try:
            pd.set_device("gpu")
            print(f"rank {pd.distributed.rank()}: gpu is {pd.get_device()}", flush=True)
        except RuntimeError as e:
            print(f"rank {pd.distributed.rank()}: {e}", flush=True)
"""


def test_gpu_means_the_local_ranks_gpu(mpirun):
    done = mpirun(ONE_GPU_TWO_RANKS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0: gpu:0" in done.stdout and "rank 1: gpu:0" in done.stdout
    assert "rank 0: gpu is gpu:0" in done.stdout
    assert "rank 1: device \"gpu = gpu:1, this rank's local rank\": expected a GPU index " \
        "below 1 (the simulated devices), received 1" in done.stdout, done.stdout


def test_a_fit_and_two_optimizers_match_one_process(mpirun, tmp_path):
    done = mpirun(FIT)
    assert done.returncode == 0, done.stdout + done.stderr
    one = mpirun(FIT, plain=True)
    assert one.returncode == 0, one.stdout + one.stderr
    lines = [(tmp_path / f"fit_2_{r}.txt").read_text() for r in (0, 1)]
    alone_line = (tmp_path / "fit_1_0.txt").read_text()
    assert lines[0] == lines[1]
    assert lines[0].startswith("steps 20 20")        # 1280 samples / (32 x 2 ranks)
    assert alone_line.startswith("steps 20 20")
    r0, r1 = (np.load(tmp_path / f"fit_2_{r}.npz") for r in (0, 1))
    alone = np.load(tmp_path / "fit_1_0.npz")
    assert _max_difference(r0, r1) == 0.0
    assert _max_difference(r0, alone) < 1e-5
    # the averaged losses of the epoch are those of one process over the same batches
    for k in (-2, -1):
        assert abs(float(lines[0].split()[k]) - float(alone_line.split()[k])) < 1e-5


CALLBACKS = """
    import json, os, numpy as np, paddle as pd
    from paddle.highlevel.saving import formats
    pd.distributed.init()
    r, n = pd.distributed.rank(), pd.distributed.size()
    real_save = formats.SAVING["save_model"]
    def save_model(model, path, *args, **kwargs):
        print(f"rank {r} writes {os.path.basename(path)}", flush=True)
        real_save(model, path, *args, **kwargs)
    formats.SAVING["save_model"] = save_model
    pd.seed(0)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(301, 5)).astype(np.float32)
    Y = (X @ rng.normal(size=(5, 1))).astype(np.float32)
    model = pd.Sequential([pd.layers.Input(shape=(5,)), pd.layers.Dense(8, activation="relu"),
                           pd.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    stop = pd.callbacks.EarlyStopping(monitor="val_loss", patience=1, min_delta=100.0)
    ckpt = pd.callbacks.ModelCheckpoint("best.h5", monitor="val_loss", save_best_only=True)
    csv = pd.callbacks.CSVLogger("log.csv")
    history = model.fit(X, Y, batch_size=16, epochs=10, validation_split=0.2,
                        callbacks=[stop, ckpt, csv], verbose=2)
    with open(f"history_{r}.json", "w") as f:
        json.dump({"history": history.history, "epochs": history.epoch,
                   "stopped": stop.stopped_epoch}, f)
"""


def test_b_fit_with_callbacks_one_voice(mpirun, tmp_path):
    done = mpirun(CALLBACKS)
    assert done.returncode == 0, done.stdout + done.stderr
    import json
    h0, h1 = (json.loads((tmp_path / f"history_{r}.json").read_text()) for r in (0, 1))
    assert h0 == h1                                   # identical logs on both ranks
    assert h0["epochs"] == [0, 1] and h0["stopped"] == 1  # EarlyStopping, alike on both
    assert set(h0["history"]) == {"loss", "mae", "val_loss", "val_mae"}
    assert done.stdout.count("rank 0 writes best.h5") == 2   # val_loss improved twice
    assert "rank 1 writes" not in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".json")) == \
        ["best.h5", "job.py", "log.csv"]
    rows = (tmp_path / "log.csv").read_text().splitlines()
    assert rows[0] == "epoch,loss,mae,val_loss,val_mae" and len(rows) == 3
    assert float(rows[1].split(",")[3]) == pytest.approx(h0["history"]["val_loss"][0])
    # progress from rank 0 alone: one line per epoch
    assert done.stdout.count("Epoch 1/10 - ") == 1 and done.stdout.count("Epoch 2/10 - ") == 1
    assert "Epoch 1/10 - 8/8 - " in done.stdout      # 240 samples: 120 per rank, 16 a batch


def test_b_validation_is_averaged_over_all_samples(mpirun, tmp_path):
    """The validation results of 2 ranks are those of one process on all the samples."""
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        pd.seed(0)
        rng = np.random.default_rng(2)
        X = rng.normal(size=(64, 5)).astype(np.float32)
        Y = rng.normal(size=(64, 1)).astype(np.float32)
        vx, vy = rng.normal(size=(13, 5)).astype(np.float32), rng.normal(size=(13, 1)).astype(np.float32)
        model = pd.Sequential([pd.layers.Input(shape=(5,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
        h = model.fit(X, Y, batch_size=8, epochs=1, validation_data=(vx, vy), verbose=0)
        full = model.evaluate(vx, vy, batch_size=4, verbose=0, return_dict=True)
        assert abs(h.history["val_loss"][0] - full["loss"]) < 1e-6, (h.history, full)
        assert abs(h.history["val_mae"][0] - full["mae"]) < 1e-6, (h.history, full)
        print(f"rank {pd.distributed.rank()} ok", flush=True)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("ok") == 2


TRAINER = """
    import numpy as np, paddle as pd
    pd.distributed.init()
    r, n = pd.distributed.rank(), pd.distributed.size()
    pd.seed(4)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(160, 4)).astype(np.float32)
    Y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    samples = list(zip(X, Y))
    reader = pd.reader.batch(lambda: iter(samples), 20)      # 8 batches

    def train_program():
        x = pd.data("x", shape=[None, 4])
        y = pd.data("y", shape=[None], dtype="int64")
        probs = pd.fc(pd.fc(x, 16, act="relu"), 2, act="softmax")
        return [pd.mean(pd.cross_entropy(probs, y)), pd.accuracy(probs, y)]

    trainer = pd.Trainer(train_program, lambda: pd.optimizers.Adam(0.02))
    seen = []
    def handler(event):
        if isinstance(event, pd.EndStepEvent):
            seen.append((event.epoch, event.step, [round(m, 10) for m in event.metrics]))
    trainer.train(3, handler, reader, feed_order=["x", "y"])
    trainer.save_params("params")
    loss, acc = trainer.test(reader, feed_order=["x", "y"])
    with open(f"trainer_{r}.txt", "w") as f:   # (files: the ranks' stdout interleaves)
        f.write(f"steps {[s[:2] for s in seen]}\\n")
        f.write(f"metrics {[s[2] for s in seen]}\\n")
        f.write(f"test {loss:.8f} {acc:.4f}\\n")
"""


def test_c_trainer_on_two_ranks(mpirun, tmp_path):
    done = mpirun(TRAINER)
    assert done.returncode == 0, done.stdout + done.stderr
    steps = [(e, s) for e in range(3) for s in range(4)]     # 8 batches, 4 per rank
    r0, r1 = ((tmp_path / f"trainer_{r}.txt").read_text().splitlines() for r in (0, 1))
    assert r0[0] == r1[0] == f"steps {steps}"
    assert r0[1] == r1[1]                                   # events agree on both ranks
    assert r0[2] == r1[2]                                   # so do the parameters
    assert float(r0[2].split()[2]) > 0.8                    # and it learned
    assert os.listdir(tmp_path / "params") == ["params.h5"]


def test_d_a_rank_that_raises_ends_the_job(mpirun):
    start = time.monotonic()
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        class Fail(pd.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                if pd.distributed.rank() == 1 and epoch == 1:
                    raise RuntimeError("callback of rank 1 failed at epoch 1")
        X = np.ones((64, 3), np.float32); Y = np.ones((64, 1), np.float32)
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(X, Y, batch_size=8, epochs=1000, callbacks=[Fail()], verbose=0)
    """, timeout=60)
    elapsed = time.monotonic() - start
    assert done.returncode != 0
    assert "RuntimeError: callback of rank 1 failed at epoch 1" in done.stderr
    assert "rank 1 of 2 raised RuntimeError" in done.stderr
    assert elapsed < 30, f"the job took {elapsed:.1f} s to end"


@pytest.mark.parametrize("launch", ["mpiexec -n 1", "python"])
def test_e_the_same_scripts_with_one_process(mpirun, tmp_path, launch):
    import json
    done = mpirun(CALLBACKS, n=1, plain=launch == "python")
    assert done.returncode == 0, done.stdout + done.stderr
    h = json.loads((tmp_path / "history_0.json").read_text())
    assert h["epochs"] == [0, 1] and h["stopped"] == 1
    assert "Epoch 1/10 - 15/15 - " in done.stdout            # 240 samples, 16 a batch
    assert done.stdout.count("rank 0 writes best.h5") == 2
    done = mpirun(TRAINER, n=1, plain=launch == "python")
    assert done.returncode == 0, done.stdout + done.stderr
    steps = [(e, s) for e in range(3) for s in range(8)]     # all 8 batches
    assert (tmp_path / "trainer_0.txt").read_text().splitlines()[0] == f"steps {steps}"


def test_more_ranks_than_samples_raise_on_every_rank(mpirun):
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        try:
            model.fit(np.ones((1, 3), np.float32), np.ones((1, 1), np.float32), verbose=0)
        except ValueError as e:
            print(f"rank {pd.distributed.rank()}: {e}", flush=True)
        reader = pd.reader.batch(lambda: iter([(np.ones(3, np.float32),
                                                np.ones(1, np.float32))]), 4)
        try:
            model.fit(reader, verbose=0)
        except ValueError as e:
            print(f"rank {pd.distributed.rank()}: {e}", flush=True)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in (0, 1):
        assert f"rank {r}: fit: 1 sample(s) cannot be shared among 2 ranks" in done.stdout
        assert f"rank {r}: fit: the data yielded 1 item(s) for 2 ranks" in done.stdout


def test_different_data_or_parameters_on_ranks_raise_on_every_rank(mpirun):
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        r = pd.distributed.rank()
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        try:
            model.fit(np.ones((10 + r, 3), np.float32), np.ones((10 + r, 1), np.float32),
                      verbose=0)
        except pd.distributed.DistributedError as e:
            print(f"rank {r}: {e}", flush=True)
        other = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2 + r),
                               pd.layers.Dense(1)])
        other.compile(optimizer="sgd", loss="mse")
        try:
            other.fit(np.ones((10, 3), np.float32), np.ones((10, 1), np.float32), verbose=0)
        except pd.distributed.DistributedError as e:
            print(f"rank {r}: {e}", flush=True)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in (0, 1):
        assert f"rank {r}: fit: the number of samples on each rank: the ranks disagree: " \
               "rank 0 has 10 samples, rank 1 has 11 samples" in done.stdout
        assert f"rank {r}: the first step of training" in done.stdout
        assert "rank 0 has (3, 2) float32, rank 1 has (3, 3) float32" in done.stdout


def test_ranks_agree_on_the_epoch_before_the_first_step(mpirun):
    # A batch_size or steps_per_epoch of its own on one rank made the ranks run different
    # step counts, and the job ended only at the collective timeout (issue 25, item 10).
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        r = pd.distributed.rank()
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        x, y = np.ones((40, 3), np.float32), np.ones((40, 1), np.float32)
        batches = [(x[:4], y[:4])] * 10
        for kwargs in ({"x": x, "y": y, "batch_size": 4 + r},
                       {"x": x, "y": y, "batch_size": 4, "steps_per_epoch": 2 + r},
                       {"x": x, "y": y} if r == 0 else {"x": batches}):
            try:
                model.fit(**kwargs, verbose=0)
            except pd.distributed.DistributedError as e:
                print(f"rank {r}: {type(e).__name__}: {e}", flush=True)
        print(f"rank {r}: steps {model.optimizer.iterations}", flush=True)
    """, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in (0, 1):
        assert f"rank {r}: DistributedError: fit: the batch size (every rank trains on " \
               "batch_size samples a step) on each rank: the ranks disagree: rank 0 has " \
               "batch_size=4, rank 1 has batch_size=5" in done.stdout, done.stdout
        assert f"rank {r}: DistributedError: fit: the steps per epoch on each rank: the " \
               "ranks disagree: rank 0 has 2 steps, rank 1 has 3 steps" in done.stdout
        assert f"rank {r}: DistributedError: fit: the kind of training data on each rank: " \
               "the ranks disagree: rank 0 has arrays, rank 1 has a reader or an iterable " \
               "of batches" in done.stdout
        assert f"rank {r}: steps 0" in done.stdout  # no step ran anywhere


@pytest.mark.slow
@pytest.mark.parametrize("how", ["init", "environment"])
def test_a_rank_that_never_calls_fit_is_named_within_the_first_step_timeout(mpirun, how):
    done = mpirun(f"""
        import time, numpy as np, paddle as pd
        pd.distributed.init({"first_step_timeout=1.5" if how == "init" else ""})
        if pd.distributed.rank() == 1:
            time.sleep(100)   # never calls fit: rank 0 must not wait 5 minutes for it
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(np.ones((8, 3), np.float32), np.ones((8, 1), np.float32), verbose=0)
    """, timeout=60, env={"PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT": "1.5"} if how != "init"
        else None)
    assert done.returncode != 0
    assert "CollectiveTimeout: fit: the ranks agreeing on the steps of an epoch: rank 0 of " \
           "2 waited 1.5 s for rank 1, which did not arrive (here: rank 0)" in done.stderr, \
        done.stdout + done.stderr


def test_distributed_mnist_example(mpirun, tmp_path):
    script = os.path.join(ROOT, "examples", "distributed_mnist.py")
    if not os.path.exists(script):  # tests run against the installed package, not the tree
        pytest.skip("examples/ is not beside the tests")
    pytest.importorskip("sklearn")
    with open(script) as f:
        source = f.read()
    # The example imports the model and the data loading of examples/digits_convnet.py.
    path = os.pathsep.join([os.path.dirname(script), os.environ.get("PYTHONPATH", "")])
    done = mpirun(source, n=2, timeout=300,
                  env={"CHECKPOINT_DIR": str(tmp_path), "PYTHONPATH": path})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("test accuracy") == 1      # rank 0 alone prints
    assert (tmp_path / "digits_best.h5").exists()


def test_pydataset_and_iterables_are_sharded(mpirun, tmp_path):
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        r = pd.distributed.rank()
        read = []
        class Batches(pd.utils.PyDataset):
            def __len__(self):
                return 5
            def __getitem__(self, i):
                read.append(i)
                return np.full((4, 3), i, np.float32), np.full((4, 1), i, np.float32)
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        seen = []
        record = pd.callbacks.LambdaCallback(
            on_train_batch_end=lambda batch, logs: seen.append(batch))
        model.fit(Batches(), epochs=2, verbose=0, callbacks=[record])
        batches = [(np.full((2, 3), i, np.float32), np.full((2, 1), i, np.float32))
                   for i in range(7)]
        shown = []
        spy = pd.callbacks.LambdaCallback(
            on_train_batch_begin=lambda batch, logs: shown.append(batch))
        model.fit(batches, epochs=1, verbose=0, callbacks=[spy])
        with open(f"read_{r}.txt", "w") as f:
            f.write(f"{read} {seen} {shown}")
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    r0, r1 = ((tmp_path / f"read_{r}.txt").read_text() for r in (0, 1))
    assert r0 == "[0, 2, 0, 2] [0, 1, 0, 1] [0, 1, 2]"   # batch 4: an incomplete round
    assert r1 == "[1, 3, 1, 3] [0, 1, 0, 1] [0, 1, 2]"   # 7 batches: 3 rounds of 2


def test_backup_and_restore_resumes_every_rank_from_rank_0s_file(mpirun, tmp_path):
    script = """
        import os, numpy as np, paddle as pd
        pd.distributed.init()
        r = pd.distributed.rank()
        pd.seed(0)
        rng = np.random.default_rng(4)
        X = rng.normal(size=(64, 3)).astype(np.float32)
        Y = X.sum(axis=1, keepdims=True).astype(np.float32)
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        class Crash(pd.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                if os.environ.get("CRASH") and r == 0 and epoch == 1:
                    raise RuntimeError("rank 0 crashed after its backup of epoch 2")
        h = model.fit(X, Y, batch_size=8, epochs=4, verbose=0,
                      callbacks=[pd.callbacks.BackupAndRestore("backup"), Crash()])
        with open(f"resumed_{r}.txt", "w") as f:
            f.write(f"{h.epoch} {[round(v, 12) for v in h.history['loss']]} "
                    f"{model.get_weights()[0].ravel().tolist()}")
    """
    crashed = mpirun(script, env={"CRASH": "1"})
    assert crashed.returncode != 0
    assert "rank 0 crashed after its backup of epoch 2" in crashed.stderr
    assert (tmp_path / "backup" / "backup.h5").exists()
    done = mpirun(script)
    assert done.returncode == 0, done.stdout + done.stderr
    r0, r1 = ((tmp_path / f"resumed_{r}.txt").read_text() for r in (0, 1))
    assert r0 == r1 and r0.startswith("[2, 3] ")        # both resumed after epoch 2
    assert not (tmp_path / "backup").exists()            # deleted by rank 0 at the end
