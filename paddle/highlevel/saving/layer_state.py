"""Keras 3's per-layer saving hooks in `.keras` files: a layer's own state through its
`save_own_variables(store)` / `load_own_variables(store)` when it overrides them, and its
files through `save_assets(dir)` / `load_assets(dir)` when it has them.

A layer that overrides neither variable hook is saved by the weight table of
`keras_v3.weight_entries` (the same datasets the base hooks write: "0", "1", ...); one that
overrides them gets its `vars` group written from, and read into, a dict store, as Keras's
H5 store (`store["0"]`, `store["my_key"]`, `store.keys()`). Assets live in the zip under
`assets/<the layer's path>/`, Keras's layout. When a model is restored the hooks run in
Keras's order: build_from_config, compile_from_config, load_own_variables, load_assets.

Example:
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> class Counter(pd.layers.Layer):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.seen = np.zeros(2, np.int64)
    ...     def call(self, x):
    ...         return x
    ...     def save_own_variables(self, store):
    ...         store["seen"] = self.seen
    ...     def load_own_variables(self, store):
    ...         self.seen = np.array(store["seen"])
    >>> model = pd.Sequential([pd.Input((2,)), Counter(name="counter")])
    >>> model.layers[0].seen[:] = [3, 4]
    >>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
    >>> model.save(path)
    >>> pd.models.load_model(path, custom_objects={"Counter": Counter}).layers[0].seen
    array([3, 4])
"""
import os
import shutil
import tempfile

import numpy as np

from paddle.errors import CheckpointError
from paddle.lowlevel.graph import Variable
from paddle.highlevel.layers.base import Layer
from paddle.highlevel.saving import hdf5_reader

ASSETS = "assets"
MAX_ASSET_BYTES = 1 << 30  # all the asset files of one .keras file together


def overrides_variable_hooks(layer):
    """Whether the layer's class overrides save_own_variables or load_own_variables."""
    cls = type(layer)
    return cls.save_own_variables is not Layer.save_own_variables or \
        cls.load_own_variables is not Layer.load_own_variables


def has_assets(layer):
    return callable(getattr(layer, "save_assets", None)) or \
        callable(getattr(layer, "load_assets", None))


class OwnState:
    """The `vars` group of a layer that saves its own state (in a weight table, where the
    other entries are Variables)."""

    def __init__(self, layer):
        self.layer = layer
        self.name = layer.name

    def numbers(self):
        """About how many numbers its store holds: its weights and the arrays it holds as
        attributes (a bound for reading the file, not an exact count)."""
        found = sum(int(np.prod(w.shape)) for w in self.layer.weights)
        for value in vars(self.layer).values():
            if isinstance(value, Variable) and all(d is not None for d in value.shape):
                found += int(np.prod(value.shape))
            elif isinstance(value, np.ndarray):
                found += value.size
        return found

    def save(self, group):
        """[(dataset path, array)] of what save_own_variables writes into its store."""
        store = {}
        self.layer.save_own_variables(store)
        out = []
        for key, value in store.items():
            if not isinstance(key, str) or not key or "/" in key:
                raise TypeError(f"{self.name}: save_own_variables must use non-empty string "
                                f"keys without '/', received {key!r}")
            array = np.asarray(value.val() if isinstance(value, Variable) else value)
            if array.dtype.kind not in "biuf":
                raise TypeError(f"{self.name}: save_own_variables stored {key!r} as "
                                f"{array.dtype}, expected numbers (a NumPy array or scalar)")
            out.append((f"{group}/{key}", array))
        return out

    def read(self, f, group, path):
        """{key: array} of the file's group for load_own_variables ({} when absent)."""
        node = hdf5_reader.find(f, group, path)
        if node is None:
            return {}
        store = {}
        for key in sorted(node):
            dset = hdf5_reader.dataset(node, key, path)
            store[key] = hdf5_reader.read(dset, dset.shape, path)
        return store

    def load(self, store):
        self.layer.load_own_variables(store)


# ---- assets ------------------------------------------------------------------------------

def save_assets(layers, zf):
    """Write each layer's `save_assets(folder)` files into the zip under assets/<path>/."""
    for path, layer in layers:
        if not callable(getattr(layer, "save_assets", None)):
            continue
        folder = tempfile.mkdtemp(prefix="paddle_assets_")
        try:
            layer.save_assets(folder)
            for root, _, files in os.walk(folder):
                for name in sorted(files):
                    full = os.path.join(root, name)
                    relative = os.path.relpath(full, folder).replace(os.sep, "/")
                    zf.write(full, f"{ASSETS}/{path}/{relative}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def load_assets(layers, zf, infos, read_member, path):
    """Call each layer's `load_assets(folder)` on its files from the zip (members under
    assets/<path>/, names already checked safe, sizes bounded), or with None when the file
    has none for it, as Keras does."""
    budget = MAX_ASSET_BYTES
    for inner, layer in layers:
        if not callable(getattr(layer, "load_assets", None)):
            continue
        prefix = f"{ASSETS}/{inner}/"
        members = [n for n in infos if n.startswith(prefix) and not n.endswith("/")]
        if not members:
            layer.load_assets(None)
            continue
        folder = tempfile.mkdtemp(prefix="paddle_assets_")
        try:
            for name in members:
                data = read_member(zf, infos[name], budget, path)
                budget -= len(data)
                target = os.path.join(folder, *name[len(prefix):].split("/"))
                if not os.path.realpath(target).startswith(os.path.realpath(folder) + os.sep):
                    raise CheckpointError(f"{path}: asset {name!r} leaves its folder")
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as out:
                    out.write(data)
            layer.load_assets(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
