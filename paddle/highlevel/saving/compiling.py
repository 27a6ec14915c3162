"""Compile settings for checkpoints: `training_config` (Keras's keys) and back to `compile`.

The loss, metrics and loss weights are saved as the user gave them to `compile`: names
stay names, built-in objects become `{"class_name", "config"}`, custom classes are saved by
class name with their `get_config()` and plain functions by their `__name__` (both found
again through `custom_objects`). Per-output dicts are saved by output position, since
layer names may get a numeric suffix when the model is rebuilt in the same process.

Example:
    >>> import paddle as pd
    >>> from paddle.highlevel.saving import compiling
    >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
    >>> model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    >>> config = compiling.training_config(model)
    >>> config["loss"], config["metrics"], config["optimizer_config"]["class_name"]
    ('mse', ['mae'], 'SGD')
"""
import inspect
import warnings

from paddle.errors import CheckpointError
from paddle.lowlevel import optimizers, schedules
from paddle.lowlevel.loss_scale import LossScaleOptimizer
from paddle.lowlevel.multi_optimizer import MultiOptimizer
from paddle.highlevel import losses, metrics
from paddle.highlevel.saving.architecture import from_config, lookup
from paddle.highlevel.saving.registry import all_custom_objects

PER_OUTPUT = "__per_output__"


def training_config(model):
    """The model's compile arguments as a JSON-able dict in Keras's layout."""
    names = _output_names(model)
    return {"loss": _per_output(model._loss_arg, names, _loss, listed=True),
            "metrics": _per_output(model._metrics_arg, names, _metric_list,
                                   listed=_nested(model._metrics_arg)),
            "weighted_metrics": _per_output(getattr(model, "_weighted_metrics_arg", None), names,
                                            _metric_list,
                                            listed=_nested(getattr(model, "_weighted_metrics_arg",
                                                                   None))),
            "loss_weights": _per_output(model._loss_weights_arg, names, float, listed=True),
            "optimizer_config": serialize_optimizer(model.optimizer)}


def compile_args(config, model, custom_objects=None):
    """Keyword arguments for `model.compile` from a saved training_config."""
    names = _output_names(model)
    custom = custom_objects or {}
    return {"optimizer": deserialize_optimizer(config.get("optimizer_config"), custom),
            "loss": _from_per_output(config.get("loss"), names,
                                     lambda s: _get_loss(s, custom), listed=True),
            "metrics": _from_per_output(config.get("metrics"), names,
                                        lambda s: [_get_metric(m, custom) for m in s or []],
                                        listed=_nested(config.get("metrics"))),
            "weighted_metrics": _from_per_output(
                config.get("weighted_metrics"), names,
                lambda s: [_get_metric(m, custom) for m in s or []],
                listed=_nested(config.get("weighted_metrics"))),
            "loss_weights": _from_per_output(config.get("loss_weights"), names, float,
                                             listed=True)}


def _nested(metrics_arg):
    """metrics=[[...], [...]]: one list per output (Keras's multi-output list form)."""
    return isinstance(metrics_arg, (list, tuple)) and any(
        m is None or isinstance(m, (list, tuple)) for m in metrics_arg)


def _output_names(model):
    _, outputs = model.graph(False)
    return model._output_names(outputs)


def _per_output(value, names, fn, listed=False):
    if value is None:
        return None
    if isinstance(value, dict):
        return {PER_OUTPUT: [None if value.get(n) is None else fn(value[n]) for n in names]}
    if listed and isinstance(value, (list, tuple)):
        return [None if v is None else fn(v) for v in value]
    return fn(value)


def _from_per_output(value, names, fn, listed=False):
    if value is None:
        return None
    if isinstance(value, dict) and PER_OUTPUT in value:
        per = value[PER_OUTPUT]
        if len(per) != len(names):
            raise CheckpointError(f"the training config has settings for {len(per)} outputs, "
                                  f"the model has {len(names)}")
        return {n: fn(v) for n, v in zip(names, per) if v is not None}
    if listed and isinstance(value, list):
        return [None if v is None else fn(v) for v in value]
    return fn(value)


# ---- losses and metrics -----------------------------------------------------------------

