"""Launching real MPI jobs: `mpirun(script, n)` writes the script to a temporary folder and
runs `mpiexec -n n python script` there, bounded by a timeout. MPI tests skip only when
mpi4py is not installed (pip install ".[mpi]" brings it and the mpiexec of MPICH).

With MPICH's launcher (hydra) each rank's stdout and stderr go to files of their own and
come back joined rank after rank: the ranks' output would otherwise interleave, even
inside a line."""
import glob
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

TIMEOUT = 120


def mpiexec():
    """The mpiexec next to this Python (the mpich wheel puts it in the venv's bin)."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return here if os.path.exists(here) else shutil.which("mpiexec")


def _joined(pattern):
    def rank(path):
        return int(path.rsplit(".", 1)[1])
    parts = []
    for path in sorted(glob.glob(pattern), key=rank):
        with open(path) as f:
            parts.append(f.read())
    return "".join(parts)


@pytest.fixture
def mpirun(tmp_path):
    pytest.importorskip("mpi4py")
    launcher = mpiexec()
    assert launcher, "mpi4py is installed but no mpiexec was found next to Python or on PATH"
    hydra = os.path.exists(os.path.join(os.path.dirname(launcher), "mpiexec.hydra"))
    logs = tmp_path.parent / f"{tmp_path.name}_logs"

    def run(script, n=2, timeout=TIMEOUT, env=None, plain=False):
        path = tmp_path / "job.py"
        path.write_text(textwrap.dedent(script))
        environ = dict(os.environ, OMP_NUM_THREADS="1", **(env or {}))
        split = hydra and not plain
        if split:
            shutil.rmtree(logs, ignore_errors=True)
            logs.mkdir()
        command = [sys.executable, str(path)] if plain else \
            [launcher, "-n", str(n)] + \
            (["-outfile-pattern", f"{logs}/out.%r", "-errfile-pattern", f"{logs}/err.%r"]
             if split else []) + [sys.executable, str(path)]
        try:
            done = subprocess.run(command, cwd=tmp_path, env=environ, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise AssertionError(f"the MPI job did not end within {timeout} s; output so far:\n"
                                 f"{e.stdout}\n{e.stderr}") from None
        if split:
            done.stdout = _joined(f"{logs}/out.*") + done.stdout
            done.stderr = _joined(f"{logs}/err.*") + done.stderr
        return done

    return run
