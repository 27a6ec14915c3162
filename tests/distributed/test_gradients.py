"""Averaging gradients over ranks in real MPI jobs: the shared-memory mean (ranks on one
machine) against the allreduce (ranks on several machines), buffers of every size and
dtype, several update ops sharing one window, and ranks that built different buffers."""
import os

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _lowlevel_script():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "training_tests", os.path.join(HERE, "test_training.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LOWLEVEL


MEANS = """
    import numpy as np, paddle as pd
    from paddle.distributed import mpi
    pd.distributed.init()
    comm = pd.distributed.world.world().grads
    r, n = comm.rank, comm.size
    for count in (0, 1, 3, 17, 1000, 4099):
        for dtype in (np.float32, np.float64):
            values = np.random.default_rng(count + r).normal(size=count).astype(dtype)
            shared = comm.mean_buffer(count, dtype)
            assert isinstance(shared, mpi.SharedMean) == (count > 0), type(shared)
            reduced = mpi.AllreduceMean(comm, count, dtype)
            for mean in (shared, reduced):
                for step in range(3):          # the same buffers again, other values
                    mean.input[...] = values * (step + 1)
                    mean("test")
                    expected = sum(np.random.default_rng(count + q).normal(size=count)
                                   .astype(dtype) for q in range(n)) * (step + 1) / n
                    np.testing.assert_allclose(mean.output, expected, rtol=1e-5,
                                               atol=1e-6)
            if n == 2:  # a + b either way: the same bits (more ranks: MPI picks the order)
                np.testing.assert_array_equal(shared.output, reduced.output)
            assert comm.mean_buffer(count, dtype) is shared or count == 0   # reused
    print(f"rank {r} of {n}: means ok", flush=True)
"""


def test_shared_memory_means_on_two_and_three_ranks(mpirun):
    for n in (2, 3):
        done = mpirun(MEANS, n=n)
        assert done.returncode == 0, done.stdout + done.stderr
        for r in range(n):
            assert f"rank {r} of {n}: means ok" in done.stdout


ALLREDUCE_SWITCH = """
    import os
    from paddle.distributed import mpi
    mpi.SHARED_MEMORY = os.environ["AVERAGE"] == "shared"
"""


def test_shared_memory_and_allreduce_train_alike(mpirun, tmp_path):
    """Two ranks sum a + b either way: the parameters after 20 steps agree to the bit."""
    script = ALLREDUCE_SWITCH + _lowlevel_script()
    params = {}
    for average in ("shared", "allreduce"):
        done = mpirun(script, env={"DTYPE": "float32", "OPT": "adam", "AVERAGE": average})
        assert done.returncode == 0, done.stdout + done.stderr
        params[average] = np.load(tmp_path / "lowlevel_2_0.npz")
    shared, reduced = params["shared"], params["allreduce"]
    assert sorted(shared.files) == sorted(reduced.files)
    for k in shared.files:
        np.testing.assert_array_equal(shared[k], reduced[k])


TWINS = """
    import numpy as np, paddle as pd
    from paddle.lowlevel.optimizers import trainable_parameters
    pd.distributed.init()
    r, n = pd.distributed.rank(), pd.distributed.size()
    pd.seed(4)
    x = pd.data("x", [None, 5], "float32")
    y = pd.data("y", [None], "int64")
    with pd.namespace("left"):
        left = pd.fc(x, 3)
    with pd.namespace("right"):
        right = pd.fc(x, 3)
    loss = pd.mean(pd.softmax_cross_entropy(left * right, y))
    # Two update ops whose buffers have the same size: they share one window, in one plan.
    params = trainable_parameters(loss)
    steps = [pd.optimizers.Adam(0.05).minimize(loss, var_list=[v for v in params
                                                               if v.name.startswith(side)])
             for side in ("left", "right")]
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(10 * 16, 5)).astype(np.float32), rng.integers(0, 3, 10 * 16)
    per = 16 // n
    for k in range(10):
        lo = k * 16 + r * per
        pd.eval([loss, *steps], {x: X[lo:lo + per], y: Y[lo:lo + per]})
    np.savez(f"twins_{n}_{r}.npz", **{v.name: v.val() for v in params})
"""


def test_update_ops_of_one_size_share_a_window(mpirun, tmp_path):
    done = mpirun(TWINS)
    assert done.returncode == 0, done.stdout + done.stderr
    one = mpirun(TWINS, plain=True)
    assert one.returncode == 0, one.stdout + one.stderr
    r0, r1, alone = (np.load(tmp_path / name) for name in
                     ("twins_2_0.npz", "twins_2_1.npz", "twins_1_0.npz"))
    assert len(r0.files) == 4
    for k in r0.files:
        np.testing.assert_array_equal(r0[k], r1[k])
        np.testing.assert_allclose(r0[k], alone[k], rtol=0, atol=1e-5)


def test_ranks_that_built_other_buffers_raise_on_every_rank(mpirun):
    # clipping: the gradients are averaged by their own op, prepared before the update's
    # check of the parameters, so the buffers' own check names the difference
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distributed.init()
        r = pd.distributed.rank()
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2 + r)])
        model.compile(optimizer=pd.optimizers.SGD(0.1, clipnorm=1.0), loss="mse")
        try:
            model.train_on_batch(np.ones((4, 3), np.float32), np.ones((4, 2 + r), np.float32))
        except pd.distributed.DistributedError as e:
            print(f"rank {r}: {e}", flush=True)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in (0, 1):
        assert f"rank {r}: averaging gradients (the buffers each rank built): the ranks " \
               "disagree: rank 0 has 8 x float32, rank 1 has 12 x float32" in done.stdout


