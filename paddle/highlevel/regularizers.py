"""Weight and activity regularizers, as Keras's `keras.regularizers`.

A regularizer is a callable from a Variable (a weight or a layer's output) to a scalar
penalty Variable. Layers take them as `kernel_regularizer`, `bias_regularizer`,
`activity_regularizer` (and `add_weight(regularizer=...)`); the penalties appear in
`layer.losses` / `model.losses` and are added to the loss that `fit`, `train_on_batch`
and `evaluate` report and minimize.

Example:
    >>> import numpy as np, paddle as pd
    >>> reg = pd.regularizers.L2(0.1)
    >>> float(pd.eval(reg(pd.constant(np.array([1.0, 2.0], np.float32)))))
    0.5
    >>> pd.regularizers.get("l1_l2").get_config()
    {'l1': 0.0, 'l2': 0.0}
"""
import math
import numbers

import numpy as np

from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops.math import abs as abs_, maximum, minimum, ones_like, sqrt, square
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import sum as sum_
from paddle.highlevel.saving.registry import register_family as _register_family
from paddle._settings import epsilon


class Regularizer:
    """Base class: subclasses implement `__call__(x) -> scalar Variable` and, to be saved
    in a model's config, `get_config()` (their constructor arguments).

    Example:
        >>> import paddle as pd
        >>> class MaxAbs(pd.regularizers.Regularizer):
        ...     def __init__(self, factor=0.01):
        ...         self.factor = factor
        ...     def __call__(self, x):
        ...         return self.factor * pd.max(pd.abs(x))
        ...     def get_config(self):
        ...         return {"factor": self.factor}
        >>> layer = pd.layers.Dense(2, kernel_regularizer=MaxAbs())
        >>> _ = layer(pd.Input(shape=(3,)))
        >>> len(layer.losses)
        1
    """

    def __call__(self, x):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(x)")

    def get_config(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_config() to be "
                                  "saved in a config")

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        try:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        except NotImplementedError:
            args = ""
        return f"{type(self).__name__}({args})"


