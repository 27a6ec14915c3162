"""pd.quantizers: Keras's int8 abs-max quantization (on arrays and on tensors), fake
quantization with its gradient, float8 quantize-and-dequantize, int4 packing, grouped
quantization with zero points, the float8 scale rules and the quantization configs (values
read from Keras 3.15 once and written here; a NumPy reference for the round trip)."""
import inspect

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


# Keras 3.15.1 (JAX backend; gradients by jax.grad) on the inputs below:
FQ = [[-1.0, -0.4714285731315613, 0.0], [0.2857142984867096, 0.4714285731315613, 2.5714287757873535]]
FQ_GRADS = [[[0.0, 0.0, 3.0], [4.0, 5.0, 0.0]], [1.0, 2.0, 0.0], [0.0, 0.0, 6.0]]
FLOAT8 = {"float8_e4m3fn": [0.0, 0.0009765625, 0.0703125, -0.3125, 1.125, 3.25, 112.0, -112.0, 112.0],
          "float8_e5m2": [0.0, 0.0009765625, 0.0625, -0.3125, 1.0, 3.5, 256.0, -448.0, 14336.0]}
GROUPED = [[[7, -8], [7, 7], [-8, 7], [7, -8], [7, 7]], [[0.016666673123836517, 0.20000000298023224], [0.15000000596046448, 0.02000000700354576], [0.02000000700354576, 0.02000000700354576]], [[-8, -3], [-3, 2], [-8, -8]]]
PACKED = [[[125, 2], [24, 0]], [2, 2], 3]

FX = np.array([[-2.0, -0.7, 0.0], [0.31, 0.5, 3.0]], np.float32)


def test_abs_max_quantize_defaults_to_kerass_epsilon_and_builds_ops_on_tensors():
    assert inspect.signature(pd.quantizers.abs_max_quantize).parameters["epsilon"].default \
        == 1e-7
    x = pd.data("amq_x", shape=[None, 3])
    q, scale = pd.quantizers.abs_max_quantize(x, axis=-1)
    assert (q.dtype, scale.dtype, q.shape, scale.shape) == ("int8", "float32", (None, 3),
                                                            (None, 1))
    host_q, host_scale = pd.quantizers.abs_max_quantize(X, axis=-1)
    got_q, got_scale = pd.eval([pd.ops.cast(q, "int32"), scale], {x: X})
    assert got_q.tolist() == host_q.tolist()
    np.testing.assert_array_equal(got_scale, host_scale)
    eager_q, _ = pd.quantizers.abs_max_quantize(pd.constant(X), axis=0)
    assert np.asarray(eager_q).tolist() == [[127, -127, 127], [1, 10, -13]]


def test_fake_quant_with_min_max_vars_and_its_gradient_are_kerass():
    low = np.array([-1.0, -0.5, -2.0], np.float32)
    high = np.array([1.0, 0.6, 2.5], np.float32)
    y = pd.quantizers.fake_quant_with_min_max_vars(FX, low, high, num_bits=4,
                                                   narrow_range=True, axis=-1)
    np.testing.assert_allclose(np.asarray(y), FQ, rtol=1e-6)
    x, lo, hi = pd.data("fq_x", [2, 3]), pd.data("fq_lo", [3]), pd.data("fq_hi", [3])
    out = pd.quantizers.fake_quant_with_min_max_vars(x, lo, hi, 4, True, -1)
    weights = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    grads = pd.gradients(pd.ops.sum(out * weights), [x, lo, hi])
    for got, expected in zip(pd.eval(grads, {x: FX, lo: low, hi: high}), FQ_GRADS):
        np.testing.assert_array_equal(got, np.float32(expected))
    with pytest.raises(ValueError, match="expected num_bits an integer in \\[2, 16\\]"):
        pd.quantizers.fake_quant_with_min_max_vars(FX, -1.0, 1.0, num_bits=1)


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_quantize_and_dequantize_rounds_as_a_cast_to_float8(dtype):
    values = np.array([0.0, 1e-3, 0.07, -0.3, 1.07, 3.3, 250.0, -470.0, 1e5], np.float32)
    got = pd.quantizers.quantize_and_dequantize(values, np.float32(0.25), dtype, "float32")
    np.testing.assert_array_equal(np.asarray(got), np.float32(FLOAT8[dtype]))
    with pytest.raises(ValueError, match="expected quantized_dtype one of"):
        pd.quantizers.quantize_and_dequantize(values, 1.0, "float8_e3m4", "float32")


def test_grouped_quantization_with_zero_point_and_int4_packing_are_kerass():
    kernel = np.array([[0.5, -1.0], [0.25, 2.0], [-0.75, 0.1], [1.5, -0.2], [0.3, 0.3]],
                      np.float32)
    q, scale, zero = pd.quantizers.abs_max_quantize_grouped_with_zero_point(kernel, 2)
    assert q.tolist() == GROUPED[0] and zero.tolist() == GROUPED[2]
    assert q.dtype == np.int8 and zero.dtype == np.int8
    np.testing.assert_array_equal(scale, np.float32(GROUPED[1]))
    values = np.array([[-3, 7, 2], [-8, 1, 0]], np.int8)
    packed, shape, n = pd.quantizers.pack_int4(values, axis=1)
    assert [packed.tolist(), list(shape), n] == PACKED
    assert pd.quantizers.unpack_int4(packed, n, axis=1).tolist() == values.tolist()
    every = np.arange(-8, 8, dtype=np.int8).reshape(4, 4)
    for axis in (0, 1, -1):
        packed, _, n = pd.quantizers.pack_int4(every, axis=axis)
        assert pd.quantizers.unpack_int4(packed, n, axis=axis).tolist() == every.tolist()
    nibbles = pd.quantizers.unpack_int4(np.array([0x7F], np.uint8), 2, dtype="uint8")
    assert nibbles.tolist() == [15, 7]
    with pytest.raises(TypeError, match="Expected int8 tensor for packing|expected int8"):
        pd.quantizers.pack_int4(np.array([1, 2], np.int32))
    with pytest.raises(ValueError, match="Expected dtype to be 'int8' or 'uint8'"):
        pd.quantizers.pack_int4(values, dtype="int4")


def test_quantization_configs_round_trip():
    config = pd.quantizers.Int8QuantizationConfig(
        weight_quantizer=pd.quantizers.AbsMaxQuantizer(axis=0), activation_quantizer=None)
    again = pd.quantizers.Int8QuantizationConfig.from_config(config.get_config())
    assert again.mode == "int8" and again.activation_quantizer is None
    assert again.weight_quantizer.axis == (0,)
    with pytest.raises(NotImplementedError, match="Do not instantiate QuantizationConfig"):
        pd.quantizers.QuantizationConfig().mode
    with pytest.raises(TypeError, match="expected weight_quantizer a Quantizer"):
        pd.quantizers.QuantizationConfig(weight_quantizer="abs_max")
