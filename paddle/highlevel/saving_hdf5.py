"""The HDF5 side of checkpoints: Keras's legacy layout, written atomically and read back
into memory with every error turned into a CheckpointError.

Layout (see docs/saving.md): root attributes `model_config`, `training_config`,
`paddle_training_state` (JSON text, split into `name0`, `name1`, ... past 64 KB), `backend`,
`keras_version`, `paddle_version`; group `model_weights` (attribute `layer_names`, a group
per layer with attribute `weight_names` and a dataset per weight, `top_level_model_weights`);
group `optimizer_weights` (the step count, then the slots; `paddle_slots` maps each slot
to its weight); `paddle_optimizers/<attribute>`, the same for each optimizer a custom
train_step owns (`self.d_opt`). Checksums (`paddle_checksum` at the root,
`paddle_weights_checksum` on the weights group) are computed from the values written and
checked against the values read.

Example:
    >>> import os, tempfile, h5py
    >>> from paddle.highlevel import saving_hdf5
    >>> path = os.path.join(tempfile.mkdtemp(), "names.h5")
    >>> def write(f):
    ...     saving_hdf5.save_attributes(f, "names", ["a", "b"])
    >>> saving_hdf5.atomic_write(path, write)
    >>> with h5py.File(path, "r") as f:
    ...     saving_hdf5.load_attributes(f, "names")
    ['a', 'b']
"""
import hashlib
import json
import os
import secrets

import h5py
import numpy as np

from paddle.errors import CheckpointError

HDF5_OBJECT_HEADER_LIMIT = 64512  # bytes; larger attributes are split into name0, name1, ...
KERAS_VERSION = "3.0.0"           # the Keras layout these files follow
BACKEND = "paddle"
TOP_LEVEL = "top_level_model_weights"
OWN_OPTIMIZERS = "paddle_optimizers"  # optimizers a custom train_step owns, by attribute


def write_model(f, texts, groups, top, optimizer, own=()):
    """A whole-model file: the JSON texts (model_config, training_config or None,
    paddle_training_state), the weights, the optimizer state (or None), and the states of
    the optimizers a custom train_step owns, [(model attribute, state)], under
    `paddle_optimizers/<attribute>` (a group Keras does not know, and ignores)."""
    write_versions(f)
    for name, text in zip(("model_config", "training_config", "paddle_training_state"), texts):
        if text is not None:
            write_text(f, name, text)
    write_weights(f.create_group("model_weights"), groups, top)
    if optimizer is not None:
        write_optimizer(f.create_group("optimizer_weights"), *optimizer)
    for attribute, state in own:
        write_optimizer(f.require_group(OWN_OPTIMIZERS).create_group(attribute), *state)
    saved = None if optimizer is None else _saved(optimizer)
    f.attrs["paddle_checksum"] = np.bytes_(
        digest(texts, saved, {attribute: _saved(state) for attribute, state in own}))


def _saved(state):
    """An optimizer_state tuple as _read_optimizer gives it back."""
    return {"iterations": state[1], "slots": [s[:3] for s in state[2]]}


def file_path(filepath, where):
    """`filepath` as a str path; TypeError naming `where` for anything that is no path."""
    try:
        return os.fspath(filepath)
    except TypeError:
        raise TypeError(f"{where}: expected a file path (str or os.PathLike), received "
                        f"{type(filepath).__name__}") from None


def atomic_write(filepath, write, overwrite=True):
    """Run write(h5py.File) on a temporary file beside `filepath`, fsync it, rename it over
    `filepath`. On any failure the temporary file is removed and `filepath` is untouched."""
    path = os.path.abspath(file_path(filepath, "save"))
    if os.path.isdir(path):
        raise IsADirectoryError(f"save: {path} is a folder; give a file name such as "
                                f"{os.path.join(path, 'model.h5')}")
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


def write_versions(obj):
    from paddle import __version__
    obj.attrs["backend"] = np.bytes_(BACKEND)
    obj.attrs["keras_version"] = np.bytes_(KERAS_VERSION)
    obj.attrs["paddle_version"] = np.bytes_(__version__)


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
        # Fixed-length bytes, as Keras 2 wrote them: stored in the attribute itself, not in
        # the global heap, whose corruption can send the HDF5 library into an endless loop.
        obj.attrs[name] = np.bytes_(raw)
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


def write_weights(group, groups, top):
    layers = [(name, _named_values(weights)) for name, weights in groups]
    save_attributes(group, "layer_names", [name for name, _ in layers])
    write_versions(group)
    # Sorted as Keras does, so no group name is created before one it prefixes.
    for name, values in sorted(layers, key=lambda g: g[0]):
        _write_subset(group.create_group(name), values)
    top = _named_values(top)
    _write_subset(group.create_group(TOP_LEVEL), top)
    group.attrs["paddle_weights_checksum"] = np.bytes_(_digest_weights(layers, top))


def _named_values(weights):
    return list(zip(_unique([w.name for w in weights]), [w.val() for w in weights]))


def _write_subset(group, values):
    save_attributes(group, "weight_names", [name for name, _ in values])
    for name, value in values:
        group.create_dataset(name, data=value)


def _unique(names):
    seen, out = set(), []
    for n in names:
        k, candidate = 1, n
        while candidate in seen:
            candidate, k = f"{n}_{k}", k + 1
        seen.add(candidate)
        out.append(candidate)
    return out


# Checksums of what a file holds, computed from the values written and again from the
# values read: a damaged file fails to load instead of loading wrong numbers. (HDF5 itself
# checks nothing in this layout: a damaged chunk address even reads back as zeros.)

