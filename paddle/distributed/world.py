"""The world of processes: init, who am I, and the public collectives.

`init()` looks at the environment: started by `mpiexec` (MPICH, Open MPI) with more than one
process, it joins the MPI job through mpi4py; otherwise it makes a world of one process in
which every collective returns its input. The same script therefore runs unchanged with
`python train.py` and `mpiexec -n 4 python train.py`.

In a world of several processes, an exception that reaches the top of any rank prints
that rank's traceback and aborts the whole job (`MPI_Abort`), so the other ranks do not
wait for it forever in a collective; and every collective gives up after `timeout`
seconds with `CollectiveTimeout` on the ranks that waited. Where every rank should arrive
within moments of the others, at the start of `fit` (before its first step), they wait
`first_step_timeout` seconds only, and the ranks that did not arrive are named.

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.distributed.init()          # not under mpiexec: a world of one process
    >>> pd.distributed.rank(), pd.distributed.size(), pd.distributed.is_chief()
    (0, 1, True)
    >>> pd.distributed.allreduce(np.array([1.0, 3.0]), op="mean").tolist()
    [1.0, 3.0]
"""
import math
import numbers
import os
import sys
import time
import warnings

import numpy as np

from paddle.devices import default as default_device
from paddle.distributed import mpi
from paddle.distributed.errors import DistributedError
from paddle.distributed.nccl import NCCLCommunicator

DEFAULT_TIMEOUT = 300.0
DEFAULT_FIRST_STEP_TIMEOUT = 60.0
ABORT_DELAY = 1.0  # seconds between printing a failed rank's traceback and aborting
MAX_RANK = 32  # dimensions a signature row can describe


class World:
    """This process's place in the job.

    Attributes:
        rank, size, local_rank: as the functions of the same names.
        timeout: seconds a collective may wait (math.inf: no limit).
        first_step_timeout: seconds the ranks wait for each other at the start of `fit`
            (never more than `timeout`).
        comm: collectives of the public API (None in a world of one process);
        control: the training loop's own messages (logs, flags, data orders);
        grads: gradients and the first broadcast of parameters (on the CPU; GPU
            gradients travel over NCCL, `gpu_grads()`).
    """

    def __init__(self, timeout, comm=None, local_rank=0, first_step_timeout=None):
        self.timeout = timeout
        self.first_step_timeout = min(timeout, DEFAULT_FIRST_STEP_TIMEOUT
                                      if first_step_timeout is None else first_step_timeout)
        self.comm = comm
        self.rank = comm.rank if comm else 0
        self.size = comm.size if comm else 1
        self.local_rank = local_rank
        self.control = comm.duplicate() if comm else None
        self.grads = comm.duplicate() if comm else None
        self._gpu_grads = None

    def gpu_grads(self, index):
        """The NCCL communicator for gradients on this rank's GPU, `gpu:<index>` (by
        default its local rank: `pd.set_device("gpu")`), made on first use, on every rank
        at the same point (a collective). A rank trains on one GPU."""
        if self._gpu_grads is None:
            self._gpu_grads = NCCLCommunicator(self.grads, index)
        elif self._gpu_grads.device.id != index:
            raise DistributedError(
                f"averaging gradients on gpu:{index}: rank {self.rank} already averages "
                f"gradients on gpu:{self._gpu_grads.device.id}; expected one GPU per rank "
                f"(pd.set_device('gpu') picks gpu:<local_rank>)")
        return self._gpu_grads


_WORLD = None


