"""The GPU device as the executor sees it, on the simulated device (NumPy arrays, the CUDA
backend's code): stored state lives on the device across runs and the host reads it back
on demand; feeds go up once per run, results come down only for the targets; device
errors name the device and what was expected."""
import sys
import types

import numpy as np
import pytest

import paddle as pd
from paddle.devices import CPU, backend_for, cuda, mirrors


@pytest.fixture
def gpu():
    with cuda.simulated():
        yield backend_for("gpu")


def test_simulated_gpu_is_the_default_inside_and_restored_after():
    before = pd.get_device()
    with cuda.simulated():
        pd.set_device("gpu")
        assert pd.get_device() == "gpu:0"
        dev = backend_for(None)
        assert dev.name == "gpu:0" and dev.simulated and dev.xp is np
        with pytest.raises(RuntimeError, match=r"device 'gpu:1': expected a GPU index below 1 "
                                               r"\(the simulated devices\), received 1"):
            pd.set_device("gpu:1")
    assert pd.get_device() == before
    with cuda.simulated(devices=2):
        assert backend_for("gpu:1").name == "gpu:1"
    with pytest.raises(ValueError, match="expected a positive number of devices"):
        with cuda.simulated(devices=0):
            pass


def test_a_parameter_lives_on_the_device_between_runs(gpu):
    w = pd.Variable("dev_w", shape=[3], initializer="ones")
    step = pd.assign(w, w * 2.0)
    pd.eval(step, device="gpu")
    pd.eval(step, device="gpu")
    # The update went to the device copy; the host array is stale until read.
    assert w._value.tolist() == [1.0, 1.0, 1.0]
    assert w.val().tolist() == [4.0, 4.0, 4.0]
    assert w.value.tolist() == [4.0, 4.0, 4.0] and w._value.tolist() == [4.0, 4.0, 4.0]
    # A host write goes up before the next device run.
    w.set_value(np.array([1.0, 2.0, 3.0]))
    pd.eval(step, device="gpu")
    assert w.val().tolist() == [2.0, 4.0, 6.0]
    # The CPU reads the device's update, and the device reads the CPU's.
    pd.eval(step, device="cpu")
    assert w.val().tolist() == [4.0, 8.0, 12.0]
    pd.eval(step, device="gpu")
    assert w.val().tolist() == [8.0, 16.0, 24.0]


def test_feeds_go_up_once_and_only_targets_come_down(gpu, monkeypatch):
    counts = {"upload": 0, "download": 0}
    up, down = type(gpu).upload, type(gpu).download

    def upload(self, buffer, host):
        counts["upload"] += 1
        return up(self, buffer, host)

    def download(self, buffer):
        counts["download"] += 1
        return down(self, buffer)
    x = pd.data("dev_x", shape=[None, 3])
    w = pd.Variable("dev_w2", shape=[3, 2])
    b = pd.Variable("dev_b2", shape=[2], initializer="ones")
    y = pd.relu(x @ w + b)
    loss = pd.sum(y)
    pd.eval(loss, {x: np.ones((4, 3))}, device="gpu")  # prepared: parameters go up once
    monkeypatch.setattr(type(gpu), "upload", upload)
    monkeypatch.setattr(type(gpu), "download", download)
    for _ in range(3):
        pd.eval(loss, {x: np.ones((4, 3))}, device="gpu")
    assert counts == {"upload": 3, "download": 3}  # one feed up, one result down per run
    expected = pd.eval(loss, {x: np.ones((4, 3))}, device="cpu")
    np.testing.assert_allclose(pd.eval(loss, {x: np.ones((4, 3))}, device="gpu"), expected,
                               rtol=1e-6)


def test_results_are_from_before_the_updates(gpu):
    w = pd.Variable("dev_w3", shape=[2], initializer="ones")
    double = w * 2.0
    step = pd.assign(w, double)
    got = pd.eval([w, double, step], device="gpu")
    assert got[0].tolist() == [1.0, 1.0] and got[1].tolist() == [2.0, 2.0] and got[2] is None
    assert pd.eval(w, device="gpu").tolist() == [2.0, 2.0]


def test_a_model_built_on_the_cpu_runs_on_the_gpu_and_back(gpu):
    pd.seed(3)
    x = pd.data("dev_x4", shape=[None, 4])
    y = pd.fc(x, 3, act="tanh", name="dev_fc4")
    feed = {x: np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)}
    on_cpu = pd.eval(y, feed)
    on_gpu = pd.eval(y, feed, device="gpu")
    np.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-5, atol=1e-6)


