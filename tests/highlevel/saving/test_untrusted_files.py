"""Untrusted files, part 2: what a crafted HDF5 file can make paddle read or allocate.

Every loader (load_model, load_weights, restoring a backup, the Trainer's and the
Inferencer's parameters) reads through paddle/highlevel/hdf5_reader.py, which refuses
external storage, virtual datasets and links, and reads a dataset only once its shape is
what the model expects. Each crafted file is built here with h5py; the memory probes run
in a fresh interpreter under an address-space limit."""
import os

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.saving import hdf5_reader
from paddle.lowlevel.graph import fresh_names
from untrusted import edit_model_config, layer_entries, run_probe

GIB = 1 << 30
KERNEL = "model_weights/dense/dense/kernel"   # (3, 2) float32 in model_file()
SECRET = b"root:x:0:0:secret-bytes-of-another-file"


def small_model():
    """Input(3) -> Dense(2) named "dense" whatever else is alive (a fresh name registry)."""
    with fresh_names():
        return pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2, name="dense")])


def model_file(tmp_path, name="model.h5"):
    model = small_model()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), verbose=0)
    path = tmp_path / name
    model.save(path)
    return path


def drop_checksums(f):
    for obj in (f, f.get("model_weights")):
        for key in ("paddle_checksum", "paddle_weights_checksum"):
            if obj is not None and key in obj.attrs:
                del obj.attrs[key]


def replace(path, name, make):
    """Put make(parent group, dataset name) in place of the dataset `name`, checksums
    deleted (files without them load, as Keras's must)."""
    with h5py.File(path, "r+") as f:
        parent, base = f[os.path.dirname(name)], os.path.basename(name)
        del parent[base]
        make(parent, base)
        drop_checksums(f)


def secret_file(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_bytes(SECRET.ljust(24, b"\0"))
    return str(path)


def other_hdf5(tmp_path):
    path = str(tmp_path / "other.h5")
    with h5py.File(path, "w") as f:
        f["data"] = np.full((3, 2), 7.0, np.float32)
    return path


# Each crafting makes the kernel's bytes come from outside the file.
def _external_storage(tmp_path):
    secret = secret_file(tmp_path)
    return lambda g, n: g.create_dataset(n, shape=(3, 2), dtype="float32",
                                         external=[(secret, 0, 24)]), "external files"


def _external_link(tmp_path):
    other = other_hdf5(tmp_path)
    return lambda g, n: g.__setitem__(n, h5py.ExternalLink(other, "/data")), "external link"


def _soft_link(tmp_path):
    def make(g, n):
        g["hidden"] = np.full((3, 2), 5.0, np.float32)
        g[n] = h5py.SoftLink(g.name + "/hidden")
    return make, "soft link"


def _virtual(tmp_path):
    other = other_hdf5(tmp_path)

    def make(g, n):
        layout = h5py.VirtualLayout(shape=(3, 2), dtype="float32")
        layout[:] = h5py.VirtualSource(other, "data", shape=(3, 2))
        g.create_virtual_dataset(n, layout)
    return make, "virtual dataset"


def _external_link_to_group(tmp_path):
    other = other_hdf5(tmp_path)

    def make(g, n):
        parent = g.parent
        del parent["dense"]
        parent["dense"] = h5py.ExternalLink(other, "/")
    return make, "external link"


CRAFTED = {"external-storage": _external_storage, "external-link": _external_link,
           "soft-link": _soft_link, "virtual-dataset": _virtual,
           "external-link-to-a-group": _external_link_to_group}

LOADERS = {
    "load_model": lambda path: pd.load_model(path),
    "load_model-no-compile": lambda path: pd.load_model(path, compile=False),
    "load_weights": lambda path: small_model().load_weights(path),
    "load_weights-by-name": lambda path: small_model().load_weights(path, by_name=True),
}


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("craft", sorted(CRAFTED))
def test_checkpoints_never_read_other_files(tmp_path, craft, loader):
    path = model_file(tmp_path)
    make, message = CRAFTED[craft](tmp_path)
    replace(path, KERNEL, make)
    with pytest.raises(pd.CheckpointError, match=message):
        LOADERS[loader](path)


def test_restoring_a_backup_never_reads_other_files(tmp_path):
    model = small_model()
    model.compile(optimizer="sgd", loss="mse")
    backup = pd.callbacks.BackupAndRestore(str(tmp_path / "backup"), delete_checkpoint=False)
    x, y = np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)
    model.fit(x, y, epochs=1, verbose=0, callbacks=[backup])
    make, _ = _external_storage(tmp_path)
    replace(backup.path, KERNEL, make)
    with pytest.raises(pd.CheckpointError, match="external files"):
        model.fit(x, y, epochs=2, verbose=0, callbacks=[backup])


