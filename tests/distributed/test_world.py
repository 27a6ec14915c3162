"""pd.distributed in one process (no mpiexec) and in real 2-process MPI jobs: who am I,
allreduce, broadcast, barrier, and the errors for bad use (collectives before init, init
again with other settings, ranks that pass different shapes or dtypes, a timeout)."""
import math

import numpy as np
import pytest

import paddle as pd
from paddle.distributed import world as dist_world


@pytest.fixture
def fresh_world(monkeypatch):
    """No world yet (as in a script before init); restored after the test."""
    monkeypatch.setattr(dist_world, "_WORLD", None)
    monkeypatch.delenv("PADDLE_DISTRIBUTED_TIMEOUT", raising=False)
    monkeypatch.delenv("PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT", raising=False)


# ---- one process ----------------------------------------------------------------------

def test_one_process_world(fresh_world):
    assert (pd.distributed.rank(), pd.distributed.size(), pd.distributed.is_chief()) == \
        (0, 1, True)
    pd.distributed.init()
    pd.distributed.init()  # again, same settings: nothing happens
    assert (pd.distributed.rank(), pd.distributed.size(), pd.distributed.local_rank()) == \
        (0, 1, 0)
    assert not pd.distributed.active()
    pd.distributed.barrier()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = pd.distributed.allreduce(a)
    assert out.dtype == np.float32 and np.array_equal(out, a) and out is not a
    assert pd.distributed.allreduce(np.arange(3), op="mean").dtype == np.float64
    assert pd.distributed.allreduce(np.arange(3), op="sum").dtype == np.int64
    assert pd.distributed.broadcast([1.5, 2.5]).tolist() == [1.5, 2.5]


def test_collectives_before_init_raise(fresh_world):
    for call in (pd.distributed.barrier, lambda: pd.distributed.allreduce(np.ones(2)),
                 lambda: pd.distributed.broadcast(np.ones(2))):
        with pytest.raises(pd.distributed.DistributedError, match="call pd.distributed.init"):
            call()


def test_init_again_with_other_settings_raises(fresh_world):
    pd.distributed.init(timeout=30)
    pd.distributed.init(timeout=30)
    with pytest.raises(pd.distributed.DistributedError, match="already initialized"):
        pd.distributed.init(timeout=10)


@pytest.mark.parametrize("timeout", [0, -1, "soon", True, float("nan")])
def test_bad_timeout(fresh_world, timeout):
    with pytest.raises(ValueError, match="timeout"):
        pd.distributed.init(timeout=timeout)


def test_timeout_from_environment(fresh_world, monkeypatch):
    monkeypatch.setenv("PADDLE_DISTRIBUTED_TIMEOUT", "12.5")
    pd.distributed.init()
    assert dist_world.world().timeout == 12.5
    monkeypatch.setattr(dist_world, "_WORLD", None)
    monkeypatch.setenv("PADDLE_DISTRIBUTED_TIMEOUT", "later")
    with pytest.raises(ValueError, match="PADDLE_DISTRIBUTED_TIMEOUT"):
        pd.distributed.init()
    monkeypatch.setattr(dist_world, "_WORLD", None)
    monkeypatch.delenv("PADDLE_DISTRIBUTED_TIMEOUT")
    pd.distributed.init(timeout=math.inf)


def test_first_step_timeout(fresh_world, monkeypatch):
    pd.distributed.init()
    assert dist_world.world().first_step_timeout == 60.0
    monkeypatch.setattr(dist_world, "_WORLD", None)
    monkeypatch.setenv("PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT", "2.5")
    pd.distributed.init()
    assert dist_world.world().first_step_timeout == 2.5
    with pytest.raises(pd.distributed.DistributedError, match="first_step_timeout=2.5; "
                                                              "received .*first_step_timeout=4"):
        pd.distributed.init(first_step_timeout=4)
    monkeypatch.setattr(dist_world, "_WORLD", None)
    pd.distributed.init(timeout=1, first_step_timeout=30)  # never longer than the timeout
    assert dist_world.world().first_step_timeout == 1.0
    monkeypatch.setattr(dist_world, "_WORLD", None)
    with pytest.raises(ValueError, match="init: first_step_timeout: expected a number of "
                                         "seconds > 0"):
        pd.distributed.init(first_step_timeout=0)
    monkeypatch.setenv("PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="PADDLE_DISTRIBUTED_FIRST_STEP_TIMEOUT: expected a "
                                         "number of seconds, received 'soon'"):
        pd.distributed.init()


