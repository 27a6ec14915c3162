"""`pd.export.ExportArchive`: Keras 3's API for an inference artifact of several named
endpoints, written in paddle's inference format (ONNX) instead of a TensorFlow SavedModel.

Each endpoint is a function of tracked layers and models traced once on symbolic inputs
made from its `input_signature` (`pd.InputSpec`s, or structures of them) and converted to
its own ONNX graph, with the weights as initializers, as `model.export` does. `write_out`
writes one file, a zip archive (stored, written atomically) of:

    archive.json                 the format, version and each endpoint's ONNX file, input
                                 signature, argument names and input/output structures
    endpoints/<name>.onnx        one ONNX model per endpoint (opset 17, dynamic batch)
    variables/<group>/<i>.npy    the tracked variables' values and the variable collections

`pd.export.load_archive(path)` reads it back: the JSON is parsed as data, the arrays with
`allow_pickle=False`, each ONNX graph is refused if it points at external data, and the
endpoints run with ONNX Runtime: nothing in the file is run as Python code.

Example:
    >>> import numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2)])
    >>> archive = pd.export.ExportArchive()
    >>> archive.track(model)
    >>> _ = archive.add_endpoint("serve", model.__call__,
    ...                          input_signature=[pd.InputSpec(shape=(None, 3), dtype="float32")])
    >>> archive.write_out("model_archive.zip", verbose=False)
    >>> reloaded = pd.export.load_archive("model_archive.zip")
    >>> x = np.ones((4, 3), "float32")
    >>> bool(np.allclose(reloaded.serve(x), model.predict(x, verbose=0), atol=1e-6))
    True
"""
import inspect
import io
import json
import os
import re
import zipfile

import numpy as np

from paddle._atomic import write_bytes
from paddle.errors import CheckpointError, ExportError, at_user
from paddle.lowlevel import eager
from paddle.lowlevel.graph import Variable
from paddle.highlevel.layers.base import Input, InputSpec, Layer
from paddle.highlevel.models.model import Model
from paddle.highlevel.operation import Function
from paddle.highlevel.saving.keras_v3 import _read_member
from paddle.export.onnx import OPSET, _onnx, onnx_model

FORMAT, VERSION = "paddle-export-archive", 1
MANIFEST = "archive.json"
MAX_MANIFEST_BYTES = 64 << 20
# Attributes of the reloaded archive that endpoint and collection names may not take.
RESERVED = ("variables", "trainable_variables", "non_trainable_variables", "signatures",
            "endpoint_names", "variable_collections")
_SIGNATURE_HELP = ("\n\nexport_archive.add_endpoint(\n    name='call',\n    fn=model.call,\n"
                   "    input_signature=[\n        pd.InputSpec(\n"
                   "            shape=(None, 224, 224, 3),\n            dtype='float32',\n"
                   "        )\n    ],\n)")


