"""The CPU backend: C++ kernels from paddle._C, prepared once per plan.

Each module here fills the kernel table (table.py) for one family of ops; a prepare
function computes layouts and specs from the concrete shapes (layouts.py) and binds them
with the buffers into a `functools.partial` of the C++ function, so running a step costs
one C++ call.
"""
from paddle.devices.cpu import (  # noqa: F401
    activations, control_flow, conv, elementwise, fft, layer_norm, linalg, losses, matmul,
    nn, norm, optim, pool, recurrent, reduce, sampling, shape, sort, state)
from paddle.devices.cpu.table import KERNELS  # noqa: F401
