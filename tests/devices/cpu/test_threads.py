"""pd.set_num_threads / pd.get_num_threads as PyTorch users know them, and one share of the
cores per rank by default under MPI (each rank starting one thread per core made a 2-rank
run 3-14x slower)."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import paddle as pd
from paddle.devices.cpu import threads


@pytest.fixture
def restored_threads():
    before = pd.get_num_threads()
    yield
    pd.set_num_threads(before)


def test_set_num_threads_sets_what_get_num_threads_returns(restored_threads):
    for n in (1, 2, 3):
        pd.set_num_threads(n)
        assert pd.get_num_threads() == n
    pd.set_num_threads(np.int64(1))  # any int, as torch.set_num_threads takes
    assert pd.get_num_threads() == 1


def test_the_kernels_run_on_the_threads_set(restored_threads):
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 4096
    want = pd.eval(pd.matmul(pd.constant(x), pd.constant(x)))
    pd.set_num_threads(1)
    assert pd._C.omp_threads() == 1 and pd._C.blas_threads() == 1
    np.testing.assert_allclose(pd.eval(pd.matmul(pd.constant(x), pd.constant(x))), want,
                               rtol=1e-5)


@pytest.mark.parametrize("bad, error, match", [
    (0, ValueError, r"^set_num_threads: expected a number of threads from 1 to \d+ .*received 0$"),
    (-2, ValueError, r"received -2$"),
    (10**6, ValueError, r"received 1000000$"),
    (1.5, TypeError, r"^set_num_threads: expected a positive int, received float 1\.5$"),
    (True, TypeError, r"received bool True$"),
    ("2", TypeError, r"received str '2'$"),
    (None, TypeError, r"received NoneType None$"),
])
def test_set_num_threads_refuses_what_is_not_a_thread_count(restored_threads, bad, error, match):
    with pytest.raises(error, match=match):
        pd.set_num_threads(bad)


@pytest.mark.parametrize("environ, cores, expected", [
    ({}, 8, None),                                                  # not under MPI
    ({"MPI_LOCALNRANKS": "2"}, 8, 4),                               # MPICH, Intel MPI
    ({"OMPI_COMM_WORLD_LOCAL_SIZE": "4"}, 8, 2),                    # Open MPI
    ({"MV2_COMM_WORLD_LOCAL_SIZE": "3"}, 8, 2),                     # MVAPICH2
    ({"MPI_LOCALNRANKS": "16"}, 8, 1),                              # at least one
    ({"MPI_LOCALNRANKS": "1"}, 8, None),                            # alone on the machine
    ({"MPI_LOCALNRANKS": "2", "OMP_NUM_THREADS": "3"}, 8, None),    # the user's word wins
    ({"MPI_LOCALNRANKS": "two"}, 8, None),                          # not a count: ignored
])
def test_the_default_under_mpi_shares_the_cores_among_the_local_ranks(environ, cores, expected):
    assert threads.default_threads(environ, cores) == expected


def _threads_in_a_fresh_process(**environ):
    env = {k: v for k, v in os.environ.items()
           if k != "OMP_NUM_THREADS" and k not in threads.LOCAL_RANKS_VARIABLES}
    env.update(environ)
    done = subprocess.run([sys.executable, "-c", "import paddle; print(paddle.get_num_threads())"],
                          env=env, capture_output=True, text=True, timeout=120,
                          cwd=tempfile.gettempdir())  # the installed paddle, not a checkout's
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_import_under_mpi_sets_one_share_of_the_cores_per_rank():
    cores = threads.available_cores()
    # As many ranks on this machine as cores: one thread each.
    assert _threads_in_a_fresh_process(MPI_LOCALNRANKS=str(cores)) == 1
    assert _threads_in_a_fresh_process(OMPI_COMM_WORLD_LOCAL_SIZE=str(cores)) == 1
    # OMP_NUM_THREADS set by the user wins over the default.
    assert _threads_in_a_fresh_process(MPI_LOCALNRANKS=str(cores), OMP_NUM_THREADS="3") == 3


def _spin_count_in_a_fresh_process(**environ):
    """libgomp's GOMP_SPINCOUNT in a process that imported paddle (OMP_DISPLAY_ENV prints
    it when libgomp starts), and whether GOMP_SPINCOUNT was left in its environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(environ, OMP_DISPLAY_ENV="verbose")
    done = subprocess.run([sys.executable, "-c", "import os, paddle; "
                           "print(os.environ.get('GOMP_SPINCOUNT'))"],
                          env=env, capture_output=True, text=True, timeout=120,
                          cwd=tempfile.gettempdir())
    assert done.returncode == 0, done.stderr
    shown = [ln.split("=")[1].strip().strip("'") for ln in done.stderr.splitlines()
             if ln.strip().startswith("GOMP_SPINCOUNT")]
    return shown[0], done.stdout.strip()


def test_import_keeps_the_kernels_threads_from_spinning_long():
    # libgomp's own default (300,000 spins) made waiting threads burn a loaded machine.
    assert _spin_count_in_a_fresh_process() == (pd._GOMP_SPINCOUNT, "None")
    # The user's word wins, and child processes inherit only what the user set.
    assert _spin_count_in_a_fresh_process(GOMP_SPINCOUNT="777") == ("777", "777")
    shown, left = _spin_count_in_a_fresh_process(OMP_WAIT_POLICY="active")
    assert shown != pd._GOMP_SPINCOUNT and left == "None"
