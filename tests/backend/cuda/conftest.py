"""Tests of the CUDA backend: with `simulated_gpu`, plans run its kernels under NumPy."""
import pytest

from backend.cuda.simulated import use_simulated_gpu


@pytest.fixture
def simulated_gpu(monkeypatch):
    use_simulated_gpu(monkeypatch)
