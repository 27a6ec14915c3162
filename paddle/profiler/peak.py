"""The machine's peak rates, measured once per device: the best of a few large float32
products (FLOP/s) and of a few large copies (bytes/s, read plus written). They stand in
for datasheet figures in a profile's percentages: what this machine's BLAS and memory
actually reach, so 100% means "as fast as the best kernel here", not the theoretical peak.

Example:
    >>> from paddle.profiler.peak import machine_peak
    >>> flops, bandwidth = machine_peak("cpu")
    >>> flops > 1e8 and bandwidth > 1e8
    True
"""
import functools
import time

import numpy as np


def _best(fn, repeat=3):
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


@functools.lru_cache(maxsize=None)
def machine_peak(device="cpu"):
    """(FLOP/s, bytes/s) measured on `device` ('cpu', or 'gpu:N' with CuPy)."""
    xp, sync = np, (lambda: None)
    if device.startswith("gpu"):
        try:
            import cupy  # optional dependency (a GPU's peak)
            index = int(device.partition(":")[2] or 0)
            with cupy.cuda.Device(index):
                cupy.cuda.runtime.getDeviceCount()
            xp = cupy
            sync = cupy.cuda.Device(index).synchronize
        except Exception:  # noqa: BLE001 - the simulated GPU, or no CuPy: the host's figures
            pass
    n = 4096 if xp is not np else 1024
    a = xp.ones((n, n), np.float32)
    out = xp.empty((n, n), np.float32)
    seconds = _best(lambda: (xp.matmul(a, a, out=out), sync()))
    big = xp.ones(1 << 25, np.float32)  # 128 MiB: far past the caches
    copy = xp.empty_like(big)
    copy_seconds = _best(lambda: (xp.copyto(copy, big), sync()))
    return 2.0 * n ** 3 / seconds, 2.0 * big.nbytes / copy_seconds
