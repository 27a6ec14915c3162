"""The CPU communicator: MPI through mpi4py, every collective bounded by a timeout.

MPI's blocking collectives cannot give up, so each one is started non-blocking
(`Iallreduce`, `Ibcast`, `Iallgather`, `Ibarrier`) and polled until it completes or the
timeout passes; then `CollectiveTimeout` is raised on the rank that waited. Polling spins
briefly (a step's allreduce usually completes in microseconds) and then sleeps in short
naps, so a rank waiting for a slow one does not burn a core the others need.

mpi4py is imported when a communicator is made (`pd.distributed.init()` under `mpiexec`),
never on `import paddle`.
"""
import time

import numpy as np

from paddle.distributed.errors import CollectiveTimeout

SPINS = 2000      # Test() calls before the first nap
NAP = 0.0005      # seconds between polls after that


def launched_size():
    """The world size announced by a process manager (mpiexec of MPICH or Open MPI, Slurm's
    PMI), or 1 when this process was not started by one. Read from the environment, so
    that deciding needs no MPI library."""
    import os
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"):
        value = os.environ.get(var)
        if value and value.isdigit():
            return int(value)
    return 1


class MPICommunicator:
    """Collectives over one MPI communicator (a duplicate of COMM_WORLD, so paddle's
    messages never match a user's own MPI calls).

    Args:
        comm: an mpi4py communicator.
        timeout: seconds a collective may wait, or None for no limit.
    """

    def __init__(self, comm, timeout):
        from mpi4py import MPI
        self._mpi = MPI
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.timeout = timeout

    @classmethod
    def world(cls, timeout):
        """A communicator over every process of the job, and this process's local rank
        (its rank among the processes of the same machine)."""
        from mpi4py import MPI
        comm = MPI.COMM_WORLD.Dup()
        local = MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)
        local_rank = local.Get_rank()
        local.Free()
        return cls(comm, timeout), local_rank

    def duplicate(self):
        """A communicator over the same processes whose messages never match this one's
        (gradients and control messages travel apart, so ranks at different points of
        the loop wait and time out instead of exchanging the wrong buffers)."""
        return MPICommunicator(self.comm.Dup(), self.timeout)

    def _wait(self, request, what):
        if request.Test():
            return
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        spins = 0
        while not request.Test():
            spins += 1
            if spins > SPINS:
                time.sleep(NAP)
            if deadline is not None and spins % 64 == 0 and time.monotonic() > deadline:
                raise CollectiveTimeout(
                    f"{what}: rank {self.rank} of {self.size} waited more than "
                    f"{self.timeout:g} s for the other ranks (one may have stopped, be stuck, "
                    f"or have run a different number of steps); the timeout is set by "
                    f"pd.distributed.init(timeout=...) or PADDLE_DISTRIBUTED_TIMEOUT")

    def allreduce_(self, buffer, what="allreduce", op="sum"):
        """Sum (or max) `buffer` over ranks, in place."""
        mpi_op = {"sum": self._mpi.SUM, "max": self._mpi.MAX}[op]
        self._wait(self.comm.Iallreduce(self._mpi.IN_PLACE, buffer, op=mpi_op), what)

    def broadcast_(self, buffer, root, what="broadcast"):
        """`buffer` of rank `root` copied into `buffer` on every rank, in place."""
        self._wait(self.comm.Ibcast(buffer, root=root), what)

    def allgather(self, row, what="allgather"):
        """Every rank's int64 vector `row` (all of one length), stacked: (size, len)."""
        row = np.ascontiguousarray(row, dtype=np.int64)
        table = np.empty((self.size, row.size), np.int64)
        self._wait(self.comm.Iallgather(row, table), what)
        return table

    def barrier(self, what="barrier"):
        self._wait(self.comm.Ibarrier(), what)

    def abort(self, code=1):
        """End every process of the job (after a rank failed)."""
        self._mpi.COMM_WORLD.Abort(code)
