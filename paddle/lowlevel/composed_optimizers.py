"""Optimizers whose update is built from ops: `Adafactor`, `Muon` and `ScheduleFreeAdamW`
(Keras 3's), on the base `ComposedOptimizer`.

The fused optimizers of paddle/lowlevel/optimizers.py update every weight in one C++ call;
these three have updates that are not elementwise (Adafactor's factored second moments are
means over rows and columns, Muon orthogonalises its momentum with Newton-Schulz matrix
products), so their update is Keras's `update_step` written with paddle's ops: it runs on
every device, through the executor's fusion, with no kernel of its own. Their slots are
non-trainable parameters (one per slot and weight, each of its own shape: Adafactor's row
and column moments are smaller than the weight), written by `assign` ops in the update
phase of the run.

Two small ops connect the update to the host, as the fused kernels' `hyper_args` do: the
step's scalars (`optimizer_scalar`: the learning rate from its schedule, the step number,
the moving average's momentum and overwrite flag, read from the optimizer before each
run), and the step count (`count_step`, a stateful op: `iterations += 1` after the run,
unless a LossScaleOptimizer's gate skipped the step).

Example:
    >>> import paddle as pd
    >>> w = pd.Variable("composed_example_w", shape=[2, 2], initializer="ones")
    >>> opt = pd.optimizers.Adafactor(learning_rate=0.1)
    >>> _ = pd.eval(opt.minimize(pd.sum(w * w)))
    >>> opt.iterations, [round(x, 4) for x in w.val().ravel().tolist()]
    (1, [0.9, 0.9, 0.9, 0.9])
"""
import math
import re
import weakref

import numpy as np

from paddle.devices.context import KernelContext
from paddle.devices.half import HALF
from paddle.lowlevel import optimizers
from paddle.lowlevel.graph import UPDATE_COLLECTORS, Variable, apply
from paddle.lowlevel.initializers import Constant
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import cast, greater, maximum, minimum, sqrt, square, where
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import mean, sum as reduce_sum
from paddle.lowlevel.ops.shape import expand_dims, transpose
from paddle.lowlevel.ops.state import after_updates, assign

SCALARS = ("learning_rate", "step", "ema_momentum", "ema_overwrite")


@register
class OptimizerScalar(Op):
    """One float32 scalar of an optimizer's step, read on the host before each run:
    `what` is "learning_rate" (its schedule's value at `iterations`), "step"
    (`iterations + 1`), "ema_momentum" or "ema_overwrite" (1.0 in a step where the weights
    take their moving averages). Its input only places it in the graph of the step (a
    gradient: so the op runs with the step, never alone at build time); its value is not
    read."""

    name = "optimizer_scalar"

    def infer(self, anchor, *, optimizer, what):
        if what not in SCALARS:
            raise ValueError(f"optimizer_scalar: expected what to be one of {SCALARS}, "
                             f"received {what!r}")
        return (), "float32"

    def grad(self, node, g):
        return [None]


@register
class CountStep(Op):
    """`optimizer.iterations += 1` once the run's updates are done (a stateful op); with
    `gated`, its input is LossScaleOptimizer's bool gate and a False gate counts nothing."""

    name = "count_step"
    stateful = True

    def infer(self, *inputs, optimizer, gated=False):
        if gated and (len(inputs) != 1 or tuple(inputs[0][0]) != () or inputs[0][1] != "bool"):
            raise TypeError(f"count_step: expected one bool scalar gate, received {inputs}")
        return (), "float32"

    def grad(self, node, g):
        return [None] * len(node.inputs)