def test_feed_errors_are_the_cpus_and_name_the_device(gpu):
    x = pd.data("dev_x5", shape=[None, 2], dtype="int64")
    with pytest.raises(pd.FeedError, match="input 'dev_x5': expected int64, received float.* "
                                           r"\(for a run on gpu:0\)$"):
        pd.eval(x + 1, {x: np.ones((1, 2))}, device="gpu")
    with pytest.raises(pd.FeedError, match=r"expected shape \(None, 2\), received \(1, 3\).*"
                                           r"\(for a run on gpu:0\)$"):
        pd.eval(x + 1, {x: np.ones((1, 3), np.int64)}, device="gpu")


def test_a_feed_already_on_a_gpu_is_refused(gpu):
    class DeviceArray:  # what CuPy and other GPU arrays expose
        __cuda_array_interface__ = {"shape": (1, 2), "typestr": "<f4", "version": 3}
    x = pd.data("dev_x6", shape=[None, 2])
    with pytest.raises(pd.FeedError, match="input 'dev_x6': expected a host array .*received "
                                           r"a [\w.]*DeviceArray in GPU memory.*\(for a run "
                                           r"on gpu:0\)$"):
        pd.eval(x * 2.0, {x: DeviceArray()}, device="gpu")


def test_a_computed_index_outside_is_reported_after_the_run_naming_the_op(gpu):
    table = pd.constant(np.arange(6.0).reshape(3, 2))
    ids = pd.data("dev_ids", shape=[None], dtype="int64")
    y = pd.gather(table, ids + 1)       # indices made on the device: checked there
    with pytest.raises(IndexError, match=r"gather: index 7 at position 1 is outside \[0, 3\) "
                                         r"\(in gather, built at test_device.py:\d+\)"):
        pd.eval(y, {ids: np.array([-1, 6, 8])}, device="gpu")
    assert pd.eval(y, {ids: np.array([1, -1])}, device="gpu").tolist() == [[4.0, 5.0],
                                                                           [0.0, 1.0]]


@pytest.mark.parametrize("guard", ["gather", "embedding"])
def test_a_computed_index_outside_leaves_parameters_and_slots_unchanged(simulated_gpu, guard):
    """Indices made on the device are checked there (no host sync): the updates of that run
    write under the gate the checks set, so the step raises with the weights, the optimizer's
    slots, an assigned variable and the step count as they were, as on the CPU."""
    check_a_failed_step_changes_nothing(guard, good_steps=1)


def check_a_failed_step_changes_nothing(guard, good_steps):
    """On the current device: `good_steps` training steps, then one whose computed index is
    outside the table (it raises and changes nothing), then a good one (it updates). On a
    GPU, from the third run on a step is a CUDA graph replay (tests/test_gpu.py). (gather
    reads a constant table: its gradient would be a scatter_add, which may not capture.)"""
    table = pd.Variable(f"dev_gate_table_{guard}", shape=[3, 2], initializer="ones")
    scale = pd.Variable(f"dev_gate_scale_{guard}", shape=[2], initializer="ones")
    seen = pd.Variable(f"dev_gate_seen_{guard}", shape=[], initializer="zeros")
    ids = pd.data(f"dev_gate_ids_{guard}", shape=[None], dtype="int64")
    shifted = ids + 1                   # indices made on the device: not the fed values
    rows = pd.gather(pd.constant(np.ones((3, 2)), "float32"), shifted) if guard == "gather" \
        else pd.embedding(shifted, table)
    loss = pd.sum(rows * rows * scale)
    optimizer = pd.optimizers.Adam(0.1)
    step = optimizer.minimize(loss)
    count = pd.assign(seen, seen + 1.0)
    good, bad = np.array([0, 1]), np.array([0, 4])
    for _ in range(good_steps):
        pd.eval([loss, step, count], {ids: good})
    weights = [v.val() for v in (table, scale)]
    slots = {name: a.copy() for name, a in optimizer.slots(scale).items()}
    assert len(slots) == 2 and all(a.any() for a in slots.values())
    with pytest.raises(IndexError, match=r"(index|id) 5 at position 1 .*\(in \w+, built at "
                                         r"test_device.py:\d+\)"):
        pd.eval([loss, step, count], {ids: bad})
    for v, before in zip((table, scale), weights):
        np.testing.assert_array_equal(v.val(), before)
    for name, got in optimizer.slots(scale).items():
        np.testing.assert_array_equal(got, slots[name])
    assert seen.val() == good_steps and optimizer.iterations == good_steps
    pd.eval([loss, step, count], {ids: good})  # the gate opens again
    assert seen.val() == good_steps + 1 and optimizer.iterations == good_steps + 1
    assert not np.array_equal(scale.val(), weights[1])


