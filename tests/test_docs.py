"""The docs keep up with the code: every docstring example runs, and docs/api.md is the
reference that docs/make_api.py generates from the current docstrings."""
import doctest
import importlib
import os
import pkgutil
import subprocess
import sys

import pytest

import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = sorted(m.name for m in pkgutil.walk_packages(paddle.__path__, "paddle.")
                 if not m.name.endswith("._C") and ".dataset" not in m.name
                 and ".reader" not in m.name)  # those two have their own docstring tests


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    module = importlib.import_module(name)
    for package in getattr(module, "OPTIONAL_REQUIREMENTS", ()):
        pytest.importorskip(package)  # examples of an optional extra need it installed
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"


def test_api_reference_is_up_to_date():
    script = os.path.join(ROOT, "docs", "make_api.py")
    done = subprocess.run([sys.executable, script, "--check"], capture_output=True, text=True)
    assert done.returncode == 0, "docs/api.md is stale: run python docs/make_api.py"
