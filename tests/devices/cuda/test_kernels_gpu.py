"""On a GPU: every CUDA kernel of csrc/cuda/ against its NumPy reference, through the prepare
functions that launch them (the same node, the same inputs, the device's outputs against
the simulated run's), and the launches captured in a CUDA graph and replayed. Skipped
without CuPy and a device (tests/conftest.py)."""
import numpy as np
import pytest

import paddle as pd
from devices.cuda import test_conv, test_optim, test_pool, test_recurrent
from devices.cuda.simulated import Prepared, backend, run_node

from paddle.lowlevel.executor import topological_nodes

pytestmark = pytest.mark.gpu


def _both(node, feeds=None, training=False, seed=0, repeat=1):
    """((outputs, inputs) on the GPU, (outputs, inputs) simulated) after `repeat` runs of
    the node's kernel on the same inputs (the same random keys: pd.seed(seed) first)."""
    got_ins, got = run_node(node, "gpu", feeds, training, repeat, seed)
    want_ins, want = run_node(node, "simulated", feeds, training, repeat, seed)
    return (got, got_ins), (want, want_ins)


def _close(got, want, dtype):
    tol = 1e-5 if np.dtype(dtype) == np.float32 else 1e-10
    for g, w in zip(got, want):
        if np.asarray(w).dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", test_conv.CASES)
