"""HDF5 checkpoints: model.save / pd.load_model, save_weights / load_weights, the Keras
layout, exact resumption, ModelCheckpoint and BackupAndRestore."""
import gc
import json
import os

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.saving import hdf5_file
from paddle.highlevel.saving.registry import register_serializable

RNG = np.random.default_rng(0)
X = RNG.standard_normal((48, 6)).astype(np.float32)
Y = RNG.integers(0, 3, 48)


def small_classifier():
    model = pd.Sequential([
        pd.layers.Input(shape=(6,)),
        pd.layers.Dense(12, activation="relu"),
        pd.layers.BatchNormalization(),
        pd.layers.Dropout(0.3),
        pd.layers.Dense(3, activation="softmax"),
    ])
    model.compile(optimizer=pd.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def assert_same_weights(a, b, **tol):
    wa, wb = a.get_weights(), b.get_weights()
    assert len(wa) == len(wb)
    for u, v in zip(wa, wb):
        np.testing.assert_allclose(u, v, **(tol or {"rtol": 1e-6, "atol": 1e-7}))


# ---- round trips ------------------------------------------------------------------------

def test_sequential_round_trip_restores_everything(tmp_path):
    pd.seed(1)
    model = small_classifier()
    model.fit(X, Y, epochs=2, batch_size=16, verbose=0)
    path = tmp_path / "model.h5"
    model.save(path)
    loaded = pd.load_model(path)
    assert type(loaded) is pd.Sequential
    assert [type(l).__name__ for l in loaded.layers] == \
        ["Dense", "BatchNormalization", "Dropout", "Dense"]
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert_same_weights(loaded, model)
    assert loaded.compiled and type(loaded.optimizer) is pd.optimizers.Adam
    assert loaded.optimizer.learning_rate == pytest.approx(0.01)
    assert loaded.optimizer.iterations == model.optimizer.iterations == 6
    for a, b in zip(model.trainable_weights, loaded.trainable_weights):
        for slot in ("m", "v"):
            np.testing.assert_array_equal(model.optimizer.slots(a)[slot],
                                          loaded.optimizer.slots(b)[slot])
    assert loaded.evaluate(X, Y, verbose=0, return_dict=True) == \
        model.evaluate(X, Y, verbose=0, return_dict=True)
    assert loaded._last_finished_epoch == 1


def test_compile_false_gives_an_inference_model(tmp_path):
    model = small_classifier()
    model.save(tmp_path / "m.h5")
    loaded = pd.load_model(tmp_path / "m.h5", compile=False)
    assert not loaded.compiled and loaded.optimizer is None
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    with pytest.raises(ValueError, match="compile"):
        loaded.fit(X, Y, verbose=0)


def test_uncompiled_model_and_include_optimizer_false(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(6,)), pd.layers.Dense(2)])
    model.save(tmp_path / "plain.h5")
    assert not pd.load_model(tmp_path / "plain.h5").compiled
    model.compile(optimizer="sgd", loss="mse")
    model.save(tmp_path / "no_opt.h5", include_optimizer=False)
    with h5py.File(tmp_path / "no_opt.h5", "r") as f:
        assert "training_config" not in f.attrs and "optimizer_weights" not in f