def test_optimizer_slots_never_read_other_files(tmp_path):
    path = model_file(tmp_path)
    with h5py.File(path, "r") as f:
        slot = next(f"optimizer_weights/{n}" for n in saving_reader_names(f["optimizer_weights"])
                    if n.endswith("kernel_m"))
    make, _ = _external_storage(tmp_path)
    replace(path, slot, make)
    for compile in (True, False):  # a file that tries it is refused whole
        with pytest.raises(pd.CheckpointError, match="external files"):
            pd.load_model(path, compile=compile)


def saving_reader_names(group):
    from paddle.highlevel.saving.hdf5_file import load_attributes
    return load_attributes(group, "weight_names")


def test_an_unchanged_file_still_loads_and_checksums_still_catch_damage(tmp_path):
    path = model_file(tmp_path)
    loaded = pd.load_model(path)
    assert loaded.get_weights()[0].shape == (3, 2)
    with h5py.File(path, "r+") as f:
        f[KERNEL][0, 0] += 1.0
    with pytest.raises(pd.CheckpointError, match="does not match the checksum"):
        pd.load_model(path)


# ---- the Trainer's and the Inferencer's parameters --------------------------------------

def infer_net():
    x = pd.data("x", shape=[None, 4])
    return pd.fc(pd.fc(x, size=8, act="tanh"), size=3, act="softmax")


def train_net():
    y = pd.data("y", shape=[None], dtype="int64")
    return [pd.mean(pd.cross_entropy(infer_net(), y))]


def saved_params(tmp_path):
    pd.seed(0)
    trainer = pd.Trainer(train_net, lambda: pd.optimizers.SGD(0.1))
    folder = tmp_path / "params"
    trainer.save_params(str(folder))
    return folder, folder / "params.h5"


@pytest.mark.parametrize("craft", sorted(set(CRAFTED) - {"external-link-to-a-group"}))
def test_trainer_parameters_never_read_other_files(tmp_path, craft):
    folder, path = saved_params(tmp_path)
    make, message = CRAFTED[craft](tmp_path)
    with h5py.File(path, "r+") as f:
        del f["fc_1/b"]
        if craft in ("external-storage", "virtual-dataset"):
            make = _resized(make, craft, tmp_path)
        make(f["fc_1"], "b")
    with pytest.raises(pd.CheckpointError, match=message):
        pd.Inferencer(infer_net, str(folder))
    with pytest.raises(pd.CheckpointError, match=message):
        pd.Trainer(train_net, lambda: pd.optimizers.SGD(0.1), param_path=str(folder))


def _resized(make, craft, tmp_path):
    """The same crafting for fc_1/b, of shape (3,)."""
    if craft == "external-storage":
        secret = secret_file(tmp_path)
        return lambda g, n: g.create_dataset(n, shape=(3,), dtype="float32",
                                             external=[(secret, 0, 12)])
    other = str(tmp_path / "other3.h5")
    with h5py.File(other, "w") as f:
        f["data"] = np.ones(3, np.float32)

    def virtual(g, n):
        layout = h5py.VirtualLayout(shape=(3,), dtype="float32")
        layout[:] = h5py.VirtualSource(other, "data", shape=(3,))
        g.create_virtual_dataset(n, layout)
    return virtual


