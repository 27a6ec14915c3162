"""Large kernels let go of the GIL while they compute (csrc/common.h, GilRelease): another
Python thread (a reader decoding the next batch) runs meanwhile, results are unchanged, and
threads running eager ops beside a fit neither crash nor mix up their buffers."""
import os
import sys
import threading
import time

import numpy as np
import pytest

import paddle as pd
from paddle import _C
from paddle.utils import directory_datasets
from paddle.highlevel.training.data.py_dataset import iterate


class Counter(threading.Thread):
    """Counts as fast as it can, handing the GIL over every 50 counts (time.sleep(0)): with
    a long switch interval, it only runs while the main thread does not hold the GIL."""

    def __init__(self):
        super().__init__(daemon=True)
        self.count, self.stop, self.started = 0, False, threading.Event()

    def run(self):
        self.started.set()
        while not self.stop:
            self.count += 1
            if self.count % 50 == 0:
                time.sleep(0)


@pytest.fixture
def counter():
    saved = sys.getswitchinterval()
    sys.setswitchinterval(0.5)  # no forced switches within a test's kernel call
    thread = Counter()
    thread.start()
    thread.started.wait()
    try:
        yield thread
    finally:
        thread.stop = True
        thread.join()
        sys.setswitchinterval(saved)


def _progress(counter, kernel):
    time.sleep(0.01)  # the counter is running
    before = counter.count
    kernel()
    return counter.count - before


def test_a_thread_progresses_during_a_large_matmul(counter):
    n = 768
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), np.float32), rng.standard_normal((n, n), np.float32)
    out = np.empty((n, n), np.float32)
    spec = np.array([1, n, n, n, 0, 0, 0, 0], np.int64)
    steps = [_progress(counter, lambda: _C.matmul(a, b, out, spec)) for _ in range(5)]
    assert max(steps) > 1000, steps
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-3)


def test_a_thread_progresses_during_a_large_elementwise_kernel(counter):
    # float64 tanh (the C library's, tens of ms here): long enough for the counter to be
    # scheduled even on a loaded machine.
    x = np.linspace(-3, 3, 1 << 22)
    y = np.empty_like(x)
    steps = [_progress(counter, lambda: _C.unary(10, x, y)) for _ in range(5)]  # tanh
    assert max(steps) > 1000, steps
    np.testing.assert_allclose(y, np.tanh(x), rtol=1e-15, atol=0)


def test_small_kernels_keep_the_gil(counter):
    # Retaking the GIL waits for whoever holds it: small kernels never let it go.
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    y = np.empty_like(x)
    before = counter.count
    for _ in range(200):
        _C.unary(10, x, y)
    assert counter.count == before


def test_errors_raised_with_the_gil_released_still_reach_python():
    x = np.ones(1 << 20, np.int32)
    with pytest.raises(ValueError, match="needs a float dtype"):
        _C.unary(12, x, np.empty_like(x))  # sin on integers: refused inside the dispatch


def test_eager_ops_in_threads_beside_a_fit():
    rng = np.random.default_rng(1)
    mats = [rng.standard_normal((160, 160)).astype(np.float32) for _ in range(4)]
    wanted = [np.tanh(m @ m) for m in mats]
    errors, rounds = [], 15

    def hammer(k):
        try:
            for i in range(rounds):
                m = mats[(k + i) % len(mats)]
                got = pd.ops.tanh(pd.ops.matmul(m, m)).numpy()  # same shapes: shared programs
                np.testing.assert_allclose(got, wanted[(k + i) % len(mats)], rtol=2e-4,
                                           atol=2e-4)
        except BaseException as e:  # noqa: BLE001 (reported by the main thread)
            errors.append(e)

    threads = [threading.Thread(target=hammer, args=(k,)) for k in range(3)]
    model = pd.Sequential([pd.layers.Input(shape=(64,)), pd.layers.Dense(256, activation="relu"),
                           pd.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    x = rng.standard_normal((2048, 64)).astype(np.float32)
    y = x[:, :1] * 2.0
    for t in threads:
        t.start()
    history = model.fit(x, y, batch_size=256, epochs=3, verbose=0)
    for t in threads:
        t.join()
    assert not errors, errors[0]
    losses = history.history["loss"]
    assert np.isfinite(losses).all() and losses[-1] < losses[0]


def test_directory_readers_read_ahead_with_a_core_to_spare(tmp_path, monkeypatch):
    assert directory_datasets.READ_AHEAD_WORKERS == max(1, min(2, (os.cpu_count() or 2) - 1))
    monkeypatch.setattr(directory_datasets, "READ_AHEAD_WORKERS", 2)  # as on 3 cores or more
    pil = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(2)
    for i in range(12):
        folder = tmp_path / f"c{i % 2}"
        folder.mkdir(exist_ok=True)
        pil.fromarray(rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)).save(folder / f"{i}.png")
    data = pd.utils.image_dataset_from_directory(str(tmp_path), image_size=(8, 8),
                                                 batch_size=4, seed=0, verbose=False)
    assert data.workers > 1
    model = pd.Sequential([pd.layers.Input(shape=(8, 8, 3)), pd.layers.Flatten(),
                           pd.layers.Dense(2)])
    model.compile(optimizer="sgd", loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(data, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    # Read ahead or not, the batches are the same, in the same order.
    data.on_epoch_end()
    ahead = list(iterate(data))
    inline = [data[i] for i in range(len(data))]
    for (xa, ya), (xi, yi) in zip(ahead, inline):
        np.testing.assert_array_equal(xa, xi)
        np.testing.assert_array_equal(ya, yi)
