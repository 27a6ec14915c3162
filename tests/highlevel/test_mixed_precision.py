"""Mixed precision (issue 27 item 4): Keras 3's dtype policies "mixed_float16" and
"mixed_bfloat16" (and the plain "float16"/"bfloat16"), the half dtypes of the op library,
and `LossScaleOptimizer`.

The expected dtypes are Keras 3.15.1's (JAX backend), read with KERAS_BACKEND=jax: under
mixed_float16 a Dense layer's weights are float32 and its output float16; an
`Activation("softmax", dtype="float32")` gives float32; the loss, the gradients and the
optimizer's slots are float32; `compile` wraps the optimizer in a LossScaleOptimizer
(not under mixed_bfloat16); the policy is saved as a DTypePolicy config.
"""
import os

import numpy as np
import pytest

import paddle as pd
from paddle.devices import half
from paddle.highlevel import dtype_policies
from paddle.lowlevel.executor import topological_nodes

L = pd.layers


@pytest.fixture
def policy():
    """Set a global policy for the test; after it, the global policy is unset again (the
    float policy of floatx, which later tests may change), as before the test."""
    def set_policy(name):
        pd.mixed_precision.set_global_policy(name)
    saved = dtype_policies._global["policy"]
    yield set_policy
    dtype_policies._global["policy"] = saved


def _mlp(classes=3, inputs=4):
    return pd.Sequential([L.Input((inputs,)), L.Dense(16, activation="relu"),
                          L.Dense(classes), L.Activation("softmax", dtype="float32")])


# ---- policies ------------------------------------------------------------------------

def test_policies_have_keras_dtypes():
    cases = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32"),
             "float16": ("float16", "float16"), "bfloat16": ("bfloat16", "bfloat16"),
             "float32": ("float32", "float32")}
    for name, dtypes in cases.items():
        p = pd.DTypePolicy(name)
        assert (p.compute_dtype, p.variable_dtype) == dtypes, name
        assert pd.dtype_policies.get(name) == p and p.name == name
    assert pd.mixed_precision.Policy is pd.DTypePolicy


def test_an_unknown_policy_raises_kerass_error(policy):
    with pytest.raises(ValueError, match="Cannot convert 'mixed_float8' to a mixed precision "
                                         "DTypePolicy. Valid policies include 'mixed_float16'"):
        pd.mixed_precision.set_global_policy("mixed_float8")
    with pytest.raises(ValueError, match="Cannot convert 'half'"):
        L.Dense(2, dtype="half")
    assert pd.mixed_precision.global_policy().name == "float32"


def test_bfloat16_without_ml_dtypes_says_what_to_install(monkeypatch):
    monkeypatch.setattr(half, "ml_dtypes", None)
    with pytest.raises(TypeError, match="pip install ml_dtypes"):
        pd.DTypePolicy("mixed_bfloat16")
    with pytest.raises(TypeError, match="cast: bfloat16 needs the ml_dtypes package"):
        pd.cast(pd.constant(np.ones(2, np.float32)), "bfloat16")


def test_layers_under_mixed_float16_have_kerass_dtypes(policy):
    policy("mixed_float16")
    model = _mlp()
    dense, _, softmax = model.layers
    assert dense.dtype_policy.name == "mixed_float16" and softmax.dtype_policy.name == "float32"
    assert (dense.compute_dtype, dense.variable_dtype, dense.dtype, dense.input_dtype) == \
        ("float16", "float32", "float32", "float16")
    assert [w.dtype for w in model.weights] == ["float32"] * 4
    assert model.layers[1].output.dtype == "float16"
    assert model.outputs[0].dtype == "float32"  # the float32 softmax casts up again
    # eager calls too
    assert dense(np.ones((2, 4), np.float32)).dtype == "float16"
    assert model(np.ones((2, 4), np.float32)).dtype == "float32"


def test_per_layer_policies_and_a_global_one(policy):
    dense = L.Dense(2, dtype=pd.DTypePolicy("mixed_bfloat16"))
    assert (dense.compute_dtype, dense.dtype) == ("bfloat16", "float32")
    assert L.Dense(2, dtype="mixed_float16").compute_dtype == "float16"
    assert L.Dense(2).compute_dtype == "float32"
    pd.config.set_dtype_policy("mixed_bfloat16")
    assert L.Dense(2).compute_dtype == "bfloat16"
    policy("float16")
    plain = L.Dense(2)
    plain(pd.Input((3,)))
    assert plain.kernel.dtype == "float16" and plain.compute_dtype == "float16"


