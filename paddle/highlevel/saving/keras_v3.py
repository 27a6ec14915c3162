"""Keras 3's native files: the `.keras` zip and the `.weights.h5` weights file.

A `.keras` file is a zip of `config.json` (the model as `serialize_keras_object` gives it,
with `compile_config`), `metadata.json` (`keras_version`, `date_saved`) and
`model.weights.h5`. The weights file holds one group per object that has variables, at
the path Keras 3 gives it: a model's layers under `layers/<snake_case class name>` (numbered
`dense`, `dense_1`, ... in `model.layers` order, not by layer name), a layer's own variables
in `<path>/vars/0`, `1`, ... (Keras order), sublayers under their attribute names
(`layers/lstm/cell/vars/0`, `layers/bidirectional/forward_layer/cell/vars/0`,
`layers/multi_head_attention/query_dense/vars/0`), and the optimizer under
`optimizer/vars` (iterations, learning rate, then the slots in Keras's order). paddle
writes this layout and reads it, so Keras 3 loads paddle's files for the same layers and
paddle loads Keras's; files of Keras 2.13 (`_layer_checkpoint_dependencies`) are read too.

A file is untrusted: members are read into memory by their exact names (nothing is
extracted, so no path in the zip can escape), their sizes are capped, the HDF5 objects
read must be plain datasets (no external links, external storage or virtual datasets) of
the shape the model expects, and a Lambda layer's bytecode is refused unless
`safe_mode=False`. Writes are atomic: a temporary file beside the target, then a rename.

Example:
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
    >>> model.save(path)
    >>> import zipfile; sorted(zipfile.ZipFile(path).namelist())
    ['config.json', 'metadata.json', 'model.weights.h5']
    >>> x = np.ones((1, 3), np.float32)
    >>> bool(np.array_equal(pd.load_model(path).predict(x), model.predict(x)))
    True
"""
import contextlib
import datetime
import io
import json
import math
import os
import warnings
import zipfile
import zlib

import h5py
import numpy as np

from paddle._atomic import atomic_path
from paddle._version import __version__
from paddle.errors import CheckpointError
from paddle.lowlevel import random_state, schedules, stored_state
from paddle.lowlevel.optimizers import Optimizer
from paddle.lowlevel.shapes import memory_bytes
from paddle.highlevel.layers.attention import MultiHeadAttention
from paddle.highlevel.layers.base import Layer, snake_case
from paddle.highlevel.layers.recurrent import BaseRNN
from paddle.highlevel.models.model import Model
from paddle.highlevel.saving import architecture, compiling, hdf5_file, hdf5_reader, \
    layer_state, registry, serialization
from paddle.highlevel.saving.hdf5_file import file_path

CONFIG, METADATA, WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
KERAS_VERSION = "3.15.1"           # the Keras version whose layout these files follow
MAX_JSON_BYTES = 64 << 20          # config.json / metadata.json
# model.weights.h5 may expand to what the model's weights can fill: each number and up to
# MAX_SLOTS optimizer slots of it (Adam with amsgrad and use_ema keeps four), at up to 8 bytes
# each, plus HDF5's headers, a generous HDF5_OVERHEAD per dataset and per layer's group.
MAX_SLOTS = 4
HDF5_OVERHEAD = 64 << 10
BLOCK = 1 << 20                    # members are decompressed a block at a time
INTERLEAVED = ("Adam", "AdamW", "Adamax", "Nadam", "Lamb")  # slots per variable, not per slot name
ALONE = ("velocity_hat",)  # slots of those that Keras adds after the interleaved ones


def dumps(value, **kwargs):
    return json.dumps(value, default=architecture.json_default, **kwargs)


# ---- config.json ------------------------------------------------------------------------

