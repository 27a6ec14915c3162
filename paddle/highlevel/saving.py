"""HDF5 checkpoints in Keras's legacy layout: `model.save` / `pd.load_model` and
`model.save_weights` / `model.load_weights`.

A file written by `model.save` holds (see docs/saving.md for a listing):

- root attributes `model_config` (JSON, saving_config.py), `training_config` (JSON,
  saving_compile.py; when compiled), `backend`, `keras_version`, `paddle_version` and
  `paddle_training_state` (last finished epoch and paddle's random state);
- group `model_weights`: attribute `layer_names`, one group per layer with attribute
  `weight_names` and one dataset per weight, in Keras order, then
  `top_level_model_weights` (parameters that no layer owns);
- group `optimizer_weights`: the step count, then every slot (moments, velocities).

`save_weights` writes the `model_weights` part at the root of its file, as Keras does;
`load_weights` reads either kind of file, Keras's included. Writes are atomic: a temporary
file in the same folder, flushed and fsynced, then renamed over the target. Reads check the
whole file against the model before a single value is assigned.

Example:
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.h5")
    >>> model.save(path)
    >>> x = np.ones((1, 3), np.float32)
    >>> bool(np.array_equal(pd.load_model(path).predict(x), model.predict(x)))
    True
"""
import json
import os
import secrets
import warnings

import h5py
import numpy as np

from paddle.errors import CheckpointError
from paddle.lowlevel import random
from paddle.highlevel import saving_compile, saving_config
from paddle.highlevel.saving_config import register_serializable  # noqa: F401  (public)

HDF5_OBJECT_HEADER_LIMIT = 64512  # bytes; larger attributes are split into name0, name1, ...
KERAS_VERSION = "3.0.0"           # the Keras layout these files follow
BACKEND = "paddle"
TOP_LEVEL = "top_level_model_weights"


# ---- public entry points ----------------------------------------------------------------

def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """Write the architecture, weights, optimizer state, compile settings and training
    position of `model` to one HDF5 file (atomically)."""
    config = saving_config.dumps(saving_config.model_config(model))
    compiled = include_optimizer and getattr(model, "compiled", False) and \
        getattr(model, "optimizer", None) is not None
    training = saving_config.dumps(saving_compile.training_config(model)) if compiled else None
    state = saving_config.dumps({"last_finished_epoch": getattr(model, "_last_finished_epoch",
                                                                None),
                                 "rng_state": random.get_state()})
    groups, top = saving_config.weight_layout(model)
    optimizer = _optimizer_state(model.optimizer, groups, top) if compiled else None

    def write(f):
        _write_versions(f)
        write_text(f, "model_config", config)
        if training is not None:
            write_text(f, "training_config", training)
        write_text(f, "paddle_training_state", state)
        _write_weights(f.create_group("model_weights"), groups, top)
        if optimizer is not None:
            _write_optimizer(f, *optimizer)
    atomic_write(filepath, write, overwrite)


def save_weights(model, filepath, overwrite=True):
    """Write the weights alone (Keras's legacy weights file: the layer groups at the root)."""
    groups, top = saving_config.weight_layout(model)
    atomic_write(filepath, lambda f: _write_weights(f, groups, top), overwrite)


