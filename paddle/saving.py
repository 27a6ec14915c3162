"""`pd.saving`: Keras 3's saving API (as `keras.saving`).

`save_model` / `load_model` write and read whole models (`.keras` zips in Keras 3's
format, or legacy HDF5 files); `register_keras_serializable`, `get_custom_objects` and
`custom_object_scope` make custom classes and functions loadable by name;
`serialize_keras_object` / `deserialize_keras_object` turn objects into configs and back.
docs/saving.md describes the files.

Example:
    >>> import os, tempfile, paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
    >>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
    >>> pd.saving.save_model(model, path)
    >>> pd.saving.load_model(path).outputs[0].shape
    (None, 1)
"""
from paddle.highlevel.models.model import Model
from paddle.highlevel.saving.api import load_model  # noqa: F401
from paddle.highlevel.saving.file_editor import KerasFileEditor  # noqa: F401
from paddle.highlevel.saving.registry import (  # noqa: F401
    CustomObjectScope, custom_object_scope, get_custom_objects, get_registered_name,
    get_registered_object, register_keras_serializable)
from paddle.highlevel.saving.serialization import (  # noqa: F401
    deserialize_keras_object, serialize_keras_object)


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """`model.save(filepath, ...)`: a `.keras` name gets Keras 3's zip, `.h5` / `.hdf5`
    HDF5 (another name is a ValueError, as in Keras 3)."""
    if not isinstance(model, Model):
        raise TypeError(f"save_model: expected a model, received {type(model).__name__}")
    model.save(filepath, overwrite=overwrite, include_optimizer=include_optimizer)


def load_weights(model, filepath, skip_mismatch=False):
    """`model.load_weights(filepath, skip_mismatch=...)`."""
    model.load_weights(filepath, skip_mismatch=skip_mismatch)


def save_weights(model, filepath, overwrite=True):
    """`model.save_weights(filepath, overwrite=...)`."""
    model.save_weights(filepath, overwrite=overwrite)
