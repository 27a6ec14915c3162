"""assign: the stateful op that writes a value into a parameter in place (a metric's
state, a counter), and `Variable.assign / assign_add / assign_sub` built on it.

Like the optimizers' updates it runs after every other op of a run, so everything a run
computes (the value written included) reads the parameter as it was before the run; the
value a run returns for the parameter itself is also the one from before. That is the rule
of graphs built with `pd.assign` and run with `pd.eval` (TensorFlow 1's). Inside a traced
step (a layer or model call on symbolic inputs, fit's steps, a custom `train_step`), reads
follow the order written instead, as Keras's: an op built after an assignment to a
parameter in the same trace reads the value assigned (differentiated as that value, as
Keras on JAX), and the assignment still runs in the update phase.

Example:
    >>> import numpy as np, paddle as pd
    >>> total = pd.Variable("assign_example_total", shape=[], initializer="zeros",
    ...                     trainable=False)
    >>> x = pd.data("assign_example_x", shape=[None])
    >>> step = pd.assign(total, total + pd.sum(x))
    >>> _ = pd.eval(step, {x: np.array([1.0, 2.0])}); _ = pd.eval(step, {x: np.array([3.0])})
    >>> float(total.val())
    6.0
"""
import numpy as np

from paddle.lowlevel.executor import eval as run, topological_nodes
from paddle.lowlevel.graph import (ASSIGNED, EAGER_STATE, UPDATE_COLLECTORS, Variable, apply,
                                   as_variable, assigned_value, constant)
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.shapes import broadcast


@register
class Assign(Op):
    """Writes input 1 (broadcast to input 0's shape) into parameter input 0."""

    name = "assign"
    stateful = True

    def infer(self, target, value):
        if target[1] != value[1]:
            self.fail(f"expected a value of the parameter's dtype {target[1]}, received "
                      f"{value[1]}", ("target", target[0]), ("value", value[0]))
        shape = broadcast(self, target[0], value[0], labels=["target", "value"])
        if tuple(shape) != tuple(target[0]):
            self.fail("expected a value that broadcasts to the parameter's shape",
                      ("target", target[0]), ("value", value[0]))
        return (), target[1]

    def grad(self, node, g):
        return [None, None]


def assign(target, value):
    """The update op writing `value` into the parameter `target` when it runs.

    Args:
        target: a parameter Variable (pd.Variable, a layer's or metric's weight).
        value: a Variable, array or number of the parameter's dtype that broadcasts to its
            shape.

    Returns:
        The update op, a Variable that evaluates to None (run it with `pd.eval`; inside a
        traced train_step or test_step, `fit` runs it on every batch).

    Raises:
        TypeError: target is not a parameter.
        ShapeError: value does not fit it.
    """
    if not isinstance(target, Variable) or target.kind != "param":
        raise TypeError(f"assign: expected a parameter Variable as the target, received "
                        f"{target!r}")
    value = assigned_value(as_variable(value, like=target, where="assign"))
    update = apply(OPS["assign"], [target, value])
    for collected in UPDATE_COLLECTORS:
        collected.append(update)
    if ASSIGNED:  # in a trace: later reads of the target read this value (program order)
        ASSIGNED[-1][id(target)] = value if value.shape == target.shape else apply(
            # the shape from a constant: the parameter as `like` would read as a weight
            OPS["broadcast_to"], [value, constant(np.zeros(target.shape, target.dtype))])
    return update


@register
class AfterUpdates(Op):
    """Input 0, read once the ops of the other inputs (updates) have run: a view of input 0
    (no kernel, no copy) that makes whatever reads it run in the update phase."""

    name = "after_updates"
    view = True

    def infer(self, value, *updates):
        return value

    def grad(self, node, g):
        return [None] * len(node.inputs)


def after_updates(value, *updates):
    """`value` as it is once the update ops `updates` have run in the same `pd.eval`.

    Ops built on the result run after those updates (a weight constraint projects the
    weight the optimizer just updated); `after_updates(step, *more_updates)` is one
    target that runs `step` and then `more_updates`.

    Args:
        value: a Variable (typically a parameter).
        updates: the update ops (Variables returned by `minimize`, `assign`, ...).

    Returns:
        A Variable aliasing `value`'s buffer; a run returns None for it when it is a
        target (a run returns values from before its updates).

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.ops.state import after_updates
        >>> w = pd.Variable("after_updates_example_w", shape=[2], initializer="ones")
        >>> step = pd.optimizers.SGD(0.5).minimize(pd.sum(w * w))    # w becomes 0
        >>> step = after_updates(step, pd.assign(w, after_updates(w, step) + 3.0))
        >>> _ = pd.eval(step); w.val().tolist()
        [3.0, 3.0]
    """
    for v in (value, *updates):
        if not isinstance(v, Variable):
            raise TypeError(f"after_updates: expected Variables, received {v!r}")
    return apply(OPS["after_updates"], [value, *updates])


def _in_graph(value):
    """Whether an assignment of `value` becomes an update op: inside a trace (a traced
    step or a layer call on symbolic inputs: numbers too, so that `count.assign_add(1.0)`
    counts every step), or for a Variable that reads a data input."""
    return bool(UPDATE_COLLECTORS or EAGER_STATE[0]) or (
        isinstance(value, Variable) and _reads_data(value))


def _eager_or_graph(var, value, where):
    """Keras's variable assignment: a NumPy value or a number (or a Variable that reads no
    data input) is written at once; inside a trace, or for a Variable of a graph being
    built, it becomes an update op, which a traced step runs on every batch."""
    if var.kind != "param":
        raise TypeError(f"{where}: {var.name!r} is a {var.kind} Variable; only parameters "
                        "can be assigned")
    if _in_graph(value):
        return assign(var, value)
    if isinstance(value, Variable):
        value = run(value)
    var.set_value(np.broadcast_to(np.asarray(value, dtype=var.dtype), var.shape))
    return var


def _reads_data(value):
    return value.kind == "data" or any(
        v.kind == "data" for n in topological_nodes([value]) for v in n.inputs)


def _assign(self, value):
    """Set this parameter to `value` (at once, or as an update op inside a traced step)."""
    return _eager_or_graph(self, value, "assign")


def _assign_add(self, value):
    """Add `value` to this parameter (at once, or as an update op inside a traced step)."""
    return _eager_or_graph(self, self + as_variable(value, like=self, where="assign_add")
                           if isinstance(value, Variable) or _in_graph(value) else
                           self.val() + value, "assign_add")


def _assign_sub(self, value):
    """Subtract `value` from this parameter (at once, or as an update op in a trace)."""
    return _eager_or_graph(self, self - as_variable(value, like=self, where="assign_sub")
                           if isinstance(value, Variable) or _in_graph(value) else
                           self.val() - value, "assign_sub")


Variable.assign, Variable.assign_add, Variable.assign_sub = _assign, _assign_add, _assign_sub
