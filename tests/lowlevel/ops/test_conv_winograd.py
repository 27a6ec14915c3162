"""The Winograd path of 3x3 stride-1 convolutions (csrc/nn/winograd.cpp): forward (bias and
relu in the output transform) and input gradient, F(2x2,3x3) and F(4x4,3x3), against float64
NumPy references, the im2col path and finite differences. PADDLE_CONV_WINOGRAD=0, 2 or 4
turns the path off or forces a tile size where it applies."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from lowlevel.ops.test_conv import rand, ref_conv2d, ref_conv2d_transpose, ref_filter_grad
from paddle import _C
from paddle.devices.cpu.conv import conv_spec

# Odd sizes and tile remainders (outputs not multiples of 2 or 4), same and valid padding,
# uneven and full-window pads, batch 1, channels not multiples of a vector (3, 17, 20, 33),
# a 1x1 and a 2x2 output.
CASES = [  # x shape, output channels, padding
    ((2, 9, 7, 16), 24, "same"),
    ((1, 16, 16, 64), 64, "same"),
    ((3, 11, 13, 20), 17, "valid"),
    ((1, 5, 6, 3), 16, "same"),
    ((2, 7, 10, 33), 20, ((2, 0), (1, 2))),
    ((1, 3, 3, 18), 19, "valid"),
    ((2, 4, 4, 17), 16, "valid"),
]


def _geometry(padding):
    return (1, 1), padding, (1, 1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("tile", ["2", "4"])
@pytest.mark.parametrize("xs,co,padding", CASES)
def test_forward_relu_and_gradients_match_the_reference(monkeypatch, xs, co, padding, tile,
                                                        dtype):
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", tile)
    fs = (3, 3, xs[3], co)
    x, w, b = rand(*xs, seed=40), rand(*fs, seed=41) / np.sqrt(9 * xs[3]), rand(co, seed=42)
    pre = ref_conv2d(x, w, *_geometry(padding)) + b
    want = np.maximum(pre, 0)
    g = rand(*want.shape, seed=43)
    xv = pd.data("x", [None, *xs[1:]], dtype=dtype)
    wv, bv = pd.Variable("w", fs, dtype), pd.Variable("b", [co], dtype)
    wv.set_value(w.astype(dtype))
    bv.set_value(b.astype(dtype))
    y = pd.relu(pd.conv2d(xv, wv, bias=bv, padding=padding))  # runs as fused_conv
    gx, gw, gb = pd.gradients(pd.sum(y * pd.constant(g, dtype)), [xv, wv, bv])
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        got = pd.eval([y, gx, gw, gb], {xv: x.astype(dtype)})
    finally:
        pd._C.set_omp_threads(threads)
    gpre = g * (pre > 0)
    wants = [want, ref_conv2d_transpose(gpre, w, xs[1:3], *_geometry(padding)),
             ref_filter_grad(x, gpre, fs, *_geometry(padding)), gpre.sum(axis=(0, 1, 2))]
    # float64: F(4x4)'s transforms lose a few digits (1e-14 relative); float32: the
    # existing conv tests' tolerances.
    tol = 1e-12 if dtype == "float64" else 1e-4
    for name, a, e in zip(["y", "dx", "dw", "db"], got, wants):
        scale = max(np.abs(e).max(), 1.0)
        assert a.dtype == dtype and a.shape == e.shape, name
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol * 10 * scale, err_msg=name)


@pytest.mark.parametrize("tile", ["2", "4"])
def test_float64_matches_the_im2col_path(monkeypatch, tile):
    x, w = rand(2, 13, 11, 24), rand(3, 3, 24, 40, seed=44)
    xv, wv = pd.data("x", [None, 13, 11, 24], dtype="float64"), pd.constant(w, "float64")
    y = pd.conv2d(xv, wv, padding="same")
    (gx,) = pd.gradients(pd.sum(y * pd.constant(rand(2, 13, 11, 40, seed=45), "float64")), [xv])
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", "0")
    plain = pd.eval([y, gx], {xv: x})
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", tile)
    got = pd.eval([y, gx], {xv: x})
    for a, e in zip(got, plain):
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("tile", ["2", "4"])
@pytest.mark.parametrize("padding", ["same", "valid", ((0, 2), (2, 1))])
def test_gradient_check(monkeypatch, tile, padding):
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", tile)
    w = rand(3, 3, 5, 6, seed=46)
    check_gradients(lambda v, f: pd.conv2d(v, f, padding=padding),
                    [rand(2, 7, 6, 5, seed=47), w])


def _run(x, w, bias, padding, ws_mode, run_mode, monkeypatch, relu=False):
    """conv2d and its input gradient through paddle._C, with the workspace sized under
    PADDLE_CONV_WINOGRAD=ws_mode and the kernels run under run_mode."""
    oh, ow = (x.shape[1], x.shape[2]) if padding == "same" else (x.shape[1] - 2, x.shape[2] - 2)
    y = np.empty((x.shape[0], oh, ow, w.shape[3]), x.dtype)
    attrs = dict(strides=(1, 1), dilation=(1, 1), padding=padding, groups=1)
    spec = conv_spec(x.shape, w.shape, y.shape, attrs, x.itemsize)
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", ws_mode)
    ws = np.empty(max(_C.conv2d_workspace(spec, False), 1), x.dtype)
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", run_mode)
    _C.conv2d(x, w, bias, y, spec, ws, relu)
    dx = np.empty_like(x)
    _C.conv2d_backprop_input(y, w, dx, spec, ws)
    return y, dx


def test_a_workspace_sized_without_it_falls_back_to_the_blas_path(monkeypatch):
    # A plan sized before the variable changed: the kernels take the path the workspace has
    # room for, never write past it.
    # (The transformed filters alone, 36 x 128 x 128, outgrow the columns of 100 positions.)
    x = rand(1, 10, 10, 128).astype(np.float32)
    w = rand(3, 3, 128, 128, seed=48).astype(np.float32)
    none = np.empty(0, np.float32)
    want = _run(x, w, none, "same", "0", "0", monkeypatch)
    got = _run(x, w, none, "same", "0", "4", monkeypatch)
    for a, e in zip(got, want):
        np.testing.assert_array_equal(a, e)
    winograd = _run(x, w, none, "same", "4", "4", monkeypatch)
    for a, e in zip(winograd, want):
        assert not np.array_equal(a, e)  # another sum order: another path ran
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4 * np.abs(e).max())


@pytest.mark.parametrize("xs,co,padding,taken", [
    ((2, 16, 16, 64), 64, "same", True),     # resnet's 64-channel block
    ((2, 13, 13, 32), 64, "valid", True),    # compare.py's CNN conv2 (F(2x2))
    ((2, 12, 12, 3), 16, "same", True),      # a colour stem (the forward)
    ((2, 12, 12, 1), 16, "valid", False),    # one input channel: the taps path
    ((2, 7, 7, 64), 64, "same", False),      # 7x7 outputs
    ((1, 10, 10, 16), 160, "same", False),   # over 128 channels
])
def test_the_rule_picks_the_path(monkeypatch, xs, co, padding, taken):
    # Bit-for-bit equality with PADDLE_CONV_WINOGRAD=0 means the BLAS or taps path ran.
    x = rand(*xs).astype(np.float32)
    w = (rand(3, 3, xs[3], co, seed=49) / np.sqrt(9 * xs[3])).astype(np.float32)
    b = rand(co, seed=50).astype(np.float32)
    y0, _ = _run(x, w, b, padding, "0", "0", monkeypatch, relu=True)
    monkeypatch.delenv("PADDLE_CONV_WINOGRAD")
    oh, ow = y0.shape[1:3]
    y = np.empty_like(y0)
    attrs = dict(strides=(1, 1), dilation=(1, 1), padding=padding, groups=1)
    spec = conv_spec(x.shape, w.shape, y.shape, attrs, 4)
    ws = np.empty(max(_C.conv2d_workspace(spec, False), 1), np.float32)
    _C.conv2d(x, w, b, y, spec, ws, True)
    assert (not np.array_equal(y, y0)) == taken
    np.testing.assert_allclose(y, y0, rtol=1e-4, atol=1e-4 * np.abs(y0).max())
    assert (y >= 0).all() and (y == 0).any()


def test_float32_error_of_f4x4_at_128_channels(monkeypatch):
    # F(4x4)'s transforms multiply values by up to 8 and 1/24: the float32 error grows with
    # the channels summed, and must stay within what the conv tests accept (1e-4).
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", "4")
    x = rand(1, 12, 12, 128)
    w = rand(3, 3, 128, 128, seed=51) / np.sqrt(9 * 128)
    y = pd.eval(pd.conv2d(pd.constant(x, "float32"), pd.constant(w, "float32"),
                          padding="same"))
    want = ref_conv2d(x, w, *_geometry("same"))
    assert np.abs(y - want).max() / np.abs(want).max() < 1e-4


NARROW_SCRIPT = """
import sys
import numpy as np
import paddle as pd
x, w, b, g = (np.load(sys.argv[1])[k] for k in "xwbg")
xv = pd.data("x", [None, *x.shape[1:]], dtype="float32")
y = pd.relu(pd.conv2d(xv, pd.constant(w, "float32"), bias=pd.constant(b, "float32"),
                      padding="same"))
