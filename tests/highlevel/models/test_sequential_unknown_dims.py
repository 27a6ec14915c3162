"""A Sequential without an Input, built by its first call (or fit), takes later inputs
whose non-batch dimensions differ wherever its layers accept them, as Keras 3.15's does
(checked with real Keras 3.15.1, JAX backend: `Sequential([Embedding(10, 4), LSTM(3)])`
called on (2, 5) then (2, 7) int arrays gives (2, 3) both times; `Sequential([Dense(3)])`
called on (2, 4) then (2, 5) raises, as does Embedding-Flatten-Dense on a longer sequence).
"""
import numpy as np
import pytest

import paddle as pd
from paddle.errors import ShapeError


def test_sequence_length_of_the_first_call_is_not_fixed():
    pd.seed(0)
    model = pd.Sequential([pd.layers.Embedding(10, 4), pd.layers.LSTM(3)])
    ids = np.array([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])
    first = np.asarray(model(ids))
    assert model.inputs[0].shape == (None, 5)
    longer = np.concatenate([ids, ids[:, :2]], axis=1)
    assert np.asarray(model(longer)).shape == (2, 3)
    assert model.inputs[0].shape == (None, None)      # the changed axis is now unknown
    np.testing.assert_allclose(np.asarray(model(ids)), first, rtol=1e-6)  # same weights


def test_fit_then_predict_on_other_lengths():
    pd.seed(0)
    model = pd.Sequential([pd.layers.Embedding(10, 4), pd.layers.GRU(3)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 5), np.int64), np.zeros((4, 3), np.float32), verbose=0)
    assert model.predict(np.ones((2, 9), np.int64), verbose=0).shape == (2, 3)
    model.fit(np.ones((4, 6), np.int64), np.zeros((4, 3), np.float32), verbose=0)


def test_a_shape_the_layers_refuse_is_still_refused():
    dense = pd.Sequential([pd.layers.Dense(3)])
    dense(np.zeros((2, 4), np.float32))
    with pytest.raises(ShapeError, match=r"expects shape \(None, 4\), received \(2, 5\) "
                                         r"\(axis 1 should be 4, received 5\)"):
        dense(np.zeros((2, 5), np.float32))
    assert dense.inputs[0].shape == (None, 4)
    flat = pd.Sequential([pd.layers.Embedding(10, 4), pd.layers.Flatten(),
                          pd.layers.Dense(2)])
    flat(np.zeros((2, 5), np.int64))
    with pytest.raises(ShapeError, match="axis 1 should be 5, received 6"):
        flat(np.zeros((2, 6), np.int64))


def test_a_model_started_with_an_input_keeps_its_contract():
    # paddle's choice: the Input given is the contract (Keras 3.15 warns that the shape is
    # incompatible and runs the layers anyway).
    model = pd.Sequential([pd.Input((5,), dtype="int64"), pd.layers.Embedding(10, 4),
                           pd.layers.LSTM(3)])
    with pytest.raises(ShapeError, match="axis 1 should be 5, received 7"):
        model(np.zeros((2, 7), np.int64))