def keras_config(model, compile_config=True):
    """The model as Keras 3's config.json holds it."""
    spec = architecture.model_config(model)
    out = serialization.keras3_entry(spec)
    kind = architecture.model_kind(model)
    if kind == "subclassed":
        registered = registry.registered_key(type(model))
        builtin = registry.family_of(type(model))  # a Keras model class (Distiller)
        out["module"] = builtin or type(model).__module__
        out["registered_name"] = None if builtin else registered or type(model).__name__
        build = dict(spec.get("build_config") or {})
        shapes = build.get("input_shapes") or []
        build["input_shape"] = shapes[0] if build.get("single_input", True) and shapes \
            else shapes
        out["build_config"] = build
    elif model.inputs is not None:
        shapes = [list(v.shape) for v in model.inputs]
        out["build_config"] = {"input_shape": shapes[0] if len(shapes) == 1 else shapes}
    if compile_config and getattr(model, "compiled", False) and model.optimizer is not None:
        if _overrides(model, "get_compile_config"):  # the model's own, as Keras saves it
            out["compile_config"] = serialization.serialize_keras_object(
                model.get_compile_config())
        else:
            training = compiling.training_config(model)
            out["compile_config"] = _keras_compile_config(model, training)
            out["paddle_training_config"] = training
    return out


def _overrides(model, method):
    """Whether the model's class overrides Keras's saving hook `method`."""
    return getattr(type(model), method) is not getattr(Model, method)


def _keras_compile_config(model, training):
    """compile's arguments as Keras 3's compile_config (per-output settings by name)."""
    names = model.output_names

    def by_name(value):
        if isinstance(value, dict) and compiling.PER_OUTPUT in value:
            return {n: v for n, v in zip(names, value[compiling.PER_OUTPUT])
                    if v is not None}
        return value
    optimizer = dict(training["optimizer_config"])
    optimizer.update(module="keras.optimizers", registered_name=None)
    return {"optimizer": optimizer, "loss": by_name(training["loss"]),
            "loss_weights": by_name(training["loss_weights"]),
            "metrics": by_name(training["metrics"]),
            "weighted_metrics": by_name(training.get("weighted_metrics")),
            "run_eagerly": False, "steps_per_execution": 1, "jit_compile": False}


def _paddle_training_config(config):
    """paddle's training_config from a config.json: paddle's own copy, or Keras's
    compile_config turned into it."""
    if config.get("paddle_training_config"):
        return config["paddle_training_config"]
    keras = config.get("compile_config")
    if not keras:
        return None
    return {"loss": keras.get("loss"), "metrics": keras.get("metrics"),
            "weighted_metrics": keras.get("weighted_metrics"),
            "loss_weights": keras.get("loss_weights"),
            "optimizer_config": keras.get("optimizer")}


# ---- where each variable goes in model.weights.h5 ---------------------------------------

class _Entries(list):
    """[(path, Variable or layer_state.OwnState)], and in `.assets` the (path, layer) of
    the layers with Keras's asset hooks met on the way."""

    def __init__(self):
        super().__init__()
        self.assets = []


def weight_entries(model):
    """[(path of the dataset, Variable)] in Keras 3's layout, in file order; a layer that
    overrides save_own_variables / load_own_variables has one entry (its `vars` group,
    a layer_state.OwnState) for all its own state. `.assets` lists the layers with
    save_assets / load_assets by their path."""
    out = _Entries()
    _model_entries(model, "", out, set())
    return out


def _join(*parts):
    return "/".join(p for p in parts if p)


def _model_entries(model, path, out, visited):
    visited.add(id(model))
    kind = architecture.model_kind(model)
    if kind in ("Sequential", "Functional"):
        if kind == "Functional":
            graph = architecture.Graph(model)
            members = [op for op in graph.operations if isinstance(op, Layer) or
                       getattr(op, "kind", None) == "data"]
        else:
            members = list(model.layers)
        used = {}
        for member in members:
            cls = "InputLayer" if not isinstance(member, Layer) else \
                ("Functional" if architecture.model_kind(member) == "Functional"
                 else type(member).__name__)
            name = _unique(snake_case(cls), used)
            if isinstance(member, Layer):
                _layer_entries(member, _join(path, "layers", name), out, visited)
        return
    own = [w for w in model._loose_parameters()]
    out.extend((_join(path, "vars", str(i)), w) for i, w in enumerate(own))
    # Keras walks a subclassed model's attributes by name, `layers` (the list) among them;
    # a layer is saved where it is met first.
    _children(model, path, out, visited, extra={"layers": model.layers})


