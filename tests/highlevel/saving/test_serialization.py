"""Keras 3's serialization API (pd.saving, pd.models, get_config/from_config, to_json,
clone_model) and the `.keras` / `.weights.h5` files, without Keras installed (the files
are checked against real Keras in test_saving_keras.py)."""
import io
import json
import zipfile

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.saving import keras_v3

RNG = np.random.default_rng(0)


def functional():
    a = pd.Input(shape=(4,), name="a")
    b = pd.Input(shape=(2,), name="b")
    h = pd.layers.Concatenate()([pd.layers.Dense(5, activation="relu")(a), b])
    return pd.Model(inputs={"a": a, "b": b},
                    outputs={"y": pd.layers.Dense(3, name="y")(h),
                             "z": pd.layers.Dense(1, name="z")(h)})


def arrays(n=6):
    return {"a": RNG.standard_normal((n, 4)).astype(np.float32),
            "b": RNG.standard_normal((n, 2)).astype(np.float32)}


def copy_weights(src, dst):
    for s, d in zip(src.layers, dst.layers):
        d.set_weights(s.get_weights())


# ---- get_config / from_config / JSON / clone -------------------------------------------

def test_functional_get_config_rebuilds_the_graph(free_names):
    model = functional()
    config = model.get_config()
    assert set(config) >= {"layers", "input_layers", "output_layers"}
    assert config["input_layers"] == {"a": ["a", 0, 0], "b": ["b", 0, 0]}
    rebuilt = pd.Model.from_config(config)
    assert [type(l).__name__ for l in rebuilt.layers] == [type(l).__name__ for l in model.layers]
    copy_weights(model, rebuilt)
    x = arrays()
    want, got = model.predict(x), rebuilt.predict(x)
    assert set(got) == {"y", "z"}
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6)


def test_sequential_from_config_and_json():
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(4, activation="tanh"),
                           pd.layers.Dropout(0.2), pd.layers.Dense(1)])
    again = pd.Sequential.from_config(model.get_config())
    assert [type(l).__name__ for l in again.layers] == ["Dense", "Dropout", "Dense"]
    assert again.outputs[0].shape == (None, 1)
    text = model.to_json()
    spec = json.loads(text)
    assert spec["class_name"] == "Sequential" and spec["module"] == "keras"
    assert spec["config"]["layers"][1]["module"] == "keras.layers"
    from_json = pd.models.model_from_json(text)
    copy_weights(model, from_json)
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(from_json.predict(x), model.predict(x), rtol=1e-6)
    # A Sequential that has no input yet keeps its layers' configs.
    bare = pd.Sequential([pd.layers.Dense(2)])
    assert [e["class_name"] for e in bare.get_config()["layers"]] == ["Dense"]
    assert len(pd.Sequential.from_config(bare.get_config()).layers) == 1


def test_clone_model_makes_new_layers_and_weights():
    pd.seed(0)
    model = functional()
    clone = pd.models.clone_model(model)
    assert all(a is not b for a, b in zip(model.layers, clone.layers))
    assert [type(l).__name__ for l in clone.layers] == [type(l).__name__ for l in model.layers]
    seq = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    shared = pd.models.clone_model(seq, clone_function=lambda layer: layer)
    assert shared.layers[0] is seq.layers[0]
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(shared.predict(x), seq.predict(x))
    on_new = pd.models.clone_model(seq, input_tensors=pd.Input(shape=(3,)))
    assert on_new.outputs[0].shape == (None, 2)
    counted = []
    pd.models.clone_model(model, clone_function=lambda l: counted.append(l.name) or
                          type(l).from_config(l.get_config()))
    assert len(counted) == len(model.layers)


class Twice(pd.Model):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = pd.layers.Dense(units)

    def call(self, x, training=False):
        return self.dense(x) * 2.0

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_clone_and_json_of_a_subclassed_model():
    net = Twice(units=4)
    net(np.ones((1, 3), np.float32))
    clone = pd.models.clone_model(net)
    assert isinstance(clone, Twice) and clone.units == 4
    assert clone.dense.kernel.shape == (3, 4)
    again = pd.models.model_from_json(net.to_json(), custom_objects={"Twice": Twice})
    assert isinstance(again, Twice) and again.dense.kernel.shape == (3, 4)
    with pytest.raises(TypeError, match="unknown class 'Twice'"):
        pd.models.model_from_json(net.to_json())


