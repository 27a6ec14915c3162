"""pd.ops.image against NumPy references (half-pixel bilinear, nearest, colorsys, explicit
blurs and patches), numbers computed once with Keras 3.15 on JAX for the other kernels,
gradient checks and errors."""
import colorsys

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.errors import ShapeError
from paddle.lowlevel.ops import color

RNG = np.random.default_rng(2)
image = pd.ops.image


def rand(*shape):
    return RNG.uniform(0, 1, shape).astype(np.float32)


def ref_bilinear_axis(x, out, axis):
    """Half-pixel linear interpolation along one axis, edges clamped (upsampling)."""
    n = x.shape[axis]
    pos = np.clip((np.arange(out) + 0.5) * n / out - 0.5, 0, n - 1)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, n - 1)
    frac = (pos - lo).reshape([-1 if a == axis else 1 for a in range(x.ndim)])
    return np.take(x, lo, axis) * (1 - frac) + np.take(x, hi, axis) * frac


def test_resize_bilinear_upsampling(device):
    x = rand(2, 4, 5, 3)
    want = ref_bilinear_axis(ref_bilinear_axis(x, 9, 1), 11, 2)
    np.testing.assert_allclose(image.resize(x, (9, 11)).numpy(), want, atol=1e-5)
    chw = image.resize(x[0].transpose(2, 0, 1), (9, 11), data_format="channels_first")
    np.testing.assert_allclose(chw.numpy(), want[0].transpose(2, 0, 1), atol=1e-5)


def test_resize_bilinear_downsampling_by_two_averages_pairs(device):
    x = rand(1, 6, 8, 2)
    want = x.reshape(1, 3, 2, 4, 2, 2).mean(axis=(2, 4))
    np.testing.assert_allclose(image.resize(x, (3, 4)).numpy(), want, atol=1e-6)


def test_resize_nearest(device):
    x = rand(2, 5, 7, 3)
    rows = np.floor((np.arange(8) + 0.5) * 5 / 8).astype(int)
    cols = np.floor((np.arange(3) + 0.5) * 7 / 3).astype(int)
    got = image.resize(x, (8, 3), interpolation="nearest").numpy()
    np.testing.assert_array_equal(got, x[:, rows][:, :, cols])


def test_resize_kernels_match_keras():
    # keras.ops.image.resize(arange(9).reshape(3, 3, 1), (2, 5), interpolation=...)
    x = np.arange(9, dtype=np.float32).reshape(3, 3, 1)
    bicubic = [[0.42818, 0.80962, 1.50365, 2.19768, 2.57912],
               [5.42088, 5.80232, 6.49635, 7.19038, 7.57182]]
    lanczos3 = [[0.29431, 0.59566, 1.36964, 2.14363, 2.44497],
                [5.55503, 5.85637, 6.63036, 7.40434, 7.70569]]
    for method, want in (("bicubic", bicubic), ("lanczos3", lanczos3)):
        got = image.resize(x, (2, 5), interpolation=method).numpy()[:, :, 0]
        np.testing.assert_allclose(got, want, atol=1e-4)
    aa = image.resize(np.arange(36, dtype=np.float32).reshape(6, 6, 1), (2, 3), antialias=True)
    np.testing.assert_allclose(aa.numpy()[:, :, 0], [[8.21429, 10.0, 11.78572],
                                                     [23.21429, 25.0, 26.78572]], atol=1e-4)
    st = image.scale_and_translate(np.arange(5, dtype=np.float32), (7,), [1.5], [0.25], (0,),
                                   "cubic")
    np.testing.assert_allclose(st.numpy(), [-0.10526, 0.24138, 1.0, 1.66667, 2.33333, 3.0,
                                            3.75862], atol=1e-4)


def test_resize_aspect_ratio_options():
    x = rand(1, 6, 10, 1)
    # crop: the centered 6 x 6 box, then a resize to 3 x 3 (pairs averaged)
    got = image.resize(x, (3, 3), crop_to_aspect_ratio=True).numpy()
    want = x[:, :, 2:8].reshape(1, 3, 2, 3, 2, 1).mean(axis=(2, 4))
    np.testing.assert_allclose(got, want, atol=1e-6)
    # pad: 6 x 10 -> 10 x 10 with 2 rows of fill_value above and below
    got = image.resize(x, (10, 10), pad_to_aspect_ratio=True, fill_value=0.5).numpy()
    np.testing.assert_allclose(got[:, 2:8], x, atol=1e-6)
    assert np.all(got[:, :2] == 0.5) and np.all(got[:, 8:] == 0.5)


