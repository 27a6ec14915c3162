"""Model configs for checkpoints: a model as a JSON-able dict in Keras's layout, and back.

`model_config(model)` gives `{"class_name", "config"}` as Keras writes it in its legacy
HDF5 files: "Sequential" (an InputLayer entry, then each layer's config), "Functional"
(every layer with its `inbound_nodes`, `input_layers`, `output_layers`) or, for a
subclassed model, its class name and `get_config()` with the input shapes it was traced
on (`build_config`). `model_from_config` rebuilds the model; custom classes come from
`custom_objects` or the registry (registry.py). `weight_layout(model)` is the order in
which a file holds the weights: one group per layer (Keras's `model.layers` order), then
the parameters no layer owns. Compile settings are in compiling.py. This module registers
the layer and model (de)serializers that serialization.py uses.

Example:
    >>> import paddle as pd
    >>> from paddle.highlevel.saving import architecture
    >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    >>> spec = architecture.model_config(model)
    >>> spec["class_name"], [e["class_name"] for e in spec["config"]["layers"]]
    ('Sequential', ['InputLayer', 'Dense'])
    >>> architecture.model_from_config(spec).outputs[0].shape
    (None, 2)
"""
import inspect
import json

import numpy as np

from paddle.errors import CheckpointError, ShapeError
from paddle.lowlevel.graph import DTYPES, Node, Variable, apply, constant, data
from paddle.lowlevel.op import OPS
from paddle.lowlevel.shapes import memory_budget
from paddle.highlevel import layers as layers_module
from paddle.highlevel.layers.base import Input, Layer
from paddle.highlevel.models.model import Model
from paddle.highlevel.models.sequential import Sequential
from paddle.highlevel.saving.formats import SAVING
from paddle.highlevel.saving.registry import (all_custom_objects, custom_object_scope,
                                               family_classes)
from paddle.highlevel.saving.serialization import (
    inherited_scope, plain_array, register_layer_codec, serialize_keras_object)

OP_CLASS = "__paddle_op__"         # a low-level op applied between layers
TENSOR_CLASS = "__keras_tensor__"  # a reference to a layer's output, as Keras names it
CONSTANT_CLASS = "__constant__"    # a constant input, stored inline
VARIABLE_CLASS = "__variable__"    # a parameter no layer owns (its value: top-level weights)

def lookup(class_name, custom_objects, builtins, what):
    """The class saved as `class_name`: custom_objects first (with the open
    custom_object_scope and the registry), then built in."""
    for table in (all_custom_objects(custom_objects), builtins):
        if class_name in table:
            return table[class_name]
    raise CheckpointError(
        f"Unknown {what} {class_name!r} in the checkpoint: pass its class to load_model as "
        f"custom_objects={{{class_name!r}: {class_name}}} (or register it with "
        "pd.saving.register_keras_serializable)")


def builtin_layers():
    found = {n: c for n, c in vars(layers_module).items()
             if isinstance(c, type) and issubclass(c, Layer)}
    found.update(Sequential=Sequential, Model=Model)
    return found


