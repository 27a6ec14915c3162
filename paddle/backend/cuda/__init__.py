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


def kernel(*names):
    """Register a prepare function under one or more op names."""
    def deco(fn):
        for name in names:
            KERNELS[name] = fn
        return fn
    return deco