def _layer_entries(layer, path, out, visited):
    if id(layer) in visited:
        return
    visited.add(id(layer))
    if layer_state.has_assets(layer):
        out.assets.append((path, layer))
    if isinstance(layer, Model):
        _model_entries(layer, path, out, visited)
        return
    if layer_state.overrides_variable_hooks(layer):  # its own store, as Keras calls it
        out.append((_join(path, "vars"), layer_state.OwnState(layer)))
        _children(layer, path, out, visited)
        return
    if isinstance(layer, BaseRNN):  # Keras keeps an RNN's weights in its cell
        out.extend((_join(path, "cell", "vars", str(i)), w) for i, w in enumerate(layer.weights))
        return
    if isinstance(layer, MultiHeadAttention):
        counts = {}
        for w in layer.weights:
            part, kind = w.name.split("/")[-2:]
            dense = {"attention_output": "output"}.get(part, part) + "_dense"
            index = counts[dense] = counts.get(dense, -1) + 1
            out.append((_join(path, dense, "vars", str(index)), w))
        return
    own = layer._saved_weights()  # trainable first, or a quantized layer's Keras order
    out.extend((_join(path, "vars", str(i)), w) for i, w in enumerate(own))
    _children(layer, path, out, visited)


def _children(obj, path, out, visited, extra=None):
    """Sublayers held as attributes, in Keras's order (by name, private ones last)."""
    attributes = dict(vars(obj), **(extra or {}))
    for attr in sorted(attributes, key=lambda a: f"~{a}" if a.startswith("_") else a):
        value = attributes[attr]
        if isinstance(value, Layer) and value is not obj:
            _layer_entries(value, _join(path, attr), out, visited)
        elif isinstance(value, (list, tuple)) and value and \
                all(isinstance(v, Layer) for v in value):
            used = {}
            for item in value:
                _layer_entries(item, _join(path, attr, _unique(snake_case(type(item).__name__),
                                                               used)), out, visited)


def _unique(name, used):
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def optimizer_entries(model, optimizer):
    """[(dataset path, kind, Variable or None, slot)] of the optimizer's variables in Keras
    3's order: iterations, the learning rate (not for a schedule), then the slots of the
    model's trainable weights (per weight for Adam-like optimizers, else per slot name).
    A LossScaleOptimizer's come first as Keras 3 writes them: its iterations and learning
    rate (its inner optimizer's), its step counter and scale, then the inner optimizer's,
    all under `optimizer/vars`, and the inner optimizer's again under
    `optimizer/inner_optimizer/vars` (Keras writes both)."""
    inner = getattr(optimizer, "inner_optimizer", None)
    if inner is not None:
        scale, counter = optimizer.scale_variables()
        entries = [("iterations", None, None), ("learning_rate", None, None),
                   ("variable", counter, None), ("variable", scale, None)]
        nested = optimizer_entries(model, inner)
        return [(f"optimizer/vars/{i}", kind, w, s) for i, (kind, w, s) in enumerate(
            entries)] + [(f"optimizer/vars/{i + len(entries)}", kind, w, s)
                         for i, (_, kind, w, s) in enumerate(nested)] + [
            ("optimizer/inner_optimizer/" + path.split("/", 1)[1], kind, w, s)
            for path, kind, w, s in nested]
    if hasattr(optimizer, "weights_of"):  # a MultiOptimizer
        return _multi_entries(model.trainable_weights, optimizer)
    entries = [("iterations", None, None)]
    if not isinstance(optimizer.learning_rate, schedules.LearningRateSchedule) and \
            not callable(optimizer.learning_rate):
        entries.append(("learning_rate", None, None))
    weights = model.trainable_weights
    entries += [("slot", w, s) for w, s in _slot_order(optimizer, weights)]
    return [(f"optimizer/vars/{i}", kind, w, s) for i, (kind, w, s) in enumerate(entries)]


def _multi_entries(weights, optimizer):
    """A MultiOptimizer's entries as Keras 3 writes them: under `optimizer/vars` its step
    count and (zero) learning rate, then each inner optimizer's step count, learning rate
    and slots; and each inner optimizer's again under `optimizer/optimizers/<name>/vars`.
    The step counts and rates name their optimizer in the weight's place."""
    entries, nested = [("iterations", optimizer, None), ("learning_rate", optimizer, None)], []
    owners = [optimizer.optimizer_of(w) for w in weights]  # (a function may add optimizers)
    for opt in optimizer.optimizers:
        own = [("iterations", opt, None)]
        if not callable(opt.learning_rate):
            own.append(("learning_rate", opt, None))
        own += [("slot", w, s) for w, s in _slot_order(
            opt, [w for w, o in zip(weights, owners) if o is opt])]
        entries += own
        nested += [(f"optimizer/optimizers/{opt.name}/vars/{i}", *e) for i, e in enumerate(own)]
    return [(f"optimizer/vars/{i}", *e) for i, e in enumerate(entries)] + nested