def json_default(value):
    """json.dumps fallback: NumPy scalars and arrays as plain numbers and lists."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} {value!r} is not JSON serializable")


def dumps(value):
    return json.dumps(value, default=json_default)


# ---- kinds of models --------------------------------------------------------------------

def model_kind(model):
    """'Sequential', 'Functional' or 'subclassed' (any other class, saved by name)."""
    if type(model) is Sequential:
        return "Sequential"
    if type(model) is Model and model.functional:
        return "Functional"
    return "subclassed"


def serialize_layer(layer):
    if isinstance(layer, Model) and model_kind(layer) != "subclassed":
        return model_config(layer, top=False)
    try:
        config = _serialized_values(layer.get_config())
        dumps(config)
    except (TypeError, ValueError, NotImplementedError) as e:
        raise TypeError(f"{layer.name} ({type(layer).__name__}): get_config() must return "
                        f"plain values (numbers, strings, lists, dicts) or objects with a "
                        f"get_config (layers, regularizers...): {e}") from None
    entry = {"class_name": type(layer).__name__, "config": config}
    if _custom_build(type(layer)) and layer.built:
        build = _serialized_values(layer.get_build_config())
        try:
            dumps(build)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{layer.name} ({type(layer).__name__}): get_build_config() must "
                            f"return plain values: {e}") from None
        entry["build_config"] = build
    return entry


def _custom_build(cls):
    """Whether a layer class overrides Keras's build-config hooks: its build_config is then
    saved (as Keras saves every layer's) and `build_from_config` builds it when loaded,
    before it is called (paddle's own layers are built by their first call instead)."""
    return cls.get_build_config is not Layer.get_build_config or \
        cls.build_from_config is not Layer.build_from_config


def _serialized_values(value):
    """A config with the objects in it (layers, regularizers, initializers...) replaced by
    their `serialize_keras_object` dicts, as Keras serializes a custom layer's config; a
    `from_config` that needs the objects back deserializes them (as Keras's guide does)."""
    if isinstance(value, dict):
        return {k: _serialized_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_serialized_values(v) for v in value)
    if isinstance(value, Layer) or (hasattr(value, "get_config") and
                                    not isinstance(value, type)):
        return serialize_keras_object(value)
    return value


def model_config(model, top=True):
    """The model as `{"class_name", "config"}` (Keras's legacy layout)."""
    kind = model_kind(model)
    if kind == "Sequential":
        return {"class_name": "Sequential", "config": _sequential_config(model)}
    if kind == "Functional":
        return {"class_name": "Functional", "config": _functional_config(model)}
    spec = serialize_layer(model)
    if top:
        inputs = _traced_inputs(model)
        spec["build_config"] = {"input_shapes": [list(v.shape) for v in inputs],
                                "input_dtypes": [v.dtype for v in inputs],
                                "single_input": bool(getattr(model, "_single_input", True))}
    return spec


def _traced_inputs(model):
    if model.functional:
        return model.inputs
    graphs = getattr(model, "_graphs", {})
    if not graphs:
        raise ValueError(f"{model.name}: the model has not been called yet; call it on data "
                         "(or fit it) before saving, so its input shapes are known")
    return (graphs.get(False) or next(iter(graphs.values())))[0]


def _input_entry(var, functional):
    entry = {"class_name": "InputLayer",
             "config": {"batch_shape": list(var.shape), "dtype": var.dtype, "sparse": False,
                        "name": var.name}}
    if functional:
        entry.update(name=var.name, inbound_nodes=[])
    return entry


def _sequential_config(model):
    if model.inputs is None:
        raise ValueError(f"{model.name}: the model has no input shape yet; start it with "
                         "pd.layers.Input(shape=...) or call it on data before saving")
    layers = [_input_entry(model.inputs[0], False)] + [serialize_layer(l) for l in model.layers]
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "build_input_shape": list(model.inputs[0].shape)}


# ---- functional graphs ------------------------------------------------------------------

class Graph:
    """A functional model's graph as Keras orders it.

    Operations are the input Variables, the layers and the low-level op nodes between
    them; each has the calls (nodes) the model makes of it. `operations` is in Keras's
    order: by depth from the outputs (deepest first), ties by discovery order.
    """

    def __init__(self, model):
        self.inputs = {id(v): v for v in model.inputs}
        self.order, self.index = self._walk(model.outputs)
        self.operations = self._by_depth(model.inputs)
        calls = {}
        for op, k in self.order:
            calls.setdefault(id(op), []).append(k)
        # A layer's calls in this model, renumbered from 0 (it may have others elsewhere).
        self.renumber = {(i, k): n for i, ks in calls.items() for n, k in enumerate(sorted(ks))}
        self.calls = {i: sorted(ks) for i, ks in calls.items()}
        self.names = {}
        ops = 0
        for op in self.operations:
            if isinstance(op, Node):
                self.names[id(op)] = f"__op{ops}_{op.op.name}"
                ops += 1
            else:
                self.names[id(op)] = op.name
        self.params = []
        for op, k in self.order:
            for v in self.call_inputs(op, k):
                if v.kind == "param" and self.producer(v) is None and \
                        all(p is not v for p in self.params):
                    self.params.append(v)

    def producer(self, var):
        """(operation, call, output index) that made `var`, or None for params/constants."""
        if id(var) in self.inputs:
            return var, 0, 0
        history = getattr(var, "_history", None)
        if history is not None:
            return history
        if var.node is not None:
            return var.node, 0, var.index
        if var.kind == "data":
            raise ValueError(f"the model's graph reads {var.name!r}, which is not one of its "
                             "inputs")
        return None

    def call_inputs(self, op, k):
        if isinstance(op, Layer):
            return op._inbound[k][0]
        if isinstance(op, Node):
            return list(op.inputs)
        return []

    def _walk(self, outputs):
        """Calls in post-order (every call after the calls it reads) and discovery order."""
        order, finished, index = [], set(), {}
        for out in outputs:
            start = self.producer(out)
            stack = [] if start is None else [(start[0], start[1], None)]
            while stack:
                op, k, pending = stack[-1]
                if pending is None:
                    if (id(op), k) in finished:
                        stack.pop()
                        continue
                    index.setdefault(id(op), len(index))
                    pending = list(self.call_inputs(op, k))
                    stack[-1] = (op, k, pending)
                if not pending:
                    finished.add((id(op), k))
                    order.append((op, k))
                    stack.pop()
                    continue
                found = self.producer(pending.pop(0))
                if found is not None and (id(found[0]), found[1]) not in finished:
                    stack.append((found[0], found[1], None))
        return order, index

    def _by_depth(self, inputs):
        node_depth, op_depth, ops = {}, {}, {}
        for op, k in reversed(self.order):
            depth = max(node_depth.setdefault((id(op), k), 0), op_depth.get(id(op), 0))
            op_depth[id(op)], node_depth[(id(op), k)], ops[id(op)] = depth, depth, op
            for v in self.call_inputs(op, k):
                found = self.producer(v)
                if found is not None:
                    key = (id(found[0]), found[1])
                    node_depth[key] = max(depth + 1, node_depth.get(key, 0))
        for v in inputs:  # an input no output depends on still belongs to the model
            if id(v) not in op_depth:
                op_depth[id(v)], ops[id(v)] = 0, v
                self.index[id(v)] = -1
        return sorted(ops.values(), key=lambda op: (-op_depth[id(op)], self.index[id(op)]))

    def tensor_ref(self, var):
        found = self.producer(var)
        if found is None:
            if var.kind == "param":
                index = next(i for i, p in enumerate(self.params) if p is var)
                return {"class_name": VARIABLE_CLASS, "config": {
                    "name": var.name, "shape": list(var.shape), "dtype": var.dtype,
                    "trainable": bool(var.trainable), "index": index}}
            return {"class_name": CONSTANT_CLASS,
                    "config": {"value": var.value.tolist(), "dtype": var.dtype}}
        op, k, out = found
        return {"class_name": TENSOR_CLASS, "config": {
            "shape": list(var.shape), "dtype": var.dtype,
            "keras_history": [self.names[id(op)], self.renumber[(id(op), k)], out]}}


def functional_layers(model):
    """The layers of a functional model in Keras's order (input placeholders excluded)."""
    return [op for op in Graph(model).operations if isinstance(op, Layer)]


def _functional_config(model):
    graph = Graph(model)
    entries = []
    for op in graph.operations:
        if isinstance(op, Variable):
            entries.append(_input_entry(op, True))
            continue
        nodes = []
        for k in graph.calls[id(op)]:
            ins = graph.call_inputs(op, k)
            refs = [graph.tensor_ref(v) for v in ins]
            if isinstance(op, Node):
                nodes.append({"args": [refs], "kwargs": {}})
            else:
                listed = len(ins) > 1 or getattr(op, "_list_input", False)
                nodes.append({"args": [refs if listed else refs[0]],
                              "kwargs": dict(op._inbound[k][2])})
        if isinstance(op, Node):
            entry = {"class_name": OP_CLASS,
                     "config": {"op": op.op.name, "attrs": _encode_attrs(op)}}
        else:
            entry = serialize_layer(op)
        entry.update(name=graph.names[id(op)], inbound_nodes=nodes)
        entries.append(entry)

    def refs(variables, single, keys):
        found = [graph.tensor_ref(v)["config"]["keras_history"] for v in variables]
        if keys:  # inputs or outputs given as a dict: Keras 3 saves the dict
            return dict(zip(keys, found))
        return found[0] if single else found
    return {"name": model.name, "trainable": model.trainable, "layers": entries,
            "input_layers": refs(model.inputs, model._single_input,
                                 getattr(model, "_input_keys", None)),
            "output_layers": refs(model.outputs, model._single_output,
                                  getattr(model, "_output_keys", None))}


def _encode(value, where):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, where) for v in value]}
    if isinstance(value, list):
        return [_encode(v, where) for v in value]
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.name}
    raise TypeError(f"{where}: cannot save an attribute of type {type(value).__name__} "
                    f"({value!r}); wrap the computation in a layer (pd.layers.Lambda)")


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "__tuple__" in value:
            return tuple(_decode(v) for v in value["__tuple__"])
        if "__ndarray__" in value:
            return plain_array(value["__ndarray__"], value.get("dtype"), "an array attribute")
    return value