class ExportArchive:
    """Named inference endpoints of layers and models, written as one archive of ONNX graphs
    (Keras 3's `keras.export.ExportArchive`, whose artifact is a TensorFlow SavedModel).

    `track(layer)` registers a built layer or model (its variables become the archive's
    `variables`); `add_endpoint(name, fn, input_signature)` traces `fn` on symbolic inputs
    of that signature and keeps its graph; `add_variable_collection(name, variables)` saves
    variables to read back; `write_out(path)` writes the archive, which
    `pd.export.load_archive` reloads with each endpoint as a method. Layers an endpoint
    uses without being tracked are exported too (their weights are part of the graph), as
    in Keras.

    Args:
        format: "onnx", the only format (Keras's "saved_model" needs TensorFlow).

    Raises:
        ValueError: another format.

    Example:
        >>> import numpy as np, paddle as pd
        >>> model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2)])
        >>> archive = pd.export.ExportArchive()
        >>> archive.track(model)
        >>> len(archive.variables), len(archive.trainable_variables)
        (2, 2)
    """

    def __init__(self, format="onnx"):
        if format != "onnx":
            raise ValueError(f"Unsupported format: {format!r}. paddle's ExportArchive writes "
                             "ONNX endpoints (format='onnx'); a TensorFlow SavedModel needs "
                             "TensorFlow")
        self.format = format
        self._endpoint_names = []
        self._endpoints = {}     # name -> _Endpoint
        self._collections = {}   # name -> [Variable]
        self._tracked = []
        self.trainable_variables, self.non_trainable_variables = [], []

    @property
    def variables(self):
        return self.trainable_variables + self.non_trainable_variables

    def track(self, resource):
        """Track the variables of a built layer or model (Keras's `track`).

        Raises:
            ValueError: the layer is not built, or `resource` is not a layer.
        """
        if not isinstance(resource, Layer):
            raise ValueError(at_user(
                "Invalid resource type. Expected a paddle `Layer` or `Model`. Received object "
                f"{resource!r} of type '{type(resource).__name__}'."))
        if not resource.built:
            raise ValueError(at_user("The layer provided has not yet been built. It must be "
                                     "built before export."))
        if any(r is resource for r in self._tracked):
            return
        self._tracked.append(resource)
        known = {id(v) for v in self.variables}
        self.trainable_variables += [v for v in resource.trainable_weights
                                     if id(v) not in known]
        self.non_trainable_variables += [v for v in resource.non_trainable_weights
                                         if id(v) not in known]

    def add_endpoint(self, name, fn, input_signature=None, **kwargs):
        """Register `fn` as the endpoint `name`, traced on `input_signature` (Keras's).

        Args:
            name: the endpoint's name (a Python identifier: the reloaded method's name).
            fn: a callable of the tracked layers and models (`model.__call__`,
                `layer.call`, a lambda, a `pd.Function`), taking one argument per entry of
                `input_signature`.
            input_signature: a list with, per argument of `fn`, a `pd.InputSpec` with shape
                and dtype (or a `pd.Input`, or a tensor whose shape and dtype it takes,
                with a free batch axis), or a list, tuple or dict of them.

        Returns:
            An `EndpointFunction`: the endpoint computed by paddle, called with the same
            arguments (on arrays, or on symbolic inputs inside another endpoint).

        Raises:
            ValueError: the name is taken or not an identifier, no input_signature, a
                TensorFlow/JAX-only argument (jax2tf_kwargs, is_static), or `fn` builds
                something ONNX export cannot map (an ExportError).
            TypeError: a signature entry that is not a spec, an Input or a tensor.
        """
        _check_name(name, "endpoint")
        if name in self._endpoint_names:
            raise ValueError(at_user(f"Endpoint name '{name}' is already taken."))
        if kwargs:
            raise ValueError(at_user(
                f"ExportArchive.add_endpoint: unexpected arguments {sorted(kwargs)} "
                "('jax2tf_kwargs' and 'is_static' are only supported with Keras's JAX backend)"))
        if input_signature is None:
            raise ValueError(at_user(
                "If the `fn` argument provided is not a traced function, you must provide an "
                "`input_signature` argument to specify the shape and dtype of the function "
                "arguments. Example:" + _SIGNATURE_HELP))
        if not isinstance(input_signature, (list, tuple)):
            input_signature = [input_signature]
        if not callable(fn):
            raise TypeError(at_user(f"ExportArchive.add_endpoint: expected fn to be callable, "
                                    f"received {type(fn).__name__}"))
        endpoint = _Endpoint(name, fn, [_map(_spec, s) for s in input_signature])
        try:  # refuse now what cannot be exported, at the line that added it
            endpoint.onnx()
        except ExportError as e:
            raise ExportError(at_user(f"ExportArchive.add_endpoint: endpoint '{name}': "
                                      f"{e}")) from None
        self._endpoints[name] = endpoint
        self._endpoint_names.append(name)
        return endpoint.function

    def track_and_add_endpoint(self, name, resource, input_signature, **kwargs):
        """`track(resource)`, then `add_endpoint(name, resource.__call__, input_signature)`."""
        self.track(resource)
        return self.add_endpoint(name, resource.__call__, input_signature, **kwargs)

    def add_variable_collection(self, name, variables):
        """Save `variables` (a list, tuple or set of paddle Variables holding values: weights,
        optimizer slots) under `name`, an attribute of the reloaded archive (Keras's).

        Raises:
            ValueError: `variables` is not a list/tuple/set of Variables, or the name is not
                an identifier or is an endpoint's.
        """
        _check_name(name, "collection")
        if name in self._endpoints:
            raise ValueError(at_user(f"Collection name '{name}' is already an endpoint's."))
        if not isinstance(variables, (list, tuple, set)):
            raise ValueError(at_user(
                "Expected `variables` to be a list/tuple/set. Received instead object of "
                f"type '{type(variables).__name__}'."))
        bad = sorted({type(v).__name__ for v in variables
                      if not isinstance(v, Variable) or v.kind not in ("param", "const")})
        if bad:
            raise ValueError(at_user(
                "Expected all elements in `variables` to be paddle Variables holding values "
                f"(weights). Found instead the following types: {bad}"))
        self._collections[name] = list(variables)

    def write_out(self, filepath, options=None, verbose=True):
        """Write the archive (one zip file; see the module's docstring) atomically.

        Args:
            filepath: the file to write (its folder must exist).
            options: None (Keras's are TensorFlow SaveOptions).
            verbose: print the endpoints and their signatures, as Keras.

        Raises:
            ValueError: no endpoint was added, or options were given.
        """
        if not self._endpoint_names:
            raise ValueError(at_user("No endpoints have been set yet. Call add_endpoint()."))
        if options is not None:
            raise ValueError(at_user("ExportArchive.write_out: options are TensorFlow "
                                     f"SaveOptions, which paddle has not; received {options!r}"))
        path = os.fspath(filepath)
        members, manifest = {}, {"format": FORMAT, "version": VERSION, "opset": OPSET,
                                 "endpoints": [], "variables": {}}
        for name in self._endpoint_names:
            proto = self._endpoints[name].onnx()  # with the weights' values of now
            members[f"endpoints/{name}.onnx"] = proto.SerializeToString()
            manifest["endpoints"].append(self._endpoints[name].manifest(proto))
        groups = {"trainable_variables": self.trainable_variables,
                  "non_trainable_variables": self.non_trainable_variables,
                  **self._collections}
        for group, variables in groups.items():
            manifest["variables"][group] = [v.name for v in variables]
            for i, v in enumerate(variables):
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, np.ascontiguousarray(v.val()),
                                          allow_pickle=False)
                members[f"variables/{group}/{i}.npy"] = buffer.getvalue()
        manifest["variable_collections"] = list(self._collections)
        members[MANIFEST] = json.dumps(manifest, indent=1).encode()
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
            for member, data in members.items():
                zf.writestr(member, data)
        write_bytes(path, buffer.getvalue(), "ExportArchive.write_out")
        if verbose:
            listing = "\n\n".join(self._endpoints[n].describe() for n in self._endpoint_names)
            print(f"Saved artifact at '{path}'. The following endpoints are available:\n\n"
                  f"{listing}")


