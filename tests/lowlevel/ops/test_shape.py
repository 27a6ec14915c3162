"""Shape ops: reshape transpose flatten concat split stack squeeze expand_dims slice gather
one_hot cast where pad and Variable.__getitem__: symbolic shapes with None, forward against
NumPy (float32, float64, int64), gradients, errors."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(3)
A = RNG.standard_normal((2, 3, 4))
IDX = np.array([2, 0, 2])

# name -> (build from x of shape (None, 3, 4), NumPy reference, static shape)
CASES = {
    "reshape": (lambda x: pd.reshape(x, [-1, 12]), lambda a: a.reshape(-1, 12), (None, 12)),
    "reshape_none": (lambda x: pd.reshape(x, [None, 2, 6]), lambda a: a.reshape(-1, 2, 6),
                     (None, 2, 6)),
    "reshape_all": (lambda x: pd.reshape(x, [24]), lambda a: a.reshape(24), (24,)),
    "transpose": (lambda x: pd.transpose(x, [2, 0, 1]), lambda a: a.transpose(2, 0, 1),
                  (4, None, 3)),
    "transpose_default": (lambda x: pd.transpose(x), lambda a: a.T, (4, 3, None)),
    "flatten": (pd.flatten, lambda a: a.reshape(len(a), -1), (None, 12)),
    "concat0": (lambda x: pd.concat([x, x * 2], axis=0),
                lambda a: np.concatenate([a, a * 2], 0), (None, 3, 4)),
    "concat1": (lambda x: pd.concat([x, x * 2, x], axis=1),
                lambda a: np.concatenate([a, a * 2, a], 1), (None, 9, 4)),
    "concat_neg": (lambda x: pd.concat([x, x[:, :, :1]], axis=-1),
                   lambda a: np.concatenate([a, a[:, :, :1]], -1), (None, 3, 5)),
    "split_equal": (lambda x: pd.split(x, 2, axis=2), lambda a: np.split(a, 2, axis=2),
                    [(None, 3, 2), (None, 3, 2)]),
    "split_sizes": (lambda x: pd.split(x, [1, 2], axis=1), lambda a: np.split(a, [1], axis=1),
                    [(None, 1, 4), (None, 2, 4)]),
    "stack0": (lambda x: pd.stack([x, x + 1], axis=0), lambda a: np.stack([a, a + 1], 0),
               (2, None, 3, 4)),
    "stack_last": (lambda x: pd.stack([x, x + 1, x], axis=-1),
                   lambda a: np.stack([a, a + 1, a], -1), (None, 3, 4, 3)),
    "expand_dims": (lambda x: pd.expand_dims(x, 1), lambda a: a[:, None], (None, 1, 3, 4)),
    "expand_dims_last": (lambda x: pd.expand_dims(x, -1), lambda a: a[..., None],
                         (None, 3, 4, 1)),
    "squeeze": (lambda x: pd.squeeze(pd.expand_dims(x, 2), 2), lambda a: a, (None, 3, 4)),
    "squeeze_tuple": (lambda x: pd.squeeze(pd.reshape(x[:, :1, :1], [-1, 1, 1]), (1, 2)),
                      lambda a: a[:, 0, 0], (None,)),
    "slice": (lambda x: pd.slice(x, [0, 1, 1], [-1, 2, 2]), lambda a: a[:, 1:3, 1:3],
              (None, 2, 2)),
    "getitem_int": (lambda x: x[:, 1], lambda a: a[:, 1], (None, 4)),
    "getitem_step": (lambda x: x[1, :, ::2], lambda a: a[1, :, ::2], (3, 2)),
    "getitem_ellipsis": (lambda x: x[..., 1:], lambda a: a[..., 1:], (None, 3, 3)),
    "getitem_negative": (lambda x: x[:, -1, -3:-1], lambda a: a[:, -1, -3:-1], (None, 2)),
    "getitem_first": (lambda x: x[0], lambda a: a[0], (3, 4)),
    "getitem_chained": (lambda x: x[:, 1:3][:, ::2, 1:3][:, 0],
                        lambda a: a[:, 1:3][:, ::2, 1:3][:, 0], (None, 2)),
    "gather1": (lambda x: pd.gather(x, pd.constant(IDX), axis=1), lambda a: a[:, IDX],
                (None, 3, 4)),
    "gather0_2d": (lambda x: pd.gather(x, pd.constant(np.array([[1, 0], [1, 1]])), axis=0),
                   lambda a: a[[[1, 0], [1, 1]]], (2, 2, 3, 4)),
    "gather_last": (lambda x: pd.gather(x, pd.constant(np.array([3, 3], np.int32)), axis=-1),
                    lambda a: a[:, :, [3, 3]], (None, 3, 2)),
    "pad": (lambda x: pd.pad(x, [(0, 0), (1, 2), (0, 1)]),
            lambda a: np.pad(a, [(0, 0), (1, 2), (0, 1)]), (None, 6, 5)),
    "pad_value": (lambda x: pd.pad(x, [(1, 0), (0, 0), (2, 1)], constant_values=3.0),
                  lambda a: np.pad(a, [(1, 0), (0, 0), (2, 1)], constant_values=3.0),
                  (None, 3, 7)),
    "where": (lambda x: pd.where(x > 0.0, x, x * -2.0), lambda a: np.where(a > 0, a, -2 * a),
              (None, 3, 4)),
    "where_broadcast": (lambda x: pd.where(pd.constant(np.array([True, False, True, False])),
                                           x, 0.5),
                        lambda a: np.where([True, False, True, False], a, 0.5), (None, 3, 4)),
}
INT_CASES = ["reshape", "transpose", "flatten", "concat1", "split_sizes", "stack0",
             "expand_dims", "squeeze", "slice", "getitem_step", "gather1", "pad"]


def outputs(out):
    return out if isinstance(out, list) else [out]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_forward(name, dtype):
    build, ref, static = CASES[name]
    a = A.astype(dtype)
    x = pd.data("x", shape=[None, 3, 4], dtype=dtype)
    out = build(x)
    statics = static if isinstance(static, list) else [static]
    assert [o.shape for o in outputs(out)] == statics
    assert all(o.dtype == dtype for o in outputs(out))
    got = pd.eval(outputs(out), {x: a})
    for g, r in zip(got, outputs(ref(a))):
        assert g.shape == r.shape and g.dtype == dtype
        np.testing.assert_array_equal(g, r)


@pytest.mark.parametrize("name", INT_CASES)
def test_forward_int64(name):
    build, ref, _ = CASES[name]
    a = RNG.integers(-9, 9, (2, 3, 4)).astype(np.int64)
    x = pd.data("x", shape=[None, 3, 4], dtype="int64")
    got = pd.eval(outputs(build(x)), {x: a})
    for g, r in zip(got, outputs(ref(a))):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, r)


def test_forward_on_another_batch_size():
    x = pd.data("x", shape=[None, 3, 4], dtype="float64")
    outs = [CASES[n][0](x) for n in ("transpose", "concat1", "gather1", "pad", "getitem_int")]
    for n in (1, 5):
        a = RNG.standard_normal((n, 3, 4))
        got = pd.eval(outs, {x: a})
        refs = [CASES[k][1](a) for k in ("transpose", "concat1", "gather1", "pad",
                                         "getitem_int")]
        for g, r in zip(got, refs):
            np.testing.assert_array_equal(g, r)


def test_views_do_not_corrupt_their_input():
    """reshape/flatten/expand_dims share the input's buffer: later ops must still see x."""
    x = pd.data("x", shape=[None, 3, 4], dtype="float64")
    r = pd.reshape(x, [-1, 12])
    y = pd.flatten(x) * 2.0 + pd.reshape(r, [-1, 12])
    z = pd.sum(x, axis=2)
    got = pd.eval([y, z, r], {x: A})
    np.testing.assert_array_equal(got[0], A.reshape(2, 12) * 3.0)
    np.testing.assert_array_equal(got[1], A.sum(2))
    np.testing.assert_array_equal(got[2], A.reshape(2, 12))