def load_model(filepath, custom_objects=None, compile=True):
    """Rebuild a model saved by `model.save`.

    Args:
        filepath: the HDF5 file.
        custom_objects: {name: class or function} for custom layers, models, losses,
            metrics and optimizers the file names.
        compile: compile the model as it was and restore the optimizer's state and
            paddle's random state, so `fit(..., initial_epoch=k)` continues training
            exactly; False gives an inference-only model.
    Returns:
        The model, predicting as the saved one did.
    Raises:
        CheckpointError: a missing, damaged or foreign file, an unknown custom class, or
            weights that do not fit the architecture.

    Example:
        >>> import os, tempfile, paddle as pd
        >>> path = os.path.join(tempfile.mkdtemp(), "m.h5")
        >>> pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)]).save(path)
        >>> pd.load_model(path).outputs[0].shape
        (None, 1)
    """
    path = os.fspath(filepath)
    contents = read_file(path, full=True)
    try:
        model = saving_config.model_from_config(contents["model_config"], custom_objects)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from e
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        raise CheckpointError(f"{path}: could not rebuild the model from its config "
                              f"({type(e).__name__}: {e})") from e
    groups, top = saving_config.weight_layout(model)
    pairs = match_by_order(path, groups, top, contents)
    slots = []
    if compile and contents["training_config"] is not None:
        try:
            args = saving_compile.compile_args(contents["training_config"], model,
                                               custom_objects)
        except CheckpointError as e:
            raise CheckpointError(f"{path}: {e}") from e
        try:
            model.compile(**args)
        except (ValueError, TypeError, KeyError) as e:
            raise CheckpointError(f"{path}: could not compile the model as it was saved "
                                  f"({type(e).__name__}: {e}); load with compile=False") from e
        slots = _check_optimizer(path, model.optimizer, contents["optimizer"], groups, top)
    _assign(pairs)
    _restore_optimizer(model.optimizer, contents["optimizer"], slots)
    state = contents["training_state"] or {}
    if compile and state.get("rng_state"):
        random.set_state(state["rng_state"])
    model._last_finished_epoch = state.get("last_finished_epoch")
    return model


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    """Load weights from a file of `save_weights` or `save` (paddle's or Keras's).

    Args:
        by_name: match layers by name (layers missing on either side are left alone)
            instead of by order.
        skip_mismatch: with by_name, skip (with a warning) each layer whose weight count
            or shapes differ instead of failing.
    Raises:
        CheckpointError: a missing, damaged or foreign file, a layer count mismatch, or a
            weight whose shape differs (nothing is assigned then).
    """
    if skip_mismatch and not by_name:
        raise ValueError("load_weights: skip_mismatch=True needs by_name=True (as in Keras)")
    path = os.fspath(filepath)
    contents = read_file(path, full=False)
    groups, top = saving_config.weight_layout(model)
    if by_name:
        pairs = match_by_name(path, groups, top, contents, skip_mismatch)
    else:
        pairs = match_by_order(path, groups, top, contents)
    _assign(pairs)


def restore_training_state(model, filepath):
    """Put a `model.save` file's weights, optimizer state and random state back into this
    (compiled) model; returns the last finished epoch saved (None if unknown)."""
    path = os.fspath(filepath)
    contents = read_file(path, full=True)
    groups, top = saving_config.weight_layout(model)
    pairs = match_by_order(path, groups, top, contents)
    optimizer = getattr(model, "optimizer", None)
    slots = _check_optimizer(path, optimizer, contents["optimizer"], groups, top) \
        if optimizer is not None else []
    _assign(pairs)
    if optimizer is not None:
        _restore_optimizer(optimizer, contents["optimizer"], slots)
    state = contents["training_state"] or {}
    if state.get("rng_state"):
        random.set_state(state["rng_state"])
    model._last_finished_epoch = state.get("last_finished_epoch")
    return model._last_finished_epoch


# ---- writing ----------------------------------------------------------------------------

def atomic_write(filepath, write, overwrite=True):
    """Run write(h5py.File) on a temporary file beside `filepath`, fsync it, rename it over
    `filepath`. On any failure the temporary file is removed and `filepath` is untouched."""
    path = os.path.abspath(os.fspath(filepath))
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    folder, base = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{base}.{secrets.token_hex(4)}.tmp")
    try:
        with h5py.File(tmp, "w-") as f:
            write(f)
            f.flush()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder):
    try:  # makes the rename itself durable; not every platform opens folders
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_versions(obj):
    from paddle import __version__
    obj.attrs["backend"] = BACKEND
    obj.attrs["keras_version"] = KERAS_VERSION
    obj.attrs["paddle_version"] = __version__


def save_attributes(group, name, items):
    """A list of strings as attribute `name`, split into `name0`, `name1`, ... when it
    would pass HDF5's 64 KB header limit (Keras's save_attributes_to_hdf5_group)."""
    encoded = [s.encode("utf8") for s in items]
    too_big = [s[:40] for s in encoded if len(s) > HDF5_OBJECT_HEADER_LIMIT]
    if too_big:
        raise ValueError(f"cannot save the names {too_big}: each must be under "
                         f"{HDF5_OBJECT_HEADER_LIMIT} bytes")
    array = np.asarray(encoded)
    chunks = np.array_split(array, 1)
    while any(c.nbytes > HDF5_OBJECT_HEADER_LIMIT for c in chunks):
        chunks = np.array_split(array, len(chunks) + 1)
    if len(chunks) == 1:
        group.attrs[name] = array
    else:
        for k, chunk in enumerate(chunks):
            group.attrs[f"{name}{k}"] = chunk


def load_attributes(group, name):
    """The list of strings `save_attributes` wrote (chunked or not)."""
    if name in group.attrs:
        parts = [group.attrs[name]]
    else:
        parts, k = [], 0
        while f"{name}{k}" in group.attrs:
            parts.append(group.attrs[f"{name}{k}"])
            k += 1
    return [n.decode("utf8") if hasattr(n, "decode") else str(n)
            for part in parts for n in np.atleast_1d(part)]


