"""model.quantize("float8") on Dense and EinsumDense: Keras 3.15's float8 training (inputs and
kernel fake-quantized to float8_e4m3fn, the outputs' gradient to e5m2, scales from histories
of absolute maxima, the scales and histories written with their custom gradients), checked
against Keras's numbers for the same weights after a few steps of `fit` (read once from
Keras on the JAX backend and written here); its policy, config, files and errors.
tests/highlevel/saving/test_saving_keras_quantize.py compares with a live Keras where it is
installed."""
import gc
import re
import warnings
import weakref

import numpy as np
import pytest

import paddle as pd

RNG = np.random.default_rng(3)


def r(*shape):
    return np.round(RNG.normal(size=shape), 2).astype("float32")


W1, B1, W2, B2, X, Y = r(4, 3), r(3), r(3, 2), r(2), r(4, 4), r(4, 2)
K, KB, XE = r(4, 2, 3), r(3), r(4, 3, 4)

# Keras 3.15.1 (JAX backend): Dense(3, relu) -> Dense(2) quantized to float8, predictions
# (PRED0), then SGD(0.1) on mse, batches of 2, 2 epochs: the losses, every layer's weights
# in Keras's order (kernel, bias, inputs_scale, inputs_amax_history, kernel_scale,
# kernel_amax_history, outputs_grad_scale, outputs_grad_amax_history; a history as its
# nonzero entries {idx, val} of 1024) and the predictions; E_*: an EinsumDense, one epoch.
PRED0 = [[-0.1875, 3.36328125], [1.546875, 0.55078125], [1.546875, 0.55078125], [1.546875, 0.55078125]]
LOSS = [2.897902011871338, 1.124385118484497]
WEIGHTS = [[[[2.06016206741333, -2.498927116394043, 0.41999998688697815], [-0.5623677372932434, -0.4270382225513458, -0.2199999988079071], [-2.0427825450897217, -0.2987901270389557, -0.8700000047683716], [3.238893985748291, -0.01467163022607565, -0.3499999940395355]], [-0.3190380930900574, -0.7909595370292664, -1.059999942779541], 0.00631696404889226, {"idx": [0, 1021, 1022, 1023], "val": [2.8299999237060547, 1.940000057220459, 2.8299999237060547, 1.940000057220459]}, 0.007410714402794838, {"idx": [0, 1021, 1022, 1023], "val": [3.238893985748291, 3.319999933242798, 3.232499837875366, 3.232499837875366]}, 2.1457672119140625e-05, {"idx": [1021, 1023], "val": [1.23046875, 0.03158986568450928]}], [[[-0.7087939977645874, -0.11530151963233948], [-0.3169878125190735, 0.810496985912323], [-0.20000000298023224, 0.019999999552965164]], [1.0251952409744263, 0.3818359673023224], 0.009377616457641125, {"idx": [1021, 1023], "val": [4.201171875, 3.918887138366699]}, 0.002142857061699033, {"idx": [0, 1021, 1022, 1023], "val": [0.810496985912323, 0.9599999785423279, 0.8100000023841858, 0.8100000023841858]}, 2.6884081307798624e-05, {"idx": [0, 1021, 1022, 1023], "val": [1.1415624618530273, 1.5416406393051147, 1.2587499618530273, 0.4123828113079071]}]]
PRED = [[-1.9846875667572021, 0.2542051672935486], [1.0234375, 0.3828125], [1.0234375, 0.3828125], [1.0234375, 0.3828125]]
E_LOSS = [8.598523139953613]
E_WEIGHTS = [[[[0.697998046875, 0.1659277230501175, 1.109316349029541], [-0.2638818323612213, -0.8182812333106995, 0.5045910477638245]], [[0.5186230540275574, -0.2625390589237213, -0.7683544754981995], [0.1417187601327896, -2.233823299407959, 0.49817872047424316]], [[0.4661841094493866, -1.4846655130386353, 0.04027343541383743], [-0.8881005644798279, 0.5561914443969727, -1.7975047826766968]], [[-0.7931665182113647, 0.6363122463226318, 1.1352105140686035], [-1.9847558736801147, -0.4912963807582855, 0.3381054997444153]]], [-0.3412500023841858, 1.4691015481948853, -0.9480078816413879], 0.0038616072852164507, {"idx": [0, 1023], "val": [2.549999952316284, 1.7300000190734863]}, 0.0055580358020961285, {"idx": [0, 1023], "val": [2.3158788681030273, 2.490000009536743]}, 6.388104793586535e-06, {"idx": [0, 1023], "val": [0.3644205927848816, 0.366319477558136]}]
E_PRED = [[[[-0.007661670446395874, -0.15693974494934082, 0.2351926565170288], [-1.7463324069976807, 4.27764892578125, -3.6905527114868164]], [[-1.352787733078003, -0.13152754306793213, 0.9642462730407715], [-3.481912612915039, 6.402824878692627, -4.806368827819824]], [[1.4246898889541626, 0.4275393486022949, -1.7491858005523682], [0.5277101993560791, -1.1974637508392334, -0.8530646562576294]]], [[[0.4494134187698364, -1.3080408573150635, -2.824908971786499], [1.4487286806106567, 5.479746341705322, -4.647027969360352]], [[-1.2950953245162964, 1.4866071939468384, -0.7100356221199036], [-1.501826524734497, 2.5305652618408203, -1.6016924381256104]], [[-3.1330106258392334, 2.4934771060943604, 0.5452893972396851], [-2.679713249206543, 5.853373050689697, -1.9876822233200073]]], [[[-0.05882933735847473, 2.147322654724121, -0.021675825119018555], [-0.7775806188583374, 0.06078040599822998, 0.1613602638244629]], [[-0.5450939536094666, 2.433037519454956, -1.7442065477371216], [0.31273728609085083, -0.7153198719024658, 0.7925426959991455]], [[-1.410480260848999, 2.071601390838623, 0.49875783920288086], [-3.809522867202759, -0.4515831470489502, -0.5378168821334839]]], [[[1.0071067810058594, 3.570402145385742, -1.0137794017791748], [1.6801848411560059, -3.980435848236084, 3.464937686920166]], [[-2.143998146057129, 4.371227741241455, -0.8352075815200806], [-0.7339680194854736, -0.8664193153381348, 2.468369960784912]], [[-0.07256555557250977, 2.9234228134155273, 0.358475923538208], [1.615624189376831, 3.5429296493530273, 0.4202892780303955]]]]


