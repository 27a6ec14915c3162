"""Weight constraints, as Keras's `keras.constraints`.

A constraint is a callable from a weight Variable to its projection (a Variable of the same
shape and dtype). Layers take them as `kernel_constraint`, `bias_constraint`,
`embeddings_constraint`, `depthwise_constraint`, `gamma_constraint`, `beta_constraint`, ...
(and `add_weight(constraint=...)`); as in Keras, the optimizer applies them to the weight
after each update: the update op of `minimize` / `apply` is followed, in the same step,
by ops computing `constraint(weight)` and an `assign` writing it back (ops, so they run
on every device; see `Optimizer.apply`).

Example:
    >>> import numpy as np, paddle as pd
    >>> w = pd.constant(np.array([[3.0, 0.0], [4.0, 1.0]], np.float32))
    >>> pd.eval(pd.constraints.MaxNorm(max_value=2.0)(w)).astype(float).round(4).tolist()
    [[1.2, 0.0], [1.6, 1.0]]
    >>> pd.constraints.get("non_neg")
    NonNeg()
"""
import numbers

import numpy as np

from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops.math import clip, maximum, sqrt, square
from paddle.lowlevel.ops.reduce import sum as sum_
from paddle.highlevel.saving.registry import register_family as _register_family
from paddle.highlevel.saving.serialization import (
    deserialize_keras_object as _deserialize_keras_object,
    serialize_keras_object as _serialize_keras_object)
from paddle._settings import epsilon  # Keras's backend.epsilon(), read when built



class Constraint:
    """Base class: `__call__(w)` returns the projected weight (the base returns `w`
    unchanged) and `get_config()` the constructor arguments, so that a layer's config can
    rebuild it.

    Example:
        >>> import numpy as np, paddle as pd
        >>> class Clip(pd.constraints.Constraint):
        ...     def __init__(self, bound=1.0):
        ...         self.bound = bound
        ...     def __call__(self, w):
        ...         return pd.clip(w, -self.bound, self.bound)
        ...     def get_config(self):
        ...         return {"bound": self.bound}
        >>> dense = pd.layers.Dense(2, kernel_constraint=Clip(0.1))
        >>> model = pd.Sequential([pd.Input(shape=(3,)), dense])
        >>> model.compile(optimizer=pd.optimizers.SGD(10.0), loss="mse")
        >>> _ = model.fit(np.ones((4, 3)), np.full((4, 2), 100.0), verbose=0)
        >>> round(float(np.abs(dense.kernel.val()).max()), 6)
        0.1
    """

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _number(value, name, owner, low=0.0):
    """A finite real number >= low, as a float; ValueError naming the constraint otherwise."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
            not low <= float(value) < float("inf"):
        raise ValueError(f"{owner}: expected {name} to be a finite number >= {low:g}, "
                         f"received {value!r}")
    return value


def _axis(value, owner):
    """An int or a non-empty list/tuple of distinct ints (checked against the weight's rank
    when the constraint is applied)."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not items or any(not isinstance(a, numbers.Integral) or isinstance(a, bool)
                        for a in items) or len(set(items)) != len(items):
        raise ValueError(f"{owner}: expected axis to be an int or a list of distinct ints, "
                         f"received {value!r}")
    return value


def _weight(w, owner):
    """w as a float Variable: a float NumPy array becomes a constant (Keras constraints
    take arrays as well as weights)."""
    if isinstance(w, np.ndarray) and w.dtype.kind == "f":
        w = constant(w)
    if not isinstance(w, Variable) or w.dtype not in FLOATS:
        raise TypeError(f"{owner}: expected a float Variable (a weight) or float array, "
                        f"received {w!r}")
    return w


