"""The kernel context's collectives: a process alone averages nothing; paddle.distributed
sets its own when imported."""
import numpy as np

import paddle  # noqa: F401 (imports paddle.distributed)
from paddle.devices import CPU
from paddle.devices.context import Alone, KernelContext
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

