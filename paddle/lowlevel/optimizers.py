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

from paddle.devices import mirrors
from paddle.devices.context import KernelContext
from paddle.devices.half import HALF
from paddle.lowlevel import schedules
from paddle.lowlevel.executor import topological_nodes
from paddle.lowlevel.graph import FLOATS, UPDATE_COLLECTORS, Variable, apply
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import clip, maximum, sqrt
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.state import after_updates


_COLLECTORS = UPDATE_COLLECTORS  # lists receiving every update op built while active


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


def _flag(value, name, owner):
    """A bool (True or False, NumPy's included); ValueError naming the argument otherwise."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{owner}: expected {name} to be True or False, received {value!r}")
    return bool(value)


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
    finally:  # by identity: list.remove compares lists by value, and nested ones can be equal
        del _COLLECTORS[next(i for i, c in enumerate(_COLLECTORS) if c is found)]


@register
class ApplyUpdates(Op):
    """Updates its first n inputs (parameters) from the next n (their gradients) in place.
    With `gated`, one more input, a bool scalar, says whether this run updates at all: a
    False gate leaves the parameters, the slots and the step count as they were (the
    skipped step of `LossScaleOptimizer`, decided in the graph, with no host sync)."""

    name = "apply_updates"
    stateful = True

    def infer(self, *inputs, optimizer, n, averaged=False, gated=False):
        if gated and (len(inputs) != 2 * n + 1 or tuple(inputs[-1][0]) != () or
                      inputs[-1][1] != "bool"):
            raise TypeError(f"apply_updates: expected a bool scalar gate after the {n} "
                            f"gradients, received {inputs[2 * n:]}")
        return (), "float32"

    def grad(self, node, g):
        return [None] * len(node.inputs)


@register
class AverageOverRanks(Op):
    """The mean over the ranks of each input (gradients), in one message per dtype (its
    kernel asks `ctx.collectives`: paddle/distributed/gradients.py)."""

    name = "average_over_ranks"

    def infer(self, *inputs):
        return [(tuple(shape), dtype) for shape, dtype in inputs]


def _average_over_ranks(grads):
    """The gradient Variables averaged over the ranks (a list, in the same order)."""
    out = apply(OPS["average_over_ranks"], list(grads))
    return out if isinstance(out, list) else [out]


class Optimizer:
    """Base class. Subclasses name their slots and their fused kernel in paddle._C.

    Every optimizer takes Keras 3's common arguments:

    Args:
        learning_rate: a float >= 0, a schedule or a callable of the step count.
        weight_decay: decoupled weight decay: before each update `w -= w * lr * weight_decay`
            (in C++, with the update); None or 0 for none.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient's elements to [-clipvalue, clipvalue].
        global_clipnorm: scale all gradients together so that their joint L2 norm is at most
            this. As in Keras, only one clipping applies: clipnorm, else global_clipnorm, else
            clipvalue; clipnorm and global_clipnorm together are refused.
        use_ema: keep an exponential moving average of each weight, updated after every
            step (one fused C++ pass): `average = ema_momentum * average + (1 -
            ema_momentum) * w`, the average starting as the weight after the first step.
            `finalize_variable_values` (called at the end of `fit`) puts the averages in
            the weights; `pd.callbacks.SwapEMAWeights` evaluates with them.
        ema_momentum: in [0, 1], 0.99 by default.
        ema_overwrite_frequency: None, or an integer n >= 1: every n steps the weights
            take their averages.
        name: the optimizer's name (its lower-case class name by default).

    Clipping is built from ops on the gradients inside the graph, before the fused update.

    Example:
        >>> import paddle as pd
        >>> w = pd.Variable("w_clip", shape=[2], initializer="ones")
        >>> step = pd.optimizers.SGD(1.0, clipnorm=1.0).minimize(pd.sum(w * 10.0))
        >>> pd.eval(step); [round(v, 4) for v in w.val().tolist()]
        [0.2929, 0.2929]
    """

    slot_names = ()
    kernel = None
    fused_weight_decay = False  # the kernel applies weight decay itself (Adam)

    def __init__(self, learning_rate=0.001, name=None, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None):
        self.learning_rate = learning_rate
        self.name = name or type(self).__name__.lower()
        owner = type(self).__name__
        self.weight_decay = None if weight_decay is None else \
            _positive(weight_decay, "weight_decay", owner, zero=True)
        self.clipnorm, self.clipvalue, self.global_clipnorm = (
            None if v is None else _positive(v, n, owner)
            for n, v in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                         ("global_clipnorm", global_clipnorm)))
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(f"{owner}: only one of clipnorm and global_clipnorm can be set, "
                             f"received clipnorm={clipnorm!r} and "
                             f"global_clipnorm={global_clipnorm!r}")
        if not isinstance(use_ema, (bool, np.bool_)):
            raise ValueError(f"{owner}: expected use_ema to be True or False, received "
                             f"{use_ema!r}")
        self.use_ema = bool(use_ema)
        self.ema_momentum = _fraction(ema_momentum, "ema_momentum", owner, one=True)
        if ema_overwrite_frequency is not None and (
                not isinstance(ema_overwrite_frequency, (int, np.integer)) or
                isinstance(ema_overwrite_frequency, bool) or ema_overwrite_frequency < 1):
            raise ValueError(f"{owner}: expected ema_overwrite_frequency to be an integer >= 1 "
                             f"or None, received {ema_overwrite_frequency!r}")
        self.ema_overwrite_frequency = None if ema_overwrite_frequency is None else \
            int(ema_overwrite_frequency)
        self.iterations = 0
        self._slots = weakref.WeakKeyDictionary()  # Variable -> {slot name: array}
        self._no_decay = weakref.WeakSet()  # variables excluded from weight decay
        self._no_decay_names = []

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
        """The update op for explicit (gradient, variable) pairs: a list, or a `zip` (read
        once), as in Keras: `opt.apply_gradients(zip(pd.gradients(loss, ws), ws))`."""
        pairs = list(grads_and_vars)
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"apply_gradients: expected (gradient, variable) pairs, "
                                f"received {pair!r}")
        return self.apply([g for g, _ in pairs], [v for _, v in pairs])

    def apply(self, grads, trainable_variables):
        """The update op for gradients and the variables they belong to (Keras 3's
        `optimizer.apply(grads, vars)`); gradients come from `pd.gradients(loss, vars)`,
        paddle's counterpart of TensorFlow's GradientTape. A None gradient (a variable
        the loss does not reach) is skipped, as Keras does.

        Example:
            >>> import numpy as np, paddle as pd
            >>> w = pd.Variable("apply_example_w", shape=[2], initializer="ones")
            >>> loss = pd.sum(w * w)
            >>> opt = pd.optimizers.SGD(learning_rate=0.25)
            >>> step = opt.apply(pd.gradients(loss, [w]), [w])
            >>> _ = pd.eval(step); w.val().tolist()
            [0.5, 0.5]
        """
        return self._update(grads, trainable_variables)

    def _update(self, grads, trainable_variables, gate=None):
        """`apply`'s update op; with `gate` (a bool scalar Variable) it updates only in runs
        where the gate is True (see ApplyUpdates)."""
        grads, variables = self._checked(grads, trainable_variables)
        overwrites = [apply(OPS["assign"], [v, g]) for g, v in zip(grads, variables)
                      if getattr(v, "overwrite_with_gradient", False)]
        if overwrites:  # Keras's: written with their gradient, out of the step
            kept = [(g, v) for g, v in zip(grads, variables)
                    if not getattr(v, "overwrite_with_gradient", False)]
            update = after_updates(overwrites[0], *overwrites[1:]) if not kept else \
                after_updates(self._update([g for g, _ in kept], [v for _, v in kept], gate),
                              *overwrites)
            for collected in _COLLECTORS:
                collected.append(update)
            return update
        attrs = {"optimizer": self, "n": len(variables)}
        if (self.clipnorm or self.global_clipnorm or self.clipvalue) and \
                KernelContext.collectives.active():
            # Clip the gradients of the global batch, as one process would: averaged first
            # (the update op then averages nothing; paddle/distributed/gradients.py).
            grads = _average_over_ranks(grads)
            attrs["averaged"] = True
        grads = self._clip_gradients(grads)
        for v in variables:
            self.slots(v)  # created now, so they can be inspected and saved before a run
        if gate is not None:
            if attrs.get("averaged") is None and KernelContext.collectives.active():
                raise NotImplementedError(
                    f"{type(self).__name__}: a gated update (LossScaleOptimizer) in a "
                    f"distributed run is not supported yet")
            attrs["gated"] = True
        update = _constrained(apply(OPS["apply_updates"], variables + grads +
                                    ([gate] if gate is not None else []), attrs), variables)
        for collected in _COLLECTORS:
            collected.append(update)
        return update

    def _checked(self, grads, trainable_variables):
        """The (gradients, variables) to update: the pairs whose gradient is not None,
        checked (float parameters, gradients as Variables)."""
        grads, variables = list(grads), list(trainable_variables)
        if len(grads) != len(variables):
            raise ValueError(f"{type(self).__name__}.apply: {len(grads)} gradients for "
                             f"{len(variables)} variables")
        for g, v in zip(grads, variables):
            if not isinstance(v, Variable) or v.kind != "param" or v.dtype not in FLOATS:
                raise TypeError(f"{type(self).__name__}.apply: expected float parameters as "
                                f"variables, received {v!r}")
            if g is not None and not isinstance(g, Variable):
                raise TypeError(f"{type(self).__name__}.apply: expected gradients as "
                                f"Variables (pd.gradients), received {type(g).__name__} for "
                                f"{v.name!r}")
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not kept:
            raise ValueError(f"{type(self).__name__}.apply: every gradient is None; the loss "
                             "reaches none of the variables")
        return [g for g, _ in kept], [v for _, v in kept]

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Keep these variables out of weight decay (Keras 3): the Variables of `var_list`,
        and every variable whose name contains one of the strings of `var_names` (such as
        "bias" or "gamma"). Call it before the first training step.

        Raises:
            ValueError: called after training started, or arguments of the wrong kinds.

        Example:
            >>> import paddle as pd
            >>> opt = pd.optimizers.AdamW(weight_decay=0.01)
            >>> opt.exclude_from_weight_decay(var_names=["bias"])
            >>> opt.decays(pd.Variable("dense/bias", shape=[2]))
            False
        """
        owner = type(self).__name__
        if self.iterations:
            raise ValueError(f"{owner}: exclude_from_weight_decay must be called before the "
                             f"first training step ({self.iterations} already ran)")
        for v in var_list or []:
            if not isinstance(v, Variable):
                raise ValueError(f"{owner}: exclude_from_weight_decay expected Variables in "
                                 f"var_list, received {v!r}")
        if isinstance(var_names, str) or not all(isinstance(n, str) and n
                                                 for n in var_names or []):
            raise ValueError(f"{owner}: exclude_from_weight_decay expected var_names as a "
                             f"list of non-empty strings, received {var_names!r}")
        self._no_decay.update(var_list or [])
        self._no_decay_names.extend(var_names or [])

    def decays(self, var):
        """Whether weight decay applies to `var` (see exclude_from_weight_decay)."""
        return bool(self.weight_decay) and var not in self._no_decay and \
            not any(n in var.name for n in self._no_decay_names)

    def _clip_gradients(self, grads):
        """Keras 3's clipping, as ops on the gradient Variables (one kind applies)."""
        if self.clipnorm:
            c = self.clipnorm
            return [g * (c / maximum(sqrt(reduce_sum(g * g)), c)) for g in grads]
        if self.global_clipnorm:
            c = self.global_clipnorm
            total = reduce_sum(grads[0] * grads[0])
            for g in grads[1:]:
                total = total + reduce_sum(g * g)
            scale = c / maximum(sqrt(total), c)
            return [g * scale for g in grads]
        if self.clipvalue:
            return [clip(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def slots(self, var):
        """{slot name: NumPy array} of a variable, created (zeros) on first use.

        The arrays are current (downloaded if a GPU plan updated them last) and may be
        written in place: the device copies are uploaded again before their next use."""
        self._make_slots(var)
        arrays = self._slots[var]
        if mirrors.active():
            for a in arrays.values():
                mirrors.on_host(a)
                mirrors.host_written(a)
        return arrays

    def _make_slots(self, var):
        """Fill `self._slots[var]` ({slot name: host array}) on first use; composed
        optimizers make slot parameters instead and keep their arrays there."""
        if var not in self._slots:
            # A half weight (the "float16" policy) has float32 slots: its update runs in
            # float32 (paddle/devices/half.py) and rounds only the weight to half.
            dtype = "float32" if var.dtype in HALF else var.dtype
            self._slots[var] = {s: np.full(var.shape, self._slot_initial(s), dtype=dtype)
                                for s in self.all_slot_names()}

    def _slot_initial(self, slot):
        return 0.0

    def all_slot_names(self):
        """The slots each variable has: `slot_names` (the update's), after "average" (the
        moving average of the weight) with use_ema, in Keras's order."""
        return (("average",) if self.use_ema else ()) + tuple(self.slot_names)

    def ema_scalars(self, step):
        """(momentum, overwrite) of the moving-average pass after update number `step`
        (from 1): Keras's momentum is 0 at the first step, so the average starts as the
        weight; with ema_overwrite_frequency the weights take the averages every that many
        steps."""
        momentum = 0.0 if step == 1 else self.ema_momentum
        overwrite = bool(self.ema_overwrite_frequency) and \
            step % self.ema_overwrite_frequency == 0
        return momentum, overwrite

    def finalize_variable_values(self, var_list):
        """Keras 3: at the end of `fit`, with use_ema, the weights take their moving
        averages; nothing otherwise.

        Example:
            >>> import paddle as pd
            >>> w = pd.Variable("ema_final_w", shape=[1], initializer="ones")
            >>> opt = pd.optimizers.SGD(0.5, use_ema=True, ema_momentum=0.5)
            >>> step = opt.minimize(pd.sum(w * 2.0))
            >>> _ = pd.eval(step); _ = pd.eval(step)  # w: 0, then -1; average 0, then -0.5
            >>> opt.finalize_variable_values([w]); w.val().tolist()
            [-0.5]
        """
        if not self.use_ema:
            return
        variables = list(var_list)
        missing = [v.name for v in variables
                   if not isinstance(v, Variable) or v not in self._slots]
        if missing:
            raise ValueError(f"{type(self).__name__}.finalize_variable_values: no moving "
                             f"average for {missing}: this optimizer has not updated them")
        for v in variables:
            v.set_value(self.slots(v)["average"])

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


def _constrained(update, variables):
    """The update followed, in the same run, by Keras's weight constraints: for each
    variable with a `constraint` (`add_weight(constraint=...)`, a layer's
    `kernel_constraint`...), `assign(w, constraint(w))` on the updated weight, built from
    ops (so every device runs it). The update itself when no variable has one."""
    assigns = []
    for v in variables:
        constraint = getattr(v, "constraint", None)
        if constraint is not None:
            projected = _project(constraint, after_updates(v, update), v)
            assigns.append(apply(OPS["assign"], [v, projected]))
    return after_updates(update, *assigns) if assigns else update


def _project(constraint, value, weight):
    """`constraint(value)`, checked to be a Variable of the weight's shape and dtype (the
    error names the weight when a custom constraint returns anything else)."""
    try:
        projected = constraint(value)
    except Exception as e:
        raise type(e)(f"constraint {constraint!r} on {weight.name!r}: {e}") from None
    if not isinstance(projected, Variable) or projected.dtype != weight.dtype or \
            tuple(projected.shape) != tuple(weight.shape):
        got = f"{type(projected).__name__}" + (
            f" of shape {projected.shape} and dtype {projected.dtype}"
            if isinstance(projected, Variable) else "")
        raise ValueError(f"constraint {constraint!r} on {weight.name!r}: expected a Variable "
                         f"of shape {weight.shape} and dtype {weight.dtype}, received {got}")
    return projected


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

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        self.momentum, self.nesterov = _fraction(momentum, "momentum", "SGD", one=True), \
            bool(nesterov)
        self.slot_names = ("velocity",) if self.momentum else ()

    def kernel_lists(self, variables):
        return [[self.slots(v)["velocity"] for v in variables] if self.momentum else []]

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.momentum, self.nesterov)


class Adam(Optimizer):
    """Adam (Keras 3 formulation: epsilon outside the square root).

    With `amsgrad=True` (AMSGrad) it also keeps `velocity_hat`, the running maximum of the
    second moment, and divides by its square root instead, so the step size never grows;
    one fused C++ update either way.

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.Adam(amsgrad=True).slot_names
        ('m', 'v', 'velocity_hat')
    """

    kernel = "adam"
    fused_weight_decay = True

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        owner = type(self).__name__
        self.beta_1 = _fraction(beta_1, "beta_1", owner)
        self.beta_2 = _fraction(beta_2, "beta_2", owner)
        self.epsilon = _positive(epsilon, "epsilon", owner)
        if not isinstance(amsgrad, (bool, np.bool_)):
            raise ValueError(f"{owner}: expected amsgrad to be True or False, received "
                             f"{amsgrad!r}")
        self.amsgrad = bool(amsgrad)
        self.slot_names = ("m", "v", "velocity_hat") if self.amsgrad else ("m", "v")

    def kernel_lists(self, variables):
        lists = [[self.slots(v)[s] for v in variables] for s in ("m", "v")]
        return lists + [[self.slots(v)["velocity_hat"] for v in variables]
                        if self.amsgrad else []]

    def hyper_args(self, step, fused_decay=True):
        """fused_decay=False: the kernel leaves weight decay to a separate pass (some
        variables are excluded from it)."""
        return (self.current_learning_rate(), self.beta_1, self.beta_2, self.epsilon, float(step),
                (self.weight_decay or 0.0) if fused_decay else 0.0, self.amsgrad)


class AdamW(Adam):
    """Adam with decoupled weight decay (0.004 by default); `amsgrad=` as Adam's.

    Example:
        >>> import paddle as pd
        >>> opt = pd.optimizers.AdamW(weight_decay=0.01, amsgrad=True)
        >>> opt.weight_decay, opt.amsgrad
        (0.01, True)
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        if weight_decay is None:
            raise ValueError("AdamW: expected weight_decay >= 0 (a finite number), received None")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, weight_decay,
                         clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
                         ema_overwrite_frequency, name)


class RMSprop(Optimizer):
    """RMSprop: steps scaled by a moving average of squared gradients (Keras 3 formulation).

    With `centered=True` it also keeps a moving average of the gradients and divides by the
    estimated variance (`velocity - average_gradient ** 2`) instead.

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.RMSprop(learning_rate=1e-3, rho=0.9).slot_names
        ('velocity',)
        >>> pd.optimizers.RMSprop(centered=True).slot_names
        ('velocity', 'average_gradient')
    """

    kernel = "rmsprop"

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        self.rho = _fraction(rho, "rho", "RMSprop")
        self.momentum = _fraction(momentum, "momentum", "RMSprop", one=True)
        self.epsilon = _positive(epsilon, "epsilon", "RMSprop")
        if not isinstance(centered, (bool, np.bool_)):
            raise ValueError(f"RMSprop: expected centered to be True or False, received "
                             f"{centered!r}")
        self.centered = bool(centered)
        self.slot_names = ("velocity",) + (("momentum",) if self.momentum else ()) + \
            (("average_gradient",) if self.centered else ())

    def kernel_lists(self, variables):
        def slot(name):
            return [self.slots(v)[name] for v in variables] if name in self.slot_names else []
        return [slot("velocity"), slot("momentum"), slot("average_gradient")]

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.rho, self.momentum, self.epsilon,
                self.centered)


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
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        self.initial_accumulator_value = _positive(
            initial_accumulator_value, "initial_accumulator_value", "Adagrad", zero=True)
        self.epsilon = _positive(epsilon, "epsilon", "Adagrad")

    def _slot_initial(self, slot):
        return self.initial_accumulator_value

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.epsilon)


class _Moments(Optimizer):
    """The constructor Adamax, Nadam and Lamb share (Keras's arguments: two moment decays
    and epsilon), and their kernels' arguments (learning rate, beta_1, beta_2, epsilon,
    the step)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        owner = type(self).__name__
        self.beta_1 = _fraction(beta_1, "beta_1", owner)
        self.beta_2 = _fraction(beta_2, "beta_2", owner)
        self.epsilon = _positive(epsilon, "epsilon", owner)

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.beta_1, self.beta_2, self.epsilon, float(step))