# ---- registering and serializing objects ------------------------------------------------

@pd.saving.register_keras_serializable(package="Tests")
class ScaleBy(pd.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x, training=False):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def cube(x):
    return x * x * x


def test_register_serialize_deserialize():
    assert pd.saving.get_custom_objects()["Tests>ScaleBy"] is ScaleBy
    assert pd.saving.get_registered_name(ScaleBy) == "Tests>ScaleBy"
    config = pd.saving.serialize_keras_object(ScaleBy(3.0, name="s3"))
    assert config["registered_name"] == "Tests>ScaleBy" and config["config"]["factor"] == 3.0
    layer = pd.saving.deserialize_keras_object(config)
    assert isinstance(layer, ScaleBy) and layer.factor == 3.0
    for value in [(1, 2.0), np.arange(3, dtype=np.int32), [1, "a", None], {"k": (1,)}]:
        back = pd.saving.deserialize_keras_object(json.loads(json.dumps(
            pd.saving.serialize_keras_object(value))))
        if isinstance(value, np.ndarray):
            assert back.dtype == value.dtype and back.tolist() == value.tolist()
        else:
            assert back == value
    loss = pd.saving.deserialize_keras_object(pd.saving.serialize_keras_object(
        pd.losses.SparseCategoricalCrossentropy(from_logits=True)))
    assert type(loss).__name__ == "SparseCategoricalCrossentropy" and loss.from_logits
    opt = pd.saving.deserialize_keras_object(pd.saving.serialize_keras_object(
        pd.optimizers.Adam(learning_rate=0.01)))
    assert type(opt).__name__ == "Adam" and opt.learning_rate == pytest.approx(0.01)
    with pd.saving.custom_object_scope({"cube": cube}):
        assert pd.saving.deserialize_keras_object("cube") is cube
    assert pd.saving.deserialize_keras_object("cube") == "cube"  # unknown outside the scope


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_custom_activations_are_found_in_custom_objects(tmp_path, suffix):
    inp = pd.Input(shape=(3,))
    model = pd.Model(inp, pd.layers.Dense(2, activation=cube)(inp))
    model.save(tmp_path / f"m{suffix}")
    with pytest.raises(pd.CheckpointError, match="cube"):
        pd.load_model(tmp_path / f"m{suffix}")
    loaded = pd.load_model(tmp_path / f"m{suffix}", custom_objects={"cube": cube})
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    with pd.saving.custom_object_scope({"cube": cube}):
        np.testing.assert_allclose(pd.load_model(tmp_path / f"m{suffix}").predict(x),
                                   model.predict(x), rtol=1e-6)


def test_registered_layers_load_without_custom_objects(tmp_path):
    inp = pd.Input(shape=(3,))
    model = pd.Model(inp, ScaleBy(4.0)(pd.layers.Dense(2)(inp)))
    model.save(tmp_path / "s.keras")
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(pd.load_model(tmp_path / "s.keras").predict(x),
                               model.predict(x), rtol=1e-6)


# ---- .keras and .weights.h5 files -------------------------------------------------------

def test_keras_zip_layout(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(4, 3)), pd.layers.LSTM(2),
                           pd.layers.Dense(1)])
    model.compile("adam", "mse", metrics=["mae"])
    model.fit(RNG.standard_normal((8, 4, 3)).astype(np.float32),
              np.ones((8, 1), np.float32), verbose=0)
    model.save(tmp_path / "m.keras")
    zf = zipfile.ZipFile(tmp_path / "m.keras")
    assert sorted(zf.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
    config = json.loads(zf.read("config.json"))
    assert config["compile_config"]["optimizer"]["class_name"] == "Adam"
    assert config["compile_config"]["loss"] == "mse"
    assert json.loads(zf.read("metadata.json"))["keras_version"].startswith("3.")
    with h5py.File(io.BytesIO(zf.read("model.weights.h5")), "r") as f:
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        assert f["layers/lstm/cell/vars/0"].shape == (3, 8)
        assert f["optimizer/vars/0"][()] == 1
    assert names == ["layers/dense/vars/0", "layers/dense/vars/1", "layers/lstm/cell/vars/0",
                     "layers/lstm/cell/vars/1", "layers/lstm/cell/vars/2"] + \
        [f"optimizer/vars/{i}" for i in [0, 1, 10, 11] + list(range(2, 10))]


def test_keras_file_resumes_training_exactly(tmp_path):
    def make():
        pd.seed(1)
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(4, "relu"),
                               pd.layers.Dense(1)])
        model.compile(pd.optimizers.Adam(0.01), "mse")
        return model
    x = RNG.standard_normal((32, 3)).astype(np.float32)
    y = RNG.standard_normal((32, 1)).astype(np.float32)
    straight = make()
    straight.fit(x, y, epochs=4, batch_size=8, verbose=0)
    first = make()
    first.fit(x, y, epochs=2, batch_size=8, verbose=0)
    first.save(tmp_path / "ckpt.keras")
    resumed = pd.load_model(tmp_path / "ckpt.keras")
    assert resumed.optimizer.iterations == 8
    resumed.fit(x, y, epochs=4, initial_epoch=2, batch_size=8, verbose=0)
    np.testing.assert_array_equal(resumed.predict(x), straight.predict(x))