def test_load_params_checks_everything_before_assigning_anything(tmp_path):
    folder, path = saved_params(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["fc_1/w"]
        f["fc_1/w"] = np.ones((8, 3), np.complex64)    # the last parameter: wrong dtype
        f["fc_0/w"][...] = 9.0                         # the first: would be assigned first
    pd.seed(1)
    trainer = pd.Trainer(train_net, lambda: pd.optimizers.SGD(0.1))
    from paddle.highlevel.training.event_trainer import _parameters, load_params
    params = _parameters(trainer.outputs)
    assert [p.name for p in params][0] == "fc_0/w"
    before = [p.val().copy() for p in params]
    with pytest.raises(pd.CheckpointError, match="fc_1/w.*complex64"):
        load_params(params, str(folder))
    for p, value in zip(params, before):
        np.testing.assert_array_equal(p.val(), value)


def test_load_params_refuses_a_string_dataset(tmp_path):
    folder, path = saved_params(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["fc_0/b"]
        f["fc_0/b"] = np.array([b"a"] * 8)
    with pytest.raises(pd.CheckpointError, match="fc_0/b.*not plain numbers"):
        pd.Inferencer(infer_net, str(folder))


# ---- sizes: checked before a byte is read -----------------------------------------------

def huge_gzip(group, name):
    """A (40000, 40000) float32 dataset (6.4 GB) in a file of a few KB: gzip chunks never
    written read back as zeros."""
    group.create_dataset(name, shape=(40000, 40000), dtype="float32", chunks=(1000, 1000),
                         compression="gzip")


def test_a_huge_declared_dataset_is_refused_before_it_is_read(tmp_path):
    path = model_file(tmp_path)
    replace(path, KERNEL, huge_gzip)
    assert os.path.getsize(path) < 1 << 20
    for loader in ("load_model", "load_weights"):
        out = run_probe(f"""
            import numpy as np
            path = {str(path)!r}
            def load():
                if {loader!r} == "load_model":
                    pd.load_model(path)
                else:
                    pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2, name="dense")]
                                  ).load_weights(path)
            expect_checkpoint_error(load)
        """, limit=3 * GIB)
        assert "CheckpointError" in out and "(40000, 40000)" in out, out


def test_skipped_layers_are_hashed_without_room_for_them(tmp_path):
    """by_name with skip_mismatch skips a layer whose weights do not fit; the file's
    checksum still covers it, and is computed a block at a time."""
    model = small_model()
    path = tmp_path / "w.h5"
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        del f["dense/dense/kernel"]
        f.create_dataset("dense/dense/kernel", shape=(3000, 2000), dtype="float32",
                         chunks=(100, 2000), compression="gzip")
    out = run_probe(f"""
        import warnings
        warnings.simplefilter("ignore")
        m = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2, name="dense")])
        expect_checkpoint_error(lambda: m.load_weights({str(path)!r}, by_name=True,
                                                       skip_mismatch=True))
    """, limit=3 * GIB)
    assert "does not match the checksum" in out, out


def test_the_inferencer_reads_only_the_datasets_it_uses(tmp_path):
    folder, path = saved_params(tmp_path)
    secret = secret_file(tmp_path)
    with h5py.File(path, "r+") as f:
        huge_gzip(f, "unused/huge")
        f.create_dataset("unused/elsewhere", shape=(6,), dtype="float32",
                         external=[(secret, 0, 24)])
    out = run_probe(f"""
        import numpy as np
        def infer_net():
            x = pd.data("x", shape=[None, 4])
            return pd.fc(pd.fc(x, size=8, act="tanh"), size=3, act="softmax")
        inferencer = pd.Inferencer(infer_net, {str(folder)!r})
        print("shape", inferencer.infer({{"x": np.ones((2, 4), np.float32)}}).shape)
    """, limit=3 * GIB)
    assert "shape (2, 3)" in out, out


@pytest.mark.parametrize("entry, value", [
    ("units", 400_000_000),
    ("units", 10 ** 15),
])
def test_config_sizes_beyond_memory_are_checkpoint_errors(tmp_path, entry, value):
    path = model_file(tmp_path)

    def edit(config):
        for layer in layer_entries(config):
            if layer["class_name"] == "Dense":
                layer["config"][entry] = value
    edit_model_config(path, edit)
    out = run_probe(f"""
        expect_checkpoint_error(lambda: pd.load_model({str(path)!r}))
    """, limit=3 * GIB)
    assert "CheckpointError" in out and "memory" in out, out


def test_many_layers_that_fit_one_by_one_but_not_together(tmp_path):
    model = pd.Sequential([pd.Input(shape=(3,))] +
                          [pd.layers.Dense(3, name=f"d{i}") for i in range(8)])
    path = tmp_path / "many.h5"
    model.save(path)

    def edit(config):
        for layer in layer_entries(config):
            if layer["class_name"] == "Dense":
                layer["config"]["units"] = 6000   # 6000 x 6000 float32: 144 MB each
    edit_model_config(path, edit)
    out = run_probe(f"""
        from paddle.lowlevel import shapes
        shapes.memory_bytes = lambda: 400 << 20   # as if this machine had 400 MB
        expect_checkpoint_error(lambda: pd.load_model({str(path)!r}))
    """, limit=3 * GIB)
    assert "CheckpointError" in out and "on top of" in out, out


@pytest.mark.parametrize("layer, key, value", [
    ("Embedding", "input_dim", 10 ** 12),
    ("Embedding", "output_dim", 10 ** 12),
    ("Conv2D", "filters", 10 ** 12),
    ("Conv2D", "kernel_size", [100000, 100000]),
])
def test_other_allocation_sizes_in_configs(tmp_path, layer, key, value):
    L = pd.layers
    first = {"Embedding": (pd.Input(shape=(4,), dtype="int64"), L.Embedding(10, 4)),
             "Conv2D": (pd.Input(shape=(8, 8, 2)), L.Conv2D(2, 3))}[layer]
    path = tmp_path / "m.h5"
    pd.Sequential(list(first)).save(path)

    def edit(config):
        for entry in layer_entries(config):
            if entry["class_name"] == layer:
                entry["config"][key] = value
    edit_model_config(path, edit)
    out = run_probe(f"""
        expect_checkpoint_error(lambda: pd.load_model({str(path)!r}))
    """, limit=3 * GIB)
    assert "CheckpointError" in out, out


def test_the_reader_finds_names_through_hard_links_only(tmp_path):
    path = str(tmp_path / "x.h5")
    other = other_hdf5(tmp_path)
    with h5py.File(path, "w") as f:
        f["a/b"] = np.ones(2, np.float32)
        f["ext"] = h5py.ExternalLink(other, "/")
    with hdf5_reader.open_file(path) as f:
        assert hdf5_reader.find(f, "a/c", path) is None
        assert hdf5_reader.read(hdf5_reader.dataset(f, "/a/b", path), (2,), path).sum() == 2
        with pytest.raises(pd.CheckpointError, match="external link"):
            hdf5_reader.find(f, "ext/data", path)
        assert hdf5_reader.dataset_names(f, 10) == ["a/b"]
        with pytest.raises(pd.CheckpointError, match=r"has shape \(2,\), expected \(3,\)"):
            hdf5_reader.read(f["a/b"], (3,), path)


def test_blocks_cut_a_dataset_in_order_within_the_limit(tmp_path):
    from paddle.highlevel.saving import hdf5_file
    path = str(tmp_path / "b.h5")
    values = np.arange(50 * 7 * 3, dtype=np.float32).reshape(50, 7, 3)
    with h5py.File(path, "w") as f:
        f["v"] = values
        f["w"] = np.arange(500, dtype=np.int64)
    with hdf5_reader.open_file(path) as f:
        for name, limit in (("v", 64), ("v", 10), ("w", 80)):
            blocks = list(hdf5_reader.blocks(f[name], path, limit=limit))
            assert len(blocks) > 1
            assert all(b.nbytes <= max(limit, f[name].dtype.itemsize * 3) for b in blocks)
            np.testing.assert_array_equal(
                np.concatenate([b.ravel() for b in blocks]), f[name][()].ravel())
        # The checksum of a dataset hashed a block at a time is the one of its array.
        layers = [("layer", [("v", f["v"]), ("w", f["w"])])]
        arrays = [("layer", [("v", values), ("w", f["w"][()])])]
        assert hdf5_file._digest_weights(layers, []) == \
            hdf5_file._digest_weights(arrays, [])


# ---- crafted op attributes in a functional config ---------------------------------------

def functional_file(tmp_path):
    inp = pd.Input(shape=(4,))
    h = pd.layers.Dense(4)(inp)
    h = pd.cast(pd.cast(h, "float64"), "float32")
    out = pd.layers.Dense(2)(pd.sum(pd.reshape(h, (-1, 2, 2)), axis=2))
    path = tmp_path / "f.h5"
    pd.Model(inp, out).save(path)
    return path


@pytest.mark.parametrize("op, key, value", [
    ("cast", "dtype", "abc"), ("cast", "dtype", 1.5), ("cast", "dtype", [1, "x"]),
    ("cast", "dtype", {"a": 1}), ("cast", "dtype", "int16"), ("cast", "dtype", "object"),
    ("cast", "bogus", 1), ("reshape", "shape", {"__tuple__": 5}),
    ("reshape", "shape", {"__ndarray__": [1, 2], "dtype": "object"}),
    ("reshape", "shape", {"__ndarray__": "x", "dtype": "int64"}),
    ("sum", "axis", "abc"), ("sum", "axis", 10 ** 30), ("sum", "axis", 5),
])
def test_crafted_op_attributes_are_checkpoint_errors(tmp_path, op, key, value):
    path = functional_file(tmp_path)

    def edit(config):
        entry = next(e for e in layer_entries(config)
                     if e["class_name"] == "__paddle_op__" and e["config"]["op"] == op)
        entry["config"]["attrs"][key] = value
    edit_model_config(path, edit)
    with pytest.raises(pd.CheckpointError, match=f"op '__op\\d+_{op}' \\({op}\\)"):
        pd.load_model(path).predict(np.ones((2, 4), np.float32), verbose=0)


def test_an_unchanged_functional_file_loads(tmp_path):
    path = functional_file(tmp_path)
    assert pd.load_model(path).predict(np.ones((2, 4), np.float32), verbose=0).shape == (2, 2)
