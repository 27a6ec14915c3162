#!/usr/bin/env python3
"""The LSTM and GRU kernels (csrc/nn/recurrent.cpp) alone, on the lstm workload's shapes:
CPU time of the forward and the backward, and their rate.

    OMP_NUM_THREADS=1 python benchmarks/recurrent.py
    OMP_NUM_THREADS=2 python benchmarks/recurrent.py --batch 64 --steps 100 --units 128

Each kernel is called through `paddle._C` directly (no plan), the best CPU time of
`--repeats` calls. CPU time, not wall time: it means something on a shared machine; run
old and new builds in turn (PYTHONPATH) to compare, or, steadier under a changing load,
both in one process with their calls alternating:

    cp paddle/_C.cpython-311-x86_64-linux-gnu.so /tmp/old_C.so    # before rebuilding
    OMP_NUM_THREADS=2 python benchmarks/recurrent.py --against /tmp/old_C.so

Timings, not a test.
"""
import argparse
import importlib.machinery
import importlib.util
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


def load_build(path):
    """Another build of paddle._C (a copy of its .so file), as a module of its own."""
    loader = importlib.machinery.ExtensionFileLoader("other._C", path)
    spec = importlib.util.spec_from_file_location("other._C", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def kernels(kind, n, t, f, u, dtype, libs=(_C,)):
    """(forward, backward) calls of one cell kind on random inputs, through paddle._C, or
    one pair per build in `libs`, all on the same arrays (their alignment matters: the
    rows of a step lie T rows apart)."""
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

    def calls(lib):
        def forward():
            lib.rnn_forward(kind, x, w, r, b, h0, c0, hs, cs, gates, none, none)

        def backward():
            lib.rnn_backward(kind, x, w, r, h0, c0, hs, cs, gates, dhs, dcs, dx, dw, dr, db,
                             dh0, dc0, none, none)
        return forward, backward
    pairs = [calls(lib) for lib in libs]
    pairs[0][0]()
    return pairs[0] if len(pairs) == 1 else pairs


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--against", help="another build's _C .so: both timed, alternating")
    args = parser.parse_args(argv)
    if args.against:
        return against(args, load_build(args.against))
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


def against(args, other):
    """This build and `other` on the same inputs, their calls alternating, best of each."""
    n, t, f, u = args.batch, args.steps, args.features, args.units
    print(f"threads {_C.omp_threads()}, (N, T, F, U) = ({n}, {t}, {f}, {u}), {args.dtype}; "
          f"this build against {args.against}")
    for name, kind in (("lstm", LSTM), ("gru", GRU)):
        builds = dict(zip(("this", "other"), kernels(kind, n, t, f, u, args.dtype,
                                                      (_C, other))))
        for part in (0, 1):
            times = {key: [] for key in builds}
            for _ in range(args.repeats):
                for key, fns in builds.items():
                    start = cpu_seconds()
                    fns[part]()
                    times[key].append(cpu_seconds() - start)
            this, that = min(times["this"]), min(times["other"])
            print(f"{name} {('forward', 'backward')[part]:8s} this {this * 1e3:8.2f} ms CPU, "
                  f"other {that * 1e3:8.2f} ms ({this / that:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
