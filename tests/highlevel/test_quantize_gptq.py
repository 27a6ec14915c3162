"""model.quantize("gptq", config=GPTQConfig(...)) and model.quantize("awq",
config=AWQConfig(...)): the quantized weights (uint8 values, packed at 4 bits, scales, zero
points, AWQ's scales, g_idx) and predictions equal Keras 3.15.1's for the same float
weights and calibration data (values read from Keras once, on the JAX backend, by
tests/highlevel/gptq_keras.py, stored in gptq_keras_values.json; and against a live Keras
in a subprocess where /work/kvenv, or PADDLE_KERAS_PYTHON, has one); the GPTQ policy and
configs as Keras's; files round-trip through paddle's loader; Keras's errors."""
import json
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import gptq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gptq_keras as model_kit  # noqa: E402  (the model both libraries build)

KERAS_PYTHON = os.environ.get("PADDLE_KERAS_PYTHON", "/work/kvenv/bin/python")
W = model_kit.inputs()


def stored():
    with open(os.path.join(HERE, "gptq_keras_values.json")) as f:
        table = json.load(f)["values"]
    return {k: v if isinstance(v, str) else np.array(v["values"], v["dtype"]).reshape(
        v["shape"]) for k, v in table.items()}


def paddle_results(case, dataset=None, filters=None, parts=None):
    model, emb, block, layers = model_kit.make(pd, W)
    model_kit.quantize(pd, model, emb, block, case,
                       [W["data"]] if dataset is None else dataset,
                       filters=None if filters is None else filters(layers))
    if parts is not None:
        parts.update(emb=emb, block=block)
    return model, layers, model_kit.results(model, layers, W["x"])