def test_a_dropped_training_graph_is_freed_without_the_garbage_collector(simulated_gpu):
    """The GPU kernels' hooks (an optimizer's step scalars, the deferred index checks, the
    random seeds) hold no cycle back to the plan: dropped, a training graph is freed by
    reference counting, as on the CPU (tests/lowlevel/test_executor.py)."""
    import gc
    import weakref
    gc.collect()
    gc.disable()
    try:
        table = pd.Variable("dev_freed_table", shape=[5, 4], initializer="ones")
        ids = pd.data("dev_freed_ids", shape=[None], dtype="int64")
        labels = pd.data("dev_freed_labels", shape=[None], dtype="int64")
        rows = pd.dropout(pd.embedding(ids + 0, table), 0.5)   # a computed id: checked there
        loss = pd.mean(pd.softmax_cross_entropy(rows, labels))
        step = pd.optimizers.Adam(0.1).minimize(loss)
        pd.eval([loss, step], {ids: np.array([0, 3]), labels: np.array([1, 2])},
                training=True)
        refs = [weakref.ref(loss), weakref.ref(table)]
        del table, ids, labels, rows, loss, step
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()


@pytest.mark.parametrize("op", ["gather", "labels", "embedding", "cast"])
def test_a_fed_index_outside_stops_the_step_before_it_runs(gpu, op):
    """Fed indices (token ids, class labels; also fed as floats, then cast on the device)
    are checked on the host before the upload: the error is the CPU's, and the step's
    updates never run."""
    w = pd.Variable(f"dev_table_{op}", shape=[3, 2], initializer="ones")
    ids = pd.data(f"dev_fed_ids_{op}", shape=[None], dtype="float32" if op == "cast" else "int64")
    if op == "cast":                    # through a view and a cast: still the fed values
        loss = pd.sum(pd.gather(w, pd.cast(pd.reshape(ids, [-1, 1]), "int64")))
        error = IndexError, r"gather: index 5 at position 2 is outside \[0, 3\)"
    elif op == "labels":
        loss = pd.mean(pd.softmax_cross_entropy(w, ids))
        error = ValueError, r"label 5 at position 2 is outside the 2 classes \[0, 2\)"
    elif op == "gather":
        loss = pd.sum(pd.gather(w, ids))
        error = IndexError, r"gather: index 5 at position 2 is outside \[0, 3\)"
    else:
        loss = pd.sum(pd.embedding(ids, w))
        error = IndexError, r"embedding: id 5 at position 2 is outside the table's 3 rows"
    optimizer = pd.optimizers.SGD(0.1)
    step = optimizer.minimize(loss)
    bad, good = np.array([0, 1, 5]), np.array([0, 1, 1])
    with pytest.raises(error[0], match=error[1] + r".* \(in \w+, built at test_device.py:\d+\)"):
        pd.eval([loss, step], {ids: bad}, device="gpu")
    assert w.val().tolist() == [[1.0, 1.0]] * 3 and optimizer.iterations == 0
    pd.eval([loss, step], {ids: good}, device="gpu")
    assert optimizer.iterations == 1 and w.val()[1].tolist() != [1.0, 1.0]


def test_out_of_memory_names_what_was_allocated(gpu):
    with pytest.raises(MemoryError, match="matmul \\(built at x.py:1\\)"):
        gpu.empty((1 << 50, 1 << 10), np.float32, "matmul (built at x.py:1)")


def test_out_of_memory_while_a_step_runs_names_the_op(gpu, monkeypatch):
    class OutOfMemoryError(MemoryError):  # as CuPy's: made from sizes, not from a message
        def __init__(self, size, total):
            super().__init__(f"Out of memory allocating {size:,} bytes "
                             f"(allocated so far: {total:,} bytes).")

    def exp_that_allocates(node, ins, outs, ctx):
        def run():
            raise OutOfMemoryError(1 << 33, 1 << 30)
        return run
    monkeypatch.setitem(cuda.KERNELS, "exp", exp_that_allocates)
    x = pd.data("dev_oom_x", shape=[None])
    with pytest.raises(MemoryError, match=r"Out of memory allocating 8,589,934,592 bytes .* "
                                          r"\(in exp, built at test_device.py:\d+, on "
                                          r"device gpu:0\)"):
        pd.eval(pd.exp(x) + 1.0, {x: np.ones(3, np.float32)}, device="gpu")


