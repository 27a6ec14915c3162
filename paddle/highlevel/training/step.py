"""One step of training, evaluation or prediction: the compiled `Step`, and the tracer that
turns a model's own `train_step` / `test_step` / `predict_step` into one.

A step is traced once per batch signature: data Variables shaped like the batch stand for
it, the model's graph (or the user's step method) is built on them, and `Step` compiles
the fetches into one low-level plan that every later batch of that signature runs.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.highlevel.training.step import Step
    >>> x = pd.data("x", shape=[None, 2])
    >>> step = Step([x], [pd.sum(x)], training=False)
    >>> float(step([np.ones((3, 2), np.float32)])[0])
    6.0
"""
import contextlib

import numpy as np

from paddle import lowlevel as ll
from paddle.devices import backend_for
from paddle.lowlevel import eager, graph, optimizers
from paddle.lowlevel.executor import plan_for, topological_nodes
from paddle.lowlevel.strings import feed_dtype
from paddle.lowlevel.graph import Variable, assigned_value, call_inputs, constant, data
from paddle.highlevel.layers import state_updates
from paddle.highlevel.metrics.base import StepTrace, batch_value


class Step:
    """A compiled step: feed Variables in a fixed order, fetch Variables, one plan."""

    def __init__(self, feeds, fetches, training):
        self.feeds, self.fetches, self.training = feeds, fetches, training
        # The state updates of the layer calls it computes (a stateful RNN's) run with it;
        # their values (None) are not returned.
        fetched = {id(v) for v in fetches}
        self.targets = list(fetches) + [u for u in state_updates.reached(fetches)
                                        if id(u) not in fetched]
        self.plan = plan_for(self.targets, training, None)

    def __call__(self, arrays):
        if self.plan.device is not backend_for(None):  # pd.set_device since: plan there
            self.plan = plan_for(self.targets, self.training, None)
        values = self.plan.run(dict(zip(self.feeds, arrays)))
        return values if len(self.targets) == len(self.fetches) else \
            values[:len(self.fetches)]


def trace_step(model, kind, x, y=(), weighted=False):
    """Trace the model's own `train_step`, `test_step` or `predict_step` (`kind`: "train",
    "test", "predict") once on data Variables shaped like the batch arrays `x` and `y`: the
    one tracer of every overridden step.

    The method receives `x`, `(x, y)`, or, with `weighted` (as Keras: only when weights
    were given), `(x, y, sample_weight)`; a None batch size in it is the data's. For
    "train" and "test", the update ops it builds and what its metrics did are recorded.

    Returns:
        `(feeds, result, updates, trace)`: the data Variables in feed order (x, y, then
        the sample weights except for "predict"), what the method returned, the update ops
        ([] for "predict") and the `StepTrace` of its metrics (None for "predict").
    """
    like = model.inputs if model.functional and len(model.inputs) == len(x) else None
    xs = [data(f"x_{i}", (None,) + a.shape[1:], like[i].dtype if like else
               feed_dtype(a, model.dtype)) for i, a in enumerate(x)]
    ys = [data(f"y_{i}", (None,) + a.shape[1:], "int64" if a.dtype.kind in "iu" else
               model.dtype) for i, a in enumerate(y)]
    feeds = xs + ys
    batch = _one(xs) if not ys else (_one(xs), _one(ys))
    if kind != "predict":
        sw = data("sample_weight", (None,), "float32")
        feeds.append(sw)
        if weighted:
            batch = (_one(xs), _one(ys) if ys else None, sw)
    method = getattr(model, f"{kind}_step")
    updates, trace = [], None
    with contextlib.ExitStack() as stack:
        stack.enter_context(eager.tracing())  # random ops and updates: run on every step
        if kind != "predict":
            updates = stack.enter_context(optimizers.collect_updates())
            trace = stack.enter_context(StepTrace())
        stack.enter_context(call_inputs(xs + ys))
        result = method(batch)
        if isinstance(result, dict):  # `{"total": self.total}` after assigning it: the value
            result = {k: assigned_value(v) for k, v in result.items()}
        if trace is not None:  # the values assigned in the step (reads of them are its own)
            trace.assigned = {id(v) for v in graph.ASSIGNED[-1].values()}
    return feeds, result, updates, trace

class _CustomLogs:
    """One batch of a custom step: per-batch values, metric results, the logs' order."""

    def __init__(self, per_batch, after, order):
        self.per_batch, self.after, self.order = per_batch, after, order

    def values(self):
        """This batch's own values, in the step's order (the Trainer's EndStepEvent)."""
        return [self.per_batch[k] if k in self.per_batch else self.after[k]
                for k in self.order]


