"""The default device, and what a device's name means ('cpu', 'gpu', 'gpu:N').

`paddle.devices.set_device` changes the default once it has checked that the device can be
used; a distributed job tells this module which GPU is this process's
(`paddle.distributed.init`: gpu:<local_rank>, each rank of a machine its own GPU).

Example:
    >>> from paddle.devices import default
    >>> default.parse_device("gpu:1"), default.parse_device("cpu")
    (('gpu', 1), ('cpu', 0))
"""
import re

_DEVICE = ["cpu"]
_PROCESS_GPU = [0]


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
    return "gpu", int(m.group(2)) if m.group(2) else _PROCESS_GPU[0]


def get_device():
    """The default device, 'cpu' or 'gpu:N'."""
    return _DEVICE[0]


def restore(device):
    """Make `device` ('cpu' or 'gpu:N', as get_device gave it) the default again, unchecked:
    how a block that changed it (`cuda.simulated()`) leaves it as it found it."""
    _DEVICE[0] = device


def set_process_gpu(index):
    """The GPU that 'gpu' with no index names in this process (a rank's local rank)."""
    _PROCESS_GPU[0] = index
