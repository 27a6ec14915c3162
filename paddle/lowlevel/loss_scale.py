"""Keras 3's `LossScaleOptimizer`: dynamic loss scaling for float16 training.

Gradients of a float16 model underflow to zero where they are small. The optimizer
multiplies the loss by a large scale before the gradient (so the float16 backward pass
carries them), divides the gradients by it again, and hands them to its inner
optimizer. A step whose gradients are not all finite (the scale was too large: the
backward pass overflowed) is skipped: parameters and slots stay as they were (and the
inner step count, on the CPU, as in Keras; a GPU counts the step, its count being kept on
the host) and the scale halves. After `dynamic_growth_steps` finite steps in a row the
scale doubles. All of it is built from ops inside the training step: the finiteness
test, the new scale and counter (`where` on the device), and the update op's gate (its
update runs only when the gate is True): no value goes back to the host to decide.

Example:
    >>> import paddle as pd
    >>> w = pd.Variable("lso_example_w", shape=[2], initializer="ones")
    >>> opt = pd.optimizers.LossScaleOptimizer(pd.optimizers.SGD(0.5), initial_scale=8.0)
    >>> step = opt.minimize(pd.sum(w * w))
    >>> _ = pd.eval(step); w.val().tolist(), float(opt.dynamic_scale)
    ([0.0, 0.0], 8.0)
"""
import numpy as np

from paddle.lowlevel import optimizers
from paddle.lowlevel.graph import Variable
from paddle.lowlevel.initializers import Constant
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.ops.math import cast, equal, greater_equal, where
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.state import after_updates, assign


