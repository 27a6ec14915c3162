"""pd.config and pd.backend: Keras's settings, honoured where paddle reads them, and
Keras's dtype utilities (reference values read from Keras 3.15 once and written here)."""
import logging

import numpy as np
import pytest

import paddle as pd
from paddle import _settings


@pytest.fixture(autouse=True)
def restore_settings():
    saved = dict(_settings._state)
    policy = pd.highlevel.dtype_policies._global["policy"]
    yield
    _settings._state.update(saved)
    pd.highlevel.dtype_policies._global["policy"] = policy


def test_defaults_are_kerass():
    assert pd.config.backend() == pd.backend.backend() == "paddle"
    assert pd.config.floatx() == "float32" and pd.config.epsilon() == 1e-7
    assert pd.config.image_data_format() == "channels_last"
    assert pd.config.is_traceback_filtering_enabled() is True
    assert pd.config.is_interactive_logging_enabled() is True
    assert pd.config.dtype_policy() == pd.dtype_policies.DTypePolicy("float32")
    assert pd.config.is_nnx_enabled() is False
    assert pd.backend.epsilon is pd.config.epsilon


def test_floatx_is_the_default_dtype_of_layers_inputs_and_initializers():
    pd.config.set_floatx("float64")
    inp = pd.Input(shape=(3,))
    dense = pd.layers.Dense(2)
    out = dense(inp)
    assert inp.dtype == "float64" and dense.dtype == "float64" and out.dtype == "float64"
    assert dense.kernel.dtype == "float64"
    assert pd.initializers.GlorotUniform(seed=1)((2, 2)).dtype == np.float64
    assert pd.layers.Dense(2, dtype="float32").dtype == "float32"
    model = pd.Model(inp, out)
    assert model.predict(np.ones((2, 3)), verbose=0).dtype == np.float64


def test_half_floatx_is_refused_and_points_to_the_policies():
    # Mixed precision came with issue 27: the policies accept the half types now (see
    # tests/highlevel/test_mixed_precision.py); floatx stays float32 or float64.
    with pytest.raises(ValueError, match="set_global_policy"):
        pd.config.set_floatx("float16")
    with pytest.raises(ValueError, match="Cannot convert 'mixed_float8' to a mixed precision"):
        pd.config.set_dtype_policy("mixed_float8")
    with pytest.raises(ValueError, match="expected one of float32, float64"):
        pd.config.set_floatx("int32")


def test_epsilon_is_read_by_losses_when_built():
    y_true, y_pred = np.array([[1.0, 0.0]], np.float32), np.array([[1.0, 0.0]], np.float32)
    base = float(pd.eval(pd.losses.binary_crossentropy(y_true, y_pred))[0])
    pd.config.set_epsilon(1e-2)
    wider = float(pd.eval(pd.losses.binary_crossentropy(y_true, y_pred))[0])
    # Clipped to [eps, 1 - eps]: -log(1 - eps) per element, averaged.
    assert wider == pytest.approx(-np.log(1 - 1e-2), rel=1e-5)
    assert base == pytest.approx(-np.log(1 - 1e-7), abs=1e-6)
    with pytest.raises(ValueError, match="set_epsilon: expected a float > 0"):
        pd.config.set_epsilon(0)


def test_set_dtype_policy_is_the_default_of_new_layers():
    pd.config.set_dtype_policy("float64")
    layer = pd.layers.Dense(2)
    assert layer.dtype == "float64" and layer.dtype_policy.name == "float64"
    pd.mixed_precision.set_global_policy("float32")
    assert pd.mixed_precision.global_policy().name == "float32"
    assert pd.layers.Dense(2).dtype == "float32"


def test_traceback_filtering_switch_adds_paddles_line():
    dense = pd.layers.Dense(2)
    dense(pd.Input(shape=(3,)))
    with pytest.raises(pd.ShapeError) as filtered:
        dense(pd.Input(shape=(4,)))
    assert "test_config.py:" in str(filtered.value) and "in paddle/" not in str(filtered.value)
    pd.config.disable_traceback_filtering()
    with pytest.raises(pd.ShapeError) as unfiltered:
        dense(pd.Input(shape=(4,)))
    assert "test_config.py:" in str(unfiltered.value)
    assert "in paddle/highlevel/layers/base.py:" in str(unfiltered.value)


def test_enable_unsafe_deserialization_loads_bytecode(tmp_path):
    inp = pd.Input(shape=(2,))
    model = pd.Model(inp, pd.layers.Lambda(lambda t: t * 2.0)(inp))
    model.save(tmp_path / "lambda.keras")
    with pytest.raises(pd.CheckpointError, match="safe_mode=False"):
        pd.load_model(tmp_path / "lambda.keras")
    pd.config.enable_unsafe_deserialization()
    loaded = pd.load_model(tmp_path / "lambda.keras")
    assert loaded.predict(np.ones((1, 2), np.float32), verbose=0).tolist() == [[2.0, 2.0]]


