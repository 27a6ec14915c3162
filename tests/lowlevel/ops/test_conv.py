"""conv2d, conv2d_transpose, conv1d: NumPy references, gradient checks, shape errors."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.devices.cpu import conv as cpu_conv


# ---- NumPy references ---------------------------------------------------------------------

def tf_same(size, k, s, d):
    eff = (k - 1) * d + 1
    total = max((-(-size // s) - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def ref_pads(padding, x_shape, f_shape, strides, dilation):
    if padding == "valid":
        return (0, 0), (0, 0)
    if padding == "same":
        return tuple(tf_same(x_shape[1 + a], f_shape[a], strides[a], dilation[a]) for a in (0, 1))
    if isinstance(padding, int):
        return (padding, padding), (padding, padding)
    return padding


def ref_conv2d(x, w, strides=(1, 1), padding="valid", dilation=(1, 1), groups=1):
    """NHWC cross-correlation, one (kh, kw) tap at a time."""
    (t, b), (l, r) = ref_pads(padding, x.shape, w.shape, strides, dilation)
    xp = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    kh, kw, cg, co = w.shape
    (sh, sw), (dh, dw) = strides, dilation
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    y = np.zeros((x.shape[0], oh, ow, co))
    cog = co // groups
    for i in range(kh):
        for j in range(kw):
            h0, w0 = i * dh, j * dw
            patch = xp[:, h0:h0 + (oh - 1) * sh + 1:sh, w0:w0 + (ow - 1) * sw + 1:sw]
            for g in range(groups):
                y[..., g * cog:(g + 1) * cog] += patch[..., g * cg:(g + 1) * cg] @ \
                    w[i, j, :, g * cog:(g + 1) * cog]
    return y


def ref_conv2d_transpose(x, w, out_hw, strides=(1, 1), padding="valid", dilation=(1, 1)):
    """Scatter each input pixel through the (kh, kw, out, in) kernel, then crop the pads."""
    kh, kw, co, _ = w.shape
    (sh, sw), (dh, dw) = strides, dilation
    (t, b), (l, r) = ref_pads(padding, (0,) + tuple(out_hw), w.shape, strides, dilation)
    full = np.zeros((x.shape[0], out_hw[0] + t + b + kh * dh + sh,
                     out_hw[1] + l + r + kw * dw + sw, co))
    for oh in range(x.shape[1]):
        for ow in range(x.shape[2]):
            for i in range(kh):
                for j in range(kw):
                    full[:, oh * sh + i * dh, ow * sw + j * dw] += x[:, oh, ow] @ w[i, j].T
    return full[:, t:t + out_hw[0], l:l + out_hw[1]]


def rand(*shape, seed=0):
    return np.random.default_rng(seed + len(shape) + sum(shape)).standard_normal(shape)


# ---- forward against the references -------------------------------------------------------

CASES = [  # x shape, filter shape, kwargs
    ((2, 5, 6, 3), (3, 3, 3, 4), {}),
    ((2, 5, 6, 3), (3, 2, 3, 4), {"padding": "same"}),
    ((1, 7, 8, 2), (3, 3, 2, 3), {"padding": "same", "strides": 2}),
    ((1, 6, 6, 2), (2, 2, 2, 3), {"padding": "same", "strides": (2, 3)}),
    ((2, 6, 7, 2), (3, 3, 2, 2), {"padding": ((1, 0), (2, 1)), "strides": (1, 2)}),
    ((1, 7, 7, 2), (3, 2, 2, 3), {"padding": 1, "dilation": 2}),
    ((1, 8, 8, 3), (3, 3, 3, 2), {"padding": "same", "dilation": (2, 1), "strides": 2}),
    ((2, 5, 5, 4), (3, 3, 2, 6), {"groups": 2, "padding": "same"}),
    ((1, 5, 6, 3), (3, 3, 1, 3), {"groups": 3}),                 # depthwise
    ((2, 4, 4, 5), (1, 1, 5, 3), {}),                            # pointwise
    ((2, 6, 7, 1), (3, 3, 1, 4), {"padding": "same", "strides": 2}),  # one channel
    ((1, 6, 6, 2), (3, 3, 1, 4), {"groups": 2, "dilation": 2, "padding": 1}),  # multiplier 2
]


@pytest.mark.parametrize("xs,fs,kw", CASES)
def test_conv2d_matches_reference(xs, fs, kw):
    x, w = rand(*xs), rand(*fs, seed=1)
    got = pd.eval(pd.conv2d(pd.constant(x, "float64"), pd.constant(w, "float64"), **kw))
    strides = kw.get("strides", 1)
    dilation = kw.get("dilation", 1)
    want = ref_conv2d(x, w, strides if isinstance(strides, tuple) else (strides,) * 2,
                      kw.get("padding", "valid"),
                      dilation if isinstance(dilation, tuple) else (dilation,) * 2,
                      kw.get("groups", 1))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_same_padding_follows_tensorflow():
    # in 7, k 4, stride 2: out 4, total pad (4-1)*2+4-7 = 3, so 1 on top and 2 at the bottom.
    x = np.zeros((1, 7, 1, 1))
    x[0, :, 0, 0] = np.arange(1, 8)
    w = np.ones((4, 1, 1, 1))
    got = pd.eval(pd.conv2d(pd.constant(x, "float64"), pd.constant(w, "float64"), strides=2,
                            padding="same"))[0, :, 0, 0]
    assert got.tolist() == [0 + 1 + 2 + 3, 2 + 3 + 4 + 5, 4 + 5 + 6 + 7, 6 + 7 + 0 + 0]


def test_float32_blocks_and_phases(monkeypatch):
    # Tiny column buffers cut each image into blocks of rows: the input gradient then adds
    # blocks in two phases; all of it must still match the float64 reference.
    monkeypatch.setattr(cpu_conv, "COLUMN_BYTES", 8)
    monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 1)
    x, w = rand(3, 13, 11, 4), rand(3, 3, 4, 5, seed=2)
    xv, wv = pd.data("x", [None, 13, 11, 4]), pd.constant(w.astype(np.float32))
    y = pd.conv2d(xv, wv, padding="same")
    gx, gw = pd.gradients(pd.sum(y * y), [xv, wv])
    got_y, got_gx, got_gw = pd.eval([y, gx, gw], {xv: x.astype(np.float32)})
    want = ref_conv2d(x, w, padding="same")
    np.testing.assert_allclose(got_y, want, rtol=1e-4, atol=1e-4)
    # d/dx sum(y^2) is the transposed convolution of 2y.
    want_gx = ref_conv2d_transpose(2 * want, w, (13, 11), padding="same")
    np.testing.assert_allclose(got_gx, want_gx, rtol=1e-3, atol=1e-3)
    want_gw = np.zeros_like(w)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    for i in range(3):
        for j in range(3):
            want_gw[i, j] = np.einsum("nhwc,nhwo->co", xp[:, i:i + 13, j:j + 11], 2 * want)
    np.testing.assert_allclose(got_gw, want_gw, rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("c,groups", [(1, 1), (6, 6)])
def test_thin_convolutions_in_blocks(monkeypatch, c, groups):
    # Depthwise convolutions skip the BLAS, single-channel ones have 9-column windows; cut
    # into blocks of rows, their input gradient also adds blocks in two phases.
    monkeypatch.setattr(cpu_conv, "COLUMN_BYTES", 8)
    monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 1)
    monkeypatch.setattr(cpu_conv, "OUTPUT_BYTES", 8)
    x, w = rand(2, 17, 9, c), rand(3, 3, 1, 2 * c, seed=3)
    xv = pd.data("x", [None, 17, 9, c], dtype="float64")
    y = pd.conv2d(xv, pd.constant(w, "float64"), padding="same", groups=groups)
    gx, = pd.gradients(pd.sum(y * y), [xv])
    got_y, got_gx = pd.eval([y, gx], {xv: x})
    want = ref_conv2d(x, w, padding="same", groups=groups)
    np.testing.assert_allclose(got_y, want, rtol=1e-10, atol=1e-10)
    if groups == 1:
        np.testing.assert_allclose(got_gx, ref_conv2d_transpose(2 * want, w, (17, 9),
                                                                padding="same"), rtol=1e-10)
    else:
        check_gradients(lambda v: pd.conv2d(v, pd.constant(w, "float64"), padding="same",
                                            groups=groups), [x])


def ref_filter_grad(x, g, f_shape, strides=(1, 1), padding="valid", dilation=(1, 1)):
    """d/dw of sum(conv2d(x, w) * g), one group: each tap's input patch against g."""
    (t, b), (l, r) = ref_pads(padding, x.shape, f_shape, strides, dilation)
    xp = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    (sh, sw), (dh, dw) = strides, dilation
    oh, ow = g.shape[1:3]
    gw = np.zeros(f_shape)
    for i in range(f_shape[0]):
        for j in range(f_shape[1]):
            rows = slice(i * dh, i * dh + (oh - 1) * sh + 1, sh)
            cols = slice(j * dw, j * dw + (ow - 1) * sw + 1, sw)
            patch = xp[:, rows, cols]
            gw[i, j] = np.einsum("nhwc,nhwo->co", patch, g)
    return gw


