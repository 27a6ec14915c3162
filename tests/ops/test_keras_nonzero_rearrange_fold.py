"""`pd.ops.nonzero`, `vectorize`, `rearrange` and `pd.ops.nn.fold`/`unfold` against Keras
3.15 on JAX (values stored from it below), NumPy references, gradients and bad input; the
tests taking `device` also run on the simulated GPU (tests/on_devices.py)."""
import numpy as np
import pytest

import paddle as pd
from paddle.errors import ShapeError
from paddle.lowlevel import eager
from gradcheck import check_gradients


# ---- nonzero ------------------------------------------------------------------------------

def test_nonzero_matches_keras():
    x = np.array([[0.0, 2.0, 0.0], [3.0, 0.0, -1.0]], np.float32)
    rows, cols = pd.ops.nonzero(x)
    assert (rows.dtype, cols.dtype) == ("int32", "int32")  # Keras on JAX: int32
    assert rows.numpy().tolist() == [0, 1, 1] and cols.numpy().tolist() == [1, 0, 2]
    (only,) = pd.ops.numpy.nonzero(np.array([True, False, True]))
    assert only.numpy().tolist() == [0, 2]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
def test_nonzero_matches_numpy(dtype, device):
    rng = np.random.default_rng(1)
    x = (rng.integers(-1, 2, (4, 5, 6)) * rng.uniform(0.5, 2, (4, 5, 6))).astype(dtype)
    if dtype.startswith("float"):
        x[0, 0, :2] = [np.nan, -0.0]  # NaN is non-zero, -0 is zero
    got = pd.ops.nonzero(x)
    for g, want in zip(got, np.nonzero(x)):
        np.testing.assert_array_equal(g.numpy(), want)
    assert all(g.numpy().size == 0 for g in pd.ops.nonzero(np.zeros((2, 3))))


def test_nonzero_needs_values():
    with pytest.raises(ValueError, match="depends on the data.*symbolic tensor of shape"):
        pd.ops.nonzero(pd.data("nz", shape=[3]))
    with eager.tracing(), pytest.raises(ValueError, match="eager mode"):
        pd.ops.nonzero(np.ones(3))
    with pytest.raises(ValueError, match="rank >= 1, received a scalar"):
        pd.ops.nonzero(np.float32(3.0))


# ---- vectorize ----------------------------------------------------------------------------

def test_vectorize_matches_keras(device):
    mv = pd.ops.vectorize(lambda m, v: pd.ops.matmul(m, v), signature="(m,n),(n)->(m)")
    got = mv(np.arange(12.0, dtype=np.float32).reshape(2, 2, 3),
             np.array([1.0, 0.0, -1.0], np.float32))
    assert got.numpy().tolist() == [[-2.0, -2.0], [-2.0, -2.0]]
    scalar = pd.ops.numpy.vectorize(lambda a, b: a * b + 1)
    got = scalar(np.array([[1.0, 2.0]], np.float32), np.array([[3.0], [4.0]], np.float32))
    assert got.numpy().tolist() == [[4.0, 7.0], [5.0, 9.0]]


def test_vectorize_excluded_outputs_and_gradient():
    power = pd.ops.vectorize(lambda a, p: a ** p, excluded={1})
    np.testing.assert_allclose(power(np.array([[1.0, 2.0], [3.0, 4.0]]), 3).numpy(),
                               [[1.0, 8.0], [27.0, 64.0]])
    stats = pd.ops.vectorize(lambda row: (pd.ops.sum(row), row * 2.0), signature="(n)->(),(n)")
    total, twice = stats(np.arange(6.0).reshape(2, 3))
    assert total.numpy().tolist() == [3.0, 12.0] and twice.shape == (2, 3)
    dot = pd.ops.vectorize(lambda a, b: pd.ops.sum(a * b), signature="(n),(n)->()")
    check_gradients(lambda a, b: dot(a, b), [np.linspace(-1, 1, 6).reshape(2, 3),
                                             np.linspace(0.5, 2, 3)])


def test_vectorize_bad_input():
    with pytest.raises(ValueError, match="callable pyfunc"):
        pd.ops.vectorize(3)
    with pytest.raises(ValueError, match="signature like"):
        pd.ops.vectorize(abs, signature="(n)->(m")
    dot = pd.ops.vectorize(lambda a, b: pd.ops.sum(a * b), signature="(n),(n)->()")
    with pytest.raises(ValueError, match="core axis 'n'.*is 3 and 4"):
        dot(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError, match="batch shapes do not broadcast"):
        pd.ops.vectorize(lambda a, b: a + b)(np.ones(2), np.ones(3))


# ---- rearrange ----------------------------------------------------------------------------

def test_rearrange_matches_keras():
    a = np.arange(24.0, dtype=np.float32).reshape(2, 4, 3)
    got = pd.ops.rearrange(a, "b (h h1) w -> (w h1) (h b)", h1=2)
    assert got.numpy().tolist() == [
        [0.0, 12.0, 6.0, 18.0], [3.0, 15.0, 9.0, 21.0], [1.0, 13.0, 7.0, 19.0],
        [4.0, 16.0, 10.0, 22.0], [2.0, 14.0, 8.0, 20.0], [5.0, 17.0, 11.0, 23.0]]