def test_interactive_logging_off_sends_progress_to_logging(capsys, caplog):
    model = pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    pd.config.disable_interactive_logging()
    with caplog.at_level(logging.INFO, logger="paddle"):
        model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=2)
    assert "loss:" in caplog.text and "loss:" not in capsys.readouterr().out


def test_max_epochs_and_steps_cap_fit():
    model = pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    pd.config.set_max_epochs(2)
    pd.config.set_max_steps_per_epoch(3)
    steps = []
    counter = pd.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: steps.append(b))
    history = model.fit(np.ones((64, 2)), np.ones((64, 1)), batch_size=4, epochs=10,
                        verbose=0, callbacks=[counter])
    assert len(history.history["loss"]) == 2 and len(steps) == 6
    with pytest.raises(ValueError, match="set_max_epochs: expected an integer >= 1"):
        pd.config.set_max_epochs(0)


def test_image_data_format_and_flash_attention_switches():
    pd.config.set_image_data_format("channels_first")
    assert pd.backend.image_data_format() == "channels_first"
    conv = pd.layers.Conv2D(4, 3)  # data_format=None: the global one, when built
    out = pd.layers.MaxPooling2D()(conv(pd.Input(shape=(3, 8, 8))))
    assert conv.data_format == "channels_first" and out.shape == (None, 4, 3, 3)
    assert pd.layers.Conv2D(4, 3, data_format="channels_last").data_format == "channels_last"
    with pytest.raises(ValueError, match="channels_last, channels_first"):
        pd.config.set_image_data_format("nchw")
    pd.config.disable_flash_attention()
    assert pd.config.is_flash_attention_enabled() is False
    # Keras 3.15.1 (JAX, CPU): enable_flash_attention() puts back None (automatic), which
    # on a CPU backend computes plain attention; an explicit flash_attention=True raises.
    pd.config.enable_flash_attention()
    assert pd.config.is_flash_attention_enabled() is None
    q = np.arange(8, dtype=np.float32).reshape(1, 2, 1, 4) / 8
    out = pd.ops.nn.dot_product_attention(q, q, q).numpy()
    assert np.allclose(out[0, :, 0], [[0.27337, 0.39837, 0.52337, 0.64837],
                                      [0.33271, 0.45771, 0.58271, 0.70771]], atol=1e-4)
    with pytest.raises(ValueError, match="flash_attention=True"):
        pd.ops.nn.dot_product_attention(q, q, q, flash_attention=True)
    pd.config.set_backend("paddle")
    with pytest.raises(ValueError, match="expected 'paddle', received 'jax'"):
        pd.config.set_backend("jax")


# (dtypes, Keras 3.15's result_type on them)
RESULT_TYPES = [(("int32", "float32"), "float32"), (("int8", int), "int8"),
                (("uint8", "int8"), "int16"), ((float, int), "float32"),
                (("bool", "int16"), "int16"), (("bool", float), "float32"),
                (("int16", "uint16"), "int32"), (("float16", "int32"), "float16"),
                (("uint8", float), "float32"), (("bfloat16", "float16"), "float32"),
                ((int,), "int32"), ((float,), "float32"), (("bool", "bool"), "bool"),
                (("int32", "int32"), "int32"), ((), "float32"),
                ((np.float32, "int32"), "float32")]


@pytest.mark.parametrize("dtypes, expected", RESULT_TYPES)
def test_result_type_is_kerass(dtypes, expected):
    assert pd.backend.result_type(*dtypes) == expected


def test_result_type_keeps_64_bits_and_refuses_float8():
    # Keras on JAX narrows 64-bit results to 32 bits (JAX without x64); paddle computes in
    # 64 bits, as Keras on TensorFlow and PyTorch.
    assert pd.backend.result_type("int8", "uint32") == "int64"
    assert pd.backend.result_type("float64", "int32") == "float64"
    with pytest.raises(ValueError, match="float8"):
        pd.backend.result_type("float8_e4m3fn", "float32")


def test_dtype_predicates_uid_and_clear_session():
    assert pd.backend.is_float_dtype("bfloat16") and pd.backend.is_int_dtype("uint8")
    assert not pd.backend.is_float_dtype("int32") and not pd.backend.is_int_dtype("bool")
    assert pd.backend.standardize_dtype(float) == "float32"
    pd.backend.clear_session()
    assert [pd.backend.get_uid("a"), pd.backend.get_uid("a"), pd.backend.get_uid("b")] == [
        1, 2, 1]
    kept = [pd.layers.Dense(2), pd.layers.Dense(2)]
    assert [layer.name for layer in kept] == ["dense", "dense_1"]
    pd.backend.clear_session()
    assert pd.backend.get_uid("a") == 1 and pd.layers.Dense(2).name == "dense"
    assert pd.backend.is_keras_tensor(pd.Input(shape=(2,)))
