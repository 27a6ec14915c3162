#!/usr/bin/env python3
"""What `fit` adds per batch beyond `train_on_batch`, what `train_on_batch` adds beyond
running its compiled plan, and the latency of `predict_on_batch` on one sample, on the
spec's MLP (best of several rounds).

    python benchmarks/fit_overhead.py
"""
import time

import numpy as np

import paddle as pd

ROUNDS, BATCHES = 5, 64


def model():
    L = pd.layers
    m = pd.Sequential([L.Input(shape=(784,)), L.Dense(512, activation="relu"),
                       L.Dense(512, activation="relu"), L.Dense(10)])
    m.compile(optimizer=pd.optimizers.Adam(1e-3), metrics=["accuracy"],
              loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    return m


def best(f):
    times = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times) / BATCHES * 1e6


def main():
    rng = np.random.default_rng(0)
    for batch in (32, 128):
        m = model()
        x = rng.standard_normal((batch * BATCHES, 784), dtype=np.float32)
        y = rng.integers(0, 10, batch * BATCHES)
        xs = [x[i * batch:(i + 1) * batch] for i in range(BATCHES)]
        ys = [y[i * batch:(i + 1) * batch] for i in range(BATCHES)]
        m.fit(x, y, batch_size=batch, epochs=1, verbose=0)
        step, _ = m._step("train", [xs[0]], [ys[0]])
        ones = np.ones(batch, np.float32)

        def plan():
            for a, b in zip(xs, ys):
                step.plan.run(dict(zip(step.feeds, [a, b, ones])))

        def on_batch():
            for a, b in zip(xs, ys):
                m.train_on_batch(a, b)

        def fit(shuffle):
            return lambda: m.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=shuffle)

        t_plan, t_tob = best(plan), best(on_batch)
        t_fit, t_fit_shuffled = best(fit(False)), best(fit(True))
        print(f"batch {batch:3d}: plan.run {t_plan:7.0f} us | train_on_batch {t_tob:7.0f} us "
              f"(+{t_tob - t_plan:.0f}) | fit {t_fit:7.0f} us/batch (+{t_fit - t_tob:.0f}) | "
              f"fit shuffled {t_fit_shuffled:7.0f} us/batch (+{t_fit_shuffled - t_tob:.0f})")
    m = model()
    one = rng.standard_normal((1, 784), dtype=np.float32)
    m.predict_on_batch(one)
    print(f"predict_on_batch, one sample: {best(lambda: [m.predict_on_batch(one) for _ in range(BATCHES)]):.0f} us")


if __name__ == "__main__":
    main()
