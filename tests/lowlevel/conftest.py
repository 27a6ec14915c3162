"""The op tests run on every device (tests/devices.py): the CPU, the GPU backend simulated
on NumPy, and a real GPU (marked `gpu`, skipped without one).

Files listed in DEVICE_FILES are parametrized; a file is added once the CUDA backend has
kernels for all the ops it tests.
"""
from on_devices import DEVICES, device_fixture

DEVICE_FILES = {"test_activations.py", "test_math.py", "test_matmul.py", "test_reduce.py",
                "test_shape_ops.py", "test_loss_ops.py", "test_nn_conv.py", "test_nn_pool.py",
                "test_nn_norm.py", "test_nn_dropout.py", "test_nn_embedding.py",
                "test_nn_recurrent.py", "test_optimizers.py", "test_optimizers_keras.py",
                "test_training.py", "test_bad_input.py",
                "test_variable_equality.py"}


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames and metafunc.definition.path.name in DEVICE_FILES:
        metafunc.parametrize("device", DEVICES, indirect=True)


device = device_fixture()
