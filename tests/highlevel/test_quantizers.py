"""pd.quantizers: Keras's int8 abs-max quantization and float8 scale rules (values read from
Keras 3.15 once and written here; a NumPy reference for the round trip)."""
import numpy as np
import pytest

import paddle as pd

X = np.array([[0.5, -1.25, 2.0], [0.003, 0.1, -0.2]], np.float32)


@pytest.mark.parametrize("axis, keras_q, keras_scale", [
    (-1, [[32, -79, 127], [2, 63, -127]], [[63.5], [634.9996337890625]]),
    (0, [[127, -127, 127], [1, 10, -13]], [[253.99993896484375, 101.59999084472656, 63.5]]),
])
def test_abs_max_quantize_is_kerass(axis, keras_q, keras_scale):
    q, scale = pd.quantizers.abs_max_quantize(X, axis=axis)
    assert q.dtype == np.int8 and q.tolist() == keras_q
    np.testing.assert_allclose(scale, keras_scale, rtol=1e-6)
    q2, scale2 = pd.quantizers.AbsMaxQuantizer()(X, axis=axis)
    assert q2.tolist() == keras_q and np.allclose(scale2, scale)


def test_dequantized_weights_are_close_to_the_floats():
    w = np.random.default_rng(0).normal(size=(64, 16)).astype(np.float32)
    q, scale = pd.quantizers.abs_max_quantize(w, axis=0)  # one scale per output channel
    reference = np.max(np.abs(w), axis=0, keepdims=True) / 127.0  # NumPy's step per channel
    assert np.all(np.abs(q / scale - w) <= reference / 2 + 1e-6)
    dense = pd.layers.Dense(16)
    dense(np.zeros((1, 64), np.float32))
    q, scale = pd.quantizers.abs_max_quantize(dense.kernel, axis=0)  # a weight: its value
    assert q.shape == (64, 16) and scale.shape == (1, 16)


def test_float8_rules_and_configs():
    scale = pd.quantizers.compute_float8_scale(np.array([2.0, 0.0, np.inf], np.float32),
                                               np.array([0.5, 0.5, 0.5], np.float32), 448.0,
                                               margin=1)
    np.testing.assert_allclose(scale, [0.008928571827709675, 0.5, 0.5], rtol=1e-6)
    history = pd.quantizers.compute_float8_amax_history(X, np.array([1.0, 2.0, 3.0]))
    assert history.tolist() == [2.0, 3.0, 1.0]
    quantizer = pd.quantizers.AbsMaxQuantizer(axis=0, value_range=(-100, 100))
    assert quantizer.get_config() == {"value_range": (-100, 100), "epsilon": 1e-07,
                                      "output_dtype": "int8", "axis": (0,)}
    entry = pd.quantizers.serialize(pd.quantizers.AbsMaxQuantizer())
    assert entry["config"] == {"value_range": (-127, 127), "epsilon": 1e-07,
                               "output_dtype": "int8"}
    assert pd.quantizers.deserialize(entry).value_range == (-127, 127)
    assert isinstance(pd.quantizers.get("abs_max_quantizer"), pd.quantizers.AbsMaxQuantizer)
    assert pd.Quantizer is pd.quantizers.Quantizer


def test_bad_input_says_what_was_expected():
    with pytest.raises(ValueError, match="needs value_range within"):
        pd.quantizers.AbsMaxQuantizer(value_range=(-200, 200))
    with pytest.raises(ValueError, match="expected axis within"):
        pd.quantizers.abs_max_quantize(X, axis=2)
    with pytest.raises(TypeError, match="expected a float array"):
        pd.quantizers.abs_max_quantize(np.ones((2, 2), np.int32), axis=0)
    with pytest.raises(ValueError, match="unknown quantizer 'Nope'"):
        pd.quantizers.deserialize({"class_name": "Nope", "config": {}})