def test_pad_and_crop(device):
    x = rand(2, 5, 6, 3)
    got = image.pad_images(x, 1, 2, target_height=9, target_width=10).numpy()
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (1, 3), (2, 2), (0, 0)]))
    got = image.crop_images(x, bottom_cropping=1, target_height=3, left_cropping=1,
                            right_cropping=2).numpy()
    np.testing.assert_array_equal(got, x[:, 1:4, 1:4])
    chw = image.pad_images(x[0].transpose(2, 0, 1), 0, 0, 1, 1, data_format="channels_first")
    assert chw.shape == (3, 6, 7)


def test_colour_spaces_match_colorsys(device):
    x = rand(2, 4, 5, 3)
    x[0, 0, 0] = [0.3, 0.3, 0.3]        # grey: hue and saturation 0
    x[0, 0, 1] = [0.0, 0.0, 0.0]
    hsv = image.rgb_to_hsv(x).numpy()
    want = np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)
    np.testing.assert_allclose(hsv, want, atol=1e-5)
    rgb = image.hsv_to_rgb(want.astype(np.float32)).numpy()
    np.testing.assert_allclose(rgb, x, atol=1e-5)
    # hue is taken modulo 1, negative hues included
    shifted = want.astype(np.float32) - np.array([2.0, 0, 0], np.float32)
    np.testing.assert_allclose(image.hsv_to_rgb(shifted).numpy(), x, atol=1e-5)
    gray = image.rgb_to_grayscale(x).numpy()
    np.testing.assert_allclose(gray, x @ np.array([[0.2989], [0.5870], [0.1140]]), atol=1e-6)


def test_gaussian_blur_is_a_separable_zero_padded_filter(device):
    x = rand(2, 6, 7, 2)

    def taps(n, s):
        t = np.arange(n) - (n - 1) / 2
        k = np.exp(-0.5 * (t / s) ** 2)
        return k / k.sum()
    rows, cols = taps(3, 0.7), taps(5, 1.5)     # Keras: rows from kernel_size[1], sigma[1]
    padded = np.pad(x, [(0, 0), (1, 1), (2, 2), (0, 0)])
    want = sum(rows[i] * cols[j] * padded[:, i:i + 6, j:j + 7]
               for i in range(3) for j in range(5))
    got = image.gaussian_blur(x, (5, 3), (1.5, 0.7), data_format="channels_last").numpy()
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_extract_patches(device):
    x = rand(2, 6, 8, 3)
    got = image.extract_patches(x, (2, 3)).numpy()
    assert got.shape == (2, 3, 2, 18)
    np.testing.assert_array_equal(got[1, 2, 1], x[1, 4:6, 3:6].reshape(-1))
    vol = rand(1, 4, 4, 6, 2)
    got = image.extract_patches(vol, (2, 2, 3)).numpy()
    assert got.shape == (1, 2, 2, 2, 24)
    np.testing.assert_array_equal(got[0, 1, 0, 1], vol[0, 2:4, 0:2, 3:6].reshape(-1))


def test_dtypes_and_shapes():
    assert image.resize(np.ones((4, 4, 1), np.int32), (2, 2)).dtype == "float32"
    assert image.resize(np.ones((4, 4, 1)), (2, 2)).dtype == "float64"
    assert image.rgb_to_grayscale(np.ones((2, 2, 3), np.int32)).dtype == "int32"
    x = pd.data("imgs", shape=[None, 8, 8, 3])
    assert image.resize(x, (4, 6)).shape == (None, 4, 6, 3)
    assert image.rgb_to_hsv(x).shape == (None, 8, 8, 3)
    assert image.extract_patches(x, 4).shape == (None, 2, 2, 48)


