"""The GPU communicator: NCCL through CuPy (`cupy.cuda.nccl`), one per rank on its GPU.

Each rank drives `gpu:<local_rank>`. Rank 0 draws NCCL's unique id and MPI broadcasts it
(MPI stays the process manager and carries the small host-side messages: the checks that
every rank built the same buffers); the gradients, parameters and optimizer state, which
live on the GPUs, travel over NCCL. The communicator has the CPU one's methods
(`mean_buffer`, `allreduce_`, `broadcast_`, `allgather`, `barrier`), so
`paddle.distributed.gradients` averages gradients on either device with the same code.

NCCL's calls are queued on the current CUDA stream and return at once; each call here then
waits for its event, polled like MPI's requests, so a collective that a rank never joins
raises `CollectiveTimeout` (and aborts the NCCL communicator, which cannot be trusted
after) instead of hanging. Inside a CUDA graph capture nothing is waited for (the replays
of a captured step have no timeout).

CuPy is imported when the communicator is made, never on `import paddle`.
"""
import warnings

import numpy as np

from paddle.distributed.errors import CollectiveTimeout
from paddle.distributed.polling import wait_until

_DTYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
           "int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32",
           "int64": "NCCL_INT64"}


def _cupy():
    try:
        import cupy  # optional: only ranks on GPUs get here
        with warnings.catch_warnings(record=True) as said:  # CuPy warns when libnccl is absent
            warnings.simplefilter("always")
            from cupy.cuda import nccl  # optional dependency (CuPy built with NCCL)
    except ImportError:
        raise RuntimeError("distributed training on 'gpu': averaging gradients needs CuPy "
                           "built with NCCL (pip install 'paddle-graph[gpu]'); train on "
                           "'cpu' (MPI) otherwise") from None
    if not nccl.available:
        major = cupy.cuda.runtime.runtimeGetVersion() // 1000
        detail = "; ".join(str(w.message) for w in said)
        raise RuntimeError(f"distributed training on 'gpu': this CuPy has no NCCL "
                           f"(cupy.cuda.nccl.available is False"
                           f"{': ' + detail if detail else ''}); install NCCL for CUDA "
                           f"{major} (pip install nvidia-nccl-cu{major}) or train on 'cpu' (MPI)")
    return cupy, nccl


class NCCLCommunicator:
    """Collectives over NCCL between the ranks of an MPI communicator, one GPU each.

    Args:
        mpi: the MPICommunicator of the same ranks (its rank, size and timeout are this
            one's; it broadcasts NCCL's unique id and carries host-side messages).
        device: the CUDA device this rank uses (its local rank).
    """

    def __init__(self, mpi, device):
        cupy, nccl = _cupy()
        self._cupy, self._nccl = cupy, nccl
        self.mpi = mpi
        self.rank, self.size, self.timeout = mpi.rank, mpi.size, mpi.timeout
        self.device = cupy.cuda.Device(device)
        uid = np.zeros(129, np.int64)  # [bytes (1) or a tuple of ints (0), 128 values]
        if self.rank == 0:
            drawn = nccl.get_unique_id()  # bytes since CuPy 14, a tuple of ints before
            uid[0] = isinstance(drawn, bytes)
            uid[1:1 + len(drawn)] = list(drawn)
        mpi.broadcast_(uid, 0, "sharing NCCL's unique id")
        values = [int(v) for v in uid[1:]]
        unique_id = bytes(v & 0xFF for v in values) if uid[0] else tuple(values)
        with self.device:
            self.comm = nccl.NcclCommunicator(self.size, unique_id, self.rank)

    def _type(self, array, what):
        name = np.dtype(array.dtype).name
        if name not in _DTYPES:
            raise TypeError(f"{what}: NCCL cannot reduce {name} arrays; expected one of "
                            f"{', '.join(_DTYPES)}")
        return getattr(self._nccl, _DTYPES[name])

    def _device_array(self, array, what):
        if not isinstance(array, self._cupy.ndarray) or not array.flags.c_contiguous:
            raise TypeError(f"{what}: expected a C-contiguous CuPy array on gpu:"
                            f"{self.device.id}, received {type(array).__name__}")
        return array

    def _wait(self, what):
        """Wait for the collective just queued on the current stream, within the timeout.
        Not while the stream is captured into a CUDA graph (the GPU backend replays a
        step as one graph): the host can wait for nothing there, and the stream's order
        alone puts the update after the allreduce; the replays then have no timeout."""
        stream = self._cupy.cuda.get_current_stream()
        if self._cupy.cuda.runtime.streamIsCapturing(stream.ptr):
            return
        event = self._cupy.cuda.Event(disable_timing=True)
        event.record()

        def timed_out():
            self.comm.abort()
            raise CollectiveTimeout(
                f"{what}: rank {self.rank} of {self.size} waited more than "
                f"{self.timeout:g} s for the other ranks' GPUs (NCCL); the NCCL "
                f"communicator was aborted: end the job")
        wait_until(lambda: event.done, self.timeout, timed_out, self.comm.check_async_error)

    def allreduce_(self, buffer, what="allreduce", op="sum"):
        """Sum (or max) the CuPy array `buffer` over the ranks, in place."""
        buffer = self._device_array(buffer, what)
        nccl_op = {"sum": self._nccl.NCCL_SUM, "max": self._nccl.NCCL_MAX}[op]
        stream = self._cupy.cuda.get_current_stream()
        with self.device:
            self.comm.allReduce(buffer.data.ptr, buffer.data.ptr, buffer.size,
                                self._type(buffer, what), nccl_op, stream.ptr)
            self._wait(what)

    def broadcast_(self, buffer, root, what="broadcast"):
        """Rank `root`'s `buffer` on every rank, in place: over NCCL for a CuPy array,
        over MPI for a NumPy one (the optimizer's step count)."""
        if isinstance(buffer, np.ndarray):
            self.mpi.broadcast_(buffer, root, what)
            return
        buffer = self._device_array(buffer, what)
        stream = self._cupy.cuda.get_current_stream()
        with self.device:
            self.comm.bcast(buffer.data.ptr, buffer.size, self._type(buffer, what), root,
                            stream.ptr)
            self._wait(what)

    def allgather(self, row, what="allgather"):
        """Every rank's int64 vector (host memory, through MPI): (size, len)."""
        return self.mpi.allgather(row, what)

    def barrier(self, what="barrier"):
        self.mpi.barrier(what)

    def mean_buffer(self, count, dtype):
        """A GPU buffer of `count` elements averaged over the ranks (`NCCLMean`)."""
        return NCCLMean(self, count, dtype)


class NCCLMean:
    """A CuPy buffer averaged over the ranks by one NCCL allreduce, in place."""

    def __init__(self, comm, count, dtype):
        self.comm = comm
        with comm.device:
            self.input = self.output = comm._cupy.empty(count, np.dtype(dtype))
        self.scale = 1.0 / comm.size

    def __call__(self, what):
        self.comm.allreduce_(self.input, what)
        self.output *= self.scale
