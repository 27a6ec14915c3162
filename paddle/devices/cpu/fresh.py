"""Kernel calls that make their own output, for eager calls (paddle/lowlevel/eager.py).

`FRESH` maps a C++ kernel function to its `NAME_fresh` entry (csrc/fresh.h): the same
function, called with a template array `like` first and its output argument left out,
allocates the output (C-contiguous, `like`'s shape and dtype), runs, and returns it
read-only. Only kernels that write every element of their output and only read their
other arguments are here, so an entry needs no buffer of a program's and no lock.

Example:
    >>> import numpy as np
    >>> from paddle import _C
    >>> from paddle.devices.cpu.fresh import FRESH
    >>> from paddle.devices.cpu.layouts import layout
    >>> a = np.arange(3.0, dtype=np.float32)
    >>> y = FRESH[_C.binary](a, 0, a, a, layout((3,), (3,), (3,)))  # code 0: add
    >>> y.tolist(), y.flags.writeable
    ([0.0, 2.0, 4.0], False)
"""
from paddle import _C

FRESH = {kernel: getattr(_C, f"{kernel.__name__}_fresh") for kernel in (
    _C.unary, _C.binary, _C.compare, _C.where, _C.cast, _C.reduce, _C.matmul)}
