"""model.quantize("int8") and the quantized Dense, EinsumDense and Embedding: their
predictions, kernels and scales equal Keras 3.15's (values read from Keras once, on the JAX
backend, for the same float weights, and written here), weights take a quarter of the bytes,
files round-trip in Keras's layout, training goes on through Keras's custom gradient, and
bad calls raise Keras's errors. tests/highlevel/saving/test_saving_keras_quantize.py
compares with a live Keras where it is installed."""
import gc
import re
import warnings
import weakref

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel.executor import topological_nodes


def data():
    rng = np.random.default_rng(7)

    def r(*shape):
        return np.round(rng.normal(size=shape), 2).astype("float32")
    return dict(W=r(4, 3), B=r(3), X=r(2, 4), E=r(6, 3), K=r(4, 2, 3), XE=r(2, 3, 4))


D = data()
IDS = np.array([[0, 5, 2], [3, 3, 1]])
# Keras 3.15.1 (JAX backend) on the same weights and inputs:
DENSE = [[2.450812339782715, 0.0, 0.6576048731803894], [2.518325090408325, 0.0, 1.8071861267089844]]
DENSE_KERNEL = [[0, 28, -35], [-127, -43, -127], [9, 127, -63], [-88, 46, 46]]
DENSE_SCALE = [142.6966094970703, 94.77610778808594, 128.28280639648438]
DENSE_WEIGHT_ONLY = [[2.4453043937683105, -1.6538110971450806, 0.6502158641815186], [2.5156633853912354, -1.4142992496490479, 1.8060216903686523]]
EMBEDDING = [[[0.2700001001358032, 0.15944887697696686, -0.18921266496181488], [-0.580000102519989, -0.1096063107252121, 0.1096063107252121], [0.10842520743608475, -1.53000009059906, -0.4818898141384125]], [[-0.9765354990959167, -0.8096063137054443, 1.0600000619888306], [-0.9765354990959167, -0.8096063137054443, 1.0600000619888306], [-2.5199999809265137, -0.5357480645179749, -0.05952756106853485]]]
EMBEDDING_SCALE = [470.3702087402344, 50.39682388305664, 83.00653076171875, 119.81131744384766, 144.3181610107422, 218.96548461914062]
EINSUM = [[[[1.7696338891983032, -1.7570507526397705, 3.1470353603363037], [0.27283576130867004, 0.6477885842323303, 2.2859854698181152]], [[-0.7022222280502319, -0.08395063877105713, 0.053158290684223175], [-0.3762761354446411, -1.276334524154663, -3.264260768890381]], [[0.8768121600151062, -1.8144882917404175, 3.1019937992095947], [0.8389362096786499, -1.4254850149154663, 1.1596139669418335]]], [[[1.2304972410202026, -0.6950393915176392, 0.6641733050346375], [-0.7549968361854553, 1.4813616275787354, 2.071134328842163]], [[0.20021840929985046, -0.8016693592071533, 0.6561121344566345], [-0.04918809235095978, -0.7237833738327026, -0.32332566380500793]], [[-1.0075103044509888, 0.7592855095863342, -0.9692497849464417], [-1.2170031070709229, -0.9016658067703247, -2.2966301441192627]]]]
EINSUM_SCALE = [[[[186.76466369628906, 103.25202178955078, 63.5], [93.3823471069336, 81.93547821044922, 88.1944351196289]]]]

CLOSE = dict(rtol=1e-6, atol=1e-6)  # float32 rounding (Embedding's division: 1 ulp)


def dense_model(activation="relu"):
    model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3, activation=activation)])
    model.layers[0].set_weights([D["W"], D["B"]])
    return model