# ---- one_hot and cast -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_one_hot(dtype):
    idx = pd.data("i", shape=[None], dtype="int64")
    out = pd.one_hot(idx, 4, dtype=dtype)
    assert out.shape == (None, 4) and out.dtype == dtype
    got = pd.eval(out, {idx: np.array([2, 0, 3])})
    np.testing.assert_array_equal(got, np.eye(4, dtype=dtype)[[2, 0, 3]])
    idx2 = pd.data("j", shape=[2, 2], dtype="int32")
    got = pd.eval(pd.one_hot(idx2, 3), {idx2: np.array([[0, 1], [2, 2]], np.int32)})
    np.testing.assert_array_equal(got, np.eye(3)[[[0, 1], [2, 2]]])


@pytest.mark.parametrize("bad", [3, -1, 10])
def test_one_hot_index_out_of_range_names_it(bad):
    idx = pd.data("i", shape=[None], dtype="int64")
    with pytest.raises(IndexError, match=f"index {bad} .*one_hot.*test_shape.py:"):
        pd.eval(pd.one_hot(idx, 3), {idx: np.array([0, bad])})


def test_one_hot_arguments():
    with pytest.raises(ValueError, match="depth"):
        pd.one_hot(pd.constant(np.array([0])), 0)
    with pytest.raises(TypeError, match="integer"):
        pd.one_hot(pd.constant([0.5]), 3)
    with pytest.raises(TypeError, match="bool"):
        pd.one_hot(pd.constant(np.array([0])), 3, dtype="bool")