def _slot_order(optimizer, weights):
    """[(weight, slot)] in the order Keras 3 builds an optimizer's slots."""
    if hasattr(optimizer, "keras_slot_order"):  # slots of their own shapes (Adafactor, Muon)
        return optimizer.keras_slot_order(weights)
    slots = tuple(optimizer.slot_names)
    order = [(w, "average") for w in weights] if getattr(optimizer, "use_ema", False) else []
    # (Keras's base build adds the moving averages first)
    if type(optimizer).__name__ in INTERLEAVED:
        # Keras builds the slots it adds together per weight, then the ones it adds alone
        # (Adam's amsgrad `velocity_hat`) per slot name.
        alone = [s for s in slots if s in ALONE]
        return order + [(w, s) for w in weights for s in slots if s not in ALONE] + \
            [(w, s) for s in alone for w in weights]
    return order + [(w, s) for s in slots for w in weights]


def _optimizer_built(model, optimizer):
    has = {id(v) for v in optimizer.variables()}
    weights = model.trainable_weights
    return bool(weights) and all(id(w) in has for w in weights)


# ---- writing ----------------------------------------------------------------------------

def _weights_bytes(snapshot, name):
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        _write_weights(f, snapshot, name)
    return buffer.getvalue()


def _snapshot(model, include_optimizer):
    """What a save writes of the model's state, copied at once (under stored_state.LOCK:
    before or after a step of a fit in another thread, never within): {"datasets":
    [(dataset path, array)] of the weights and, when built, the optimizer's variables, in
    Keras 3's order; "optimizer": its name or None; "rng_state": paddle's random state}."""
    entries = weight_entries(model)
    optimizer = getattr(model, "optimizer", None) if include_optimizer else None
    if optimizer is not None and not _optimizer_built(model, optimizer):
        optimizer = None
    with stored_state.LOCK:
        datasets = []
        for path, var in entries:
            datasets += var.save(path) if isinstance(var, layer_state.OwnState) else \
                [(path, var.val())]
        if optimizer is not None:
            datasets += [(path, _optimizer_value(optimizer, kind, w, slot))
                         for path, kind, w, slot in optimizer_entries(model, optimizer)]
        return {"datasets": datasets, "rng_state": random_state.get_state(),
                "optimizer": None if optimizer is None else optimizer.name,
                "inner_optimizer": getattr(getattr(optimizer, "inner_optimizer", None),
                                           "name", None)}


def _optimizer_value(optimizer, kind, weight, slot):
    owner = weight if isinstance(weight, Optimizer) else optimizer  # (a MultiOptimizer's)
    if kind == "iterations":
        return np.int64(owner.iterations)
    if kind == "learning_rate":  # a MultiOptimizer has none: Keras writes 0
        return np.float32(0.0 if hasattr(owner, "weights_of") else owner.learning_rate)
    if kind == "variable":
        return weight.val()
    return optimizer.slots(weight)[slot].copy()


def _write_weights(f, snapshot, name):
    """Keras 3's weights layout of a `_snapshot`, for the model called `name`."""
    if snapshot["optimizer"] is not None:
        f.require_group("optimizer/vars").attrs["name"] = snapshot["optimizer"]
        if snapshot.get("inner_optimizer") is not None:  # a LossScaleOptimizer's
            f.require_group("optimizer/inner_optimizer/vars").attrs["name"] = \
                snapshot["inner_optimizer"]
    for path, value in snapshot["datasets"]:
        folder, key = path.rsplit("/", 1)
        f.require_group(folder).create_dataset(key, data=value)
    f.require_group("vars").attrs["name"] = name


