"""The CPU communicator: MPI through mpi4py, every collective bounded by a timeout.

MPI's blocking collectives cannot give up, so each one is started non-blocking
(`Iallreduce`, `Ibcast`, `Iallgather`, `Ibarrier`) and polled until it completes or the
timeout passes; then `CollectiveTimeout` is raised on the rank that waited. How it polls
(back to back, yielding the core, then in naps) is paddle/distributed/polling.py.

Gradients are averaged through `mean_buffer(count, dtype)`: when every rank runs on one
machine, through an MPI-3 shared-memory window (each rank writes its gradients into its own
segment, sums its share of everyone's segments into a shared result after a barrier, and
reads the whole result after a second barrier: the data crosses no message, and each rank
passes once over its share); across machines, through an allreduce.

mpi4py is imported when a communicator is made (`pd.distributed.init()` under `mpiexec`),
never on `import paddle`.
"""

import os

import numpy as np

from paddle.distributed.errors import CollectiveTimeout
from paddle.distributed.polling import wait_until

SHARED_MEMORY = True  # False: average gradients with an allreduce even on one machine
ROLL_CALL_TAG = 2718  # the point-to-point messages of `roll_call` (no collective matches them)
ALIGN = 64        # bytes: segments and each rank's share start on their own cache line
# Every shared window, kept for the life of the process: freeing one is collective
# (MPI_Win_free), so it must never be left to one rank's garbage collector.
_WINDOWS = []


def launched_size():
    """The world size announced by a process manager (mpiexec of MPICH or Open MPI, Slurm's
    PMI), or 1 when this process was not started by one. Read from the environment, so
    that deciding needs no MPI library."""
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
        from mpi4py import MPI  # optional: only a job of several processes needs it
        self._mpi = MPI
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.timeout = timeout
        self._shared = None   # whether every rank shares this machine's memory (asked once)
        self._means = {}      # (count, dtype) -> SharedMean, reused by every layout of that size

    @classmethod
    def world(cls, timeout):
        """A communicator over every process of the job, and this process's local rank
        (its rank among the processes of the same machine)."""
        from mpi4py import MPI  # optional: only a job of several processes needs it
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
        def timed_out():
            raise CollectiveTimeout(
                f"{what}: rank {self.rank} of {self.size} waited more than "
                f"{self.timeout:g} s for the other ranks (one may have stopped, be stuck, "
                f"or have run a different number of steps); the timeout is set by "
                f"pd.distributed.init(timeout=...) or PADDLE_DISTRIBUTED_TIMEOUT")
        wait_until(request.Test, self.timeout, timed_out)

    def allreduce_(self, buffer, what="allreduce", op="sum"):
        """Sum (or max) `buffer` over ranks, in place."""
        mpi_op = {"sum": self._mpi.SUM, "max": self._mpi.MAX}[op]
        self._wait(self.comm.Iallreduce(self._mpi.IN_PLACE, buffer, op=mpi_op), what)

    def broadcast_(self, buffer, root, what="broadcast"):
        """`buffer` of rank `root` copied into `buffer` on every rank, in place."""
        self._wait(self.comm.Ibcast(buffer, root=root), what)

    def mean_buffer(self, count, dtype):
        """A buffer of `count` elements of `dtype` averaged over the ranks: write this
        rank's values into `.input`, call it, read the mean in `.output`. Collective: every
        rank asks for the same buffers in the same order (they are made once per layout)."""
        dtype = np.dtype(dtype)
        if self._shared is None:
            node = self.comm.Split_type(self._mpi.COMM_TYPE_SHARED)
            self._shared = SHARED_MEMORY and node.Get_size() == self.size
            node.Free()
        if not self._shared or count == 0:
            return AllreduceMean(self, count, dtype)
        # Reused by the layouts of the same size: each rank reads a mean (in the update or
        # average kernel that asked for it) before it enters the next one, and no rank
        # writes the result before every rank has entered.
        key = (count, dtype.str)
        if key not in self._means:
            if not self.shared_room((self.size + 1) * count * dtype.itemsize,
                                    "averaging gradients (room in /dev/shm)"):
                return AllreduceMean(self, count, dtype)
            self._means[key] = SharedMean(self, count, dtype)
        return self._means[key]

    def shared_room(self, nbytes, what):
        """Whether every rank has room for `nbytes` more of shared windows. They live in
        /dev/shm (64 MB in a default Docker container): a window that would take more than
        half of what is free on any rank is refused. Collective."""
        short = np.array([_shared_memory_free() < 2 * nbytes], np.int64)
        self.allreduce_(short, what, op="max")
        return not short[0]

    def shared_array(self, count, dtype):
        """A SharedArray of `count` elements of `dtype`: memory every rank maps, for ranks
        that share one machine (where `mean_buffer` gives a SharedMean). Collective."""
        return SharedArray(self, count, np.dtype(dtype))

    def allgather(self, row, what="allgather"):
        """Every rank's int64 vector `row` (all of one length), stacked: (size, len)."""
        row = np.ascontiguousarray(row, dtype=np.int64)
        table = np.empty((self.size, row.size), np.int64)
        self._wait(self.comm.Iallgather(row, table), what)
        return table

    def barrier(self, what="barrier"):
        self._wait(self.comm.Ibarrier(), what)

    def roll_call(self, row, what, timeout):
        """Every rank's int64 vector `row` (all of one length), stacked (size, len), as
        `allgather` gives it; but each rank tells every other one that it arrived, so a
        rank waiting more than `timeout` seconds can name those that did not come
        (CollectiveTimeout). For the start of `fit`, where every rank should arrive within
        moments of the others: size - 1 small messages to and from each rank."""
        row = np.ascontiguousarray(row, dtype=np.int64)
        table = np.empty((self.size, row.size), np.int64)
        table[self.rank] = row
        others = [r for r in range(self.size) if r != self.rank]
        # Receives first: a rank whose row arrived had posted its own receives already, so
        # the sends below never wait for a rank that is here.
        pending = {r: self.comm.Irecv(table[r], source=r, tag=ROLL_CALL_TAG) for r in others}
        sends = [self.comm.Isend(row, dest=r, tag=ROLL_CALL_TAG) for r in others]

        def arrived():
            for r in [r for r, request in pending.items() if request.Test()]:
                del pending[r]
            return not pending

        def timed_out():
            missing = sorted(pending)
            for request in pending.values():
                request.Cancel()
                request.Wait()  # a cancelled receive completes at once
            raise CollectiveTimeout(
                f"{what}: rank {self.rank} of {self.size} waited {timeout:g} s for "
                f"{_ranks(missing)}, which did not arrive (here: "
                f"{_ranks(sorted(set(range(self.size)) - set(missing)))}); "
                f"{'it' if len(missing) == 1 else 'they'} may have stopped, be stuck before "
                "this point, or not call fit, or call it with other data. The wait is set by "
                "pd.distributed.init(first_step_timeout=...) or "
                "PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT")
        wait_until(arrived, timeout, timed_out)
        for request in sends:  # small messages to ranks that are here: done at once
            self._wait(request, what)
        return table

    def abort(self, code=1):
        """End every process of the job (after a rank failed)."""
        self._mpi.COMM_WORLD.Abort(code)


