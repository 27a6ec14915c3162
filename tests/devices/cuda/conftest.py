"""Tests of the CUDA backend: `simulated_gpu` makes 'gpu' the simulated device (NumPy)."""
import pytest

import paddle as pd
from paddle.devices import cuda
from paddle.lowlevel.eager import tracing


@pytest.fixture
def simulated_gpu():
    before = pd.get_device()
    with cuda.simulated():
        pd.set_device("gpu")
        try:
            yield
        finally:
            pd.set_device(before)


@pytest.fixture(autouse=True)
def graph_nodes():
    """These tests compare the kernels of single nodes (`y.node`) across backends: ops are
    built as graph nodes even on constants (paddle.lowlevel.eager.tracing), where outside
    a trace they would run at once and have no node (spec 1b)."""
    with tracing():
        yield