def test_functional_round_trip_with_ops_shared_layers_and_loose_parameters(tmp_path, free_names):
    ids = pd.Input(shape=(5,), dtype="int64", name="sv_ids")
    feats = pd.Input(shape=(6,), name="sv_feats")
    shared = pd.layers.Dense(4, activation="tanh")
    emb = pd.layers.Flatten()(pd.layers.Embedding(10, 3)(ids))
    a, b = shared(feats), shared(feats * 2.0 + 1.0)
    scale = pd.Variable("sv_scale", shape=[4], initializer="ones")
    merged = pd.layers.Concatenate()([pd.relu(a) * scale, b, emb])
    out1 = pd.layers.Dense(2, name="sv_out1")(merged)
    out2 = pd.layers.Dense(1, name="sv_out2")(pd.concat([merged, a], axis=1))
    model = pd.Model(inputs=[ids, feats], outputs=[out1, out2])
    model.compile(optimizer="adam", loss={"sv_out1": "mse", "sv_out2": "mae"},
                  loss_weights={"sv_out1": 1.0, "sv_out2": 0.5}, metrics={"sv_out2": ["mae"]})
    xi = RNG.integers(0, 10, (16, 5))
    ys = [RNG.standard_normal((16, 2)).astype(np.float32),
          RNG.standard_normal((16, 1)).astype(np.float32)]
    model.fit([xi, X[:16]], ys, epochs=1, verbose=0)
    scale.set_value(np.array([1.0, 2.0, 0.5, -1.0], np.float32))
    model.save(tmp_path / "f.h5")
    loaded = pd.load_model(tmp_path / "f.h5")
    assert type(loaded) is pd.Model and len(loaded.inputs) == 2 and len(loaded.outputs) == 2
    for p, q in zip(model.predict([xi, X[:16]]), loaded.predict([xi, X[:16]])):
        np.testing.assert_array_equal(p, q)
    assert_same_weights(model, loaded)
    before = model.evaluate([xi, X[:16]], ys, verbose=0, return_dict=True)
    after = loaded.evaluate([xi, X[:16]], ys, verbose=0, return_dict=True)
    assert sorted(before.values()) == pytest.approx(sorted(after.values()))
    with h5py.File(tmp_path / "f.h5", "r") as f:
        top = f["model_weights/top_level_model_weights"]
        assert hdf5_file.load_attributes(top, "weight_names") == ["sv_scale"]
        config = json.loads(f.attrs["model_config"])
    assert config["class_name"] == "Functional"
    entries = config["config"]["layers"]
    assert sorted(e["name"] for e in entries if e["class_name"] == "InputLayer") == \
        ["sv_feats", "sv_ids"]
    assert config["config"]["input_layers"] == [["sv_ids", 0, 0], ["sv_feats", 0, 0]]
    shared_entry = next(e for e in entries if e["name"] == shared.name)
    assert len(shared_entry["inbound_nodes"]) == 2


def _lambda_model():
    inp = pd.Input(shape=(4,))
    out = pd.layers.Lambda(lambda x, k: x * k, arguments={"k": 3.0})(pd.layers.Dense(3)(inp))
    return pd.Model(inp, out), RNG.standard_normal((2, 4)).astype(np.float32)


def _recurrent_model():
    L = pd.layers
    seq = pd.Input(shape=(5, 3))
    h = L.Bidirectional(L.LSTM(4, return_sequences=True))(seq)
    att = L.MultiHeadAttention(num_heads=2, key_dim=3)(h, h)
    out, state, _ = L.LSTM(3, return_state=True)(att)
    return pd.Model(seq, [out, L.GRU(3)(att, initial_state=[state])]), \
        RNG.standard_normal((2, 5, 3)).astype(np.float32)


def _nested_model():
    inner = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(5, activation="relu")])
    inp = pd.Input(shape=(4,))
    functional = pd.Model(inp, pd.layers.Dense(3)(inner(inp)))
    return pd.Sequential([pd.Input(shape=(4,)), functional, pd.layers.Dense(2)]), \
        RNG.standard_normal((2, 4)).astype(np.float32)


def _conv_model():
    L = pd.layers
    return pd.Sequential([
        pd.Input(shape=(8, 8, 3)), L.Conv2DTranspose(2, 3, strides=2), L.DepthwiseConv2D(3),
        L.AveragePooling2D(2), L.GlobalMaxPooling2D(), L.Reshape((2, 1)), L.Permute((2, 1)),
        L.Flatten(), L.Activation("softmax")]), RNG.standard_normal((2, 8, 8, 3)).astype(
            np.float32)


