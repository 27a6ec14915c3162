"""Keras's legacy (Keras 2) object configs: `{"class_name": ..., "config": ...}` with no
module or registered name, as `keras.legacy.saving` and `keras.utils.legacy` read and write
them (older `.h5` files and hand-written configs use this form).

Example:
    >>> import paddle as pd
    >>> entry = pd.legacy.saving.serialize_keras_object(pd.layers.Dense(3, name="d"))
    >>> entry["class_name"], entry["config"]["units"]
    ('Dense', 3)
    >>> pd.legacy.saving.deserialize_keras_object(entry).units
    3
"""
import inspect

from paddle.highlevel.saving.registry import get_registered_name, get_registered_object
from paddle.highlevel.saving.serialization import deserialize_keras_object as _deserialize


def serialize_keras_object(instance):
    """`{"class_name": name, "config": instance.get_config()}` (None gives None).

    Raises:
        ValueError: `instance` has no `get_config()` (as Keras's legacy serializer).

    Example:
        >>> import paddle as pd
        >>> pd.utils.legacy.serialize_keras_object(pd.regularizers.L2(0.5))
        {'class_name': 'L2', 'config': {'l2': 0.5}}
    """
    if instance is None:
        return None
    if not hasattr(instance, "get_config") or inspect.isclass(instance):
        raise ValueError(f"serialize_keras_object: cannot serialize {instance!r} because it "
                         f"doesn't implement `get_config()`")
    return {"class_name": get_registered_name(type(instance)),
            "config": instance.get_config()}


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object"):
    """The object a legacy config or name describes.

    Args:
        identifier: None, a `{"class_name", "config"}` dict, or a name: a registered or
            given function is returned as it is, a class is instantiated with no argument.
        module_objects: {name: class or function} to look names up in (after
            custom_objects and the registered objects).
        custom_objects: {name: class or function} looked up first.
        printable_module_name: what the error calls an unknown name ("layer", ...).

    Example:
        >>> import paddle as pd
        >>> pd.legacy.saving.deserialize_keras_object(
        ...     {"class_name": "L2", "config": {"l2": 0.5}}).get_config()
        {'l2': 0.5}
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(f"deserialize_keras_object: expected a config with 'class_name' "
                             f"and 'config', received {identifier!r}")
        name = identifier["class_name"]
        found = get_registered_object(name, custom_objects, module_objects)
        if found is not None and hasattr(found, "from_config"):
            return found.from_config(identifier["config"])
        return _deserialize({"module": None, "class_name": name,
                             "config": identifier["config"], "registered_name": None},
                            custom_objects=custom_objects)
    if isinstance(identifier, str):
        found = get_registered_object(identifier, custom_objects, module_objects)
        if found is None:
            raise ValueError(f"deserialize_keras_object: unknown {printable_module_name}: "
                             f"{identifier!r}; pass it in custom_objects or register it with "
                             f"pd.saving.register_keras_serializable")
        return found() if inspect.isclass(found) else found
    if callable(identifier):
        return identifier
    raise ValueError(f"deserialize_keras_object: could not interpret the serialized "
                     f"{printable_module_name}: {identifier!r}")
