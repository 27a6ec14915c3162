"""examples/c/Makefile: builds predict against the paddle of $(PYTHON), and says which
Python to give when that one has no paddle (it failed with "No module named 'paddle'", then
"paddle_c.h: No such file or directory")."""
import os
import shutil
import subprocess
import sys

import pytest

import paddle as pd
import paddle.capi  # noqa: F401  (pd.capi)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None,
                                reason="needs make and a C compiler")


def _make(tmp_path, python, env=None):
    folder = tmp_path / "c"
    shutil.copytree(os.path.join(ROOT, "examples", "c"), folder)
    return subprocess.run(["make", "-C", str(folder), f"PYTHON={python}"], env=env,
                          capture_output=True, text=True, timeout=300), folder


def test_make_with_a_python_without_paddle_says_which_python_to_give(tmp_path):
    # -I -S: no site-packages, no current folder, so no paddle, wherever it is installed.
    done, folder = _make(tmp_path, f"{sys.executable} -I -S")
    assert done.returncode != 0
    assert "has no paddle with its C API" in done.stderr
    assert "make PYTHON=../../.venv/bin/python" in done.stderr
    assert "paddle_c.h" not in done.stderr and "cc " not in done.stdout  # never compiled
    assert not (folder / "predict").exists()


def test_make_builds_predict_against_the_paddle_of_the_python_given(tmp_path):
    try:
        pd.capi.library_path()
    except FileNotFoundError:
        pytest.skip("libpaddle_c was not built (a Python without a shared libpython)")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(pd.__file__)))
    done, folder = _make(tmp_path, sys.executable, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "predict").exists()