def _custom_logs(layout, values):
    """Fold the batch's values into the metrics updated in the step, then compute the
    logs that read metric state."""
    per_batch = {k: _log_value(v, k) for k, v in zip(layout["custom"], values)}
    i = len(layout["custom"])
    for metric, count in layout["fold"]:
        metric.accumulate([batch_value(v) for v in values[i:i + count]])
        i += count
    after = {}
    if layout["post"] is not None:
        post, fed = layout["post"]
        results = post([np.asarray(m.result(), np.float32) for m in fed])
        after = {k: _log_value(v, k) for k, v in zip(layout["after"], results)}
    return _CustomLogs(per_batch, after, layout["order"])


def _log_value(value, key):
    if np.size(value) != 1:
        raise ValueError(f"logs: expected {key!r} to be a scalar, received shape "
                         f"{np.shape(value)}")
    return float(np.reshape(value, ()))


def _check_step_logs(model, logs, where):
    """A train_step / test_step result: a dict of scalar Variables or numbers."""
    if not isinstance(logs, dict):
        raise TypeError(f"{model.name}: {where} must return a dict of Variables, received "
                        f"{type(logs).__name__}")
    checked = {}
    for k, v in logs.items():
        if isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
            v = constant(float(v))
        if not isinstance(v, Variable):
            raise TypeError(f"{model.name}: {where} must return a dict of Variables; "
                            f"{k!r} is {type(v).__name__}")
        checked[k] = v
    return checked


def _split_logs(model, logs, feeds, placeholders, where, assigned=frozenset()):
    """(keys computed from the batch, keys computed from metric state only)."""
    fed = {id(v) for v in feeds}
    state = {id(v) for v in placeholders}
    per_batch, after = [], []
    for k, v in logs.items():
        leaves = _data_inputs(v)
        # a value assigned in the step (a counter's assign_add) is read as the step left it
        batch = any(id(d) in fed for d in leaves) or _reads_any(v, assigned)
        results = any(id(d) in state for d in leaves)
        stray = [d.name for d in leaves if id(d) not in fed and id(d) not in state]
        if stray:
            raise ValueError(f"{model.name}: {where} returned {k!r}, which reads "
                             f"{stray[0]!r}: an input that is not part of the batch")
        if batch and results:
            raise ValueError(f"{model.name}: {where} returned {k!r}, which mixes this "
                             "batch's values with a metric's result; return them as "
                             "separate logs")
        (per_batch if batch else after).append(k)
    return per_batch, after


def _reads_any(var, ids):
    """Whether `var` is, or is computed from, one of the Variables whose ids are `ids`."""
    if not ids:
        return False
    return id(var) in ids or any(id(v) in ids for node in topological_nodes([var])
                                 for v in node.inputs)


def _data_inputs(var):
    """The data Variables (graph inputs) that `var` is computed from."""
    if var.kind == "data":
        return [var]
    return [v for node in topological_nodes([var]) for v in node.inputs if v.kind == "data"]


def _plus(total, extra):
    """total + each of extra (scalar Variables)."""
    for v in extra:
        total = total + v
    return total


def masked_weights(output, sample_weight, mean):
    """The weights that leave an output's masked timesteps out (Keras's apply_mask): the
    mask (batch, timesteps) as 0 / 1, times total / valid for a loss (`mean`), so that its
    mean over every entry is the mean over the valid ones, times the sample weights (one per
    example). `sample_weight` unchanged when the output carries no mask."""
    mask = getattr(output, "_keras_mask", None)
    if mask is None:
        return sample_weight
    weights = ll.cast(mask, "float32")
    if mean:
        total = ll.sum(ll.ones_like(weights))
        weights = weights * (total / ll.maximum(ll.sum(weights), ll.constant(1.0)))
    if sample_weight is not None:
        weights = weights * ll.expand_dims(sample_weight, -1)
    return weights


def _variables(value, what):
    """A Variable or a list/tuple of them as a list (None: [])."""
    if value is None:
        return []
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"compute_loss: expected {what} as Variables, received "
                            f"{type(v).__name__}")
    return items


def _unpack_batch(data):
    """(x, y, sample_weight) of a batch given as x, (x, y) or (x, y, sw): what a traced
    step receives, and fit's validation_data (a list is several inputs, not a batch)."""
    if isinstance(data, tuple) and len(data) in (2, 3):
        return (data + (None,))[:3]
    return data, None, None


def _one(items):
    return items[0] if len(items) == 1 else tuple(items)
