"""Devices and their backends: the one seam between ops and the code that runs them.

A backend is an object that the executor asks for everything that depends on the device,
so that the executor itself has no device branch:

- `kernels`: a dict from op name to `prepare(node, ins, outs, ctx) -> run`: given a node
  and its concrete input and output buffers, it does every check and precomputation once,
  when the plan is built, and returns a no-argument callable that runs the kernel on those
  buffers each time the plan runs;
- `xp`: the array module of its buffers (NumPy on the CPU, CuPy on a GPU);
- `empty(shape, dtype, where)`: a buffer (MemoryError naming `where` when it cannot be);
- `upload(buffer, host)` / `download(buffer)` / `download_into(host, buffer)`: copies
  between NumPy arrays and its buffers (feeds in, results and stored state out);
- `activated()`: the context in which its buffers are made and its kernels prepared;
- `runner(...)`: what runs a program's prepared calls each step (a loop on the CPU; a
  CUDA graph on a GPU, paddle/devices/cuda/graph.py).

Stored state (parameters, optimizer slots, batch-norm statistics) lives on the device of
the plan that uses it; paddle/devices/mirrors.py keeps the host copy in step.

Example:
    >>> import paddle as pd
    >>> pd.get_device()
    'cpu'
    >>> from paddle import devices
    >>> devices.backend_for("cpu").name
    'cpu'
"""
import contextlib
import re

import numpy as np

from paddle.devices.runner import Runner


def registrar(table):
    """The `@kernel("name", ...)` decorator of a backend: registers a prepare function in
    `table` (the backend's KERNELS) under one or more op names."""
    def kernel(*names):
        def deco(fn):
            for name in names:
                table[name] = fn
            return fn
        return deco
    return kernel

_DEVICE = ["cpu"]


def parse_device(device):
    """'cpu', 'gpu' or 'gpu:N' -> ('cpu', 0) / ('gpu', N); ValueError otherwise.

    'gpu' with no index is this process's GPU: gpu:<local_rank> in a distributed job after
    `pd.distributed.init()` (each rank of a machine its own GPU, as NCCL needs), gpu:0
    otherwise."""
    if device is None:
        device = _DEVICE[0]
    if isinstance(device, tuple) and len(device) == 2:
        return device
    m = re.fullmatch(r"(cpu|gpu|cuda)(?::(\d+))?", str(device).strip().lower())
    if not m:
        raise ValueError(f"device: expected 'cpu', 'gpu' or 'gpu:N', received {device!r}")
    if m.group(1) == "cpu":
        return "cpu", int(m.group(2) or 0)
    return "gpu", int(m.group(2)) if m.group(2) else _this_process_gpu()


def _this_process_gpu():
    from paddle.distributed import world
    return world.local_rank()


def set_device(device):
    """Make `device` the default for pd.eval and training ('cpu', 'gpu', 'gpu:1').

    Raises:
        ValueError: a string that names no device.
        RuntimeError: a GPU that cannot be used here (no CuPy, no driver, no such index).
    """
    kind, index = parse_device(device)
    if kind == "gpu":
        backend_for(device)  # fails now, with the reason, if no GPU can be used
    _DEVICE[0] = "cpu" if kind == "cpu" else f"gpu:{index}"


def get_device():
    """The default device, 'cpu' or 'gpu:N'."""
    return _DEVICE[0]


def backend_for(device):
    """The backend object of a device ('cpu', 'gpu:N', a parsed pair, a backend, or None:
    the default)."""
    if device is None:
        device = _DEVICE[0]
    if device == "cpu":
        return CPU
    if hasattr(device, "is_host"):  # a backend already
        return device
    kind, index = parse_device(device)
    if kind == "cpu":
        return CPU
    from paddle.devices import cuda
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

    @property
    def kernels(self):
        from paddle.devices import cpu
        return cpu.KERNELS

    def activated(self):
        """The context buffers are made and kernels run in (the host needs none)."""
        return contextlib.nullcontext()

    def empty(self, shape, dtype, where):
        from paddle.lowlevel.shapes import allocate
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