def expand(value):
    if isinstance(value, dict):
        history = np.zeros(1024, np.float32)
        history[value["idx"]] = value["val"]
        return history
    return np.float32(value)


def dense_model():
    model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3, activation="relu"),
                           pd.layers.Dense(2)])
    model.layers[0].set_weights([W1, B1])
    model.layers[1].set_weights([W2, B2])
    return model


NAMES = ["kernel", "bias", "inputs_scale", "inputs_amax_history", "kernel_scale",
         "kernel_amax_history", "outputs_grad_scale", "outputs_grad_amax_history"]


def test_dense_float8_trains_as_kerass():
    model = dense_model()
    model.quantize("float8")
    layer = model.layers[0]
    assert layer.quantization_mode == "float8"
    assert isinstance(layer.dtype_policy, pd.dtype_policies.QuantizedFloat8DTypePolicy)
    assert layer.dtype_policy.name == "float8_from_float32"
    assert [w.name.rsplit("/", 1)[-1] for w in layer.weights] == NAMES
    assert [w.dtype for w in layer.weights] == ["float32"] * 8
    assert len(model.trainable_weights) == 16  # Keras's: the scales and histories too
    np.testing.assert_array_equal(model.predict(X, verbose=0), PRED0)
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    history = model.fit(X, Y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], LOSS, rtol=1e-6)
    for layer, expected in zip(model.layers, WEIGHTS):
        for w, values in zip(layer.weights, expected):
            np.testing.assert_allclose(w.val(), expand(values), rtol=1e-6, atol=1e-7,
                                       err_msg=w.name)
    np.testing.assert_allclose(model.predict(X, verbose=0), PRED, rtol=1e-6, atol=1e-7)


def test_einsum_dense_float8_trains_as_kerass():
    layer = pd.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="e")
    model = pd.Sequential([pd.Input(shape=(3, 4)), layer])
    layer.set_weights([K, KB])
    model.quantize("float8")
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    history = model.fit(XE, np.ones((4, 3, 2, 3), "float32"), batch_size=2, epochs=1,
                        shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], E_LOSS, rtol=1e-6)
    for w, values in zip(layer.weights, E_WEIGHTS):
        np.testing.assert_allclose(w.val(), expand(values), rtol=1e-6, atol=1e-7,
                                   err_msg=w.name)
    np.testing.assert_allclose(model.predict(XE, verbose=0), E_PRED, rtol=1e-6, atol=1e-6)