def write_text(obj, name, text):
    """A (JSON) string attribute, split into byte chunks `name0`, ... past 64 KB."""
    raw = text.encode("utf8")
    if len(raw) <= HDF5_OBJECT_HEADER_LIMIT:
        obj.attrs[name] = text
        return
    for k, start in enumerate(range(0, len(raw), HDF5_OBJECT_HEADER_LIMIT)):
        obj.attrs[f"{name}{k}"] = np.void(raw[start:start + HDF5_OBJECT_HEADER_LIMIT])


def read_text(obj, name):
    if name in obj.attrs:
        value = obj.attrs[name]
        return value.decode("utf8") if hasattr(value, "decode") else str(value)
    parts, k = [], 0
    while f"{name}{k}" in obj.attrs:
        parts.append(obj.attrs[f"{name}{k}"].tobytes())
        k += 1
    return b"".join(parts).decode("utf8") if parts else None


def _write_weights(group, groups, top):
    save_attributes(group, "layer_names", [name for name, _ in groups])
    _write_versions(group)
    # Sorted as Keras does, so no group name is created before one it prefixes.
    for name, weights in sorted(groups, key=lambda g: g[0]):
        _write_subset(group.create_group(name), weights)
    _write_subset(group.create_group(TOP_LEVEL), top)


def _write_subset(group, weights):
    names = _unique([w.name for w in weights])
    save_attributes(group, "weight_names", names)
    for name, w in zip(names, weights):
        group.create_dataset(name, data=w.val())


def _unique(names):
    seen, out = set(), []
    for n in names:
        k, candidate = 1, n
        while candidate in seen:
            candidate, k = f"{n}_{k}", k + 1
        seen.add(candidate)
        out.append(candidate)
    return out


def _optimizer_state(optimizer, groups, top):
    """(optimizer name, iterations, [(weight index, slot, array, weight name)])."""
    flat = [w for _, ws in groups for w in ws] + list(top)
    has = {id(v) for v in optimizer.variables()}
    slots = [(i, slot, value, w.name) for i, w in enumerate(flat) if id(w) in has
             for slot, value in optimizer.slots(w).items()]
    return optimizer.name, optimizer.iterations, slots


def _write_optimizer(f, name, iterations, slots):
    group = f.create_group("optimizer_weights")
    names = _unique([f"{name}/iterations"] + [f"{name}/{w.replace('/', '_')}_{slot}"
                                              for _, slot, _, w in slots])
    save_attributes(group, "weight_names", names)
    group.create_dataset(names[0], data=np.int64(iterations))
    for dataset, (_, _, value, _) in zip(names[1:], slots):
        group.create_dataset(dataset, data=value)
    write_text(group, "paddle_slots", json.dumps([[i, slot] for i, slot, _, _ in slots]))


# ---- reading ----------------------------------------------------------------------------

def read_file(path, full):
    """Everything needed from a checkpoint, read into memory (errors: CheckpointError)."""
    if not os.path.exists(path):
        raise CheckpointError(f"no checkpoint file at {path!r}")
    if os.path.isdir(path):
        raise CheckpointError(f"{path!r} is a folder, not a checkpoint file")
    try:
        if not h5py.is_hdf5(path):
            raise CheckpointError(f"{path!r} is not an HDF5 file (model.save and "
                                  "model.save_weights write HDF5)")
        with h5py.File(path, "r") as f:
            return _read(f, path, full)
    except CheckpointError:
        raise
    except (OSError, KeyError, ValueError, TypeError, RuntimeError, AttributeError) as e:
        raise CheckpointError(f"cannot read {path!r} (truncated or damaged?): "
                              f"{type(e).__name__}: {e}") from e


def _read(f, path, full):
    contents = {"model_config": None, "training_config": None, "training_state": None,
                "optimizer": None}
    if full:
        config = read_text(f, "model_config")
        if config is None:
            raise CheckpointError(
                f"{path!r} holds no model_config, so it was not written by model.save (for a "
                "weights file from save_weights, build the model and call load_weights)")
        contents["model_config"] = json.loads(config)
        for key in ("training_config", "paddle_training_state"):
            text = read_text(f, key)
            contents[key.replace("paddle_", "")] = None if text is None else json.loads(text)
    if "layer_names" in f.attrs or "layer_names0" in f.attrs:
        group = f
    elif "model_weights" in f:
        group = f["model_weights"]
    else:
        raise CheckpointError(f"{path!r} holds no model weights (no model_weights group and "
                              "no layer_names attribute): it was not written by model.save or "
                              "model.save_weights")
    contents["layers"] = [(name, _read_subset(group, name, path))
                          for name in load_attributes(group, "layer_names")]
    contents["top"] = _read_subset(group, TOP_LEVEL, path) if TOP_LEVEL in group else None
    if full and "optimizer_weights" in f and "paddle_slots" in f["optimizer_weights"].attrs:
        g = f["optimizer_weights"]
        names = load_attributes(g, "weight_names")
        targets = json.loads(read_text(g, "paddle_slots"))
        contents["optimizer"] = {
            "iterations": int(np.asarray(g[names[0]][()])),
            "slots": [(int(i), slot, np.asarray(g[n][()]))
                      for (i, slot), n in zip(targets, names[1:])]}
    return contents


