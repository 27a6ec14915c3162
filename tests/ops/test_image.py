"""pd.ops.image against NumPy references (half-pixel bilinear, nearest, colorsys, explicit
blurs and patches), numbers computed once with Keras 3.15 on JAX for the other kernels,
gradient checks and errors."""
import colorsys

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

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
