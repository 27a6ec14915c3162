"""Optimizers. `minimize(loss, var_list)` builds the gradients and one update op that
updates every variable in place through one fused C++ call per run.

State is inspectable: `optimizer.iterations` (updates run so far) and
`optimizer.slots(var)` (NumPy arrays: moments, velocities, accumulators).

Example:
    >>> import numpy as np, paddle as pd
    >>> w = pd.Variable("w", shape=[1], initializer="ones")
    >>> step = pd.optimizers.SGD(learning_rate=0.5).minimize(pd.sum(w * w))
    >>> pd.eval(step) is None, w.val().tolist()
    (True, [0.0])
"""
import contextlib
import inspect
import math
import numbers
import weakref

import numpy as np

from paddle.lowlevel import schedules
from paddle.lowlevel.executor import topological_nodes
from paddle.lowlevel.graph import FLOATS, Variable, apply
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.op import OPS, Op, register


_COLLECTORS = []  # lists receiving every update op built while they are active


def _number(value, name, owner, ok, expected):
    """float(value) if it is a real number for which ok() holds; ValueError naming the
    optimizer and the argument otherwise (a NaN or out-of-range hyperparameter turns the
    weights into NaN at the first step, and a string failed inside float())."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not ok(float(value)):
        raise ValueError(f"{owner}: expected {name} {expected}, received {value!r}")
    return float(value)


def _fraction(value, name, owner, one=False):
    """A number in [0, 1) ([0, 1] with one=True)."""
    return _number(value, name, owner, (lambda v: 0 <= v <= 1) if one else (lambda v: 0 <= v < 1),
                   "in [0, 1]" if one else "in [0, 1)")


def _positive(value, name, owner, zero=False):
    """A finite number > 0 (>= 0 with zero=True). Epsilons must be > 0: with 0, a weight
    whose gradients have all been 0 so far gets 0 / 0 = NaN."""
    return _number(value, name, owner, (lambda v: 0 <= v < math.inf) if zero else
                   (lambda v: 0 < v < math.inf), ">= 0 (a finite number)" if zero else
                   "> 0 (a finite number)")


@contextlib.contextmanager
def collect_updates():
    """Collect the update ops built inside the block (a traced train_step's optimizers)."""
    found = []
    _COLLECTORS.append(found)
    try:
        yield found
    finally:
        _COLLECTORS.remove(found)


@register
class ApplyUpdates(Op):
    """Updates its first n inputs (parameters) from the next n (their gradients) in place."""

    name = "apply_updates"
    stateful = True

    def infer(self, *inputs, optimizer, n):
        return (), "float32"

    def grad(self, node, g):
        return [None] * len(node.inputs)


class Optimizer:
    """Base class. Subclasses name their slots and their fused kernel in paddle._C."""

    slot_names = ()
    kernel = None

    def __init__(self, learning_rate=0.001, name=None):
        self.learning_rate = learning_rate
        self.name = name or type(self).__name__.lower()
        self.iterations = 0
        self._slots = weakref.WeakKeyDictionary()  # Variable -> {slot name: array}

    @property
    def learning_rate(self):
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if not isinstance(value, schedules.LearningRateSchedule) and not callable(value):
            value = _positive(value, "a learning rate", type(self).__name__, zero=True)
        self._learning_rate = value

    def current_learning_rate(self):
        """The learning rate the next update will use (schedules read `iterations`)."""
        lr = self._learning_rate
        return float(lr(self.iterations)) if callable(lr) else lr

    def minimize(self, loss, var_list=None):
        """Build the update op that takes one step down the gradient of `loss`.

        Args:
            loss: a float scalar Variable (other shapes are summed).
            var_list: Variables to update; default every trainable parameter loss needs.

        Returns:
            The update op, a Variable that evaluates to None.
        """
        if not isinstance(loss, Variable):
            raise TypeError(f"minimize: expected the loss as a Variable, received "
                            f"{type(loss).__name__}")
        if var_list is None:
            var_list = trainable_parameters(loss)
        var_list = list(var_list)
        for v in var_list:
            if not isinstance(v, Variable) or v.kind != "param" or v.dtype not in FLOATS:
                raise TypeError(f"minimize: var_list holds {v!r}, which is not a float parameter")
        if not var_list:
            raise ValueError(f"minimize: {loss.name!r} depends on no trainable parameter")
        grads = gradients(loss, var_list)
        for v, g in zip(var_list, grads):
            if g is None:
                raise ValueError(f"minimize: the loss {loss.name!r} does not depend on "
                                 f"{v.name!r}; leave it out of var_list")
        return self.apply_gradients(list(zip(grads, var_list)))

    def apply_gradients(self, grads_and_vars):
        """The update op for explicit (gradient, variable) pairs."""
        grads = [g for g, _ in grads_and_vars]
        variables = [v for _, v in grads_and_vars]
        for v in variables:
            self.slots(v)  # created now, so they can be inspected and saved before a run
        update = apply(OPS["apply_updates"], variables + grads, {"optimizer": self,
                                                                 "n": len(variables)})
        for collected in _COLLECTORS:
            collected.append(update)
        return update

    def slots(self, var):
        """{slot name: NumPy array} of a variable, created (zeros) on first use."""
        if var not in self._slots:
            self._slots[var] = {s: np.full(var.shape, self._slot_initial(s), dtype=var.dtype)
                                for s in self.slot_names}
        return self._slots[var]

    def _slot_initial(self, slot):
        return 0.0

    def variables(self):
        """The Variables this optimizer has slots for."""
        return list(self._slots.keys())

    def hyper_args(self, step):
        """Arguments after the tensor lists of the fused kernel, for update number `step`."""
        raise NotImplementedError

    def get_config(self):
        lr = self._learning_rate
        if isinstance(lr, schedules.LearningRateSchedule):
            lr = {"class_name": type(lr).__name__, "config": lr.get_config()}
        # Exactly the constructor's arguments, so from_config(get_config()) rebuilds it.
        params = inspect.signature(type(self).__init__).parameters
        config = {k: getattr(self, k) for k in params if k not in ("self", "learning_rate")}
        config["learning_rate"] = lr
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            config["learning_rate"] = schedules.CLASSES[lr["class_name"]](**lr["config"])
        return cls(**config)


def trainable_parameters(loss):
    """Trainable float parameters that `loss` depends on, in the order they are first read."""
    found, seen = [], set()
    for node in topological_nodes([loss]):
        for v in node.inputs:
            if v.kind == "param" and v.trainable and v.dtype in FLOATS and id(v) not in seen:
                seen.add(id(v))
                found.append(v)
    return found


class SGD(Optimizer):
    """Stochastic gradient descent, with optional (Nesterov) momentum."""

    kernel = "sgd"

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name=None):
        super().__init__(learning_rate, name)
        self.momentum, self.nesterov = _fraction(momentum, "momentum", "SGD", one=True), \
            bool(nesterov)
        self.slot_names = ("velocity",) if self.momentum else ()

    def kernel_lists(self, variables):
        return [[self.slots(v)["velocity"] for v in variables] if self.momentum else []]

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.momentum, self.nesterov)