def _read_subset(parent, name, path):
    if name not in parent:
        raise CheckpointError(f"{path!r}: layer_names lists {name!r}, but the file has no "
                              "group for it")
    group = parent[name]
    return [(w, np.asarray(group[w][()])) for w in load_attributes(group, "weight_names")]


# ---- matching weights to the model ------------------------------------------------------

def match_by_order(path, groups, top, contents):
    """[(Variable, array)] pairing the model's layers that have weights with the file's, in
    order (Keras's topological loading); every count and shape checked first."""
    mine = [(name, ws) for name, ws in groups if ws]
    theirs = [(name, values) for name, values in contents["layers"] if values]
    if len(mine) != len(theirs):
        raise CheckpointError(
            f"{path}: layer count mismatch: the file holds weights for {len(theirs)} layers "
            f"{[n for n, _ in theirs]}, the model has {len(mine)} layers with weights "
            f"{[n for n, _ in mine]}")
    pairs = []
    for (name, ws), (saved, values) in zip(mine, theirs):
        pairs += _pair(path, name, saved, ws, values)
    if top or contents["top"]:
        pairs += _pair(path, "(top level)", TOP_LEVEL, top, contents["top"] or [])
    return pairs


def match_by_name(path, groups, top, contents, skip_mismatch):
    index = dict(groups)
    saved = list(contents["layers"])
    if contents["top"] is not None:
        saved.append((TOP_LEVEL, contents["top"]))
        index[TOP_LEVEL] = top
    pairs = []
    for name, values in saved:
        weights = index.get(name)
        if weights is None:
            continue
        try:
            pairs += _pair(path, name, name, weights, values)
        except CheckpointError as e:
            if not skip_mismatch:
                raise
            warnings.warn(f"load_weights: skipping layer {name!r}: {e}", stacklevel=4)
    return pairs


def _pair(path, name, saved, weights, values):
    where = name if name == saved else f"{name} (saved as {saved})"
    if len(weights) != len(values):
        raise CheckpointError(f"{path}: layer {where} has {len(weights)} weights, the file "
                              f"holds {len(values)} for it")
    pairs = []
    for w, (vname, value) in zip(weights, values):
        if tuple(value.shape) != tuple(w.shape):
            raise CheckpointError(f"{path}: layer {where}: weight {w.name!r} has shape "
                                  f"{tuple(w.shape)} in the model, but the file's {vname!r} "
                                  f"has shape {tuple(value.shape)}")
        if value.dtype.kind not in "biuf" or not (
                np.can_cast(value.dtype, w.dtype, "same_kind") or value.dtype.kind == "b"):
            raise CheckpointError(f"{path}: layer {where}: weight {w.name!r} is {w.dtype}, "
                                  f"but the file's {vname!r} is {value.dtype}")
        pairs.append((w, value))
    return pairs


def _assign(pairs):
    for w, value in pairs:
        w.set_value(value)


def _check_optimizer(path, optimizer, saved, groups, top):
    """[(slot array, value)] to copy once everything is checked."""
    if saved is None or optimizer is None:
        return []
    flat = [w for _, ws in groups for w in ws] + list(top)
    out = []
    for i, slot, value in saved["slots"]:
        if not 0 <= i < len(flat) or slot not in optimizer.slot_names:
            raise CheckpointError(
                f"{path}: the saved optimizer state (slot {slot!r} of weight #{i}) does not fit "
                f"this model's {type(optimizer).__name__} (slots {list(optimizer.slot_names)}, "
                f"{len(flat)} weights)")
        if tuple(value.shape) != flat[i].shape:
            raise CheckpointError(f"{path}: optimizer slot {slot!r} of {flat[i].name!r} has "
                                  f"shape {flat[i].shape}, the file's has {value.shape}")
        out.append((flat[i], slot, value))
    return out


def _restore_optimizer(optimizer, saved, slots):
    if saved is None or optimizer is None:
        return
    optimizer.iterations = saved["iterations"]
    for var, slot, value in slots:
        # In place: a compiled training step holds these very arrays.
        np.copyto(optimizer.slots(var)[slot], value, casting="unsafe")