def _encode_attrs(node):
    return {k: _encode(v, f"op {node.op.name!r}") for k, v in node.attrs.items()}


# ---- rebuilding -------------------------------------------------------------------------

def model_from_config(spec, custom_objects=None, safe_mode=True):
    """Rebuild a model from `model_config`'s dict (weights freshly initialized); Keras 3's
    configs (with "module" and "registered_name") are read too.

    safe_mode: refuse configs holding Python bytecode (a Lambda's function), which would
    run when rebuilt; False loads them (only for configs you trust). Called within a
    loader (a custom class's from_config during pd.load_model), the loader's safe_mode
    wins, so the caller's choice reaches every nested model.

    Every weight the config asks for must fit in this machine's memory, all of them
    together too (a config naming units=400_000_000 is small), else CheckpointError
    before the allocation; a config nested past Python's recursion limit is a
    CheckpointError too."""
    if not isinstance(safe_mode, bool):
        raise TypeError(f"safe_mode must be True or False, received {safe_mode!r}")
    with inherited_scope(safe_mode), memory_budget():
        try:
            return _rebuild_model(spec, custom_objects)
        except MemoryError as e:
            raise CheckpointError(f"the model config asks for more memory than this "
                                  f"machine has ({e})") from None
        except RecursionError:
            raise CheckpointError("the model config nests its models or layers too deeply "
                                  "to rebuild (Python's recursion limit was reached)") from None