def test_gradients():
    check_gradients(lambda v: image.resize(v, (5, 3), interpolation="bicubic",
                                           antialias=True), [rand(1, 4, 6, 2)])
    check_gradients(lambda v: image.resize(v, (6, 7), interpolation="nearest"),
                    [rand(1, 3, 4, 1)])
    hsv = rand(1, 3, 3, 3) * 0.8 + 0.1
    check_gradients(image.hsv_to_rgb, [hsv])
    check_gradients(lambda v: image.gaussian_blur(v, 3, 1.0), [rand(1, 4, 4, 2)])


def test_errors():
    x = rand(4, 4, 3)
    with pytest.raises(ValueError, match=r"resize: expected interpolation one of .*'cubic'"
                                         r".*\(at test_image.py:\d+\)"):
        image.resize(x, (2, 2), interpolation="cubic")
    with pytest.raises(ValueError, match=r"rank 3 \(one image\) or 4.*\(4, 3\)"):
        image.resize(x[0], (2, 2))
    with pytest.raises(ValueError, match=r"only one of crop_to_aspect_ratio"):
        image.resize(x, (2, 2), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match=r"exactly two of top_padding, bottom_padding"):
        image.pad_images(x, 1, 1, 1, 1, target_height=9)
    with pytest.raises(ValueError, match=r"bottom_padding must be >= 0"):
        image.pad_images(x, 3, 0, target_height=5, target_width=4)
    with pytest.raises(ValueError, match=r"does not fit"):
        image.crop_images(x, 2, 0, target_height=3, target_width=4)
    with pytest.raises(ValueError, match=r"expected float images, received dtype int32"):
        image.rgb_to_hsv(np.ones((2, 2, 3), np.int32))
    with pytest.raises(ValueError, match=r"expected 3 channels"):
        image.hsv_to_rgb(rand(2, 2, 4))
    with pytest.raises(TypeError, match=r"scale and translation known"):
        image.scale_and_translate(x, (4, 4, 3), pd.constant([1.0, 1.0]), [0.0, 0.0], (0, 1),
                                  "linear")


# ---- sampling at coordinates ----------------------------------------------------------------

def ref_fix(i, size, mode):
    if mode in ("constant", "nearest"):
        return np.clip(i, 0, size - 1)
    if mode == "wrap":
        return i % size
    if mode == "mirror":
        s = size - 1
        return np.abs((i + s) % (2 * s) - s) if s else i * 0
    s = 2 * size    # reflect: the mirror of 2i + 1 on a wave of period 2 * (2 size)
    return (np.abs((2 * i + 1 + s) % (2 * s) - s) - 1) // 2


def ref_map(x, coords, order, mode, cval):
    """jax.scipy.ndimage.map_coordinates, written out per output element."""
    out = np.zeros(coords.shape[1:])
    for pos in np.ndindex(*coords.shape[1:]):
        c = coords[(slice(None),) + pos]
        if order == 0:
            corners = [[(np.sign(v) * np.floor(abs(v) + 0.5), 1.0)] for v in c]
        else:
            corners = [[(np.floor(v), 1 - (v - np.floor(v))), (np.floor(v) + 1, v - np.floor(v))]
                       for v in c]
        for combo in np.ndindex(*[len(k) for k in corners]):
            picks = [corners[a][k] for a, k in enumerate(combo)]
            idx = tuple(int(ref_fix(int(i), n, mode)) for (i, _), n in zip(picks, x.shape))
            inside = all(0 <= i < n for (i, _), n in zip(picks, x.shape))
            value = x[idx] if inside or mode != "constant" else cval
            out[pos] += np.prod([w for _, w in picks]) * value
    return out


@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates(device, mode, order):
    x = rand(5, 6)
    coords = RNG.uniform(-4, 9, (2, 3, 4)).astype(np.float32)
    got = image.map_coordinates(x, coords, order, fill_mode=mode, fill_value=-1.0).numpy()
    np.testing.assert_allclose(got, ref_map(x, coords, order, mode, -1.0), atol=1e-5)