def test_device_copies_follow_their_host_arrays(gpu):
    a = np.arange(3.0)
    copy = mirrors.on_device(a, gpu, "a")
    assert copy is not a and copy.tolist() == [0.0, 1.0, 2.0]
    assert mirrors.on_device(a, CPU, "a") is a
    copy[...] = 5.0
    mirrors.written([a], gpu)
    assert mirrors.on_host(a).tolist() == [5.0, 5.0, 5.0]
    a[...] = 1.0
    mirrors.host_written(a)
    mirrors.sync([a], gpu)
    assert copy.tolist() == [1.0, 1.0, 1.0]
    key = id(a)
    del a, copy
    assert key not in mirrors._MIRRORS  # the entry goes with its host array


# ---- a real GPU that cannot be used: CuPy stand-ins --------------------------------------

def fake_cupy(count=1, driver_error=None, oom=False, compile_error=None):
    cupy = types.ModuleType("cupy")

    class Runtime:
        @staticmethod
        def getDeviceCount():
            if driver_error:
                raise RuntimeError(driver_error)
            return count

    class OutOfMemoryError(Exception):
        pass

    class Device:
        mem_info = (8 << 30, 16 << 30)  # free, total

        def __init__(self, index):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    class Stream(Device):
        def __init__(self, non_blocking=False):
            pass

    def empty(shape, dtype):
        if oom:
            raise OutOfMemoryError("out of memory allocating 4,294,967,296 bytes")
        return np.empty(shape, dtype)
    cupy.cuda = types.SimpleNamespace(runtime=Runtime, Device=Device, Stream=Stream,
                                      memory=types.SimpleNamespace(
                                          OutOfMemoryError=OutOfMemoryError))
    def arange(*args, **kwargs):  # the backend's first kernel: CuPy compiles it
        if compile_error:
            raise RuntimeError(compile_error)
        return np.arange(*args, **kwargs)
    cupy.empty, cupy.arange = empty, arange
    return cupy


@pytest.fixture
def no_cached_backends(monkeypatch):
    monkeypatch.setattr(cuda, "_BACKENDS", {})


def test_without_cupy_the_error_names_the_device(no_cached_backends, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    with pytest.raises(RuntimeError, match="device 'gpu': expected CuPy for the GPU backend"):
        pd.set_device("gpu")
    assert pd.get_device() == "cpu"


def test_without_a_driver_the_error_says_so(no_cached_backends, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(driver_error="cudaErrorNoDevice"))
    with pytest.raises(RuntimeError, match="device 'gpu:0': expected a working NVIDIA driver, "
                                           "CUDA reports: cudaErrorNoDevice"):
        backend_for("gpu:0")


def test_a_device_index_that_does_not_exist(no_cached_backends, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(count=2))
    with pytest.raises(RuntimeError, match=r"device 'gpu:2': expected a GPU index below 2 "
                                           r"\(the GPUs visible here\), received 2"):
        backend_for("gpu:2")


def test_missing_cuda_headers_are_an_error_naming_the_device(no_cached_backends,
                                                             monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(
        compile_error="Failed to auto-detect CUDA root directory (set CUDA_PATH)"))
    with pytest.raises(RuntimeError, match=r"device 'gpu:0': CuPy cannot compile its GPU "
                                           r"kernels .*CUDA_PATH.*install the CUDA toolkit"):
        backend_for("gpu:0")


def test_an_array_larger_than_the_device_is_refused_before_cupy_is_asked(
        no_cached_backends, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy())
    dev = backend_for("gpu")
    with pytest.raises(MemoryError, match=r"^param 'w': an array of shape \(1099511627776,\) "
                                          r"\(float32\) needs 4.0 TiB, more than device "
                                          r"gpu:0's 16.0 GiB of memory$"):
        dev.empty((1 << 40,), np.float32, "param 'w'")
    assert dev.empty((4, 4), np.float32, "fits").shape == (4, 4)


def test_device_out_of_memory_is_a_memory_error(no_cached_backends, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(oom=True))
    dev = backend_for("gpu")
    with pytest.raises(MemoryError, match=r"param 'w': out of memory on device gpu:0 for an "
                                          r"array of shape \(1024, 1024\) \(float32\)"):
        dev.empty((1024, 1024), np.float32, "param 'w'")


def test_an_upload_keeps_the_buffers_shape_zero_dimensional_included():
    from paddle.devices.cuda import host_copy_for
    for shape, host in (((), np.float64(3)), ((), np.array(3.0)), ((1,), [2.0]),
                        ((2, 3), np.arange(6.0).reshape(3, 2).T)):
        got = host_copy_for(np.empty(shape, np.float32), host)
        assert got.shape == shape and got.dtype == np.float32 and got.flags.c_contiguous
        np.testing.assert_array_equal(got, np.asarray(host, np.float32).reshape(shape))