def test_weights_are_read_through_one_cast_node_and_never_copied(policy):
    policy("mixed_float16")
    dense = L.Dense(3)
    y = dense(pd.Input((4,)))
    nodes = topological_nodes([y])
    casts_of_weights = [n for n in nodes if n.op.name == "cast" and n.inputs[0].kind == "param"]
    assert sorted(n.inputs[0].name for n in casts_of_weights) == \
        sorted(w.name for w in dense.weights)  # one cast per weight, of the float32 weight
    assert all(n.attrs["dtype"] == "float16" for n in casts_of_weights)
    params = {id(v) for n in nodes for v in n.inputs if v.kind == "param"}
    assert params == {id(w) for w in dense.weights}
    assert all(w.val().dtype == np.float32 for w in dense.weights)


def test_normalization_computes_in_float32_and_gives_half(policy):
    policy("mixed_float16")
    bn, ln = L.BatchNormalization(), L.LayerNormalization()
    x = pd.Input((6,))
    y = ln(bn(L.Dense(6)(x)))
    assert y.dtype == "float16" and bn.moving_mean.dtype == "float32"
    kinds = {n.op.name: [v.dtype for v in n.inputs] for n in topological_nodes([y])}
    assert "float16" not in kinds["batch_norm"] if "batch_norm" in kinds else True


def test_loss_gradients_and_slots_are_float32(policy):
    policy("mixed_float16")
    model = _mlp()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    assert type(model.optimizer).__name__ == "LossScaleOptimizer"
    assert type(model.optimizer.inner_optimizer).__name__ == "Adam"
    half_out = pd.Input((3,), dtype="float16")
    loss = pd.losses.MeanSquaredError()(half_out, half_out)
    assert loss.dtype == "float32"  # Keras computes losses in float32
    x, y = np.random.default_rng(0).random((8, 4), np.float32), np.arange(8) % 3
    logs = model.train_on_batch(x, y, return_dict=True)
    assert np.isfinite(logs["loss"])
    for w in model.trainable_weights:
        assert {a.dtype for a in model.optimizer.slots(w).values()} == {np.dtype("float32")}
    out = model(pd.Input((4,)))
    grads = pd.gradients(pd.losses.SparseCategoricalCrossentropy()(
        pd.Input((), dtype="int64"), out), model.trainable_weights)
    assert {g.dtype for g in grads} == {"float32"}


def test_compile_wraps_only_under_mixed_float16(policy):
    policy("mixed_bfloat16")
    model = _mlp()
    model.compile(optimizer="sgd", loss="mse")
    assert type(model.optimizer).__name__ == "SGD"  # bfloat16 has float32's range
    policy("mixed_float16")
    model = _mlp()
    model.compile(optimizer="sgd", loss="mse", auto_scale_loss=False)
    assert type(model.optimizer).__name__ == "SGD"


# ---- the op library in half precision ---------------------------------------------------

def test_each_op_output_is_rounded_to_half_on_the_cpu():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((5, 7)).astype(np.float32), rng.standard_normal((7, 3))
    b = b.astype(np.float32)
    ha, hb = pd.cast(pd.constant(a), "float16"), pd.cast(pd.constant(b), "float16")
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    got = pd.eval(pd.matmul(ha, hb))
    assert got.dtype == np.float16
    # float32 products and sums of the half operands, rounded once: what cuBLAS with
    # CUBLAS_COMPUTE_32F and XLA on a CPU give
    np.testing.assert_array_equal(got, (a16.astype(np.float32) @ b16.astype(np.float32))
                                  .astype(np.float16))
    prod = pd.eval(ha * 3.1 + 1.0)
    np.testing.assert_array_equal(
        prod, ((a16.astype(np.float32) * np.float16(3.1).astype(np.float32)).astype(np.float16)
               .astype(np.float32) + 1.0).astype(np.float16))
    total = pd.eval(pd.sum(ha))
    assert total.dtype == np.float16
    assert total == np.float16(a16.astype(np.float32).sum())
    bf = pd.eval(pd.exp(pd.cast(pd.constant(a), "bfloat16")))
    assert bf.dtype.name == "bfloat16"
    np.testing.assert_array_equal(bf, np.exp(a.astype(bf.dtype).astype(np.float32))
                                  .astype(bf.dtype))


