"""Keras 3's serialization API: any object to and from `{"module", "class_name", "config",
"registered_name"}` (`pd.saving` re-exports it), and the safe-mode scope every loader opens.

Names are looked up in the one registry (registry.py: custom objects, and the built-in
families, which register themselves). This module imports no family: layers and models are
(de)serialized by the functions that architecture.py registers with `register_layer_codec`
when it is imported, so a layer may import this module to serialize what it holds.

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

from paddle.errors import CheckpointError
from paddle.lowlevel import initializers, optimizers
# (imported for what they register: their classes join optimizers.NAMES)
from paddle.lowlevel import composed_optimizers, multi_optimizer  # noqa: F401
from paddle.lowlevel.layer_functions import ACTIVATIONS
from paddle.lowlevel.shapes import check_fits
from paddle.highlevel.saving.registry import (
    CustomObjectScope, all_custom_objects, family_classes, family_namespace, family_of,
    get_custom_objects, get_registered_name, get_registered_object, register_family,
    registered_key)

# The low level's families sit below this floor and cannot import up: registered here.
register_family("keras.initializers", vars(initializers))
_OPTIMIZERS = {c.__name__: c for c in optimizers.NAMES.values()}
_OPTIMIZERS.update(MultiOptimizer=multi_optimizer.MultiOptimizer,
                   OptimizerMap=multi_optimizer.OptimizerMap)  # (no names of their own)
register_family("keras.optimizers", {**vars(optimizers), **_OPTIMIZERS}, _OPTIMIZERS)

_STATE = threading.local()
_LAYERS = {}  # how layers and models are (de)serialized: architecture.py fills it


def register_layer_codec(layer_class, model_class, serialize, deserialize, model_from_config,
                         builtin_layers, keras_layer_config):
    """Called by architecture.py when it is imported: the layer and model classes and the
    functions that turn them into configs and back."""
    _LAYERS.update(layer_class=layer_class, model_class=model_class, serialize=serialize,
                   deserialize=deserialize, model_from_config=model_from_config,
                   builtin_layers=builtin_layers, keras_layer_config=keras_layer_config)


def deserialize_layer(spec, custom_objects=None):
    """The layer (or model) of a `{"class_name", "config"}` entry, paddle's or Keras 3's:
    what a layer holding layers (a wrapper, an RNN's cells) rebuilds them with. Raises
    CheckpointError for an unknown class or a config its class refuses."""
    return _LAYERS["deserialize"](spec, custom_objects)


def keras_layer_config(cls, config, custom_objects=None):
    """A layer config as paddle's `cls` takes it, Keras 3's extra keys dropped or refused
    (architecture.keras_layer_config)."""
    return _LAYERS["keras_layer_config"](cls, config, custom_objects)


# ---- safe mode --------------------------------------------------------------------------

@contextlib.contextmanager
def safe_mode_scope(safe_mode):
    """Within the block, configs holding bytecode are refused (True) or loaded (False).

    Loaders (`pd.load_model`, `model_from_config`, `deserialize_keras_object`) open this
    scope with their `safe_mode` argument, or keep the scope of the loader they run in
    (`inherited_scope`), so the caller's choice reaches every nested deserialization: a
    wrapper's or a custom class's `from_config` included. Outside any scope, a Lambda
    rebuilt from a config gets back a function this process turned into that config
    (`Lambda.from_config(lam.get_config())`); other bytecode is refused, as Keras 3's
    `Lambda.from_config` refuses it outside a scope.
    """
    if not isinstance(safe_mode, bool):
        raise TypeError(f"safe_mode must be True or False, received {safe_mode!r}")
    saved = getattr(_STATE, "safe_mode", None)
    _STATE.safe_mode = safe_mode
    try:
        yield
    finally:
        _STATE.safe_mode = saved


def in_safe_mode():
    """True or False inside a `safe_mode_scope`, None outside any."""
    return getattr(_STATE, "safe_mode", None)


def inherited_scope(safe_mode):
    """The scope of a nested deserialization: an enclosing scope's choice wins (the
    caller of `pd.load_model(..., safe_mode=...)` decides for everything the file holds,
    as Keras 3's `deserialize_keras_object` keeps an enclosing SafeModeScope);
    `safe_mode` applies when there is none."""
    outer = in_safe_mode()
    return safe_mode_scope(bool(safe_mode) if outer is None else outer)


# ---- objects to configs and back --------------------------------------------------------

def _module_for(obj):
    """Keras's module name for paddle's built-in classes, the Python module otherwise."""
    cls = obj if isinstance(obj, type) else type(obj)
    if cls.__module__.startswith("paddle."):
        if issubclass(cls, _LAYERS["model_class"]):
            return "keras"
        return family_of(cls) or cls.__module__
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
    if isinstance(obj, _LAYERS["layer_class"]):
        return keras3_entry(_LAYERS["serialize"](obj))
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
    registered = registered_key(type(obj))
    return {"module": _module_for(obj), "class_name": type(obj).__name__,
            "config": serialize_keras_object(obj.get_config()), "registered_name": registered}


def keras3_entry(entry):
    """A paddle `{"class_name", "config"}` layer or model entry with Keras 3's "module" and
    "registered_name" added, recursively (nested models' layers too)."""
    name = entry.get("class_name")
    builtin_layers = _LAYERS["builtin_layers"]()
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
    cls = builtin_layers.get(name)
    config = out.get("config")
    if isinstance(config, dict):  # a wrapped layer's config (Bidirectional's "layer")
        out["config"] = {k: keras3_entry(v) if isinstance(v, dict) and "class_name" in v and
                         v.get("class_name") in builtin_layers else v
                         for k, v in config.items()}
    if cls is not None and cls.__module__.startswith("paddle."):
        out["module"], out["registered_name"] = _module_for(cls), None
    else:
        custom = {v: k for k, v in get_custom_objects().items() if ">" in k}
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


def plain_array(value, dtype, where, kinds="biuf"):
    """np.array(value, dtype=dtype) for a value read from a config, made only once the
    dtype is plain numbers of the given kinds (an object array would carry anything; a
    structured or sub-array dtype such as "(10000,10000)f4" multiplies the size of
    every element beyond what the config shows) and the array fits in memory.

    Raises:
        CheckpointError: naming `where`, the dtype or the value received.

    Example:
        >>> from paddle.highlevel.saving.serialization import plain_array
        >>> plain_array([[1, 2]], "float32", "a constant").dtype.name
        'float32'
        >>> plain_array([1], "(10000,10000)f4", "a constant")
        Traceback (most recent call last):
            ...
        paddle.errors.CheckpointError: a constant: expected a dtype of plain numbers (bool, int, uint, float), received '(10000,10000)f4'
    """
    if not isinstance(dtype, str) or len(dtype) > 32:
        raise CheckpointError(f"{where}: expected a dtype name such as 'float32', received "
                              f"{str(dtype)[:40]!r}")
    try:
        parsed = np.dtype(dtype)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{where}: unknown dtype {dtype!r} ({e})") from None
    if parsed.kind not in kinds or parsed.fields is not None or parsed.subdtype is not None \
            or parsed.metadata:
        names = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}
        raise CheckpointError(f"{where}: expected a dtype of plain numbers "
                              f"({', '.join(names[k] for k in kinds)}), received {dtype!r}")
    try:
        check_fits(_nested_shape(value), parsed, where)
        return np.array(value, dtype=parsed)
    except MemoryError as e:
        raise CheckpointError(str(e)) from None
    except (TypeError, ValueError, OverflowError) as e:
        raise CheckpointError(f"{where}: cannot make a {dtype} array of {str(value)[:80]} "
                              f"({type(e).__name__}: {e})") from None


def _nested_shape(value):
    """The shape nested lists declare along their first elements (NumPy refuses ragged
    ones when it builds the array)."""
    shape = []
    while isinstance(value, (list, tuple)) and len(shape) < 64:
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(shape)


# The families whose classes a config may name, in the order they are searched.
_DESERIALIZED = ("keras.losses", "keras.metrics", "keras.regularizers", "keras.constraints",
                 "keras.initializers", "keras.optimizers", "keras.distillation")


def _deserialize_class(config, custom_objects, safe_mode):
    name = config.get("registered_name") or config["class_name"]
    module = config.get("module") or ""
    custom = all_custom_objects(custom_objects)
    layers = _LAYERS["builtin_layers"]()
    if config["class_name"] in ("Sequential", "Functional", "Model") or \
            (name in layers and module in ("", "keras", "keras.layers")) or \
            (name in custom and isinstance(custom[name], type) and
             _is_layer(custom[name])):
        with CustomObjectScope(custom), inherited_scope(safe_mode):
            return _LAYERS["model_from_config"](config, custom, safe_mode=bool(safe_mode)) \
                if _is_model_entry(config, custom) else \
                _LAYERS["deserialize"](config, custom)
    found = custom.get(name) or custom.get(config["class_name"])
    if found is None:
        for table in map(family_classes, _DESERIALIZED):
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
    return issubclass(cls, _LAYERS["layer_class"])


def _is_model_entry(config, custom):
    if config["class_name"] in ("Sequential", "Functional", "Model"):
        return True
    cls = custom.get(config.get("registered_name") or config["class_name"]) or \
        custom.get(config["class_name"])
    return isinstance(cls, type) and issubclass(cls, _LAYERS["model_class"])


def _builtin_function(name):
    bare = name.split(">", 1)[-1] if isinstance(name, str) else name
    if bare in ACTIVATIONS:
        return ACTIVATIONS[bare]
    fn = family_namespace("keras.losses").get(bare) if isinstance(bare, str) else None
    return fn if callable(fn) and not isinstance(fn, type) else None