IN_PLACE = """
    import os, numpy, paddle as pd
    from paddle.distributed import gradients

    class CountingCopies:  # numpy, counting the copies that pack gradients into the buffer
        copies = 0

        def __getattr__(self, name):
            return getattr(numpy, name)

        def concatenate(self, *args, **kwargs):
            CountingCopies.copies += 1
            return numpy.concatenate(*args, **kwargs)

        def copyto(self, *args, **kwargs):
            CountingCopies.copies += 1
            return numpy.copyto(*args, **kwargs)

    gradients.np = CountingCopies()
    if os.environ["DEVICE"] == "simulated gpu":   # the CUDA backend on NumPy
        from paddle.devices import cuda
        simulation = cuda.simulated()
        simulation.__enter__()
        pd.set_device("gpu")
    pd.distributed.init()
    r = pd.distributed.rank()
    model = pd.Sequential([pd.layers.Input(shape=(6,)), pd.layers.Dense(8, activation="relu"),
                           pd.layers.Dense(3)])
    model.compile(optimizer=pd.optimizers.Adam(0.01), loss="mse")
    rng = numpy.random.default_rng(r)
    for step in range(3):
        model.train_on_batch(rng.normal(size=(5, 6)).astype("float32"),
                             rng.normal(size=(5, 3)).astype("float32"))
    print(f"rank {r}: {CountingCopies.copies} copies", flush=True)
"""


@pytest.mark.parametrize("device", ["cpu", "simulated gpu"])
def test_gradients_are_computed_in_the_averaging_buffer(mpirun, device):
    """The executor places every gradient in the averaging buffer: a step copies none (on
    the CPU, and with the GPU backend's update kernel)."""
    done = mpirun(IN_PLACE, env={"DEVICE": device})
    assert done.returncode == 0, done.stdout + done.stderr
    for r in (0, 1):
        assert f"rank {r}: 0 copies" in done.stdout, done.stdout


SPLIT_SWITCH = """
    import os
    from paddle.distributed import sharding
    sharding.ENABLED = os.environ["UPDATE"] == "split"
"""


@pytest.mark.parametrize("n, optimizer", [(2, "decayed"), (3, "adam")])
def test_split_and_whole_updates_train_alike(mpirun, tmp_path, n, optimizer):
    """Each rank updating its share (then passing it on) gives the bits of every rank
    updating everything: parameters and slots, on every rank."""
    script = SPLIT_SWITCH + _lowlevel_script()
    saved = {}
    for update in ("split", "whole"):
        done = mpirun(script, n=n, env={"DTYPE": "float32", "OPT": optimizer,
                                        "UPDATE": update})
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"update split between the ranks: {update == 'split'}" in done.stdout
        saved[update] = [dict(np.load(tmp_path / f"lowlevel_{n}_{r}.npz")) for r in range(n)]
    reference = saved["whole"][0]
    assert any(k.startswith("slot ") for k in reference)
    for rank_saved in saved["split"] + saved["whole"]:
        assert sorted(rank_saved) == sorted(reference)
        for k in reference:
            np.testing.assert_array_equal(rank_saved[k], reference[k], err_msg=k)


def test_an_optimizer_split_on_the_cpu_then_used_on_a_gpu_raises(mpirun):
    """Its slots are then shared by the ranks; an update every rank runs whole (the GPU
    backend's) would write them at once on every rank: a clear error instead."""
    done = mpirun("""
        import numpy as np, paddle as pd
        from paddle.devices import cuda
        pd.distributed.init()
        r = pd.distributed.rank()
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
        model.compile(optimizer=pd.optimizers.Adam(0.1), loss="mse")
        x, y = np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)
        model.train_on_batch(x, y)
        with cuda.simulated(devices=2):
            pd.set_device("gpu")
            try:
                model.train_on_batch(x, y)
            except pd.distributed.DistributedError as e:
                print(f"rank {r}: {e}", flush=True)
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in (0, 1):
        assert f"rank {r}: updating with the optimizer 'adam': expected all its updates " \
               f"on the CPU" in done.stdout and "received an update that every rank runs " \
               "whole (on a GPU)" in done.stdout, done.stdout
