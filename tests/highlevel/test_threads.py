"""A model shared between threads (the contract in docs/security.md, "Threads"): every
plan run, `set_weights`, `get_weights`, `load_weights` and a save's snapshot hold one lock
(paddle/lowlevel/stored_state.py), so a predict computes with one complete set of weights
and a save taken while another thread fits holds the state before or after one step,
never a mix, and loads. Issue 25, items 5 and 13."""
import os
import sys
import threading

import numpy as np
import pytest

import paddle as pd


@pytest.fixture
def often_switching():
    """Threads switch every microsecond instead of every 5 ms: a torn read that needs a
    switch between two kernels of one run shows up in a few hundred runs."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def deep_model(seed):
    pd.seed(seed)
    return pd.Sequential([pd.Input(shape=(6,))] +
                         [pd.layers.Dense(6, activation="tanh") for _ in range(4)] +
                         [pd.layers.Dense(2)])


def in_threads(work, count):
    """Run work(k) in `count` threads; re-raise the first error."""
    errors = []

    def run(k):
        try:
            work(k)
        except BaseException as e:  # noqa: B902 (raised below)
            errors.append(e)
    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    return threads, errors


def test_predict_sees_the_old_or_the_new_weights_never_a_mix(often_switching):
    model = deep_model(1)
    old, new = model.get_weights(), deep_model(2).get_weights()
    x = np.random.default_rng(0).random((16, 6)).astype(np.float32)
    expected_old = model.predict_on_batch(x)
    model.set_weights(new)
    expected_new = model.predict_on_batch(x)
    model.set_weights(old)
    assert not np.array_equal(expected_old, expected_new)
    done = threading.Event()
    mixed, runs = [], []

    def predict(k):
        count = 0
        while not done.is_set() or count < 50:
            out = model.predict_on_batch(x)
            count += 1
            for row in range(len(x)):  # each sample and the batch as a whole
                if not (np.array_equal(out[row], expected_old[row]) or
                        np.array_equal(out[row], expected_new[row])):
                    mixed.append((k, count, row))
            if not (np.array_equal(out, expected_old) or np.array_equal(out, expected_new)):
                mixed.append((k, count, "batch"))
        runs.append(count)

    threads, errors = in_threads(predict, 8)
    for i in range(300):
        model.set_weights(new if i % 2 == 0 else old)
    done.set()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(runs) == 8 and not mixed, f"{len(mixed)} outputs matched neither: {mixed[:5]}"


@pytest.mark.parametrize("name", ["m.h5", "m.keras", "w.h5", "w.weights.h5"])
def test_saves_while_another_thread_fits_load_and_hold_the_state_of_one_step(
        tmp_path, often_switching, name):
    model = deep_model(3)
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(1)
    x = rng.random((64, 6)).astype(np.float32)
    y = rng.random((64, 2)).astype(np.float32)
    states = {0: model.get_weights()}  # optimizer step -> the weights after it

    class Record(pd.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            states[model.optimizer.iterations] = model.get_weights()

    threads, errors = in_threads(lambda _: model.fit(x, y, batch_size=4, epochs=40,
                                                     verbose=0, callbacks=[Record()]), 1)
    saved = []
    whole = name.startswith("m.")
    while threads[0].is_alive() and len(saved) < 25:
        path = tmp_path / f"{len(saved)}_{name}"
        model.save(path) if whole else model.save_weights(path)
        saved.append(path)
    threads[0].join()
    assert not errors, errors
    assert len(saved) >= 2
    probe = deep_model(4)
    probe.compile(optimizer="adam", loss="mse")
    for path in saved:
        if whole:
            loaded = pd.load_model(path)  # checksums verified
            step = loaded.optimizer.iterations
        else:
            probe.load_weights(path)
            loaded = probe
            step = probe.optimizer.iterations if name.endswith(".weights.h5") else None
        weights = loaded.get_weights()
        if step is None:  # a legacy weights file holds no step count: any step's weights
            assert any(all(np.array_equal(a, b) for a, b in zip(weights, state))
                       for state in states.values()), os.path.basename(path)
            continue
        for a, b in zip(weights, states[step]):
            np.testing.assert_array_equal(a, b, err_msg=f"{path.name}: step {step}")
