"""Keras 3's saving hooks in `.keras` files: `save_own_variables` / `load_own_variables`,
`save_assets` / `load_assets`, `get_build_config` / `build_from_config` and
`get_compile_config` / `compile_from_config`, run when a layer or model overrides them.

Checked against real Keras 3.15.1 (JAX backend) once: the same `Counted` layer saved by
paddle loads in Keras with its store entry ("seen" = [1, 2, 3]), its asset file and the
same predictions, and Keras's zip holds the asset at `assets/layers/counted/note.txt`, as
paddle's does; Keras restores in the order build_from_config, compile_from_config,
load_own_variables, load_assets (its customizing-saving guide).
"""
import os
import zipfile

import h5py

import numpy as np
import pytest

import paddle as pd
from paddle.errors import CheckpointError

CALLS = []


class Counted(pd.layers.Dense):
    """A Dense layer with state outside its weights, saved through its own store."""

    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.seen = np.zeros(3, np.float32)

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["seen"] = self.seen

    def load_own_variables(self, store):
        CALLS.append("load_own_variables")
        self.seen = np.array(store["seen"])
        for i, v in enumerate(self.weights):
            v.assign(store[f"{i}"])

    def save_assets(self, inner_path):
        with open(os.path.join(inner_path, "note.txt"), "w") as f:
            f.write("hello")

    def load_assets(self, inner_path):
        CALLS.append("load_assets")
        with open(os.path.join(inner_path, "note.txt")) as f:
            self.note = f.read()


class Built(pd.layers.Layer):
    """Built by hand with an extra build argument, as Keras's guide's LayerWithCustomBuild."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape, init):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer=init)
        self.init, self._shape = init, input_shape

    def call(self, x):
        return pd.ops.matmul(x, self.w)

    def get_config(self):
        return dict(units=self.units, **super().get_config())

    def get_build_config(self):
        return {"input_shape": self._shape, "init": self.init}

    def build_from_config(self, config):
        CALLS.append("build_from_config")
        self.build(config["input_shape"], config["init"])


class Compiled(pd.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = pd.layers.Dense(2)

    def call(self, x):
        return self.dense(x)

    def compile(self, optimizer, loss_fn):
        super().compile(optimizer=optimizer, loss=loss_fn)
        self.loss_fn = loss_fn

    def get_compile_config(self):
        return {"opt": self.optimizer, "loss_fn": self.loss_fn}

    def compile_from_config(self, config):
        CALLS.append("compile_from_config")
        self.compile(pd.saving.deserialize_keras_object(config["opt"]), config["loss_fn"])


CUSTOM = {"Counted": Counted, "Built": Built, "Compiled": Compiled}


@pytest.fixture(autouse=True)
def fresh_calls(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    CALLS.clear()


def test_own_variables_and_assets_round_trip():
    model = pd.Sequential([pd.Input((4,)), Counted(2)])
    model.layers[0].seen[:] = [1, 2, 3]
    x = np.ones((2, 4), np.float32)
    model.save("m.keras")
    names = zipfile.ZipFile("m.keras").namelist()
    assert "assets/layers/counted/note.txt" in names                 # Keras's layout
    restored = pd.models.load_model("m.keras", custom_objects=CUSTOM)
    assert restored.layers[0].seen.tolist() == [1, 2, 3]
    assert restored.layers[0].note == "hello"
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0))
    assert CALLS == ["load_own_variables", "load_assets"]            # Keras's order


def test_own_variables_store_holds_the_base_entries_and_the_custom_key(tmp_path):
    model = pd.Sequential([pd.Input((4,)), Counted(2)])
    model.save("m.keras")
    with zipfile.ZipFile("m.keras") as zf, open("w.h5", "wb") as out:
        out.write(zf.read("model.weights.h5"))
    with h5py.File("w.h5") as f:
        assert sorted(f["layers/counted/vars"]) == ["0", "1", "seen"]


def test_load_weights_runs_load_own_variables():
    model = pd.Sequential([pd.Input((4,)), Counted(2)])
    model.layers[0].seen[:] = [7, 8, 9]
    model.save_weights("m.weights.h5")
    other = pd.Sequential([pd.Input((4,)), Counted(2)])
    other.load_weights("m.weights.h5")
    assert other.layers[0].seen.tolist() == [7, 8, 9]
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())


def test_a_bad_store_entry_is_refused_when_saving():
    class Bad(pd.layers.Dense):
        def save_own_variables(self, store):
            store["a/b"] = np.zeros(2)

    model = pd.Sequential([pd.Input((4,)), Bad(2)])
    with pytest.raises(TypeError, match="save_own_variables must use non-empty string keys "
                                        "without '/', received 'a/b'"):
        model.save("bad.keras")


def test_build_from_config_builds_a_layer_before_its_weights_load():
    layer = Built(units=3)
    layer.build((None, 4), "random_normal")    # built by hand: the first call keeps it
    assert layer.built
    model = pd.Sequential([layer, pd.layers.Dense(1)])
    x = np.random.default_rng(0).random((5, 4)).astype("float32")
    y = model.predict(x, verbose=0)
    model.save("b.keras")
    restored = pd.models.load_model("b.keras", custom_objects=CUSTOM)
    assert restored.layers[0].init == "random_normal"
    np.testing.assert_allclose(restored.predict(x, verbose=0), y, rtol=1e-6)  # not fresh
    assert CALLS == ["build_from_config"]


def test_compile_from_config_is_the_models_own():
    model = Compiled()
    model.compile(pd.optimizers.SGD(0.25), "mse")
    model.fit(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32), verbose=0)
    model.save("c.keras")
    restored = pd.models.load_model("c.keras", custom_objects=CUSTOM)
    assert CALLS == ["compile_from_config"]
    assert restored.loss_fn == "mse"
    assert type(restored.optimizer).__name__ == "SGD"
    assert restored.optimizer.learning_rate == pytest.approx(0.25)


def test_a_failing_compile_from_config_names_the_model():
    class Broken(Compiled):
        def compile_from_config(self, config):
            raise ValueError("no such optimizer")

    model = Broken()
    model.compile(pd.optimizers.SGD(0.25), "mse")
    model.fit(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32), verbose=0)
    model.save("broken.keras")
    with pytest.raises(CheckpointError, match=r"Broken.compile_from_config failed "
                                              r"\(ValueError: no such optimizer\)"):
        pd.models.load_model("broken.keras", custom_objects={"Broken": Broken})
    assert pd.models.load_model("broken.keras", custom_objects={"Broken": Broken},
                                compile=False).optimizer is None
