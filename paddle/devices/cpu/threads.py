"""The CPU kernels' threads: `pd.set_num_threads(n)`, `pd.get_num_threads()`, and a default
of one share of the cores per process under MPI.

paddle's C++ kernels split their work over OpenMP threads, and OpenBLAS runs single-threaded
inside them (csrc/module.cpp: two pools would spin against each other), so the OpenMP count
is the whole count. OpenMP's default is one thread per core in every process: under
`mpiexec -n 2`, each rank on a machine would start one per core, and the ranks would
oversubscribe the cores (a 2-rank run on 2 cores ran 3-14x slower than with one thread per
rank). So when the MPI launcher says how many ranks share this machine, the default is the
cores divided by those ranks (at least 1), unless `OMP_NUM_THREADS` sets the count.

Example:
    >>> import paddle as pd
    >>> before = pd.get_num_threads()
    >>> pd.set_num_threads(1)
    >>> pd.get_num_threads()
    1
    >>> pd.set_num_threads(before)
"""
import numbers
import os

from paddle import _C

# Where MPI launchers say how many ranks run on this machine.
LOCAL_RANKS_VARIABLES = (
    "MPI_LOCALNRANKS",             # MPICH's Hydra (mpiexec of the `mpich` wheel), Intel MPI
    "OMPI_COMM_WORLD_LOCAL_SIZE",  # Open MPI
    "MV2_COMM_WORLD_LOCAL_SIZE",   # MVAPICH2
)


def get_num_threads():
    """The number of threads paddle's CPU kernels use (in this thread), as PyTorch's
    `torch.get_num_threads()`.

    Returns:
        int: OpenMP's thread count for this thread (from `OMP_NUM_THREADS`, the cores, the
        MPI default or `set_num_threads`), capped at 4 per hardware thread.
    """
    return _C.omp_threads()


def set_num_threads(n):
    """Sets the number of threads paddle's CPU kernels use from now on, as PyTorch's
    `torch.set_num_threads(n)`.

    OpenMP keeps the count per thread: it applies to the kernels run from the thread that
    calls it (the one that calls `fit`, `predict` or `pd.eval`; other threads keep the
    default). It wins over `OMP_NUM_THREADS` and the MPI default.

    Args:
        n: a positive int, at most 4 per hardware thread (`pd._C.thread_limit()`).

    Raises:
        TypeError: `n` is not an int.
        ValueError: `n` is below 1 or above the limit.
    """
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"set_num_threads: expected a positive int, received "
                        f"{type(n).__name__} {n!r}")
    limit = _C.thread_limit()
    if not 1 <= n <= limit:
        raise ValueError(f"set_num_threads: expected a number of threads from 1 to {limit} "
                         f"(4 per hardware thread, at least 8, at most 1024), received {n}")
    _C.set_omp_threads(int(n))


def local_ranks(environ):
    """The number of MPI ranks on this machine as the launcher's environment gives it, or
    None outside MPI (or when the variable is not a positive int)."""
    for name in LOCAL_RANKS_VARIABLES:
        value = environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return None


def default_threads(environ, cores):
    """The thread count paddle sets at import, or None to keep OpenMP's own default: under
    MPI with several ranks on this machine, `cores // ranks` (at least 1), unless
    `OMP_NUM_THREADS` is set (the user's word wins)."""
    if environ.get("OMP_NUM_THREADS", "").strip():
        return None
    ranks = local_ranks(environ)
    if ranks is None or ranks < 2:
        return None
    return max(1, cores // ranks)


def available_cores():
    """The cores this process may run on (its affinity mask, where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def apply_default():
    """At import: the MPI default of `default_threads`, in the importing thread."""
    threads = default_threads(os.environ, available_cores())
    if threads is not None:
        _C.set_omp_threads(min(threads, _C.thread_limit()))
