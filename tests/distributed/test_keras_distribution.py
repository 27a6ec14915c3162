"""pd.distribution: Keras's distribution API over paddle's MPI data parallelism."""
import numpy as np
import pytest

import paddle as pd


def test_one_process_is_a_mesh_of_one_device():
    assert pd.distribution.list_devices() == ["cpu:0"]
    assert pd.distribution.list_devices("gpu") == ["gpu:0"]
    assert pd.distribution.get_device_count() == 1
    mesh = pd.distribution.DeviceMesh((1,), ["batch"])
    dp = pd.distribution.DataParallel(device_mesh=mesh)
    assert dp.get_data_layout((8, 3)).axes == ("batch", None)
    assert dp.get_variable_layout(np.ones((3, 2))).axes == (None, None)
    pd.distribution.set_distribution(dp)
    try:
        assert pd.distribution.distribution() is dp
    finally:
        pd.distribution.set_distribution(None)
    x = np.ones((2, 2))
    assert pd.distribution.distribute_tensor(x, pd.distribution.TensorLayout([None, None])) is x


def test_layout_map_matches_paths():
    mesh = pd.distribution.DeviceMesh((1,), ["model"])
    layouts = pd.distribution.LayoutMap(mesh)
    layouts["dense.*kernel"] = (None, "model")
    assert layouts["block/dense/kernel"].axes == (None, "model")
    assert layouts["block/dense/bias"] is None


def test_what_paddle_cannot_do_says_why():
    with pytest.raises(NotImplementedError, match="no model parallelism"):
        pd.distribution.ModelParallel(layout_map=None)
    sharded = pd.distribution.TensorLayout(["batch", None])
    with pytest.raises(NotImplementedError, match="cannot shard a tensor"):
        pd.distribution.distribute_tensor(np.ones((2, 2)), sharded)
    with pytest.raises(ValueError, match="the job has 1 process"):
        pd.distribution.DataParallel(devices=["cpu:0", "cpu:1"])
    with pytest.raises(ValueError, match=r"shape \(2,\) holds 2 devices, received 1"):
        pd.distribution.DeviceMesh((2,), ["batch"], ["cpu:0"])
    with pytest.raises(ValueError, match="num_processes=4"):
        pd.distribution.initialize(num_processes=4)
    with pytest.raises(ValueError, match="expected a DataParallel or None"):
        pd.distribution.set_distribution("data")


def test_data_parallel_over_two_ranks(mpirun):
    done = mpirun("""
        import numpy as np, paddle as pd
        pd.distribution.set_distribution(pd.distribution.DataParallel())
        devices = pd.distribution.list_devices()
        model = pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(1)])
        model.compile("sgd", "mse")
        x = np.arange(16, dtype="float32").reshape(8, 2) / 16
        model.fit(x, x.sum(1, keepdims=True), batch_size=4, epochs=2, verbose=0)
        w = model.get_weights()[0].ravel().tolist()
        print(f"rank {pd.distributed.rank()}: {devices} {w}", flush=True)
    """, n=2)
    assert done.returncode == 0, done.stderr
    lines = sorted(l for l in done.stdout.splitlines() if l.startswith("rank "))
    assert len(lines) == 2 and "['cpu:0', 'cpu:1']" in lines[0]
    assert lines[0].split(": ", 1)[1] == lines[1].split(": ", 1)[1]  # one model on both ranks
