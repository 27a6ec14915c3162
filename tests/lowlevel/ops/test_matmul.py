"""matmul: 2-D, batched, broadcasting leading dims, transpose flags, vectors; shapes with
None; forward against NumPy in float32/float64; gradients and second order."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(1)


def reference(a, b, ta, tb):
    a = np.swapaxes(a, -1, -2) if ta and a.ndim > 1 else a
    b = np.swapaxes(b, -1, -2) if tb and b.ndim > 1 else b
    return a @ b


def stored(shape, transpose):
    """The operand's stored shape for a product over `shape` (last two axes swapped)."""
    if transpose and len(shape) > 1:
        return shape[:-2] + (shape[-1], shape[-2])
    return shape


CASES = [  # (a shape, b shape) as multiplied, before any transpose
    ((3, 4), (4, 5)),
    ((2, 3, 4), (2, 4, 5)),          # batched
    ((2, 1, 3, 4), (5, 4, 2)),       # leading dims broadcast
    ((3, 4), (2, 4, 5)),             # a matrix against a batch
    ((2, 3, 4), (4, 5)),             # a batch against one matrix (one big product)
    ((1, 3, 4), (2, 4, 5)),
    ((4,), (4, 5)),                  # vector times matrix
    ((3, 4), (4,)),                  # matrix times vector
    ((4,), (4,)),                    # dot product
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 5)),
]
FLAGS = [(False, False), (True, False), (False, True), (True, True)]


def operands(sa, sb, ta, tb, dtype="float64"):
    a = RNG.standard_normal(stored(sa, ta)).astype(dtype)
    b = RNG.standard_normal(stored(sb, tb)).astype(dtype)
    return a, b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("flags", FLAGS, ids=str)
@pytest.mark.parametrize("shapes", CASES, ids=str)
def test_forward(shapes, flags, dtype):
    (sa, sb), (ta, tb) = shapes, flags
    a, b = operands(sa, sb, ta, tb, dtype)
    x = pd.data("a", shape=a.shape, dtype=dtype)
    y = pd.data("b", shape=b.shape, dtype=dtype)
    z = pd.matmul(x, y, transpose_a=ta, transpose_b=tb)
    expected = reference(a, b, ta, tb)
    assert z.shape == expected.shape and z.dtype == dtype
    got = pd.eval(z, {x: a, y: b})
    assert got.dtype == dtype and got.shape == expected.shape
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, expected, **tol)


def test_forward_with_unknown_batch_and_several_batch_sizes():
    x = pd.data("x", shape=[None, 3, 4])
    w = pd.Variable("w", shape=[4, 2])
    z = x @ w
    assert z.shape == (None, 3, 2)
    for n in (1, 5, 2):
        a = RNG.standard_normal((n, 3, 4)).astype(np.float32)
        np.testing.assert_allclose(pd.eval(z, {x: a}), a @ w.val(), rtol=1e-5, atol=1e-6)


def test_empty_operands():
    a = np.zeros((0, 4))
    x = pd.data("x", shape=[None, 4], dtype="float64")
    got = pd.eval(x @ np.ones((4, 3)), {x: a})
    assert got.shape == (0, 3)
    x = pd.data("k", shape=[3, 0], dtype="float64")
    got = pd.eval(x @ np.ones((0, 5)), {x: np.zeros((3, 0))})
    np.testing.assert_array_equal(got, np.zeros((3, 5)))


def test_shape_inference_with_none():
    assert pd.matmul(pd.data("a", shape=[None, 3]), pd.data("b", shape=[3, None])).shape == \
        (None, None)
    assert pd.matmul(pd.data("a", shape=[None, 5, 3]), pd.data("b", shape=[None, 3]),
                     transpose_b=True).shape == (None, 5, None)
    assert pd.matmul(pd.data("a", shape=[4, None]), pd.data("b", shape=[7, 2])).shape == (4, 2)


@pytest.mark.parametrize("sa,sb,flags", [
    ((None, 784), (10, 3), (False, False)),
    ((2, 3), (2, 3), (False, False)),
    ((2, 3), (2, 3), (True, True)),
    ((2, 3, 4), (5, 4, 2), (False, False)),       # batch dims 2 and 5
    ((3,), (4,), (False, False)),
])
def test_shape_errors(sa, sb, flags):
    with pytest.raises(pd.ShapeError) as info:
        pd.matmul(pd.data("a", shape=sa), pd.data("b", shape=sb), *flags)
    msg = str(info.value)
    assert msg.startswith("matmul:") and "test_matmul.py:" in msg


