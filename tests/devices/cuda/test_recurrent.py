"""lstm and gru on the CUDA backend (cell kernels per step between products) against the
C++ kernels. (tests/lowlevel/ops/test_recurrent.py runs on the simulated GPU too.)"""
import numpy as np
import pytest

import paddle as pd
from devices.cuda.simulated import run_node

from paddle.devices.cuda import recurrent  # noqa: F401 (registers the kernels)
from paddle.lowlevel.executor import topological_nodes


def _graph(kind, N, T, F, U, dtype, with_state, use_mask, use_rdrop):
    from paddle.lowlevel.ops.recurrent import gru, lstm
    rng = np.random.default_rng(0)
    G = 4 if kind == "lstm" else 3
    x = pd.data("x", shape=(N, T, F), dtype=dtype)
    w = pd.constant(rng.standard_normal((F, G * U)) * 0.5, dtype)
    r = pd.constant(rng.standard_normal((U, G * U)) * 0.5, dtype)
    feeds = {x: rng.standard_normal((N, T, F))}
    kwargs = {}
    if use_mask:
        m = np.ones((N, T))
        m[0, 1] = m[1, 0] = m[1, T - 1] = 0
        kwargs["mask"] = pd.constant(m, dtype)
    if use_rdrop:
        kwargs["recurrent_dropout_mask"] = pd.constant(rng.choice([0.0, 2.0], (N, U)), dtype)
    if kind == "lstm":
        b = pd.constant(rng.standard_normal(4 * U), dtype)
        states = [pd.constant(rng.standard_normal((N, U)), dtype) for _ in range(2)]
        out = lstm(x, w, r, b, initial_state=states if with_state else None,
                   return_sequences=True, return_state=True, **kwargs)
    else:
        reset_after = kind == "gru"
        b = pd.constant(rng.standard_normal((2, 3 * U) if reset_after else 3 * U), dtype)
        state = pd.constant(rng.standard_normal((N, U)), dtype)
        out = gru(x, w, r, b, initial_state=state if with_state else None,
                  reset_after=reset_after, return_sequences=True, return_state=True, **kwargs)
    return x, out, feeds


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-11), ("float32", 2e-5)])
@pytest.mark.parametrize("use_mask,use_rdrop", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("kind", ["lstm", "gru", "gru_classic"])
def test_forward_and_gradient_match_cpp(kind, with_state, use_mask, use_rdrop, dtype, rtol):
    x, out, feeds = _graph(kind, 3, 4, 5, 3, dtype, with_state, use_mask, use_rdrop)
    outs = list(out)
    node = outs[0].node
    assert node.op.name in ("lstm", "gru")
    _, want = run_node(node, "cpu", feeds)
    _, got = run_node(node, "simulated", feeds)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
    rng = np.random.default_rng(9)
    loss = sum(pd.sum(o * pd.constant(rng.standard_normal(o.shape), dtype)) for o in outs)
    grads = pd.gradients(loss, [x])
    grad = next(n for n in topological_nodes(grads) if n.op.name in ("lstm_grad", "gru_grad"))
    _, want = run_node(grad, "cpu", feeds)
    _, got = run_node(grad, "simulated", feeds)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-11), ("float32", 2e-5)])
@pytest.mark.parametrize("use_mask", [False, True])
def test_lstm_gradient_without_cell_state_gradient_matches_cpp(use_mask, dtype, rtol):
    # A loss of h alone: lstm_grad then has no dcs input (has_dcs False) on either device.
    x, (seq, h, _), feeds = _graph("lstm", 3, 4, 5, 3, dtype, True, use_mask, False)
    rng = np.random.default_rng(9)
    loss = pd.sum(seq * pd.constant(rng.standard_normal(seq.shape), dtype)) + \
        pd.sum(h * pd.constant(rng.standard_normal(h.shape), dtype))
    grads = pd.gradients(loss, [x])
    grad = next(n for n in topological_nodes(grads) if n.op.name == "lstm_grad")
    assert grad.attrs["has_dcs"] is False
    _, want = run_node(grad, "cpu", feeds)
    _, got = run_node(grad, "simulated", feeds)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
