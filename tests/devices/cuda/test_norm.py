"""batch_norm on the CUDA backend against the C++ kernels. (Its tests in tests/lowlevel run
on the simulated GPU too.)"""
import numpy as np
import pytest

import paddle as pd
from devices.cuda.simulated import run_node


def _bn_graph(shape, axis, dtype):
    rng = np.random.default_rng(0)
    c = shape[axis]
    x = pd.data("x", shape=shape, dtype=dtype)
    mm = pd.Variable("mm", shape=[c], dtype=dtype, initializer="zeros", trainable=False)
    mv = pd.Variable("mv", shape=[c], dtype=dtype, initializer="ones", trainable=False)
    scale = pd.constant(rng.standard_normal(c), dtype)
    offset = pd.constant(rng.standard_normal(c), dtype)
    y = pd.batch_norm(x, scale, offset, mm, mv, momentum=0.9, epsilon=1e-3, axis=axis)
    return x, y, {x: rng.standard_normal(shape) * 3 + 1}


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-12), ("float32", 2e-6)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape,axis", [((6, 3), -1), ((2, 3, 4, 5), -1), ((2, 3, 4, 5), 1),
                                        ((300, 2), 1)])
def test_batch_norm_and_gradient_match_cpp(shape, axis, training, dtype, rtol):
    x, y, feeds = _bn_graph(shape, axis, dtype)
    node = y.node
    assert node.op.name == "batch_norm"
    cpu_ins, want = run_node(node, "cpu", feeds, training)
    gpu_ins, got = run_node(node, "simulated", feeds, training)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
    for i in (3, 4):  # the moving statistics, updated in place when training
        np.testing.assert_allclose(gpu_ins[i], cpu_ins[i], rtol=rtol)
    w = pd.constant(np.random.default_rng(5).standard_normal(shape), dtype)
    (dx,) = pd.gradients(pd.sum(y * w), [x])
    grad = next(n for n in _nodes(dx) if n.op.name == "batch_norm_grad")
    _, want = run_node(grad, "cpu", feeds, training)
    _, got = run_node(grad, "simulated", feeds, training)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _nodes(v):
    from paddle.lowlevel.executor import topological_nodes
    return topological_nodes([v])


def test_batch_norm_refuses_constant_statistics_when_training():
    x = pd.data("x", shape=(4, 2))
    c = pd.constant(np.ones(2, np.float32))
    y = pd.batch_norm(x, c, c, c, c)
    with pytest.raises(ValueError, match="batch_norm: a training run updates moving_mean"):
        pd.eval(y, {x: np.ones((4, 2), np.float32)}, training=True)