@pytest.mark.parametrize("src,dst", [("float64", "float32"), ("float32", "float64"),
                                     ("float64", "int64"), ("int64", "float32"),
                                     ("int64", "int32"), ("float32", "bool"),
                                     ("bool", "float32"), ("int32", "int64")])
def test_cast(src, dst):
    a = np.array([[-2.7, 0.0, 1.5], [3.2, -0.4, 8.0]])
    a = a.astype(src) if src != "bool" else a > 0
    x = pd.data("x", shape=[None, 3], dtype=src)
    y = pd.cast(x, dst)
    assert y.dtype == dst and y.shape == (None, 3)
    got = pd.eval(y, {x: a})
    assert got.dtype == dst
    np.testing.assert_array_equal(got, a.astype(dst))


def test_cast_to_the_same_dtype_is_the_variable():
    x = pd.data("x", shape=[3])
    assert pd.cast(x, "float32") is x
    with pytest.raises(ValueError, match="str"):
        pd.cast(x, "str")


def test_where_dtypes_and_errors():
    x = pd.data("x", shape=[None, 3], dtype="int64")
    got = pd.eval(pd.where(x > 0, x, 0), {x: np.array([[-1, 2, 3]])})
    np.testing.assert_array_equal(got, [[0, 2, 3]])
    with pytest.raises(TypeError, match="bool"):
        pd.where(x, x, x)
    with pytest.raises(pd.ShapeError, match="test_shape.py:"):
        pd.where(x > 0, x, pd.data("z", shape=[5], dtype="int64"))


# ---- shape errors -----------------------------------------------------------------------

@pytest.mark.parametrize("build", [
    lambda x: pd.reshape(x, [5, 5]),
    lambda x: pd.reshape(x, [-1, -1]),
    lambda x: pd.reshape(pd.data("k", shape=[2, 3]), [4, -1]),
    lambda x: pd.transpose(x, [0, 1]),
    lambda x: pd.transpose(x, [0, 1, 1]),
    lambda x: pd.concat([x, pd.data("z", shape=[None, 4, 4])], axis=2),
    lambda x: pd.concat([x, pd.data("z", shape=[None, 3])], axis=0),
    lambda x: pd.concat([x, x], axis=3),
    lambda x: pd.split(x, [1, 1], axis=1),
    lambda x: pd.split(x, 3, axis=2),
    lambda x: pd.split(x, 2, axis=0),
    lambda x: pd.stack([x, pd.data("z", shape=[None, 3, 5])]),
    lambda x: pd.squeeze(x),
    lambda x: pd.squeeze(x, 1),
    lambda x: pd.expand_dims(x, 5),
    lambda x: pd.slice(x, [0, 0, 0], [1, 5, 1]),
    lambda x: pd.slice(x, [0, 4, 0], [1, -1, 1]),
    lambda x: pd.slice(x, [0, 0], [1, 1]),
    lambda x: x[:, 3],
    lambda x: x[0, 0, 0, 0],
    lambda x: x[:, ::-1],
    lambda x: pd.gather(x, pd.constant(np.array([0])), axis=3),
    lambda x: pd.pad(x, [(0, 0), (-1, 0), (0, 0)]),
    lambda x: pd.pad(x, [(0, 0), (1, 0)]),
    lambda x: pd.flatten(pd.constant(1.0)),
])
def test_shape_errors_name_the_line(build):
    x = pd.data("x", shape=[None, 3, 4])
    with pytest.raises(pd.ShapeError) as info:
        build(x)
    assert "test_shape.py:" in str(info.value)


