"""Keras 3's serialization API: registering custom objects, and any object to and from
`{"module", "class_name", "config", "registered_name"}` (`pd.saving` re-exports it).

Custom classes and functions (layers, models, losses, metrics, activations, optimizers)
are found again by name when a config is read: from `custom_objects=`, from an open
`custom_object_scope`, or from the global table that `register_keras_serializable` fills
(`get_custom_objects()` is that table, as in Keras).

Example:
    >>> import paddle as pd
    >>> @pd.saving.register_keras_serializable(package="Demo")
    ... class DocTwice(pd.layers.Layer):
    ...     def call(self, x, training=False):
    ...         return x * 2.0
    >>> config = pd.saving.serialize_keras_object(DocTwice(name="twice"))
    >>> config["registered_name"], config["config"]["name"]
    ('Demo>DocTwice', 'twice')
    >>> type(pd.saving.deserialize_keras_object(config)).__name__
    'DocTwice'
"""
import contextlib
import threading

import numpy as np

_GLOBAL_CUSTOM_OBJECTS = {}    # registered name ("Package>Name") -> class or function
_REGISTERED_NAMES = {}         # class or function -> registered name
_SCOPES = threading.local()    # stack of dicts opened by custom_object_scope


def register_keras_serializable(package="Custom", name=None):
    """Decorator: make a class or function loadable by name, as `"<package>><name>"`.

    Args:
        package: a prefix that keeps names of different libraries apart.
        name: the name to register (default: the class or function's `__name__`).
    Raises:
        ValueError: a package holding '>', or a class without `get_config` (Keras's rule:
            a registered class must be able to describe itself).

    Example:
        >>> import paddle as pd
        >>> @pd.saving.register_keras_serializable(package="Demo", name="double_it")
        ... def double_it(x):
        ...     return x * 2.0
        >>> pd.saving.get_custom_objects()["Demo>double_it"] is double_it
        True
    """
    if not isinstance(package, str) or ">" in package or not package:
        raise ValueError(f"register_keras_serializable: expected a package name without "
                         f"'>', received {package!r}")
    if name is not None and (not isinstance(name, str) or not name):
        raise ValueError(f"register_keras_serializable: expected name as a non-empty str, "
                         f"received {name!r}")

    def decorate(obj):
        if not callable(obj):
            raise TypeError(f"register_keras_serializable: expected a class or a function, "
                            f"received {obj!r}")
        if isinstance(obj, type) and not hasattr(obj, "get_config"):
            raise ValueError(f"register_keras_serializable: {obj.__name__} has no "
                             "get_config(), so it cannot be saved")
        key = f"{package}>{name or obj.__name__}"
        _GLOBAL_CUSTOM_OBJECTS[key] = obj
        _REGISTERED_NAMES[obj] = key
        from paddle.highlevel import saving_config
        saving_config._REGISTERED.setdefault(name or obj.__name__, obj)
        return obj
    return decorate


def get_custom_objects():
    """The global {registered name: object} table; adding to it registers too."""
    return _GLOBAL_CUSTOM_OBJECTS