def _factor(value, name, owner):
    """A finite number >= 0, as a float; ValueError naming the regularizer otherwise."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
            not 0 <= float(value) < math.inf:
        raise ValueError(f"{owner}: expected {name} to be a number >= 0, received {value!r}")
    return float(value)


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x ** 2)` (also `pd.regularizers.l1_l2`).

    Args:
        l1, l2: the factors, numbers >= 0 (default 0.0 each, as in Keras 3).
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _factor(l1, "l1", type(self).__name__)
        self.l2 = _factor(l2, "l2", type(self).__name__)

    def __call__(self, x):
        x = _float_variable(x, type(self).__name__)
        total = None
        if self.l1:
            total = self.l1 * sum_(abs_(x))
        if self.l2:
            part = self.l2 * sum_(square(x))
            total = part if total is None else total + part
        return total if total is not None else sum_(x) * 0.0

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """`l1 * sum(|x|)` (also `pd.regularizers.l1`).

    Args:
        l1: the factor, a number >= 0 (default 0.01).
    """

    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    """`l2 * sum(x ** 2)` (also `pd.regularizers.l2`).

    Args:
        l2: the factor, a number >= 0 (default 0.01).
    """

    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


l1, l2, l1_l2 = L1, L2, L1L2
class OrthogonalRegularizer(Regularizer):
    """Keeps the rows (or the columns) of a 2-D weight near orthogonal: `factor` times the
    mean absolute cosine between distinct L2-normalized rows (columns), as Keras's
    (`factor * 0.5 * sum(|N N^T - diag|) / (n (n - 1) / 2)`); also
    `pd.regularizers.orthogonal_regularizer`.

    Args:
        factor: the penalty's factor, a number >= 0 (0.01).
        mode: "rows" (the default) or "columns": which vectors should be orthogonal.

    Example:
        >>> import numpy as np, paddle as pd
        >>> w = pd.constant(np.array([[1.0, 0.0], [1.0, 1.0]], np.float32))
        >>> round(float(pd.eval(pd.regularizers.OrthogonalRegularizer(1.0)(w))), 4)
        0.7071
    """

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _factor(factor, "factor", "OrthogonalRegularizer")
        if mode not in ("rows", "columns"):
            raise ValueError(f"OrthogonalRegularizer: expected mode 'rows' or 'columns', "
                             f"received {mode!r}")
        self.mode = mode

    def __call__(self, x):
        x = _float_variable(x, "OrthogonalRegularizer")
        if len(x.shape) != 2 or None in x.shape:
            raise ValueError(f"OrthogonalRegularizer: expected a 2-D weight of known shape, "
                             f"received shape {x.shape}")
        axis = 1 if self.mode == "rows" else 0
        # Keras's ops.normalize: x * min(rsqrt(sum(x^2)), 1 / epsilon).
        inv_norm = minimum(1.0 / sqrt(sum_(square(x), axis=axis, keepdims=True)),
                           1.0 / epsilon())
        unit = x * inv_norm
        product = matmul(unit, unit, transpose_b=True) if axis == 1 else \
            matmul(unit, unit, transpose_a=True)
        size = x.shape[0] if axis == 1 else x.shape[1]
        off_diagonal = constant(1.0 - np.eye(size), dtype=x.dtype)
        pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * sum_(abs_(product * off_diagonal)) / pairs

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


orthogonal_regularizer = OrthogonalRegularizer
CLASSES = {"Regularizer": Regularizer, "L1": L1, "L2": L2, "L1L2": L1L2,
           "OrthogonalRegularizer": OrthogonalRegularizer}
NAMES = {"l1": L1, "l2": L2, "l1_l2": L1L2, "orthogonal_regularizer": OrthogonalRegularizer}


def _float_variable(x, owner):
    """x as a float Variable: a float NumPy array becomes a constant (Keras regularizers
    take arrays as well as tensors)."""
    if isinstance(x, (np.ndarray, np.floating)) and x.dtype.kind == "f":
        x = constant(np.asarray(x))
    if not isinstance(x, Variable) or x.dtype not in FLOATS:
        raise TypeError(f"{owner}: expected a float Variable or float array, received {x!r}")
    return x


def get(identifier):
    """A regularizer from None, a name ('l1', 'l2', 'l1_l2' or a class name), a saved
    {'class_name', 'config'}, a Regularizer, or any callable `x -> scalar Variable`.

    Raises:
        ValueError: an unknown name or class name (the message lists the known ones).
        TypeError: anything else.
    """
    if identifier is None or isinstance(identifier, Regularizer):
        return identifier
    if isinstance(identifier, str):
        cls = NAMES.get(identifier.lower()) or CLASSES.get(identifier)
        if cls is None or cls is Regularizer:
            raise ValueError(f"regularizer: unknown name {identifier!r}; expected one of "
                             f"{', '.join(sorted(NAMES) + ['L1', 'L2', 'L1L2'])}")
        return cls()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"regularizer: expected a name, a Regularizer or a callable, received "
                    f"{identifier!r}")


def serialize(regularizer):
    """{'class_name', 'config'} (Keras's form) for a config; a plain function gives its
    name (load it back with `custom_objects`); None stays None."""
    if regularizer is None:
        return None
    if isinstance(regularizer, Regularizer):
        return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}
    return getattr(regularizer, "__name__", repr(regularizer))


def deserialize(config, custom_objects=None):
    """The regularizer of `serialize`'s output (names of custom ones from custom_objects)."""
    custom_objects = custom_objects or {}
    if isinstance(config, dict):
        name = config.get("class_name")
        cls = custom_objects.get(name) or CLASSES.get(name)
        if cls is None:
            raise ValueError(f"regularizer: unknown class {name!r}; expected one of "
                             f"{', '.join(sorted(CLASSES))} or one in custom_objects")
        return cls.from_config(dict(config.get("config") or {})) \
            if hasattr(cls, "from_config") else cls(**(config.get("config") or {}))
    if isinstance(config, str) and config in custom_objects:
        return custom_objects[config]
    return get(config)


def activity_penalty(regularizer, output, where):
    """A layer's activity penalty on one output, divided by the batch size (its axis 0) as
    Keras 3 does; a batch of 0 samples adds 0."""
    value = penalty(regularizer, output, where)
    if output.ndim == 0:
        return value
    batch = output.shape[0]
    if batch is None:  # known when the step runs: count the samples of one column
        column = output[(slice(None),) + (0,) * (output.ndim - 1)]
        batch = maximum(sum_(ones_like(column)), 1.0)
    elif batch == 0:
        return value * 0.0
    return value / batch


def penalty(regularizer, x, where):
    """`regularizer(x)` checked to be a float Variable (summed to a scalar): the error names
    the layer and the argument when a custom regularizer returns anything else."""
    try:
        value = regularizer(x)
    except Exception as e:
        raise type(e)(f"{where}: the regularizer {regularizer!r} failed on {x.name!r}: "
                      f"{e}") from None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return constant(float(value))
    if not isinstance(value, Variable) or value.dtype not in FLOATS:
        raise TypeError(f"{where}: expected the regularizer to return a float Variable, "
                        f"received {value!r}")
    return sum_(value) if value.ndim else value


_register_family("keras.regularizers", globals())
