"""Devices and their kernel tables: the one seam between ops and the code that runs them.

A backend is a module with `KERNELS`, a dict from op name to `prepare(node, ins, outs,
ctx) -> run`: given a node and its concrete input and output buffers, it does every check
and precomputation once, when the plan is built, and returns a no-argument callable that
runs the kernel on those buffers each time the plan runs.

Example:
    >>> import paddle as pd
    >>> pd.get_device()
    'cpu'
"""
import re

_DEVICE = ["cpu"]


def parse_device(device):
    """'cpu', 'gpu' or 'gpu:N' -> ('cpu', 0) / ('gpu', N); ValueError otherwise."""
    if device is None:
        device = _DEVICE[0]
    m = re.fullmatch(r"(cpu|gpu|cuda)(?::(\d+))?", str(device).strip().lower())
    if not m:
        raise ValueError(f"device: expected 'cpu', 'gpu' or 'gpu:N', received {device!r}")
    kind = "gpu" if m.group(1) in ("gpu", "cuda") else "cpu"
    return kind, int(m.group(2) or 0)


def set_device(device):
    """Make `device` the default for pd.eval and training ('cpu', 'gpu', 'gpu:1')."""
    kind, index = parse_device(device)
    if kind == "gpu":
        kernels_for(device)  # fails now, with the reason, if no GPU can be used
    _DEVICE[0] = "cpu" if kind == "cpu" else f"gpu:{index}"


def get_device():
    """The default device, 'cpu' or 'gpu:N'."""
    return _DEVICE[0]


def kernels_for(device):
    """The KERNELS table of the device's backend."""
    kind, _ = parse_device(device)
    if kind == "cpu":
        from paddle.backend import cpu
        return cpu.KERNELS
    from paddle.backend import cuda
    return cuda.kernels()
