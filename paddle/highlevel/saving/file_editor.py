"""Keras 3's `keras.saving.KerasFileEditor`: inspect, edit and resave the weights of a
`.keras` or `.weights.h5` file without building its model.

The file is read as every checkpoint is (hdf5_reader.py, keras_v3.py): the zip's members
by exact name with capped sizes, HDF5 objects through hard links only, datasets that are
plain numbers stored in the file (no external storage, no virtual datasets), each checked
to fit in memory before it is read. A file refused is an `EditorFileError`: a
`pd.CheckpointError` (paddle's error for a bad checkpoint) that is also the ValueError
Keras's editor raises.

The weights are a nested dict as Keras's editor makes it: one level per HDF5 group with
each object's `vars` group folded into it (`{"layers": {"dense": {"0": kernel, "1":
bias}}}`); `save` writes it back in Keras's layout (`layers/dense/vars/0`), which
`model.load_weights` reads. Summaries are printed as plain text (Keras prints with rich).

Example:
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2)])
    >>> folder = tempfile.mkdtemp()
    >>> model.save_weights(os.path.join(folder, "m.weights.h5"))
    >>> editor = pd.saving.KerasFileEditor(os.path.join(folder, "m.weights.h5"))
    Keras model file '...m.weights.h5'
    >>> {k: v.shape for k, v in editor.weights_dict["layers"]["dense"].items()}
    {'0': (3, 2), '1': (2,)}
"""
import os
import pprint

import h5py

from paddle.errors import CheckpointError
from paddle.highlevel.saving import hdf5_reader, keras_v3

class EditorFileError(CheckpointError, ValueError):
    """A file KerasFileEditor refuses: paddle's CheckpointError and Keras's ValueError."""


# The most bytes a .keras file's model.weights.h5 may expand to when the editor reads it
# (no model says how many it needs): Keras's editor caps each dataset at 4 GiB.
MAX_WEIGHTS_BYTES = 1 << 32