def _rebuild_model(spec, custom_objects):
    if not isinstance(spec, dict) or "class_name" not in spec:
        raise CheckpointError(f"expected a model config {{'class_name', 'config'}}, "
                              f"received {str(spec)[:80]!r}")
    name, config = spec["class_name"], spec.get("config") or {}
    if name == "Sequential":
        return _sequential_from_config(config, custom_objects)
    if name in ("Functional", "Model"):
        return _functional_from_config(config, custom_objects)
    # built-in Model subclasses: those of the families (keras.distillation's Distiller)
    builtins = {n: c for n, c in family_classes("keras.distillation").items()
                if isinstance(c, type) and issubclass(c, Model)}
    cls = lookup(spec.get("registered_name") or name, custom_objects, builtins,
                 "model class") if spec.get("registered_name") else \
        lookup(name, custom_objects, builtins, "model class")
    model = from_config(cls, config)
    if not isinstance(model, Model):
        raise CheckpointError(f"{name} is not a Model subclass ({type(model).__name__})")
    _build(model, spec.get("build_config"))
    return model


def deserialize_layer(spec, custom_objects):
    if not isinstance(spec, dict) or "class_name" not in spec:
        raise CheckpointError(f"expected a layer config {{'class_name', 'config'}}, "
                              f"received {str(spec)[:80]!r}")
    if spec["class_name"] in ("Sequential", "Functional", "Model"):
        return _rebuild_model(spec, custom_objects)
    registered = spec.get("registered_name")
    name = registered if registered and registered != spec["class_name"] and \
        _known(registered, custom_objects) else spec["class_name"]
    cls = lookup(name, custom_objects, builtin_layers(), "layer class")
    config = keras_layer_config(cls, spec.get("config") or {}, custom_objects)
    with custom_object_scope(dict(custom_objects or {})):  # for the layers a layer holds
        layer = from_config(cls, config)                    # (an RNN's cell)
    build = spec.get("build_config")
    if build and isinstance(layer, Layer) and _custom_build(type(layer)):
        layer.build_from_config(build)
    return layer