def init(timeout=None, first_step_timeout=None):
    """Join the job this process was launched in (a world of one process otherwise).

    Call it once, at the top of the script, on every rank. Calling it again with the same
    settings does nothing; with other settings it raises.

    Args:
        timeout: seconds a collective (an allreduce of gradients, a barrier, ...) may wait
            for the other ranks before raising `CollectiveTimeout`; `math.inf` never gives
            up. Default: `$PADDLE_DISTRIBUTED_TIMEOUT`, or 300.
        first_step_timeout: seconds the ranks wait for each other at the start of `fit`,
            where they agree on the steps of an epoch: a rank that does not arrive by then
            (it stopped, is stuck, or never calls fit) is named in the `CollectiveTimeout`
            of the others. At most `timeout`. Default:
            `$PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT`, or 60.

    Raises:
        DistributedError: init was already called with other timeouts.
        ImportError: launched by mpiexec with several processes but mpi4py is missing
            (each process would otherwise train alone on all the data).
        ValueError: a timeout that is not a positive number.
    """
    global _WORLD
    timeout = _resolve_timeout(timeout, "timeout", "PADDLE_DISTRIBUTED_TIMEOUT",
                               DEFAULT_TIMEOUT)
    first = _resolve_timeout(first_step_timeout, "first_step_timeout",
                             "PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT", DEFAULT_FIRST_STEP_TIMEOUT)
    if _WORLD is not None:
        if timeout != _WORLD.timeout or min(first, timeout) != _WORLD.first_step_timeout:
            raise DistributedError(
                f"init: already initialized with timeout={_WORLD.timeout:g}, "
                f"first_step_timeout={_WORLD.first_step_timeout:g}; received "
                f"timeout={timeout:g}, first_step_timeout={min(first, timeout):g} (call "
                "init() once, at the top of the script)")
        return
    if mpi.launched_size() <= 1:
        _WORLD = World(timeout, first_step_timeout=first)
        default_device.set_process_gpu(0)
        return
    try:
        import mpi4py  # noqa: F401 (optional: only a job of several processes needs it)
    except ImportError:
        raise ImportError(f"init: this process was launched by an MPI process manager with "
                          f"{mpi.launched_size()} processes, but mpi4py is not installed; "
                          f"install it with pip install 'paddle-graph[mpi]'") from None
    comm, local_rank = mpi.MPICommunicator.world(None if math.isinf(timeout) else timeout)
    world = World(timeout, comm, local_rank, first)
    if world.size > 1:
        _install_excepthook(world)
    else:
        world = World(timeout, first_step_timeout=first)  # mpiexec -n 1: no one to talk to
    _WORLD = world
    default_device.set_process_gpu(world.local_rank)  # 'gpu' is gpu:<local_rank> from now on


def _resolve_timeout(timeout, name, variable, default):
    where = f"init: {name}"
    if timeout is None:
        text = os.environ.get(variable)
        if not text:
            return default
        where = variable
        try:
            timeout = float(text)
        except ValueError:
            raise ValueError(f"{where}: expected a number of seconds, received {text!r}") \
                from None
    if not isinstance(timeout, numbers.Real) or isinstance(timeout, bool) or \
            not timeout > 0:
        raise ValueError(f"{where}: expected a number of seconds > 0 (math.inf for no limit), "
                         f"received {timeout!r}")
    return float(timeout)


def _install_excepthook(world):
    """An uncaught exception on any rank ends the job, with that rank's traceback shown."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        try:
            sys.stdout.flush()
            sys.stderr.write(f"paddle.distributed: rank {world.rank} of {world.size} raised "
                             f"{kind.__name__}; stopping every rank of the job\n")
            previous(kind, value, tb)
            sys.stderr.flush()
            # MPI_Abort kills the launcher's proxies too: give them a moment to pass this
            # rank's traceback on, or it may be cut short.
            time.sleep(ABORT_DELAY)
        finally:
            world.comm.abort(1)

    sys.excepthook = hook


def world():
    """The World, or None before init."""
    return _WORLD


_WARNED = []


def warn_if_launched_alone():
    """Warn once when mpiexec started several processes but init() was never called: each
    of them would train alone on all the data, and all would write the same files."""
    if _WORLD is None and not _WARNED and mpi.launched_size() > 1:
        _WARNED.append(True)
        warnings.warn(f"this process is one of {mpi.launched_size()} started by mpiexec, but "
                      "pd.distributed.init() was not called: every process trains alone on "
                      "all the data; call it at the top of the script", RuntimeWarning,
                      stacklevel=3)


def active():
    """True when init() joined a world of more than one process: the training loop then
    shards data, averages gradients and logs, and lets rank 0 alone write files."""
    return _WORLD is not None and _WORLD.size > 1


def rank():
    """This process's rank, 0 to size() - 1 (0 before init and outside mpiexec)."""
    return _WORLD.rank if _WORLD is not None else 0


def size():
    """Number of processes in the job (1 before init and outside mpiexec)."""
    return _WORLD.size if _WORLD is not None else 1


def local_rank():
    """This process's rank among those on the same machine (picks its GPU: gpu:<local_rank>)."""
    return _WORLD.local_rank if _WORLD is not None else 0


def is_chief():
    """True on rank 0: the rank that prints progress and writes checkpoints and logs."""
    return rank() == 0


def _initialized(what):
    if _WORLD is None:
        raise DistributedError(f"{what}: call pd.distributed.init() first (at the top of the "
                               "script, on every rank)")
    return _WORLD


def barrier():
    """Wait until every rank has reached this call.

    Raises:
        DistributedError: before init.
        CollectiveTimeout: a rank did not arrive within the timeout.
    """
    w = _initialized("barrier")
    if w.comm is not None:
        w.comm.barrier("barrier")