def test_dense_int8_is_kerass():
    model = dense_model()
    model.quantize("int8")
    layer = model.layers[0]
    assert layer.quantization_mode == "int8"
    assert layer.dtype_policy.name == "int8_from_float32"
    assert isinstance(layer.dtype_policy, pd.dtype_policies.QuantizedDTypePolicy)
    assert layer._kernel is layer.kernel and layer.kernel.dtype == "int8"
    assert layer.kernel.val().tolist() == DENSE_KERNEL
    np.testing.assert_array_equal(layer.kernel_scale.val(), np.float32(DENSE_SCALE))
    np.testing.assert_allclose(model.predict(D["X"], verbose=0), DENSE, **CLOSE)
    np.testing.assert_allclose(np.asarray(model(D["X"])), DENSE, **CLOSE)  # eager


def test_weight_only_config_leaves_the_inputs_float():
    model = dense_model(activation=None)
    config = pd.quantizers.Int8QuantizationConfig(activation_quantizer=None)
    model.quantize(config=config)
    assert model.layers[0].inputs_quantizer is None
    np.testing.assert_allclose(model.predict(D["X"], verbose=0), DENSE_WEIGHT_ONLY, **CLOSE)


def test_embedding_int8_is_kerass():
    model = pd.Sequential([pd.Input(shape=(3,), dtype="int32"), pd.layers.Embedding(6, 3)])
    model.layers[0].set_weights([D["E"]])
    model.quantize("int8")
    layer = model.layers[0]
    assert [(w.name.rsplit("/", 1)[-1], w.dtype, w.shape) for w in layer.weights] == [
        ("embeddings", "int8", (6, 3)), ("embeddings_scale", "float32", (6,))]
    np.testing.assert_array_equal(layer.embeddings_scale.val(), np.float32(EMBEDDING_SCALE))
    np.testing.assert_allclose(model.predict(IDS, verbose=0), EMBEDDING, **CLOSE)


def test_einsum_dense_int8_is_kerass():
    layer = pd.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="e")
    model = pd.Sequential([pd.Input(shape=(3, 4)), layer])
    layer.set_weights([D["K"], D["B"]])
    model.quantize("int8")
    assert layer.kernel.dtype == "int8" and layer.kernel_scale.shape == (1, 1, 2, 3)
    np.testing.assert_array_equal(layer.kernel_scale.val(), np.float32(EINSUM_SCALE))
    np.testing.assert_allclose(model.predict(D["XE"], verbose=0), EINSUM, **CLOSE)


@pytest.mark.parametrize("equation, input_shape, output_shape", [
    ("ab,bc->ac", (6,), 5), ("abc,cd->abd", (3, 6), (None, 5)),
    ("abcd,cde->abe", (3, 2, 4), (None, 5))])
def test_einsum_dense_int8_is_the_dequantized_product(equation, input_shape, output_shape):
    # Keras's int8 rule in NumPy: inputs by abs-max along the contracted axes, kernel along
    # its contracted axes, the integer einsum divided by both scales.
    rng = np.random.default_rng(3)
    layer = pd.layers.EinsumDense(equation, output_shape=output_shape)
    model = pd.Sequential([pd.Input(shape=input_shape), layer])
    kernel = rng.normal(size=layer.kernel.shape).astype("float32")
    layer.set_weights([kernel])
    x = rng.normal(size=(4,) + input_shape).astype("float32")
    model.quantize("int8")
    inp, ker, out = equation.replace("->", ",").split(",")
    xa = tuple(i for i, a in enumerate(inp) if a not in out)
    ka = tuple(i for i, a in enumerate(ker) if a not in out)
    xq, xs = pd.quantizers.abs_max_quantize(x, axis=xa)
    kq, ks = pd.quantizers.abs_max_quantize(kernel, axis=ka)
    product = np.einsum(equation, xq.astype(np.int64), kq.astype(np.int64))
    xs_out = np.einsum(f"{inp}->{''.join(a for a in out if a in inp)}", xs)
    ks_out = np.einsum(f"{ker}->{''.join(a for a in out if a in ker)}", ks)
    shape_x = [xs.shape[inp.index(a)] if a in inp else 1 for a in out]
    shape_k = [ks.shape[ker.index(a)] if a in ker else 1 for a in out]
    expected = product / (xs_out.reshape(shape_x) * ks_out.reshape(shape_k))
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_quantized_weights_take_a_quarter_of_the_bytes_and_the_float_kernel_is_gone():
    inp = pd.Input(shape=(64,))
    out = pd.layers.Dense(16)(pd.layers.Dense(32, activation="relu")(inp))
    model = pd.Model(inp, out)
    x = np.random.default_rng(0).normal(size=(3, 64)).astype("float32")
    float_out = model.predict(x, verbose=0)

    def kernel_bytes():
        return sum(w.val().nbytes for w in model.weights if "kernel" in w.name
                   and "scale" not in w.name)
    before, total = kernel_bytes(), sum(w.val().nbytes for w in model.weights)
    model.quantize("int8")
    assert kernel_bytes() * 4 == before
    assert sum(w.val().nbytes for w in model.weights) < 0.3 * total
    params = {id(v): v for node in topological_nodes(model.outputs) for v in node.inputs
              if v.kind == "param"}
    assert sorted(v.dtype for v in params.values()).count("float32") == 4  # biases, scales
    assert not model._loose_parameters()
    assert all(len(layer._inbound) == 1 for layer in model.layers[1:])
    np.testing.assert_allclose(model.predict(x, verbose=0), float_out, atol=0.05)


