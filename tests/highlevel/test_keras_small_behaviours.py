"""Small Keras 3.15 behaviours that ported programs hit (issue #31, item 4): initializers
called without a dtype, regularizers and constraints on NumPy arrays, one_hot of float
labels, ZeroPadding1D(data_format=).

Expected values were computed once with real Keras 3.15.1 (JAX backend, CPU), e.g.
`keras.regularizers.L2(0.1)(np.ones((2, 2), np.float32))` -> 0.4.
"""
import numpy as np
import pytest

import paddle as pd


@pytest.mark.parametrize("name", ["zeros", "ones", "glorot_uniform", "glorot_normal",
                                  "he_normal", "he_uniform", "lecun_normal", "orthogonal",
                                  "random_normal", "random_uniform"])
def test_initializer_called_with_a_shape_only_gives_float32(name):
    values = pd.initializers.get(name)((3, 2))  # Keras: float32 (floatx) without a dtype
    assert values.shape == (3, 2) and values.dtype == np.float32


def test_initializer_object_called_with_a_shape_only():
    assert pd.initializers.Constant(2.0)((2,)).tolist() == [2.0, 2.0]
    assert pd.initializers.GlorotUniform(seed=1)((2, 3)).dtype == np.float32
    assert pd.initializers.Ones()((2,), "float64").dtype == np.float64  # a dtype still wins


def test_regularizers_on_numpy_arrays():
    x = np.ones((2, 2), np.float32)
    assert float(pd.eval(pd.regularizers.L2(0.1)(x))) == pytest.approx(0.4)   # Keras: 0.4
    assert float(pd.eval(pd.regularizers.L1(0.1)(x))) == pytest.approx(0.4)   # Keras: 0.4
    assert float(pd.eval(pd.regularizers.L1L2(0.1, 0.2)(2 * x))) == pytest.approx(4.0)  # Keras: 4.0
    with pytest.raises(TypeError, match=r"L2: expected a float Variable or float array, "
                                        r"received array\(\[1, 2\]\)"):
        pd.regularizers.L2(0.1)(np.array([1, 2]))


def test_constraints_on_numpy_arrays():
    w = np.array([[3.0, 4.0]], np.float32)
    assert pd.eval(pd.constraints.NonNeg()(np.array([-1.0, 2.0], np.float32))).tolist() == \
        [0.0, 2.0]                                                      # Keras: [0, 2]
    np.testing.assert_allclose(pd.eval(pd.constraints.MaxNorm(1.0, axis=1)(w)),
                               [[0.6, 0.8]], rtol=1e-5)                # Keras: [[0.6, 0.8]]
    with pytest.raises(TypeError, match="NonNeg: expected a float Variable"):
        pd.constraints.NonNeg()("w")


def test_one_hot_of_float_labels_casts_them():
    got = pd.eval(pd.ops.one_hot(np.array([0.0, 2.0, 1.0]), 3))
    assert got.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]            # as Keras


def test_zero_padding_1d_data_format():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    first = pd.layers.ZeroPadding1D((1, 2), data_format="channels_first")
    out = np.asarray(first(x))
    assert out.shape == (1, 2, 6)                  # Keras: pads the last (steps) axis
    assert out[0, 1].tolist() == [0, 3, 4, 5, 0, 0]
    assert first.get_config()["data_format"] == "channels_first"
    last = pd.layers.ZeroPadding1D(1)
    assert np.asarray(last(x)).shape == (1, 4, 3)
    assert last.get_config()["data_format"] == "channels_last"   # as Keras's config
    again = pd.layers.ZeroPadding1D.from_config(first.get_config())
    assert np.asarray(again(x)).shape == (1, 2, 6)
    with pytest.raises(ValueError, match="ZeroPadding1D: expected data_format"):
        pd.layers.ZeroPadding1D(1, data_format="channels_middle")
