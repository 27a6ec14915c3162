"""Keras 3's `MultiOptimizer` and its `OptimizerMap`: each weight updated by the optimizer
its name maps to.

Example:
    >>> import paddle as pd
    >>> mapping = pd.optimizers.OptimizerMap(pd.optimizers.SGD(0.1))
    >>> mapping["head/.*"] = pd.optimizers.Adam(0.01)
    >>> opt = pd.optimizers.MultiOptimizer(mapping)
    >>> [o.name for o in opt.optimizers]
    ['adam', 'sgd']
"""
import re
import weakref
from collections.abc import MutableMapping

from paddle.lowlevel import optimizers
from paddle.lowlevel.graph import UPDATE_COLLECTORS, Variable, apply
from paddle.lowlevel.loss_scale import LossScaleOptimizer, _deserialize, _serialize
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops.state import after_updates


def _inner(optimizer, where):
    """The optimizer, checked to be one a MultiOptimizer can hold."""
    if not isinstance(optimizer, optimizers.Optimizer):
        raise ValueError(f"{where}: expected a pd.optimizers Optimizer, received {optimizer!r}")
    if isinstance(optimizer, LossScaleOptimizer):
        raise ValueError(f"{where}: a LossScaleOptimizer cannot be used inside a MultiOptimizer")
    if isinstance(optimizer, MultiOptimizer):
        raise ValueError(f"{where}: a MultiOptimizer cannot be used inside a MultiOptimizer")
    return optimizer


class OptimizerMap(MutableMapping):
    """Weight names (or regular expressions matching the whole name) to optimizers, with
    a default for the weights no key matches (Keras 3's `keras.optimizers.OptimizerMap`).

    Keys are matched against paddle's weight names (`layer/weight`, such as
    "head/kernel"): a key equal to the name first, else the one key that
    `re.fullmatch`es it.

    Args:
        default_optimizer: the optimizer of the weights no key matches.
        optimizer_map: an optional {key: optimizer} to start from.

    Raises:
        TypeError: a default that is not an Optimizer, a map that is not a dict.
        ValueError: a key set twice, a key that is not a string, or several keys matching
            one name.

    Example:
        >>> import paddle as pd
        >>> m = pd.optimizers.OptimizerMap(pd.optimizers.RMSprop())
        >>> m["encoder/.*"] = pd.optimizers.SGD()
        >>> m["encoder/dense/kernel"].name, m["decoder/dense/kernel"].name
        ('sgd', 'rmsprop')
    """

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, optimizers.Optimizer):
            raise TypeError(f"OptimizerMap: expected default_optimizer to be a pd.optimizers "
                            f"Optimizer, received {default_optimizer!r}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"OptimizerMap: expected optimizer_map to be a dict, received "
                            f"{optimizer_map!r}")
        self._default_optimizer = _inner(default_optimizer, "OptimizerMap")
        self._optimizer_map = {}
        for key, value in (optimizer_map or {}).items():
            self[key] = value

    @property
    def default_optimizer(self):
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(matching) > 1:
            raise ValueError(f"OptimizerMap: the keys {matching} all match the weight {key!r}; "
                             "expected at most one")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(f"OptimizerMap: {key!r} is already mapped to "
                             f"{self._optimizer_map[key]!r}; expected each key once")
        if not isinstance(key, str):
            raise ValueError(f"OptimizerMap: expected a string key, received {key!r}")
        try:
            re.compile(key)
        except re.error as e:
            raise ValueError(f"OptimizerMap: the key {key!r} is not a regular expression "
                             f"({e})") from None
        self._optimizer_map[key] = _inner(optimizer, f"OptimizerMap[{key!r}]")

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        return self[variable.name]

    def get_config(self):
        return {"default_optimizer": _serialize(self._default_optimizer),
                "optimizer_map": {k: _serialize(v) for k, v in self._optimizer_map.items()}}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(_optimizer(config["default_optimizer"]),
                   {k: _optimizer(v) for k, v in (config.get("optimizer_map") or {}).items()})


