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
    with pytest.raises(pd.ShapeError, match=r"multiply\w*: expected inputs of one shape"):
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