@pytest.mark.parametrize("suffix", [".h5", ".keras"])
@pytest.mark.parametrize("make", [_lambda_model, _recurrent_model, _nested_model,
                                  _conv_model], ids=["lambda", "recurrent", "nested", "conv"])
def test_layer_catalogue_round_trips(tmp_path, make, suffix):
    model, x = make()
    model.save(tmp_path / f"m{suffix}")
    if make is _lambda_model:  # bytecode: refused unless the caller trusts the file
        with pytest.raises(pd.CheckpointError, match="safe_mode=False"):
            pd.load_model(tmp_path / f"m{suffix}")
    # A Lambda's bytecode loads only when the caller trusts the file (safe_mode=False).
    loaded = pd.load_model(tmp_path / f"m{suffix}", safe_mode=make is not _lambda_model)
    assert [type(l).__name__ for l in loaded.layers] == [type(l).__name__ for l in model.layers]
    want, got = model.predict(x), loaded.predict(x)
    for a, b in zip(want if isinstance(want, list) else [want],
                    got if isinstance(got, list) else [got]):
        np.testing.assert_array_equal(a, b)


class Net(pd.Model):
    def __init__(self, hidden=8, **kwargs):
        super().__init__(**kwargs)
        self.hidden = hidden
        self.body = pd.layers.Dense(hidden, activation="relu")
        self.head = pd.layers.Dense(3, activation="softmax")
        self.gain = pd.Variable("net_gain", shape=[hidden], initializer="ones")

    def call(self, x, training=False):
        return self.head(self.body(x) * self.gain)

    def get_config(self):
        return {**super().get_config(), "hidden": self.hidden}


class Bare(pd.Model):
    def __init__(self):
        super().__init__()
        self.dense = pd.layers.Dense(2)

    def call(self, x, training=False):
        return self.dense(x)


def test_subclassed_model_needs_custom_objects_and_round_trips(tmp_path):
    model = Net(hidden=5)
    model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy")
    model.fit(X, Y, epochs=1, batch_size=16, verbose=0)
    model.save(tmp_path / "net.h5")
    with pytest.raises(pd.CheckpointError, match=r"'Net'.*custom_objects"):
        pd.load_model(tmp_path / "net.h5")
    loaded = pd.load_model(tmp_path / "net.h5", custom_objects={"Net": Net})
    assert type(loaded) is Net and loaded.hidden == 5
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert_same_weights(loaded, model)
    assert loaded.optimizer.iterations == 3

    bare = Bare()
    bare(X[:2])
    bare.save(tmp_path / "bare.h5")
    again = pd.load_model(tmp_path / "bare.h5", custom_objects={"Bare": Bare})
    np.testing.assert_array_equal(again.predict(X), bare.predict(X))


class Scale(pd.layers.Layer):
    def __init__(self, factor=1.0, note="", **kwargs):
        super().__init__(**kwargs)
        self.factor, self.note = factor, note

    def build(self, input_shape):
        self.w = self.add_weight("w", (input_shape[-1],), "ones")

    def call(self, x, training=False):
        return x * self.w * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "note": self.note}


def my_loss(y_true, y_pred):
    return pd.mean(pd.square(y_true - y_pred), axis=-1)


def my_metric(y_true, y_pred):
    return pd.mean(pd.abs(y_true - y_pred), axis=-1)


def test_custom_layer_loss_and_metric_through_custom_objects(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(6,)), Scale(3.0), pd.layers.Dense(2)])
    model.compile(optimizer="sgd", loss=my_loss, metrics=[my_metric])
    y = RNG.standard_normal((48, 2)).astype(np.float32)
    model.fit(X, y, epochs=1, verbose=0)
    model.save(tmp_path / "c.h5")
    with pytest.raises(pd.CheckpointError, match=r"'Scale'.*custom_objects"):
        pd.load_model(tmp_path / "c.h5")
    with pytest.raises(pd.CheckpointError, match=r"my_loss.*custom_objects"):
        pd.load_model(tmp_path / "c.h5", custom_objects={"Scale": Scale})
    inference = pd.load_model(tmp_path / "c.h5", custom_objects={"Scale": Scale},
                              compile=False)
    np.testing.assert_array_equal(inference.predict(X), model.predict(X))
    loaded = pd.load_model(tmp_path / "c.h5", custom_objects={
        "Scale": Scale, "my_loss": my_loss, "my_metric": my_metric})
    assert loaded.layers[0].factor == 3.0
    assert loaded.evaluate(X, y, verbose=0, return_dict=True) == \
        pytest.approx(model.evaluate(X, y, verbose=0, return_dict=True))


