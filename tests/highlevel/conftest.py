"""The high-level suite runs on every device (tests/on_devices.py): the CPU, the GPU backend
simulated on NumPy, and a real GPU (marked `gpu`, skipped without one): fit, evaluate,
predict, the *_on_batch calls, callbacks, saving and loading, on the default device.

Not parametrized: test_devices.py, which moves models between devices itself, and
test_trainer.py, whose Trainer and Inferencer take their device as `place` ("cpu" by
default; their GPU runs are in test_devices.py).
"""
import gc

import pytest

from on_devices import DEVICES, device_fixture

OWN_DEVICES = {"test_devices.py", "test_trainer.py"}


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames and metafunc.definition.path.name not in OWN_DEVICES:
        metafunc.parametrize("device", DEVICES, indirect=True)


device = device_fixture()


@pytest.fixture
def free_names():
    """For a test that asserts the exact names of what it builds: the objects of earlier
    tests (this test's run on another device, say) that still hold those names through
    reference cycles are collected first."""
    gc.collect()