def _norms(w, axis, owner):
    """sqrt(sum(w ** 2)) over `axis`, kept as size-1 axes (Keras's `keepdims=True`)."""
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if any(not -w.ndim <= a < w.ndim for a in axes):
        raise ValueError(f"{owner}: axis {axis!r} is outside a weight of shape {w.shape} "
                         f"({w.name!r})")
    return sqrt(sum_(square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Scales each slice along `axis` down to an L2 norm of at most `max_value` (also
    `pd.constraints.max_norm`): `w * clip(norm, 0, max_value) / (1e-7 + norm)`.

    Args:
        max_value: the largest norm, a number >= 0 (default 2).
        axis: the axis (or list of axes) the norms are taken over; 0 for a Dense kernel
            `(input_dim, units)` constrains each unit's incoming weights, `[0, 1, 2]` a
            Conv2D kernel's filters.
    """

    def __init__(self, max_value=2, axis=0):
        self.max_value = _number(max_value, "max_value", "MaxNorm")
        self.axis = _axis(axis, "MaxNorm")

    def __call__(self, w):
        w = _weight(w, "MaxNorm")
        norms = _norms(w, self.axis, "MaxNorm")
        return w * (clip(norms, 0.0, float(self.max_value)) / (epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class MinMaxNorm(Constraint):
    """Rescales each slice along `axis` towards an L2 norm in [min_value, max_value]
    (also `pd.constraints.min_max_norm`): the new norm is
    `rate * clip(norm, min_value, max_value) + (1 - rate) * norm`.

    Args:
        min_value, max_value: the bounds of the norm, numbers >= 0 with
            min_value <= max_value (defaults 0.0 and 1.0).
        rate: in [0, 1]; 1.0 enforces the bounds at once, less moves towards them.
        axis: as MaxNorm's.
    """

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = _number(min_value, "min_value", "MinMaxNorm")
        self.max_value = _number(max_value, "max_value", "MinMaxNorm")
        if self.min_value > self.max_value:
            raise ValueError(f"MinMaxNorm: expected min_value <= max_value, received "
                             f"min_value={min_value!r} and max_value={max_value!r}")
        self.rate = _number(rate, "rate", "MinMaxNorm")
        if self.rate > 1:
            raise ValueError(f"MinMaxNorm: expected rate in [0, 1], received {rate!r}")
        self.axis = _axis(axis, "MinMaxNorm")

    def __call__(self, w):
        w = _weight(w, "MinMaxNorm")
        norms = _norms(w, self.axis, "MinMaxNorm")
        desired = float(self.rate) * clip(norms, float(self.min_value),
                                          float(self.max_value)) + (1 - float(self.rate)) * norms
        return w * (desired / (epsilon() + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


class NonNeg(Constraint):
    """Sets negative weights to 0: `maximum(w, 0)` (also `pd.constraints.non_neg`)."""

    def __call__(self, w):
        return maximum(_weight(w, "NonNeg"), 0.0)


class UnitNorm(Constraint):
    """Scales each slice along `axis` to an L2 norm of 1: `w / (1e-7 + norm)` (also
    `pd.constraints.unit_norm`).

    Args:
        axis: as MaxNorm's (default 0).
    """

    def __init__(self, axis=0):
        self.axis = _axis(axis, "UnitNorm")

    def __call__(self, w):
        w = _weight(w, "UnitNorm")
        return w / (epsilon() + _norms(w, self.axis, "UnitNorm"))

    def get_config(self):
        return {"axis": self.axis}


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm
CLASSES = {c.__name__: c for c in (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)}
NAMES = {"constraint": Constraint, "max_norm": MaxNorm, "min_max_norm": MinMaxNorm,
         "non_neg": NonNeg, "unit_norm": UnitNorm}


def get(identifier):
    """A constraint from None, a name ('max_norm', 'non_neg', ... or a class name such as
    'MaxNorm': its defaults), a config from `serialize`, a Constraint, a Constraint class,
    or any callable `w -> Variable`.

    Raises:
        ValueError: anything else (the message lists the known names).

    Example:
        >>> import paddle as pd
        >>> pd.constraints.get("MaxNorm").get_config()
        {'max_value': 2, 'axis': 0}
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    obj = NAMES.get(identifier) or CLASSES.get(identifier) \
        if isinstance(identifier, str) else identifier
    if isinstance(obj, type):
        obj = obj()
    if obj is None or isinstance(obj, str) or not callable(obj):
        raise ValueError(f"constraint: could not interpret the identifier {identifier!r}; "
                         f"expected None, a Constraint, a callable or one of "
                         f"{', '.join(sorted(NAMES) + sorted(CLASSES))}")
    return obj


def serialize(constraint):
    """Keras 3's form, `{"module": "keras.constraints", "class_name", "config",
    "registered_name"}`; None stays None (as `pd.saving.serialize_keras_object`).

    Example:
        >>> import paddle as pd
        >>> pd.constraints.serialize(pd.constraints.UnitNorm(axis=1))["config"]
        {'axis': 1}
    """
    if constraint is None:
        return None
    return _serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    """The constraint of `serialize`'s output, or of a name; custom classes come from
    `custom_objects` or `pd.saving.register_keras_serializable`.

    Example:
        >>> import paddle as pd
        >>> pd.constraints.deserialize({"class_name": "MaxNorm",
        ...                             "config": {"max_value": 3, "axis": 0}})
        MaxNorm(max_value=3, axis=0)
    """
    if isinstance(config, str):
        found = (custom_objects or {}).get(config)
        return get(found if found is not None else config)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"constraint: expected a config dict with 'class_name' (from "
                         f"pd.constraints.serialize) or a name, received {config!r}")
    return _deserialize_keras_object(config, custom_objects)


_register_family("keras.constraints", globals(), CLASSES)