def test_half_overflow_is_inf_as_on_a_gpu():
    x = pd.cast(pd.constant(np.array([300.0], np.float32)), "float16")
    assert np.isinf(pd.eval(x * x)[0])  # 90000 > float16's 65504


def test_a_stateful_op_writes_back_its_half_parameter():
    w = pd.Variable("half_assign_w", shape=[3], dtype="float16", initializer="ones")
    step = pd.assign(w, w * 2.5)
    pd.eval(step)
    assert w.val().dtype == np.float16 and w.val().tolist() == [2.5, 2.5, 2.5]


def test_gradients_of_a_mixed_model_match_the_float32_models(policy):
    rng = np.random.default_rng(0)
    x, y = rng.random((16, 4), np.float32), np.arange(16) % 3
    models = {}
    for name in ("float32", "mixed_float16"):
        policy(name)
        pd.seed(0)
        models[name] = _mlp()
    for w32, w16 in zip(models["float32"].weights, models["mixed_float16"].weights):
        w16.set_value(w32.val())

    def grads(model):
        inp, labels = pd.data("gx", (None, 4)), pd.data("gy", (None,), dtype="int64")
        loss = pd.losses.SparseCategoricalCrossentropy()(labels, model(inp))
        gs = pd.gradients(loss, model.trainable_weights)
        assert {g.dtype for g in gs} == {"float32"}
        return pd.eval(gs, {inp: x, labels: y})
    for g32, g16 in zip(grads(models["float32"]), grads(models["mixed_float16"])):
        np.testing.assert_allclose(g16, g32, rtol=2e-2, atol=2e-3)


# ---- LossScaleOptimizer -------------------------------------------------------------------

def test_loss_scaling_skips_an_overflow_step_and_recovers(policy, device):
    policy("mixed_float16")
    pd.seed(0)
    model = _mlp()
    model.compile(optimizer=pd.optimizers.LossScaleOptimizer(
        pd.optimizers.Adam(0.01), initial_scale=1024.0, dynamic_growth_steps=3),
        loss="sparse_categorical_crossentropy")
    opt = model.optimizer
    rng = np.random.default_rng(0)
    x, y = rng.random((32, 4), np.float32), (np.arange(32) % 3)
    model.train_on_batch(x, y)
    before = [w.val().copy() for w in model.weights]
    slots = [{k: a.copy() for k, a in opt.slots(w).items()} for w in model.trainable_weights]
    # A huge loss (sample weights of 1e30): the scaled backward pass overflows float16.
    model.train_on_batch(x, y, sample_weight=np.full(32, 1e30, np.float32))
    assert opt.dynamic_scale == 512.0 and opt.step_counter == 0
    # the CPU leaves the step count too, as Keras; a GPU counts the skipped step (its
    # count is kept on the host, which does not wait for the device to decide)
    assert opt.iterations == (1 if device == "cpu" else 2)
    for w, b in zip(model.weights, before):
        np.testing.assert_array_equal(w.val(), b)
    for w, s in zip(model.trainable_weights, slots):
        for k, a in opt.slots(w).items():
            np.testing.assert_array_equal(a, s[k])
    losses = [float(model.train_on_batch(x, y)) for _ in range(6)]
    assert losses[-1] < losses[0]
    assert opt.dynamic_scale == 2048.0  # doubled after 3 good steps, twice
    assert not all(np.array_equal(w.val(), b) for w, b in zip(model.weights, before))


def test_loss_scale_optimizer_arguments_are_checked():
    with pytest.raises(ValueError, match="expected inner_optimizer to be a pd.optimizers"):
        pd.optimizers.LossScaleOptimizer("adam")
    with pytest.raises(ValueError, match="initial_scale"):
        pd.optimizers.LossScaleOptimizer(pd.optimizers.SGD(), initial_scale=0.0)
    with pytest.raises(ValueError, match="dynamic_growth_steps to be an integer >= 1"):
        pd.optimizers.LossScaleOptimizer(pd.optimizers.SGD(), dynamic_growth_steps=0)
    opt = pd.optimizers.LossScaleOptimizer(pd.optimizers.SGD(0.5))
    with pytest.raises(ValueError):
        pd.optimizers.LossScaleOptimizer(opt)
    config = opt.get_config()
    assert config["inner_optimizer"]["class_name"] == "SGD" and config["initial_scale"] == 2 ** 15
    again = pd.optimizers.LossScaleOptimizer.from_config(config)
    assert again.inner_optimizer.learning_rate == 0.5 and again.dynamic_growth_steps == 2000