class _Endpoint:
    """One endpoint: its signature, the function traced on it and the graph's structure."""

    def __init__(self, name, fn, signature):
        self.name, self.signature = name, signature
        self.input_structure = [_structure(s) for s in signature]  # one per argument
        self.inputs = [Input(batch_shape=s.shape, dtype=s.dtype) for s in _flatten(signature)]
        leaves = iter(self.inputs)
        args = [_rebuild(s, leaves) for s in self.input_structure]
        outputs = fn(*args)
        flat_outputs = _flatten(outputs)
        if not flat_outputs or not all(isinstance(o, Variable) for o in flat_outputs):
            raise TypeError(at_user(
                f"ExportArchive.add_endpoint: endpoint '{name}': expected fn to return a "
                "Variable or a list, tuple or dict of them, received "
                f"{type(outputs).__name__}"))
        _refuse_training_mode(name, flat_outputs)
        self.output_structure = _structure(outputs)
        self.outputs = flat_outputs
        self.function = EndpointFunction(name, Function(
            self.inputs if len(self.inputs) > 1 else self.inputs[0], outputs,
            name=f"{name}_endpoint"), self.input_structure)
        self._graph = Model(self.inputs, self.outputs, name=f"{name}_graph")
        self.arg_names = _argument_names(fn, len(signature))

    def onnx(self):
        return onnx_model(self._graph, OPSET)

    def manifest(self, proto):
        """The endpoint's entry in archive.json, for its ONNX graph `proto`."""
        return {"name": self.name, "file": f"endpoints/{self.name}.onnx",
                "arg_names": self.arg_names,
                "inputs": [{"onnx_name": i.name, "shape": list(s.shape), "dtype": s.dtype}
                           for i, s in zip(proto.graph.input, _flatten(self.signature))],
                "outputs": [o.name for o in proto.graph.output],
                "input_structure": self.input_structure,
                "output_structure": self.output_structure}

    def describe(self):
        lines = [f"* Endpoint '{self.name}'"]
        specs = iter(_flatten(self.signature))
        for arg, entry in zip(self.arg_names, self.input_structure):
            lines.append(f"  {arg} (POSITIONAL_OR_KEYWORD): {_rebuild(entry, specs)!r}")
        lines.append("Output Type:")
        outs = iter(InputSpec(shape=o.shape, dtype=o.dtype) for o in self.outputs)
        lines.append(f"  {_rebuild(self.output_structure, outs)!r}")
        return "\n".join(lines)


