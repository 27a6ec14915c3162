"""The op tests run on every device: the CPU, the GPU backend simulated on NumPy
(`paddle.backend.cuda.simulated()`: the CUDA backend's own code, which CI checks against
the same expectations as the C++ kernels), and a real GPU (marked `gpu`, skipped without
one). A test reaches its device through the default device (pd.set_device), which the
autouse `device` fixture sets; tests that pass device="cpu" stay on the CPU.

Files listed in DEVICE_FILES are parametrized; a file is added once the CUDA backend has
kernels for all the ops it tests.
"""
import contextlib

import pytest

import paddle as pd
from paddle.backend import cuda

DEVICE_FILES = {"test_activations.py", "test_math.py", "test_matmul.py", "test_reduce.py",
                "test_shape_ops.py", "test_loss_ops.py", "test_nn_conv.py", "test_nn_pool.py",
                "test_nn_norm.py", "test_nn_dropout.py", "test_nn_embedding.py",
                "test_nn_recurrent.py", "test_optimizers.py", "test_optimizers_keras.py",
                "test_training.py"}
DEVICES = ["cpu", "simulated_gpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames and metafunc.definition.path.name in DEVICE_FILES:
        metafunc.parametrize("device", DEVICES, indirect=True)


@pytest.fixture(autouse=True)
def device(request):
    """The device the test's ops run on (the default device while the test runs)."""
    name = getattr(request, "param", "cpu")
    before = pd.get_device()
    context = cuda.simulated() if name == "simulated_gpu" else contextlib.nullcontext()
    with context:
        pd.set_device("cpu" if name == "cpu" else "gpu")
        try:
            yield name
        finally:
            pd.set_device(before)
