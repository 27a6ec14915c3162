"""embedding: gather forward, accumulating gradient, ids out of range at eval."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients


def test_forward_and_int32_ids():
    table = np.random.default_rng(0).standard_normal((10, 4)).astype(np.float32)
    ids = np.array([[1, 9, 1], [0, 3, 3]])
    for dtype in ("int64", "int32"):
        iv = pd.data("ids", shape=[None, 3], dtype=dtype)
        out = pd.embedding(iv, pd.constant(table))
        assert out.shape == (None, 3, 4)
        np.testing.assert_array_equal(pd.eval(out, {iv: ids.astype(dtype)}), table[ids])


def test_gradient_accumulates_repeated_ids():
    ids = np.array([2, 0, 2, 2, 4])
    table = pd.Variable("emb", shape=[5, 3], dtype="float64")
    iv = pd.data("ids", shape=[None], dtype="int64")
    g = np.random.default_rng(1).standard_normal((5, 3))
    gt, = pd.gradients(pd.sum(pd.embedding(iv, table) * pd.constant(g, "float64")), [table])
    want = np.zeros((5, 3))
    np.add.at(want, ids, g)
    np.testing.assert_allclose(pd.eval(gt, {iv: ids}), want)
    check_gradients(lambda i, t: pd.embedding(i, t), [ids.reshape(1, 5),
                                                     np.random.default_rng(2).random((6, 3))])
    check_gradients(lambda i, t: pd.embedding(i, t) ** 2, [ids, np.ones((5, 2))], order=2)


@pytest.mark.parametrize("bad,pos", [(10, 2), (-1, 0)])
def test_ids_out_of_range_raise_at_eval(bad, pos):
    iv = pd.data("ids", shape=[None], dtype="int64")
    out = pd.embedding(iv, pd.constant(np.zeros((10, 2), np.float32)))
    ids = np.array([1, 2, 3])
    ids[pos] = bad
    with pytest.raises(IndexError, match=rf"embedding: id {bad} at position {pos} is outside the "
                                         r"table's 10 rows \[0, 10\): ids is \(3,\), table is "
                                         r"\(10, 2\)"):
        pd.eval(out, {iv: ids})


def test_shape_errors():
    with pytest.raises(pd.ShapeError, match=r"embedding: expected a 2-D float table.*"
                                            r"table is \(10,\)"):
        pd.embedding(pd.data("ids", [None], "int64"), pd.constant(np.zeros(10, np.float32)))
    with pytest.raises(TypeError, match="embedding: expected integer ids"):
        pd.embedding(pd.data("ids", [None]), pd.constant(np.zeros((3, 2), np.float32)))