def test_quantized_models_save_and_load_in_kerass_layout(tmp_path):
    model = dense_model()
    model.quantize("int8")
    expected = model.predict(D["X"], verbose=0)
    model.save(tmp_path / "q.keras")
    model.save_weights(tmp_path / "q.weights.h5")
    with h5py.File(tmp_path / "q.weights.h5", "r") as f:
        group = f["layers/dense/vars"]
        assert [(group[k].dtype.name, group[k].shape) for k in ("0", "1", "2")] == [
            ("int8", (4, 3)), ("float32", (3,)), ("float32", (3,))]
    loaded = pd.saving.load_model(tmp_path / "q.keras")
    assert loaded.layers[0].dtype_policy.name == "int8_from_float32"
    assert loaded.layers[0].kernel.dtype == "int8"
    np.testing.assert_array_equal(loaded.predict(D["X"], verbose=0), expected)
    other = dense_model()
    other.quantize("int8")
    other.layers[0].kernel.set_value(np.zeros((4, 3), np.int8))
    other.load_weights(tmp_path / "q.weights.h5")
    np.testing.assert_array_equal(other.predict(D["X"], verbose=0), expected)
    config = loaded.layers[0].get_config()["dtype"]
    assert config["class_name"] == "QuantizedDTypePolicy"
    assert config["config"] == {"mode": "int8", "source_name": "float32"}


def test_a_quantized_model_trains_its_float_weights_through_kerass_gradient():
    inp = pd.Input(shape=(4,))
    hidden = pd.layers.Dense(3)
    model = pd.Model(inp, pd.layers.Dense(2)(hidden(inp)))
    hidden.set_weights([D["W"], D["B"]])
    model.quantize("int8", filters=["^dense"])
    first = hidden
    kernel = first.kernel.val().copy()
    assert [w.name.rsplit("/", 1)[-1] for w in model.trainable_weights] == ["bias", "bias"]
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    bias = first.bias.val().copy()
    model.fit(D["X"], np.ones((2, 2), np.float32), epochs=2, verbose=0)
    assert not np.array_equal(first.bias.val(), bias)
    assert np.array_equal(first.kernel.val(), kernel)
    # the inputs' gradient: upstream @ (kernel / kernel_scale).T, Keras's custom gradient
    x = pd.data("quantize_grad_x", shape=[None, 4])
    g, = pd.gradients(pd.ops.sum(hidden(x)), [x])
    dequantized = kernel.astype(np.float32) / first.kernel_scale.val()
    np.testing.assert_allclose(pd.eval(g, {x: D["X"]}),
                               np.ones((2, 3), np.float32) @ dequantized.T, rtol=1e-6)


