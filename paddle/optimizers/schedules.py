"""Learning-rate schedules (Keras's `keras.optimizers.schedules`): `ExponentialDecay`,
`PiecewiseConstantDecay`, `CosineDecay`, ...

This module is the Keras-style import path (`from paddle.optimizers.schedules import ...`);
the code lives in `paddle.lowlevel.schedules`, which it re-exports.

Example:
    >>> from paddle.optimizers.schedules import ExponentialDecay
    >>> round(ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)(10), 6)
    0.05
"""
from paddle.lowlevel.schedules import *  # noqa: F401,F403
from paddle.highlevel.saving.registry import all_custom_objects as _custom  # noqa: E402
from paddle.lowlevel import schedules as _schedules  # noqa: E402

_MODULE = "keras.optimizers.schedules"


def serialize(learning_rate_schedule):
    """Keras's config of a schedule: {"module", "class_name", "config", "registered_name"}.

    Example:
        >>> import paddle as pd
        >>> entry = pd.optimizers.schedules.serialize(
        ...     pd.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5))
        >>> entry["class_name"], entry["config"]["decay_steps"]
        ('ExponentialDecay', 10)
    """
    if not isinstance(learning_rate_schedule, _schedules.LearningRateSchedule):
        raise TypeError(f"schedules.serialize: expected a LearningRateSchedule, received "
                        f"{learning_rate_schedule!r}")
    return {"module": _MODULE, "class_name": type(learning_rate_schedule).__name__,
            "config": learning_rate_schedule.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """The schedule a `serialize` config (Keras's or paddle's) describes.

    Example:
        >>> import paddle as pd
        >>> s = pd.optimizers.schedules.deserialize(
        ...     {"class_name": "CosineDecay", "config": {"initial_learning_rate": 0.1,
        ...                                              "decay_steps": 100}})
        >>> type(s).__name__, s.decay_steps
        ('CosineDecay', 100)
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"schedules.deserialize: expected a config with 'class_name' and "
                         f"'config', received {config!r}")
    name = config.get("registered_name") or config["class_name"]
    custom = _custom(custom_objects)
    cls = custom.get(name) or custom.get(config["class_name"]) or \
        _schedules.CLASSES.get(config["class_name"])
    if cls is None:
        raise ValueError(f"schedules.deserialize: unknown schedule {config['class_name']!r}; "
                         f"expected one of {', '.join(sorted(_schedules.CLASSES))} or a "
                         f"class in custom_objects")
    inner = dict(config.get("config") or {})
    return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
