"""The devices a test suite runs on: the CPU, the GPU backend simulated on NumPy
(`paddle.devices.cuda.simulated()`: the CUDA backend's own code, which CI checks against the
same expectations as the C++ kernels), and a real GPU (marked `gpu`, skipped without one).
A suite's conftest parametrizes its tests with `DEVICES` through the `device` fixture made
by `device_fixture`, which sets the default device (pd.set_device) while the test runs;
code that passes device="cpu" stays on the CPU."""
import contextlib

import pytest

import paddle as pd
from paddle.devices import cuda

DEVICES = ["cpu", "simulated_gpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def device_fixture():
    """The autouse `device` fixture: the test's parameter ('cpu' unparametrized) as the
    default device while it runs; the fixture's value is that name."""
    @pytest.fixture(autouse=True)
    def device(request):
        name = getattr(request, "param", "cpu")
        before = pd.get_device()
        context = cuda.simulated() if name == "simulated_gpu" else contextlib.nullcontext()
        with context:
            pd.set_device("cpu" if name == "cpu" else "gpu")
            try:
                yield name
            finally:
                pd.set_device(before)
    return device