def save_keras(model, filepath, overwrite=True, include_optimizer=True):
    """Write `model` as a Keras 3 `.keras` zip, atomically."""
    config = keras_config(model, compile_config=include_optimizer)
    snapshot = _snapshot(model, include_optimizer)
    config["paddle_training_state"] = {
        "last_finished_epoch": getattr(model, "_last_finished_epoch", None),
        "rng_state": snapshot["rng_state"]}
    metadata = {"keras_version": KERAS_VERSION, "paddle_version": __version__,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    weights = _weights_bytes(snapshot, model.name)
    assets = weight_entries(model).assets

    def write(f):
        with zipfile.ZipFile(f, "w") as zf:  # stored, as Keras writes it
            zf.writestr(METADATA, dumps(metadata))
            zf.writestr(CONFIG, dumps(config))
            zf.writestr(WEIGHTS, weights)
            layer_state.save_assets(assets, zf)
    _atomic_bytes(filepath, write, overwrite)


def save_weights_h5(model, filepath, overwrite=True):
    """Write Keras 3's `.weights.h5`: the weights and, when built, the optimizer's state."""
    snapshot = _snapshot(model, True)

    def write(f):
        with h5py.File(f, "w") as h5:
            _write_weights(h5, snapshot, model.name)
    _atomic_bytes(filepath, write, overwrite)


def saved_datasets(model):
    """[(dataset path, array)] of what `save_weights` writes for `model`: its weights and,
    when built, its optimizer's state, in Keras 3's layout and order."""
    return _snapshot(model, True)["datasets"]


def write_datasets(filepath, datasets):
    """Write [(dataset path, array)] as an HDF5 file at `filepath`, atomically."""
    def write(f):
        with h5py.File(f, "w") as h5:
            for path, value in datasets:
                folder, key = path.rsplit("/", 1) if "/" in path else ("/", path)
                h5.require_group(folder).create_dataset(key, data=value)
    _atomic_bytes(filepath, write, True)


def _atomic_bytes(filepath, write, overwrite):
    """write(binary file) on a temporary file renamed over `filepath` (paddle/_atomic.py)."""
    with atomic_path(file_path(filepath, "save"), overwrite, example="model.keras",
                     create_folder=False) as tmp:
        with open(tmp, "wb") as f:
            write(f)


# ---- reading ----------------------------------------------------------------------------

def is_keras_zip(path):
    return zipfile.is_zipfile(path)


def read_archive(path):
    """The config dict of a .keras file, every member name checked first; its weights are
    read by `read_weights` once the model they must fit is known."""
    with _open_archive(path) as (zf, infos):
        text = _read_member(zf, infos[CONFIG], MAX_JSON_BYTES, path)
    try:
        config = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: config.json is not valid JSON ({e})") from e
    if not isinstance(config, dict) or "class_name" not in config:
        raise CheckpointError(f"{path}: config.json does not describe a model")
    return config


def read_metadata(path):
    """The metadata dict of a .keras file (`keras_version`, `date_saved`), read as the
    config is."""
    with _open_archive(path) as (zf, infos):
        if METADATA not in infos:
            return None
        text = _read_member(zf, infos[METADATA], MAX_JSON_BYTES, path)
    try:
        metadata = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: metadata.json is not valid JSON ({e})") from e
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{path}: metadata.json is {type(metadata).__name__}, "
                              f"expected an object")
    return metadata


def read_weights(path, limit):
    """The bytes of a .keras file's model.weights.h5, decompressed no further than `limit`
    (`weights_limit` of the model they are for)."""
    with _open_archive(path) as (zf, infos):
        return _read_member(zf, infos[WEIGHTS], limit, path)


@contextlib.contextmanager
def _open_archive(path):
    """(open ZipFile, {name: ZipInfo}) once every member name is safe and config.json and
    model.weights.h5 are there; the zip's errors inside the block are CheckpointErrors."""
    if not os.path.exists(path):
        raise CheckpointError(f"no model file at {path!r}")
    if os.path.isdir(path):
        raise CheckpointError(f"{path!r} is a folder, not a .keras file")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {info.filename: info for info in zf.infolist()}
            for name in infos:
                if name.startswith(("/", "\\")) or ".." in name.replace("\\", "/").split("/") \
                        or ":" in name:
                    raise CheckpointError(f"{path}: the .keras file holds the unsafe member "
                                          f"name {name!r} (a path out of its folder); refused")
            for name in (CONFIG, WEIGHTS):
                if name not in infos:
                    raise CheckpointError(f"{path}: not a Keras 3 model file: the zip has no "
                                          f"{name} (members: {sorted(infos)[:10]})")
            yield zf, infos
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError,
            NotImplementedError, zlib.error) as e:  # RuntimeError: an encrypted member
        raise CheckpointError(f"cannot read {path!r} as a .keras file (truncated or "
                              f"damaged?): {type(e).__name__}: {e}") from e