def test_dtype_errors():
    with pytest.raises(pd.ShapeError, match="int64"):
        pd.matmul(pd.data("a", shape=[2, 2], dtype="int64"),
                  pd.data("b", shape=[2, 2], dtype="int64"))
    with pytest.raises(pd.ShapeError, match="scalar"):
        pd.matmul(pd.constant(2.0), pd.data("b", shape=[2, 2]))


GRAD_CASES = [
    ((3, 4), (4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (4,)),
]


@pytest.mark.parametrize("flags", FLAGS, ids=str)
@pytest.mark.parametrize("shapes", GRAD_CASES, ids=str)
def test_gradients(shapes, flags):
    (sa, sb), (ta, tb) = shapes, flags
    a, b = operands(sa, sb, ta, tb)
    check_gradients(lambda x, y: pd.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b])


@pytest.mark.parametrize("flags", FLAGS, ids=str)
def test_gradients_with_unknown_batch(flags):
    ta, tb = flags
    a = RNG.standard_normal(stored((2, 3, 4), ta))
    b = RNG.standard_normal(stored((4, 5), tb))
    x = pd.data("x", shape=(None,) + a.shape[1:], dtype="float64")
    y = pd.data("y", shape=b.shape, dtype="float64")
    out = pd.sum(pd.matmul(x, y, transpose_a=ta, transpose_b=tb) * pd.constant(
        RNG.standard_normal((3, 5)), dtype="float64"))
    gx, gy = pd.gradients(out, [x, y])
    assert gx.shape == x.shape and gy.shape == y.shape
    got_x, got_y = pd.eval([gx, gy], {x: a, y: b})
    for arr, got, i in ((a, got_x, 0), (b, got_y, 1)):
        d = RNG.standard_normal(arr.shape)
        eps = 1e-6
        feeds = [a, b]

        def value(v):
            fs = list(feeds)
            fs[i] = v
            return float(pd.eval(out, {x: fs[0], y: fs[1]}))
        numeric = (value(arr + eps * d) - value(arr - eps * d)) / (2 * eps)
        assert np.sum(got * d) == pytest.approx(numeric, rel=1e-5, abs=1e-6)


def test_second_order():
    check_gradients(lambda x, y: pd.tanh(pd.matmul(x, y)),
                    [RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))], order=2)


def test_second_order_batched_and_transposed():
    check_gradients(lambda x, y: pd.matmul(x, y, transpose_b=True) * pd.matmul(x, y,
                                                                              transpose_b=True),
                    [RNG.standard_normal((2, 3, 4)), RNG.standard_normal((5, 4))], order=2)


def test_fc_is_the_same_matmul():
    x = pd.data("x", shape=[None, 3], dtype="float64")
    y = pd.fc(x, size=2, act="tanh", name="dense")
    w, b = pd.get_variable("dense_0/w"), pd.get_variable("dense_0/b")
    b.set_value(np.array([0.5, -0.5]))
    a = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(pd.eval(y, {x: a}), np.tanh(a @ w.val() + b.val()), rtol=1e-12)


@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 2, 5)])
def test_a_matrix_applied_to_a_batch_gets_its_gradient_from_one_product(shape, tb):
    # (..., k) @ (k, n): the matrix's gradient is one product over all the batch's rows,
    # not a batch of products summed back (no sum_to of a full-size result in the plan).
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(shape), rng.standard_normal((6, 5) if tb else (5, 6))
    check_gradients(lambda x, y: pd.matmul(x, y, transpose_b=tb), [a, b], unknown_batch=True)
    x = pd.data("mbx", shape=[None, *shape[1:]], dtype="float64")
    w = pd.constant(b)
    (gw,) = pd.gradients(pd.sum(pd.matmul(x, w, transpose_b=tb) ** 2), [w])
    assert gw.node.op.name == "matmul" and gw.node.inputs[0].ndim == 2
    y = np.einsum("...k,nk->...n" if tb else "...k,kn->...n", a, b)
    a2, g2 = a.reshape(-1, 5), (2 * y).reshape(-1, 6)
    want = g2.T @ a2 if tb else a2.T @ g2
    np.testing.assert_allclose(pd.eval(gw, {x: a}), want, rtol=1e-12)