def test_weights_h5_restores_the_optimizer_state(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    model.compile(pd.optimizers.RMSprop(0.01, momentum=0.9), "mse")
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)
    model.fit(x, y, epochs=3, verbose=0)
    model.save_weights(tmp_path / "w.weights.h5")
    other = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    other.compile(pd.optimizers.RMSprop(0.01, momentum=0.9), "mse")
    other.load_weights(tmp_path / "w.weights.h5")
    assert other.optimizer.iterations == 3
    for a, b in zip(model.trainable_weights, other.trainable_weights):
        for slot in ("velocity", "momentum"):
            np.testing.assert_array_equal(model.optimizer.slots(a)[slot],
                                          other.optimizer.slots(b)[slot])
    plain = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    with pytest.raises(ValueError, match="by_name=True matches layers of legacy .h5 files"):
        plain.load_weights(tmp_path / "w.weights.h5", by_name=True)
    plain.load_weights(tmp_path / "w.weights.h5")  # uncompiled: the weights alone
    np.testing.assert_array_equal(plain.get_weights()[0], model.get_weights()[0])
    model.train_on_batch(x, y)
    other.train_on_batch(x, y)
    np.testing.assert_array_equal(model.predict(x), other.predict(x))


# ---- untrusted files --------------------------------------------------------------------

def small_model():
    return pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])


def rewrite(path, out, change):
    members = {n: zipfile.ZipFile(path).read(n) for n in zipfile.ZipFile(path).namelist()}
    change(members)
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_damaged_and_hostile_keras_files_are_refused(tmp_path, monkeypatch):
    model = small_model()
    good = tmp_path / "good.keras"
    model.save(good)
    (tmp_path / "trunc.keras").write_bytes(good.read_bytes()[:100])
    with pytest.raises(pd.CheckpointError, match="truncated or damaged|not an HDF5"):
        pd.load_model(tmp_path / "trunc.keras")
    rewrite(good, tmp_path / "noweights.keras", lambda m: m.pop("model.weights.h5"))
    with pytest.raises(pd.CheckpointError, match="no model.weights.h5"):
        pd.load_model(tmp_path / "noweights.keras")
    rewrite(good, tmp_path / "escape.keras", lambda m: m.update({"../../evil.py": b"x"}))
    with pytest.raises(pd.CheckpointError, match="unsafe member name '../../evil.py'"):
        pd.load_model(tmp_path / "escape.keras")
    monkeypatch.setattr(keras_v3, "MAX_JSON_BYTES", 10)
    with pytest.raises(pd.CheckpointError, match="config.json declares .* over the limit"):
        pd.load_model(good)
    monkeypatch.undo()

    def swap(members, shape=(5, 2)):
        buf = io.BytesIO()
        with h5py.File(buf, "w") as f:
            f["layers/dense/vars/0"] = np.zeros(shape, np.float32)
            f["layers/dense/vars/1"] = np.zeros(2, np.float32)
        members["model.weights.h5"] = buf.getvalue()
    rewrite(good, tmp_path / "shape.keras", swap)
    with pytest.raises(pd.CheckpointError, match=r"expects shape \(3, 2\).*has shape \(5, 2\)"):
        pd.load_model(tmp_path / "shape.keras")
    before = model.get_weights()
    with pytest.raises(pd.CheckpointError, match=r"expects shape"):
        model.load_weights(tmp_path / "shape.keras")
    for a, b in zip(before, model.get_weights()):  # nothing assigned
        np.testing.assert_array_equal(a, b)

    def external(members):
        buf = io.BytesIO()
        with h5py.File(buf, "w") as f:
            f["layers/dense/vars/0"] = h5py.ExternalLink("/etc/passwd", "/x")
            f["layers/dense/vars/1"] = np.zeros(2, np.float32)
        members["model.weights.h5"] = buf.getvalue()
    rewrite(good, tmp_path / "link.keras", external)
    with pytest.raises(pd.CheckpointError, match="external link to '/etc/passwd'"):
        pd.load_model(tmp_path / "link.keras")


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="model_from_json: expected a JSON string"):
        pd.models.model_from_json({"class_name": "Sequential"})
    with pytest.raises(ValueError, match="model_from_json: not valid JSON"):
        pd.models.model_from_json("{nope")
    with pytest.raises(ValueError, match="describes a Dense, not a model"):
        pd.models.model_from_json(json.dumps(pd.saving.serialize_keras_object(
            pd.layers.Dense(2))))
    with pytest.raises(TypeError, match="clone_model: expected a model, received Dense"):
        pd.models.clone_model(pd.layers.Dense(2))
    with pytest.raises(ValueError, match="without '>'"):
        pd.saving.register_keras_serializable(package="a>b")
    with pytest.raises(TypeError, match="unknown class 'Nope'"):
        pd.saving.deserialize_keras_object({"class_name": "Nope", "config": {}})
    with pytest.raises(TypeError, match="save_model: expected a model"):
        pd.saving.save_model("model", "x.keras")
    with pytest.raises(TypeError, match="custom_object_scope: expected dicts"):
        pd.saving.custom_object_scope(["cube"])