class Adamax(_Moments):
    """Adamax (Keras 3): Adam with the infinity norm, `u = max(beta_2 * u, |g|)` and
    `w -= lr * m / ((1 - beta_1 ** t) * (u + epsilon))`; one fused C++ update.

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.Adamax(learning_rate=0.002).slot_names
        ('m', 'u')
    """

    kernel = "adamax"
    slot_names = ("m", "u")



class Nadam(_Moments):
    """Nadam (Keras 3): Adam with Nesterov momentum and the momentum schedule
    `u_t = beta_1 * (1 - 0.5 * 0.96 ** t)`; one fused C++ update (the schedule's scalars are
    computed here, per step, from the step count).

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.Nadam().slot_names
        ('m', 'v')
    """

    kernel = "nadam"
    slot_names = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        # (the signature written out: get_config reads the constructor's arguments)
        super().__init__(learning_rate, beta_1, beta_2, epsilon, weight_decay, clipnorm,
                         clipvalue, global_clipnorm, use_ema, ema_momentum,
                         ema_overwrite_frequency, name)
        self._u_product = (0, 1.0)  # (step, prod of u_1..u_step): follows `iterations`

    def _u(self, t):
        return self.beta_1 * (1.0 - 0.5 * 0.96 ** t)

    def _product(self, step):
        done, product = self._u_product
        if done > step:  # the step count went back (loaded state): start again
            done, product = 0, 1.0
        for t in range(done + 1, step + 1):
            product *= self._u(t)
        self._u_product = (step, product)
        return product

    def hyper_args(self, step):
        u_t, u_next = self._u(step), self._u(step + 1)
        product = self._product(step)
        c_m = u_next / (1.0 - product * u_next)
        c_g = (1.0 - u_t) / (1.0 - product)
        return (self.current_learning_rate(), self.beta_1, self.beta_2, self.epsilon, c_m, c_g,
                1.0 / (1.0 - self.beta_2 ** step))


