"""The op tests run on every device (tests/on_devices.py): the CPU, the GPU backend simulated
on NumPy, and a real GPU (marked `gpu`, skipped without one).

Files listed in DEVICE_FILES (paths from this folder) are parametrized; a file is added
once the CUDA backend has kernels for all the ops it tests.
"""
from pathlib import Path

from on_devices import DEVICES, device_fixture

HERE = Path(__file__).parent

DEVICE_FILES = {"ops/test_activations.py", "ops/test_math.py", "ops/test_matmul.py",
                "ops/test_reduce.py", "ops/test_shape.py", "ops/test_losses.py",
                "ops/test_conv.py", "ops/test_pool.py", "ops/test_norm.py", "ops/test_nn.py",
                "ops/test_recurrent.py", "ops/test_sort.py", "ops/test_storage_dtypes.py",
                "test_optimizers.py",
                "test_optimizers_keras.py",
                "test_training.py", "test_bad_input.py", "test_variable_equality.py",
                "test_fusion.py", "test_fold_batch_norm.py"}


def pytest_generate_tests(metafunc):
    path = metafunc.definition.path.relative_to(HERE).as_posix()
    if "device" in metafunc.fixturenames and path in DEVICE_FILES:
        metafunc.parametrize("device", DEVICES, indirect=True)


device = device_fixture()
