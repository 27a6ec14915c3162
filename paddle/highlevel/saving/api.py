"""The one saving dispatcher: `model.save`, `pd.load_model`, `model.save_weights`,
`model.load_weights` and the checkpoint callbacks come here, and the format is chosen here
alone: by the file's name when writing (formats.py), by its contents when reading.

- `.keras`: Keras 3's zip (keras_v3.py); a `.weights.h5` name: Keras 3's weights layout;
- `.h5` / `.hdf5`: Keras's legacy HDF5 layout (legacy_hdf5.py, over hdf5_file.py and the
  checked reader hdf5_reader.py); any other model file name is a ValueError, as in Keras 3.

Example:
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    >>> x = np.ones((1, 3), np.float32)
    >>> for name in ("model.keras", "model.h5"):
    ...     path = os.path.join(tempfile.mkdtemp(), name)
    ...     model.save(path)
    ...     print(name, bool(np.array_equal(pd.load_model(path).predict(x), model.predict(x))))
    model.keras True
    model.h5 True
"""
import json
import os
import zipfile

import h5py

from paddle import _settings as settings
from paddle.highlevel.models.model import Model
from paddle.highlevel.saving import compiling, keras_v3, legacy_hdf5
from paddle.highlevel.saving.formats import (
    SAVING, check_model_file_name, is_keras_name, is_keras_weights_name)
from paddle.highlevel.saving.hdf5_file import file_path
from paddle.highlevel.saving.serialization import deserialize_keras_object


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """Write the architecture, weights, optimizer state, compile settings and training
    position of `model` to one file (atomically): a name ending in `.keras` gets Keras 3's
    native zip (keras_v3.py), `.h5` or `.hdf5` the legacy HDF5 layout; any other name
    is a ValueError, as in Keras 3."""
    check_model_file_name(filepath)
    if is_keras_name(filepath):
        keras_v3.save_keras(model, filepath, overwrite, include_optimizer)
    else:
        legacy_hdf5.save_model(model, filepath, overwrite, include_optimizer)


