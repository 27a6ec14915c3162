"""Bad checkpoints and models that cannot be saved: clear errors, nothing half-loaded."""
import os

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.saving import api as saving

X = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)


def mlp(units=3, depth=2):
    layers = [pd.layers.Input(shape=(4,))] + [pd.layers.Dense(units) for _ in range(depth)]
    return pd.Sequential(layers)


@pytest.fixture
def saved(tmp_path):
    model = mlp()
    model.compile(optimizer="adam", loss="mse")
    model.save(tmp_path / "model.h5")
    model.save_weights(tmp_path / "weights.h5")
    return tmp_path


LOADERS = {"load_model": lambda path: pd.load_model(path),
           "load_weights": lambda path: mlp().load_weights(path)}


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
def test_missing_file(tmp_path, load):
    with pytest.raises(pd.CheckpointError, match="no checkpoint file at .*nope.h5"):
        load(tmp_path / "nope.h5")
    with pytest.raises(pd.CheckpointError, match="is a folder"):
        load(tmp_path)


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
def test_not_hdf5(tmp_path, load):
    path = tmp_path / "notes.h5"
    path.write_text("these are not weights\n" * 50)
    with pytest.raises(pd.CheckpointError, match="not an HDF5 file"):
        load(path)
    (tmp_path / "empty.h5").write_bytes(b"")
    with pytest.raises(pd.CheckpointError, match="not an HDF5 file"):
        load(tmp_path / "empty.h5")


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
def test_a_missing_file_is_a_file_not_found_error(tmp_path, load):
    # `except FileNotFoundError` catches it, as for any missing file; it is a CheckpointError
    # too.
    with pytest.raises(FileNotFoundError, match="no checkpoint file at .*nope.keras") as info:
        load(tmp_path / "nope.keras")
    assert isinstance(info.value, pd.CheckpointError)


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
@pytest.mark.parametrize("name, data, found", [
    ("garbage.keras", b"garbage", r"is not a \.keras file \(a zip archive\) nor an HDF5 file: "
                                  r"it holds text \('garbage'\)"),
    ("notes.h5", b"these are not weights\n", r"is not an HDF5 file: it holds text "
                                             r"\('these are not weights'\)"),
    ("empty.keras", b"", r"nor an HDF5 file: it holds nothing \(an empty file\)"),
    ("config.h5", b'{"class_name": "Sequential"}', r"it holds JSON text"),
    ("cut.keras", b"PK\x03\x04" + bytes(60), r"it holds the start of a zip archive, truncated "
                                               r"or damaged"),
    ("array.h5", b"\x93NUMPY\x01\x00", r"it holds a NumPy \.npy array"),
    ("blob.keras", bytes(range(200, 256)), r"it holds 56 bytes of an unknown format"),
])
def test_a_file_of_another_format_is_named_for_what_it_holds(tmp_path, load, name, data, found):
    # load_model("garbage.keras") used to say "not an HDF5 file (model.save and
    # model.save_weights write HDF5)", though model.save("m.keras") writes a zip.
    (tmp_path / name).write_bytes(data)
    with pytest.raises(pd.CheckpointError, match=found) as info:
        load(tmp_path / name)
    message = str(info.value)
    assert name in message and "model.save('m.keras') writes a .keras zip" in message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
def test_a_pipe_is_refused_without_reading_it(tmp_path, load):
    # Reading a pipe to say what it holds would wait for a writer forever.
    os.mkfifo(tmp_path / "pipe.keras")
    with pytest.raises(pd.CheckpointError, match=r"pipe.keras' is not a \.keras file .*: it is "
                                                 r"a pipe, a socket or a device"):
        load(tmp_path / "pipe.keras")


@pytest.mark.parametrize("name", ["model", "model.weights", "model.txt", "model.keras.bak"])
def test_save_without_a_known_extension_raises_as_keras_3_does(tmp_path, name):
    # model.save("model_noext") silently wrote HDF5; Keras 3 raises ValueError.
    with pytest.raises(ValueError, match=rf"^model\.save: expected a file name ending in "
                                         rf"\.keras .* or \.h5 / \.hdf5 .*received "
                                         rf"filepath='.*{name}'"):
        mlp().save(tmp_path / name)
    with pytest.raises(ValueError, match="model.save: expected a file name ending in .keras"):
        pd.saving.save_model(mlp(), str(tmp_path / name))
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_save_with_a_known_extension_writes_that_format(tmp_path):
    model = mlp()
    for name in ("m.keras", "m.h5", "m.hdf5"):
        model.save(tmp_path / name)
        np.testing.assert_allclose(pd.load_model(tmp_path / name).predict(X), model.predict(X))
    assert h5py.is_hdf5(tmp_path / "m.hdf5") and not h5py.is_hdf5(tmp_path / "m.keras")


