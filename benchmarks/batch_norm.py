#!/usr/bin/env python3
"""Batch norm's C++ kernels alone (paddle._C.batch_norm in training and inference mode, and
batch_norm_grad in training mode, NHWC float32): the least CPU time (all threads) of 30
calls each, in ms, beside NumPy's copy of the same array (a pass that reads and writes it
once: the memory's pace). Point PYTHONPATH at two builds and run this for each
(alternating) to compare them; set OMP_NUM_THREADS=1 on a shared machine.

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/batch_norm.py          # 64x32x32x32
    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/batch_norm.py 128 16 16 64
"""
import sys
import time

import numpy as np

import paddle
from paddle import _C


def best_ms(fn, repeat=30):
    fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best * 1e3


def main(argv):
    n, h, w, c = (int(a) for a in argv) if argv else (64, 32, 32, 32)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)
    g = rng.standard_normal((n, h, w, c)).astype(np.float32)
    scale, offset = np.ones(c, np.float32), np.zeros(c, np.float32)
    moving_mean, moving_var = np.zeros(c, np.float32), np.ones(c, np.float32)
    y, dx = np.empty_like(x), np.empty_like(x)
    mean, inv_std, dscale, doffset = (np.empty(c, np.float32) for _ in range(4))
    rows = n * h * w
    forward = best_ms(lambda: _C.batch_norm(x, scale, offset, moving_mean, moving_var, y, mean,
                                            inv_std, rows, c, 1, 0.99, 1e-3, True))
    inference = best_ms(lambda: _C.batch_norm(x, scale, offset, moving_mean, moving_var, y,
                                              mean, inv_std, rows, c, 1, 0.99, 1e-3, False))
    backward = best_ms(lambda: _C.batch_norm_grad(x, scale, mean, inv_std, g, dx, dscale,
                                                  doffset, rows, c, 1, True))
    copy = best_ms(lambda: np.copyto(y, x))
    print(f"{paddle.__file__}: {n}x{h}x{w}x{c} forward {forward:.2f} ms, inference "
          f"{inference:.2f} ms, backward {backward:.2f} ms (NumPy's copy {copy:.2f} ms)")


if __name__ == "__main__":
    main(sys.argv[1:])