class ComposedOptimizer(optimizers.Optimizer):
    """Base class of the optimizers whose update is built from ops. A subclass gives
    `slot_shapes(var)` ({slot name: shape}, in Keras's order of creation), optionally
    `slot_initial(var, slot)`, and `update_step(gradient, weight, variable, lr, step)`
    returning (the new weight, {slot name: new value}) as Variables: Keras's update_step,
    with `weight` the value after weight decay and `variable` the parameter itself (for its
    name and shape). Clipping, weight decay, the moving average (use_ema), weight
    constraints and LossScaleOptimizer's gate are the base's, built from ops too.

    Example:
        >>> import paddle as pd
        >>> isinstance(pd.optimizers.Muon(), pd.optimizers.ComposedOptimizer)
        True
    """

    kernel = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._slot_variables = weakref.WeakKeyDictionary()  # Variable -> {slot: Variable}

    # ---- slots: parameters of their own shapes -----------------------------------------

    def slot_shapes(self, var):
        """{slot name: shape} of the variable `var` (default: every slot name, of its
        shape)."""
        return {s: tuple(var.shape) for s in self.slot_names}

    def slot_initial(self, var, slot):
        """The starting value of a slot (a number or an array of its shape)."""
        return 0.0

    def all_slot_names(self):
        return (("average",) if self.use_ema else ()) + tuple(self.slot_names)

    def _shapes(self, var):
        shapes = dict(self.slot_shapes(var))
        return {"average": tuple(var.shape), **shapes} if self.use_ema else shapes

    def slot_variables(self, var):
        """{slot name: the non-trainable parameter holding it} of `var`, made on first use."""
        if var not in self._slot_variables:
            dtype = "float32" if var.dtype in HALF else var.dtype
            made = {}
            for slot, shape in self._shapes(var).items():
                s = Variable(f"{self.name}/{var.name.replace('/', '_')}_{slot}", shape=shape,
                             dtype=dtype, initializer=Constant(0.0), trainable=False)
                s.autocast = False
                initial = var.val() if slot == "average" else self.slot_initial(var, slot)
                s.set_value(np.broadcast_to(np.asarray(initial, dtype=dtype), shape))
                made[slot] = s
            self._slot_variables[var] = made
            # the base's bookkeeping (variables(), saving): the slots' own host arrays
            self._slots[var] = {k: s._value for k, s in made.items()}
        return self._slot_variables[var]

    def _make_slots(self, var):
        """The base's `slots(var)` reads the slot parameters' own arrays, made here on first
        use."""
        self.slot_variables(var)

    def keras_slot_order(self, weights):
        """[(weight, slot)] in the order Keras 3 builds them (its saved layout): the moving
        averages first (use_ema), then each weight's slots together."""
        order = [(w, "average") for w in weights] if self.use_ema else []
        return order + [(w, s) for w in weights for s in self.slot_shapes(w)]

    # ---- the update --------------------------------------------------------------------

    def step_scalar(self, what):
        """The host value of an `optimizer_scalar` of what (one of SCALARS) for the next
        step; the kernels call it before each run."""
        step = self.iterations + 1
        if what == "learning_rate":
            return self.current_learning_rate()
        if what == "step":
            return float(step)
        momentum, overwrite = self.ema_scalars(step)
        return momentum if what == "ema_momentum" else float(overwrite)

    def update_step(self, gradient, weight, variable, lr, step):
        raise NotImplementedError(f"{type(self).__name__} gives no update_step")

    def decayed(self, weight, variable, lr):
        """Keras's `_apply_weight_decay`: `w - w * weight_decay * lr` for a variable that
        decays, the weight itself otherwise."""
        if not self.decays(variable):
            return weight
        return weight - weight * self.weight_decay * lr

    def _update(self, grads, trainable_variables, gate=None):
        grads, variables = self._checked(grads, trainable_variables)
        if KernelContext.collectives.active():  # the global batch's gradients, as one process
            grads = optimizers._average_over_ranks(grads)
        grads = self._clip_gradients(grads)
        anchor = grads[0]
        lr32, step32 = (apply(OPS["optimizer_scalar"], [anchor],
                              {"optimizer": self, "what": w}) for w in ("learning_rate", "step"))
        ema = [apply(OPS["optimizer_scalar"], [anchor], {"optimizer": self, "what": w})
               for w in ("ema_momentum", "ema_overwrite")] if self.use_ema else None
        writes = []  # (parameter, new value): every value built before any assign
        for g, v in zip(grads, variables):
            slots = self.slot_variables(v)
            dtype = slots[next(iter(slots))].dtype if slots else v.dtype
            lr, step = (x if dtype == "float32" else cast(x, dtype) for x in (lr32, step32))
            w = v if v.dtype == dtype else cast(v, dtype)
            g = g if g.dtype == dtype else cast(g, dtype)
            w = self.decayed(w, v, lr)
            new_w, new_slots = self.update_step(g, w, v, lr, step)
            if ema is not None:
                momentum, overwrite = (x if dtype == "float32" else cast(x, dtype) for x in ema)
                average = momentum * slots["average"] + (1.0 - momentum) * new_w
                new_slots = {**new_slots, "average": average}
                new_w = where(greater(overwrite, 0.5), average, new_w)
            writes.append((v, new_w if new_w.dtype == v.dtype else cast(new_w, v.dtype)))
            writes += [(slots[k], value) for k, value in new_slots.items()]
        if gate is not None:
            writes = [(p, where(gate, value, p)) for p, value in writes]
        assigns = [assign(p, value) for p, value in writes]
        count = apply(OPS["count_step"], [gate] if gate is not None else [],
                      {"optimizer": self, "gated": gate is not None})
        update = optimizers._constrained(after_updates(count, *assigns), variables)
        for collected in UPDATE_COLLECTORS:
            collected.append(update)
        return update


