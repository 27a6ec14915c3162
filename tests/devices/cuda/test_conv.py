"""conv2d and its adjoints on the CUDA backend (im2col / col2im kernels around products)
against the C++ kernels. (tests/lowlevel/ops/test_conv.py runs on the simulated GPU too.)"""
import numpy as np
import pytest

import paddle as pd
from devices.cuda.simulated import run_node

from paddle.devices.cuda import conv


CASES = [  # x shape, filter shape, strides, padding, dilation, groups
    ((2, 7, 6, 3), (3, 3, 3, 4), 1, "valid", 1, 1),
    ((2, 7, 6, 3), (3, 2, 3, 5), (2, 1), "same", 1, 1),
    ((1, 9, 8, 2), (3, 3, 2, 3), 1, "same", 2, 1),
    ((2, 6, 6, 4), (3, 3, 2, 6), 1, "same", 1, 2),
    ((2, 6, 5, 4), (3, 3, 1, 8), 2, "same", 1, 4),  # depthwise, 2 outputs per channel
    ((3, 5, 5, 4), (1, 1, 4, 6), 1, "valid", 1, 1),  # pointwise
    ((2, 5, 5, 3), (2, 2, 3, 2), 3, "valid", 1, 1),  # windows never overlap
]


def _conv(xs, fs, strides, padding, dilation, groups, dtype="float64", bias=False):
    rng = np.random.default_rng(0)
    x = pd.data("x", shape=xs, dtype=dtype)
    f = pd.constant(rng.standard_normal(fs), dtype)
    y = pd.conv2d(x, f, strides=strides, padding=padding, dilation=dilation, groups=groups)
    if bias:
        from paddle.lowlevel.ops.conv import conv2d_nhwc
        b = pd.constant(rng.standard_normal(fs[3]), dtype)
        y = conv2d_nhwc(x, f, y.node.attrs, bias=b)
    return x, f, y, {x: rng.standard_normal(xs)}


def _compare(node, feeds, rtol):
    _, want = run_node(node, "cpu", feeds)
    _, got = run_node(node, "simulated", feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-12), ("float32", 1e-5)])
@pytest.mark.parametrize("case", CASES)
def test_forward_and_adjoints_match_cpp(case, dtype, rtol):
    x, f, y, feeds = _conv(*case, dtype=dtype, bias=True)
    assert y.node.op.name == "conv2d"
    _compare(y.node, feeds, rtol)
    w = pd.constant(np.random.default_rng(2).standard_normal(y.shape), dtype)
    dx, df = pd.gradients(pd.sum(y * w), [x, f])
    assert dx.node.op.name == "conv2d_backprop_input"
    assert df.node.op.name == "conv2d_backprop_filter"
    _compare(dx.node, feeds, rtol)
    _compare(df.node, feeds, rtol)  # with the bias's gradient as its second output


def test_chunks_of_images(monkeypatch):
    """A column buffer smaller than the batch's: the images go through in several chunks,
    and the filter gradient adds the chunks' products."""
    monkeypatch.setattr(conv, "COLUMN_BYTES", 2 * 5 * 6 * 9 * 2 * 8)  # 2 images per chunk
    x, f, y, feeds = _conv((5, 7, 8, 2), (3, 3, 2, 3), 1, "valid", 1, 1)
    geo = conv.Geometry((5, 7, 8, 2), (3, 3, 2, 3), y.shape, y.node.attrs, 8)
    assert geo.chunks == [(0, 2), (2, 2), (4, 1)]
    _compare(y.node, feeds, 1e-12)
    dx, df = pd.gradients(pd.sum(y * y), [x, f])
    _compare(dx.node, feeds, 1e-12)
    _compare(df.node, feeds, 1e-12)


def test_transpose_matches_cpp():
    rng = np.random.default_rng(3)
    x = pd.data("x", shape=(2, 4, 5, 3), dtype="float64")
    f = pd.constant(rng.standard_normal((3, 3, 2, 3)), "float64")
    y = pd.conv2d_transpose(x, f, strides=2, padding="same")
    assert y.node.op.name == "conv2d_transpose"
    _compare(y.node, {x: rng.standard_normal((2, 4, 5, 3))}, 1e-12)


def test_im2col_reference_by_definition():
    """The reference unrolls windows as the definition says (taps in padding are zeros)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 5, 2))
    geo = conv.Geometry(x.shape, (3, 3, 2, 1), (2, 4, 5, 1),
                           {"strides": (1, 1), "dilation": (1, 1), "padding": "same",
                            "groups": 1}, 8)
    cols = np.full((geo.rows, geo.Kg), np.nan)
    geo.unroll(np, x, cols, 0, 2, 0)()
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    for n, oh, ow in [(0, 0, 0), (1, 3, 4), (1, 2, 1)]:
        want = padded[n, oh:oh + 3, ow:ow + 3, :].ravel()
        np.testing.assert_array_equal(cols[(n * 4 + oh) * 5 + ow], want)


@pytest.mark.parametrize("relu", [True, False])
def test_fused_conv_with_a_residual_add_matches_cpu(simulated_gpu, relu):
    # paddle/lowlevel/fusion/conv.py's conv2d + add (+ relu): on CUDA the convolution's
    # launches, then the add and relu in place on its output
    from paddle.lowlevel import executor
    rng = np.random.default_rng(3)
    x = pd.data("x", shape=[None, 6, 5, 3], dtype="float64")
    r = pd.data("r", shape=[None, 6, 5, 4], dtype="float64")
    c = pd.conv2d(x, pd.constant(rng.standard_normal((3, 3, 3, 4)), "float64"),
                  padding="same")
    y = pd.relu(r + c) if relu else r + c
    feeds = {x: rng.standard_normal((2, 6, 5, 3)), r: rng.standard_normal((2, 6, 5, 4))}
    got = pd.eval(y, feeds)
    plan = executor.plan_for([y], False, None)
    ran = [n.op.name for n in next(reversed(plan.specialized.values())).nodes]
    assert ran == ["fused_conv[conv2d+add+relu]" if relu else "fused_conv[conv2d+add]"]
    pd.set_device("cpu")
    want = pd.eval(y, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert (got == 0).any() == relu
