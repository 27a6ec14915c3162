"""The examples in the dataset docstrings run (those needing downloaded files are skipped)."""
import doctest
import importlib
import inspect

import pytest

MODULES = ["paddle.dataset", "paddle.dataset.common", "paddle.dataset.mnist",
           "paddle.dataset.uci_housing", "paddle.dataset.cifar", "paddle.dataset.digits"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    if name in ("paddle.dataset", "paddle.dataset.digits"):
        pytest.importorskip("sklearn")
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES[1:])
def test_public_functions_have_full_docstrings(name):
    module = importlib.import_module(name)
    for attr, func in vars(module).items():
        if attr.startswith("_") or not inspect.isfunction(func) or func.__module__ != name:
            continue
        doc = inspect.getdoc(func)
        assert doc and "Returns:" in doc and ">>>" in doc, f"{name}.{attr}"
