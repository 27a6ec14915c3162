"""The GPU communicator (NCCL through CuPy): the error without CuPy, and on machines with
GPUs, real MPI jobs of one rank per GPU (the `gpu` tests skip without one)."""
import sys
import warnings

import pytest

NCCL_JOB = """
    import numpy as np, cupy
    from mpi4py import MPI
    from paddle.distributed import mpi, nccl
    comm = mpi.MPICommunicator(MPI.COMM_WORLD.Dup(), 60)
    r, n = comm.rank, comm.size
    gpu = nccl.NCCLCommunicator(comm, r)
    for count, dtype in ((1, np.float32), (1000, np.float32), (4099, np.float64)):
        mean = gpu.mean_buffer(count, dtype)
        assert isinstance(mean.input, cupy.ndarray) and mean.input.device.id == r
        for step in (1, 2):
            mean.input[...] = cupy.arange(count, dtype=dtype) * (r + 1) * step
            mean("test")
            expected = np.arange(count, dtype=dtype) * (n + 1) / 2 * step
            np.testing.assert_allclose(cupy.asnumpy(mean.output), expected, rtol=1e-6)
    with gpu.device:
        values = cupy.full(5, float(r + 1), np.float32)
        gpu.allreduce_(values, op="max")
        assert cupy.asnumpy(values).tolist() == [float(n)] * 5
        values = cupy.full(3, float(r), np.float64)
        gpu.broadcast_(values, 0)
        assert cupy.asnumpy(values).tolist() == [0.0] * 3
    step = np.array([10 + r], np.int64)        # host arrays (the step count) go over MPI
    gpu.broadcast_(step, 0)
    assert step[0] == 10
    for bad, message in ((np.ones(3, np.float32), "expected a C-contiguous CuPy array"),
                         (cupy.ones(3, np.complex64), "NCCL cannot reduce complex64")):
        try:
            gpu.allreduce_(bad, "test")
        except TypeError as e:
            assert message in str(e), e
        else:
            raise AssertionError("no TypeError")
    print(f"rank {r} of {n}: nccl ok", flush=True)
"""


def test_without_cupy_the_gpu_communicator_says_what_to_install(monkeypatch):
    from paddle.distributed import nccl
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` raises ImportError
    with pytest.raises(RuntimeError, match=r"needs CuPy built with NCCL \(pip install"):
        nccl.NCCLCommunicator(None, 0)


def test_a_cupy_without_libnccl_is_an_error_naming_the_package_for_its_cuda(monkeypatch):
    import types
    from paddle.distributed import nccl

    def missing(name):  # CuPy 14 warns, then says nccl is not available
        if name != "nccl":
            raise AttributeError(name)
        warnings.warn("NCCL library could not be loaded (libnccl.so.2)", UserWarning)
        return types.SimpleNamespace(available=False)
    cuda = types.ModuleType("cupy.cuda")
    cuda.__getattr__ = missing
    cuda.runtime = types.SimpleNamespace(runtimeGetVersion=lambda: 13020)
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)
    with pytest.raises(RuntimeError, match=r"no NCCL .*libnccl.so.2.*install NCCL for CUDA 13 "
                                           r"\(pip install nvidia-nccl-cu13\)"):
        nccl.NCCLCommunicator(None, 0)


def test_gradients_on_another_device_are_refused():
    from paddle.distributed import gradients
    with pytest.raises(ValueError, match="expected device 'cpu' or 'gpu', received 'tpu'"):
        gradients.communicator("tpu")


@pytest.mark.gpu
def test_nccl_communicator_one_rank_per_gpu(mpirun):
    import cupy
    n = min(2, cupy.cuda.runtime.getDeviceCount())  # NCCL takes one rank per GPU
    done = mpirun(NCCL_JOB, n=n)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in range(n):
        assert f"rank {r} of {n}: nccl ok" in done.stdout