def check_against(expected, case, got):
    assert got["policy"] == str(expected[f"{case}/policy"])
    keys = ["d1_q", "d1_z", "d1_g", "d2_q", "d2_z", "d2_g"]
    assert ("d1_a" in got) == case.startswith("awq") == (f"{case}/d1_a" in expected)
    for key in keys + [k for k in ("d1_a", "d2_a") if k in got]:
        want = expected[f"{case}/{key}"]
        assert got[key].dtype == want.dtype and got[key].shape == want.shape, key
        np.testing.assert_array_equal(got[key], want, err_msg=key)
    for key in ("d1_s", "d2_s"):  # float32: LAPACK's inverse against XLA's, a few ulps
        np.testing.assert_allclose(got[key], expected[f"{case}/{key}"], rtol=1e-5,
                                   err_msg=key)
    np.testing.assert_allclose(got["y"], expected[f"{case}/y"], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("case", list(model_kit.CASES))
def test_quantized_weights_and_predictions_are_kerass(case):
    _, _, got = paddle_results(case)
    check_against(stored(), case, got)


def test_live_keras(tmp_path, request):
    if request.node.callspec.params.get("device", "cpu") != "cpu":
        pytest.skip("Keras's side runs once, with the CPU's run (the same host algorithm)")
    if not os.path.exists(KERAS_PYTHON):
        pytest.skip(f"no Keras venv at {KERAS_PYTHON} (set PADDLE_KERAS_PYTHON)")
    env = dict(os.environ, KERAS_BACKEND="jax", PYTHONPATH=HERE)
    out = tmp_path / "keras.npz"
    done = subprocess.run([KERAS_PYTHON, os.path.join(HERE, "gptq_keras.py"), "-", str(out)],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0 and "No module named 'keras'" in done.stderr:
        pytest.skip("no Keras in the Keras venv")
    assert done.returncode == 0, done.stderr[-2000:]
    live = dict(np.load(out))
    for case in model_kit.CASES:
        check_against(live, case, paddle_results(case)[2])


def test_layers_outside_the_blocks_keep_their_float_kernel():
    parts = {}
    model, layers, _ = paddle_results("4bit_g4_order", parts=parts)
    d1, d2, head = layers
    assert d1.is_gptq_calibrated and d2.is_gptq_calibrated and not head.is_gptq_calibrated
    assert head.dtype_policy.name == "gptq/4/4_from_float32"
    # Keras's: the head computes with its float kernel, on the quantized block's outputs
    hidden = np.asarray(parts["block"](parts["emb"](W["x"])))
    np.testing.assert_allclose(model.predict(W["x"], verbose=0),
                               hidden @ W["W3"] + W["B3"], rtol=1e-5, atol=1e-5)
    names = [w.name.rsplit("/", 1)[-1] for w in d1.weights]
    assert names == ["bias", "kernel", "kernel_scale", "kernel_zero", "g_idx"]
    assert [w.dtype for w in d1.weights] == ["float32", "uint8", "float32", "uint8",
                                             "float32"]


def test_dequantized_kernel_is_close_to_the_float_one():
    _, layers, got = paddle_results("8bit_channel_sym")
    d1 = layers[0]
    scale, zero = got["d1_s"], got["d1_z"].astype(np.float32)
    dequantized = ((got["d1_q"].astype(np.float32) - zero) * scale).T
    # 8 bits: within a step of the error-compensated weights, near the float ones
    assert np.abs(dequantized - W["W1"]).max() < 0.25
    assert d1.kernel is d1.quantized_kernel


def test_save_and_load(tmp_path):
    # the block's layers only: an uncalibrated GPTQ layer (the head) would save its zero
    # quantized weights, not its float kernel, as Keras's does
    def blocks_only(layers):
        return lambda layer: any(layer is x for x in layers[:2])
    parts = {}
    model, _, got = paddle_results("4bit_g4_order", filters=blocks_only, parts=parts)
    assert model.layers[-1].quantization_mode is None
    path = str(tmp_path / "gptq.keras")
    model.save(path)
    loaded = pd.saving.load_model(path)
    np.testing.assert_array_equal(loaded.predict(W["x"], verbose=0), got["y"])
    block = [layer for layer in loaded.layers if isinstance(layer, pd.Model)][0]
    d1 = [layer for layer in block.layers if isinstance(layer, pd.layers.Dense)][0]
    assert isinstance(d1.dtype_policy, pd.dtype_policies.GPTQDTypePolicy)
    assert d1.dtype_policy.name == "gptq/4/4_from_float32" and d1.is_gptq_calibrated
    np.testing.assert_array_equal(d1.quantized_kernel.val(), got["d1_q"])
    np.testing.assert_array_equal(d1.g_idx.val(), got["d1_g"])
    weights = str(tmp_path / "gptq.weights.h5")
    model.save_weights(weights)
    again, _, _ = paddle_results("4bit_g4_order", filters=blocks_only)
    for w in again.weights:
        w.set_value(np.zeros(w.shape, w.dtype))
    again.load_weights(weights)
    np.testing.assert_array_equal(again.predict(W["x"], verbose=0), got["y"])


def test_strings_through_the_tokenizer_and_token_arrays_agree():
    text = "".join(chr(100 + int(t)) for t in W["data"])  # ord(c) % 20: the token back
    assert (model_kit.Tokenizer().tokenize(text) == W["data"]).all()
    _, _, from_text = paddle_results("3bit_g8", dataset=[text])
    _, _, from_ids = paddle_results("3bit_g8", dataset=[W["data"]])
    for key, value in from_ids.items():
        np.testing.assert_array_equal(from_text[key], value)


def test_dataloader_windows():
    # tiled to num_samples * sequence_length, windows as Keras's (one window: offset 0)
    windows = gptq.get_dataloader(None, 6, [np.arange(3)], num_samples=2)
    assert windows.shape == (2, 1, 6) and windows.dtype == np.int32
    windows = gptq.get_dataloader(None, 6, [np.arange(3)], num_samples=1, strategy="random")
    np.testing.assert_array_equal(windows, [[[0, 1, 2, 0, 1, 2]]])
    windows = gptq.get_dataloader(None, 2, [np.arange(6)], num_samples=3,
                                  strategy="linspace")
    np.testing.assert_array_equal(windows[:, 0], [[0, 1], [2, 3], [4, 5]])
    with pytest.raises(TypeError, match="must be an iterable"):
        gptq.get_dataloader(None, 2, "text", num_samples=1)
    with pytest.raises(ValueError, match="Provided dataset is empty"):
        gptq.get_dataloader(None, 2, [], num_samples=1)
    with pytest.raises(ValueError, match="Unknown strategy: spiral"):
        gptq.get_dataloader(None, 2, [np.arange(4)], num_samples=1, strategy="spiral")
    with pytest.raises(TypeError, match="strings or token ids"):
        gptq.get_dataloader(None, 2, [np.float32([0.5, 1.5])], num_samples=1)
    with pytest.raises(TypeError, match="`tokenize"):
        gptq.get_dataloader(object(), 2, ["ab"], num_samples=1)


def test_quantization_parameters_are_kerass():
    # Keras 3.15.1's compute_quantization_parameters on the same matrix
    x = np.float32([[-1.0, 0.5, 2.0, 3.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 5.0]])
    scale, zero, maxq = gptq.compute_quantization_parameters(x, bits=4, per_channel=True,
                                                             group_size=2)
    np.testing.assert_array_equal(scale, np.float32(
        [[0.10000000894069672, 0.06666667014360428], [0.13333334028720856,
         0.13333334028720856], [0.06666667014360428, 0.13333334028720856]]))
    # 1 / (2 * (1 / 15)) rounds to 7 (XLA's reciprocal product, not 2 / 15)
    np.testing.assert_array_equal(zero, [[10, 0], [7, 7], [0, 0]])
    assert maxq == 15
    scale, zero, _ = gptq.compute_quantization_parameters(x, bits=3, symmetric=True)
    np.testing.assert_array_equal(scale, np.full((3, 1), 1.4285714626312256, np.float32))
    np.testing.assert_array_equal(zero, np.full((3, 1), 4))


def test_policy_and_config():
    policy = pd.dtype_policies.get("gptq/4/128_from_float32")
    assert isinstance(policy, pd.dtype_policies.GPTQDTypePolicy)
    assert (policy.weight_bits, policy.group_size, policy.quantization_mode) == (4, 128,
                                                                               "gptq")
    config = pd.dtype_policies.serialize(policy)
    assert config["class_name"] == "GPTQDTypePolicy"
    assert config["config"] == {"mode": "gptq/4/128", "source_name": "float32"}
    assert pd.dtype_policies.deserialize(config) == policy
    assert policy != pd.dtype_policies.GPTQDTypePolicy("gptq/8/128", "float32")
    for mode, message in (("gptq/4", "Expected format 'gptq/<weight_bits>/<group_size>'"),
                          ("gptq/a/1", "must be integers"),
                          ("gptq/5/128", "Invalid weight_bits in mode"),
                          ("gptq/4/0", "Invalid group_size in mode")):
        with pytest.raises(ValueError, match=re.escape(message)):
            pd.dtype_policies.GPTQDTypePolicy(mode, "float32")
    cfg = pd.quantizers.GPTQConfig(dataset=None, tokenizer=None)
    assert cfg.get_config() == {
        "dataset": None, "tokenizer": None, "weight_bits": 4, "num_samples": 128,
        "per_channel": True, "sequence_length": 512, "hessian_damping": 0.01,
        "group_size": 128, "symmetric": False, "activation_order": False,
        "quantization_layer_structure": None}
    assert pd.quantizers.GPTQConfig.from_config(cfg.get_config()).get_config() == \
        cfg.get_config()
    for kwargs, message in (({"weight_bits": 5}, "Unsupported weight_bits 5"),
                            ({"num_samples": 0}, "num_samples must be a positive"),
                            ({"sequence_length": -1}, "sequence_length must be a positive"),
                            ({"hessian_damping": 2.0}, "hessian_damping must be between"),
                            ({"group_size": 0}, "Invalid group_size")):
        with pytest.raises(ValueError, match=message):
            pd.quantizers.GPTQConfig(None, None, **kwargs)
    with pytest.raises(TypeError, match="expected weight_bits an integer"):
        pd.quantizers.GPTQConfig(None, None, weight_bits="4")


def test_keras_errors():
    model, emb, block, layers = model_kit.make(pd, W)
    with pytest.raises(ValueError, match="For GPTQ, you must pass a `GPTQConfig` object"):
        model.quantize("gptq")
    with pytest.raises(ValueError, match="requires a dataset and a tokenizer"):
        model.quantize("gptq", config=pd.quantizers.GPTQConfig(None, model_kit.Tokenizer()))
    with pytest.raises(ValueError, match="requires a dataset and a tokenizer"):
        model.quantize("gptq", config=pd.quantizers.GPTQConfig([W["data"]], None))
    no_structure = pd.quantizers.GPTQConfig([W["data"]], model_kit.Tokenizer())
    with pytest.raises(ValueError, match="a valid quantization structure must be provided"):
        model.quantize("gptq", config=no_structure)
    with pytest.raises(ValueError, match=re.escape(
            "Contradictory arguments: mode='int8' but config.mode='gptq'")):
        model.quantize("int8", config=no_structure)
    assert all(layer.quantization_mode is None for layer in layers)  # nothing changed yet
    empty = pd.quantizers.GPTQConfig(
        [W["data"]], model_kit.Tokenizer(), num_samples=1, sequence_length=model_kit.L,
        quantization_layer_structure={"pre_block_layers": [emb], "sequential_blocks": []})
    with pytest.raises(ValueError, match="No sequential blocks found"):
        model.quantize("gptq", config=empty)
    class GPTQLike(pd.quantizers.QuantizationConfig):
        mode = "gptq"
    with pytest.raises(ValueError, match="For GPTQ, you must pass a `GPTQConfig` object"):
        model.quantize(config=GPTQLike())
    with pytest.raises(ValueError, match="For AWQ, you must pass a `AWQConfig` object"):
        model.quantize("awq")
    with pytest.raises(ValueError, match="AWQ quantization requires a dataset and a "
                                         "tokenizer"):
        model.quantize("awq", config=pd.quantizers.AWQConfig(None, model_kit.Tokenizer()))
    with pytest.raises(ValueError, match="a valid quantization structure must be provided"):
        model.quantize("awq", config=pd.quantizers.AWQConfig([W["data"]],
                                                             model_kit.Tokenizer()))


def test_layers_without_a_gptq_form_warn():
    einsum = pd.layers.EinsumDense("ab,bc->ac", output_shape=3)
    embedding = pd.layers.Embedding(5, 3)
    x = pd.Input(shape=(2,), dtype="int32")
    model = pd.Model(x, einsum(pd.layers.Flatten()(embedding(x))))
    config = pd.quantizers.GPTQConfig(
        [np.arange(4)], model_kit.Tokenizer(), num_samples=1, sequence_length=2,
        quantization_layer_structure={"pre_block_layers": [embedding],
                                      "sequential_blocks": [einsum]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.quantize("gptq", config=config)
    messages = " ".join(str(w.message) for w in caught)
    assert "EinsumDense has no 'gptq' form" in messages
    assert "Received: quantization_mode=gptq" in messages
    assert einsum.quantization_mode is None and embedding.quantization_mode is None


def test_awq_policy_config_and_files(tmp_path):
    policy = pd.dtype_policies.get("awq/4/-1_from_float32")
    assert isinstance(policy, pd.dtype_policies.AWQDTypePolicy)
    assert (policy.weight_bits, policy.group_size) == (4, -1)
    config = pd.dtype_policies.serialize(policy)
    assert config["config"] == {"mode": "awq/4/-1", "source_name": "float32"}
    assert pd.dtype_policies.deserialize(config) == policy
    for mode, message in (("awq/4", "Expected format 'awq/<weight_bits>/<group_size>'"),
                          ("awq/8/128", "AWQ only supports 4-bit quantization"),
                          ("awq/4/-2", "Invalid group_size in mode")):
        with pytest.raises(ValueError, match=re.escape(message)):
            pd.dtype_policies.AWQDTypePolicy(mode, "float32")
    cfg = pd.quantizers.AWQConfig(None, None)
    assert cfg.get_config() == {
        "dataset": None, "tokenizer": None, "weight_bits": 4, "num_samples": 128,
        "sequence_length": 512, "group_size": 128, "num_grid_points": 20,
        "quantization_layer_structure": None}
    for kwargs, message in (({"weight_bits": 8}, "AWQ only supports 4-bit"),
                            ({"num_samples": 0}, "num_samples must be a positive"),
                            ({"group_size": 0}, "Invalid group_size"),
                            ({"num_grid_points": 0}, "num_grid_points must be a positive")):
        with pytest.raises(ValueError, match=message):
            pd.quantizers.AWQConfig(None, None, **kwargs)

    def blocks_only(layers):
        return lambda layer: any(layer is x for x in layers[:2])
    model, layers, got = paddle_results("awq_g4", filters=blocks_only)
    d1 = layers[0]
    assert d1.is_awq_calibrated and d1.dtype_policy.name == "awq/4/4_from_float32"
    assert [w.name.rsplit("/", 1)[-1] for w in d1.weights] == [
        "bias", "kernel", "kernel_scale", "kernel_zero", "awq_scales", "g_idx"]
    path = str(tmp_path / "awq.keras")
    model.save(path)
    loaded = pd.saving.load_model(path)
    np.testing.assert_array_equal(loaded.predict(W["x"], verbose=0), got["y"])
    block = [layer for layer in loaded.layers if isinstance(layer, pd.Model)][0]
    d1 = [layer for layer in block.layers if isinstance(layer, pd.layers.Dense)][0]
    assert isinstance(d1.dtype_policy, pd.dtype_policies.AWQDTypePolicy)
    np.testing.assert_array_equal(d1.awq_scales.val(), got["d1_a"])


def test_fit_trains_what_is_still_float():
    # the biases and the float layers train; the quantized weights stay (not trainable)
    model, layers, _ = paddle_results(
        "awq_g4", filters=lambda layers: lambda layer: any(layer is x for x in layers[:2]))
    bias, values = layers[0].bias.val().copy(), layers[0].quantized_kernel.val().copy()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(W["x"], np.zeros((2, model_kit.L, 5), "float32"), epochs=2, verbose=0)
    assert history.history["loss"][1] < history.history["loss"][0]
    assert not np.array_equal(layers[0].bias.val(), bias)
    np.testing.assert_array_equal(layers[0].quantized_kernel.val(), values)
