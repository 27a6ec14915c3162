#!/usr/bin/env python3
"""Per-call cost of the C API: `pd_model_predict` against `model.predict_on_batch` from
Python, on the same saved convnet (the digits example's) and the same inputs, on one
sample and on a batch of 1024. Every call is timed; the fastest and the median call are
reported (the fastest is what a call costs when the machine lets it run).

    python benchmarks/capi.py [--calls 1000]

(--calls is for one sample; a batch of 1024 gets a twentieth of them.) Two measurements:

- in one process, calls alternating: Python's predict_on_batch, then pd_model_predict
  called through ctypes on libpaddle_c loaded into the same interpreter (ctypes adds about
  a microsecond to the C side). Alternating keeps a busy machine's drift out of the ratio;
- from a C program (benchmarks/capi_predict.c, compiled here with the system compiler),
  which starts its own embedded interpreter: the real caller, timed after the Python side
  in another process, so its ratio moves with the machine's load.

The C call runs the same predict_on_batch, so the difference is the C layer: NumPy views
over the caller's memory, the GIL and the call lock, the C API's checks, copying outputs
into library-owned memory.
"""
import argparse
import ctypes
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
    return calls if batch == 1 else max(calls // 20, 5)


def convnet():
    L = pd.layers
    return pd.Sequential([
        L.Input(shape=(8, 8, 1)),
        L.Conv2D(32, 3, padding="same", activation="relu"), L.MaxPooling2D(2),
        L.Conv2D(64, 3, padding="same", activation="relu"), L.MaxPooling2D(2),
        L.Flatten(), L.Dropout(0.3), L.Dense(10, activation="softmax"),
    ])


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int32), ("msg", ctypes.c_char_p)]


class _Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 8), ("data", ctypes.c_void_p)]


def _summary(seconds):
    """(fastest, median) in microseconds."""
    return float(np.min(seconds)) * 1e6, float(np.median(seconds)) * 1e6


def in_process_times(path, x, calls):
    """{batch: {"python": (fastest, median), "c": ...}} in us, calls alternating."""
    lib = ctypes.CDLL(paddle.capi.library_path())
    lib.pd_model_load.restype = lib.pd_model_predict.restype = _Error
    handle = ctypes.c_void_p()
    error = lib.pd_model_load(path.encode(), ctypes.byref(handle))
    if error.code:
        raise RuntimeError(error.msg.decode())
    model = pd.load_model(path)
    out = {}
    for batch in BATCHES:
        xb = np.ascontiguousarray(x[:batch])
        given = _Tensor(0, 4, (ctypes.c_int64 * 8)(*xb.shape), xb.ctypes.data)
        result = _Tensor()

        def c_call():
            error = lib.pd_model_predict(handle, ctypes.byref(given), 1, ctypes.byref(result), 1)
            if error.code:
                raise RuntimeError(error.msg.decode())
            lib.pd_tensor_free(ctypes.byref(result))

        for f in (lambda: model.predict_on_batch(xb), c_call):
            f()  # warm-up: the first call builds the plan
        times = {"python": [], "c": []}
        for _ in range(calls_for(batch, calls)):
            for name, f in (("python", lambda: model.predict_on_batch(xb)), ("c", c_call)):
                t0 = time.perf_counter()
                f()
                times[name].append(time.perf_counter() - t0)
        out[batch] = {name: _summary(t) for name, t in times.items()}
    lib.pd_model_free(handle)
    return out


def c_times(folder, path, samples, calls):
    """{batch: (fastest, median)} in us, from benchmarks/capi_predict.c."""
    exe = os.path.join(folder, "capi_predict")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c99", "-O2", "-Wall", "-Wextra",
                    paddle.capi.cflags(), "-o", exe, os.path.join(HERE, "capi_predict.c"),
                    *paddle.capi.libs().split()], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([exe, path, samples] +
                          [str(k) for b in BATCHES for k in (b, calls_for(b, calls))],
                          check=True, capture_output=True, text=True, env=env)
    return {int(b): (float(fast), float(median))
            for b, fast, median in (line.split() for line in done.stdout.splitlines())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
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
        both = in_process_times(path, x, args.calls)
        c = c_times(folder, path, samples, args.calls)
    threads = os.environ.get("OMP_NUM_THREADS", f"default ({os.cpu_count()} CPUs)")
    print(f"us per predict call, fastest / median, OMP_NUM_THREADS {threads}")
    for batch in BATCHES:
        (py, py_median), (cc, cc_median) = both[batch]["python"], both[batch]["c"]
        (prog, prog_median) = c[batch]
        print(f"batch {batch:4d}: Python predict_on_batch {py:8.1f} / {py_median:8.1f} | "
              f"pd_model_predict through ctypes {cc:8.1f} / {cc_median:8.1f} "
              f"({cc / py:.2f}x / {cc_median / py_median:.2f}x) | from a C program "
              f"{prog:8.1f} / {prog_median:8.1f} ({prog / py:.2f}x)")


if __name__ == "__main__":
    sys.exit(main())
