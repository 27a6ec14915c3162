#!/usr/bin/env python3
"""Per-call cost of the C API: `pd_model_predict` from a C program against
`model.predict_on_batch` from Python, on the same saved convnet (the digits example's) and
the same inputs, on one sample and on a batch of 1024 (best of several rounds of many
calls; the C program is compiled here with the system compiler).

    python benchmarks/capi.py [--rounds 5] [--calls 200]

(--calls is for one sample; a batch of 1024 gets a tenth of them.)

The C call embeds the same interpreter and runs the same predict_on_batch, so the
difference is the C layer: NumPy views over the caller's memory, the GIL and the call
lock, copying the outputs into library-owned memory.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import paddle as pd
import paddle.capi

HERE = os.path.dirname(os.path.abspath(__file__))
BATCHES = (1, 1024)


def calls_for(batch, calls):
    return calls if batch == 1 else max(calls // 10, 3)


def convnet():
    L = pd.layers
    return pd.Sequential([
        L.Input(shape=(8, 8, 1)),
        L.Conv2D(32, 3, padding="same", activation="relu"), L.MaxPooling2D(2),
        L.Conv2D(64, 3, padding="same", activation="relu"), L.MaxPooling2D(2),
        L.Flatten(), L.Dropout(0.3), L.Dense(10, activation="softmax"),
    ])


def python_times(path, x, rounds, calls):
    model = pd.load_model(path)
    out = {}
    for batch in BATCHES:
        xb = x[:batch]
        model.predict_on_batch(xb)
        best = float("inf")
        n = calls_for(batch, calls)
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(n):
                model.predict_on_batch(xb)
            best = min(best, (time.perf_counter() - t0) / n)
        out[batch] = best * 1e6
    return out


def c_times(folder, path, samples, rounds, calls):
    exe = os.path.join(folder, "capi_predict")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c99", "-O2", "-Wall", "-Wextra",
                    paddle.capi.cflags(), "-o", exe, os.path.join(HERE, "capi_predict.c"),
                    *paddle.capi.libs().split()], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([exe, path, samples, str(rounds)] +
                          [str(k) for b in BATCHES for k in (b, calls_for(b, calls))],
                          check=True, capture_output=True, text=True, env=env)
    return {int(b): float(t) for b, t in (line.split() for line in done.stdout.splitlines())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        pd.seed(0)
        model = convnet()
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        path = os.path.join(folder, "convnet.h5")
        model.save(path)
        x = np.random.default_rng(0).random((max(BATCHES), 8, 8, 1), dtype=np.float32)
        samples = os.path.join(folder, "x.f32")
        x.tofile(samples)
        py = python_times(path, x, args.rounds, args.calls)
        c = c_times(folder, path, samples, args.rounds, args.calls)
    threads = os.environ.get("OMP_NUM_THREADS", f"default ({os.cpu_count()} CPUs)")
    print(f"predict per call, best of {args.rounds} rounds, OMP_NUM_THREADS {threads}")
    for batch in BATCHES:
        print(f"batch {batch:5d}: Python predict_on_batch {py[batch]:9.1f} us | "
              f"C pd_model_predict {c[batch]:9.1f} us | C / Python {c[batch] / py[batch]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