def test_affine_and_perspective_transforms():
    x = rand(2, 5, 6, 3)
    t = np.array([[1.1, 0.2, -0.7, -0.1, 0.9, 0.6, 0.0, 0.0],
                  [0.8, -0.3, 1.2, 0.25, 1.05, -0.4, 0.02, -0.03]], np.float32)
    got = image.affine_transform(x, t, fill_mode="reflect").numpy()
    for b in range(2):
        ys, xs = np.meshgrid(np.arange(5), np.arange(6), indexing="ij")
        a = t[b]
        k = a[6] * xs + a[7] * ys + 1
        coords = np.stack([(a[3] * xs + a[4] * ys + a[5]) / k, (a[0] * xs + a[1] * ys + a[2]) / k])
        for ch in range(3):
            want = ref_map(x[b, :, :, ch], coords, 1, "reflect", 0.0)
            np.testing.assert_allclose(got[b, :, :, ch], want, atol=1e-5)
    corners = np.array([[0, 0], [5, 0], [0, 4], [5, 4]], np.float32)
    same = image.perspective_transform(x, corners, corners).numpy()
    np.testing.assert_allclose(same, x, atol=1e-4)
    moved = corners + np.array([1.0, 0.0], np.float32)    # start = end + (1, 0): x' = x + 1
    shifted = image.perspective_transform(x, moved, corners, interpolation="nearest").numpy()
    np.testing.assert_allclose(shifted[:, :, :5], x[:, :, 1:], atol=1e-4)
    assert np.all(shifted[:, :, 5] == 0.0)


def test_sobel_and_ssim(device):
    x = rand(2, 5, 6, 3)
    got = image.sobel_edges(x).numpy()
    assert got.shape == (2, 5, 6, 3, 2)
    p = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)])
    dx = (p[:, :-2, 2:] + 2 * p[:, 1:-1, 2:] + p[:, 2:, 2:]) - \
        (p[:, :-2, :-2] + 2 * p[:, 1:-1, :-2] + p[:, 2:, :-2])
    dy = (p[:, 2:, :-2] + 2 * p[:, 2:, 1:-1] + p[:, 2:, 2:]) - \
        (p[:, :-2, :-2] + 2 * p[:, :-2, 1:-1] + p[:, :-2, 2:])
    np.testing.assert_allclose(got[..., 0], dy, atol=1e-5)
    np.testing.assert_allclose(got[..., 1], dx, atol=1e-5)
    a = rand(2, 16, 14, 3)
    np.testing.assert_allclose(image.ssim(a, a).numpy(), [1.0, 1.0], atol=1e-5)
    # SSIM of an image against a constant offset: mean term only, one value per image
    b = np.clip(a + 0.1, 0, None).astype(np.float32)
    got = image.ssim(a, b).numpy()
    assert got.shape == (2,) and np.all(got < 1.0) and np.all(got > 0.9)


def test_sampling_gradients():
    coords = RNG.uniform(0.2, 3.7, (2, 3, 3))
    check_gradients(lambda v, c: image.map_coordinates(v, c, 1), [rand(5, 5), coords])
    t = np.array([1.0, 0.1, 0.3, -0.05, 0.9, 0.2, 0.0, 0.0])
    check_gradients(lambda v: image.affine_transform(v, t), [rand(1, 4, 4, 2)])


def test_sampling_errors():
    with pytest.raises(ValueError, match=r"map_coordinates: expected coordinates of shape "
                                         r"\(2, \.\.\.\).*\(at test_image.py:\d+\)"):
        image.map_coordinates(rand(3, 3), np.zeros((3, 4)), 1)
    with pytest.raises(ValueError, match=r"expected order 0 or 1, received 3"):
        image.map_coordinates(rand(3, 3), np.zeros((2, 4)), 3)
    with pytest.raises(ValueError, match=r"fill_mode one of .*received 'edge'"):
        image.affine_transform(rand(3, 3, 1), np.zeros(8), fill_mode="edge")
    with pytest.raises(ValueError, match=r"transform of shape \(8,\) or \(batch, 8\)"):
        image.affine_transform(rand(3, 3, 1), np.zeros(6))
    with pytest.raises(ValueError, match=r"start_points of shape \(4, 2\)"):
        image.perspective_transform(rand(3, 3, 1), np.zeros((3, 2)), np.zeros((3, 2)))


