"""Pooling on the CUDA backend: kernels (NumPy references here, the CUDA kernels on a GPU)
against the C++ kernels. (tests/lowlevel/ops/test_pool.py runs on the simulated GPU too.)"""
import numpy as np
import pytest

import paddle as pd
from devices.cuda.simulated import run_node
from lowlevel.ops.test_pool import CASES, rand

from paddle.devices.cuda import pool


def _pool(kind, xs, k, s, padding, dtype):
    x = pd.constant(rand(*xs), dtype)
    return (pd.max_pool2d if kind == "max" else pd.avg_pool2d)(x, k, s, padding)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("xs,k,s,padding", CASES + [((2, 7, 5, 4), (3, 3), (2, 1), "same")])
def test_forward_matches_cpp(kind, xs, k, s, padding, dtype):
    node = _pool(kind, xs, k, s, padding, dtype).node
    _, want = run_node(node, "cpu")
    _, got = run_node(node, "simulated")
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("xs,k,s,padding", CASES)
def test_gradient_and_select_match_cpp(kind, xs, k, s, padding):
    x = pd.data("x", shape=xs, dtype="float64")
    y = (pd.max_pool2d if kind == "max" else pd.avg_pool2d)(x, k, s, padding)
    rng = np.random.default_rng(1)
    w = pd.constant(rng.standard_normal(y.shape), "float64")
    (dx,) = pd.gradients(pd.sum(y * w), [x])
    feeds = {x: rand(*xs)}
    nodes = [dx.node]
    if kind == "max":  # the select op: the gradient of the gradient
        v = pd.constant(rng.standard_normal(xs), "float64")
        (ddw,) = pd.gradients(pd.sum(dx * v), [w])
        nodes.append(next(n for n in _walk(ddw) if n.op.name == "max_pool2d_select"))
    for node in nodes:
        _, want = run_node(node, "cpu", feeds)
        _, got = run_node(node, "simulated", feeds)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-13, atol=1e-15)


def _walk(v):
    from paddle.lowlevel.executor import topological_nodes
    return topological_nodes([v])


def test_max_nan_wins_and_stays():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    x[0, 1, 0, 0] = np.nan
    node = pd.max_pool2d(pd.constant(x), 2).node
    _, (y, where) = run_node(node, "simulated")
    _, (y_cpu, where_cpu) = run_node(node, "cpu")
    assert np.isnan(y[0, 0, 0, 0]) and where[0, 0, 0, 0] == 2
    np.testing.assert_array_equal(where, where_cpu)


def test_reference_is_the_kernel_signature():
    """Each kernel's reference takes the kernel's parameters (buffers, then the spec)."""
    import inspect
    for k in (pool.MAX_FORWARD, pool.AVG_FORWARD, pool.MAX_GRAD, pool.MAX_SELECT,
              pool.AVG_GRAD):
        params = list(inspect.signature(k.reference).parameters)
        assert params[-12:] == ["N", "H", "W", "C", "OH", "OW", "KH", "KW", "sh", "sw", "pt",
                                "pl"], k.name