class Lion(Optimizer):
    """Lion (Keras 3): `w -= lr * sign(beta_1 * m + (1 - beta_1) * g)`, then
    `m = beta_2 * m + (1 - beta_2) * g`; one fused C++ update.

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.Lion(learning_rate=1e-4).beta_2
        0.99
    """

    kernel = "lion"
    slot_names = ("m",)

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        self.beta_1 = _number(beta_1, "beta_1", "Lion", lambda v: 0 < v <= 1, "in (0, 1]")
        self.beta_2 = _fraction(beta_2, "beta_2", "Lion")

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.beta_1, self.beta_2)


class Ftrl(Optimizer):
    """FTRL-proximal (Keras 3), with L1, L2 and L2-shrinkage regularization; one fused C++
    update.

    Args:
        learning_rate: > 0.
        learning_rate_power: <= 0 (-0.5: the usual square-root schedule).
        initial_accumulator_value: >= 0, the accumulators' start.
        l1_regularization_strength, l2_regularization_strength,
        l2_shrinkage_regularization_strength: >= 0.
        beta: >= 0, added to the L2 term as beta / (2 * lr).

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.Ftrl(l1_regularization_strength=0.01).slot_names
        ('accumulator', 'linear')
    """

    kernel = "ftrl"
    slot_names = ("accumulator", "linear")

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        self.learning_rate_power = _number(learning_rate_power, "learning_rate_power", "Ftrl",
                                           lambda v: -math.inf < v <= 0, "<= 0")
        for arg, value in (("initial_accumulator_value", initial_accumulator_value),
                           ("l1_regularization_strength", l1_regularization_strength),
                           ("l2_regularization_strength", l2_regularization_strength),
                           ("l2_shrinkage_regularization_strength",
                            l2_shrinkage_regularization_strength), ("beta", beta)):
            setattr(self, arg, _positive(value, arg, "Ftrl", zero=True))

    def _slot_initial(self, slot):
        return self.initial_accumulator_value if slot == "accumulator" else 0.0

    def hyper_args(self, step):
        lr = self.current_learning_rate()
        if lr <= 0:
            raise ValueError(f"Ftrl: the learning rate must be > 0, received {lr!r}")
        return (lr, self.learning_rate_power, self.l1_regularization_strength,
                self.l2_regularization_strength, self.l2_shrinkage_regularization_strength,
                self.beta)


