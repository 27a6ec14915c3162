"""Which file format a name asks for, and the table through which the floors below saving
(models, callbacks) reach it without importing it.

`model.save("m.keras")` writes Keras 3's zip, `"m.h5"` / `"m.hdf5"` the legacy HDF5 layout,
and any other name is a ValueError before anything is written (as in Keras 3); weights go
to Keras 3's layout for a name ending in `.weights.h5`, to the legacy layout otherwise.
api.py (the dispatcher) and architecture.py fill `SAVING` when they are imported; `Model`
and the checkpoint callbacks call through it. This module imports nothing of paddle's.

Example:
    >>> from paddle.highlevel.saving import formats
    >>> formats.is_keras_name("m.keras"), formats.is_keras_weights_name("m.weights.h5")
    (True, True)
    >>> formats.check_model_file_name("m.onnx")
    Traceback (most recent call last):
        ...
    ValueError: model.save: expected a file name ending in .keras (Keras 3's format, recommended) or .h5 / .hdf5 (the legacy HDF5 layout), received filepath='m.onnx'; use model.export(filepath) for ONNX
"""
import os

MODEL_FILE_EXTENSIONS = (".keras", ".h5", ".hdf5")

# What the saving floor does for the floors below it: "save_model", "save_weights",
# "load_weights", "restore_training_state", "to_json", "compile_config",
# "compile_args_from_config" (api.py); "model_config", "functional_from_config",
# "sequential_from_config", "serialize_layer" (architecture.py).
SAVING = {}


def saving(what):
    """The function of the saving floor registered as `what`."""
    return SAVING[what]


def file_name(filepath):
    """The path as a str ("" when it is not a path)."""
    try:
        return os.fspath(filepath)
    except TypeError:
        return ""


def is_keras_name(filepath):
    """A `.keras` name: Keras 3's zip."""
    return file_name(filepath).endswith(".keras")


def is_keras_weights_name(filepath):
    """A `.weights.h5` name: Keras 3's weights layout."""
    return file_name(filepath).endswith(".weights.h5")


def check_model_file_name(filepath, who="model.save"):
    """As Keras 3: a model file's name ends in `.keras` (Keras 3's zip) or `.h5`/`.hdf5`
    (the legacy HDF5 layout); any other name is a ValueError naming `who`, before anything
    is written (rather than a file whose format its name does not say). A folder is left
    to the writer, which says it is one."""
    name = file_name(filepath)
    if name and not name.endswith(MODEL_FILE_EXTENSIONS) and not os.path.isdir(name):
        raise ValueError(f"{who}: expected a file name ending in .keras (Keras 3's format, "
                         f"recommended) or .h5 / .hdf5 (the legacy HDF5 layout), received "
                         f"filepath={name!r}; use model.export(filepath) for ONNX")
