"""The one registry of names the saved files use: custom objects, and the built-in
families that register themselves.

Custom classes and functions (layers, models, losses, metrics, activations, optimizers)
are found again by name when a config is read: from `custom_objects=`, from an open
`custom_object_scope`, or from the global table that `register_keras_serializable` (and
its short form `register_serializable`) fills; `get_custom_objects()` is that table, as
in Keras. Each built-in family (`keras.layers`, `keras.losses`, `keras.metrics`, ...)
registers its namespace here with `register_family` when it is imported, so the code that
turns objects into configs and back (serialization.py) imports no family. This module
imports nothing of paddle's: every floor that saves or loads may import it.

Example:
    >>> import paddle as pd
    >>> from paddle.highlevel.saving import registry
    >>> @registry.register_keras_serializable(package="Demo", name="triple_it")
    ... def triple_it(x):
    ...     return x * 3.0
    >>> registry.get_registered_name(triple_it), registry.get_registered_object("triple_it") is triple_it
    ('Demo>triple_it', True)
    >>> registry.family_of(pd.losses.Huber)
    'keras.losses'
"""
import threading

_GLOBAL_CUSTOM_OBJECTS = {}    # registered name ("Package>Name", or a bare name) -> object
_REGISTERED_NAMES = {}         # class or function -> its "Package>Name"
_SCOPES = threading.local()    # stack of dicts opened by custom_object_scope
_FAMILIES = {}                 # Keras module name -> (namespace, {class name: class})


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
        return obj
    return decorate


def register_serializable(cls=None, *, name=None):
    """Make a custom class loadable without `custom_objects` (layers, models, losses,
    metrics, optimizers, schedules), under its bare class name or `name`: the same table
    as `register_keras_serializable`, without a package prefix.

    Example:
        >>> import paddle as pd
        >>> from paddle.highlevel.saving.registry import register_serializable
        >>> @register_serializable
        ... class DocTwice(pd.layers.Layer):
        ...     def call(self, x, training=False):
        ...         return x * 2.0
    """
    def add(c):
        _GLOBAL_CUSTOM_OBJECTS[name or c.__name__] = c
        return c
    return add(cls) if cls is not None else add


def _bare(key):
    return key.split(">", 1)[-1]


def get_custom_objects():
    """The global {registered name: object} table; adding to it registers too."""
    return _GLOBAL_CUSTOM_OBJECTS


def get_registered_name(obj):
    """The name `obj` was registered under (its `__name__` when it was not)."""
    return _REGISTERED_NAMES.get(obj, getattr(obj, "__name__", None))


def registered_key(obj):
    """The "Package>Name" `obj` was registered under, or None."""
    return _REGISTERED_NAMES.get(obj)


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object saved as `name`: from custom_objects, an open scope, the global table
    (by full "package>name" or by the bare name) or `module_objects`; None if unknown."""
    for table in [custom_objects or {}] + list(reversed(_scope_stack())) + \
            [_GLOBAL_CUSTOM_OBJECTS]:
        if name in table:
            return table[name]
    if isinstance(name, str) and ">" not in name:
        for key, obj in _GLOBAL_CUSTOM_OBJECTS.items():
            if _bare(key) == name:
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
    """One dict of every custom object visible now (the global table by full and bare
    names, the scopes, then `custom_objects`, which wins)."""
    found = {}
    packaged = {k: v for k, v in _GLOBAL_CUSTOM_OBJECTS.items() if ">" in k}
    for key, obj in packaged.items():  # a bare name finds a packaged object first
        found.setdefault(_bare(key), obj)
        found[key] = obj
    for key, obj in _GLOBAL_CUSTOM_OBJECTS.items():
        found.setdefault(key, obj)
    for table in _scope_stack():
        found.update(table)
    found.update(custom_objects or {})
    return found


# ---- the built-in families --------------------------------------------------------------

def register_family(keras_module, namespace, classes=None):
    """Called by a family's own module when it is imported: `namespace` (its module's
    globals) says which classes are built in and under which Keras module name they are
    saved; `classes` ({class name: class}, default: the classes of `namespace` that have a
    `get_config`) are those a config may name."""
    _FAMILIES[keras_module] = (namespace, classes)


def family_classes(keras_module):
    """{class name: class} a config of this family may name ({} before it registered)."""
    namespace, classes = _FAMILIES.get(keras_module, ({}, None))
    if classes is not None:
        return classes
    return {n: c for n, c in namespace.items()
            if isinstance(c, type) and hasattr(c, "get_config")}


def family_namespace(keras_module):
    """The namespace a family registered ({} before it did)."""
    return _FAMILIES.get(keras_module, ({}, None))[0]


def family_of(cls, order=("keras.layers", "keras.losses", "keras.metrics", "keras.optimizers",
                          "keras.regularizers", "keras.constraints", "keras.initializers",
                          "keras.distillation")):
    """The Keras module name a built-in class is saved under, or None."""
    for keras_module in order:
        if family_namespace(keras_module).get(cls.__name__) is cls:
            return keras_module
    return None