@pytest.mark.parametrize("build", [
    lambda x: pd.concat([x, pd.data("z", shape=[None, 3, 4], dtype="float64")]),
    lambda x: pd.gather(x, pd.constant([0.5])),
    lambda x: x["a"],
    lambda x: x[:, None],
    lambda x: pd.pad(x, "abc"),
])
def test_bad_arguments_raise(build):
    x = pd.data("x", shape=[None, 3, 4])
    with pytest.raises((TypeError, ValueError)):
        build(x)


def test_sizes_checked_again_with_the_fed_shapes():
    x = pd.data("x", shape=[None, 3])
    with pytest.raises(pd.ShapeError, match="reshape.*test_shape.py:"):
        pd.eval(pd.reshape(x, [-1, 6]), {x: np.ones((5, 3))})
    with pytest.raises(pd.ShapeError, match="squeeze.*test_shape.py:"):
        pd.eval(pd.squeeze(x, 0), {x: np.ones((2, 3))})
    y = pd.data("y", shape=[None, 3])
    with pytest.raises(pd.ShapeError, match="add"):
        pd.eval(x + y, {x: np.ones((2, 3)), y: np.ones((4, 3))})


@pytest.mark.parametrize("bad", [3, -1, 7])
def test_gather_index_out_of_range_names_it(bad):
    x = pd.data("x", shape=[3, 2])
    i = pd.data("i", shape=[None], dtype="int64")
    with pytest.raises(IndexError, match=f"index {bad}.*gather"):
        pd.eval(pd.gather(x, i), {x: np.ones((3, 2)), i: np.array([0, bad])})


# ---- gradients --------------------------------------------------------------------------

check = check_gradients  # with unknown_batch=True: None batch dims in pd.data

GRAD_CASES = sorted(set(CASES) - {"where", "where_broadcast"})
# These read a fixed number of rows, which an unknown batch size does not promise.
FIXED_ROWS = {"reshape_all", "gather0_2d", "getitem_first", "getitem_step"}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients(name):
    check(CASES[name][0], [A])


@pytest.mark.parametrize("name", sorted(set(GRAD_CASES) - FIXED_ROWS))
def test_gradients_with_unknown_batch(name):
    check(CASES[name][0], [A], unknown_batch=True)


@pytest.mark.parametrize("unknown_batch", [False, True])
def test_where_gradient(unknown_batch):
    a = np.where(np.abs(A) < 0.1, 0.5, A)
    check(lambda x, y: pd.where(x > 0.0, x * y, y - x), [a, RNG.standard_normal((3, 4))],
          unknown_batch=unknown_batch, wrt=[0, 1])


def test_gather_gradient_accumulates_repeated_indices():
    x = pd.data("x", shape=[3, 2], dtype="float64")
    g, = pd.gradients(pd.sum(pd.gather(x, pd.constant(np.array([2, 0, 2])))), [x])
    np.testing.assert_array_equal(pd.eval(g, {x: np.ones((3, 2))}),
                                  [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]])


def test_split_gradient_when_only_one_piece_is_used():
    check_gradients(lambda x: pd.split(x, 2, axis=1)[1] * 3.0, [RNG.standard_normal((2, 4))])


def test_cast_gradient():
    # Central differences through float32 would only measure its rounding: check the rule.
    x = pd.data("x", shape=[2, 3], dtype="float64")
    w = RNG.standard_normal((2, 3)).astype(np.float32)
    g, = pd.gradients(pd.sum(pd.cast(x, "float32") * w), [x])
    assert g.dtype == "float64"
    np.testing.assert_array_equal(pd.eval(g, {x: np.ones((2, 3))}), w.astype(np.float64))
    x = pd.data("x", shape=[3], dtype="float64")
    g, = pd.gradients(pd.sum(pd.cast(pd.cast(x, "int64"), "float64")), [x])
    assert g is None


def test_second_order_through_shape_ops():
    def fn(x):
        sq = x * x
        flat = pd.gather(pd.pad(pd.reshape(sq, [6]), [(1, 1)]), pd.constant(np.array([1, 4, 7])))
        return pd.concat([pd.transpose(sq), pd.transpose(x[:1] * sq[1:2])], axis=1) * \
            pd.sum(flat)
    check_gradients(fn, [RNG.standard_normal((3, 2))], order=2)