def test_float8_files_keep_the_policy_and_load(tmp_path):
    model = dense_model()
    policy = pd.dtype_policies.QuantizedFloat8DTypePolicy("float8", "float32", 16)
    model.layers[0].dtype_policy = policy  # a shorter history, kept in the file
    model.quantize("float8")
    assert model.layers[0].inputs_amax_history.shape == (16,)
    assert model.layers[1].inputs_amax_history.shape == (1024,)
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    model.fit(X, Y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    expected = model.predict(X, verbose=0)
    model.save(tmp_path / "f8.keras")
    loaded = pd.saving.load_model(tmp_path / "f8.keras")
    assert loaded.layers[0].dtype_policy == policy
    assert loaded.layers[0].get_config()["dtype"]["config"] == {
        "mode": "float8", "source_name": "float32", "amax_history_length": 16}
    assert len(model.weights) == len(loaded.weights) == 16
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_array_equal(a.val(), b.val())
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), expected)


def test_the_optimizer_writes_overwrite_with_gradient_weights():
    # Keras's rule: such a weight takes its gradient as its value, outside the step
    # (no learning rate, no clipping), and the other weights step as usual
    layer = pd.layers.Layer()
    w = layer.add_weight(name="w", shape=(2,), initializer="ones")
    s = layer.add_weight(name="s", shape=(2,), initializer="ones",
                         overwrite_with_gradient=True)
    assert s.overwrite_with_gradient and not w.overwrite_with_gradient
    loss = pd.ops.sum(w * 3.0) + pd.ops.sum(s * np.float32([5.0, -7.0]))
    step = pd.optimizers.SGD(0.5, clipvalue=1.0).minimize(loss, var_list=[w, s])
    pd.eval(step)
    np.testing.assert_array_equal(w.val(), [0.5, 0.5])  # clipped to 1, times 0.5
    np.testing.assert_array_equal(s.val(), [5.0, -7.0])
    only = pd.optimizers.SGD(0.5).minimize(pd.ops.sum(s * 2.0), var_list=[s])
    pd.eval(only)
    np.testing.assert_array_equal(s.val(), [2.0, 2.0])


def test_float8_ops_equal_the_host_rules():
    amax, scale = np.float32([2.0, 0.0, np.inf]), np.float32([0.5, 0.5, 0.5])
    np.testing.assert_array_equal(
        np.asarray(pd.quantizers.compute_float8_scale(pd.constant(amax), pd.constant(scale),
                                                      448.0, margin=1)),
        pd.quantizers.compute_float8_scale(amax, scale, 448.0, margin=1))
    x = np.float32([[-5.0, 1.0]])
    for n in (1, 2, 5):
        history = np.arange(1, n + 1, dtype=np.float32)
        np.testing.assert_array_equal(
            np.asarray(pd.quantizers.compute_float8_amax_history(pd.constant(x),
                                                                 pd.constant(history))),
            pd.quantizers.compute_float8_amax_history(x, history))


def test_float8_config_policy_and_errors():
    config = pd.quantizers.Float8QuantizationConfig()
    assert (config.mode, config.get_config(), config.weight_quantizer) == ("float8", {}, None)
    policy = pd.dtype_policies.get("float8_from_mixed_bfloat16")
    assert isinstance(policy, pd.dtype_policies.QuantizedFloat8DTypePolicy)
    assert (policy.compute_dtype, policy.variable_dtype, policy.amax_history_length) == (
        "bfloat16", "float32", 1024)
    assert pd.dtype_policies.deserialize(pd.dtype_policies.serialize(policy)) == policy
    with pytest.raises(TypeError, match="`amax_history_length` must be an integer. "
                                        "Received: amax_history_length=1.5"):
        pd.dtype_policies.QuantizedFloat8DTypePolicy("float8", "float32", 1.5)
    model = dense_model()
    model.quantize("float8")
    with pytest.raises(ValueError, match=re.escape(
            "is already quantized with dtype_policy='float8_from_float32'")):
        model.quantize("float8")
    emb = pd.Sequential([pd.Input(shape=(3,), dtype="int32"), pd.layers.Embedding(6, 3)])
    with warnings.catch_warnings(record=True) as caught:  # Keras's Embedding has no float8
        warnings.simplefilter("always")
        emb.quantize("float8")
    assert any("Received: quantization_mode=float8" in str(w.message) for w in caught)
    assert emb.layers[0].quantization_mode is None


@pytest.mark.parametrize("mode", ["float8", "int4"])
def test_an_eager_quantized_call_keeps_no_reference_to_the_layer(mode):
    # the custom gradients close over the layer: eager calls (no gradient) must not leave
    # it in the eager program cache
    def run():
        model = dense_model()
        model.quantize(mode)
        eager = np.asarray(model(X))
        np.testing.assert_array_equal(eager, model.predict(X, verbose=0))
        return weakref.ref(model.layers[0])
    layer = run()
    gc.collect()
    assert layer() is None