class MultiOptimizer(optimizers.Optimizer):
    """An optimizer that updates each weight with the optimizer `optimizer_map` gives it
    (Keras 3's `keras.optimizers.MultiOptimizer`): an `OptimizerMap`, or a function from
    a weight (a Variable) to an optimizer. Each inner optimizer keeps its own learning rate,
    slots and step count; this one counts its own steps. It has no learning rate of its own
    (reading or setting it raises, as in Keras).

    Args:
        optimizer_map: an OptimizerMap, or a callable of a weight returning an optimizer.
        loss_scale_factor: kept for Keras's signature; only None is supported.
        name: "multi_optimizer" by default.

    Raises:
        ValueError: an optimizer_map of another kind; a weight mapped to something that is
            not an optimizer, or to a LossScaleOptimizer or MultiOptimizer.

    Example:
        >>> import paddle as pd
        >>> w = pd.Variable("head/kernel", shape=[2], initializer="ones")
        >>> u = pd.Variable("body/kernel", shape=[2], initializer="ones")
        >>> opt = pd.optimizers.MultiOptimizer(
        ...     lambda v: pd.optimizers.SGD(0.5) if v.name.startswith("head") else
        ...     pd.optimizers.SGD(0.25))
        >>> _ = pd.eval(opt.minimize(pd.sum(w * w) + pd.sum(u * u)))
        >>> w.val().tolist(), u.val().tolist(), opt.iterations
        ([0.0, 0.0], [0.5, 0.5], 1)
    """

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        if not callable(optimizer_map):
            raise ValueError(f"MultiOptimizer: expected an OptimizerMap or a function from a "
                             f"weight to an optimizer, received {optimizer_map!r}")
        if loss_scale_factor is not None:
            raise ValueError(f"MultiOptimizer: loss_scale_factor is not supported (use "
                             f"pd.optimizers.LossScaleOptimizer), received "
                             f"{loss_scale_factor!r}")
        self.name = name or "multi_optimizer"
        self.loss_scale_factor = None
        self._optimizer_map = optimizer_map
        self._inner_optimizers = []
        for opt in list(getattr(optimizer_map, "values", lambda: [])()) + \
                [getattr(optimizer_map, "default_optimizer", None)]:
            if opt is not None and opt not in self._inner_optimizers:
                self._inner_optimizers.append(opt)
        self._owner = weakref.WeakKeyDictionary()  # weight -> its optimizer
        self.iterations = 0
        self.use_ema, self.weight_decay = False, None
        self.clipnorm = self.clipvalue = self.global_clipnorm = None
        self._slots = weakref.WeakKeyDictionary()

    @property
    def optimizers(self):
        """The inner optimizers, in Keras's order (the map's, then the default, then the
        ones a function returned, as first met)."""
        return list(self._inner_optimizers)

    @property
    def learning_rate(self):
        raise AttributeError("MultiOptimizer: has no learning rate; read it on one of its "
                             "optimizers (MultiOptimizer.optimizers)")

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError("MultiOptimizer: has no learning rate; set it on one of its "
                             "optimizers (MultiOptimizer.optimizers)")

    def current_learning_rate(self):
        raise AttributeError("MultiOptimizer: has no learning rate; read it on one of its "
                             "optimizers (MultiOptimizer.optimizers)")

    def optimizer_of(self, var):
        """The optimizer that updates the weight `var` (asked of the map once)."""
        if var not in self._owner:
            opt = _inner(self._optimizer_map(var), f"MultiOptimizer: the optimizer of "
                                                   f"{var.name!r}")
            if opt not in self._inner_optimizers:
                self._inner_optimizers.append(opt)
            self._owner[var] = opt
        return self._owner[var]

    def slots(self, var):
        return self.optimizer_of(var).slots(var)

    def all_slot_names(self):
        names = []
        for opt in self._inner_optimizers:
            names += [s for s in opt.all_slot_names() if s not in names]
        return tuple(names)

    @property
    def slot_names(self):
        return self.all_slot_names()

    def variables(self):
        return [v for opt in self._inner_optimizers for v in opt.variables()]

    def decays(self, var):
        return self.optimizer_of(var).decays(var)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        for opt in self._inner_optimizers:
            opt.exclude_from_weight_decay(var_list, var_names)

    def finalize_variable_values(self, var_list):
        for opt in self._inner_optimizers:
            opt.finalize_variable_values([v for v in var_list if self._owner.get(v) is opt])

    def _update(self, grads, trainable_variables, gate=None):
        grads, variables = self._checked(grads, trainable_variables)
        groups = {}
        for g, v in zip(grads, variables):
            groups.setdefault(id(self.optimizer_of(v)), (self.optimizer_of(v), [], []))
            groups[id(self.optimizer_of(v))][1].append(g)
            groups[id(self.optimizer_of(v))][2].append(v)
        updates = [opt._update(gs, vs, gate) for opt in self._inner_optimizers
                   for key, (_, gs, vs) in groups.items() if key == id(opt)]
        count = apply(OPS["count_step"], [gate] if gate is not None else [],
                      {"optimizer": self, "gated": gate is not None})
        update = after_updates(count, *updates)
        for collected in UPDATE_COLLECTORS:
            collected.append(update)
        return update

    def weights_of(self, optimizer, weights):
        """The weights of `weights` that `optimizer` (one of `optimizers`) updates."""
        return [w for w in weights if self.optimizer_of(w) is optimizer]

    def get_config(self):
        mapping = self._optimizer_map
        if not isinstance(mapping, OptimizerMap):
            raise ValueError("MultiOptimizer: a function as optimizer_map cannot be saved; "
                             "use a pd.optimizers.OptimizerMap")
        return {"optimizer_map": {"module": "keras.optimizers", "class_name": "OptimizerMap",
                                  "config": mapping.get_config(), "registered_name": None},
                "loss_scale_factor": None, "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        mapping = config.get("optimizer_map")
        if isinstance(mapping, dict):
            config["optimizer_map"] = OptimizerMap.from_config(mapping.get("config", mapping))
        return cls(**config)


def _optimizer(spec):
    return spec if isinstance(spec, optimizers.Optimizer) else _deserialize(spec)