def _rms(x):
    return sqrt(mean(square(x)))


class Adafactor(ComposedOptimizer):
    """Adafactor (Keras 3): second moments factored into row and column averages for
    weights of rank >= 2 (`r` over the last axis, `c` over the one before), a full moving
    average `v` for the others, a step relative to the weight's RMS and clipped to
    `clip_threshold`.

    Args:
        learning_rate: float or schedule (0.001); with a number and `relative_step`, capped
            at `1 / sqrt(step)`.
        beta_2_decay: the decay of `beta_2` (`beta_2 = 1 - step ** beta_2_decay`), -0.8.
        epsilon_1: added to the squared gradients (1e-30).
        epsilon_2: the smallest RMS the step is relative to (1e-3).
        clip_threshold: the RMS above which the update is scaled down (1.0).
        relative_step: see learning_rate (True).
        weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
        ema_overwrite_frequency, name: as every optimizer's.

    Keras's slot layout: per weight `r`, `c` (scalars for weights of rank < 2, which do not
    factor) and `v`.

    Example:
        >>> import paddle as pd
        >>> opt = pd.optimizers.Adafactor()
        >>> w = pd.Variable("adafactor_doc_w", shape=[3, 2])
        >>> {k: a.shape for k, a in opt.slots(w).items()}
        {'r': (3,), 'c': (2,), 'v': (3, 2)}
    """

    slot_names = ("r", "c", "v")

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3,
                 clip_threshold=1.0, relative_step=True, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        owner = "Adafactor"
        self.beta_2_decay = optimizers._number(beta_2_decay, "beta_2_decay", owner,
                                               lambda v: -math.inf < v < 0, "< 0")
        self.epsilon_1 = optimizers._positive(epsilon_1, "epsilon_1", owner)
        self.epsilon_2 = optimizers._positive(epsilon_2, "epsilon_2", owner)
        self.clip_threshold = optimizers._positive(clip_threshold, "clip_threshold", owner)
        self.relative_step = optimizers._flag(relative_step, "relative_step", owner)

    def slot_shapes(self, var):
        shape = tuple(var.shape)
        if len(shape) < 2:
            return {"r": (), "c": (), "v": shape}
        return {"r": shape[:-1], "c": shape[:-2] + shape[-1:], "v": shape}

    def update_step(self, gradient, weight, variable, lr, step):
        slots = self.slot_variables(variable)
        inverse_root = 1.0 / sqrt(step)
        if not callable(self.learning_rate) and self.relative_step:
            lr = minimum(lr, inverse_root)
        rho = minimum(lr, inverse_root)
        alpha = maximum(self.epsilon_2, _rms(weight)) * rho
        regulated = square(gradient) + self.epsilon_1
        beta = 1.0 - step ** self.beta_2_decay
        new = {}
        if len(variable.shape) >= 2:
            r = beta * slots["r"] + (1.0 - beta) * mean(regulated, axis=-1)
            c = beta * slots["c"] + (1.0 - beta) * mean(regulated, axis=-2)
            v = expand_dims(r / mean(r, axis=-1, keepdims=True), -1) * expand_dims(c, -2)
            new.update(r=r, c=c)
        else:
            v = beta * slots["v"] + (1.0 - beta) * regulated
        new["v"] = v
        u = gradient / sqrt(v)
        u_hat = u / maximum(1.0, _rms(u) / self.clip_threshold)
        return weight - alpha * u_hat, new