# Short windows (KH * KW * C up to 32, one group) take the taps path, not the BLAS: one
# and three channels, odd sizes, strides, paddings and dilations, channel counts around
# the register tiles (1, 5, 16, 37 outputs), an odd number of output positions, and the
# windows of exactly 32 and 33 values on either side of the switch.
TAPS_CASES = [
    ((2, 7, 9, 1), (3, 3, 1, 37), {}),
    ((3, 28, 28, 1), (3, 3, 1, 32), {}),
    ((1, 9, 8, 1), (3, 2, 1, 5), {"padding": "same", "strides": 2}),
    ((2, 11, 7, 1), (5, 5, 1, 16), {"padding": ((2, 0), (1, 3)), "strides": (2, 1)}),
    ((1, 10, 9, 3), (3, 3, 3, 8), {"padding": 1, "dilation": (2, 3)}),
    ((2, 8, 7, 2), (4, 4, 2, 33), {"padding": "same"}),          # 32 values: taps
    ((1, 8, 7, 3), (11, 1, 3, 7), {"padding": "same"}),          # 33 values: BLAS
    ((2, 5, 6, 1), (1, 3, 1, 1), {"strides": 3}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("xs,fs,kw", TAPS_CASES)
def test_short_windows_forward_and_filter_gradient(monkeypatch, xs, fs, kw, dtype):
    # Tiny blocks too: the blocks' filter gradients are summed across threads.
    monkeypatch.setattr(cpu_conv, "COLUMN_BYTES", 8 if xs[0] > 1 else 1 << 20)
    monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 1)
    x, w, b = rand(*xs), rand(*fs, seed=23), rand(fs[3], seed=24)
    s, d = kw.get("strides", 1), kw.get("dilation", 1)
    geometry = (s if isinstance(s, tuple) else (s, s), kw.get("padding", "valid"),
                d if isinstance(d, tuple) else (d, d))
    want = ref_conv2d(x, w, *geometry) + b
    g = rand(*want.shape, seed=25)
    xv = pd.data("x", [None, *xs[1:]], dtype=dtype)
    wv, bv = pd.Variable("w", fs, dtype), pd.Variable("b", [fs[3]], dtype)
    wv.set_value(w.astype(dtype))
    bv.set_value(b.astype(dtype))
    y = pd.conv2d(xv, wv, bias=bv, **kw)
    gw, gb = pd.gradients(pd.sum(y * pd.constant(g, dtype)), [wv, bv])
    got_y, got_gw, got_gb = pd.eval([y, gw, gb], {xv: x.astype(dtype)})
    tol = 1e-10 if dtype == "float64" else 1e-4
    np.testing.assert_allclose(got_y, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(got_gw, ref_filter_grad(x, g, fs, *geometry), rtol=tol,
                               atol=tol * 10)
    np.testing.assert_allclose(got_gb, g.sum(axis=(0, 1, 2)), rtol=tol, atol=tol * 10)


NARROW_SCRIPT = """
import sys
import numpy as np
import paddle as pd
x, w, b, g = (np.load(sys.argv[1])[k] for k in "xwbg")
xv = pd.data("x", [None, *x.shape[1:]], dtype="float64")
wv = pd.Variable("w", w.shape, "float64")
wv.set_value(w)
y = pd.conv2d(xv, wv, bias=pd.constant(b, "float64"), padding=((2, 0), (1, 3)),
              strides=(2, 1))
gw, = pd.gradients(pd.sum(y * pd.constant(g, "float64")), [wv])
np.savez(sys.argv[2], y=pd.eval(y, {xv: x}), gw=pd.eval(gw, {xv: x}))
"""


@pytest.mark.parametrize("vector_bytes", ["16", "32"])
def test_short_windows_on_narrower_vectors(tmp_path, vector_bytes):
    # The taps path is built for several vector widths and runs the widest the CPU has;
    # the narrower builds (what older CPUs run) must agree with the reference too.
    x, w, b = rand(2, 11, 7, 1), rand(5, 5, 1, 37, seed=27), rand(37, seed=28)
    geometry = ((2, 1), ((2, 0), (1, 3)), (1, 1))
    want = ref_conv2d(x, w, *geometry) + b
    g = rand(*want.shape, seed=29)
    np.savez(tmp_path / "in.npz", x=x, w=w, b=b, g=g)
    paths = [str(Path(pd.__file__).parents[1])] + \
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]  # NumPy's too
    env = dict(os.environ, PADDLE_CONV_VECTOR_BYTES=vector_bytes,
               PYTHONPATH=os.pathsep.join(paths))
    subprocess.run([sys.executable, "-c", NARROW_SCRIPT, str(tmp_path / "in.npz"),
                    str(tmp_path / "out.npz")], env=env, check=True,
                   cwd=str(Path(pd.__file__).parents[1]))  # not a checkout's uncompiled tree
    got = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(got["y"], want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got["gw"], ref_filter_grad(x, g, w.shape, *geometry),
                               rtol=1e-10, atol=1e-9)


# The BLAS paths' other shapes of dx and blocks: stride-1 windows on 16 to 64 channels
# (dx as the forward convolution of dy with flipped filters, including pads reaching the
# whole window and pads beyond it, which fall back to col2im), 15 and 65 channels either
# side, strided windows that never overlap (dx stored, not added), pointwise ones, and
# batches that do not divide evenly into blocks of whole images, and windows whose dx has
# far more positions than dy (valid padding), which take GEMM + col2im.
BLAS_CASES = [
    ((2, 7, 9, 16), (3, 3, 16, 5), {"padding": "same"}),
    ((1, 8, 7, 33), (3, 2, 33, 7), {}),
    ((2, 9, 6, 20), (3, 3, 20, 4), {"padding": ((2, 0), (1, 2))}),   # full-window pads
    ((1, 7, 8, 17), (2, 3, 17, 3), {"padding": ((2, 1), (0, 3))}),   # pads beyond: col2im
    ((1, 11, 9, 24), (3, 3, 24, 6), {"padding": "same", "dilation": (2, 3)}),
    ((2, 6, 7, 64), (3, 3, 64, 9), {"padding": "same"}),
    ((1, 6, 5, 65), (3, 3, 65, 4), {"padding": "same"}),
    ((2, 8, 7, 15), (3, 3, 15, 4), {"padding": "same"}),
    ((3, 9, 7, 40), (1, 1, 40, 6), {"strides": 2}),                  # strided 1x1
    ((2, 11, 10, 36), (2, 2, 36, 5), {"strides": 3}),                # gaps between windows
    ((2, 9, 7, 20), (2, 3, 20, 6), {"strides": (2, 3), "padding": "same"}),
    ((7, 5, 3, 40), (1, 1, 40, 12), {}),                             # pointwise
    ((8, 7, 7, 40), (3, 3, 40, 8), {"padding": "same"}),             # 8 images
    ((2, 9, 8, 32), (3, 3, 32, 6), {}),       # valid: dx has more positions, so col2im
    ((2, 9, 9, 16), (3, 3, 16, 3), {"padding": ((1, 0), (0, 0))}),    # 63 for 81: col2im
    ((2, 17, 17, 16), (2, 2, 16, 3), {"padding": ((0, 1), (0, 0))}),  # 272 for 289: flipped
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("blocks", ["small", "default"])
@pytest.mark.parametrize("xs,fs,kw", BLAS_CASES)
def test_blas_paths_forward_and_gradients(monkeypatch, xs, fs, kw, blocks, dtype):
    if blocks == "small":  # blocks of a few rows, over two threads
        monkeypatch.setattr(cpu_conv, "COLUMN_BYTES", 8)
        monkeypatch.setattr(cpu_conv, "OUTPUT_BYTES", 8)
        monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 1)
    else:  # the last case's 8 images: blocks of whole images, 3, 3 and 2
        monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 3 * xs[1] * xs[2])
    x, w, b = rand(*xs), rand(*fs, seed=31), rand(fs[3], seed=32)
    s, d = kw.get("strides", 1), kw.get("dilation", 1)
    geometry = (s if isinstance(s, tuple) else (s, s), kw.get("padding", "valid"),
                d if isinstance(d, tuple) else (d, d))
    want = ref_conv2d(x, w, *geometry) + b
    g = rand(*want.shape, seed=33)
    xv = pd.data("x", [None, *xs[1:]], dtype=dtype)
    wv, bv = pd.Variable("w", fs, dtype), pd.Variable("b", [fs[3]], dtype)
    wv.set_value(w.astype(dtype))
    bv.set_value(b.astype(dtype))
    y = pd.conv2d(xv, wv, bias=bv, **kw)
    gx, gw, gb = pd.gradients(pd.sum(y * pd.constant(g, dtype)), [xv, wv, bv])
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        got_y, got_gx, got_gw, got_gb = pd.eval([y, gx, gw, gb], {xv: x.astype(dtype)})
    finally:
        pd._C.set_omp_threads(threads)
    tol = 1e-10 if dtype == "float64" else 1e-4
    np.testing.assert_allclose(got_y, want, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(got_gx, ref_conv2d_transpose(g, w, xs[1:3], *geometry),
                               rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(got_gw, ref_filter_grad(x, g, fs, *geometry), rtol=tol,
                               atol=tol * 100)
    np.testing.assert_allclose(got_gb, g.sum(axis=(0, 1, 2)), rtol=tol, atol=tol * 100)


def test_blas_paths_gradient_check():
    # The flipped-filter dx and the stored (not added) strided dx, by finite differences.
    for xs, fs, kw in [((1, 5, 4, 16), (3, 2, 16, 2), {"padding": "same"}),
                       ((1, 5, 7, 3), (1, 2, 3, 2), {"strides": (2, 3)})]:
        w = rand(*fs, seed=34)
        check_gradients(lambda v: pd.conv2d(v, pd.constant(w, "float64"), **kw),
                        [rand(*xs, seed=35)])


@pytest.mark.parametrize("xs,fs", [((8, 28, 28, 1), (3, 3, 1, 32)),
                                   ((8, 13, 13, 32), (3, 3, 32, 64))])
def test_filter_gradient_is_reproducible(monkeypatch, xs, fs):
    # Several blocks per thread: the per-thread partial sums must add up the same way on
    # every run, bit for bit.
    monkeypatch.setattr(cpu_conv, "COLUMN_BYTES", 1 << 14)
    monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 1)
    x = rand(*xs).astype(np.float32)
    xv = pd.data("x", [None, *xs[1:]])
    wv = pd.Variable("w", fs)
    wv.set_value(rand(*fs, seed=26).astype(np.float32))
    y = pd.conv2d(xv, wv)
    gw, = pd.gradients(pd.sum(y * y), [wv])
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        first = pd.eval(gw, {xv: x})
        for _ in range(5):
            assert np.array_equal(pd.eval(gw, {xv: x}), first)
    finally:
        pd._C.set_omp_threads(threads)


def test_nchw_matches_nhwc():
    x, w = rand(2, 6, 5, 3), rand(3, 3, 3, 4, seed=3)
    nhwc = pd.eval(pd.conv2d(pd.constant(x, "float64"), pd.constant(w, "float64"),
                             padding="same", strides=2))
    nchw = pd.eval(pd.conv2d(pd.constant(x.transpose(0, 3, 1, 2), "float64"),
                             pd.constant(w, "float64"), padding="same", strides=2,
                             data_format="NCHW"))
    np.testing.assert_allclose(nchw, nhwc.transpose(0, 3, 1, 2), rtol=1e-12)


TRANSPOSE_CASES = [  # x shape, filter shape (kh, kw, out, in), kwargs, expected output hw
    ((2, 3, 4, 3), (3, 3, 2, 3), {}, (5, 6)),
    ((1, 3, 3, 2), (3, 3, 4, 2), {"strides": 2, "padding": "same"}, (6, 6)),
    ((1, 3, 3, 2), (3, 3, 4, 2), {"strides": 2}, (7, 7)),
    ((1, 3, 3, 2), (2, 2, 1, 2), {"strides": 3}, (9, 9)),          # k < stride
    ((1, 3, 3, 2), (3, 3, 2, 2), {"strides": 2, "padding": "same", "output_shape": (5, 6)},
     (5, 6)),
    ((1, 4, 3, 2), (2, 3, 2, 2), {"dilation": 2, "padding": ((1, 0), (0, 2))}, (5, 5)),
]


@pytest.mark.parametrize("xs,fs,kw,hw", TRANSPOSE_CASES)
def test_conv2d_transpose_matches_reference(xs, fs, kw, hw):
    x, w = rand(*xs), rand(*fs, seed=4)
    y = pd.conv2d_transpose(pd.constant(x, "float64"), pd.constant(w, "float64"), **kw)
    assert y.shape[1:3] == hw
    s = kw.get("strides", 1)
    d = kw.get("dilation", 1)
    want = ref_conv2d_transpose(x, w, hw, (s, s), kw.get("padding", "valid"), (d, d))
    np.testing.assert_allclose(pd.eval(y), want, rtol=1e-10, atol=1e-10)


def test_conv2d_transpose_nchw_and_unknown_sizes():
    x = pd.data("x", shape=[None, 2, None, None])
    w = pd.constant(rand(3, 3, 4, 2), "float32")
    y = pd.conv2d_transpose(x, w, strides=2, padding="same", data_format="NCHW")
    assert y.shape == (None, 4, None, None)
    assert pd.eval(y, {x: np.ones((1, 2, 3, 5), np.float32)}).shape == (1, 4, 6, 10)


def test_conv1d_matches_conv2d():
    x, w = rand(2, 9, 3), rand(3, 3, 4, seed=5)
    for kw in [{}, {"padding": "same", "strides": 2}, {"padding": "causal", "dilation": 2},
               {"padding": (2, 1)}]:
        got = pd.eval(pd.conv1d(pd.constant(x, "float64"), pd.constant(w, "float64"), **kw))
        pad = kw.get("padding", "valid")
        pad2 = ((0, 0), (2 * (3 - 1), 0)) if pad == "causal" else \
            ((0, 0), pad) if isinstance(pad, tuple) else pad
        want = ref_conv2d(x[:, None], w[None], (1, kw.get("strides", 1)),
                          pad2 if pad != "same" else ((0, 0), tf_same(9, 3, 2, 1)),
                          (1, kw.get("dilation", 1)))[:, 0]
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    ncw = pd.eval(pd.conv1d(pd.constant(x.transpose(0, 2, 1), "float64"),
                            pd.constant(w, "float64"), data_format="NCW"))
    np.testing.assert_allclose(ncw, ref_conv2d(x[:, None], w[None])[:, 0].transpose(0, 2, 1),
                               rtol=1e-10)


# ---- gradients ------------------------------------------------------------------------------

@pytest.mark.parametrize("xs,fs,kw", CASES[1:9:2] + [CASES[9]])
def test_conv2d_gradients(xs, fs, kw):
    check_gradients(lambda x, w: pd.conv2d(x, w, **kw), [rand(*xs), rand(*fs, seed=6)])


@pytest.mark.parametrize("xs,fs,kw", [CASES[0], CASES[2], CASES[7], CASES[8], CASES[10],
                                      CASES[11]])
def test_conv2d_gradients_more(xs, fs, kw):
    check_gradients(lambda x, w: pd.conv2d(x, w, **kw), [rand(*xs), rand(*fs, seed=7)])


def test_conv2d_second_order():
    check_gradients(lambda x, w: pd.conv2d(x, w, strides=2, padding="same") ** 2,
                    [rand(1, 5, 5, 2), rand(3, 3, 2, 2, seed=8)], order=2)


def test_conv2d_nchw_gradients():
    check_gradients(lambda x, w: pd.conv2d(x, w, padding=1, data_format="NCHW"),
                    [rand(1, 2, 4, 5), rand(3, 3, 2, 3, seed=9)])


@pytest.mark.parametrize("kw", [{}, {"strides": 2, "padding": "same"},
                                {"strides": 2, "output_shape": (8, 8)}])
def test_conv2d_transpose_gradients(kw):
    check_gradients(lambda x, w: pd.conv2d_transpose(x, w, **kw),
                    [rand(1, 3, 3, 2), rand(3, 3, 3, 2, seed=10)])


def test_conv2d_transpose_second_order():
    check_gradients(lambda x, w: pd.conv2d_transpose(x, w, strides=2) ** 2,
                    [rand(1, 2, 3, 2), rand(2, 2, 2, 2, seed=11)], order=2)


@pytest.mark.parametrize("kw", [{"padding": "causal", "dilation": 2},
                                {"padding": "same", "strides": 2, "data_format": "NCW"},
                                {"groups": 2}])
def test_conv1d_gradients(kw):
    xs = (2, 4, 7) if kw.get("data_format") == "NCW" else (2, 7, 4)
    check_gradients(lambda x, w: pd.conv1d(x, w, **kw),
                    [rand(*xs), rand(3, 4 // kw.get("groups", 1), 4, seed=12)])


# ---- bias ---------------------------------------------------------------------------------

@pytest.mark.parametrize("xs,fs,kw", [CASES[1], CASES[7], CASES[8], CASES[9]])
def test_conv2d_bias(xs, fs, kw):
    # Fused into the kernel (plain, grouped, depthwise, pointwise): same as adding it after.
    x, w, b = rand(*xs), rand(*fs, seed=13), rand(fs[3], seed=14)
    fused = pd.conv2d(pd.constant(x, "float64"), pd.constant(w, "float64"), bias=b, **kw)
    plain = pd.conv2d(pd.constant(x, "float64"), pd.constant(w, "float64"), **kw) + b
    np.testing.assert_allclose(*pd.eval([fused, plain]), rtol=1e-12, atol=1e-12)
    check_gradients(lambda v, f, c: pd.conv2d(v, f, bias=c, **kw), [x, w, b])


def test_bias_second_order_and_other_forms():
    check_gradients(lambda v, f, c: pd.conv2d(v, f, strides=2, padding="same", bias=c) ** 2,
                    [rand(1, 5, 5, 2), rand(3, 3, 2, 3, seed=15), rand(3, seed=16)], order=2)
    check_gradients(lambda v, f, c: pd.conv2d(v, f, padding=1, data_format="NCHW", bias=c),
                    [rand(1, 2, 4, 5), rand(3, 3, 2, 3, seed=17), rand(3, seed=18)])
    check_gradients(lambda v, f, c: pd.conv1d(v, f, padding="causal", bias=c),
                    [rand(2, 6, 3), rand(2, 3, 4, seed=19), rand(4, seed=20)])
    check_gradients(lambda v, f, c: pd.conv2d_transpose(v, f, strides=2, bias=c),
                    [rand(1, 3, 3, 2), rand(3, 3, 4, 2, seed=21), rand(4, seed=22)])


def test_bias_shape_error():
    with pytest.raises(pd.ShapeError, match=r"conv2d: expected a bias of shape \(4,\) and dtype "
                                            r"float32.*bias is \(3,\)"):
        pd.conv2d(_x(), pd.constant(np.ones((3, 3, 3, 4), np.float32)),
                  bias=pd.constant(np.ones(3, np.float32)))


# ---- errors at construction ----------------------------------------------------------------

def _x(shape=(None, 8, 8, 3)):
    return pd.data("x", shape=shape)


@pytest.mark.parametrize("fn,match", [
    (lambda: pd.conv2d(_x((None, 2, 8, 3)), pd.constant(np.ones((3, 3, 3, 4)))),
     r"conv2d: the height of the window \(3\) is larger than the padded input: "
     r"x is \(None, 2, 8, 3\), filters is \(3, 3, 3, 4\)"),
    (lambda: pd.conv2d(_x(), pd.constant(np.ones((3, 3, 2, 4)))),
     r"conv2d: the input has 3 channels but the filters expect 2.*x is \(None, 8, 8, 3\)"),
    (lambda: pd.conv2d(_x(), pd.constant(np.ones((3, 3, 3, 4))), strides=0),
     r"conv2d: expected strides as an int >= 1.*received 0; x is \(None, 8, 8, 3\), "
     r"filters is \(3, 3, 3, 4\)"),
    (lambda: pd.conv2d(_x(), pd.constant(np.ones((3, 3, 3, 4))), strides=(1, -2)),
     r"conv2d: expected strides"),
    (lambda: pd.conv2d(_x((None, 8, 3)), pd.constant(np.ones((3, 3, 3, 4)))),
     r"conv2d: expected a 4-D input.*x is \(None, 8, 3\)"),
    (lambda: pd.conv2d(_x(), pd.constant(np.ones((3, 3, 4)))),
     r"conv2d: expected filters of rank 4.*filters is \(3, 3, 4\)"),
    (lambda: pd.conv2d(_x(), pd.constant(np.ones((3, 3, 1, 4))), groups=2),
     r"conv2d: the input has 3 channels but the filters expect 1 x groups=2"),
    (lambda: pd.conv2d(_x(), pd.constant(np.ones((3, 3, 1, 3))), groups=3, dilation=4),
     r"conv2d: the height of the window \(9\) is larger"),
    (lambda: pd.conv2d_transpose(_x(), pd.constant(np.ones((3, 3, 2, 4)))),
     r"conv2d_transpose: the input has 3 channels but the filters produce 4"),
    (lambda: pd.conv2d_transpose(_x(), pd.constant(np.ones((3, 3, 2, 3))), strides=2,
                                 output_shape=(20, 20)),
     r"conv2d_transpose: an output of size \(20, 20\) convolves to \(9, 9\), not to the "
     r"input's \(8, 8\)"),
    (lambda: pd.conv1d(_x((None, 5, 3)), pd.constant(np.ones((7, 3, 2)))),
     r"conv2d: the width of the window \(7\) is larger"),
    (lambda: pd.conv1d(_x(), pd.constant(np.ones((3, 3, 2)))), r"conv1d: expected a 3-D input"),
])
def test_shape_errors(fn, match):
    with pytest.raises(pd.ShapeError, match=match):
        fn()


def test_bad_padding_and_format():
    w = pd.constant(np.ones((3, 3, 3, 4), np.float32))
    with pytest.raises(ValueError, match="conv2d: expected padding"):
        pd.conv2d(_x(), w, padding="full")
    with pytest.raises(ValueError, match="conv2d: expected padding"):
        pd.conv2d(_x(), w, padding=-1)
    with pytest.raises(ValueError, match="conv2d: expected data_format"):
        pd.conv2d(_x(), w, data_format="NWHC")


def test_error_names_the_users_line():
    with pytest.raises(pd.ShapeError, match=r"\(at test_conv.py:\d+\)"):
        pd.conv2d(_x(), pd.constant(np.ones((3, 3, 3, 4))), strides=0)
    with pytest.raises(pd.ShapeError, match=r"\(at test_conv.py:\d+\)"):
        pd.conv2d(_x((None, 2, 2, 3)), pd.constant(np.ones((3, 3, 3, 4), np.float32)))


def test_unknown_spatial_sizes_checked_at_eval():
    x = pd.data("x", shape=[None, None, None, 3])
    y = pd.conv2d(x, pd.constant(np.ones((3, 3, 3, 2), np.float32)))
    assert y.shape == (None, None, None, 2)
    assert pd.eval(y, {x: np.ones((1, 4, 5, 3), np.float32)}).shape == (1, 2, 3, 2)
    with pytest.raises(pd.ShapeError, match="conv2d: the height of the window"):
        pd.eval(y, {x: np.ones((1, 2, 5, 3), np.float32)})
