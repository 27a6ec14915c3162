"""Merge layers: one-call layer tests, values, and the errors for bad input lists."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import run_layer_test

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("cls", [layers.Add, layers.Multiply])
def test_elementwise_merges(cls):
    run_layer_test(cls, {}, [(2, 3, 4), (2, 3, 4)], (None, 3, 4), 0)
    run_layer_test(cls, {}, [(2, 5), (2, 5), (2, 5)], (None, 5), 0)


@pytest.mark.parametrize("axis, out", [(-1, (None, 3, 9)), (1, (None, 6, 4)), (2, (None, 3, 9))])
def test_concatenate(axis, out):
    shapes = [(2, 3, 4), (2, 3, 5)] if out[-1] == 9 else [(2, 3, 4), (2, 3, 4)]
    run_layer_test(layers.Concatenate, {"axis": axis}, shapes, out, 0)


def test_values():
    a, b, c = (RNG.normal(size=(2, 3)).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(layers.Add()([a, b, c]), a + b + c, rtol=1e-6)
    np.testing.assert_allclose(layers.Multiply()([a, b, c]), a * b * c, rtol=1e-6)
    np.testing.assert_array_equal(layers.Concatenate()([a, b]), np.concatenate([a, b], -1))


def test_merges_train_inside_a_model():
    """Merged branches of Dense layers: the gradient reaches both branches."""
    inp = layers.Input(shape=(4,))
    d1, d2 = layers.Dense(3), layers.Dense(3)
    out = layers.Dense(1)(layers.Concatenate()([layers.Add()([d1(inp), d2(inp)]),
                                                layers.Multiply()([d1(inp), d2(inp)])]))
    model = pd.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    before = d1.kernel.val()
    model.train_on_batch(RNG.normal(size=(4, 4)).astype(np.float32),
                         RNG.normal(size=(4, 1)).astype(np.float32))
    assert not np.array_equal(before, d1.kernel.val())


def test_errors():
    x = layers.Input(shape=(3,))
    with pytest.raises(ValueError, match=r"add\w*: expected a list of at least 2 inputs, "
                                         r"received a single input of shape \(None, 3\)"):
        layers.Add()(x)
    with pytest.raises(ValueError, match="received 1 input"):
        layers.Concatenate()([x])
    with pytest.raises(pd.ShapeError, match=r"multiply\w*: expected inputs of one rank whose sizes agree or are 1"):
        layers.Multiply()([x, layers.Input(shape=(4,))])
    with pytest.raises(pd.ShapeError, match="agree on every axis but -1"):
        layers.Concatenate()([layers.Input(shape=(2, 3)), layers.Input(shape=(4, 3))])
    with pytest.raises(pd.ShapeError, match="not a non-batch axis"):
        layers.Concatenate(axis=0)([x, x])
    with pytest.raises(ValueError, match="Concatenate: expected an integer axis"):
        layers.Concatenate(axis="last")
    add = layers.Add()
    add([x, x])
    with pytest.raises(ValueError, match="expected a list"):
        add(x)  # after build too: a Variable alone is never split along its batch axis


# ---- Subtract, Average, Maximum, Minimum, Dot and the functional forms ----------------------

from gradcheck import check_gradients  # noqa: E402
from layer_test import train_through  # noqa: E402


@pytest.mark.parametrize("cls", [layers.Average, layers.Maximum, layers.Minimum])
def test_more_elementwise_merges(cls):
    run_layer_test(cls, {}, [(2, 3, 4), (2, 3, 4)], (None, 3, 4), 0)
    run_layer_test(cls, {}, [(2, 5), (2, 5), (2, 5)], (None, 5), 0)


def test_subtract_and_dot_layers():
    run_layer_test(layers.Subtract, {}, [(2, 3, 4), (2, 3, 4)], (None, 3, 4), 0)
    run_layer_test(layers.Dot, {"axes": 1}, [(2, 4), (2, 4)], (None, 1), 0)
    run_layer_test(layers.Dot, {"axes": 2, "normalize": True}, [(2, 3, 4), (2, 5, 4)],
                   (None, 3, 5), 0)
    run_layer_test(layers.Dot, {"axes": (1, 2)}, [(2, 4, 3), (2, 5, 4)], (None, 3, 5), 0)


def test_more_values():
    a, b, c = (RNG.normal(size=(2, 3)).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(layers.Subtract()([a, b]), a - b, rtol=1e-6)
    np.testing.assert_allclose(layers.Average()([a, b, c]), (a + b + c) / 3, rtol=1e-5)
    np.testing.assert_array_equal(layers.Maximum()([a, b, c]), np.maximum(np.maximum(a, b), c))
    np.testing.assert_array_equal(layers.Minimum()([a, b, c]), np.minimum(np.minimum(a, b), c))
    np.testing.assert_allclose(layers.Dot(axes=1)([a, b]), (a * b).sum(1, keepdims=True),
                               rtol=1e-5)
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(layers.Dot(axes=-1, normalize=True)([a, b])[:, 0], cos,
                               rtol=1e-5)
    x, y = RNG.normal(size=(2, 3, 4)).astype(np.float32), RNG.normal(size=(2, 5, 4)) \
        .astype(np.float32)
    np.testing.assert_allclose(layers.Dot(axes=2)([x, y]), np.einsum("bnd,bmd->bnm", x, y),
                               rtol=1e-5, atol=1e-6)
    z = RNG.normal(size=(2, 3, 5)).astype(np.float32)
    np.testing.assert_allclose(layers.Dot(axes=1)([x, z]), np.einsum("bdn,bdm->bnm", x, z),
                               rtol=1e-5, atol=1e-6)


def test_functional_forms():
    a, b = layers.Input(shape=(4,)), layers.Input(shape=(4,))
    av, bv = RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(3, 4)) \
        .astype(np.float32)
    cases = {
        layers.add: av + bv, layers.subtract: av - bv, layers.multiply: av * bv,
        layers.average: (av + bv) / 2, layers.maximum: np.maximum(av, bv),
        layers.minimum: np.minimum(av, bv), layers.concatenate: np.concatenate([av, bv], -1),
        layers.dot: (av * bv).sum(-1, keepdims=True),
    }
    for fn, expected in cases.items():
        model = pd.Model([a, b], fn([a, b]))
        np.testing.assert_allclose(model.predict([av, bv], verbose=0), expected, rtol=1e-5,
                                   atol=1e-6, err_msg=fn.__name__)
    named = layers.add([a, b], name="my_sum")
    assert named._history[0].name == "my_sum"
    assert layers.concatenate([layers.Input(shape=(2, 3)), layers.Input(shape=(4, 3))],
                              axis=1).shape == (None, 6, 3)


def test_gradients_through_new_merges():
    def two(fn):
        return lambda x, y: fn([x, y])
    arrays = [RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))]
    for cls in (layers.Subtract, layers.Average, layers.Maximum, layers.Minimum):
        check_gradients(two(cls()), arrays)
    check_gradients(two(layers.Dot(axes=1, normalize=True)), arrays)
    check_gradients(two(layers.Dot(axes=2)), [RNG.normal(size=(2, 3, 4)),
                                              RNG.normal(size=(2, 5, 4))])


def test_new_merge_errors():
    x = layers.Input(shape=(3,))
    with pytest.raises(ValueError, match=r"subtract\w*: expected exactly 2 inputs, received 3"):
        layers.Subtract()([x, x, x])
    with pytest.raises(ValueError, match=r"average\w*: expected a list of at least 2 inputs"):
        layers.average([x])
    with pytest.raises(pd.ShapeError, match=r"maximum\w*: expected inputs of one rank whose sizes agree or are 1"):
        layers.maximum([x, layers.Input(shape=(4,))])
    with pytest.raises(ValueError, match="Dot: expected axes as an int or a pair of ints, "
                                         "received 'last'"):
        layers.Dot(axes="last")
    with pytest.raises(ValueError, match="Dot: expected normalize to be True or False"):
        layers.Dot(axes=1, normalize="yes")
    with pytest.raises(pd.ShapeError, match=r"dot\w*: the dot axes differ in size: 3 \(axis 1"):
        layers.dot([x, layers.Input(shape=(4,))], axes=1)
    with pytest.raises(pd.ShapeError, match=r"axes 0 are not non-batch axes"):
        layers.dot([x, x], axes=0)
    with pytest.raises(pd.ShapeError, match="expected two inputs of rank 2 or two of rank 3"):
        layers.dot([x, layers.Input(shape=(2, 3))], axes=-1)
    with pytest.raises(ValueError, match=r"dot\w*: expected exactly 2 inputs, received 3"):
        layers.dot([x, x, x], axes=1)


def test_merges_train_through():
    class Twice(layers.Layer):  # feeds the same input to a merge of two branches
        def __init__(self, merge, **kwargs):
            super().__init__(**kwargs)
            self.merge = merge

        def call(self, inputs, training=False):
            return self.merge([inputs, inputs * 2.0])
    for merge in (layers.Subtract(), layers.Average(), layers.Maximum(), layers.Minimum()):
        train_through(Twice(merge), (4,))


def test_elementwise_merges_broadcast_sizes_of_one_as_keras():
    # Keras 3's merge layers broadcast: a squeeze-and-excitation block (EfficientNet,
    # MobileNetV3) multiplies (N, H, W, C) by (N, 1, 1, C).
    x, scale = layers.Input(shape=(4, 4, 3)), layers.Input(shape=(1, 1, 3))
    out = layers.Multiply()([x, scale])
    assert out.shape == (None, 4, 4, 3)
    model = pd.Model([x, scale], out)
    a = np.arange(2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3)
    s = np.array([1.0, 2.0, 3.0], np.float32).reshape(1, 1, 1, 3).repeat(2, axis=0)
    np.testing.assert_allclose(model.predict([a, s], verbose=0), a * s)
    with pytest.raises(pd.ShapeError, match="agree or are 1"):
        layers.Add()([x, layers.Input(shape=(4, 4, 2))])
