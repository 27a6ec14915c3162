"""Devices and their backends: the one seam between ops and the code that runs them.

A backend is an object that the executor asks for everything that depends on the device,
so that the executor itself has no device branch:

- `kernels`: its kernel table (paddle/devices/kernel_table.py), from op name (or the op's
  family) to `prepare(node, ins, outs, ctx) -> run`: given a node, its concrete input and
  output buffers and the kernel context (paddle/devices/context.py), it does every check
  and precomputation once, when the plan is built, and returns a no-argument callable that
  runs the kernel on those buffers each time the plan runs;
- `xp`: the array module of its buffers (NumPy on the CPU, CuPy on a GPU);
- `empty(shape, dtype, where)`: a buffer (MemoryError naming `where` when it cannot be);
- `upload(buffer, host)` / `download(buffer)` / `download_into(host, buffer)`: copies
  between NumPy arrays and its buffers (feeds in, results and stored state out);
- `activated()`: the context in which its buffers are made and its kernels prepared;
- `runner(...)`: what runs a program's prepared calls each step (a loop on the CPU; a
  CUDA graph on a GPU, paddle/devices/cuda/graph.py).

Stored state (parameters, optimizer slots, batch-norm statistics) lives on the device of
the plan that uses it; paddle/devices/mirrors.py keeps the host copy in step. The default
device and device names are paddle/devices/default.py's.

This package imports only paddle/lowlevel/op.py, paddle/lowlevel/shapes.py and
paddle/lowlevel/random_state.py of the low level (what kernels share with the ops), and never
paddle.distributed, which reaches the kernels through the kernel context.

Example:
    >>> import paddle as pd
    >>> pd.get_device()
    'cpu'
    >>> from paddle import devices
    >>> devices.backend_for("cpu").name
    'cpu'
"""
import contextlib

import numpy as np

from paddle.devices import cpu
from paddle.devices.default import get_device, parse_device, restore
from paddle.devices.runner import Runner
from paddle.lowlevel.shapes import allocate


@contextlib.contextmanager
def device(device_name):
    """Keras's `keras.device`: inside the block, `device_name` ('cpu', 'gpu', 'gpu:1';
    Keras's 'cpu:0' too) is the default device (`pd.eval`, `fit`, `predict` run there);
    the previous default comes back after.

    Example:
        >>> import paddle as pd
        >>> with pd.device("cpu:0"):
        ...     pd.get_device()
        'cpu'
    """
    previous = get_device()
    set_device(device_name)
    try:
        yield
    finally:
        restore(previous)


def set_device(device):
    """Make `device` the default for pd.eval and training ('cpu', 'gpu', 'gpu:1').

    Raises:
        ValueError: a string that names no device.
        RuntimeError: a GPU that cannot be used here (no CuPy, no driver, no such index).
    """
    kind, index = parse_device(device)
    if kind == "gpu":
        backend_for(device)  # fails now, with the reason, if no GPU can be used
    restore("cpu" if kind == "cpu" else f"gpu:{index}")


def backend_for(device):
    """The backend object of a device ('cpu', 'gpu:N', a parsed pair, a backend, or None:
    the default)."""
    if device is None:
        device = get_device()
    if device == "cpu":
        return CPU
    if hasattr(device, "is_host"):  # a backend already
        return device
    kind, index = parse_device(device)
    if kind == "cpu":
        return CPU
    from paddle.devices import cuda  # CuPy (optional, slow to load) only when a GPU is asked for
    if isinstance(device, str) and ":" not in device and index:  # 'gpu' of a rank
        device = f"{device} = gpu:{index}, this rank's local rank"
    return cuda.backend(index, device)


def kernels_for(device):
    """The kernel table of the device's backend (RuntimeError if the device is unusable)."""
    return backend_for(device).kernels


class CpuBackend:
    """The host: NumPy buffers, the C++ kernels of paddle/devices/cpu, calls run in a loop."""

    name = "cpu"
    is_host = True
    xp = np

    kernels = cpu.KERNELS

    def activated(self):
        """The context buffers are made and kernels run in (the host needs none)."""
        return contextlib.nullcontext()

    def empty(self, shape, dtype, where):
        return allocate(shape, dtype, where)

    def upload(self, buffer, host):
        np.copyto(buffer, host)

    def download(self, buffer):
        return buffer.copy()

    def download_into(self, host, buffer):
        np.copyto(host, buffer)

    def runner(self, compute, updates, results, hooks):
        return Runner(self, compute, updates, results, hooks)

    def __repr__(self):
        return "<backend cpu>"


CPU = CpuBackend()