def test_conv_kernels(case, dtype):
    x, f, y, feeds = test_conv._conv(*case, dtype=dtype, bias=True)
    dx, df = pd.gradients(pd.sum(y * y), [x, f])
    for node in (y.node, dx.node, df.node):
        (got, _), (want, _) = _both(node, feeds)
        _close(got, want, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("xs,k,s,padding", test_pool.CASES)
def test_pool_kernels(kind, xs, k, s, padding, dtype):
    x = pd.data("x", shape=xs, dtype=dtype)
    y = (pd.max_pool2d if kind == "max" else pd.avg_pool2d)(x, k, s, padding)
    v = pd.constant(np.random.default_rng(1).standard_normal(xs), dtype)
    (dx,) = pd.gradients(pd.sum(y * y), [x])
    feeds = {x: test_pool.rand(*xs).astype(dtype)}
    nodes = [y.node, dx.node]
    if kind == "max":
        (gg,) = pd.gradients(pd.sum(dx * v), [x])
        nodes += [n for n in topological_nodes([gg]) if n.op.name == "max_pool2d_select"]
    for node in nodes:
        (got, _), (want, _) = _both(node, feeds)
        _close(got, want, dtype)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_norm_kernels(training, dtype):
    from devices.cuda.test_norm import _bn_graph
    x, y, feeds = _bn_graph((300, 4, 3, 5), 1, dtype)
    (got, got_ins), (want, want_ins) = _both(y.node, feeds, training)
    _close(got + got_ins[3:5], want + want_ins[3:5], dtype)
    (dx,) = pd.gradients(pd.sum(y * y), [x])
    node = next(n for n in topological_nodes([dx]) if n.op.name == "batch_norm_grad")
    (got, _), (want, _) = _both(node, feeds, training)
    _close(got, want, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_kernel_and_its_check(dtype):
    table = pd.constant(np.random.default_rng(1).standard_normal((50, 8)), dtype)
    ids = pd.data("ids", shape=(4, 6), dtype="int64")
    node = pd.embedding(ids, table).node
    feeds = {ids: np.random.default_rng(2).integers(0, 50, (4, 6))}
    (got, _), (want, _) = _both(node, feeds)
    np.testing.assert_array_equal(got[0], want[0])
    bad = dict(feeds)
    bad[ids] = bad[ids].copy()
    bad[ids][2, 3] = 50
    with pytest.raises(IndexError, match="embedding: id 50 at position 15 is outside"):
        _both(node, bad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_scatter_add_kernel(axis, dtype):
    """gather's adjoint: repeated indices add up (atomics), along any axis."""
    shape = (4, 5, 3)
    x = pd.data("x", shape=shape, dtype=dtype)
    idx = np.array([[0, 2, 2], [shape[axis] - 1, 0, 2]])  # repeats
    y = pd.gather(x, pd.constant(idx), axis=axis)
    v = pd.constant(np.random.default_rng(3).standard_normal(y.shape), dtype)
    (dx,) = pd.gradients(pd.sum(y * v), [x])
    node = next(n for n in topological_nodes([dx]) if n.op.name == "scatter_add")
    feeds = {x: np.random.default_rng(4).standard_normal(shape).astype(dtype)}
    (got, _), (want, _) = _both(node, feeds)
    _close(got, want, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("kind", ["uniform", "normal", "truncated_normal", "randint",
                                  "keep_mask", "permutation", "gamma"])
def test_random_kernels_draw_the_references_numbers(kind, dtype):
    from paddle.lowlevel.ops.sampling import random
    ints = np.dtype(dtype).kind == "i"
    if (kind == "permutation" and not ints) or (kind not in ("randint", "permutation") and ints):
        pytest.skip(f"{kind} does not make {dtype} values")
    a, b = {"keep_mask": (0.3, 2.0), "randint": (-5.0, 9.0)}.get(kind, (0.5, 2.0))
    node = random((1000,), kind, a, b, dtype, seed_fn=pd.lowlevel.random_state.next_seed).node
    (got, _), (want, _) = _both(node, repeat=3)  # the third run: its seed from pd.seed(0)
    if kind in ("normal", "truncated_normal", "gamma"):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6 if dtype == "float32" else 1e-12,
                                   atol=1e-12)
    else:
        np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_of_a_tensor_of_shapes_draws_the_references_numbers(dtype):
    from paddle.lowlevel.ops.sampling import random_gamma
    alpha = pd.data("alpha", shape=(1000,), dtype=dtype)
    node = random_gamma(alpha, pd.lowlevel.random_state.next_seed).node
    feeds = {alpha: np.linspace(0.1, 6.0, 1000).astype(dtype)}
    (got, _), (want, _) = _both(node, feeds, repeat=3)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["lstm", "gru", "gru_classic"])
@pytest.mark.parametrize("use_mask,use_rdrop", [(False, False), (True, True)])
def test_recurrent_kernels(kind, use_mask, use_rdrop, dtype):
    x, out, feeds = test_recurrent._graph(kind, 5, 6, 7, 8, dtype, True, use_mask,
                                             use_rdrop)
    outs = list(out)
    (got, _), (want, _) = _both(outs[0].node, feeds)
    _close(got, want, dtype)
    grads = pd.gradients(sum(pd.sum(o * o) for o in outs), [x])
    node = next(n for n in topological_nodes(grads) if n.op.name in ("lstm_grad", "gru_grad"))
    (got, _), (want, _) = _both(node, feeds)
    _close(got, want, dtype)


def _capture(prepared):
    """One warm-up run of the prepared kernel's launches (CuPy compiles and caches its
    kernels outside any capture), then a CUDA graph of them captured on the device's stream
    (as paddle/devices/cuda/graph.py does); nothing runs during the capture."""
    stream = prepared.dev.stream
    with prepared.dev.activated():
        prepared.call()
        stream.begin_capture()
        prepared.call()
        graph = stream.end_capture()
    return graph, stream


def test_dropout_draws_new_numbers_at_each_graph_replay():
    """Before each replay the host writes the run's seed (paddle's random state) into the
    device word the captured kernel reads: every replay draws the CPU kernel's mask."""
    import cupy
    from paddle import _C
    node = pd.dropout(pd.data("x", shape=(64, 33)), 0.5).node
    xs = cupy.ones((64, 33), cupy.float32)
    y, mask = cupy.zeros_like(xs), cupy.zeros_like(xs)
    pd.seed(4)
    prepared = Prepared(node, [xs], [y, mask], backend("gpu"), training=True)
    for fn in prepared.hooks.before:  # the warm-up run's seed
        fn()
    graph, stream = _capture(prepared)
    got = []
    for _ in range(3):
        for fn in prepared.hooks.before:
            fn()
        graph.launch(stream)
        stream.synchronize()
        got.append((cupy.asnumpy(y), cupy.asnumpy(mask)))
    assert not np.array_equal(got[0][1], got[1][1]) and not np.array_equal(got[1][1], got[2][1])
    pd.seed(4)
    pd.lowlevel.random_state.next_seed()  # the warm-up's
    ones = np.ones((64, 33), np.float32)
    for y_got, mask_got in got:
        want_y, want_mask = np.empty_like(ones), np.empty_like(ones)
        _C.dropout(ones, want_y, want_mask, 0.5, pd.lowlevel.random_state.next_seed())
        np.testing.assert_array_equal(mask_got, want_mask)
        np.testing.assert_array_equal(y_got, want_y)


def _scheduled_adam():
    return pd.optimizers.Adam(learning_rate=pd.optimizers.schedules.ExponentialDecay(
        0.1, decay_steps=1, decay_rate=0.5))


@pytest.mark.parametrize("make", [_scheduled_adam] + test_optim.OPTIMIZERS)
def test_update_replayed_from_a_graph_follows_the_host_scalars(make):
    """Each optimizer's kernel (and a learning rate from a schedule): four steps, the last
    three replayed from a CUDA graph with the step's scalars uploaded before each, against
    the reference's four steps."""
    from devices.cuda.test_optim import _problem
    results = []
    for name in ("simulated", "gpu"):
        opt = make()
        _, _, step = _problem(opt)
        node = step.node
        n = node.attrs["n"]
        rng = np.random.default_rng(0)
        dev = backend(name)
        with dev.activated():  # the copies on the stream the kernels run on
            params = [dev.xp.asarray(v.value.copy()) for v in node.inputs[:n]]
            grads = [dev.xp.asarray(rng.standard_normal(v.shape).astype(v.dtype))
                     for v in node.inputs[:n]]
        prepared = Prepared(node, params + grads, [], dev, training=True)
        if name == "gpu":
            for fn in prepared.hooks.before:  # the scalars of the warm-up step
                fn()
            graph, stream = _capture(prepared)  # the warm-up run, then the capture
            for fn in prepared.hooks.after:
                fn()
            for _ in range(3):  # each replay with the step's scalars uploaded before it
                for fn in prepared.hooks.before:
                    fn()
                graph.launch(stream)
                stream.synchronize()
                for fn in prepared.hooks.after:
                    fn()
        else:
            for _ in range(4):
                prepared.run()
        assert opt.iterations == 4
        results.append([dev.download(p) for p in params])
    for got, want in zip(results[1], results[0]):
        _close([got], [want], want.dtype)
