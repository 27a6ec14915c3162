"""Optimizers (Keras's `keras.optimizers`): `SGD`, `Adam`, `AdamW`, `RMSprop`, ..., and their
learning-rate schedules in `paddle.optimizers.schedules`.

This package is the Keras-style import path (`from paddle.optimizers import Adam`,
`pd.optimizers.X`); the code lives in `paddle.lowlevel.optimizers` and
`paddle.lowlevel.schedules`, which it re-exports.

Example:
    >>> from paddle.optimizers import Adam
    >>> from paddle.optimizers.schedules import ExponentialDecay
    >>> Adam(learning_rate=ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)).name
    'adam'
"""
from paddle.lowlevel.optimizers import *  # noqa: F401,F403
from paddle.lowlevel.loss_scale import LossScaleOptimizer  # noqa: F401
from paddle.lowlevel.composed_optimizers import (  # noqa: F401
    Adafactor, ComposedOptimizer, Muon, ScheduleFreeAdamW)
from paddle.lowlevel.multi_optimizer import MultiOptimizer, OptimizerMap  # noqa: F401
# The submodule by its import path (a plain `from . import` would keep the low-level module
# that the star import brought in under the same name).
import paddle.optimizers.schedules as schedules  # noqa: E402,F401
from paddle.highlevel.saving import compiling as _compiling  # noqa: E402
from paddle.highlevel.saving.registry import all_custom_objects as _custom  # noqa: E402
from paddle.lowlevel import optimizers as _optimizers  # noqa: E402


def serialize(optimizer):
    """Keras's config of an optimizer: {"module", "class_name", "config",
    "registered_name"}, a schedule as learning rate included.

    Example:
        >>> import paddle as pd
        >>> entry = pd.optimizers.serialize(pd.optimizers.SGD(learning_rate=0.5))
        >>> entry["class_name"], entry["config"]["learning_rate"]
        ('SGD', 0.5)
    """
    if not isinstance(optimizer, _optimizers.Optimizer):
        raise TypeError(f"optimizers.serialize: expected an Optimizer, received {optimizer!r}")
    entry = _compiling.serialize_optimizer(optimizer)
    config = dict(entry["config"])
    if isinstance(getattr(optimizer, "learning_rate", None), schedules.LearningRateSchedule):
        config["learning_rate"] = schedules.serialize(optimizer.learning_rate)
    return {"module": "keras.optimizers", "class_name": entry["class_name"], "config": config,
            "registered_name": None}


def deserialize(config, custom_objects=None):
    """The optimizer a `serialize` config (Keras's or paddle's) or a name describes.

    Example:
        >>> import paddle as pd
        >>> opt = pd.optimizers.deserialize({"class_name": "Adam",
        ...                                  "config": {"learning_rate": 0.01}})
        >>> type(opt).__name__, opt.learning_rate
        ('Adam', 0.01)
    """
    if isinstance(config, str):
        return _optimizers.get(config)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"optimizers.deserialize: expected a config with 'class_name' and "
                         f"'config' or a name, received {config!r}")
    inner = dict(config.get("config") or {})
    lr = inner.get("learning_rate")
    if isinstance(lr, dict):
        inner["learning_rate"] = schedules.deserialize(lr, custom_objects)
    return _compiling.deserialize_optimizer({"class_name": config["class_name"],
                                             "config": inner}, _custom(custom_objects))