def test_registered_class_needs_no_custom_objects(tmp_path):
    @register_serializable
    class SvTwice(pd.layers.Layer):
        def call(self, x, training=False):
            return x * 2.0

    model = pd.Sequential([pd.layers.Input(shape=(6,)), SvTwice(), pd.layers.Dense(2)])
    model.save(tmp_path / "r.h5")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "r.h5").predict(X),
                                  model.predict(X))


def test_large_config_is_split_into_chunks(tmp_path):
    note = "x" * 150_000
    model = pd.Sequential([pd.layers.Input(shape=(6,)), Scale(2.0, note=note)])
    model.save(tmp_path / "big.h5")
    with h5py.File(tmp_path / "big.h5", "r") as f:
        assert "model_config" not in f.attrs and "model_config2" in f.attrs
    loaded = pd.load_model(tmp_path / "big.h5", custom_objects={"Scale": Scale})
    assert loaded.layers[0].note == note


def test_long_name_lists_are_split_as_keras_does(tmp_path):
    names = [f"layer_{i:05d}_" + "n" * 50 for i in range(2500)]
    with h5py.File(tmp_path / "a.h5", "w") as f:
        hdf5_file.save_attributes(f, "names", names)
        assert "names" not in f.attrs and "names0" in f.attrs and "names2" in f.attrs
        assert hdf5_file.load_attributes(f, "names") == names


@pytest.mark.parametrize("make", [
    lambda: pd.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    lambda: pd.optimizers.RMSprop(0.01, momentum=0.5),
    lambda: pd.optimizers.Adagrad(0.1),
    lambda: pd.optimizers.AdamW(0.01, weight_decay=0.01),
    lambda: pd.optimizers.Adam(pd.optimizers.schedules.ExponentialDecay(0.1, 5, 0.5)),
], ids=["sgd", "rmsprop", "adagrad", "adamw", "adam-schedule"])
def test_optimizer_state_round_trips(tmp_path, make):
    model = pd.Sequential([pd.layers.Input(shape=(6,)), pd.layers.Dense(3)])
    model.compile(optimizer=make(), loss="mse")
    y = RNG.standard_normal((48, 3)).astype(np.float32)
    model.train_on_batch(X, y)
    model.train_on_batch(X, y)
    model.save(tmp_path / "o.h5")
    loaded = pd.load_model(tmp_path / "o.h5")
    a, b = model.optimizer, loaded.optimizer
    assert type(a) is type(b) and b.iterations == 2
    assert json.dumps(a.get_config(), sort_keys=True, default=str) == \
        json.dumps(b.get_config(), sort_keys=True, default=str)
    for v, w in zip(model.trainable_weights, loaded.trainable_weights):
        for slot in a.slot_names:
            np.testing.assert_array_equal(a.slots(v)[slot], b.slots(w)[slot])
    model.train_on_batch(X, y)
    loaded.train_on_batch(X, y)
    assert_same_weights(model, loaded)


# ---- the file layout --------------------------------------------------------------------

