"""HDF5 checkpoints in Keras's legacy layout: `model.save` / `pd.load_model` and
`model.save_weights` / `model.load_weights`.

A file written by `model.save` holds (see docs/saving.md for a listing):

- root attributes `model_config` (JSON, architecture.py), `training_config` (JSON,
  compiling.py; when compiled), `backend`, `keras_version`, `paddle_version` and
  `paddle_training_state` (last finished epoch and paddle's random state);
- group `model_weights`: attribute `layer_names`, one group per layer with attribute
  `weight_names` and one dataset per weight, in Keras order, then
  `top_level_model_weights` (parameters that no layer owns);
- group `optimizer_weights`: the step count, then every slot (moments, velocities);
  group `paddle_optimizers`: the same for each optimizer the model holds as an attribute
  besides `model.optimizer` (a custom train_step's own, by attribute name).

The file format itself (attributes, groups, checksums, atomic writes) is hdf5_file.py.
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
import warnings

import numpy as np

from paddle.errors import CheckpointError
from paddle.lowlevel import random_state, stored_state
from paddle.lowlevel.optimizers import Optimizer
from paddle.lowlevel.shapes import memory_budget
from paddle.highlevel.saving import architecture, compiling, hdf5_file
from paddle.highlevel.saving.hdf5_file import TOP_LEVEL, atomic_write, file_path, open_checkpoint


# ---- writing ---------------------------------------------------------------------------

def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """Write the architecture, weights, optimizer state, compile settings and training
    position of `model` to one HDF5 file in Keras's legacy layout (atomically)."""
    config = architecture.dumps(architecture.model_config(model))
    compiled = include_optimizer and getattr(model, "compiled", False) and \
        getattr(model, "optimizer", None) is not None
    training = architecture.dumps(compiling.training_config(model)) if compiled else None
    groups, top = architecture.weight_layout(model)
    with stored_state.LOCK:  # one snapshot, before or after a step of a fit elsewhere
        state = architecture.dumps({
            "last_finished_epoch": getattr(model, "_last_finished_epoch", None),
            "rng_state": random_state.get_state()})
        weights = hdf5_file.weight_values(groups, top)
        optimizer = hdf5_file.optimizer_state(model.optimizer, groups, top) \
            if compiled else None
        own = [(name, hdf5_file.optimizer_state(opt, groups, top))
               for name, opt in _own_optimizers(model)] if compiled else []
    atomic_write(filepath, lambda f: hdf5_file.write_model(f, [config, training, state],
                                                             weights, optimizer, own),
                 overwrite)


def save_weights(model, filepath, overwrite=True):
    """Write the weights alone in Keras's legacy weights layout (the layer groups at the
    root of the file)."""
    groups, top = architecture.weight_layout(model)
    with stored_state.LOCK:  # one snapshot, before or after a step of a fit elsewhere
        weights = hdf5_file.weight_values(groups, top)
    atomic_write(filepath, lambda f: hdf5_file.write_weights(f, *weights), overwrite)


def load_model(path, custom_objects=None, compile=True, safe_mode=True):
    """Rebuild a model saved in the legacy HDF5 layout (api.load_model's arguments)."""
    with open_checkpoint(path, full=True) as saved:
        model = _rebuild(path, saved.model_config, custom_objects, safe_mode)
        groups, top = architecture.weight_layout(model)
        pairs = match_by_order(path, groups, top, saved)
        slots, own = [], []
        if compile and saved.training_config is not None:
            try:
                args = compiling.compile_args(saved.training_config, model,
                                                   custom_objects)
            except CheckpointError as e:
                raise CheckpointError(f"{path}: {e}") from e
            try:
                model.compile(**args)
            except (ValueError, TypeError, KeyError) as e:
                raise CheckpointError(f"{path}: could not compile the model as it was saved "
                                      f"({type(e).__name__}: {e}); load with compile=False") \
                    from e
            slots = _check_optimizer(path, model.optimizer, saved.optimizer, groups, top)
            own = _check_own_optimizers(path, model, saved.own_optimizers, groups, top)
        pairs, slots, own = _read_checked(saved, pairs, slots, own, model.optimizer)
    _assign(pairs)
    _restore_optimizer(model.optimizer, saved.optimizer, slots)
    for optimizer, state, own_slots in own:
        _restore_optimizer(optimizer, state, own_slots)
    state = saved.training_state
    if compile and state["rng_state"]:
        random_state.set_state(state["rng_state"])
    model._last_finished_epoch = state["last_finished_epoch"]
    return model


def _rebuild(path, config, custom_objects, safe_mode):
    """The model of a saved config, its weights freshly made (within this machine's
    memory: model_from_config)."""
    try:
        return architecture.model_from_config(config, custom_objects, safe_mode)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from e
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        raise CheckpointError(f"{path}: could not rebuild the model from its config "
                              f"({type(e).__name__}: {e})") from e


def _read_checked(saved, pairs, slots, own, optimizer=None):
    """Read the datasets the model takes (their shapes checked already) and verify the
    file's checksums; nothing is assigned before this has passed."""
    def values(slot_list, opt):  # (a slot's shape is its own: Adafactor's are not the weight's)
        return [(var, slot, saved.read(d, opt.slots(var)[slot].shape))
                for var, slot, d in slot_list]
    pairs = [(w, saved.read(d, w.shape)) for w, d in pairs]
    slots = values(slots, optimizer) if slots else slots
    own = [(opt, state, values(s, opt)) for opt, state, s in own]
    saved.verify()
    return pairs, slots, own


