"""The kernel context's collectives: a process alone averages nothing; paddle.distributed
sets its own when imported. Its scratch: one buffer a program's kernels share."""
import numpy as np
import pytest

import paddle  # noqa: F401 (imports paddle.distributed)
from paddle.devices import CPU
from paddle.devices.context import Alone, KernelContext
from paddle.devices.runner import Hooks
from paddle.distributed.gradients import RankCollectives


def test_paddle_distributed_sets_the_kernels_collectives():
    assert isinstance(KernelContext.collectives, RankCollectives)
    assert not KernelContext.collectives.active()  # not launched by mpiexec


def test_a_process_alone_averages_nothing():
    alone = Alone()
    assert not alone.active()
    assert alone.averaging(None, [], CPU) is None and alone.shards(None, CPU) is None
    assert alone.input_buffers(None, CPU) is None
    x, out = np.float32([1.0, 2.0]), np.zeros(2, np.float32)
    alone.average_kernel(None, [x], [out], CPU)()
    assert out.tolist() == [1.0, 2.0]  # the mean over one rank


class _Node:
    class op:
        name = "conv2d"
    location = "model.py:3"


def test_kernels_of_a_program_share_one_scratch():
    # Each request gets the start of one buffer as large as the largest, made at first use.
    hooks = Hooks()
    a = KernelContext(CPU, True, _Node, hooks, 0).scratch(10, np.float32)
    b = KernelContext(CPU, True, _Node, hooks, 1).scratch(3, np.float64)
    assert hooks.scratch.nbytes == 40
    x, y = a(), b()
    assert (x.shape, x.dtype, y.shape, y.dtype) == ((10,), np.float32, (3,), np.float64)
    assert np.shares_memory(x, y) and a() is x  # the same views on every run
    # A later, larger request (a plan prepared again) grows it for every kernel.
    c = KernelContext(CPU, True, _Node, hooks, 2).scratch(20, np.float32)
    assert c().shape == (20,) and np.shares_memory(a(), c())


def test_scratch_too_large_names_the_kernel():
    hooks = Hooks()
    get = KernelContext(CPU, True, _Node, hooks, 0).scratch(1 << 62, np.float64)
    with pytest.raises(MemoryError, match="conv2d"):
        get()