def test_bad_collective_arguments(fresh_world):
    pd.distributed.init()
    with pytest.raises(ValueError, match="op 'mean' or 'sum'"):
        pd.distributed.allreduce(np.ones(2), op="max")
    with pytest.raises(TypeError, match="numbers"):
        pd.distributed.allreduce(np.array(["a", "b"]))
    with pytest.raises(ValueError, match=r"root to be a rank in \[0, 1\)"):
        pd.distributed.broadcast(np.ones(2), root=1)
    with pytest.raises(ValueError, match="root"):
        pd.distributed.broadcast(np.ones(2), root=True)


def test_launched_without_mpi4py_raises(fresh_world, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_mpi4py(name, *args, **kwargs):
        if name.startswith("mpi4py"):
            raise ImportError("No module named 'mpi4py'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setenv("PMI_SIZE", "4")
    monkeypatch.setattr(builtins, "__import__", no_mpi4py)
    with pytest.raises(ImportError, match="launched by an MPI process manager with 4"):
        pd.distributed.init()


# ---- two processes --------------------------------------------------------------------

def test_two_ranks_collectives(mpirun):
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        r, n = pd.distributed.rank(), pd.distributed.size()
        assert n == 2 and pd.distributed.active() and pd.distributed.is_chief() == (r == 0)
        assert pd.distributed.local_rank() == r  # one machine
        mean = pd.distributed.allreduce(np.array([r, 10.0 * r], np.float32))
        assert mean.dtype == np.float32 and mean.tolist() == [0.5, 5.0], mean
        total = pd.distributed.allreduce(np.array([[r + 1]]), op="sum")
        assert total.dtype == np.int64 and total.tolist() == [[3]], total
        got = pd.distributed.broadcast(np.full(3, r + 7.0), root=1)
        assert got.tolist() == [8.0, 8.0, 8.0], got
        pd.distributed.barrier()
        print(f"rank {r} ok", flush=True)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0 ok" in done.stdout and "rank 1 ok" in done.stdout


def test_two_ranks_with_different_shapes_or_dtypes_raise_on_every_rank(mpirun):
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        r = pd.distributed.rank()
        for a in (np.ones(3 + r), np.ones(3, np.float32 if r else np.float64)):
            try:
                pd.distributed.allreduce(a)
            except pd.distributed.DistributedError as e:
                print(f"rank {r} caught: {e}", flush=True)
        try:
            pd.distributed.broadcast(np.ones((2, 2 + r)))
        except pd.distributed.DistributedError as e:
            print(f"rank {r} caught: {e}", flush=True)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in (0, 1):
        assert f"rank {r} caught: allreduce: every rank must pass the same shape and dtype; " \
               "array: rank 0 has (3,) float64, rank 1 has (4,) float64" in done.stdout
        assert f"rank {r} caught: allreduce: every rank must pass the same shape and dtype; " \
               "array: rank 0 has (3,) float64, rank 1 has (3,) float32" in done.stdout
        assert f"rank {r} caught: broadcast: every rank must pass the same shape and dtype; " \
               "array: rank 0 has (2, 2) float64, rank 1 has (2, 3) float64" in done.stdout


@pytest.mark.slow
def test_collective_timeout_raises_and_ends_the_job(mpirun):
    done = mpirun("""
        import time, numpy as np, paddle as pd
        pd.distributed.init(timeout=1.5)
        if pd.distributed.rank() == 1:
            time.sleep(60)   # stuck: rank 0 must not wait for it forever
        pd.distributed.allreduce(np.ones(2))
    """, timeout=40)
    assert done.returncode != 0
    assert "CollectiveTimeout: allreduce: rank 0 of 2 waited more than 1.5 s" in done.stderr


def test_collective_timeout_can_be_caught_on_every_waiting_rank(mpirun):
    done = mpirun("""
        import numpy as np, paddle as pd
        from paddle.distributed import world
        pd.distributed.init(timeout=1)
        r = pd.distributed.rank()
        try:
            if r == 0:
                pd.distributed.barrier()
            else:  # the training loop's own messages travel apart: no match for rank 0
                world.world().control.barrier("the loop's barrier")
        except pd.distributed.CollectiveTimeout as e:
            print(f"rank {r} timed out: {e}", flush=True)
    """, timeout=40)
    assert "rank 0 timed out: barrier: rank 0 of 2 waited more than 1 s" in done.stdout, \
        done.stdout + done.stderr
    assert "rank 1 timed out: the loop's barrier: rank 1 of 2" in done.stdout, \
        done.stdout + done.stderr


def test_launched_but_never_initialized_warns(mpirun):
    done = mpirun("""
        import numpy as np, paddle as pd
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        x, y = np.ones((8, 3), np.float32), np.ones((8, 1), np.float32)
        model.fit(x, y, verbose=0)
        model.fit(x, y, verbose=0)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.count("RuntimeWarning: this process is one of 2 started by mpiexec, "
                             "but pd.distributed.init() was not called") == 2  # once a rank