def allreduce(array, op="mean"):
    """The element-wise mean (or sum) of `array` over every rank, returned on every rank.

    Args:
        array: a NumPy array (or anything np.asarray takes) of numbers, of the same shape
            and dtype on every rank.
        op: "mean" (floats come back in their dtype, integers as float64) or "sum".

    Returns:
        A new NumPy array.

    Raises:
        DistributedError: before init, or ranks passed different shapes or dtypes.
        CollectiveTimeout: a rank did not arrive within the timeout.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.distributed.init()
        >>> pd.distributed.allreduce(np.arange(3), op="sum").tolist()
        [0, 1, 2]
    """
    w = _initialized("allreduce")
    if op not in ("mean", "sum"):
        raise ValueError(f"allreduce: expected op 'mean' or 'sum', received {op!r}")
    a = _numeric(array, "allreduce")
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    dtype = a.dtype if op == "sum" or a.dtype.kind in "fc" else np.dtype(np.float64)
    out = np.array(a, dtype=dtype, order="C", copy=True)
    if w.comm is None:
        return out
    check_same_arrays(w.comm, "allreduce", [out])
    w.comm.allreduce_(out, "allreduce")
    if op == "mean":
        out /= w.size
    return out


def broadcast(array, root=0):
    """Rank `root`'s `array`, returned on every rank.

    Args:
        array: a NumPy array of numbers, of the same shape and dtype on every rank (the
            values of the other ranks are ignored).
        root: the rank whose values are sent.

    Returns:
        A new NumPy array.

    Raises:
        DistributedError: before init, or ranks passed different shapes or dtypes.
        ValueError: root is not a rank of the job.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.distributed.init()
        >>> pd.distributed.broadcast(np.float32([0.5]), root=0).tolist()
        [0.5]
    """
    w = _initialized("broadcast")
    if not isinstance(root, numbers.Integral) or isinstance(root, bool) or \
            not 0 <= root < w.size:
        raise ValueError(f"broadcast: expected root to be a rank in [0, {w.size}), received "
                         f"{root!r}")
    out = np.array(_numeric(array, "broadcast"), order="C", copy=True)
    if w.comm is None:
        return out
    check_same_arrays(w.comm, "broadcast", [out])
    w.comm.broadcast_(out, int(root), "broadcast")
    return out


def _numeric(array, what):
    try:
        a = np.asarray(array)
    except Exception as e:
        raise TypeError(f"{what}: expected a NumPy array of numbers, received "
                        f"{type(array).__name__} ({e})") from None
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{what}: expected a NumPy array of numbers, received an array of "
                        f"{a.dtype}")
    if a.ndim > MAX_RANK:
        raise ValueError(f"{what}: arrays of more than {MAX_RANK} dimensions are not supported, "
                         f"received {a.ndim}")
    return a


# ---- agreement between ranks ------------------------------------------------------------

def _signature(a):
    """An array's dtype and shape as a fixed-length int64 row."""
    row = np.full(3 + MAX_RANK, -1, np.int64)
    row[0], row[1], row[2] = ord(a.dtype.kind), a.dtype.itemsize, a.ndim
    row[3:3 + a.ndim] = a.shape
    return row


def _describe(row):
    shape = tuple(int(d) for d in row[3:3 + int(row[2])])
    return f"{shape} {np.dtype(chr(int(row[0])) + str(int(row[1]))).name}"


def check_same_arrays(comm, what, arrays, names=None):
    """Raise DistributedError on every rank unless every rank holds as many arrays, of
    the same shapes and dtypes (names say which array differs)."""
    check_same(comm, what, [len(arrays)], lambda r: f"{r[0]} arrays")
    if not arrays:
        return
    rows = np.stack([_signature(a) for a in arrays])
    table = comm.allgather(rows.ravel(), what).reshape(comm.size, len(arrays), -1)
    for i in range(len(arrays)):
        if (table[:, i] != table[0, i]).any():
            label = f" {names[i]!r}" if names else "" if len(arrays) == 1 else f" {i}"
            held = ", ".join(f"rank {r} has {_describe(table[r, i])}" for r in range(comm.size))
            raise DistributedError(f"{what}: every rank must pass the same shape and dtype; "
                                   f"array{label}: {held}")


def check_same(comm, what, values, describe):
    """Raise DistributedError on every rank unless every rank passed the same ints."""
    check_table(comm.allgather(np.asarray(values, np.int64), what), what, describe)


def check_table(table, what, describe):
    """Raise DistributedError unless the rows of `table` (one per rank, as `allgather`
    stacks them) are all the same; describe(row) says what a rank has."""
    if (table != table[0]).any():
        held = ", ".join(f"rank {r} has {describe(table[r])}" for r in range(len(table)))
        raise DistributedError(f"{what}: the ranks disagree: {held}")
