"""pd.ops tests run on every device (tests/on_devices.py): the CPU, the GPU backend simulated
on NumPy, and a real GPU (marked `gpu`, skipped without one), for the tests that take the
`device` argument (the autouse fixture alone keeps the others on the CPU, once)."""
import inspect

from on_devices import DEVICES, device_fixture


def pytest_generate_tests(metafunc):
    if "device" in inspect.signature(metafunc.function).parameters:
        metafunc.parametrize("device", DEVICES, indirect=True)


device = device_fixture()
