"""Shared test setup: the test helpers are importable, the `gpu` marker skips without a GPU."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_collection_modifyitems(config, items):
    from paddle.backend import cuda
    if cuda.available:
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU and CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