def _known(name, custom_objects):
    return name in all_custom_objects(custom_objects)


_ACTIVATION_KEYS = ("activation", "recurrent_activation")
_BASE_KEYS = ("name", "trainable", "dtype", "input_shape")


def keras_layer_config(cls, config, custom_objects=None):
    """A layer config as paddle's layers take it. Keras 3 writes more than paddle's own
    configs: dtype policies (their name is kept), and arguments paddle's layers do not
    have; those are dropped when they hold Keras's default (None, False, ...) and refused
    otherwise, naming them. Activations named in custom_objects become those functions."""
    config = dict(config)
    dtype = config.get("dtype")
    if isinstance(dtype, dict):  # {"class_name": "DTypePolicy", "config": {"name": ...}}
        inner = dtype.get("config") or {}
        # a quantized layer's: {"mode": "int8" (or "int4/128", "gptq/4/128", "awq/4/-1"),
        # "source_name": "float32"}, by its name
        config["dtype"] = f"{inner['mode']}_from_{inner.get('source_name', 'float32')}" \
            if dtype.get("class_name") in ("QuantizedDTypePolicy", "Int4DTypePolicy",
                                           "QuantizedFloat8DTypePolicy",
                                           "GPTQDTypePolicy", "AWQDTypePolicy") and \
            "mode" in inner else inner.get("name", "float32")
        if dtype.get("class_name") == "QuantizedFloat8DTypePolicy" and \
                "amax_history_length" in inner:  # not in the name: the policy itself
            config["dtype"] = {"class_name": "QuantizedFloat8DTypePolicy", "config": inner}
    custom = all_custom_objects(custom_objects)
    for key in _ACTIVATION_KEYS:
        value = config.get(key)
        if isinstance(value, dict) and value.get("class_name") == "function":
            value = config[key] = value.get("config")
        if isinstance(value, str) and value in custom:
            config[key] = custom[value]
    accepted = _init_arguments(cls)
    if accepted is None:
        return config  # a custom layer takes what it takes
    for key in [k for k in config if k not in accepted]:
        value = config[key]
        if value in (None, False, 0, 0.0, {}, []) or key in _HARMLESS_KEYS or \
                (key in _KERAS_DEFAULTS and value == _KERAS_DEFAULTS[key]):
            del config[key]
        else:
            raise CheckpointError(
                f"{cls.__name__} {config.get('name')!r}: the config sets {key}={value!r}, "
                f"which paddle's {cls.__name__} does not support")
    return config


def _init_arguments(cls):
    """The keyword arguments `cls(...)` accepts, following **kwargs up to Layer (which
    refuses the unknown); None when a class outside paddle takes any keyword."""
    names = set(_BASE_KEYS)
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        names.update(getattr(klass, "weight_constraints", ()))  # taken by Layer's kwargs
        if klass is Layer:
            return names
        try:
            params = inspect.signature(vars(klass)["__init__"]).parameters
        except (TypeError, ValueError):
            return None
        names.update(n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                               p.KEYWORD_ONLY))
        if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
            return names
        if not klass.__module__.startswith("paddle."):
            return None
    return names


# Keras 3 arguments that change nothing paddle computes (defaults written by Keras).
_HARMLESS_KEYS = {"autocast", "seed", "quantization_config", "lora_rank", "lora_alpha",
                  "synchronized", "implementation", "zero_output_for_mask",
                  # paddle's Bidirectional makes its backward copy from the forward layer,
                  # which is what Keras's backward_layer config describes unless given one
                  "backward_layer"}
# Keras 3 arguments that matter only when another is set (renorm), at their defaults.
_KERAS_DEFAULTS = {"renorm_momentum": 0.99, "data_format": "channels_last",
                   "use_cudnn": "auto"}