def test_regularizers_and_initializers_serialize_as_keras_objects():
    for obj, module in ((pd.regularizers.L1(0.005), "keras.regularizers"),
                        (pd.regularizers.L1L2(l1=1e-5, l2=1e-4), "keras.regularizers"),
                        (pd.initializers.Constant(2.0), "keras.initializers")):
        config = pd.saving.serialize_keras_object(obj)
        assert config["module"] == module and config["class_name"] == type(obj).__name__
        assert config["registered_name"] is None
        again = pd.saving.deserialize_keras_object(config)
        assert type(again) is type(obj) and again.get_config() == obj.get_config()


def test_objects_in_a_custom_layer_config_are_serialized():
    class Holder(pd.layers.Layer):  # Keras's guide: objects in get_config, rebuilt by hand
        def __init__(self, inner=None, reg=None, **kwargs):
            super().__init__(**kwargs)
            self.inner, self.reg = inner, reg

        def get_config(self):
            return {**super().get_config(), "inner": self.inner, "reg": self.reg}

        @classmethod
        def from_config(cls, config):
            config["inner"] = pd.layers.deserialize(config["inner"])
            return cls(**config)

    holder = Holder(pd.layers.Dense(3, name="held"), pd.regularizers.L2(0.5), name="holder")
    config = pd.layers.serialize(holder)
    assert config["config"]["inner"]["class_name"] == "Dense"
    assert config["config"]["reg"] == {"module": "keras.regularizers", "class_name": "L2",
                                       "config": {"l2": 0.5}, "registered_name": None}
    json.dumps(config)
    again = pd.layers.deserialize(config, custom_objects={"Holder": Holder})
    assert type(again.inner) is pd.layers.Dense and again.inner.units == 3
    assert pd.regularizers.get(again.reg).get_config() == {"l2": 0.5}


def test_layers_serialize_and_deserialize_check_their_arguments():
    with pytest.raises(TypeError, match="layers.serialize: expected a layer, received int"):
        pd.layers.serialize(3)
    with pytest.raises(ValueError, match="layers.deserialize: expected a dict with "
                                         "'class_name'"):
        pd.layers.deserialize({"units": 3})
    loss = pd.saving.serialize_keras_object(pd.losses.MeanSquaredError())
    with pytest.raises(ValueError, match="is not a layer"):
        pd.layers.deserialize(loss)
    dense = pd.layers.deserialize(pd.layers.serialize(pd.layers.Dense(2, name="d2")))
    assert dense.get_config()["kernel_regularizer"] is None  # listed, as Keras lists it
