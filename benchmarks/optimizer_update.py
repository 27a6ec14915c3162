#!/usr/bin/env python3
"""The fused optimizer update (csrc/optim.cpp) alone: Adam over the lstm workload's largest
parameter (Embedding(20000, 128): 2.56M floats), CPU time and the memory rate it implies
(p, m, v and g read, p, m and v written), beside a NumPy copy of as many bytes.

    OMP_NUM_THREADS=1 python benchmarks/optimizer_update.py
    OMP_NUM_THREADS=1 python benchmarks/optimizer_update.py --size 669000 --repeats 50

CPU time, best of `--repeats` calls: it means something on a shared machine; point
PYTHONPATH at two builds in turn to compare them. Timings, not a test.
"""
import argparse
import sys

import numpy as np

from paddle import _C
from recurrent import best  # (this folder's: CPU time, best of `repeats` calls)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20000 * 128)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = parser.parse_args(argv)
    n, dtype = args.size, np.dtype(args.dtype)
    rng = np.random.default_rng(0)
    p, g, m = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    v = np.abs(rng.standard_normal(n)).astype(dtype)
    step = [0]

    def adam(weight_decay=0.0):
        step[0] += 1
        _C.adam([p], [g], [m], [v], [], 1e-3, 0.9, 0.999, 1e-7, float(step[0]), weight_decay,
                False)

    moved = 7 * n * dtype.itemsize  # 4 arrays read, 3 written
    # a copy reads and writes: half as many bytes each way
    src, dst = np.ones(moved // 16, np.float64), np.empty(moved // 16, np.float64)
    rows = [("adam", best(adam, args.repeats)),
            ("adamw", best(lambda: adam(0.004), args.repeats)),
            ("numpy copy of as many bytes", best(lambda: np.copyto(dst, src), args.repeats))]
    print(f"{n} {args.dtype} parameters ({moved / 2**20:.0f} MiB moved per update)")
    for name, seconds in rows:
        print(f"{name:<30}{seconds * 1e3:8.2f} ms CPU {moved / seconds / 1e9:8.1f} GB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