def test_elastic_transform():
    x = rand(2, 12, 10, 3)
    assert np.array_equal(image.elastic_transform(x, alpha=0.0, sigma=1.0, seed=3).numpy(), x)
    y = image.elastic_transform(x, alpha=3.0, sigma=1.0, seed=3).numpy()
    assert y.shape == x.shape and np.abs(y - x).mean() > 0.01
    # every output is a convex mix of the image's values ("reflect" stays inside)
    assert y.min() >= x.min() - 1e-6 and y.max() <= x.max() + 1e-6
    flat = np.ones((6, 6, 1), np.float32)
    np.testing.assert_allclose(image.elastic_transform(flat, seed=0).numpy(), flat, atol=1e-5)
    with pytest.raises(ValueError, match=r"alpha and sigma > 0"):
        image.elastic_transform(x, sigma=0.0)


# ---- the color conversions as ops (paddle/lowlevel/ops/color.py) ----------------------------

def _special_pixels(dtype):
    x = np.random.default_rng(7).uniform(-0.3, 1.3, (2, 9, 17, 3)).astype(dtype)
    eps = np.finfo(dtype).eps
    x[0, 0, :10] = [[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [eps / 2, 0.2, -eps / 3],
                    [np.nan, 0.2, 0.3], [0.1, np.nan, 0.3], [0.1, 0.2, np.nan],
                    [np.inf, 0.1, 0.2], [0.2, 0.7, 0.7], [0.7, 0.7, 0.2], [-0.0, 1.0, 2.5]]
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_colour_ops_equal_their_compositions_bit_for_bit(device, dtype):
    # One pass over the pixels, with the compositions' arithmetic step by step: the same
    # values (NaN and infinities included), on every device.
    x = _special_pixels(dtype)
    v = pd.data("colours", shape=[None, 9, 17, 3], dtype=dtype)
    for op, composition in ((color.rgb_to_hsv, color.rgb_to_hsv_ops),
                            (color.hsv_to_rgb, color.hsv_to_rgb_ops)):
        y = op(v)
        assert y.node.op.name == op.__name__ and y.dtype == dtype
        with np.errstate(all="ignore"):
            got, want = pd.eval([y, composition(v)], {v: x})
        np.testing.assert_array_equal(got, want)
    # the public functions are the ops, channels first too
    np.testing.assert_array_equal(
        image.rgb_to_hsv(x.transpose(0, 3, 1, 2), data_format="channels_first").numpy(),
        pd.eval(color.rgb_to_hsv_ops(pd.constant(x))).transpose(0, 3, 1, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_colour_op_gradients_are_their_compositions(device, dtype):
    x = _special_pixels(dtype)[:, 1:]  # (finite values)
    g = np.random.default_rng(8).standard_normal(x.shape).astype(dtype)
    v = pd.data("colours_g", shape=list(x.shape), dtype=dtype)
    for op, composition in ((color.rgb_to_hsv, color.rgb_to_hsv_ops),
                            (color.hsv_to_rgb, color.hsv_to_rgb_ops)):
        (got,) = pd.gradients(op(v), [v], [pd.constant(g)])
        (want,) = pd.gradients(composition(v), [v], [pd.constant(g)])
        got, want = pd.eval([got, want], {v: x})
        np.testing.assert_array_equal(got, want)


def test_colour_op_gradients_against_central_differences():
    # (away from the channels' ties, where the hue's formula switches)
    rgb = np.array([[[0.2, 0.5, 0.9], [0.8, 0.3, 0.1], [0.4, 0.9, 0.6]]], np.float32)
    check_gradients(image.rgb_to_hsv, [rgb])
    check_gradients(image.hsv_to_rgb, [np.array([[[0.3, 0.5, 0.7], [0.9, 0.2, 0.4]]])])


def test_colour_ops_check_their_input():
    with pytest.raises(ShapeError, match=r"rgb_to_hsv: expected 3 channels on the last axis"
                                         r": x is \(2, 4\)"):
        color.rgb_to_hsv(pd.data("four_channels", shape=[2, 4]))
    with pytest.raises(TypeError, match=r"hsv_to_rgb: expected float32 or float64 images, "
                                        r"received int32"):
        color.OPS["hsv_to_rgb"].infer(((2, 3), "int32"))
    # half precision takes the composition
    assert color.rgb_to_hsv(pd.data("half", shape=[2, 3], dtype="float16")).node.op.name \
        != "rgb_to_hsv"