gx, = pd.gradients(pd.sum(y * pd.constant(g, "float32")), [xv])
np.savez(sys.argv[2], y=pd.eval(y, {xv: x}), gx=pd.eval(gx, {xv: x}))
"""


@pytest.mark.parametrize("vector_bytes", ["16", "32"])
@pytest.mark.parametrize("tile", ["2", "4"])
def test_narrower_vector_builds(tmp_path, vector_bytes, tile):
    # The transforms are built for several vector widths and run the widest the CPU has;
    # the narrower builds (what older CPUs run) must agree with the reference too (the
    # width is read once per process: a process each).
    x, w, b = rand(2, 10, 11, 21), rand(3, 3, 21, 19, seed=52) / 8, rand(19, seed=53)
    pre = ref_conv2d(x, w, *_geometry("same")) + b
    g = rand(*pre.shape, seed=54)
    np.savez(tmp_path / "in.npz", x=x.astype(np.float32), w=w.astype(np.float32),
             b=b.astype(np.float32), g=g.astype(np.float32))
    paths = [str(Path(pd.__file__).parents[1])] + \
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PADDLE_VECTOR_BYTES=vector_bytes, PADDLE_CONV_WINOGRAD=tile,
               PYTHONPATH=os.pathsep.join(paths))
    subprocess.run([sys.executable, "-c", NARROW_SCRIPT, str(tmp_path / "in.npz"),
                    str(tmp_path / "out.npz")], env=env, check=True,
                   cwd=str(Path(pd.__file__).parents[1]))
    got = np.load(tmp_path / "out.npz")
    want_gx = ref_conv2d_transpose(g * (pre > 0), w, (10, 11), *_geometry("same"))
    np.testing.assert_allclose(got["y"], np.maximum(pre, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got["gx"], want_gx, rtol=1e-4, atol=1e-4 * np.abs(want_gx).max())


def test_a_nan_reaches_the_outputs_whose_windows_hold_it(monkeypatch):
    # A NaN input makes NaN every output whose window reads it, as the direct sum does;
    # through the transforms it may also reach the other outputs of those tiles (up to
    # 4x4), never a tile that does not read it.
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", "4")
    x = rand(1, 16, 16, 16).astype(np.float32)
    x[0, 5, 6, 3] = np.nan
    w = rand(3, 3, 16, 16, seed=55).astype(np.float32)
    y = pd.eval(pd.conv2d(pd.constant(x), pd.constant(w), padding="same"))
    nan = np.isnan(y).any(axis=-1)[0]
    assert nan[4:7, 5:8].all()           # the windows that hold (5, 6)
    # Only the tile of output rows and columns 4-7 reads input (5, 6): its 6x6 input spans
    # rows and columns 3-8; the neighbouring tiles' span -1-4 and 7-12.
    outside = np.ones_like(nan)
    outside[4:8, 4:8] = False
    assert not nan[outside].any()


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_residual_is_added_in_the_output_transform(monkeypatch, relu, dtype):
    # The fused conv2d + add (+ relu) of a ResNet block's end (fusion/conv.py) passes the
    # residual to the kernel: the Winograd path adds it before relu, as the BLAS path does.
    x = rand(2, 12, 11, 16).astype(dtype)
    w = (rand(3, 3, 16, 16, seed=52) / 12).astype(dtype)
    b = rand(16, seed=53).astype(dtype)
    r = rand(2, 12, 11, 16, seed=54).astype(dtype)
    attrs = dict(strides=(1, 1), dilation=(1, 1), padding="same", groups=1)
    spec = conv_spec(x.shape, w.shape, r.shape, attrs, x.itemsize)
    out = {}
    for mode in ("0", "4", "2"):
        monkeypatch.setenv("PADDLE_CONV_WINOGRAD", mode)
        ws = np.empty(max(_C.conv2d_workspace(spec, False), 1), dtype)
        y = np.empty_like(r)
        _C.conv2d(x, w, b, y, spec, ws, relu, r)
        out[mode] = y
    plain = np.empty_like(r)
    monkeypatch.setenv("PADDLE_CONV_WINOGRAD", "4")
    ws = np.empty(max(_C.conv2d_workspace(spec, False), 1), dtype)
    _C.conv2d(x, w, b, plain, spec, ws, False)
    want = np.maximum(plain + r, 0) if relu else plain + r
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for mode in ("4", "2"):
        assert not np.array_equal(out[mode], out["0"])  # the Winograd path ran
        np.testing.assert_allclose(out[mode], out["0"], rtol=tol, atol=tol)
    np.testing.assert_array_equal(out["4"], want)  # (s + bias) + residual, then relu