def test_layout_is_keras_legacy_hdf5(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(8, 8, 3)), pd.layers.Conv2D(4, 3),
                           pd.layers.BatchNormalization(), pd.layers.Flatten(),
                           pd.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.train_on_batch(RNG.standard_normal((4, 8, 8, 3)).astype(np.float32),
                         np.zeros((4, 2), np.float32))
    model.save(tmp_path / "k.h5")
    conv, bn, flat, dense = model.layers
    with h5py.File(tmp_path / "k.h5", "r") as f:
        assert {"model_config", "training_config", "backend", "keras_version"} <= set(f.attrs)
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "Sequential"
        assert [e["class_name"] for e in config["config"]["layers"]] == \
            ["InputLayer", "Conv2D", "BatchNormalization", "Flatten", "Dense"]
        assert config["config"]["layers"][0]["config"]["batch_shape"] == [None, 8, 8, 3]
        training = json.loads(f.attrs["training_config"])
        assert training["loss"] == "mse"
        assert training["optimizer_config"]["class_name"] == "Adam"
        group = f["model_weights"]
        assert hdf5_file.load_attributes(group, "layer_names") == \
            [conv.name, bn.name, flat.name, dense.name]
        names = [hdf5_file.load_attributes(group[l.name], "weight_names") for l in model.layers]
        assert [n.rsplit("/", 1)[1] for n in names[0]] == ["kernel", "bias"]
        assert [n.rsplit("/", 1)[1] for n in names[1]] == \
            ["gamma", "beta", "moving_mean", "moving_variance"]
        assert names[2] == []
        assert group[conv.name][names[0][0]].shape == (3, 3, 3, 4)
        np.testing.assert_array_equal(group[dense.name][names[3][0]][()], dense.kernel.val())
        opt = f["optimizer_weights"]
        opt_names = hdf5_file.load_attributes(opt, "weight_names")
        assert opt_names[0].endswith("iterations") and opt[opt_names[0]][()] == 1
        assert len(opt_names) == 1 + 2 * len(model.trainable_weights)


# ---- save_weights / load_weights --------------------------------------------------------

def test_save_weights_and_load_by_order(tmp_path):
    model = small_classifier()
    model.fit(X, Y, epochs=1, verbose=0)
    model.save_weights(tmp_path / "w.h5")
    with h5py.File(tmp_path / "w.h5", "r") as f:
        assert "model_config" not in f.attrs and "layer_names" in f.attrs
    other = small_classifier()
    other.load_weights(tmp_path / "w.h5")
    np.testing.assert_array_equal(other.predict(X), model.predict(X))
    fresh = small_classifier()
    fresh.load_weights(tmp_path / "w.h5")  # a whole-model file works as well
    model.save(tmp_path / "m.h5")
    fresh.load_weights(tmp_path / "m.h5")
    np.testing.assert_array_equal(fresh.predict(X), model.predict(X))


def _named(units_b):
    return pd.Sequential([pd.layers.Input(shape=(6,)),
                          pd.layers.Dense(4, name="sv_a"),
                          pd.layers.Dense(units_b, name="sv_b"),
                          pd.layers.Dense(2, name="sv_c")])


def test_load_weights_by_name_and_skip_mismatch(tmp_path):
    saved = _named(3)
    saved.save_weights(tmp_path / "w.h5")
    values = {l.name: l.get_weights() for l in saved.layers}
    del saved
    gc.collect()  # layer names are global: free them for the models below

    same = _named(3)
    same.load_weights(tmp_path / "w.h5", by_name=True)
    assert [l.name for l in same.layers] == ["sv_a", "sv_b", "sv_c"]
    np.testing.assert_array_equal(same.get_weights()[-1], values["sv_c"][-1])
    del same
    gc.collect()

    other = _named(5)
    kept = other.get_layer("sv_b").get_weights()
    with pytest.raises(pd.CheckpointError, match="sv_b"):
        other.load_weights(tmp_path / "w.h5", by_name=True)
    with pytest.warns(UserWarning) as record:
        other.load_weights(tmp_path / "w.h5", by_name=True, skip_mismatch=True)
    messages = [str(w.message) for w in record]
    assert len(messages) == 2 and "sv_b" in messages[0] and "sv_c" in messages[1]
    np.testing.assert_array_equal(other.get_layer("sv_a").get_weights()[0], values["sv_a"][0])
    np.testing.assert_array_equal(other.get_layer("sv_b").get_weights()[0], kept[0])
    with pytest.raises(ValueError, match="by_name"):
        other.load_weights(tmp_path / "w.h5", skip_mismatch=True)