def save_weights(model, filepath, overwrite=True):
    """Write the weights alone: a name ending in `.weights.h5` gets Keras 3's layout (with
    the optimizer's state, as Keras 3 writes it), any other name Keras's legacy weights
    file (the layer groups at the root)."""
    if is_keras_weights_name(filepath):
        keras_v3.save_weights_h5(model, filepath, overwrite)
    else:
        legacy_hdf5.save_weights(model, filepath, overwrite)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Rebuild a model saved by `model.save` (a `.keras` zip, paddle's or Keras 3's, or an
    HDF5 file).

    Args:
        filepath: the `.keras` or HDF5 file.
        custom_objects: {name: class or function} for custom layers, models, losses,
            metrics and optimizers the file names.
        compile: compile the model as it was and restore the optimizer's state and
            paddle's random state, so `fit(..., initial_epoch=k)` continues training
            exactly; False gives an inference-only model.
        safe_mode: refuse a file holding Python bytecode (a `Lambda` layer's function),
            since rebuilding the model would run it (as Keras 3 does). Pass False only
            for a file you trust; its bytecode is still checked before it is used.
    Returns:
        The model, predicting as the saved one did.
    Raises:
        CheckpointError: a missing file (a FileNotFoundError too), a damaged or foreign
            file (the message says what it holds), an unknown custom class,
            weights that do not fit the architecture, or (with safe_mode) a Lambda's
            bytecode. docs/security.md says what loading an untrusted file risks.

    Example:
        >>> import os, tempfile, paddle as pd
        >>> path = os.path.join(tempfile.mkdtemp(), "m.h5")
        >>> pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)]).save(path)
        >>> pd.load_model(path).outputs[0].shape
        (None, 1)
    """
    if not isinstance(safe_mode, bool):
        raise TypeError(f"load_model: safe_mode must be True or False, received {safe_mode!r}")
    if not settings.safe_mode_default():  # pd.config.enable_unsafe_deserialization()
        safe_mode = False
    path = file_path(filepath, "load_model")
    if os.path.isfile(path) and zipfile.is_zipfile(path):
        return keras_v3.load_keras(path, custom_objects, compile, safe_mode)
    return legacy_hdf5.load_model(path, custom_objects, compile, safe_mode)


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    """Load weights from a file of `save_weights` or `save` (paddle's or Keras's).

    Args:
        by_name: match layers by name (layers missing on either side are left alone)
            instead of by order (legacy HDF5 files only).
        skip_mismatch: with by_name, skip (with a warning) each layer whose weight count
            or shapes differ instead of failing.
    Raises:
        CheckpointError: a missing, damaged or foreign file, a layer count mismatch, or a
            weight whose shape differs (nothing is assigned then).
    """
    path = file_path(filepath, "load_weights")
    if is_keras3_file(path):
        if by_name:
            raise ValueError(f"load_weights: by_name=True matches layers of legacy .h5 files; "
                             f"{path} is a Keras 3 file, whose weights are found by Keras 3's "
                             "paths (as in Keras 3, which has no by_name for it)")
        keras_v3.load_weights(model, path, skip_mismatch)
        return
    legacy_hdf5.load_weights(model, path, by_name, skip_mismatch)


def restore_training_state(model, filepath):
    """Put a `model.save` file's weights, optimizer state and random state back into this
    (compiled) model (BackupAndRestore's backup); returns the last finished epoch saved
    (None if unknown)."""
    return legacy_hdf5.restore_training_state(model, filepath)


def is_keras3_file(path):
    """A Keras 3 file: a `.keras` zip or a Keras 3 weights file (by contents)."""
    return os.path.isfile(path) and (zipfile.is_zipfile(path) or is_keras3_weights(path))


def is_keras3_weights(path):
    """A Keras 3 weights file (groups `layers`/`vars`, no legacy `layer_names`)."""
    try:
        if not h5py.is_hdf5(path):
            return False
        with h5py.File(path, "r") as f:
            return "layer_names" not in f.attrs and "model_weights" not in f and \
                ("layers" in f or "vars" in f or "_layer_checkpoint_dependencies" in f)
    except OSError:
        return False


def model_from_json(json_string, custom_objects=None):
    """The model a `model.to_json()` string describes (new weights).

    Example:
        >>> import paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
        >>> clone = pd.models.model_from_json(model.to_json())
        >>> [type(l).__name__ for l in clone.layers], clone.outputs[0].shape
        (['Dense'], (None, 3))
    """
    if not isinstance(json_string, (str, bytes, bytearray)):
        raise TypeError(f"model_from_json: expected a JSON string, received "
                        f"{type(json_string).__name__}")
    try:
        config = json.loads(json_string)
    except ValueError as e:
        raise ValueError(f"model_from_json: not valid JSON ({e})") from None
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"model_from_json: expected a model's JSON ({{'class_name', "
                         f"'config', ...}}), received {str(config)[:80]!r}")
    model = deserialize_keras_object(config, custom_objects)
    if not isinstance(model, Model):
        raise ValueError(f"model_from_json: the JSON describes a {type(model).__name__}, "
                         "not a model")
    return model


def to_json(model, **kwargs):
    """`model.to_json(**kwargs)`: the architecture in Keras 3's format."""
    return keras_v3.dumps(keras_v3.keras_config(model, compile_config=False), **kwargs)


def compile_config(model):
    """`model.get_compile_config()`: the compile arguments in Keras 3's `compile_config`."""
    return keras_v3._keras_compile_config(model, compiling.training_config(model))


def compile_args_from_config(model, config):
    """The `model.compile` arguments of a Keras 3 `compile_config` dict."""
    training = keras_v3._paddle_training_config({"compile_config": config})
    return compiling.compile_args(training, model)


# The floors below reach these through formats.SAVING (they cannot import this module).
SAVING.update(save_model=save_model, save_weights=save_weights, load_weights=load_weights,
              restore_training_state=restore_training_state, to_json=to_json,
              compile_config=compile_config, compile_args_from_config=compile_args_from_config)
