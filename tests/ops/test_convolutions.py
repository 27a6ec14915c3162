"""pd.ops's conv/pool family (keras.ops.nn): NumPy references (explicit windows), numbers
computed once with Keras 3.15 on JAX, gradient checks, dtypes and errors."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# ---- NumPy references ---------------------------------------------------------------------

def same_pads(size, k, s, d=1):
    eff = (k - 1) * d + 1
    total = max((-(-size // s) - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def ref_conv(x, w, strides, padding, dilation):
    """Channels-last N-D cross-correlation by explicit windows; groups from the kernel."""
    n = x.ndim - 2
    if padding == "same":
        pads = [same_pads(x.shape[1 + a], w.shape[a], strides[a], dilation[a])
                for a in range(n)]
        x = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    c, cg, out = x.shape[-1], w.shape[-2], w.shape[-1]
    groups, og = c // cg, out // (c // cg)
    sizes = [(x.shape[1 + a] - (w.shape[a] - 1) * dilation[a] - 1) // strides[a] + 1
             for a in range(n)]
    y = np.zeros((x.shape[0], *sizes, out))
    for pos in np.ndindex(*sizes):
        for tap in np.ndindex(*w.shape[:n]):
            idx = tuple(p * s + t * d for p, s, t, d in zip(pos, strides, tap, dilation))
            v = x[(slice(None),) + idx]                         # (N, C)
            for g in range(groups):
                y[(slice(None),) + pos + (slice(g * og, (g + 1) * og),)] += \
                    v[:, g * cg:(g + 1) * cg] @ w[tap][:, g * og:(g + 1) * og]
    return y


def ref_pool(x, k, s, padding, kind):
    """Channels-last N-D pooling over windows clipped to the input (TF's 'same')."""
    n = x.ndim - 2
    if padding == "valid":
        sizes = [(x.shape[1 + a] - k[a]) // s[a] + 1 for a in range(n)]
        starts = [0] * n
    else:
        sizes = [-(-x.shape[1 + a] // s[a]) for a in range(n)]
        starts = [-same_pads(x.shape[1 + a], k[a], s[a])[0] for a in range(n)]
    y = np.zeros((x.shape[0], *sizes, x.shape[-1]))
    for pos in np.ndindex(*sizes):
        box = tuple(slice(max(p * st + b, 0), p * st + b + kk)
                    for p, st, b, kk in zip(pos, s, starts, k))
        win = x[(slice(None),) + box].reshape(x.shape[0], -1, x.shape[-1])
        y[(slice(None),) + pos] = win.max(1) if kind == "max" else win.mean(1)
    return y


def ref_adaptive(x, out, kind):
    n = x.ndim - 2
    y = np.zeros((x.shape[0], *out, x.shape[-1]))
    for pos in np.ndindex(*out):
        box = tuple(slice(p * L // o, -(-(p + 1) * L // o))
                    for p, L, o in zip(pos, x.shape[1:1 + n], out))
        win = x[(slice(None),) + box].reshape(x.shape[0], -1, x.shape[-1])
        y[(slice(None),) + pos] = win.max(1) if kind == "max" else win.mean(1)
    return y


def close(got, want, atol=1e-4):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, atol=atol, rtol=1e-4)


# ---- convolutions -------------------------------------------------------------------------

CONV_CASES = [  # x shape, kernel shape, strides, padding, dilation
    ((2, 9, 4), (3, 4, 6), (2,), "same", (1,)),
    ((2, 9, 4), (3, 2, 6), (1,), "valid", (2,)),            # groups = 2
    ((2, 7, 6, 4), (3, 2, 4, 5), (2, 1), "same", (1, 1)),
    ((1, 7, 6, 4), (3, 3, 1, 8), (1, 1), "same", (2, 1)),    # groups = 4
    ((2, 5, 6, 7, 4), (3, 2, 2, 4, 6), (2, 2, 2), "same", (1, 1, 1)),
    ((1, 6, 5, 7, 4), (2, 3, 2, 2, 4), (1, 2, 1), "valid", (2, 1, 2)),  # 3-D, groups = 2
]


@pytest.mark.parametrize("xs, ks, strides, padding, dilation", CONV_CASES)
def test_conv_matches_windows(device, xs, ks, strides, padding, dilation):
    x, w = rand(*xs), rand(*ks)
    got = pd.ops.conv(x, w, strides=strides, padding=padding, dilation_rate=dilation)
    close(got, ref_conv(x, w, strides, padding, dilation))


def test_conv_channels_first(device):
    x, w = rand(2, 4, 7, 6), rand(3, 3, 4, 5)
    got = pd.ops.conv(x, w, padding="same", data_format="channels_first")
    want = ref_conv(x.transpose(0, 2, 3, 1), w, (1, 1), "same", (1, 1)).transpose(0, 3, 1, 2)
    close(got, want)


def test_conv_3d_channels_first_and_unknown_batch():
    x = pd.data("vol", shape=[None, 4, 5, 6, 7])
    y = pd.ops.conv(x, rand(3, 3, 3, 4, 2), strides=2, padding="same",
                    data_format="channels_first")
    assert y.shape == (None, 2, 3, 3, 4)
    xv, w = rand(2, 4, 5, 6, 7), rand(3, 3, 3, 4, 2)
    y = pd.ops.conv(x, w, strides=2, padding="same", data_format="channels_first")
    want = ref_conv(xv.transpose(0, 2, 3, 4, 1), w, (2, 2, 2), "same", (1, 1, 1))
    close(pd.eval(y, {x: xv}), want.transpose(0, 4, 1, 2, 3))


def test_depthwise_and_separable(device):
    x, dk, pk = rand(2, 7, 6, 3), rand(3, 3, 3, 2), rand(1, 1, 6, 4)
    # depthwise: channel c under filter m is output channel c * 2 + m
    grouped = dk.reshape(3, 3, 1, 6)
    want = ref_conv(x, grouped, (2, 2), "same", (1, 1))
    close(pd.ops.depthwise_conv(x, dk, strides=2, padding="same"), want)
    dw = ref_conv(x, grouped, (1, 1), "valid", (1, 1))
    close(pd.ops.separable_conv(x, dk, pk), ref_conv(dw, pk, (1, 1), "valid", (1, 1)))
    x1, k1 = rand(2, 9, 3), rand(3, 3, 2)
    close(pd.ops.depthwise_conv(x1, k1, dilation_rate=2),
          ref_conv(x1, k1.reshape(3, 1, 6), (1,), "valid", (2,)))


def ref_conv_transpose(x, w, strides, out_sizes, pads_left):
    """Channels-last transposed convolution as scattered kernel taps:
    out[i * s + t - left] += x[i] @ w[t].T."""
    n = x.ndim - 2
    y = np.zeros((x.shape[0], *out_sizes, w.shape[-2]))
    for pos in np.ndindex(*x.shape[1:1 + n]):
        for tap in np.ndindex(*w.shape[:n]):
            at = tuple(p * s + t - left for p, s, t, left in zip(pos, strides, tap, pads_left))
            if all(0 <= a < o for a, o in zip(at, out_sizes)):
                y[(slice(None),) + at] += x[(slice(None),) + pos] @ w[tap].T
    return y


def test_conv_transpose_keras_shapes_and_values(device):
    x, w = rand(2, 3, 4, 4), rand(3, 3, 5, 4)
    # Keras's sizes: valid -> (in - 1) * s + max(k, s); same -> in * s; output_padding p
    # -> (in - 1) * s + k - 2 * (k // 2) + p ("same") or (in - 1) * s + k + p ("valid")
    y = pd.ops.conv_transpose(x, w, strides=2, padding="valid")
    close(y, ref_conv_transpose(x, w, (2, 2), (7, 9), (0, 0)))
    y = pd.ops.conv_transpose(x, w, strides=2, padding="same")
    close(y, ref_conv_transpose(x, w, (2, 2), (6, 8), (0, 0)))
    y = pd.ops.conv_transpose(x, w, strides=2, padding="same", output_padding=1)
    close(y, ref_conv_transpose(x, w, (2, 2), (6, 8), (0, 0)))
    w4 = rand(4, 4, 5, 4)  # Keras on JAX starts this one a tap early (pad 1)
    y = pd.ops.conv_transpose(x, w4, strides=2, padding="same")
    close(y, ref_conv_transpose(x, w4, (2, 2), (6, 8), (1, 1)))
    y = pd.ops.conv_transpose(x, w, strides=2, padding="valid", output_padding=1)
    close(y, ref_conv_transpose(x, w, (2, 2), (8, 10), (0, 0)))
    x1, w1 = rand(2, 5, 4), rand(3, 2, 4)
    close(pd.ops.conv_transpose(x1, w1, strides=3, padding="same"),
          ref_conv_transpose(x1, w1, (3,), (15,), (0,)))


def test_conv_transpose_3d(device):
    x = rand(2, 5, 6, 7, 4)
    w = rand(4, 2, 3, 3, 4)
    # Keras's "same" sizes with output_padding p: (in - 1) * stride + k % 2 + p, each tap
    # one place early here: depth (k 4, stride 2, p 1) 9, height (k 2, stride 2, p 0) 10,
    # width (k 3, stride 1, p 0) 7
    y = pd.ops.conv_transpose(x, w, strides=(2, 2, 1), padding="same", output_padding=(1, 0, 0))
    close(y, ref_conv_transpose(x, w, (2, 2, 1), (9, 10, 7), (1, 1, 1)))
    y = pd.ops.conv_transpose(x, w, strides=3, padding="valid")
    close(y, ref_conv_transpose(x, w, (3, 3, 3), (16, 18, 21), (0, 0, 0)))
    chw = pd.ops.conv_transpose(x.transpose(0, 4, 1, 2, 3), w, strides=3,
                                data_format="channels_first")
    close(chw, ref_conv_transpose(x, w, (3, 3, 3), (16, 18, 21), (0, 0, 0)).transpose(
        0, 4, 1, 2, 3))


def test_conv_transpose_value_from_keras():
    # keras.ops.conv_transpose(ones((1, 2, 2, 1)), arange(9).reshape(3, 3, 1, 1), 2, "same")
    x = np.ones((1, 2, 2, 1), np.float32)
    w = np.arange(9, dtype=np.float32).reshape(3, 3, 1, 1)
    y = pd.ops.conv_transpose(x, w, strides=2, padding="same").numpy()[0, :, :, 0]
    assert y.tolist() == [[0.0, 1.0, 2.0, 1.0], [3.0, 4.0, 8.0, 4.0],
                          [6.0, 8.0, 16.0, 8.0], [3.0, 4.0, 8.0, 4.0]]


# ---- pooling --------------------------------------------------------------------------------

POOL_CASES = [  # x shape, pool, strides, padding
    ((2, 9, 3), (3,), (2,), "same"),
    ((2, 7, 6, 3), (2, 3), (2, 3), "valid"),
    ((2, 7, 6, 3), (3, 3), (2, 2), "same"),
    ((2, 5, 6, 7, 3), (2, 2, 2), (1, 2, 2), "same"),
    ((1, 5, 6, 7, 2), (2, 3, 2), (2, 2, 3), "valid"),
]


@pytest.mark.parametrize("kind", ["max", "average"])
@pytest.mark.parametrize("xs, pool, strides, padding", POOL_CASES)
def test_pools_match_windows(device, kind, xs, pool, strides, padding):
    x = rand(*xs)
    fn = pd.ops.max_pool if kind == "max" else pd.ops.average_pool
    close(fn(x, pool, strides, padding), ref_pool(x, pool, strides, padding, kind))


def test_pool_strides_default_to_pool_size_and_channels_first():
    x = rand(2, 3, 8, 6)
    got = pd.ops.max_pool(x, (2, 3), data_format="channels_first")
    want = ref_pool(x.transpose(0, 2, 3, 1), (2, 3), (2, 3), "valid", "max")
    close(got, want.transpose(0, 3, 1, 2))


@pytest.mark.parametrize("kind", ["max", "average"])
@pytest.mark.parametrize("xs, out", [((2, 9, 3), (4,)), ((2, 7, 9, 3), (3, 4)),
                                     ((1, 5, 6, 7, 2), (2, 4, 3)), ((1, 4, 4, 2), (6, 5))])
def test_adaptive_pools(device, kind, xs, out):
    x = rand(*xs)
    fn = pd.ops.adaptive_max_pool if kind == "max" else pd.ops.adaptive_average_pool
    close(fn(x, out), ref_adaptive(x, out, kind))


def test_adaptive_pool_channels_first():
    x = rand(2, 3, 7, 9)
    got = pd.ops.adaptive_average_pool(x, (3, 4), data_format="channels_first")
    close(got, ref_adaptive(x.transpose(0, 2, 3, 1), (3, 4), "average").transpose(0, 3, 1, 2))


# ---- dtypes and symbolic shapes ----------------------------------------------------------------

def test_dtypes():
    ints = np.ones((1, 5, 5, 2), np.int32)
    assert pd.ops.conv(ints, np.ones((3, 3, 2, 1), np.int32)).dtype == "float32"
    doubles = np.ones((1, 5, 5, 2))
    assert pd.ops.conv(doubles, np.ones((3, 3, 2, 1))).dtype == "float64"
    assert pd.ops.max_pool(doubles, 2).dtype == "float64"


def test_unknown_batch_shapes():
    x = pd.data("img", shape=[None, 8, 8, 4])
    assert pd.ops.conv(x, rand(3, 3, 4, 6), 2, "same").shape == (None, 4, 4, 6)
    assert pd.ops.conv_transpose(x, rand(3, 3, 2, 4), 2, "same").shape == (None, 16, 16, 2)
    assert pd.ops.max_pool(x, 3, 2).shape == (None, 3, 3, 4)
    assert pd.ops.adaptive_max_pool(x, 3).shape == (None, 3, 3, 4)


# ---- gradients ---------------------------------------------------------------------------------

def test_gradients_conv3d_and_transpose():
    check_gradients(lambda x, w: pd.ops.conv(x, w, strides=(2, 1, 1), padding="same"),
                    [rand(1, 4, 3, 3, 2), rand(2, 2, 2, 2, 3)])
    check_gradients(lambda x, w: pd.ops.conv_transpose(x, w, 2, "same", output_padding=1),
                    [rand(1, 3, 3, 2), rand(3, 3, 2, 2)])
    check_gradients(lambda x, w: pd.ops.conv_transpose(x, w, (2, 1, 2), "same"),
                    [rand(1, 3, 2, 3, 2), rand(3, 2, 2, 2, 2)])
    check_gradients(lambda x, d, p: pd.ops.separable_conv(x, d, p, padding="same"),
                    [rand(1, 4, 4, 2), rand(3, 3, 2, 2), rand(1, 1, 4, 3)])


def test_gradients_pools():
    x = RNG.permutation(2 * 5 * 6 * 4 * 2).reshape(2, 5, 6, 4, 2) / 100.0  # no ties
    check_gradients(lambda v: pd.ops.max_pool(v, 2, padding="same"), [x])
    check_gradients(lambda v: pd.ops.average_pool(v, (2, 3, 2), padding="same"), [x])
    check_gradients(lambda v: pd.ops.adaptive_max_pool(v, (3, 4, 3)), [x])
    check_gradients(lambda v: pd.ops.adaptive_average_pool(v, (3, 4, 3)), [x])


# ---- errors --------------------------------------------------------------------------------------

def test_errors_name_the_user_line():
    x = rand(1, 5, 5, 4)
    with pytest.raises(ValueError, match=r"conv: expected padding 'valid' or 'same', "
                                         r"received 'full' \(at test_convolutions.py:\d+\)"):
        pd.ops.conv(x, rand(3, 3, 4, 2), padding="full")
    with pytest.raises(pd.ShapeError, match=r"4 channels.*kernel's 3 input channels.*"
                                            r"test_convolutions.py"):
        pd.ops.conv(x, rand(3, 3, 3, 2))
    with pytest.raises(pd.ShapeError, match=r"rank 3 or 4 or 5.*\(5, 5\)"):
        pd.ops.max_pool(rand(5, 5), 2)
    with pytest.raises(ValueError, match=r"strides as an int >= 1 or 2 of them.*\(1, 2, 3\)"):
        pd.ops.average_pool(x, 2, strides=(1, 2, 3))
    with pytest.raises(ValueError, match=r"output_padding smaller than the strides"):
        pd.ops.conv_transpose(x, rand(3, 3, 2, 4), strides=2, output_padding=2)
    with pytest.raises(ValueError, match=r"data_format 'channels_last' or 'channels_first'"):
        pd.ops.adaptive_average_pool(x, 2, data_format="NHWC")
    with pytest.raises(pd.ShapeError, match=r"window \(3\) is larger"):
        pd.ops.conv(rand(1, 2, 5, 5, 1), rand(3, 3, 3, 1, 1))


# ---- data_format=None follows pd.config.image_data_format(), as Keras's ops ----------------

@pytest.fixture
def channels_first():
    before = pd.config.image_data_format()
    pd.config.set_image_data_format("channels_first")
    yield
    pd.config.set_image_data_format(before)


def test_data_format_none_is_the_configured_image_data_format(channels_first):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)  # NCHW
    k = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    implicit = pd.ops.conv(x, k, padding="same")
    explicit = pd.ops.conv(x, k, padding="same", data_format="channels_first")
    assert tuple(implicit.shape) == (2, 4, 5, 6)
    np.testing.assert_array_equal(np.asarray(implicit), np.asarray(explicit))
    pooled = pd.ops.max_pool(x, 2)
    assert tuple(pooled.shape) == (2, 3, 2, 3)
    np.testing.assert_array_equal(
        np.asarray(pooled), np.asarray(pd.ops.max_pool(x, 2, data_format="channels_first")))
    gray = pd.ops.image.rgb_to_grayscale(x)
    assert tuple(gray.shape) == (2, 1, 5, 6)