# ---- resuming exactly -------------------------------------------------------------------

def _reference(shuffle, epochs=4):
    pd.seed(7)
    model = small_classifier()
    model.fit(X, Y, epochs=epochs, batch_size=16, shuffle=shuffle, verbose=0)
    return model


@pytest.mark.parametrize("shuffle", [False, True])
def test_load_model_then_fit_continues_exactly(tmp_path, shuffle):
    reference = _reference(shuffle)
    pd.seed(7)
    model = small_classifier()
    ckpt = pd.callbacks.ModelCheckpoint(str(tmp_path / "ckpt-{epoch:02d}.h5"))
    model.fit(X, Y, epochs=2, batch_size=16, shuffle=shuffle, verbose=0, callbacks=[ckpt])
    assert sorted(os.listdir(tmp_path)) == ["ckpt-01.h5", "ckpt-02.h5"]
    del model
    pd.seed(12345)  # anything may happen to the random state in between
    pd.lowlevel.random_state.generator().random(100)
    resumed = pd.load_model(tmp_path / "ckpt-02.h5")
    resumed.fit(X, Y, epochs=4, initial_epoch=2, batch_size=16, shuffle=shuffle, verbose=0)
    assert_same_weights(resumed, reference, rtol=1e-5, atol=1e-6)


class _CrashAt(pd.callbacks.Callback):
    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise RuntimeError("simulated crash")


def test_backup_and_restore_resumes_after_a_crash(tmp_path):
    reference = _reference(True)
    backup = pd.callbacks.BackupAndRestore(tmp_path / "backup")
    pd.seed(7)
    model = small_classifier()
    with pytest.raises(RuntimeError, match="simulated crash"):
        model.fit(X, Y, epochs=4, batch_size=16, verbose=0, callbacks=[backup, _CrashAt(2)])
    assert os.path.exists(backup.path)

    pd.seed(99)  # a new run of the same script: other initial weights, same code
    model = small_classifier()
    seen = []
    history = model.fit(X, Y, epochs=4, batch_size=16, verbose=0, callbacks=[
        backup, pd.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: seen.append(e))])
    assert seen == [2, 3] and history.epoch == [2, 3]
    assert_same_weights(model, reference, rtol=1e-5, atol=1e-6)
    assert not os.path.exists(backup.path) and not os.path.exists(tmp_path / "backup")


def test_backup_and_restore_builds_a_subclassed_model_first(tmp_path):
    def run(crash):
        pd.seed(5)
        model = Net(hidden=4)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        callbacks = [pd.callbacks.BackupAndRestore(tmp_path / "b")] + \
            ([_CrashAt(crash)] if crash else [])
        model.fit(X, Y, epochs=3, batch_size=16, verbose=0, callbacks=callbacks)
        return model
    pd.seed(5)
    reference = Net(hidden=4)
    reference.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    reference.fit(X, Y, epochs=3, batch_size=16, verbose=0)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run(crash=2)
    resumed = run(crash=None)  # the model is not built yet when the backup is restored
    assert_same_weights(resumed, reference, rtol=1e-5, atol=1e-6)


def test_backup_is_kept_without_delete_checkpoint(tmp_path):
    backup = pd.callbacks.BackupAndRestore(tmp_path / "b", delete_checkpoint=False)
    model = small_classifier()
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[backup])
    assert os.path.exists(backup.path)
    seen = []
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[
        backup, pd.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: seen.append(e))])
    assert seen == []  # both epochs were done already


# ---- ModelCheckpoint --------------------------------------------------------------------