def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm)


class Muon(ComposedOptimizer):
    """Muon (Keras 3): 2-D weights step along their momentum orthogonalised by a quintic
    Newton-Schulz iteration (`ns_steps` matrix iterations with coefficients `muon_a`,
    `muon_b`, `muon_c`), scaled by `sqrt(max(rows, columns)) * rms_rate`; every other
    weight (not 2-D, an embedding with `exclude_embeddings`, or a name matching one of
    `exclude_layers`, regular expressions) takes an AdamW step at `learning_rate *
    adam_lr_ratio`.

    Args:
        learning_rate: float or schedule (0.001).
        adam_beta_1, adam_beta_2: the AdamW moments' decays (0.9, 0.999).
        adam_weight_decay: the weight decay of the AdamW weights (0.004).
        epsilon: AdamW's epsilon (1e-7).
        weight_decay: the weight decay of the Muon weights (0.004).
        exclude_layers: regular expressions of weight names that take AdamW steps.
        exclude_embeddings: embeddings take AdamW steps (True).
        muon_a, muon_b, muon_c: the Newton-Schulz coefficients (3.4445, -4.775, 2.0315).
        adam_lr_ratio: the AdamW weights' learning rate over `learning_rate` (1).
        momentum: the Muon momentum (0.95).
        ns_steps: Newton-Schulz iterations (5).
        nesterov: Nesterov momentum (True).
        rms_rate: the update's RMS scale (0.2); None for none.
        clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
        ema_overwrite_frequency, name: as every optimizer's.

    Slots (Keras's layout): `momentum` for every weight, and `velocity` for the AdamW ones.

    Example:
        >>> import paddle as pd
        >>> opt = pd.optimizers.Muon(exclude_layers=["head"])
        >>> opt.uses_adam(pd.Variable("dense/kernel", shape=[4, 3]))
        False
        >>> opt.uses_adam(pd.Variable("head/kernel", shape=[4, 3]))
        True
    """

    slot_names = ("momentum", "velocity")

    def __init__(self, learning_rate=0.001, adam_beta_1=0.9, adam_beta_2=0.999,
                 adam_weight_decay=0.004, epsilon=1e-7, weight_decay=0.004, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, name=None, exclude_layers=None,
                 exclude_embeddings=True, muon_a=3.4445, muon_b=-4.7750, muon_c=2.0315,
                 adam_lr_ratio=1, momentum=0.95, ns_steps=5, nesterov=True, rms_rate=0.2):
        super().__init__(learning_rate, name, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency)
        owner = "Muon"
        self.adam_beta_1 = optimizers._fraction(adam_beta_1, "adam_beta_1", owner)
        self.adam_beta_2 = optimizers._fraction(adam_beta_2, "adam_beta_2", owner)
        self.adam_weight_decay = None if adam_weight_decay is None else \
            optimizers._positive(adam_weight_decay, "adam_weight_decay", owner, zero=True)
        self.epsilon = optimizers._positive(epsilon, "epsilon", owner)
        if exclude_layers is not None and (isinstance(exclude_layers, str) or not all(
                isinstance(k, str) for k in exclude_layers)):
            raise ValueError(f"{owner}: expected exclude_layers to be a list of regular "
                             f"expressions (strings) or None, received {exclude_layers!r}")
        self.exclude_layers = list(exclude_layers or [])
        for pattern in self.exclude_layers:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"{owner}: exclude_layers holds {pattern!r}, which is not a "
                                 f"regular expression ({e})") from None
        self.exclude_embeddings = optimizers._flag(exclude_embeddings, "exclude_embeddings",
                                                   owner)
        for arg, value in (("muon_a", muon_a), ("muon_b", muon_b), ("muon_c", muon_c)):
            setattr(self, arg, optimizers._number(value, arg, owner, math.isfinite,
                                                  "a finite number"))
        self.adam_lr_ratio = optimizers._positive(adam_lr_ratio, "adam_lr_ratio", owner,
                                                  zero=True)
        self.momentum = optimizers._fraction(momentum, "momentum", owner, one=True)
        if not isinstance(ns_steps, (int, np.integer)) or isinstance(ns_steps, bool) or \
                ns_steps < 0:
            raise ValueError(f"{owner}: expected ns_steps to be an integer >= 0, received "
                             f"{ns_steps!r}")
        self.ns_steps = int(ns_steps)
        self.nesterov = optimizers._flag(nesterov, "nesterov", owner)
        self.rms_rate = None if rms_rate is None else \
            optimizers._positive(rms_rate, "rms_rate", owner, zero=True)

    def uses_adam(self, var):
        """Whether `var` takes AdamW steps (Keras's `_should_use_adamw`)."""
        if len(var.shape) != 2:
            return True
        if self.exclude_embeddings and "embedding" in var.name.lower():
            return True
        return any(re.search(k, var.name) for k in self.exclude_layers)

    def slot_shapes(self, var):
        shape = tuple(var.shape)
        return {"momentum": shape, "velocity": shape} if self.uses_adam(var) else \
            {"momentum": shape}

    def decays(self, var):
        rate = self.adam_weight_decay if self.uses_adam(var) else self.weight_decay
        return bool(rate) and var not in self._no_decay and \
            not any(n in var.name for n in self._no_decay_names)

    def decayed(self, weight, variable, lr):
        if not self.decays(variable):
            return weight
        rate = self.adam_weight_decay if self.uses_adam(variable) else self.weight_decay
        return weight - weight * rate * lr

    def update_step(self, gradient, weight, variable, lr, step):
        slots = self.slot_variables(variable)
        if self.uses_adam(variable):
            return self._adam_step(gradient, weight, lr * float(self.adam_lr_ratio), step,
                                   slots["momentum"], slots["velocity"])
        m = slots["momentum"] + (gradient + slots["momentum"] * (self.momentum - 1.0))
        g = gradient + self.momentum * m if self.nesterov else m
        update = lr * self.orthogonalised(g)
        if self.rms_rate is not None:
            rows, columns = variable.shape
            update = update * float(np.sqrt(np.float32(max(rows, columns)))) * self.rms_rate
        return weight - update, {"momentum": m}

    def _adam_step(self, gradient, weight, lr, step, m, v):
        b1, b2 = self.adam_beta_1, self.adam_beta_2
        alpha = lr * sqrt(1.0 - b2 ** step) / (1.0 - b1 ** step)
        m = m + (gradient - m) * (1.0 - b1)
        v = v + (square(gradient) - v) * (1.0 - b2)
        return weight - (m * alpha) / (sqrt(v) + self.epsilon), {"momentum": m, "velocity": v}

    def orthogonalised(self, x):
        """Keras's `zeropower_via_newtonschulz5`: `ns_steps` quintic Newton-Schulz
        iterations on x divided by its Frobenius norm (on its transpose when it has more
        rows than columns)."""
        tall = x.shape[-2] > x.shape[-1]
        if tall:
            x = _swap_last(x)
        x = x / (sqrt(reduce_sum(square(x), axis=[-2, -1], keepdims=True)) + 1e-7)
        for _ in range(self.ns_steps):
            a = matmul(x, _swap_last(x))
            b = self.muon_b * a + matmul(self.muon_c * a, a)
            x = self.muon_a * x + matmul(b, x)
        return _swap_last(x) if tall else x