class KerasFileEditor:
    """Inspect, edit and resave the weights of a Keras file (Keras 3's editor).

    Args:
        filepath: a `.keras` or `.weights.h5` file.

    Attributes:
        weights_dict: the weights as a nested dict (see the module).
        config, metadata: a `.keras` file's config.json and metadata.json (None for a
            weights file).

    Raises:
        ValueError: another extension (as Keras).
        EditorFileError: a file paddle's reader refuses (a pd.CheckpointError and a
            ValueError); a missing file is a CheckpointNotFoundError (a FileNotFoundError).

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2, name="d1"),
        ...                        pd.layers.Dense(1)])
        >>> folder = tempfile.mkdtemp()
        >>> model.save(os.path.join(folder, "m.keras"))
        >>> editor = pd.saving.KerasFileEditor(os.path.join(folder, "m.keras"))
        Keras model file '...m.keras'
        Saved with Keras 3.15.1 - date: ...
        >>> editor.delete_object("dense_1")
        >>> editor.add_object("layers/dense_1", {"0": np.ones((2, 1)), "1": np.zeros(1)})
        >>> editor.save(os.path.join(folder, "edited.weights.h5"))
        >>> model.load_weights(os.path.join(folder, "edited.weights.h5"))
        >>> model.layers[1].kernel.numpy().ravel().tolist()
        [1.0, 1.0]
    """

    def __init__(self, filepath):
        self.filepath = filepath
        self.metadata = None
        self.config = None
        self.model = None
        path = os.fspath(filepath)
        if not path.endswith((".keras", ".weights.h5")):
            raise ValueError(f"Invalid filename: expected a `.keras` `.weights.h5` "
                             f"extension. Received: filepath={filepath}")
        try:
            if path.endswith(".keras"):
                self.config = keras_v3.read_archive(path)
                self.metadata = keras_v3.read_metadata(path)
                data = keras_v3.read_weights(path, MAX_WEIGHTS_BYTES)
                with keras_v3.open_weights(data, path) as f:
                    self.weights_dict, self.object_metadata = _extract(f, path)
            else:
                with hdf5_reader.open_file(path) as f:
                    self.weights_dict, self.object_metadata = _extract(f, path)
        except CheckpointError as error:
            if isinstance(error, FileNotFoundError):
                raise
            raise EditorFileError(str(error)) from error
        print(self._generate_filepath_info())
        if self.metadata is not None:
            print(self._generate_metadata_info())

    # ---- inspecting ---------------------------------------------------------------------

    def summary(self):
        """Print the weight structure of the file.

        Example:
            >>> import os, tempfile, paddle as pd
            >>> model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2)])
            >>> path = os.path.join(tempfile.mkdtemp(), "s.weights.h5")
            >>> model.save_weights(path)
            >>> pd.saving.KerasFileEditor(path).summary()
            Keras model file '...s.weights.h5'
            Weights structure
              > layers
                  └─ dense
                      ├─ 0: shape=(3, 2), dtype=float32
                      └─ 1: shape=(2,), dtype=float32
        """
        print("Weights structure")
        self._print_weights_structure(self.weights_dict, prefix=" " * 2)

    def compare(self, reference_model):
        """List the differences between the file and a model's weights (missing objects
        or weights on either side, shape mismatches), as Keras's editor.

        Returns:
            {"status": "success" or "error", "error_count": n, "match_count": m}.

        Example:
            >>> import os, tempfile, paddle as pd
            >>> model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2)])
            >>> path = os.path.join(tempfile.mkdtemp(), "c.weights.h5")
            >>> model.save_weights(path)
            >>> result = pd.saving.KerasFileEditor(path).compare(model)  # doctest: +ELLIPSIS
            Keras model file ...
            >>> result
            {'status': 'success', 'error_count': 0, 'match_count': 2}
        """
        print("Running comparison")
        ref_spec = _spec_of(reference_model)
        checked = set()
        errors, matches = _compare(self.weights_dict, ref_spec, "", "saved file",
                                   "reference model", 0, 0, checked)
        more, _ = _compare(ref_spec, self.weights_dict, "", "reference model", "saved file",
                           0, 0, checked)
        errors += more
        print("─────────────────────")
        if errors == 0:
            status = "success"
            print("Comparison successful: saved file is compatible with the reference model")
            print(f"    Found {matches} matching weight{'' if matches == 1 else 's'}")
        else:
            status = "error"
            print(f"Found {errors} error{'' if errors == 1 else 's'}: saved file is not "
                  f"compatible with the reference model")
        return {"status": status, "error_count": errors, "match_count": matches}

    # ---- editing ------------------------------------------------------------------------

    def rename_object(self, object_name, new_name):
        """Rename an object (a layer): `object_name` is a name (`"dense_2"`, unique in the
        file) or a path (`"layers/dense_2"`); `new_name` a leaf name."""
        def rename(weights, source_name, target_name):
            weights[target_name] = weights.pop(source_name)
        self._edit_object(rename, object_name, new_name)

    def delete_object(self, object_name):
        """Remove an object (a layer) by name or path."""
        def delete(weights, source_name, target_name=None):
            weights.pop(source_name)
        self._edit_object(delete, object_name)

    def add_object(self, object_path, weights):
        """Add an object at `object_path` (`"layers/dense_2"`) with `weights`, a dict of
        weight names to arrays (`{"0": kernel, "1": bias}`).

        Raises:
            ValueError: weights not a dict, or a path whose parent is not in the file.
        """
        _check_weights(weights)
        if "/" in object_path:
            elements = object_path.split("/")
            node = self.weights_dict
            for e in elements[:-1]:
                if e not in node:
                    raise ValueError(f"Path '{'/'.join(elements[:-1])}' not found in model.")
                node = node[e]
            node[elements[-1]] = weights
        else:
            self.weights_dict[object_path] = weights

    def delete_weight(self, object_name, weight_name):
        """Remove the weight `weight_name` (`"0"`) of an object.

        Raises:
            ValueError: the object has no such weight.
        """
        def delete(weights, source_name, target_name=None):
            if weight_name not in weights[source_name]:
                raise ValueError(f"Weight {weight_name} not found in object {object_name}. "
                                 f"Weights found: {list(weights[source_name].keys())}")
            weights[source_name].pop(weight_name)
        self._edit_object(delete, object_name)

    def add_weights(self, object_name, weights):
        """Add weights (a dict of names to arrays) to an existing object."""
        _check_weights(weights)

        def add(found, source_name, target_name=None):
            found[source_name].update(weights)
        self._edit_object(add, object_name)

    def save(self, filepath):
        """Write the edited weights as a `.weights.h5` file (Keras's layout), atomically.

        Raises:
            ValueError: another extension.
        """
        filepath = str(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(f"Invalid `filepath` argument: expected a `.weights.h5` "
                             f"extension. Received: filepath={filepath}")
        keras_v3.write_datasets(filepath, _datasets(self.weights_dict, ""))

    def resave_weights(self, filepath):
        """`save(filepath)`."""
        self.save(filepath)

    # ---- helpers ------------------------------------------------------------------------

    def _edit_object(self, edit_fn, source_name, target_name=None):
        if target_name is not None and "/" in target_name:
            raise ValueError(f"Argument `target_name` should be a leaf name, not a full "
                             f"path name. Received: target_name='{target_name}'")
        if "/" in source_name:
            elements = source_name.split("/")
            node = self.weights_dict
            for e in elements[:-1]:
                if e not in node:
                    raise ValueError(f"Path '{source_name}' not found in model.")
                node = node[e]
            if elements[-1] not in node:
                raise ValueError(f"Path '{source_name}' not found in model.")
            edit_fn(node, source_name=elements[-1], target_name=target_name)
            return
        occurrences = _count(self.weights_dict, source_name)
        if occurrences > 1:
            raise ValueError(f"Name '{source_name}' occurs more than once in the model; try "
                             f"passing a complete path")
        if occurrences == 0:
            raise ValueError(f"Source name '{source_name}' does not appear in the model. Use "
                             f"`editor.weights_summary()` to list all objects.")

        def edit(node):
            for key in list(node):
                if isinstance(node[key], dict):
                    edit(node[key])
            if source_name in node:
                edit_fn(node, source_name=source_name, target_name=target_name)
        edit(self.weights_dict)

    def _generate_filepath_info(self):
        return f"Keras model file '{self.filepath}'"

    def _generate_config_info(self):
        return pprint.pformat(self.config)

    def _generate_metadata_info(self):
        return (f"Saved with Keras {self.metadata.get('keras_version')} - date: "
                f"{self.metadata.get('date_saved')}")

    def _print_weights_structure(self, weights, prefix="", inner_path="", is_first=True):
        for index, (key, value) in enumerate(weights.items()):
            path = f"{inner_path}/{key}"
            last = index == len(weights) - 1
            if is_first:
                is_first = False
                connector = "> "
            else:
                connector = "└─ " if last else "├─ "
            if isinstance(value, dict):
                print(f"{prefix}{connector}{key}")  # (Keras's names its objects in
                # object_metadata, but its summary looks them up by another path: none shown)
                self._print_weights_structure(value, prefix + ("    " if last else "│   "),
                                              path, is_first)
            elif hasattr(value, "shape"):
                print(f"{prefix}{connector}{key}: shape={value.shape}, dtype={value.dtype}")
            else:
                print(f"{prefix}{connector}{key}: {value}")


def _extract(group, path, inner_path="", metadata=None):
    """({name: array or nested dict}, {group path: its attributes}) of an HDF5 group, as
    Keras's editor folds it (empty groups skipped, a `vars` group folded into its owner),
    every object reached and read through hdf5_reader."""
    metadata = {} if metadata is None else metadata
    attributes = {k: v for k, v in group.attrs.items() if isinstance(v, (str, int, float))}
    if attributes:
        metadata[inner_path] = attributes
    result = {}
    for key in group.keys():
        here = f"{inner_path}/{key}"
        value = hdf5_reader.member(group, key, path)  # refuses external and soft links
        if isinstance(value, h5py.Group):
            if len(value) == 0:
                continue
            if hdf5_reader.has(value, "vars"):
                inner = hdf5_reader.member(value, "vars", path)
                if not isinstance(inner, h5py.Group):
                    raise CheckpointError(f"{path!r}: {inner.name!r} is a dataset where a "
                                          f"group of variables belongs")
                if len(inner) == 0:
                    continue
                result[key], metadata = _extract(inner, path, here, metadata)
            else:
                result[key], metadata = _extract(value, path, here, metadata)
            continue
        dset = hdf5_reader.dataset(group, key, path)  # plain numbers stored in this file
        result[key] = hdf5_reader.read(dset, dset.shape, path)
    return result, metadata


def _count(weights, name, count=0):
    """Keras's count of the occurrences of `name` (its recursion passes the running count
    down, so deep names count more than once: kept for the same errors)."""
    for key in weights:
        if isinstance(weights[key], dict):
            count += _count(weights[key], name, count)
    if name in weights:
        count += 1
    return count


def _check_weights(weights):
    if not isinstance(weights, dict):
        raise ValueError(f"Argument `weights` should be a dict where keys are weight names "
                         f"(usually '0', '1', etc.) and values are NumPy arrays. Received: "
                         f"type(weights)={type(weights)}")


def _datasets(weights, inner_path):
    """[(dataset path, array)] of a weights dict in Keras's layout (`<path>/vars/<name>`)."""
    out, here = [], []
    for name, value in weights.items():
        if isinstance(value, dict):
            if value:
                out += _datasets(value, f"{inner_path}/{name}" if inner_path else name)
        else:
            here.append((name, value))
    folder = f"{inner_path}/vars" if inner_path else "vars"
    return [(f"{folder}/{name}", value) for name, value in here] + out


def _spec_of(model):
    """The weights dict a file saved from `model` holds (shapes only), built from the
    datasets `save_weights` writes."""
    spec = {}
    for dataset_path, value in keras_v3.saved_datasets(model):
        parts = [p for p in dataset_path.split("/") if p != "vars"]
        node = spec
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return spec


def _compare(target, ref_spec, inner_path, target_name, ref_name, error_count,
             match_count, checked_paths):
    """Keras's walk of the editor's comparison (its counts, its messages)."""
    base = inner_path
    for key, ref_value in ref_spec.items():
        inner_path = f"{base}/{key}"
        if inner_path in checked_paths:
            continue
        if key not in target:
            error_count += 1
            checked_paths.add(inner_path)
            if isinstance(ref_value, dict):
                print(f"...Object {inner_path} present in {ref_name}, missing from "
                      f"{target_name}")
                print(f"    In {ref_name}, {inner_path} contains the following keys: "
                      f"{list(ref_value.keys())}")
            else:
                print(f"...Weight {inner_path} present in {ref_name}, missing from "
                      f"{target_name}")
        elif isinstance(ref_value, dict):
            errors, matches = _compare(target[key], ref_value, inner_path, target_name,
                                       ref_name, error_count, match_count, checked_paths)
            error_count += errors
            match_count += matches
        elif tuple(target[key].shape) != tuple(ref_value.shape):
            error_count += 1
            checked_paths.add(inner_path)
            print(f"...Weight shape mismatch for {inner_path}\n    In {ref_name}: "
                  f"shape={tuple(ref_value.shape)}\n    In {target_name}: "
                  f"shape={tuple(target[key].shape)}")
        else:
            match_count += 1
    return error_count, match_count