# ---- training and saving ---------------------------------------------------------------

def _digits():
    from paddle.dataset import digits
    train, test = list(digits.train()()), list(digits.test()())
    return [(np.stack([i for i, _ in part]), np.array([l for _, l in part]))
            for part in (train, test)]


def _digits_accuracy(name):
    saved = dtype_policies._global["policy"]
    pd.mixed_precision.set_global_policy(name)
    try:
        pd.seed(0)
        (x, y), (xt, yt) = _digits()
        model = pd.Sequential([L.Input((64,)), L.Dense(64, activation="relu"),
                               L.Dense(10), L.Activation("softmax", dtype="float32")])
        model.compile(optimizer=pd.optimizers.Adam(3e-3),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        model.fit(x, y, batch_size=64, epochs=8, verbose=0)
        return model.evaluate(xt, yt, verbose=0, return_dict=True)["accuracy"], model
    finally:
        dtype_policies._global["policy"] = saved


def test_mixed_float16_training_reaches_the_float32_accuracy_on_digits():
    pytest.importorskip("sklearn")
    full, _ = _digits_accuracy("float32")
    mixed, model = _digits_accuracy("mixed_float16")
    assert full > 0.9
    assert mixed >= full - 0.02, (mixed, full)
    assert model.layers[0].output.dtype == "float16"
    assert type(model.optimizer).__name__ == "LossScaleOptimizer"


def test_saving_and_loading_keep_the_policy_and_the_loss_scale(policy, tmp_path):
    policy("mixed_float16")
    model = _mlp()
    model.compile(optimizer=pd.optimizers.LossScaleOptimizer(pd.optimizers.Adam(),
                                                             initial_scale=256.0),
                  loss="sparse_categorical_crossentropy")
    x, y = np.random.default_rng(0).random((8, 4), np.float32), np.arange(8) % 3
    model.train_on_batch(x, y)
    model.train_on_batch(x, y, sample_weight=np.full(8, 1e30, np.float32))  # scale: 128
    path = os.path.join(tmp_path, "mixed.keras")
    model.save(path)
    policy("float32")  # the file, not the global policy, gives the layers theirs
    loaded = pd.saving.load_model(path)
    assert [l.dtype_policy.name for l in loaded.layers] == \
        ["mixed_float16", "mixed_float16", "float32"]
    assert loaded.layers[0].compute_dtype == "float16"
    assert type(loaded.optimizer).__name__ == "LossScaleOptimizer"
    assert loaded.optimizer.dynamic_scale == 128.0 == model.optimizer.dynamic_scale
    assert loaded.optimizer.iterations == model.optimizer.iterations
    for w, w2 in zip(model.trainable_weights, loaded.trainable_weights):
        np.testing.assert_array_equal(loaded.optimizer.slots(w2)["m"],
                                      model.optimizer.slots(w)["m"])
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert loaded.layers[0].get_config()["dtype"]["config"]["name"] == "mixed_float16"


def test_the_plain_half_policies_train_with_float32_slots(policy):
    for name in ("float16", "bfloat16"):
        policy(name)
        pd.seed(0)
        model = pd.Sequential([L.Input((4,)), L.Dense(8, activation="relu"),
                               L.BatchNormalization(), L.Dense(3)])
        model.compile(optimizer="adam", loss="mse")
        dense, bn = model.layers[0], model.layers[1]
        assert dense.kernel.dtype == name and model.outputs[0].dtype == name
        assert bn.gamma.dtype == "float32" and bn.moving_mean.dtype == "float32"
        x, y = np.random.default_rng(0).random((16, 4), np.float32), np.zeros((16, 3))
        before = dense.kernel.val().copy()
        losses = [float(model.train_on_batch(x, y)) for _ in range(5)]
        assert losses[-1] < losses[0] and dense.kernel.val().dtype.name == name
        assert not np.array_equal(dense.kernel.val(), before)
        assert {a.dtype for a in model.optimizer.slots(dense.kernel).values()} == \
            {np.dtype("float32")}


def test_a_bfloat16_array_becomes_a_constant():
    value = np.array([1.5, -2.0], dtype=half.ml_dtypes.bfloat16)
    assert pd.constant(value).dtype == "float32"
    assert pd.eval(pd.constant(value, dtype="bfloat16")).tolist() == [1.5, -2.0]
