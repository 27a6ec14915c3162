"""Tests of the CUDA backend: `simulated_gpu` makes 'gpu' the simulated device (NumPy)."""
import pytest

import paddle as pd
from paddle.devices import cuda


@pytest.fixture
def simulated_gpu():
    before = pd.get_device()
    with cuda.simulated():
        pd.set_device("gpu")
        try:
            yield
        finally:
            pd.set_device(before)