class EndpointFunction:
    """What `add_endpoint` returns: the endpoint as a function of its arguments (arrays, or
    symbolic Variables inside another endpoint), computed by paddle (a `pd.Function` over
    the endpoint's graph)."""

    def __init__(self, name, function, structure):
        self.name, self.function, self._structure = name, function, structure

    def __repr__(self):
        return f"<EndpointFunction {self.name!r}>"

    def __call__(self, *args):
        who = f"endpoint '{self.name}'"
        if len(args) != len(self._structure):
            raise TypeError(at_user(f"{who}: expected {len(self._structure)} arguments, "
                                    f"received {len(args)}"))
        flat = [x for v, s in zip(args, self._structure) for x in _leaves(v, s, who)]
        return self.function(flat if len(flat) > 1 else flat[0])


def _refuse_training_mode(name, outputs):
    """ExportError when an op of the endpoint was built to run in training mode (a call
    with training=True): ONNX graphs hold the inference computation (Dropout is Identity,
    BatchNormalization uses its moving statistics), so its values would silently differ."""
    seen, stack = set(), list(outputs)
    while stack:
        node = stack.pop().node
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.mode is True:
            raise ExportError(at_user(
                f"ExportArchive.add_endpoint: endpoint '{name}' calls a layer with "
                f"training=True (op {node.op.name!r}); its ONNX graph would compute the "
                "inference values instead, so it is refused. Export inference calls only"))
        stack.extend(v for v in node.inputs if v is not None)


def _check_name(name, what):
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_") or \
            name in RESERVED:
        raise ValueError(at_user(
            f"ExportArchive: expected the {what} name to be a Python identifier not "
            f"starting with '_' nor one of {', '.join(RESERVED)}, received {name!r}"))