def from_config(cls, config):
    """cls.from_config(config), failing with a CheckpointError that names the class."""
    try:
        return cls.from_config(config)
    except (TypeError, ValueError, KeyError) as e:
        base = {"name", "trainable", "dtype"}
        if isinstance(cls, type) and issubclass(cls, Model) and set(config) <= base:
            try:  # a subclassed model whose __init__ takes no arguments
                return cls()
            except TypeError:
                pass
        raise CheckpointError(
            f"{getattr(cls, '__name__', cls)}: could not rebuild it from its saved config "
            f"{config!r} ({type(e).__name__}: {e}); get_config() must return every argument "
            "its __init__ needs, or the class must define from_config") from e


def _make_input(config):
    shape = config.get("batch_shape") or [None] + list(config.get("shape") or [])
    return Input(shape=tuple(shape[1:]), dtype=config.get("dtype") or "float32",
                 name=config.get("name"), batch_size=shape[0])


def _sequential_from_config(config, custom_objects):
    model = Sequential(name=config.get("name"), trainable=config.get("trainable", True))
    for entry in config.get("layers", []):
        if entry.get("class_name") == "InputLayer":
            model.add(_make_input(entry.get("config", {})))
        else:
            model.add(deserialize_layer(entry, custom_objects))
    if model.inputs is None and config.get("build_input_shape"):
        model.build(config["build_input_shape"])
    return model


def _functional_from_config(config, custom_objects, make_layer=None):
    """The functional model of a config; `make_layer(entry)`, when given, makes each layer
    (clone_model's clone_function) instead of its config."""
    made, tensors, pending, params = {}, {}, [], {}
    for entry in config.get("layers", []):
        name = entry["name"]
        if entry["class_name"] == "InputLayer":
            tensors[(name, 0, 0)] = _make_input(entry.get("config", {}))
            continue
        made[name] = entry["config"] if entry["class_name"] == OP_CLASS else \
            make_layer(entry) if make_layer else \
            deserialize_layer(entry, custom_objects)
        pending.extend((name, k, node) for k, node in enumerate(entry.get("inbound_nodes", [])))

    def resolve(ref):
        if isinstance(ref, list):
            return [resolve(r) for r in ref]
        kind, c = ref.get("class_name"), ref.get("config", {})
        if kind == CONSTANT_CLASS:
            value = plain_array(c.get("value"), c.get("dtype"), "the model config's constant")
            return constant(value, dtype=value.dtype.name)
        if kind == VARIABLE_CLASS:
            if c["index"] not in params:
                params[c["index"]] = Variable(c["name"], tuple(c["shape"]), c["dtype"],
                                              "zeros", trainable=c.get("trainable", True))
            return params[c["index"]]
        return tensors[tuple(c["keras_history"])]

    while pending:
        ready = [p for p in pending if _available(p[2], tensors)]
        if not ready:
            missing = sorted({p[0] for p in pending})
            raise CheckpointError(f"the model config's layers {missing} read outputs that no "
                                  "layer of the config makes")
        for item in ready:
            pending.remove(item)
            name, k, node = item
            args = [resolve(a) for a in node.get("args", [])]
            if isinstance(made[name], dict):
                out = _apply_saved_op(name, made[name], args)
            else:
                out = made[name](*args, **node.get("kwargs", {}))
            for i, v in enumerate(out if isinstance(out, (list, tuple)) else [out]):
                tensors[(name, k, i)] = v

    def pick(refs):
        if isinstance(refs, dict):
            return {k: tensors[tuple(r)] for k, r in refs.items()}
        if refs and not isinstance(refs[0], list):
            return tensors[tuple(refs)]
        return [tensors[tuple(r)] for r in refs]
    return Model(inputs=pick(config["input_layers"]), outputs=pick(config["output_layers"]),
                 name=config.get("name"), trainable=config.get("trainable", True))


