"""Kept values: what a program computes from stored values alone is computed once and kept
until a stored value is written.

An inference plan folds each batch norm into the convolution before it
(paddle/lowlevel/fusion/fold_batch_norm.py): small nodes compute the folded filters and
bias from the parameters and the moving statistics. Those inputs change only when a stored
array is written (a training step's updates, `set_value`, `load_weights`, an optimizer's
slots written by hand), and every such write moves `mirrors.writes()` on. So a program that
writes no stored value itself keeps the outputs of those nodes in buffers of their own
(outside the shared arena) and runs the nodes only when the count moved since the run that
computed them: a predict loop folds ResNet-50's 94 MB of filters once, not once a batch.

Only pure elementwise arithmetic (`KEPT_OPS`, alone or fused) on parameters and constants,
or on such kept values, is kept; anything random, stateful or reading a feed runs every
time. Writing into a stored array in place without `set_value` (`v.value[...] = x`)
is outside the contract for device copies as well (paddle/devices/mirrors.py): a kept value
computed from it would not follow.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 2])
    >>> w = pd.Variable("w", shape=[2], initializer="ones")
    >>> y = x * (w * 2.0)
    >>> pd.eval(y, {x: np.ones((1, 2))}).tolist()
    [[2.0, 2.0]]
    >>> w.set_value(np.array([3.0, 4.0]))
    >>> pd.eval(y, {x: np.ones((1, 2))}).tolist()
    [[6.0, 8.0]]
"""
from paddle.devices import mirrors

# Ops whose output is a pure function of their inputs' values (the batch norm folding's).
KEPT_OPS = frozenset({"add", "sub", "mul", "div", "sqrt"})


def _pure(op):
    members = getattr(op, "members", None)
    if members is not None:  # a fused node: every member pure
        return getattr(op, "kernel", None) == "fused_elementwise" and set(members) <= KEPT_OPS
    return op.name in KEPT_OPS


def kept_nodes(nodes, key_of, output_keys, aliasing=()):
    """Ids of the nodes of a program (in run order) whose inputs are all parameters,
    constants or outputs of kept nodes, and whose op is pure (`KEPT_OPS`). `key_of(v)`:
    the program's key of a Variable's value; `output_keys(node)`: the keys of its outputs;
    `aliasing`: ids of the nodes whose output is a view of their input (never kept)."""
    kept, kept_keys = set(), set()
    for node in nodes:
        if not node.inputs or not _pure(node.op) or id(node) in aliasing:
            continue
        if all((v.node is None and v.kind in ("param", "const")) or key_of(v) in kept_keys
               for v in node.inputs):
            kept.add(id(node))
            kept_keys.update(output_keys(node))
    return kept


class Kept:
    """The calls of a program's kept nodes (their indices among its calls), and the count of
    stored writes at the run that last computed them (None: never)."""

    def __init__(self, steps, indices):
        self.indices = frozenset(indices)
        self.without = [_skip if i in self.indices else fn for i, fn in enumerate(steps)]
        self.computed_at = None

    def steps(self, steps):
        """The calls for this run: the kept ones left out (a call that does nothing, so
        that indices still name the ops) while no stored value was written since they ran."""
        return self.without if self.computed_at == mirrors.writes() else steps

    def ran(self, at):
        """A run that began at write count `at` completed: its kept values are current."""
        self.computed_at = at


def _skip():
    """A kept node's call while its value is current."""