def _spec(x):
    """Keras's `make_input_spec`: an InputSpec with shape and dtype for a signature entry."""
    if isinstance(x, InputSpec):
        if x.shape is None or x.dtype is None:
            raise ValueError(at_user(f"The `shape` and `dtype` must be provided. Received: "
                                     f"x={x!r}"))
        return x
    if isinstance(x, Variable) and not eager.is_concrete(x):  # a pd.Input (KerasTensor)
        return InputSpec(shape=(None,) + tuple(x.shape[1:]), dtype=x.dtype, name=x.name)
    if isinstance(x, (Variable, np.ndarray)):  # a tensor: its shape with a free batch axis
        shape = np.shape(x) if isinstance(x, np.ndarray) else x.shape
        dtype = x.dtype.name if isinstance(x, np.ndarray) else x.dtype
        return InputSpec(shape=(None,) + tuple(shape[1:]), dtype=dtype)
    raise TypeError(at_user(f"Unsupported x={x!r} of the type ({type(x).__name__}). Supported "
                            "types are: `pd.InputSpec`, `pd.Input` and tensors."))


def _map(fn, value):
    if isinstance(value, dict):
        return {k: _map(fn, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_map(fn, v) for v in value)
    return fn(value)


def _flatten(value):
    if isinstance(value, dict):
        return [x for k in value for x in _flatten(value[k])]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def _structure(value):
    """A JSON description of a nest of leaves: leaves become null, in order."""
    if isinstance(value, dict):
        return {"dict": [[str(k), _structure(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [_structure(v) for v in value]}
    return None


def _rebuild(structure, leaves):
    """The nest `structure` describes, taking its leaves from the iterator `leaves`."""
    if structure is None:
        return next(leaves)
    (kind, items), = structure.items()
    if kind == "dict":
        return {k: _rebuild(v, leaves) for k, v in items}
    return (tuple if kind == "tuple" else list)(_rebuild(v, leaves) for v in items)


def _argument_names(fn, count):
    """The names of fn's first `count` parameters (the reloaded endpoint's keywords), or
    args_0, args_1, ... where fn does not say."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if len(params) >= count and len(set(params[:count])) == count:
        return params[:count]
    return [f"args_{i}" for i in range(count)]


# ---- loading ---------------------------------------------------------------------------

class LoadedArchive:
    """An archive read back by `load_archive`: one method per endpoint (taking arrays,
    positionally or by the traced function's argument names, and returning NumPy arrays in
    the endpoint's output structure), `signatures` ({name: method}, with Keras's
    "serving_default" for the first endpoint), the tracked `variables`,
    `trainable_variables` and `non_trainable_variables` as arrays, and each variable
    collection as an attribute (a list of arrays)."""

    def __init__(self, endpoints, arrays, collections):
        self.endpoint_names = [e.name for e in endpoints]
        self.signatures = {e.name: e for e in endpoints}
        self.signatures.setdefault("serving_default", endpoints[0])
        for e in endpoints:
            setattr(self, e.name, e)
        self.trainable_variables = arrays["trainable_variables"]
        self.non_trainable_variables = arrays["non_trainable_variables"]
        self.variables = self.trainable_variables + self.non_trainable_variables
        self.variable_collections = list(collections)
        for name in collections:
            setattr(self, name, arrays[name])


class _LoadedEndpoint:
    """An endpoint's ONNX graph in an ONNX Runtime session, called with NumPy arrays."""

    def __init__(self, entry, session, path):
        self.name, self._session, self._path = entry["name"], session, path
        self._entry = entry
        self.arg_names = entry["arg_names"]

    def __repr__(self):
        return f"<endpoint {self.name!r} of {self._path}>"

    def __call__(self, *args, **kwargs):
        entry, who = self._entry, f"endpoint '{self.name}'"
        names = self.arg_names
        if len(args) > len(names) or set(kwargs) - set(names[len(args):]):
            raise TypeError(at_user(f"{who}: expected the arguments {names}, received "
                                    f"{len(args)} positional and {sorted(kwargs)}"))
        values = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
        if len(values) != len(names):
            raise TypeError(at_user(f"{who}: expected the arguments {names}, received "
                                    f"{len(values)} of them"))
        flat = [_leaves(v, s, who) for v, s in zip(values, entry["input_structure"])]
        flat = [x for leaves in flat for x in leaves]
        feeds = {}
        for x, spec in zip(flat, entry["inputs"]):
            feeds[spec["onnx_name"]] = _checked_input(x, spec, who)
        results = self._session.run(entry["outputs"], feeds)
        return _rebuild(entry["output_structure"], iter(results))


def _leaves(value, structure, who):
    if structure is None:  # an array (nested lists of numbers too), checked when fed
        if isinstance(value, dict):
            raise TypeError(at_user(f"{who}: expected an array, received a dict"))
        return [value]
    (kind, items), = structure.items()
    if kind == "dict":
        if not isinstance(value, dict) or set(value) != {k for k, _ in items}:
            raise TypeError(at_user(f"{who}: expected a dict with keys "
                                    f"{sorted(k for k, _ in items)}, received {value!r:.80}"))
        return [x for k, s in items for x in _leaves(value[k], s, who)]
    if not isinstance(value, (list, tuple)) or len(value) != len(items):
        raise TypeError(at_user(f"{who}: expected a {kind} of {len(items)} arrays, received "
                                f"{type(value).__name__}"))
    return [x for v, s in zip(value, items) for x in _leaves(v, s, who)]


def _checked_input(x, spec, who):
    array = np.asarray(x.numpy() if isinstance(x, Variable) else x)
    dtype = np.dtype(spec["dtype"])
    if array.dtype != dtype:
        if array.dtype.kind != dtype.kind and not (array.dtype.kind in "iu" and
                                                   dtype.kind in "iu"):
            raise TypeError(at_user(f"{who}: expected {spec['dtype']} values, received "
                                    f"{array.dtype}"))
        array = array.astype(dtype)
    shape = spec["shape"]
    if array.ndim != len(shape) or any(d is not None and d != n
                                       for d, n in zip(shape, array.shape)):
        raise ValueError(at_user(f"{who}: expected an input of shape {tuple(shape)}, received "
                                 f"shape {array.shape}"))
    return np.ascontiguousarray(array)


def load_archive(filepath):
    """Read an archive that `ExportArchive.write_out` wrote; its endpoints run with ONNX
    Runtime. Nothing in the file runs as Python code: the manifest is JSON, the arrays are
    read with `allow_pickle=False`, member names and sizes are checked, and an ONNX graph
    that refers to external data is refused.

    Args:
        filepath: the archive file.

    Returns:
        A `LoadedArchive` (one method per endpoint; variables as NumPy arrays).

    Raises:
        pd.CheckpointError: the file is not such an archive, or is damaged or unsafe.
        ImportError: onnx or onnxruntime is not installed.

    Example:
        >>> import paddle as pd
        >>> archive = pd.export.ExportArchive()
        >>> fn = archive.add_endpoint("double", lambda x: x * 2.0,
        ...                           [pd.InputSpec(shape=(None, 2), dtype="float32")])
        >>> archive.write_out("double.zip", verbose=False)
        >>> pd.export.load_archive("double.zip").double([[1.0, 2.0]]).tolist()
        [[2.0, 4.0]]
    """
    onnx = _onnx()
    try:
        import onnxruntime  # an optional dependency (the "onnx" extra)
    except ImportError:
        raise ImportError("load_archive: the 'onnxruntime' package is not installed; install "
                          "it with pip install 'paddle-graph[onnx]'") from None
    path = os.fspath(filepath)
    if not os.path.isfile(path):
        raise CheckpointError(f"load_archive: no archive file at {path!r}")
    limit = os.path.getsize(path)  # stored members cannot hold more than the file
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {info.filename: info for info in zf.infolist()}
            if MANIFEST not in infos:
                raise CheckpointError(f"{path}: not a paddle export archive (no {MANIFEST})")
            manifest = _manifest(_read_member(zf, infos[MANIFEST],
                                              min(limit, MAX_MANIFEST_BYTES), path), path)
            endpoints = []
            for entry in manifest["endpoints"]:
                data = _read_member(zf, _member(infos, entry["file"], path), limit, path)
                endpoints.append(_LoadedEndpoint(entry, _session(onnx, onnxruntime, data,
                                                                 entry, path), path))
            arrays = {}
            for group, names in manifest["variables"].items():
                arrays[group] = [_array(zf, _member(infos, f"variables/{group}/{i}.npy", path),
                                        limit, path) for i in range(len(names))]
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError) as e:
        raise CheckpointError(f"load_archive: cannot read {path!r} as an export archive "
                              f"(truncated or damaged?): {type(e).__name__}: {e}") from e
    return LoadedArchive(endpoints, arrays, manifest["variable_collections"])


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def _manifest(data, path):
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CheckpointError(f"{path}: {MANIFEST} is not JSON: {e}") from None
    try:
        ok = manifest["format"] == FORMAT and manifest["version"] == VERSION and \
            isinstance(manifest["endpoints"], list) and manifest["endpoints"] and \
            isinstance(manifest["variables"], dict) and \
            isinstance(manifest["variable_collections"], list)
        for entry in manifest["endpoints"] if ok else []:
            ok = ok and isinstance(entry["name"], str) and _NAME.match(entry["name"]) and \
                entry["name"] not in RESERVED and \
                entry["file"] == f"endpoints/{entry['name']}.onnx" and \
                all(isinstance(a, str) for a in entry["arg_names"]) and \
                all(isinstance(i["onnx_name"], str) and isinstance(i["shape"], list) and
                    all(d is None or isinstance(d, int) for d in i["shape"]) and
                    i["dtype"] in ("float16", "bfloat16", "float32", "float64", "int32",
                                   "int64", "bool", "int8", "uint8", "int16")
                    for i in entry["inputs"]) and \
                all(isinstance(o, str) for o in entry["outputs"])
        for group, names in manifest["variables"].items() if ok else []:
            ok = ok and bool(_NAME.match(group)) and isinstance(names, list)
        ok = ok and all(n in manifest["variables"] and n not in RESERVED and
                        isinstance(n, str) for n in manifest["variable_collections"])
        ok = ok and all(g in manifest["variables"]
                        for g in ("trainable_variables", "non_trainable_variables"))
    except (KeyError, TypeError, AttributeError):
        ok = False
    if not ok:
        raise CheckpointError(f"{path}: {MANIFEST} is not a {FORMAT} version {VERSION} "
                              "manifest (missing or malformed entries)")
    return manifest


def _member(infos, name, path):
    if name not in infos:
        raise CheckpointError(f"{path}: the archive lacks {name}")
    return infos[name]


def _array(zf, info, limit, path):
    data = _read_member(zf, info, limit, path)
    try:
        return np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
    except ValueError as e:
        raise CheckpointError(f"{path}: {info.filename} is not a NumPy array of numbers: "
                              f"{e}") from None


def _session(onnx, onnxruntime, data, entry, path):
    """An ONNX Runtime session of one endpoint's graph, refused when the graph points at
    external data (files beside it) or does not take the inputs the manifest names."""
    from onnx import external_data_helper  # with onnx itself (imported by _onnx)
    try:
        proto = onnx.load_model_from_string(data)
    except Exception as e:  # protobuf's DecodeError, whose class depends on its build
        raise CheckpointError(f"{path}: {entry['file']} is not an ONNX model: {e}") from None
    if any(external_data_helper.uses_external_data(t)
           for t in external_data_helper._get_all_tensors(proto)):
        raise CheckpointError(f"{path}: {entry['file']} refers to external data files; "
                              "refused (an archive holds its weights itself)")
    if [i.name for i in proto.graph.input] != [i["onnx_name"] for i in entry["inputs"]] or \
            [o.name for o in proto.graph.output] != entry["outputs"]:
        raise CheckpointError(f"{path}: {entry['file']} does not have the inputs and "
                              f"outputs {MANIFEST} names")
    try:
        return onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime's own exception classes
        raise CheckpointError(f"{path}: ONNX Runtime refused {entry['file']}: {e}") from None
