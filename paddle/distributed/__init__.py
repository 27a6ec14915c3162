"""Data-parallel training over MPI: the same script on 1 or N processes.

    mpiexec -n 4 python train.py      # with pd.distributed.init() at the top

After `init()` in a job of several processes, training needs no other change: each rank
trains on its own shard of the data, `Optimizer.minimize`'s update averages the gradients
of all ranks (MPI allreduce on flat buffers) before applying them, parameters and
optimizer state start from rank 0's, logs are averaged so every rank's callbacks decide
alike, and rank 0 alone shows progress and writes files. See docs/distributed.md.

Example:
    >>> import paddle as pd
    >>> pd.distributed.init()
    >>> pd.distributed.size()
    1
"""
from paddle.distributed import gradients as _gradients  # noqa: F401 (sets ctx.collectives)
from paddle.distributed.errors import CollectiveTimeout, DistributedError  # noqa: F401
from paddle.distributed.world import (  # noqa: F401
    active, allreduce, barrier, broadcast, init, is_chief, local_rank, rank, size)

__all__ = ["init", "rank", "size", "local_rank", "is_chief", "barrier", "allreduce",
           "broadcast", "active", "DistributedError", "CollectiveTimeout"]