# ---- reverse (variable-length sequences read backwards) ---------------------------------

def test_reverse_any_length_and_its_gradient():
    from paddle.lowlevel.ops.shape import reverse
    x = pd.data("rev_x", shape=[None, None, 2])
    y = reverse(x, axis=1)
    assert y.shape == (None, None, 2)
    for steps in (1, 4, 7):
        a = RNG.standard_normal((3, steps, 2)).astype(np.float32)
        np.testing.assert_array_equal(pd.eval(y, {x: a}), a[:, ::-1])
    check_gradients(lambda v: reverse(v, axis=1) * pd.constant(
        np.arange(8.0).reshape(1, 4, 2), dtype="float64"), [RNG.standard_normal((2, 4, 2))])
    check_gradients(lambda v: reverse(v, axis=-1), [RNG.standard_normal((3, 5))],
                    unknown_batch=True, order=2)
    with pytest.raises(pd.ShapeError, match="reverse"):
        reverse(x, axis=3)
    with pytest.raises(TypeError, match="reverse: expected an integer axis"):
        reverse(x, axis="time")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_reverse_every_axis_of_every_dtype_as_numpy(dtype):
    # (the CPU kernel: a strided copy with a negative source stride, from the axis's end)
    from paddle.lowlevel.ops.shape import reverse
    a = (RNG.standard_normal((3, 1, 5, 4)) * 5).astype(dtype)
    for axis in range(-4, 4):
        np.testing.assert_array_equal(pd.eval(reverse(pd.constant(a), axis)),
                                      np.flip(a, axis))
    flat = RNG.standard_normal(100_001).astype(dtype)
    np.testing.assert_array_equal(pd.eval(reverse(pd.constant(flat), 0)), flat[::-1])
    # the last axis's own loop (vectorized), rows of lengths around the vector widths
    for n in (1, 3, 8, 17, 64, 131):
        rows = (RNG.standard_normal((5, n)) * 5).astype(dtype)
        np.testing.assert_array_equal(pd.eval(reverse(pd.constant(rows), -1)), rows[:, ::-1])
    empty = np.zeros((2, 0, 3), dtype)
    assert pd.eval(reverse(pd.constant(empty), 1)).shape == (2, 0, 3)


def test_a_negative_source_stride_is_checked_against_the_array():
    src, dst = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    pd._C.strided_copy(src, dst, np.array([1, 4, -1, 1, 3, 0], np.int64))  # reversed
    assert dst.tolist() == [3.0, 2.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="spec reaches outside the arrays"):
        pd._C.strided_copy(src, dst, np.array([1, 4, -1, 1, 2, 0], np.int64))  # before 0
    with pytest.raises(ValueError, match="negative extent"):
        pd._C.strided_copy(src, dst, np.array([1, 4, 1, -1, 0, 3], np.int64))  # dst stride


def test_one_hot_with_keras_names():
    assert pd.one_hot(np.array([1, 0]), num_classes=2).numpy().tolist() == [[0, 1], [1, 0]]
    with pytest.raises(TypeError, match="give depth or num_classes"):
        pd.one_hot(np.array([1]), 2, num_classes=2)
    # keras.ops.one_hot takes float class ids (labels kept as float32)
    got = pd.ops.one_hot(np.array([3.0, 1.0], np.float32), num_classes=4)
    assert got.dtype == "float32" and got.numpy().argmax(axis=1).tolist() == [3, 1]
    assert pd.ops.one_hot(np.array([1]), 2, dtype="float64").dtype == "float64"
    # Keras's other axes are supported (they were refused); sparse tensors are not.
    assert pd.ops.one_hot(np.array([1]), 2, axis=0).numpy().tolist() == [[0.0], [1.0]]
    with pytest.raises(ValueError, match="sparse=False"):
        pd.ops.one_hot(np.array([1]), 2, sparse=True)


def test_an_all_integer_index_of_a_computed_tensor_reads_it_when_run(device):
    # The simulated GPU once took NumPy's x[i, j] (a scalar copy) when the kernel was prepared,
    # before x was computed.
    x = pd.data("x", shape=[2, 3])
    y = (x * 2.0)[1, 2]
    assert y.shape == ()
    assert float(pd.eval(y, {x: np.arange(6.0, dtype=np.float32).reshape(2, 3)})) == 10.0