def get_registered_name(obj):
    """The name `obj` was registered under (its `__name__` when it was not)."""
    return _REGISTERED_NAMES.get(obj, getattr(obj, "__name__", None))


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object saved as `name`: from custom_objects, an open scope, the global table
    (by full "package>name" or by the bare name) or `module_objects`; None if unknown."""
    for table in [custom_objects or {}] + list(reversed(_scope_stack())) + \
            [_GLOBAL_CUSTOM_OBJECTS]:
        if name in table:
            return table[name]
    if isinstance(name, str) and ">" not in name:
        for key, obj in _GLOBAL_CUSTOM_OBJECTS.items():
            if key.split(">", 1)[1] == name:
                return obj
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


def _scope_stack():
    if not hasattr(_SCOPES, "stack"):
        _SCOPES.stack = []
    return _SCOPES.stack


class CustomObjectScope:
    """`with CustomObjectScope({"MyLayer": MyLayer}):` makes those names loadable inside.

    Example:
        >>> import paddle as pd
        >>> def swish2(x):
        ...     return x * pd.sigmoid(x)
        >>> with pd.saving.custom_object_scope({"swish2": swish2}):
        ...     pd.saving.get_registered_object("swish2") is swish2
        True
    """

    def __init__(self, *custom_objects):
        for table in custom_objects:
            if not isinstance(table, dict):
                raise TypeError(f"custom_object_scope: expected dicts of {{name: object}}, "
                                f"received {type(table).__name__}")
        self.objects = {}
        for table in custom_objects:
            self.objects.update(table)

    def __enter__(self):
        _scope_stack().append(self.objects)
        return self

    def __exit__(self, *exc):
        _scope_stack().pop()


custom_object_scope = CustomObjectScope


def all_custom_objects(custom_objects=None):
    """One dict of every custom object visible now (scopes, the global table by full and
    bare names, then `custom_objects`, which wins)."""
    found = {}
    for key, obj in _GLOBAL_CUSTOM_OBJECTS.items():
        found.setdefault(key.split(">", 1)[1], obj)
        found[key] = obj
    for table in _scope_stack():
        found.update(table)
    found.update(custom_objects or {})
    return found


# ---- objects to configs and back --------------------------------------------------------

def _module_for(obj):
    """Keras's module name for paddle's built-in classes, the Python module otherwise."""
    from paddle.highlevel import constraints, layers, losses, metrics, regularizers
    from paddle.lowlevel import initializers, optimizers
    from paddle.highlevel.model import Model
    cls = obj if isinstance(obj, type) else type(obj)
    if cls.__module__.startswith("paddle."):
        if issubclass(cls, Model):
            return "keras"
        for module, name in ((layers, "keras.layers"), (losses, "keras.losses"),
                             (metrics, "keras.metrics"), (optimizers, "keras.optimizers"),
                             (regularizers, "keras.regularizers"),
                             (constraints, "keras.constraints"),
                             (initializers, "keras.initializers")):
            if getattr(module, cls.__name__, None) is cls:
                return name
    return cls.__module__


def serialize_keras_object(obj):
    """A JSON-able description of `obj` in Keras 3's format.

    Layers and models give `{"module", "class_name", "config", "registered_name"}` (a
    model's config is its whole architecture); losses, metrics and optimizers the same
    from their `get_config()`; functions their registered name; tuples, NumPy arrays and
    scalars are tagged as Keras tags them; lists and dicts are serialized item by item.

    Example:
        >>> import paddle as pd
        >>> config = pd.saving.serialize_keras_object(pd.layers.Dense(3, name="d"))
        >>> config["module"], config["class_name"], config["config"]["units"]
        ('keras.layers', 'Dense', 3)
    """
    from paddle.highlevel.layers.base import Layer
    from paddle.highlevel import saving_config
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return {"class_name": "__numpy__", "config": {"value": obj.tolist(),
                                                      "dtype": obj.dtype.name}}
    if isinstance(obj, tuple):
        return {"class_name": "__tuple__", "config": {"value": [serialize_keras_object(v)
                                                                for v in obj]}}
    if isinstance(obj, list):
        return [serialize_keras_object(v) for v in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, Layer):
        return keras3_entry(saving_config.serialize_layer(obj))
    if isinstance(obj, type) or not hasattr(obj, "get_config"):
        if callable(obj):
            name = get_registered_name(obj)
            if name is None:
                raise TypeError(f"serialize_keras_object: cannot serialize {obj!r}")
            return {"module": getattr(obj, "__module__", None), "class_name": "function",
                    "config": name, "registered_name": "function"}
        raise TypeError(f"serialize_keras_object: cannot serialize {type(obj).__name__} "
                        f"{obj!r}: expected a layer, model, loss, metric, optimizer, "
                        "function or plain value")
    registered = _REGISTERED_NAMES.get(type(obj))
    return {"module": _module_for(obj), "class_name": type(obj).__name__,
            "config": serialize_keras_object(obj.get_config()), "registered_name": registered}


def keras3_entry(entry):
    """A paddle `{"class_name", "config"}` layer or model entry with Keras 3's "module" and
    "registered_name" added, recursively (nested models' layers too)."""
    from paddle.highlevel import saving_config
    name = entry.get("class_name")
    out = dict(entry)
    if name in ("Sequential", "Functional", "Model"):
        # Keras 3 exports Sequential as keras.Sequential; Functional only from its module.
        out["module"] = "keras" if name == "Sequential" else "keras.src.models.functional"
        out["registered_name"] = None
        config = dict(out.get("config") or {})
        config["layers"] = [keras3_entry(e) if "class_name" in e else e
                            for e in config.get("layers", [])]
        out["config"] = config
        return out
    if name == "InputLayer":
        out["module"], out["registered_name"] = "keras.layers", None
        return out
    cls = saving_config.builtin_layers().get(name)
    config = out.get("config")
    if isinstance(config, dict):  # a wrapped layer's config (Bidirectional's "layer")
        out["config"] = {k: keras3_entry(v) if isinstance(v, dict) and "class_name" in v and
                         v.get("class_name") in saving_config.builtin_layers() else v
                         for k, v in config.items()}
    if cls is not None and cls.__module__.startswith("paddle."):
        out["module"], out["registered_name"] = _module_for(cls), None
    else:
        custom = {v: k for k, v in _GLOBAL_CUSTOM_OBJECTS.items()}
        found = [c for c in custom if getattr(c, "__name__", None) == name]
        out["module"] = found[0].__module__ if found else None
        out["registered_name"] = custom[found[0]] if found else name
    return out


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object a `serialize_keras_object` config describes (a new one).

    Args:
        config: a config dict (or list, or plain value; a str naming a custom object gives
            that object).
        custom_objects: {name: class or function} for custom classes.
        safe_mode: refuse Lambda layers holding Python bytecode (as Keras 3); within an
            enclosing loader or `safe_mode_scope`, that scope's choice wins.
    Raises:
        TypeError / ValueError: an unknown class name (naming it and where to register it).

    Example:
        >>> import paddle as pd
        >>> layer = pd.saving.deserialize_keras_object(
        ...     {"class_name": "Dense", "config": {"units": 2, "name": "d2"}})
        >>> type(layer).__name__, layer.units
        ('Dense', 2)
    """
    from paddle.errors import CheckpointError
    if isinstance(config, list):
        return [deserialize_keras_object(c, custom_objects, safe_mode) for c in config]
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects)
        return config if found is None else found
    if not isinstance(config, dict):
        return config
    if "class_name" not in config or "config" not in config:
        return {k: deserialize_keras_object(v, custom_objects, safe_mode)
                for k, v in config.items()}
    name, inner = config["class_name"], config["config"]
    if name == "__tuple__":
        return tuple(deserialize_keras_object(v, custom_objects, safe_mode)
                     for v in inner["value"])
    if name == "__numpy__":
        from paddle.highlevel.saving_config import plain_array
        inner = inner if isinstance(inner, dict) else {}
        try:  # plain numbers only: no object, structured or sub-array dtype
            return plain_array(inner.get("value"), inner.get("dtype"),
                               "deserialize_keras_object: a __numpy__ array", kinds="biufc")
        except CheckpointError as e:
            raise ValueError(str(e)) from None
    if name == "function":
        found = get_registered_object(inner, custom_objects) or _builtin_function(inner)
        if found is None:
            raise TypeError(f"deserialize_keras_object: unknown function {inner!r}: pass it "
                            "in custom_objects or register it with "
                            "pd.saving.register_keras_serializable")
        return found
    try:
        return _deserialize_class(config, custom_objects, safe_mode)
    except CheckpointError as e:
        raise ValueError(str(e)) from e


def _deserialize_class(config, custom_objects, safe_mode):
    from paddle.highlevel import constraints, losses, metrics, regularizers, saving_config
    from paddle.highlevel.layers.bytecode import inherited_scope
    from paddle.lowlevel import initializers, optimizers
    name = config.get("registered_name") or config["class_name"]
    module = config.get("module") or ""
    custom = all_custom_objects(custom_objects)
    layers = saving_config.builtin_layers()
    if config["class_name"] in ("Sequential", "Functional", "Model") or \
            (name in layers and module in ("", "keras", "keras.layers")) or \
            (name in custom and isinstance(custom[name], type) and
             _is_layer(custom[name])):
        with CustomObjectScope(custom), inherited_scope(safe_mode):
            return saving_config.model_from_config(config, custom, safe_mode=bool(safe_mode)) \
                if _is_model_entry(config, custom) else \
                saving_config.deserialize_layer(config, custom)
    found = custom.get(name) or custom.get(config["class_name"])
    if found is None:
        tables = [vars(losses), vars(metrics), vars(regularizers), constraints.CLASSES,
                  vars(initializers),
                  {c.__name__: c for c in optimizers.NAMES.values()}]
        for table in tables:
            candidate = table.get(config["class_name"])
            if isinstance(candidate, type) and hasattr(candidate, "get_config"):
                found = candidate
                break
    if found is None:
        raise TypeError(f"deserialize_keras_object: unknown class {config['class_name']!r} "
                        f"(module {module!r}): pass it in custom_objects or register it with "
                        "pd.saving.register_keras_serializable")
    with inherited_scope(safe_mode):  # for what found.from_config deserializes itself
        inner = deserialize_keras_object(config["config"], custom_objects, safe_mode)
        if hasattr(found, "from_config"):
            return found.from_config(inner)
        return found(**inner)


def _is_layer(cls):
    from paddle.highlevel.layers.base import Layer
    return issubclass(cls, Layer)


def _is_model_entry(config, custom):
    from paddle.highlevel.model import Model
    if config["class_name"] in ("Sequential", "Functional", "Model"):
        return True
    cls = custom.get(config.get("registered_name") or config["class_name"]) or \
        custom.get(config["class_name"])
    return isinstance(cls, type) and issubclass(cls, Model)


def _builtin_function(name):
    from paddle.lowlevel.layer_functions import ACTIVATIONS
    from paddle.highlevel import losses
    bare = name.split(">", 1)[-1] if isinstance(name, str) else name
    if bare in ACTIVATIONS:
        return ACTIVATIONS[bare]
    fn = getattr(losses, bare, None)
    return fn if callable(fn) and not isinstance(fn, type) else None


# ---- models from configs ----------------------------------------------------------------

def model_from_json(json_string, custom_objects=None):
    """The model a `model.to_json()` string describes (new weights).

    Example:
        >>> import paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
        >>> clone = pd.models.model_from_json(model.to_json())
        >>> [type(l).__name__ for l in clone.layers], clone.outputs[0].shape
        (['Dense'], (None, 3))
    """
    import json
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
    from paddle.highlevel.model import Model
    if not isinstance(model, Model):
        raise ValueError(f"model_from_json: the JSON describes a {type(model).__name__}, "
                         "not a model")
    return model


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model of the same architecture, with new weights (as Keras's clone_model).

    Args:
        model: a Sequential, functional or subclassed model.
        input_tensors: new `pd.Input` Variable(s) to build the clone on (functional and
            Sequential models).
        clone_function: `layer -> new layer`, called for each layer (default: a new layer
            from the layer's config); return the layer itself to share it.
    Returns:
        The clone; it is not compiled.

    Example:
        >>> import paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
        >>> clone = pd.models.clone_model(model)
        >>> clone.layers[0] is model.layers[0], clone.outputs[0].shape
        (False, (None, 3))
    """
    from paddle.highlevel import saving_config
    from paddle.highlevel.layers.base import Layer
    from paddle.highlevel.model import Model, Sequential
    if not isinstance(model, Model):
        raise TypeError(f"clone_model: expected a model, received {type(model).__name__}")
    if clone_function is not None and not callable(clone_function):
        raise TypeError(f"clone_model: expected clone_function to be callable, received "
                        f"{clone_function!r}")

    def clone(layer):
        new = clone_function(layer) if clone_function else \
            saving_config.deserialize_layer(saving_config.serialize_layer(layer), None)
        if not isinstance(new, Layer):
            raise TypeError(f"clone_model: clone_function returned {type(new).__name__} for "
                            f"{layer.name!r}, expected a layer")
        return new
    kind = saving_config.model_kind(model)
    if kind == "subclassed":
        if input_tensors is not None:
            raise ValueError("clone_model: input_tensors needs a functional or Sequential "
                             "model")
        new = type(model).from_config(model.get_config())
        if model._graphs:
            first = next(iter(model._graphs.values()))[0]
            saving_config._build(new, {"input_shapes": [list(v.shape) for v in first],
                                       "input_dtypes": [v.dtype for v in first],
                                       "single_input": model._single_input})
        return new
    if kind == "Sequential":
        layers = [clone(layer) for layer in model.layers]
        inputs = input_tensors if input_tensors is not None else \
            [saving_config._make_input(saving_config._input_entry(model.inputs[0], False)
                                       ["config"])] if model.inputs is not None else []
        inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        return Sequential(list(inputs) + layers, name=model.name)
    made = {}

    def make_layer(entry, original):
        if original not in made:
            made[original] = clone(original)
        return made[original]
    config = saving_config.model_config(model, top=False)["config"]
    originals = {layer.name: layer for layer in saving_config.functional_layers(model)}
    new = saving_config._functional_from_config(
        config, None, make_layer=lambda entry: make_layer(entry, originals[entry["name"]]))
    if input_tensors is None:
        return new
    return Model(inputs=input_tensors, outputs=new(input_tensors), name=model.name)
