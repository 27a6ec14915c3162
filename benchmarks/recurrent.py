#!/usr/bin/env python3
"""The LSTM and GRU kernels (csrc/nn/recurrent.cpp) alone, on the lstm workload's shapes:
CPU time of the forward and the backward, and their rate.

    OMP_NUM_THREADS=1 python benchmarks/recurrent.py
    OMP_NUM_THREADS=2 python benchmarks/recurrent.py --batch 64 --steps 100 --units 128

Each kernel is called through `paddle._C` directly (no plan), the best CPU time of
`--repeats` calls. CPU time, not wall time: it means something on a shared machine; run
old and new builds in turn (PYTHONPATH) to compare. Timings, not a test.
"""
import argparse
import resource
import sys

import numpy as np

from paddle import _C

LSTM, GRU = 0, 1


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        start = cpu_seconds()
        fn()
        times.append(cpu_seconds() - start)
    return min(times)


def kernels(kind, n, t, f, u, dtype):
    """(forward, backward) calls of one cell kind on random inputs."""
    g = 4 if kind == LSTM else 3
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((n, t, f)) * 0.5).astype(dtype)
    w = (rng.standard_normal((f, g * u)) * 0.1).astype(dtype)
    r = (rng.standard_normal((u, g * u)) * 0.1).astype(dtype)
    b = np.zeros(g * u if kind == LSTM else (2, g * u), dtype)
    none = np.empty(0, dtype)
    h0 = np.zeros((n, u), dtype)
    c0 = h0 if kind == LSTM else none
    hs = np.empty((n, t, u), dtype)
    cs = np.empty((n, t, u), dtype) if kind == LSTM else none
    gates = np.empty((n, t, 4 * u), dtype)
    dhs = rng.standard_normal((n, t, u)).astype(dtype)
    dcs = np.zeros((n, t, u), dtype) if kind == LSTM else none
    dx, dw, dr, db = np.empty_like(x), np.empty_like(w), np.empty_like(r), np.empty_like(b)
    dh0 = np.empty_like(h0)
    dc0 = np.empty_like(h0) if kind == LSTM else none

    def forward():
        _C.rnn_forward(kind, x, w, r, b, h0, c0, hs, cs, gates, none, none)

    def backward():
        _C.rnn_backward(kind, x, w, r, h0, c0, hs, cs, gates, dhs, dcs, dx, dw, dr, db, dh0,
                        dc0, none, none)
    forward()
    return forward, backward


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    n, t, f, u = args.batch, args.steps, args.features, args.units
    print(f"threads {_C.omp_threads()}, (N, T, F, U) = ({n}, {t}, {f}, {u}), {args.dtype}")
    for name, kind in (("lstm", LSTM), ("gru", GRU)):
        g = 4 if kind == LSTM else 3
        flops = 2 * n * t * (f + u) * g * u  # input and recurrent products; backward twice
        forward, backward = kernels(kind, n, t, f, u, args.dtype)
        for part, fn, fl in (("forward", forward, flops), ("backward", backward, 2 * flops)):
            seconds = best(fn, args.repeats)
            rate = fl / seconds / 1e9
            print(f"{name} {part:8s} {seconds * 1e3:8.2f} ms CPU  {rate:6.1f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
