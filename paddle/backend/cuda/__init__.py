"""The CUDA backend: the CPU backend's ops on CuPy arrays, written against an array module.

Every prepare function here has the CPU backend's signature, `prepare(node, ins, outs, ctx)
-> run`, and reaches arrays only through `ctx.xp`: `cupy` on an NVIDIA GPU, `numpy` when
the backend is simulated on the CPU (tests and CI, which have no GPU). Library calls that
both modules share (`xp.matmul`, reductions, elementwise ufuncs with `out=`) run unchanged
under either; a custom CUDA kernel (csrc/cuda/*.cu, through `cupy.RawKernel`) has a NumPy
reference beside it that the simulated run uses and that the GPU tests compare it against.

Modules here fill KERNELS for one family of ops each, as the CPU backend's do.
"""
KERNELS = {}


def _gpu_visible():
    try:  # CuPy is optional: the package imports and runs on the CPU without it.
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device
        return False


available = _gpu_visible()  # a real GPU can be used (the `gpu` tests run only then)


def kernel(*names):
    """Register a prepare function under one or more op names."""
    def deco(fn):
        for name in names:
            KERNELS[name] = fn
        return fn
    return deco


def kernels():
    """The KERNELS table for a real GPU; a clear error until the backend is complete."""
    try:
        import cupy  # noqa: F401
    except Exception:
        raise RuntimeError("device 'gpu': CuPy is not installed or no NVIDIA GPU is visible; "
                           "install paddle[gpu] on a machine with a GPU, or use 'cpu'") from None
    raise NotImplementedError("device 'gpu': the CUDA kernels are not implemented yet in this "
                              "version of paddle; use 'cpu'")
