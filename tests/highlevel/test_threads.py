"""A model shared between threads: every plan run, `set_weights`, `get_weights` and
`load_weights` hold one lock (paddle/lowlevel/stored_state.py), so a predict computes with
one complete set of weights. Issue 25, item 13."""
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