def _read_member(zf, info, limit, path):
    """A member's bytes, decompressed a block at a time and refused as soon as they pass
    `limit`. The sizes a zip declares are not trusted: a central directory can understate
    a member's compressed size, or its expanded size."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise CheckpointError(f"{path}: member {info.filename} is compressed with method "
                              f"{info.compress_type}; a .keras file's members are stored or "
                              "deflated")
    if info.file_size > limit:  # a quick refusal; the stream below is the check
        raise CheckpointError(f"{path}: member {info.filename} declares {info.file_size} "
                              f"bytes, over the limit of {limit}")
    chunks, total = [], 0
    with zf.open(info) as f:
        while chunk := f.read(BLOCK):
            total += len(chunk)
            if total > limit:
                raise CheckpointError(f"{path}: member {info.filename} expands past {limit} "
                                      "bytes, more than it can hold for this model: refused "
                                      "as a decompression bomb")
            chunks.append(chunk)
    return b"".join(chunks)


def weights_limit(model):
    """The most bytes model.weights.h5 may hold for `model`: each weight and up to
    MAX_SLOTS optimizer slots of it at 8 bytes a number (twice: a LossScaleOptimizer's file
    holds its inner optimizer's slots in two groups), with HDF5_OVERHEAD per dataset and
    per layer."""
    entries = weight_entries(model)
    numbers = sum(var.numbers() if isinstance(var, layer_state.OwnState)
                  else math.prod(var.shape) for _, var in entries)
    datasets = (1 + 2 * MAX_SLOTS) * len(entries) + 8  # + iterations, rates, scale, counter
    return (1 + 2 * MAX_SLOTS) * 8 * numbers + HDF5_OVERHEAD * (datasets + _count_layers(model) + 16)


def _count_layers(model):
    """The layers of a model, nested ones included (each may have a group in the file)."""
    count, pending, seen = 0, [model], set()
    while pending:
        layer = pending.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        count += 1
        pending.extend(layer._sublayers())
    return count


class WeightsFile:
    """Datasets of a Keras 3 weights file, read safely (plain datasets, shapes checked)."""

    def __init__(self, f, path):
        self.f, self.path = f, path
        self.legacy = "_layer_checkpoint_dependencies" in f and "layers" not in f

    def get(self, key, expected=None, what=None):
        """The array at `key`, or None if absent; CheckpointError for anything that is not
        a plain numeric dataset of the expected shape."""
        if self.legacy:
            key = key.replace("layers/", "_layer_checkpoint_dependencies/", 1) \
                if key.startswith("layers/") else key
        # hdf5_reader: hard links only, no external or virtual data, numbers only.
        if hdf5_reader.find(self.f, key, self.path) is None:
            return None
        node = hdf5_reader.dataset(self.f, key, self.path)
        if expected is not None and tuple(node.shape) != tuple(expected):
            raise CheckpointError(f"{self.path}: {what or key}: the model expects shape "
                                  f"{tuple(expected)}, the file's {key} has shape "
                                  f"{tuple(node.shape)}")
        return hdf5_reader.read(node, node.shape, self.path)

    def count(self, group):
        node = hdf5_reader.find(self.f, group, self.path)
        return len(node) if isinstance(node, h5py.Group) else 0


@contextlib.contextmanager
def open_weights(source, path):
    """The weights file (model.weights.h5's bytes, or a .weights.h5 path) opened for the
    block; h5py's errors inside it (a damaged file) are CheckpointErrors naming `path`,
    as hdf5_reader.open_file makes them for .h5 checkpoints."""
    what = "model.weights.h5" if isinstance(source, bytes) else "the weights file"
    try:
        f = h5py.File(io.BytesIO(source) if isinstance(source, bytes) else source, "r")
    except (OSError, ValueError) as e:
        raise CheckpointError(f"{path}: {what} is not a readable HDF5 file: {e}") from e
    with f:
        try:
            yield f
        except CheckpointError:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError, AttributeError,
                IndexError) as e:
            raise CheckpointError(f"cannot read {what} of {path!r} (truncated or "
                                  f"damaged?): {type(e).__name__}: {e}") from e


def _check_weights(model, weights, path, skip_mismatch=False):
    """[(Variable, array)] for every weight of the model, all checked before any is set."""
    pairs = []
    for key, var in weight_entries(model):
        if isinstance(var, layer_state.OwnState):  # the layer's load_own_variables reads it
            pairs.append((var, var.read(weights.f, key, path)))
            continue
        try:
            value = weights.get(key, var.shape, f"weight {var.name!r}")
            if value is None:
                raise CheckpointError(f"{path}: the file has no {key} for the weight "
                                      f"{var.name!r} (saved from another architecture?)")
            if not (np.can_cast(value.dtype, var.dtype, "same_kind") or
                    value.dtype.kind == "b"):
                raise CheckpointError(f"{path}: {key} is {value.dtype}, the weight "
                                      f"{var.name!r} is {var.dtype}")
        except CheckpointError as e:
            if not skip_mismatch:
                raise
            warnings.warn(f"load_weights: skipping {var.name!r}: {e}", stacklevel=4)
            continue
        pairs.append((var, value))
    return pairs


def _check_optimizer(model, optimizer, weights, path):
    """[(setter, value)] restoring the optimizer's state, or [] (with a warning, as Keras)
    when the file's optimizer state does not fit this optimizer."""
    saved = weights.count("optimizer/vars")
    if optimizer is None or saved == 0:
        return []
    entries = optimizer_entries(model, optimizer)
    if hasattr(optimizer, "weights_of"):  # a MultiOptimizer: its inner copies restore nothing more
        entries = [e for e in entries if e[0].startswith("optimizer/vars/")]
    if getattr(optimizer, "inner_optimizer", None) is not None and \
            weights.count("optimizer/inner_optimizer/vars") == 0:
        entries = [e for e in entries if e[0].startswith("optimizer/vars/")]
    expected = sum(e[0].startswith("optimizer/vars/") for e in entries)
    if saved != expected:
        warnings.warn(f"{path}: skipping the optimizer state: the file holds {saved} "
                      f"variables for it, this model's {type(optimizer).__name__} has "
                      f"{expected}", stacklevel=4)
        return []
    out = []
    for key, kind, w, slot in entries:
        if kind == "iterations":
            out.append((kind, w, None, _saved_iterations(weights.get(key, ()), key, path)))
        elif kind == "learning_rate":
            out.append((kind, w, None, _saved_rate(weights.get(key, ()), key, path)))
        elif kind == "variable":
            out.append((kind, w, None, weights.get(key, w.shape, w.name)))
        else:
            out.append((kind, w, slot, weights.get(key, optimizer.slots(w)[slot].shape,
                                                    f"{slot} of {w.name!r}")))
    return out


def _saved_iterations(value, key, path):
    """The optimizer's step count from the file: a non-negative integer."""
    if value.dtype.kind not in "iu" or int(value) < 0:
        raise CheckpointError(f"{path}: the optimizer's step count {key} is {value!r}, "
                              "expected a non-negative integer")
    return int(value)


def _saved_rate(value, key, path):
    """The learning rate from the file: a finite non-negative number (the optimizer would
    refuse anything else when it is set, after the weights)."""
    rate = float(value)
    if not (math.isfinite(rate) and rate >= 0):
        raise CheckpointError(f"{path}: the optimizer's learning rate {key} is {rate}, "
                              "expected a finite non-negative number")
    return rate


def _saved_training_state(config, path):
    """{"last_finished_epoch", "rng_state"} of config.json, checked (on a scratch
    generator for the random state) before anything is built or assigned."""
    state = config.get("paddle_training_state") or {}
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: config.json's paddle_training_state is "
                              f"{type(state).__name__}, expected an object")
    return hdf5_file._training_state(state, path)  # the .h5 loader's own check


def _restore(pairs, optimizer, state):
    for var, value in pairs:
        if isinstance(var, layer_state.OwnState):
            var.load(value)
        else:
            var.set_value(value)
    for kind, w, slot, value in state:
        owner = w if isinstance(w, Optimizer) else optimizer  # (a MultiOptimizer's)
        if kind == "iterations":
            owner.iterations = value
        elif kind == "learning_rate":
            # Saved as float32 (Keras's variable): keep the exact rate it was rounded from.
            if not hasattr(owner, "weights_of") and \
                    np.float32(owner.learning_rate) != np.float32(value):
                owner.learning_rate = value
        elif kind == "variable":
            w.set_value(np.asarray(value).astype(w.dtype))
        else:
            np.copyto(optimizer.slots(w)[slot], value, casting="unsafe")


def load_keras(path, custom_objects=None, compile=True, safe_mode=True):
    """The model of a `.keras` file (paddle's or Keras 3's)."""
    with hdf5_reader.load_errors(path):
        config = read_archive(path)
        saved_state = _saved_training_state(config, path)
        model = _rebuild(config, path, custom_objects, safe_mode)
        training = _paddle_training_config(config) if compile else None
        if compile and config.get("compile_config") and \
                _overrides(model, "compile_from_config"):
            training = _compile_from_config(model, config["compile_config"], path,
                                            custom_objects)
        elif training is not None:
            _compile(model, training, path, custom_objects)
        data = read_weights(path, weights_limit(model))
        with open_weights(data, path) as f:
            weights = WeightsFile(f, path)
            pairs = _check_weights(model, weights, path)
            state = _check_optimizer(model, model.optimizer, weights, path) \
                if training is not None else []
    _restore(pairs, model.optimizer, state)
    assets = weight_entries(model).assets
    if assets:
        with hdf5_reader.load_errors(path), _open_archive(path) as (zf, infos):
            layer_state.load_assets(assets, zf, infos, _read_member, path)
    if compile and saved_state["rng_state"]:
        random_state.set_state(saved_state["rng_state"])
    model._last_finished_epoch = saved_state["last_finished_epoch"]
    return model


def _rebuild(config, path, custom_objects, safe_mode):
    try:
        return architecture.model_from_config(config, custom_objects, safe_mode=safe_mode)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from e
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        raise CheckpointError(f"{path}: could not rebuild the model from its config "
                              f"({type(e).__name__}: {e})") from e


def _compile(model, training, path, custom_objects):
    try:
        args = compiling.compile_args(training, model, custom_objects)
        model.compile(**args)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from e
    except (ValueError, TypeError, KeyError) as e:
        raise CheckpointError(f"{path}: could not compile the model as it was saved "
                              f"({type(e).__name__}: {e}); load with compile=False") from e


def _compile_from_config(model, compile_config, path, custom_objects):
    """The model's own `compile_from_config` on the saved compile_config (Keras's order:
    after the build, before the weights); True once compiled (its optimizer's state is
    then restored)."""
    try:
        with registry.custom_object_scope(dict(custom_objects or {})):
            model.compile_from_config(compile_config)
    except (ValueError, TypeError, KeyError) as e:
        raise CheckpointError(f"{path}: {type(model).__name__}.compile_from_config failed "
                              f"({type(e).__name__}: {e}); load with compile=False") from e
    return getattr(model, "compiled", False) or None


def load_weights(model, path, skip_mismatch=False):
    """Weights (and, as Keras 3 does, the optimizer state of a compiled model) from a
    `.keras` or `.weights.h5` file."""
    with hdf5_reader.load_errors(path):
        _load_weights(model, path, skip_mismatch)


def _load_weights(model, path, skip_mismatch):
    limit = weights_limit(model)
    if skip_mismatch:  # the file may hold other, larger layers: only memory bounds it
        limit = max(limit, memory_bytes() or limit)
    source = read_weights(path, limit) if zipfile.is_zipfile(path) else path
    with open_weights(source, path) as f:
        weights = WeightsFile(f, path)
        if "layers" not in f and "_layer_checkpoint_dependencies" not in f and \
                weights.count("vars") == 0:
            raise CheckpointError(f"{path}: not a Keras 3 weights file (no 'layers' group); "
                                  "legacy .h5 weights files are read under other names")
        pairs = _check_weights(model, weights, path, skip_mismatch)
        optimizer = getattr(model, "optimizer", None)
        state = _check_optimizer(model, optimizer, weights, path) if optimizer else []
    with stored_state.LOCK:  # all at once for a predict or fit in another thread
        _restore(pairs, optimizer, state)