class ScheduleFreeAdamW(ComposedOptimizer):
    """Schedule-free AdamW (Keras 3; Defazio et al., 2024): no learning-rate schedule is
    needed; the weight is an interpolation `y = (1 - beta_1) * z + beta_1 * x` between the
    SGD-like sequence `z` (the slot `momentum`, starting as the weight) and its running
    average `x`, with Adam's bias-corrected second moment `velocity` scaling the steps and an
    optional linear warmup over `warmup_steps`.

    Args:
        learning_rate: float or schedule (0.0025).
        beta_1: the interpolation between z and x (0.9).
        beta_2: the second moment's decay (0.999).
        epsilon: added to the denominator (1e-8).
        warmup_steps: steps of linear learning-rate warmup (0: none).
        weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
        ema_overwrite_frequency, name: as every optimizer's.

    Example:
        >>> import paddle as pd
        >>> w = pd.Variable("sf_doc_w", shape=[2], initializer="ones")
        >>> opt = pd.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
        >>> opt.slots(w)["momentum"].tolist()   # z starts as the weight
        [1.0, 1.0]
    """

    slot_names = ("momentum", "velocity")

    def __init__(self, learning_rate=0.0025, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                 warmup_steps=0, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, name=None):
        super().__init__(learning_rate, name or "schedule_free_adam_w", weight_decay, clipnorm,
                         clipvalue, global_clipnorm, use_ema, ema_momentum,
                         ema_overwrite_frequency)
        owner = "ScheduleFreeAdamW"
        self.beta_1 = optimizers._number(beta_1, "beta_1", owner, lambda v: 0 < v < 1,
                                         "in (0, 1)")
        self.beta_2 = optimizers._fraction(beta_2, "beta_2", owner)
        self.epsilon = optimizers._positive(epsilon, "epsilon", owner)
        if not isinstance(warmup_steps, (int, np.integer)) or isinstance(warmup_steps, bool) \
                or warmup_steps < 0:
            raise ValueError(f"{owner}: expected warmup_steps to be an integer >= 0, received "
                             f"{warmup_steps!r}")
        self.warmup_steps = int(warmup_steps)

    def slot_initial(self, var, slot):
        return var.val() if slot == "momentum" else 0.0

    def update_step(self, gradient, weight, variable, lr, step):
        slots = self.slot_variables(variable)
        if self.warmup_steps > 0:
            lr = lr * minimum(step / float(self.warmup_steps), 1.0)
        b1, b2 = self.beta_1, self.beta_2
        z, velocity = slots["momentum"], slots["velocity"]
        correction = 1.0 - b2 ** step
        velocity = velocity + (square(gradient) - velocity) * (1.0 - b2)
        denominator = sqrt(velocity / correction) + self.epsilon
        z_new = z - (lr * gradient) / denominator
        weight_of_new = 1.0 / step
        x_old = (weight - (1.0 - b1) * z) / b1
        x_new = (1.0 - weight_of_new) * x_old + weight_of_new * z_new
        y_new = (1.0 - b1) * z_new + b1 * x_new
        return y_new, {"momentum": z_new, "velocity": velocity}


# Found by name (`pd.optimizers.get`, compile's and LossScaleOptimizer's configs).
optimizers.NAMES.update(adafactor=Adafactor, muon=Muon, schedulefreeadamw=ScheduleFreeAdamW)
