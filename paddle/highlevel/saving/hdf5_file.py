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
    >>> from paddle.highlevel.saving import hdf5_file
    >>> path = os.path.join(tempfile.mkdtemp(), "names.h5")
    >>> def write(f):
    ...     hdf5_file.save_attributes(f, "names", ["a", "b"])
    >>> hdf5_file.atomic_write(path, write)
    >>> with h5py.File(path, "r") as f:
    ...     hdf5_file.load_attributes(f, "names")
    ['a', 'b']
"""
import contextlib
import hashlib
import json
import os

import h5py
import numpy as np

from paddle._atomic import atomic_path
from paddle._version import __version__
from paddle.errors import CheckpointError
from paddle.highlevel.saving import hdf5_reader

HDF5_OBJECT_HEADER_LIMIT = 64512  # bytes; larger attributes are split into name0, name1, ...
KERAS_VERSION = "3.0.0"           # the Keras layout these files follow
BACKEND = "paddle"
TOP_LEVEL = "top_level_model_weights"
OWN_OPTIMIZERS = "paddle_optimizers"  # optimizers a custom train_step owns, by attribute


def write_model(f, texts, weights, optimizer, own=()):
    """A whole-model file: the JSON texts (model_config, training_config or None,
    paddle_training_state), the weights (`weight_values`), the optimizer state
    (`optimizer_state`, or None), and the states of the optimizers a custom train_step
    owns, [(model attribute, state)], under `paddle_optimizers/<attribute>` (a group Keras
    does not know, and ignores). The checksums hash the very arrays written."""
    write_versions(f)
    for name, text in zip(("model_config", "training_config", "paddle_training_state"), texts):
        if text is not None:
            write_text(f, name, text)
    write_weights(f.create_group("model_weights"), *weights)
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


def atomic_write(filepath, write, overwrite=True, create_folder=False):
    """Run write(h5py.File) on a temporary file beside `filepath`, fsync it, rename it over
    `filepath` (paddle/_atomic.py). On any failure the temporary file is removed and
    `filepath` is untouched. The folder must exist (as in Keras), unless `create_folder`
    (the seeds' Trainer saves into a folder it names)."""
    with atomic_path(file_path(filepath, "save"), overwrite,
                     create_folder=create_folder) as tmp:
        with h5py.File(tmp, "w") as f:
            write(f)
            f.flush()


def write_versions(obj):
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


def weight_values(groups, top):
    """(layers, top) as `write_weights` takes them: [(layer name, [(weight name,
    array)])] and [(weight name, array)], the arrays copies of the current values. Taken
    under paddle/lowlevel/stored_state.LOCK, it is one consistent snapshot."""
    return ([(name, _named_values(weights)) for name, weights in groups],
            _named_values(top))


def write_weights(group, layers, top):
    """The `model_weights` layout of `weight_values`' snapshot, and its checksum."""
    save_attributes(group, "layer_names", [name for name, _ in layers])
    write_versions(group)
    # Sorted as Keras does, so no group name is created before one it prefixes.
    for name, values in sorted(layers, key=lambda g: g[0]):
        _write_subset(group.create_group(name), values)
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

def _hasher(read=None):
    """(sha256, add): add(*parts) hashes strings, numbers, arrays and, given `read`
    (dataset -> its array, or None when it was not read), datasets: those not read are
    hashed a block at a time, so data the model does not use needs no room."""
    digest = hashlib.sha256()

    def add(*parts):
        for part in parts:
            if isinstance(part, h5py.Dataset):
                value = read(part) if read is not None else None
                if value is None:
                    _add_blocks(digest, add, part)
                    continue
                part = value
            if isinstance(part, np.ndarray):
                add(part.dtype.str, part.shape)
                part = np.ascontiguousarray(part).tobytes()
            raw = part if isinstance(part, bytes) else repr(part).encode("utf8")
            digest.update(len(raw).to_bytes(8, "little") + raw)
    return digest, add


def _add_blocks(digest, add, dset):
    """What add(np.asarray(dset[()])) adds, read a block at a time."""
    add(dset.dtype.str, tuple(dset.shape))
    digest.update(int(dset.size * dset.dtype.itemsize).to_bytes(8, "little"))
    for block in hdf5_reader.blocks(dset, dset.file.filename):
        digest.update(np.ascontiguousarray(block).tobytes())


def _array(value):
    return value if isinstance(value, h5py.Dataset) else np.asarray(value)


def _digest_weights(layers, top, read=None):
    digest, add = _hasher(read)
    for name, values in list(layers) + [(TOP_LEVEL, top or [])]:
        add(name, len(values))
        for weight, value in values:
            add(weight, _array(value))
    return digest.hexdigest()


def digest(texts, optimizer, own=None, read=None):
    digest, add = _hasher(read)
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
        add(int(i), slot, _array(value))


def optimizer_state(optimizer, groups, top):
    """(optimizer name, iterations, [(weight index, slot, array, weight name)]), the
    arrays copies: with `weight_values`, under stored_state.LOCK, one snapshot."""
    flat = [w for _, ws in groups for w in ws] + list(top)
    has = {id(v) for v in optimizer.variables()}
    slots = [(i, slot, value.copy(), w.name) for i, w in enumerate(flat) if id(w) in has
             for slot, value in optimizer.slots(w).items()]
    return optimizer.name, int(optimizer.iterations), slots


def write_optimizer(group, name, iterations, slots):
    names = _unique([f"{name}/iterations"] + [f"{name}/{w.replace('/', '_')}_{slot}"
                                              for _, slot, _, w in slots])
    save_attributes(group, "weight_names", names)
    group.create_dataset(names[0], data=np.int64(iterations))
    for dataset, (_, _, value, _) in zip(names[1:], slots):
        group.create_dataset(dataset, data=value)
    write_text(group, "paddle_slots", json.dumps([[i, slot] for i, slot, _, _ in slots]))


# ---- reading ----------------------------------------------------------------------------

@contextlib.contextmanager
def open_checkpoint(path, full):
    """The checkpoint at `path` as a `Checkpoint` whose datasets are not read yet; the file
    stays open for the block (errors: CheckpointError)."""
    with hdf5_reader.open_file(path) as f:
        yield Checkpoint(f, path, full)


class Checkpoint:
    """What a checkpoint file holds, through hdf5_reader (no link, external storage or
    virtual dataset is followed): `layers` [(layer name, [(weight name, dataset)])],
    `top` (the same for top-level weights, or None), and with `full` the JSON attributes
    `model_config`, `training_config`, `training_state`, and `optimizer` (None) and
    `own_optimizers` ({attribute: state}), each state {"iterations": int, "slots":
    [(weight index, slot, dataset)]}. `read(dataset, shape)` reads one dataset once its
    shape is the model's; `verify()` then checks the checksums saved with the file."""

    def __init__(self, f, path, full):
        self.file, self.path, self.full = f, path, full
        self._values = {}
        self._texts = [read_text(f, key) for key in
                       ("model_config", "training_config", "paddle_training_state")]
        if full and self._texts[0] is None:
            raise CheckpointError(
                f"{path!r} holds no model_config, so it was not written by model.save (for "
                "a weights file from save_weights, build the model and call load_weights)")
        self.weights = self._weights_group()
        self.layers = [(name, self._subset(self.weights, name))
                       for name in load_attributes(self.weights, "layer_names")]
        self.top = self._subset(self.weights, TOP_LEVEL) \
            if hdf5_reader.has(self.weights, TOP_LEVEL) else None
        self.optimizer, self.own_optimizers = None, {}
        self.model_config = self.training_config = self.training_state = None
        if full:
            self._read_full()

    def _weights_group(self):
        f, path = self.file, self.path
        if "layer_names" in f.attrs or "layer_names0" in f.attrs:
            return f
        if hdf5_reader.has(f, "model_weights"):
            return hdf5_reader.member(f, "model_weights", path)
        if hdf5_reader.has(f, "layers") and hdf5_reader.has(f, "vars"):
            raise CheckpointError(f"{path!r} is in Keras 3's native weights format, which "
                                  "paddle does not read: in Keras, save the model with "
                                  "model.save('x.h5') (the legacy HDF5 layout) and load that")
        raise CheckpointError(f"{path!r} holds no model weights (no model_weights group and "
                              "no layer_names attribute): it was not written by model.save "
                              "or model.save_weights")

    def _subset(self, parent, name):
        if not hdf5_reader.has(parent, name):
            raise CheckpointError(f"{self.path!r}: layer_names lists {name!r}, but the file "
                                  "has no group for it")
        group = hdf5_reader.member(parent, name, self.path)
        return [(w, hdf5_reader.dataset(group, w, self.path))
                for w in load_attributes(group, "weight_names")]

    def _read_full(self):
        f, path = self.file, self.path
        if hdf5_reader.has(f, "optimizer_weights"):
            group = hdf5_reader.member(f, "optimizer_weights", path)
            if "paddle_slots" in group.attrs:
                self.optimizer = self._optimizer(group)
        if hdf5_reader.has(f, OWN_OPTIMIZERS):
            own = hdf5_reader.member(f, OWN_OPTIMIZERS, path)
            self.own_optimizers = {k: self._optimizer(hdf5_reader.member(own, k, path))
                                   for k in sorted(own)}
        config, training, state = [None if t is None else json.loads(t) for t in self._texts]
        self.model_config, self.training_config = config, training
        self.training_state = _training_state(state, path)

    def _optimizer(self, group):
        path = self.path
        names = load_attributes(group, "weight_names")
        targets = json.loads(read_text(group, "paddle_slots"))
        if not names or not isinstance(targets, list) or len(targets) != len(names) - 1 or \
                not all(isinstance(t, list) and len(t) == 2 for t in targets):
            raise CheckpointError(f"{path!r}: the optimizer state lists {len(names)} weights "
                                  f"for {targets!r:.80} slots")
        steps = hdf5_reader.dataset(group, names[0], path)
        if steps.dtype.kind not in "iu":
            raise CheckpointError(f"{path!r}: the optimizer's step count {names[0]!r} is "
                                  f"{steps.dtype}, not an integer")
        return {"iterations": int(hdf5_reader.read(steps, (), path)),
                "slots": [(int(i), str(slot), hdf5_reader.dataset(group, n, path))
                          for (i, slot), n in zip(targets, names[1:])]}

    def read(self, dset, shape):
        """The values of `dset` (read once), which must have `shape`."""
        if dset.name not in self._values:
            self._values[dset.name] = hdf5_reader.read(dset, shape, self.path)
        return self._values[dset.name]

    def verify(self):
        """Check the checksums saved with the file (Keras's files carry none): from the
        values read, and a block at a time for datasets the model did not ask for."""
        read = lambda dset: self._values.get(dset.name)  # noqa: E731
        _verify(self.weights, "paddle_weights_checksum", self.path,
                lambda: _digest_weights(self.layers, self.top, read))
        if self.full:
            _verify(self.file, "paddle_checksum", self.path,
                    lambda: digest(self._texts, self.optimizer, self.own_optimizers, read))


def _verify(obj, name, path, digest):
    """Files from paddle carry checksums (Keras's do not: nothing to check then)."""
    if name in obj.attrs and read_text(obj, name) != digest():
        raise CheckpointError(f"{path!r} is damaged: what it holds does not match the "
                              "checksum saved with it")


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