def _hasher():
    digest = hashlib.sha256()

    def add(*parts):
        for part in parts:
            if isinstance(part, np.ndarray):
                add(part.dtype.str, part.shape)
                part = np.ascontiguousarray(part).tobytes()
            raw = part if isinstance(part, bytes) else repr(part).encode("utf8")
            digest.update(len(raw).to_bytes(8, "little") + raw)
    return digest, add


def _digest_weights(layers, top):
    digest, add = _hasher()
    for name, values in list(layers) + [(TOP_LEVEL, top or [])]:
        add(name, len(values))
        for weight, value in values:
            add(weight, np.asarray(value))
    return digest.hexdigest()


def digest(texts, optimizer, own=None):
    digest, add = _hasher()
    add(*texts)
    if optimizer is None:
        add("no optimizer state")
    else:
        _add_state(add, optimizer)
    for attribute in sorted(own or {}):  # most files have none: their checksum is unchanged
        add(attribute)
        _add_state(add, own[attribute])
    return digest.hexdigest()


def _add_state(add, state):
    add(int(state["iterations"]))
    for i, slot, value in state["slots"]:
        add(int(i), slot, np.asarray(value))


def optimizer_state(optimizer, groups, top):
    """(optimizer name, iterations, [(weight index, slot, array, weight name)])."""
    flat = [w for _, ws in groups for w in ws] + list(top)
    has = {id(v) for v in optimizer.variables()}
    slots = [(i, slot, value, w.name) for i, w in enumerate(flat) if id(w) in has
             for slot, value in optimizer.slots(w).items()]
    return optimizer.name, optimizer.iterations, slots


def write_optimizer(group, name, iterations, slots):
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
    except (OSError, KeyError, ValueError, TypeError, RuntimeError, AttributeError,
            IndexError) as e:
        raise CheckpointError(f"cannot read {path!r} (truncated or damaged?): "
                              f"{type(e).__name__}: {e}") from e


def _read(f, path, full):
    contents = {"model_config": None, "training_config": None, "training_state": None,
                "optimizer": None, "own_optimizers": {}}
    texts = [read_text(f, key) for key in
             ("model_config", "training_config", "paddle_training_state")]
    if full and texts[0] is None:
        raise CheckpointError(
            f"{path!r} holds no model_config, so it was not written by model.save (for a "
            "weights file from save_weights, build the model and call load_weights)")
    if "layer_names" in f.attrs or "layer_names0" in f.attrs:
        group = f
    elif "model_weights" in f:
        group = f["model_weights"]
    elif "layers" in f and "vars" in f:
        raise CheckpointError(f"{path!r} is in Keras 3's native weights format, which paddle "
                              "does not read: in Keras, save the model with model.save('x.h5') "
                              "(the legacy HDF5 layout) and load that")
    else:
        raise CheckpointError(f"{path!r} holds no model weights (no model_weights group and "
                              "no layer_names attribute): it was not written by model.save or "
                              "model.save_weights")
    contents["layers"] = [(name, _read_subset(group, name, path))
                          for name in load_attributes(group, "layer_names")]
    contents["top"] = _read_subset(group, TOP_LEVEL, path) if TOP_LEVEL in group else None
    _verify(group, "paddle_weights_checksum", path,
            lambda: _digest_weights(contents["layers"], contents["top"]))
    if not full:
        return contents
    if "optimizer_weights" in f and "paddle_slots" in f["optimizer_weights"].attrs:
        contents["optimizer"] = _read_optimizer(f["optimizer_weights"], path)
    own = f[OWN_OPTIMIZERS] if OWN_OPTIMIZERS in f else {}
    contents["own_optimizers"] = {k: _read_optimizer(own[k], path) for k in sorted(own)}
    _verify(f, "paddle_checksum", path,
            lambda: digest(texts, contents["optimizer"], contents["own_optimizers"]))
    config, training, state = [None if t is None else json.loads(t) for t in texts]
    contents.update(model_config=config, training_config=training,
                    training_state=_training_state(state, path))
    return contents


def _verify(obj, name, path, digest):
    """Files from paddle carry checksums (Keras's do not: nothing to check then)."""
    if name in obj.attrs and read_text(obj, name) != digest():
        raise CheckpointError(f"{path!r} is damaged: what it holds does not match the "
                              "checksum saved with it")


def _read_optimizer(group, path):
    names = load_attributes(group, "weight_names")
    targets = json.loads(read_text(group, "paddle_slots"))
    if not names or len(targets) != len(names) - 1:
        raise CheckpointError(f"{path!r}: the optimizer state lists {len(names)} weights "
                              f"for {len(targets)} slots")
    return {"iterations": int(np.asarray(group[names[0]][()])),
            "slots": [(int(i), str(slot), np.asarray(group[n][()]))
                      for (i, slot), n in zip(targets, names[1:])]}


def _training_state(state, path):
    """{"last_finished_epoch", "rng_state"}, the random state checked on a scratch
    generator (so a bad one fails here, before anything is assigned)."""
    state = dict(state or {})
    epoch, rng = state.get("last_finished_epoch"), state.get("rng_state")
    if epoch is not None and not isinstance(epoch, int):
        raise CheckpointError(f"{path!r}: the saved epoch {epoch!r} is not a number")
    if rng is not None:
        try:
            np.random.PCG64().state = rng
        except (ValueError, TypeError, KeyError, OverflowError) as e:
            raise CheckpointError(f"{path!r}: the saved random state is damaged ({e})") from e
    return {"last_finished_epoch": epoch, "rng_state": rng}


def _read_subset(parent, name, path):
    if name not in parent:
        raise CheckpointError(f"{path!r}: layer_names lists {name!r}, but the file has no "
                              "group for it")
    group = parent[name]
    return [(w, np.asarray(group[w][()])) for w in load_attributes(group, "weight_names")]