def test_keras_errors():
    model = dense_model()
    with pytest.raises(ValueError, match=re.escape(
            "Invalid quantization mode. Expected one of ('int8', 'float8', 'int4', 'gptq', "
            "'awq'). Received: mode=int3")):
        model.quantize("int3")
    with pytest.raises(ValueError, match="You must provide either `mode` or `config`"):
        model.quantize()
    with pytest.raises(ValueError, match="Contradictory arguments: mode='int4' but "
                                         "config.mode='int8'"):
        model.quantize("int4", config=pd.quantizers.Int8QuantizationConfig())
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        model.quantize("int8", block_size=2)
    with pytest.raises(ValueError, match="For GPTQ, you must pass a `GPTQConfig` object"):
        model.quantize("gptq")

    class AWQLike(pd.quantizers.QuantizationConfig):  # not an AWQConfig
        mode = "awq"
    with pytest.raises(ValueError, match="For AWQ, you must pass a `AWQConfig` object"):
        model.quantize(config=AWQLike())
    with pytest.raises(ValueError, match="must be an instance of `QuantizationConfig`"):
        model.quantize(config={"mode": "int8"})
    with pytest.raises(ValueError, match="Cannot quantize a layer that isn't yet built"):
        pd.layers.Dense(2).quantize("int8")
    model.quantize("int8")
    with pytest.raises(ValueError, match="Layer 'dense(_[0-9]+)?' is already quantized with "
                                         "dtype_policy='int8_from_float32'. Received: "
                                         "mode=int8"):
        model.quantize("int8")
    with pytest.raises(ValueError, match="requires a weight_quantizer with output_dtype='int8'"):
        pd.quantizers.Int8QuantizationConfig(
            weight_quantizer=pd.quantizers.AbsMaxQuantizer(output_dtype="uint8",
                                                           value_range=(0, 255)))


def test_layers_without_a_quantized_form_are_left_with_kerass_warning():
    class MyDense(pd.layers.Dense):
        pass
    norm = pd.layers.BatchNormalization()
    model = pd.Sequential([pd.Input(shape=(4,)), MyDense(3), norm, pd.layers.Dense(2)])
    with pytest.warns(UserWarning) as caught:
        model.quantize("int8")
    messages = [str(w.message) for w in caught]
    assert "Layer MyDense does not have a `quantize` method implemented." in messages
    assert "Layer BatchNormalization does not have a `quantize` method implemented." in \
        messages
    assert model.layers[0].quantization_mode is None and norm.quantization_mode is None
    assert model.layers[2].quantization_mode == "int8"
    with pytest.raises(NotImplementedError, match="Layer MyDense does not have a `quantize`"):
        model.layers[0].quantize("int8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.predict(np.ones((1, 4), np.float32), verbose=0).shape == (1, 2)


def test_a_quantized_nested_model_and_filters():
    inner = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3, name="inner_dense")])
    inp = pd.Input(shape=(4,))
    outer = pd.Model(inp, pd.layers.Dense(2, name="outer_dense")(inner(inp)))
    x = D["X"]
    expected = outer.predict(x, verbose=0)
    outer.quantize("int8", filters=lambda layer: layer.name == "inner_dense")
    assert inner.layers[0].quantization_mode == "int8"
    assert outer.get_layer("outer_dense").quantization_mode is None
    assert all(v.dtype != "float32" or not v.name.endswith("inner_dense/kernel")
               for node in topological_nodes(outer.outputs) for v in node.inputs)
    np.testing.assert_allclose(outer.predict(x, verbose=0), expected, atol=0.05)


def test_an_eager_quantized_call_keeps_no_reference_to_the_layer():
    # the inputs' custom gradient closes over the layer: eager calls (no gradient) must
    # not leave it in the eager program cache, or the layer and its name stay taken
    def run():
        model = dense_model()
        model.quantize("int8")
        model(D["X"])
        return weakref.ref(model.layers[0])
    layer = run()
    gc.collect()
    assert layer() is None
