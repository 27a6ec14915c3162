#!/usr/bin/env python3
"""compare.py's mlp_predict (Dense 784-512-512-10, relu, `predict_on_batch` of a NumPy
batch of 1024) timed whole and as its kernels alone: how much of a batch is not the
products. CPU time of the process (all threads) and wall time, the best of `--rounds`
groups of `--calls` calls, in ms per batch, and the median difference between a whole
batch and its kernels (the two alternate, so they share the load). Timings, not a test.

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/mlp_predict.py
    python benchmarks/mlp_predict.py --paths /work/main .   # each build in turn, alternating

With `--paths`, each round runs this script once per path as PYTHONPATH (a process each,
the same environment otherwise), so two builds are compared under the same load.
"""
import argparse
import gc
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))


def best_of(fn, calls, rounds):
    """(CPU ms, wall ms) per call: the best of `rounds` groups of `calls` calls each."""
    cpu = wall = float("inf")
    for _ in range(rounds):
        c, w = time.process_time(), time.perf_counter()
        for _ in range(calls):
            fn()
        cpu = min(cpu, (time.process_time() - c) / calls * 1e3)
        wall = min(wall, (time.perf_counter() - w) / calls * 1e3)
    return cpu, wall


def measure(calls, rounds):
    import paddle as pd
    import compare  # ../shared/bench/compare.py
    from paddle.lowlevel.executor import Program
    step = compare.paddle_case("mlp_predict", 1024)
    for _ in range(3):
        step()
    # The predict program's kernels alone (found among the live programs: a benchmark's
    # shortcut), called as its runner calls them.
    program = next(p for p in gc.get_objects() if isinstance(p, Program)
                   and [f.shape for f in p.feeds] == [(1024, 784)])

    def kernels():
        for fn in program.compute:
            fn()
    whole, alone, extra = [float("inf")] * 2, [float("inf")] * 2, []
    for _ in range(rounds):  # interleaved, so that both see the same load
        w, a = best_of(step, calls, 1), best_of(kernels, calls, 1)
        whole, alone = [min(p) for p in zip(whole, w)], [min(p) for p in zip(alone, a)]
        extra.append(w[0] - a[0])
    # Everything but the kernels: the runner's loop of calls left out (the results still
    # copied out), measured alone, where the noise of the products does not drown it.
    runner = program.runner
    runner._run = lambda compute, gate, updates: [b.copy() for b in runner.results]
    rest = best_of(step, calls, rounds)
    print(f"  without the kernel calls: {rest[0] * 1e3:.1f} us CPU / {rest[1] * 1e3:.1f} us "
          "wall per batch")
    print(f"{os.path.dirname(os.path.dirname(pd.__file__))}: predict_on_batch "
          f"{whole[0]:.3f} ms CPU / {whole[1]:.3f} ms wall; kernels alone {alone[0]:.3f} "
          f"CPU / {alone[1]:.3f} wall; the rest (median of the rounds' CPU differences) "
          f"{np.median(extra):.3f} ms "
          f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}"
          f", GOMP_SPINCOUNT={os.environ.get('GOMP_SPINCOUNT', '-')}, "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '-')})", flush=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--paths", nargs="*", help="PYTHONPATHs to compare, alternating")
    parser.add_argument("--alternations", type=int, default=2)
    args = parser.parse_args(argv)
    if not args.paths:
        measure(args.calls, args.rounds)
        return 0
    for _ in range(args.alternations):
        for path in args.paths:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
            subprocess.run([sys.executable, __file__, "--calls", str(args.calls),
                            "--rounds", str(args.rounds)], env=env, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
