"""The package as a new user meets it: importing it (from the wrong folder too), its
metadata and LICENSE, and what `help(paddle)` says."""
import os
import shutil
import subprocess
import sys

import paddle as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_importing_the_unbuilt_source_tree_says_so_and_how_to_proceed(tmp_path):
    # A clone's root without the compiled core: Python imports it before the installed
    # package, and used to fail with "partially initialized module (circular import)".
    source = tmp_path / "paddle"
    source.mkdir()
    shutil.copy(pd.__file__, source / "__init__.py")
    done = _python("import paddle", cwd=tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: paddle: the C++ core paddle._C is not built in "
                           f"{source}"), last
    assert "unbuilt source tree" in last and "another folder" in last
    assert "pip install -e ." in last
    assert "circular import" not in done.stderr