def test_model_checkpoint_refuses_a_model_file_name_without_a_known_extension(tmp_path):
    # As Keras 3, when the callback is made, not after the first epoch's training.
    with pytest.raises(ValueError, match="^ModelCheckpoint: expected a file name ending in "
                                         r"\.keras"):
        pd.callbacks.ModelCheckpoint(str(tmp_path / "ckpt-{epoch}"))
    pd.callbacks.ModelCheckpoint(str(tmp_path / "ckpt-{epoch}.keras"))
    pd.callbacks.ModelCheckpoint(str(tmp_path / "ckpt-{epoch}"), save_weights_only=True)


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
@pytest.mark.parametrize("keep", [0.2, 0.6, 0.95])
def test_truncated_file(saved, load, keep):
    data = (saved / "model.h5").read_bytes()
    path = saved / "cut.h5"
    path.write_bytes(data[:int(len(data) * keep)])
    with pytest.raises(pd.CheckpointError, match="cut.h5"):
        load(path)


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
def test_foreign_hdf5_file(tmp_path, load):
    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("images", data=np.zeros((3, 2)))
        f.attrs["creator"] = "a microscope"
    with pytest.raises(pd.CheckpointError, match="model.save"):
        load(path)


def test_model_config_without_weights(tmp_path):
    path = tmp_path / "half.h5"
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = '{"class_name": "Sequential", "config": {"layers": []}}'
    with pytest.raises(pd.CheckpointError, match="no model weights"):
        pd.load_model(path)


def test_garbled_model_config(tmp_path):
    path = tmp_path / "garbled.h5"
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = "{not json"
        f.create_group("model_weights")
    with pytest.raises(pd.CheckpointError, match="garbled.h5"):
        pd.load_model(path)
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = '{"class_name": "Functional", "config": {"layers": ' \
                                  '[{"class_name": "Dense", "name": "d", "config": {}}]}}'
        f.create_group("model_weights")
    with pytest.raises(pd.CheckpointError, match="Dense"):
        pd.load_model(path)


def test_weights_file_given_to_load_model(saved):
    with pytest.raises(pd.CheckpointError, match="no model_config.*load_weights"):
        pd.load_model(saved / "weights.h5")


def test_shape_mismatch_names_the_layer_and_both_shapes(saved):
    model = mlp(units=5)
    first = model.layers[0]
    with pytest.raises(pd.CheckpointError) as info:
        model.load_weights(saved / "weights.h5")
    message = str(info.value)
    assert first.name in message and "(4, 5)" in message and "(4, 3)" in message


def test_nothing_is_assigned_when_a_later_layer_does_not_fit(saved):
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3),
                           pd.layers.Dense(7)])
    before = model.get_weights()
    with pytest.raises(pd.CheckpointError, match=r"\(3, 7\).*\(3, 3\)"):
        model.load_weights(saved / "weights.h5")
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_layer_count_mismatch(saved):
    model = mlp(depth=3)
    before = model.get_weights()
    with pytest.raises(pd.CheckpointError, match="layer count mismatch.*2 layers.*3 layers"):
        model.load_weights(saved / "model.h5")
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_weight_count_mismatch(saved):
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3, use_bias=False),
                           pd.layers.Dense(3)])
    with pytest.raises(pd.CheckpointError, match="1 weights, the file holds 2"):
        model.load_weights(saved / "weights.h5")


def test_unbuilt_model_cannot_take_weights(saved):
    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(3)

        def call(self, x, training=False):
            return self.dense(x)
    with pytest.raises(pd.CheckpointError, match="layer count mismatch"):
        Net().load_weights(saved / "weights.h5")
    with pytest.raises(ValueError, match="not been called"):
        Net().save(saved / "net.h5")


def test_unknown_custom_class_names_it(tmp_path):
    class Mystery(pd.layers.Layer):
        def call(self, x, training=False):
            return x + 1.0
    pd.Sequential([pd.layers.Input(shape=(4,)), Mystery()]).save(tmp_path / "m.h5")
    with pytest.raises(pd.CheckpointError, match=r"'Mystery'.*custom_objects=\{'Mystery'"):
        pd.load_model(tmp_path / "m.h5")


def test_custom_class_whose_config_lacks_arguments(tmp_path):
    class NeedsUnits(pd.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def call(self, x, training=False):
            return x * float(self.units)
    pd.Sequential([pd.layers.Input(shape=(4,)), NeedsUnits(2)]).save(tmp_path / "m.h5")
    with pytest.raises(pd.CheckpointError, match="NeedsUnits.*get_config"):
        pd.load_model(tmp_path / "m.h5", custom_objects={"NeedsUnits": NeedsUnits})


def test_config_that_json_cannot_hold(tmp_path):
    class Holder(pd.layers.Layer):
        def call(self, x, training=False):
            return x

        def get_config(self):
            return {**super().get_config(), "thing": object()}
    model = pd.Sequential([pd.layers.Input(shape=(4,)), Holder()])
    with pytest.raises(TypeError, match="holder.*get_config"):
        model.save(tmp_path / "h.h5")
    assert not list(tmp_path.iterdir())


def test_optimizer_state_that_does_not_fit(tmp_path):
    adam = mlp()
    adam.compile(optimizer="adam", loss="mse")
    adam.train_on_batch(X, np.zeros((8, 3), np.float32))
    adam.save(tmp_path / "adam.h5")
    model = mlp()
    model.compile(optimizer="sgd", loss="mse")
    before = model.get_weights()
    with pytest.raises(pd.CheckpointError, match="optimizer state.*SGD"):
        saving.restore_training_state(model, tmp_path / "adam.h5")
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_sequential_without_input_cannot_be_saved(tmp_path):
    with pytest.raises(ValueError, match="no input shape"):
        pd.Sequential([pd.layers.Dense(2)]).save(tmp_path / "s.h5")