def test_model_checkpoint_templates_and_best_only(tmp_path):
    pd.seed(3)
    model = small_classifier()
    snapshots = []
    template = str(tmp_path / "all" / "m-{epoch:02d}-{val_loss:.3f}.h5")
    best = pd.callbacks.ModelCheckpoint(str(tmp_path / "best.h5"), monitor="val_loss",
                                        save_best_only=True, save_weights_only=True)
    history = model.fit(X, Y, epochs=4, batch_size=16, verbose=0,
                        validation_data=(X[:16], Y[:16]), callbacks=[
                            pd.callbacks.ModelCheckpoint(template), best,
                            pd.callbacks.LambdaCallback(
                                on_epoch_end=lambda e, logs: snapshots.append(
                                    model.get_weights()))])
    val = history.history["val_loss"]
    files = sorted(os.listdir(tmp_path / "all"))
    assert files == [f"m-{e + 1:02d}-{v:.3f}.h5" for e, v in enumerate(val)]
    last = pd.load_model(tmp_path / "all" / files[-1])
    np.testing.assert_array_equal(last.predict(X), model.predict(X))
    with pytest.raises(pd.CheckpointError, match="load_weights"):
        pd.load_model(tmp_path / "best.h5")  # weights only
    restored = small_classifier()
    restored.load_weights(tmp_path / "best.h5")
    for got, want in zip(restored.get_weights(), snapshots[int(np.argmin(val))]):
        np.testing.assert_array_equal(got, want)


# ---- atomic writes ----------------------------------------------------------------------

def test_failed_save_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    model = small_classifier()
    path = tmp_path / "m.h5"
    model.save(path)
    before = path.read_bytes()
    assert os.listdir(tmp_path) == ["m.h5"]

    def broken(*args):
        raise OSError("disk full")
    monkeypatch.setattr(hdf5_file, "write_weights", broken)
    model.fit(X, Y, epochs=1, verbose=0)
    with pytest.raises(OSError, match="disk full"):
        model.save(path)
    with pytest.raises(OSError, match="disk full"):
        model.save_weights(tmp_path / "new.h5")
    assert os.listdir(tmp_path) == ["m.h5"]
    assert path.read_bytes() == before
    np.testing.assert_array_equal(pd.load_model(path, compile=False).get_weights()[0],
                                  pd.load_model(path).get_weights()[0])


def test_overwrite_false_refuses_an_existing_file(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    model.save(tmp_path / "m.h5")
    with pytest.raises(FileExistsError):
        model.save(tmp_path / "m.h5", overwrite=False)


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_per_output_lists_of_losses_metrics_and_weights_round_trip(tmp_path, suffix):
    # compile(loss=[...], metrics=[[...], ...], loss_weights=[...]) is Keras's multi-output
    # list form; saving it used to fail with "Could not interpret loss ['mse', 'mae']".
    inputs = pd.Input((4,))
    model = pd.Model(inputs, [pd.layers.Dense(2, name="first")(inputs),
                              pd.layers.Dense(1, name="second")(inputs)])
    model.compile(optimizer="adam", loss=["mse", "mae"], metrics=[None, ["mse"]],
                  loss_weights=[1.0, 0.5])
    x = np.random.default_rng(0).random((8, 4)).astype("float32")
    y = [np.zeros((8, 2), "float32"), np.ones((8, 1), "float32")]
    model.fit(x, y, verbose=0)
    model.save(tmp_path / f"m{suffix}")
    loaded = pd.models.load_model(tmp_path / f"m{suffix}")
    assert [type(l).__name__ for l in loaded._loss_arg] == ["MeanSquaredError",
                                                           "MeanAbsoluteError"]
    assert loaded._metrics_arg == [None, ["mse"]] and loaded._loss_weights_arg == [1.0, 0.5]
    expected = model.evaluate(x, y, verbose=0, return_dict=True)
    assert set(expected) == {"loss", "first_loss", "second_loss", "second_mse"}
    got = loaded.evaluate(x, y, verbose=0, return_dict=True)
    assert got == pytest.approx(expected, rel=1e-6)