class Adam(Optimizer):
    """Adam (Keras 3 formulation: epsilon outside the square root)."""

    kernel = "adam"
    slot_names = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None):
        super().__init__(learning_rate, name)
        owner = type(self).__name__
        self.beta_1 = _fraction(beta_1, "beta_1", owner)
        self.beta_2 = _fraction(beta_2, "beta_2", owner)
        self.epsilon = _positive(epsilon, "epsilon", owner)

    def weight_decay_value(self):
        return 0.0

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.beta_1, self.beta_2, self.epsilon, float(step),
                self.weight_decay_value())


class AdamW(Adam):
    """Adam with decoupled weight decay."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, name=None):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name)
        self.weight_decay = _positive(weight_decay, "weight_decay", "AdamW", zero=True)

    def weight_decay_value(self):
        return self.weight_decay


class RMSprop(Optimizer):
    """RMSprop: steps scaled by a moving average of squared gradients (Keras 3 formulation).

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.RMSprop(learning_rate=1e-3, rho=0.9).slot_names
        ('velocity',)
    """

    kernel = "rmsprop"

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, name=None):
        super().__init__(learning_rate, name)
        self.rho = _fraction(rho, "rho", "RMSprop")
        self.momentum = _fraction(momentum, "momentum", "RMSprop", one=True)
        self.epsilon = _positive(epsilon, "epsilon", "RMSprop")
        self.slot_names = ("velocity", "momentum") if self.momentum else ("velocity",)

    def kernel_lists(self, variables):
        mom = [self.slots(v)["momentum"] for v in variables] if self.momentum else []
        return [[self.slots(v)["velocity"] for v in variables], mom]

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.rho, self.momentum, self.epsilon)


class Adagrad(Optimizer):
    """Adagrad: steps scaled by the accumulated squared gradients of each weight.

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.Adagrad(learning_rate=0.01).initial_accumulator_value
        0.1
    """

    kernel = "adagrad"
    slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name=None):
        super().__init__(learning_rate, name)
        self.initial_accumulator_value = _positive(
            initial_accumulator_value, "initial_accumulator_value", "Adagrad", zero=True)
        self.epsilon = _positive(epsilon, "epsilon", "Adagrad")

    def _slot_initial(self, slot):
        return self.initial_accumulator_value

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.epsilon)


def _slot_lists(self, variables):
    return [[self.slots(v)[s] for v in variables] for s in self.slot_names]


Optimizer.kernel_lists = _slot_lists

NAMES = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad}


def get(identifier):
    """An optimizer from a name ('adam', ...) or an Optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in NAMES:
        return NAMES[identifier.lower()]()
    raise ValueError(f"optimizer: unknown {identifier!r}; expected one of "
                     f"{', '.join(sorted(NAMES))} or a pd.optimizers.Optimizer")