def _ranks(ranks):
    """'rank 1' or 'ranks 1, 3'."""
    return f"rank{'s' if len(ranks) != 1 else ''} {', '.join(map(str, ranks))}"


def _shared_memory_free():
    try:
        st = os.statvfs("/dev/shm")
    except OSError:
        return 0
    return st.f_bavail * st.f_frsize


class AllreduceMean:
    """A buffer averaged by an allreduce in place (ranks on several machines)."""

    def __init__(self, comm, count, dtype):
        self.comm = comm
        self.input = self.output = np.empty(count, dtype)
        self.scale = 1.0 / comm.size

    def __call__(self, what):
        self.comm.allreduce_(self.input, what)
        self.output *= self.scale


class _Shared:
    """Memory in an MPI-3 shared window, mapped by every rank of the machine."""

    def __init__(self, comm, count, dtype, nbytes, segments):
        """Allocates `nbytes` on this rank; `self.segments`: the first `segments` ranks'
        memory, as `count` elements of `dtype` each."""
        mpi = comm._mpi
        self.comm = comm
        self.window = mpi.Win.Allocate_shared(nbytes, dtype.itemsize, comm=comm.comm)
        self.window.Lock_all(mpi.MODE_NOCHECK)  # one passive epoch: Sync() orders memory
        _WINDOWS.append(self.window)
        self.segments = [np.frombuffer(self.window.Shared_query(r)[0], dtype, count)
                         for r in range(segments)]

    def barrier(self, what):
        """A barrier of the ranks that also orders their writes to the window."""
        shared_barrier(self.comm, [self.window], what)


class SharedMean(_Shared):
    """A buffer averaged through memory that every rank maps (an MPI-3 shared window).

    The window holds one segment per rank (its `.input`) and the result (`.output`, read by
    every rank). A call: barrier (every segment is written); each rank sums its 1/size
    share of the segments, in rank order, into the result and scales it; barrier (the
    result is complete). The sum runs in rank order (for two ranks `a + b`, the bits an
    allreduce gives), every rank reads the same bits, and no message carries the data.

    `mean_share(what)` is the call without its second barrier: only this rank's share of
    `.output` (elements `lo:hi`) is then the mean, for an update split between the ranks
    (paddle/distributed/sharding.py), whose own barrier follows.
    """

    def __init__(self, comm, count, dtype):
        stride = _stride(count, dtype)
        super().__init__(comm, count, dtype, stride * (2 if comm.rank == 0 else 1), comm.size)
        self.input = self.segments[comm.rank]
        self.output = np.frombuffer(self.window.Shared_query(0)[0], dtype, count, stride)
        self.lo, self.hi = share_bounds(count, dtype, comm.rank, comm.size)
        self.share = [s[self.lo:self.hi] for s in self.segments]
        self.result = self.output[self.lo:self.hi]
        self.scale = 1.0 / comm.size

    def __call__(self, what):
        self.mean_share(what)
        self.barrier(what)

    def mean_share(self, what):
        self.barrier(what)
        np.add(self.share[0], self.share[1], out=self.result)
        for s in self.share[2:]:
            self.result += s
        self.result *= self.scale


class SharedArray(_Shared):
    """`count` elements of `dtype` that every rank of the machine maps (`.array`): what
    one rank writes, the others read after a `barrier`."""

    def __init__(self, comm, count, dtype):
        super().__init__(comm, count, dtype, _stride(count, dtype) if comm.rank == 0 else 0, 1)
        self.array = self.segments[0]


def shared_barrier(comm, windows, what):
    """A barrier of the ranks that also orders their writes to these shared windows: what a
    rank wrote before it, every rank reads after it."""
    for w in windows:
        w.Sync()
    comm.barrier(what)
    for w in windows:
        w.Sync()


def share_bounds(count, dtype, rank, size):
    """Elements [lo, hi) of a buffer of `count` that `rank` of `size` sums (and updates):
    contiguous shares in rank order, each starting on a cache line."""
    step = ALIGN // dtype.itemsize if ALIGN % dtype.itemsize == 0 else 1
    bounds = [min(count, count * r // size // step * step) for r in range(size)] + [count]
    return bounds[rank], bounds[rank + 1]


def _stride(count, dtype):
    return -(-count * dtype.itemsize // ALIGN) * ALIGN