@pytest.mark.parametrize("pattern, lengths, numpy", [
    ("b h w c -> b c h w", {}, lambda x: x.transpose(0, 3, 1, 2)),
    ("b h w c -> (b h) w c", {}, lambda x: x.reshape(8, 6, 3)),
    ("b h w c -> h (b w) c", {}, lambda x: x.transpose(1, 0, 2, 3).reshape(4, 12, 3)),
    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 3},
     lambda x: x.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(12, 2, 2, 3)),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2},
     lambda x: x.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(2, 2, 3, 12)),
])
def test_rearrange_matches_numpy_and_has_a_gradient(pattern, lengths, numpy, device):
    x = np.arange(144.0).reshape(2, 4, 6, 3)
    np.testing.assert_array_equal(pd.ops.rearrange(x, pattern, **lengths).numpy(), numpy(x))
    weights = np.random.default_rng(0).standard_normal(numpy(x).shape)
    check_gradients(lambda v: pd.ops.sum(pd.ops.rearrange(v, pattern, **lengths) * weights),
                    [x / 100.0])


def test_rearrange_unknown_batch():
    x = pd.data("images", shape=[None, 4, 6, 3])
    y = pd.ops.rearrange(x, "b h w c -> b (h w) c")
    assert y.shape == (None, 24, 3)
    value = np.ones((5, 4, 6, 3), np.float32)
    assert pd.eval(y, {x: value}).shape == (5, 24, 3)


def test_rearrange_bad_input():
    x = np.zeros((2, 4, 6))
    with pytest.raises(ValueError, match="one '->'"):
        pd.ops.rearrange(x, "b h w")
    with pytest.raises(ShapeError, match="has 2 input axes, received a tensor of rank 3"):
        pd.ops.rearrange(x, "b h -> h b")
    with pytest.raises(ValueError, match="only on the left: \\['w'\\]"):
        pd.ops.rearrange(x, "b h w -> b h")
    with pytest.raises(ValueError, match="2 axes of unknown length"):
        pd.ops.rearrange(x, "b (h1 h) w -> b h h1 w")
    with pytest.raises(ShapeError, match="size 4 does not split"):
        pd.ops.rearrange(x, "b (h1 h) w -> b h h1 w", h1=3)
    with pytest.raises(ValueError, match="more than once"):
        pd.ops.rearrange(x, "b h h -> b h h")
    with pytest.raises(ValueError, match="no '...'"):
        pd.ops.rearrange(x, "b ... -> b ...")


# ---- unfold / fold ------------------------------------------------------------------------

def _im2col(x, k, d, p, s):
    """NumPy's loops over every output place and tap (the reference)."""
    n, c, h, w = x.shape
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(oh):
                for b in range(ow):
                    out[:, :, i, j, a, b] = x[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


def test_unfold_and_fold_match_keras():
    x = np.arange(18.0, dtype=np.float32).reshape(1, 2, 3, 3)
    cols = pd.ops.unfold(x, 2)
    assert cols.numpy().tolist() == [[
        [0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0],
        [9.0, 10.0, 12.0, 13.0], [10.0, 11.0, 13.0, 14.0], [12.0, 13.0, 15.0, 16.0],
        [13.0, 14.0, 16.0, 17.0]]]
    assert pd.ops.nn.fold(cols, (3, 3), 2).numpy().tolist() == [[
        [[0.0, 2.0, 2.0], [6.0, 16.0, 10.0], [6.0, 14.0, 8.0]],
        [[9.0, 20.0, 11.0], [24.0, 52.0, 28.0], [15.0, 32.0, 17.0]]]]


@pytest.mark.parametrize("k, d, p, s, hw", [
    (2, 1, 0, 2, (4, 4)), (3, 1, 1, 1, (5, 6)), ((2, 3), (2, 1), (1, 0), (2, 3), (7, 9)),
    (3, 2, 2, 2, (6, 5))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unfold_fold_against_numpy(k, d, p, s, hw, dtype, device):
    pair = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    x = np.random.default_rng(2).standard_normal((2, 3) + hw).astype(dtype)
    cols = pd.ops.nn.unfold(x, k, d, p, s)
    want = _im2col(x, pair(k), pair(d), pair(p), pair(s))
    np.testing.assert_array_equal(cols.numpy(), want)
    assert cols.dtype == dtype
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>.
    y = np.random.default_rng(3).standard_normal(want.shape).astype(dtype)
    folded = pd.ops.nn.fold(y, hw, k, d, p, s).numpy()
    assert folded.shape == x.shape
    np.testing.assert_allclose((want * y).sum(), (x * folded).sum(), rtol=1e-5)


def test_unfold_fold_gradients():
    x = np.random.default_rng(4).standard_normal((1, 2, 5, 4))
    check_gradients(lambda v: pd.ops.nn.unfold(v, 2, 1, 1, 2), [x])
    cols = np.random.default_rng(5).standard_normal((1, 8, 9))
    check_gradients(lambda v: pd.ops.nn.fold(v, (5, 4), 2, 1, 1, 2), [cols])


def test_unfold_fold_bad_input():
    with pytest.raises(ValueError, match="4-D input.*received shape \\(3, 3\\)"):
        pd.ops.nn.unfold(np.ones((3, 3)), 2)
    with pytest.raises(ValueError, match="kernel_size to be an int >= 1"):
        pd.ops.nn.unfold(np.ones((1, 1, 3, 3)), 0)
    with pytest.raises(ShapeError, match="does not fit spatial axis 0 of size 3"):
        pd.ops.nn.unfold(np.ones((1, 1, 3, 3)), 4)
    with pytest.raises(ShapeError, match="multiple of kH \\* kW = 4"):
        pd.ops.nn.fold(np.ones((1, 6, 4)), (3, 3), 2)
    with pytest.raises(ValueError, match="3-D input"):
        pd.ops.nn.fold(np.ones((1, 4)), (3, 3), 2)
