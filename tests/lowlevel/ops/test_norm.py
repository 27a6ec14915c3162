"""batch_norm and layer_norm: NumPy references, moving statistics, gradients, errors."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def ref_batch_norm(x, scale, offset, mean, var, eps, axis):
    shape = [1] * x.ndim
    shape[axis] = -1
    r = lambda v: np.reshape(v, shape)  # noqa: E731
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(scale) + r(offset)


@pytest.mark.parametrize("shape,axis", [((6, 3), -1), ((2, 3, 4, 5), -1), ((2, 3, 4, 5), 1)])
def test_batch_norm_training_and_inference(shape, axis):
    x = rand(*shape) * 3 + 1
    c = shape[axis]
    scale, offset = rand(c, seed=1), rand(c, seed=2)
    mm = pd.Variable("mm", shape=[c], dtype="float64", initializer="zeros", trainable=False)
    mv = pd.Variable("mv", shape=[c], dtype="float64", initializer="ones", trainable=False)
    xv = pd.data("x", shape=(None,) + shape[1:], dtype="float64")
    y = pd.batch_norm(xv, pd.constant(scale, "float64"), pd.constant(offset, "float64"), mm, mv,
                      momentum=0.9, epsilon=1e-3, axis=axis)
    axes = tuple(a for a in range(x.ndim) if a != axis % x.ndim)
    bm, bv = x.mean(axis=axes), x.var(axis=axes)
    got = pd.eval(y, {xv: x}, training=True)
    np.testing.assert_allclose(got, ref_batch_norm(x, scale, offset, bm, bv, 1e-3, axis),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(mm.val(), 0.1 * bm, rtol=1e-12)
    np.testing.assert_allclose(mv.val(), 0.9 + 0.1 * bv, rtol=1e-12)
    # Inference uses (and leaves alone) the moving statistics.
    before = mm.val(), mv.val()
    got = pd.eval(y, {xv: x})
    np.testing.assert_allclose(got, ref_batch_norm(x, scale, offset, *before, 1e-3, axis),
                               rtol=1e-10)
    np.testing.assert_array_equal(mm.val(), before[0])


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-9), ("float32", 2e-4)])
@pytest.mark.parametrize("shape,axis", [((4099, 8), -1), ((40, 9, 17, 6), -1),
                                        ((40, 6, 17, 9), 1)])
def test_batch_norm_statistics_of_many_blocks_far_from_zero(shape, axis, dtype, rtol):
    """Batches of many cache blocks and threads, each block's moments merged with the
    others', on values whose mean (1e4) dwarfs their spread: the statistics keep their
    digits (a one-pass sum of squares would lose them all in float64)."""
    x = (rand(*shape) * 0.5 + 1e4).astype(dtype)
    c = shape[axis]
    mm = pd.Variable("mm", shape=[c], dtype=dtype, initializer="zeros", trainable=False)
    mv = pd.Variable("mv", shape=[c], dtype=dtype, initializer="zeros", trainable=False)
    xv = pd.data("x", shape=shape, dtype=dtype)
    y = pd.batch_norm(xv, None, None, mm, mv, momentum=0.0, epsilon=0.0, axis=axis)
    got = pd.eval(y, {xv: x}, training=True)
    axes = tuple(a for a in range(x.ndim) if a != axis % x.ndim)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mm.val(), x64.mean(axis=axes), rtol=1e-12 if dtype == "float64"
                               else 1e-7)
    np.testing.assert_allclose(mv.val(), x64.var(axis=axes), rtol=rtol)
    # y = x * a + b in x's dtype: at 1e4 a float32 x carries ~1e-3 of rounding into y.
    np.testing.assert_allclose(got, ref_batch_norm(x64, 1.0, 0.0, x64.mean(axis=axes),
                                                   x64.var(axis=axes), 0.0, axis),
                               rtol=rtol, atol=1e-8 if dtype == "float64" else 5e-3)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape,axis", [((5, 3), -1), ((2, 3, 2, 2), 1), ((600, 70), -1),
                                        ((3, 70, 200), 1)])
def test_batch_norm_gradients(training, shape, axis):
    c = shape[axis]
    arrays = [rand(*shape) * 2 + 0.5, rand(c, seed=1), rand(c, seed=2), rand(c, seed=3),
              np.abs(rand(c, seed=4)) + 0.5]
    check_gradients(lambda x, s, o, m, v: pd.batch_norm(x, s, o, m, v, axis=axis), arrays,
                    wrt=[0, 1, 2], training=training)


def test_batch_norm_without_scale_and_float32():
    x = rand(16, 4).astype(np.float32)
    mm = pd.Variable("mm", shape=[4], initializer="zeros", trainable=False)
    mv = pd.Variable("mv", shape=[4], initializer="ones", trainable=False)
    y = pd.batch_norm(pd.constant(x), None, None, mm, mv, epsilon=0.0)
    got = pd.eval(y, training=True)
    np.testing.assert_allclose(got, (x - x.mean(0)) / x.std(0), rtol=1e-4, atol=1e-5)


def test_batch_norm_errors():
    x = pd.data("x", shape=[None, 8, 8, 3])
    mm = pd.Variable("mm", shape=[3], initializer="zeros", trainable=False)
    with pytest.raises(pd.ShapeError, match=r"batch_norm: expected scale of shape \(3,\).*"
                                            r"x is \(None, 8, 8, 3\), scale is \(4,\)"):
        pd.batch_norm(x, pd.constant(np.ones(4, np.float32)), None, mm, mm)
    with pytest.raises(pd.ShapeError, match="batch_norm: axis 4 is out of range"):
        pd.batch_norm(x, None, None, mm, mm, axis=4)
    const = pd.constant(np.zeros(3, np.float32))
    y = pd.batch_norm(x, None, None, const, const)
    assert pd.eval(y, {x: np.ones((1, 8, 8, 3), np.float32)}).shape == (1, 8, 8, 3)
    with pytest.raises(ValueError, match="batch_norm: a training run updates moving_mean"):
        pd.eval(y, {x: np.ones((1, 8, 8, 3), np.float32)}, training=True)


def test_batch_norm_of_no_channels():
    # Zero channels are zero values: nothing to normalize (the kernels divided by C).
    x = pd.data("x", shape=[None, 0])
    mm = pd.Variable("mm", shape=[0], initializer="zeros", trainable=False)
    mv = pd.Variable("mv", shape=[0], initializer="ones", trainable=False)
    y = pd.batch_norm(x, None, None, mm, mv)
    gx, = pd.gradients(pd.sum(y), [x])
    for training in (True, False):
        got, g = pd.eval([y, gx], {x: np.zeros((3, 0), np.float32)}, training=training)
        assert got.shape == (3, 0) and g.shape == (3, 0)


def test_batch_norm_second_order_is_explicit():
    x = pd.data("x", shape=[4, 2], dtype="float64")
    c = pd.constant(np.ones(2), "float64")
    gx, = pd.gradients(pd.sum(pd.batch_norm(x, c, c, c, c) ** 2), [x])
    with pytest.raises(NotImplementedError, match="batch_norm: second-order"):
        pd.gradients(pd.sum(gx), [x])


def ref_layer_norm(x, scale, offset, axes, eps):
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * scale + offset


@pytest.mark.parametrize("shape,axis", [((4, 5), -1), ((2, 3, 4), [1, 2]), ((2, 3, 4), 1)])
def test_layer_norm(shape, axis):
    x = rand(*shape) * 2 + 1
    axes = tuple(np.atleast_1d(axis) % len(shape))
    pshape = tuple(shape[a] for a in axes)
    scale, offset = rand(*pshape, seed=1), rand(*pshape, seed=2)
    bshape = tuple(shape[a] if a in axes else 1 for a in range(min(axes), len(shape)))
    got = pd.eval(pd.layer_norm(pd.constant(x, "float64"), pd.constant(scale, "float64"),
                                pd.constant(offset, "float64"), axis=axis))
    want = ref_layer_norm(x, scale.reshape(bshape), offset.reshape(bshape), axes, 1e-3)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    check_gradients(lambda v, s, o: pd.layer_norm(v, s, o, axis=axis), [x, scale, offset])


def test_layer_norm_second_order_and_errors():
    check_gradients(lambda v, s: pd.layer_norm(v, s, None) ** 2,
                    [rand(3, 4), rand(4, seed=1)], order=2)
    with pytest.raises(pd.ShapeError, match=r"layer_norm: expected scale of shape \(4,\)"):
        pd.layer_norm(pd.data("x", [None, 4]), pd.constant(np.ones(3, np.float32)), None)
    with pytest.raises(pd.ShapeError, match="layer_norm: axis 2 is out of range"):
        pd.layer_norm(pd.data("x", [None, 4]), None, None, axis=2)