class Adadelta(Optimizer):
    """Adadelta (Keras 3): with `rms(x) = sqrt(x + epsilon)`,
    `accumulated_grad = rho * accumulated_grad + (1 - rho) * g ** 2`,
    `delta = -rms(accumulated_delta_var) * g / rms(accumulated_grad)`,
    `accumulated_delta_var = rho * accumulated_delta_var + (1 - rho) * delta ** 2` and
    `w += lr * delta`; one fused C++ update.

    Args:
        learning_rate: >= 0 (Keras 3's default 0.001; 1.0 is the original paper's).
        rho: the decay of both moving averages, in [0, 1).
        epsilon: > 0, inside the square roots.

    Example:
        >>> import paddle as pd
        >>> pd.optimizers.Adadelta(learning_rate=1.0, rho=0.9).slot_names
        ('accumulated_grad', 'accumulated_delta_var')
    """

    kernel = "adadelta"
    slot_names = ("accumulated_grad", "accumulated_delta_var")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        self.rho = _fraction(rho, "rho", "Adadelta")
        self.epsilon = _positive(epsilon, "epsilon", "Adadelta")

    def hyper_args(self, step):
        return (self.current_learning_rate(), self.rho, self.epsilon)


class Lamb(_Moments):
    """Lamb (Keras 3): Adam's moments and bias-corrected step `r = m_hat / (sqrt(v_hat) +
    epsilon)`, scaled per weight by the trust ratio `|w| / |r|` (1 when either norm is 0):
    `w -= lr * ratio * r`; one fused C++ update (moments and norms, then the step).

    Example:
        >>> import paddle as pd
        >>> w = pd.Variable("lamb_w", shape=[2], initializer="ones")
        >>> step = pd.optimizers.Lamb(learning_rate=0.1).minimize(pd.sum(w * w))
        >>> _ = pd.eval(step); [round(x, 4) for x in w.val().tolist()]
        [0.9, 0.9]
    """

    kernel = "lamb"
    slot_names = ("m", "v")



def _slot_lists(self, variables):
    return [[self.slots(v)[s] for v in variables] for s in self.slot_names]


Optimizer.kernel_lists = _slot_lists

NAMES = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad,
         "adamax": Adamax, "nadam": Nadam, "lion": Lion, "ftrl": Ftrl, "adadelta": Adadelta,
         "lamb": Lamb}


def get(identifier):
    """An optimizer from a name ('adam', ...) or an Optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in NAMES:
        return NAMES[identifier.lower()]()
    raise ValueError(f"optimizer: unknown {identifier!r}; expected one of "
                     f"{', '.join(sorted(NAMES))} or a pd.optimizers.Optimizer")