def _apply_saved_op(name, config, args):
    """A low-level op entry of a functional config applied to its inputs. Its attributes
    come from the file: anything its shape rule refuses, or an output dtype paddle has
    no kernels for (a rule passing an attribute through), is a CheckpointError here
    rather than an error at the first predict."""
    op = OPS.get(config.get("op")) if isinstance(config.get("op"), str) else None
    if op is None:
        raise CheckpointError(f"the model config applies an unknown op {config.get('op')!r}")
    saved = config.get("attrs", {})
    if not isinstance(saved, dict) or not args or not isinstance(args[0], list):
        raise CheckpointError(f"the model config's op {name!r} ({op.name}) has malformed "
                              f"inputs or attributes: {str(config)[:120]}")
    try:
        out = apply(op, args[0], {a: _decode(v) for a, v in saved.items()})
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError,
            CheckpointError) as e:  # CheckpointError: an array attribute's dtype (_decode)
        raise CheckpointError(f"the model config's op {name!r} ({op.name}) cannot take the "
                              f"saved attributes {str(saved)[:120]}: {type(e).__name__}: "
                              f"{e}") from None
    for v in out if isinstance(out, list) else [out]:
        if v.dtype not in DTYPES:
            raise CheckpointError(f"the model config's op {name!r} ({op.name}) would make "
                                  f"{v.dtype!r} values from its saved attributes "
                                  f"{str(saved)[:120]}; paddle computes in {', '.join(DTYPES)}")
    return out


def _available(node, tensors):
    def ok(ref):
        if isinstance(ref, list):
            return all(ok(r) for r in ref)
        if ref.get("class_name") != TENSOR_CLASS:
            return True
        return tuple(ref["config"]["keras_history"]) in tensors
    return all(ok(a) for a in node.get("args", []))


def ensure_built(model, spec):
    """Build a model that was never called (so has no weights yet) on the input shapes of
    a saved config of it: BackupAndRestore restores before the first batch."""
    config = spec.get("config") or {}
    first = (config.get("layers") or [{}])[0] if spec.get("class_name") == "Sequential" else {}
    if first.get("class_name") == "InputLayer":
        shape = first.get("config", {}).get("batch_shape")
        _build(model, {"input_shapes": [shape], "single_input": True,
                       "input_dtypes": [first["config"].get("dtype", "float32")]})
    else:
        _build(model, spec.get("build_config"))


def _build(model, build):
    """Trace a rebuilt subclassed model on its saved input shapes, creating its weights."""
    if not build or model.functional or getattr(model, "_graphs", None):
        return
    if "input_shapes" not in build and build.get("input_shape"):  # Keras's own build_config
        build = _keras_build(build["input_shape"])
    shapes, dtypes = build["input_shapes"], build["input_dtypes"]
    if isinstance(model, Sequential):
        model._input = Input(shape=tuple(shapes[0][1:]), dtype=dtypes[0])
        model._rebuild()
        return
    inputs = [data(f"{model.name}_input_{i}", tuple(s), d)
              for i, (s, d) in enumerate(zip(shapes, dtypes))]
    try:
        model._trace_with(inputs[0] if build.get("single_input", True) else inputs, False)
    except (ShapeError, ValueError, TypeError) as e:
        raise CheckpointError(f"{type(model).__name__}: tracing call() on the saved input "
                              f"shapes {shapes} failed: {e}") from e


def _keras_build(shape):
    """paddle's build config from Keras's `{"input_shape": ...}` (a shape, or a list of
    them; float32 inputs, any batch size)."""
    several = isinstance(shape[0], (list, tuple))
    shapes = [[None] + list(s[1:]) for s in (shape if several else [shape])]
    return {"input_shapes": shapes, "input_dtypes": ["float32"] * len(shapes),
            "single_input": not several}


# ---- where the weights go ---------------------------------------------------------------

def weight_layout(model):
    """([(group name, [weight Variables])], [top-level Variables]): the file's order.

    Groups follow Keras's `model.layers` (a functional model lists its inputs too, with
    no weights); top-level Variables are the parameters no layer owns.
    """
    kind = model_kind(model)
    if kind == "Functional":
        graph = Graph(model)
        groups = [(op.name, list(op.weights) if isinstance(op, Layer) else [])
                  for op in graph.operations if not isinstance(op, Node)]
        return groups, graph.params
    groups = [(layer.name, list(layer.weights)) for layer in model.layers]
    top = model._loose_parameters() if kind == "subclassed" else []
    return groups, top


register_layer_codec(Layer, Model, serialize_layer, deserialize_layer, model_from_config,
                     builtin_layers, keras_layer_config)
# The model calls these through formats.SAVING (it cannot import this module).
SAVING.update(model_config=model_config, serialize_layer=serialize_layer,
              functional_from_config=_functional_from_config,
              sequential_from_config=_sequential_from_config)