def load_weights(model, path, by_name=False, skip_mismatch=False):
    """Load weights from a legacy HDF5 file of `save_weights` or `save` (paddle's or
    Keras's).

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
    groups, top = architecture.weight_layout(model)
    with open_checkpoint(path, full=False) as saved:
        if by_name:
            pairs = match_by_name(path, groups, top, saved, skip_mismatch)
        else:
            pairs = match_by_order(path, groups, top, saved)
        pairs, _, _ = _read_checked(saved, pairs, [], [])
    with stored_state.LOCK:  # all at once for a predict or fit in another thread
        _assign(pairs)


def restore_training_state(model, filepath):
    """Put a `model.save` file's weights, optimizer state and random state back into this
    (compiled) model; returns the last finished epoch saved (None if unknown)."""
    path = file_path(filepath, "restore")
    with open_checkpoint(path, full=True) as saved:
        try:
            with memory_budget():
                architecture.ensure_built(model, saved.model_config)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError,
                MemoryError) as e:
            raise CheckpointError(f"{path}: the model could not be built on the saved input "
                                  f"shapes ({type(e).__name__}: {e})") from e
        groups, top = architecture.weight_layout(model)
        pairs = match_by_order(path, groups, top, saved)
        optimizer = getattr(model, "optimizer", None)
        slots = _check_optimizer(path, optimizer, saved.optimizer, groups, top) \
            if optimizer is not None else []
        own = _check_own_optimizers(path, model, saved.own_optimizers, groups, top)
        pairs, slots, own = _read_checked(saved, pairs, slots, own, optimizer)
    with stored_state.LOCK:  # all at once for a predict or fit in another thread
        _assign(pairs)
        if optimizer is not None:
            _restore_optimizer(optimizer, saved.optimizer, slots)
        for own_optimizer, state, own_slots in own:
            _restore_optimizer(own_optimizer, state, own_slots)
        state = saved.training_state
        if state["rng_state"]:
            random_state.set_state(state["rng_state"])
        model._last_finished_epoch = state["last_finished_epoch"]
    return model._last_finished_epoch


# ---- matching weights to the model ------------------------------------------------------

def match_by_order(path, groups, top, contents):
    """[(Variable, array)] pairing the model's layers that have weights with the file's, in
    order (Keras's topological loading); every count and shape checked first."""
    mine = [(name, ws) for name, ws in groups if ws]
    theirs = [(name, values) for name, values in contents.layers if values]
    if len(mine) != len(theirs):
        raise CheckpointError(
            f"{path}: layer count mismatch: the file holds weights for {len(theirs)} layers "
            f"{[n for n, _ in theirs]}, the model has {len(mine)} layers with weights "
            f"{[n for n, _ in mine]}")
    pairs = []
    for (name, ws), (saved, values) in zip(mine, theirs):
        pairs += _pair(path, name, saved, ws, values)
    if top or contents.top:
        pairs += _pair(path, "(top level)", TOP_LEVEL, top, contents.top or [])
    return pairs


def match_by_name(path, groups, top, contents, skip_mismatch):
    index = dict(groups)
    saved = list(contents.layers)
    if contents.top is not None:
        saved.append((TOP_LEVEL, contents.top))
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
        if not 0 <= i < len(flat) or slot not in optimizer.all_slot_names() or \
                slot not in optimizer.slots(flat[i]):  # (Muon's differ between weights)
            raise CheckpointError(
                f"{path}: the saved optimizer state (slot {slot!r} of weight #{i}) does not fit "
                f"this model's {type(optimizer).__name__} "
                f"(slots {list(optimizer.all_slot_names())}, "
                f"{len(flat)} weights)")
        shape = optimizer.slots(flat[i])[slot].shape  # (Adafactor's are not the weight's)
        if tuple(value.shape) != shape:
            raise CheckpointError(f"{path}: optimizer slot {slot!r} of {flat[i].name!r} has "
                                  f"shape {shape}, the file's has {value.shape}")
        out.append((flat[i], slot, value))
    return out


def _own_optimizers(model):
    """[(attribute, optimizer)] the model holds besides model.optimizer (a custom
    train_step's own, such as a GAN's second optimizer), by attribute name."""
    main = getattr(model, "optimizer", None)
    return sorted((name, value) for name, value in vars(model).items()
                  if isinstance(value, Optimizer) and value is not main)


def _check_own_optimizers(path, model, saved, groups, top):
    """[(optimizer, saved state, slots)] for each saved own optimizer, all checked first."""
    out = []
    for name, state in saved.items():
        optimizer = getattr(model, name, None)
        if not isinstance(optimizer, Optimizer):
            raise CheckpointError(f"{path}: the file holds the state of the optimizer "
                                  f"{name!r} of the model, but this model has no optimizer "
                                  "attribute of that name")
        out.append((optimizer, state, _check_optimizer(path, optimizer, state, groups, top)))
    return out


def _restore_optimizer(optimizer, saved, slots):
    if saved is None or optimizer is None:
        return
    optimizer.iterations = saved["iterations"]
    for var, slot, value in slots:
        # In place: a compiled training step holds these very arrays.
        np.copyto(optimizer.slots(var)[slot], value, casting="unsafe")