def _loss(item):
    if item is None or isinstance(item, str):
        return item
    loss = losses.get(item)
    if isinstance(loss, losses.LossFunctionWrapper):
        return getattr(loss.fn, "__name__", loss.name)
    builtin = losses.serialize(loss)
    if isinstance(builtin, dict):
        return builtin
    return {"class_name": type(loss).__name__, "config": loss.get_config()}


def _metric_list(items):
    return [_metric(m) for m in (items if isinstance(items, (list, tuple)) else [items])]


def _metric(item):
    if isinstance(item, str):
        return item
    if isinstance(item, metrics.Metric):
        builtin = metrics.serialize(item)
        if isinstance(builtin, dict):
            return builtin
        if type(item) is not metrics.MeanMetricWrapper:
            return {"class_name": type(item).__name__, "config": item.get_config()}
        item = getattr(item, "fn", None) or item.name
    if isinstance(item, type):
        return {"class_name": item.__name__, "config": {}}
    return getattr(item, "__name__", str(item))


def _get_loss(spec, custom):
    if spec is None:
        return None
    name = spec if isinstance(spec, str) else spec.get("class_name")
    if name in custom or name in all_custom_objects():
        found = lookup(name, custom, {}, "loss")
        if isinstance(spec, dict):
            return from_config(found, spec.get("config") or {})
        return found() if isinstance(found, type) else found
    try:
        return losses.get(spec)
    except (ValueError, TypeError, KeyError) as e:
        raise CheckpointError(f"unknown loss {name!r} in the training config: pass it as "
                              f"custom_objects={{{name!r}: ...}}, or load with compile=False "
                              f"({e})") from None


def _get_metric(spec, custom):
    name = spec if isinstance(spec, str) else spec.get("class_name")
    if name in custom or name in all_custom_objects():
        found = lookup(name, custom, {}, "metric")
        if isinstance(spec, dict):
            return from_config(found, spec.get("config") or {})
        return found
    try:
        metrics.get(spec)  # checked now; names stay names ("accuracy" follows the loss)
    except (ValueError, TypeError, KeyError) as e:
        raise CheckpointError(f"unknown metric {name!r} in the training config: pass it as "
                              f"custom_objects={{{name!r}: ...}}, or load with compile=False "
                              f"({e})") from None
    return spec if isinstance(spec, str) else metrics.get(spec)


# ---- optimizers -------------------------------------------------------------------------

def serialize_optimizer(optimizer):
    config = optimizer.get_config()
    lr = getattr(optimizer, "learning_rate", None)  # (a MultiOptimizer has none)
    if callable(lr) and not isinstance(lr, schedules.LearningRateSchedule):
        warnings.warn(f"{optimizer.name}: the learning rate is a function, which cannot be "
                      "saved; the checkpoint holds its current value "
                      f"{optimizer.current_learning_rate():g}", stacklevel=4)
        config["learning_rate"] = optimizer.current_learning_rate()
    return {"class_name": type(optimizer).__name__, "config": _accepted(type(optimizer), config)}


def deserialize_optimizer(spec, custom):
    if not isinstance(spec, dict) or "class_name" not in spec:
        raise CheckpointError(f"the training config has no optimizer_config (found {spec!r})")
    builtins = {cls.__name__: cls for cls in optimizers.NAMES.values()}
    builtins["LossScaleOptimizer"] = LossScaleOptimizer
    builtins["MultiOptimizer"] = MultiOptimizer
    cls = lookup(spec["class_name"], custom, builtins, "optimizer")
    config = dict(spec.get("config") or {})
    lr = config.get("learning_rate")
    if isinstance(lr, dict):
        schedule = lookup(lr.get("class_name"), custom, schedules.CLASSES,
                          "learning rate schedule")
        try:
            config["learning_rate"] = schedule(**(lr.get("config") or {}))
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"{lr.get('class_name')}: could not rebuild the learning "
                                  f"rate schedule from {lr.get('config')!r}: {e}") from e
    return from_config(cls, _accepted(cls, config))


def _accepted(cls, config):
    """The config without keys the constructor does not take (state such as slot_names)."""
    params = inspect.signature(cls.__init__).parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return config
    names = {p.name for p in params}
    return {k: v for k, v in config.items() if k in names}
