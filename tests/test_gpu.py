"""On a real GPU (marked `gpu`: skipped without CuPy and a device): results against the
CPU's, the digits convnet trained on both, models moved between devices, CUDA graphs,
the custom kernels against their NumPy references, device out-of-memory."""
import os
import sys
import warnings

import numpy as np
import pytest

import paddle as pd
from paddle.devices import backend_for, cuda

pytestmark = pytest.mark.gpu

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))


@pytest.fixture
def on_gpu():
    before = pd.get_device()
    pd.set_device("gpu")
    yield
    pd.set_device(before)


def network(dtype):
    """Many ops at once, well conditioned: products, broadcasting, reductions, softmax,
    a loss, and the gradients of it (which bring in sum_to, relu_grad, transposes...)."""
    rng = np.random.default_rng(0)
    x = pd.data(f"gpu_x_{dtype}", shape=[None, 8], dtype=dtype)
    labels = pd.data(f"gpu_y_{dtype}", shape=[None], dtype="int64")
    w1 = pd.constant(rng.standard_normal((8, 16)) * 0.3, dtype=dtype)
    w2 = pd.constant(rng.standard_normal((16, 5)) * 0.3, dtype=dtype)
    h = pd.relu(x @ w1 + 0.1)
    h = pd.concat([pd.tanh(h[:, :8]), pd.sigmoid(h[:, 8:])], axis=1)
    logits = pd.matmul(h, w2) - pd.mean(h, axis=1, keepdims=True)
    loss = pd.mean(pd.softmax_cross_entropy(logits, labels)) + 0.01 * pd.sum(pd.square(w1))
    grads = pd.gradients(loss, [w1, w2, x])
    targets = [pd.softmax(logits), pd.log_softmax(logits), pd.argmax(logits, axis=1),
               pd.max(h, axis=0), pd.transpose(h), loss] + grads
    feeds = {x: rng.standard_normal((32, 8)).astype(dtype),
             labels: rng.integers(0, 5, 32)}
    return targets, feeds


@pytest.mark.parametrize("dtype, rtol", [("float32", 1e-5), ("float64", 1e-10)])
def test_results_match_the_cpu(on_gpu, dtype, rtol):
    targets, feeds = network(dtype)
    got = pd.eval(targets, feeds)
    expected = pd.eval(targets, feeds, device="cpu")
    for a, b in zip(got, expected):
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-1)


def test_a_program_becomes_one_cuda_graph(on_gpu):
    targets, feeds = network("float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a capture that fails warns: fail here
        results = [pd.eval(targets, feeds) for _ in range(4)]
    plan = next(p for t in targets for p in t.__dict__.get("_plans", {}).values()
                if p.device is backend_for("gpu"))
    program = next(iter(plan.specialized.values()))
    assert program.runner.capture.graph is not None and program.runner.capture.fallback is None
    for a, b in zip(results[0], results[-1]):  # replays give the warm-up's results
        np.testing.assert_array_equal(a, b)


def test_fused_kernels_match_their_references():
    import cupy
    from paddle.devices.cuda import elementwise
    dev = backend_for("gpu")
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal(1000).astype(dtype) * 4
        g = rng.standard_normal(1000).astype(dtype)
        for name, args in (("sigmoid", [x]), ("erf", [x]), ("relu_grad", [x, g])):
            build, reference = elementwise._FUSED[name]
            kernel = dev.device_kernel(name, build, reference)
            out = cupy.empty_like(cupy.asarray(x))
            kernel(*[cupy.asarray(a) for a in args], out)
            expected = np.empty_like(x)
            reference(*args, expected)
            np.testing.assert_allclose(out.get(), expected, rtol=1e-6 if dtype == np.float32
                                       else 1e-12, atol=1e-7)


def test_digits_convnet_on_the_gpu_reaches_the_cpus_accuracy():
    from devices.cuda.test_models import digits_accuracy
    cpu, gpu = digits_accuracy("cpu"), digits_accuracy("gpu")
    assert gpu >= cpu - 0.01, (cpu, gpu)


def test_convnet_saved_on_the_gpu_predicts_the_same_on_the_cpu_and_back(tmp_path):
    import digits_convnet as example
    x, y = example.load(pd.dataset.digits.train())
    before = pd.get_device()
    try:
        pd.set_device("gpu")
        pd.seed(0)
        model = example.build_model()
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(x[:256], y[:256], batch_size=32, epochs=2, verbose=0)
        on_gpu = model.predict(x[:64])
        model.save(tmp_path / "convnet.h5")
        pd.set_device("cpu")
        loaded = pd.load_model(tmp_path / "convnet.h5")
        np.testing.assert_allclose(loaded.predict(x[:64]), on_gpu, rtol=1e-4, atol=1e-6)
        loaded.save(tmp_path / "from_cpu.h5")
        pd.set_device("gpu")
        back = pd.load_model(tmp_path / "from_cpu.h5")
        np.testing.assert_allclose(back.predict(x[:64]), on_gpu, rtol=1e-4, atol=1e-6)
    finally:
        pd.set_device(before)


def test_seed_makes_gpu_runs_repeatable(on_gpu):
    x = pd.data("gpu_seed_x", shape=[None, 64])
    y = pd.dropout(x, 0.5)
    runs = []
    for _ in range(2):
        pd.seed(7)
        runs.append([pd.eval(y, {x: np.ones((8, 64), np.float32)}, training=True)
                     for _ in range(3)])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(runs[0][0], runs[0][1])  # new draws every step


@pytest.mark.parametrize("guard", ["gather", "embedding"])
def test_a_bad_computed_index_inside_a_replayed_graph_changes_nothing(on_gpu, guard):
    """The updates' gate is a device flag the graph reads: a replayed step whose index
    check fails raises with the weights, the slots and the step count unchanged."""
    from devices.cuda.test_device import check_a_failed_step_changes_nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a capture that fails warns: fail here
        check_a_failed_step_changes_nothing(guard, good_steps=3)


def test_device_out_of_memory_names_the_op(on_gpu):
    import cupy
    total = cupy.cuda.Device(0).mem_info[1]
    columns = 1 << 17
    rows = -(-6 * total // (10 * columns * 4))  # each product 60% of the device's memory:
    x = pd.data("gpu_oom_x", shape=[None, 1])  # the second does not fit beside the first
    w1 = pd.constant(np.ones((1, columns), np.float32))
    w2 = pd.constant(np.ones((1, columns + 1), np.float32))
    y = pd.sum(x @ w1) + pd.sum(x @ w2)
    with pytest.raises(MemoryError, match="matmul.*out of memory on device gpu:0"):
        pd.eval(y, {x: np.ones((rows, 1), np.float32)})


def test_an_array_larger_than_the_device_names_the_op_and_the_device(on_gpu):
    import cupy
    total = cupy.cuda.Device(0).mem_info[1]
    columns = 1 << 17
    x = pd.data("gpu_huge_x", shape=[None, 1])
    y = pd.sum(x @ pd.constant(np.ones((1, columns), np.float32)))
    with pytest.raises(MemoryError, match=r"matmul.*needs .*, more than device gpu:0's"):
        pd.eval(y, {x: np.ones((-(-2 * total // (columns * 4)), 1), np.float32)})


def test_a_device_that_does_not_exist():
    import cupy
    count = cupy.cuda.runtime.getDeviceCount()
    with pytest.raises(RuntimeError, match=f"device 'gpu:{count}': expected a GPU index "
                                           f"below {count}"):
        pd.set_device(f"gpu:{count}")


def test_available_says_a_gpu_is_there():
    assert cuda.available
