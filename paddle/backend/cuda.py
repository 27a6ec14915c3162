"""The CUDA backend (CuPy). Not built yet: the CPU backend comes first (see docs/architecture.md).

`kernels()` raises a clear error so that `pd.set_device("gpu")` says why it cannot run.
"""
try:  # CuPy is optional: the package imports and runs on the CPU without it.
    import cupy  # noqa: F401
    available = True
except Exception:  # pragma: no cover - depends on the machine
    available = False


def kernels():
    if not available:
        raise RuntimeError("device 'gpu': CuPy is not installed or no NVIDIA GPU is visible; "
                           "install cupy-cuda12x on a machine with a GPU, or use 'cpu'")
    raise NotImplementedError("device 'gpu': the CUDA kernels are not implemented yet in this "
                              "version of paddle; use 'cpu'")