class LossScaleOptimizer(optimizers.Optimizer):
    """An optimizer that scales the loss, unscales the gradients and skips steps whose
    gradients are not finite (Keras 3's `keras.optimizers.LossScaleOptimizer`).

    `Model.compile` wraps its optimizer in one under the "mixed_float16" policy, as Keras
    does ("mixed_bfloat16" needs none: bfloat16 has float32's range).

    Args:
        inner_optimizer: the optimizer that applies the unscaled gradients.
        initial_scale: the first loss scale (2**15).
        dynamic_growth_steps: finite steps in a row after which the scale doubles (2000).
        name: the optimizer's name ("loss_scale_optimizer").

    Attributes:
        dynamic_scale: the current scale (a float32 scalar).
        step_counter: finite steps since the scale last changed (an int32 scalar).
        inner_optimizer: the wrapped optimizer; learning rate, step count, slots and
            everything else not listed here are its own.

    Raises:
        ValueError: an inner optimizer that is not a `pd.optimizers.Optimizer` (or is a
            LossScaleOptimizer), a scale that is not a finite number > 0, growth steps
            that are not an integer >= 1.

    Example:
        >>> import paddle as pd
        >>> opt = pd.optimizers.LossScaleOptimizer(pd.optimizers.Adam())
        >>> opt.inner_optimizer.name, float(opt.dynamic_scale), opt.dynamic_growth_steps
        ('adam', 32768.0, 2000)
    """

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000,
                 name=None, **kwargs):
        owner = type(self).__name__
        if kwargs:  # Keras passes its base arguments through; none of them applies here
            raise TypeError(f"{owner}: unexpected arguments {', '.join(sorted(kwargs))}")
        if isinstance(inner_optimizer, dict):  # a config (from_config)
            inner_optimizer = _deserialize(inner_optimizer)
        if not isinstance(inner_optimizer, optimizers.Optimizer) or \
                isinstance(inner_optimizer, LossScaleOptimizer):
            raise ValueError(f"{owner}: expected inner_optimizer to be a pd.optimizers "
                             f"Optimizer (not a LossScaleOptimizer), received "
                             f"{inner_optimizer!r}")
        scale = optimizers._positive(initial_scale, "initial_scale", owner)
        if not np.isfinite(scale) or scale == 0:
            raise ValueError(f"{owner}: expected initial_scale to be a finite number > 0, "
                             f"received {initial_scale!r}")
        if not isinstance(dynamic_growth_steps, (int, np.integer)) or \
                isinstance(dynamic_growth_steps, bool) or dynamic_growth_steps < 1:
            raise ValueError(f"{owner}: expected dynamic_growth_steps to be an integer >= 1, "
                             f"received {dynamic_growth_steps!r}")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        self.name = name or "loss_scale_optimizer"
        self._scale = Variable(f"{self.name}/dynamic_scale", shape=(), dtype="float32",
                               initializer=Constant(self.initial_scale), trainable=False)
        self._counter = Variable(f"{self.name}/step_counter", shape=(), dtype="int32",
                                 initializer=Constant(0), trainable=False)
        for v in (self._scale, self._counter):
            v.autocast = False

    # ---- the inner optimizer's state, read and written through -------------------------

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self.inner_optimizer.learning_rate = value

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    @iterations.setter
    def iterations(self, value):
        self.inner_optimizer.iterations = value

    def __getattr__(self, name):  # slot_names, use_ema, kernel... are the inner optimizer's
        if name == "inner_optimizer":  # not set yet (a failed __init__)
            raise AttributeError(name)
        return getattr(self.inner_optimizer, name)

    slot_names = property(lambda self: self.inner_optimizer.slot_names)
    kernel = property(lambda self: self.inner_optimizer.kernel)
    fused_weight_decay = property(lambda self: self.inner_optimizer.fused_weight_decay)

    def current_learning_rate(self):
        return self.inner_optimizer.current_learning_rate()

    def slots(self, var):
        return self.inner_optimizer.slots(var)

    def all_slot_names(self):
        return self.inner_optimizer.all_slot_names()

    def variables(self):
        return self.inner_optimizer.variables()

    def decays(self, var):
        return self.inner_optimizer.decays(var)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        self.inner_optimizer.exclude_from_weight_decay(var_list, var_names)

    def finalize_variable_values(self, var_list):
        self.inner_optimizer.finalize_variable_values(var_list)

    @property
    def dynamic_scale(self):
        """The current loss scale (a float32 NumPy scalar)."""
        return np.float32(self._scale.val())

    @property
    def step_counter(self):
        """Finite steps since the scale last changed (an int32 NumPy scalar)."""
        return np.int32(self._counter.val())

    def scale_variables(self):
        """[dynamic_scale, step_counter]: the Variables this optimizer keeps itself."""
        return [self._scale, self._counter]

    # ---- the step ----------------------------------------------------------------------

    def scale_loss(self, loss):
        """The loss times the current scale (Keras: call it on the loss before taking
        gradients yourself, then `apply` them)."""
        return loss * cast(self._scale, loss.dtype) if loss.dtype != "float32" else \
            loss * self._scale

    def minimize(self, loss, var_list=None):
        """The update op of one step on `loss`: its scaled gradients, unscaled, applied by
        the inner optimizer when they are all finite, and the scale's update."""
        if not isinstance(loss, Variable):
            raise TypeError(f"minimize: expected the loss as a Variable, received "
                            f"{type(loss).__name__}")
        if var_list is None:
            var_list = optimizers.trainable_parameters(loss)
        var_list = list(var_list)
        if not var_list:
            raise ValueError(f"minimize: {loss.name!r} depends on no trainable parameter")
        grads = gradients(self.scale_loss(loss), var_list)
        for v, g in zip(var_list, grads):
            if g is None:
                raise ValueError(f"minimize: the loss {loss.name!r} does not depend on "
                                 f"{v.name!r}; leave it out of var_list")
        return self.apply(grads, var_list)

    def apply(self, grads, trainable_variables):
        """The update op for *scaled* gradients (of `scale_loss(loss)`), as Keras's: they
        are divided by the scale; if all are finite the inner optimizer applies them and
        the counter grows (the scale doubles every `dynamic_growth_steps`); otherwise the
        step changes nothing but halves the scale."""
        grads, variables = list(grads), list(trainable_variables)
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        inverse = 1.0 / self._scale
        unscaled = [g * cast(inverse, g.dtype) if g.dtype != "float32" else g * inverse
                    for g, _ in kept]
        # x * 0 is 0 for every finite x and NaN for inf and NaN: one sum per gradient
        # tells whether all of it is finite, exactly (a sum of the values could overflow).
        probe = None
        for g in unscaled:
            term = cast(reduce_sum(g * 0.0), "float32")
            probe = term if probe is None else probe + term
        finite = equal(probe, 0.0)
        update = self.inner_optimizer._update(unscaled, [v for _, v in kept], gate=finite)
        count = self._counter + 1
        grow = greater_equal(count, self.dynamic_growth_steps)
        new_scale = where(finite, where(grow, self._scale * 2.0, self._scale),
                          self._scale * 0.5)
        zero = count * 0  # an int32 zero
        new_count = where(finite, where(grow, zero, count), zero)
        return after_updates(update, assign(self._scale, new_scale),
                             assign(self._counter, new_count))

    # ---- config ------------------------------------------------------------------------

    def get_config(self):
        return {"name": self.name, "inner_optimizer": _serialize(self.inner_optimizer),
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _serialize(optimizer):
    config = optimizer.get_config()
    lr = config.get("learning_rate")
    if hasattr(lr, "get_config"):
        config["learning_rate"] = {"class_name": type(lr).__name__, "config": lr.get_config()}
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": config, "registered_name": None}


def _deserialize(spec):
    cls = {c.__name__: c for c in optimizers.NAMES.values()}.get(spec.get("class_name"))
    if cls is None:
        raise ValueError(f"LossScaleOptimizer: unknown inner optimizer class "
                         f"{spec.get('class_name')!r}; expected one of "
                         f"{', '.join(sorted(c.__name__ for c in optimizers.NAMES.values()))}")
    return cls.from_config(dict(spec.get("config") or {}))
