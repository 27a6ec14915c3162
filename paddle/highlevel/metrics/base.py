"""The base of every metric: `Metric` (a graph part computed with each batch, a running
state kept in Python), `Mean` and `MeanMetricWrapper`, and what lets a metric work inside
a traced train_step (`StepTrace`).

`batch_values(y_true, y_pred, sample_weight)` builds, from low-level ops, the few scalar
Variables a batch contributes (for a mean: the weighted total and the weight count). The
training loop compiles them into the same plan as the loss and hands the floats it gets back
to `accumulate`; `result()` is the value for the epoch so far. Outside the loop,
`update_state` does both steps on NumPy arrays.

Example:
    >>> import numpy as np
    >>> from paddle.highlevel import metrics
    >>> m = metrics.Mean()
    >>> m.update_state([1.0, 3.0])
    >>> m.result()
    2.0
"""
import numpy as np

from paddle import lowlevel as ll
from paddle.highlevel.losses.base import _snake, match_rank
from paddle.lowlevel import initializers
from paddle.lowlevel.graph import NAMES, Variable, as_variable
from paddle.lowlevel.layer_functions import parameter


class Metric:
    """Base of metrics: a graph part per batch and a running state in Python.

    Subclasses implement `batch_values`, `accumulate`, `result` and `reset_state`.

    Args:
        name: the key of the metric in logs and history (snake-case class name by default).

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel import metrics
        >>> class MaxError(metrics.Metric):
        ...     def batch_values(self, y_true, y_pred, sample_weight=None):
        ...         return [pd.max(pd.abs(y_pred - y_true))]
        ...     def accumulate(self, values):
        ...         self.worst = max(self.worst, values[0])
        ...     def result(self):
        ...         return self.worst
        ...     def reset_state(self):
        ...         self.worst = 0.0
        >>> m = MaxError()
        >>> m.update_state(np.zeros(3, np.float32), np.array([1.0, -2.0, 0.5], np.float32))
        >>> m.name, m.result()
        ('max_error', 2.0)
    """

    def __init__(self, name=None, dtype=None):
        self.name = name or _snake(type(self).__name__)
        self._graphs = {}
        self._state = []  # add_variable's (Variable, initializer)
        if type(self)._python_state:  # Keras-style ones create their state after this
            self.reset_state()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # A metric whose state lives in Python (batch_values + accumulate: the built-in
        # ones) or in Variables (add_variable + update_state with assign_add: Keras's way).
        cls._python_state = cls.batch_values is not Metric.batch_values
        for name in ("update_state", "result"):
            if name in cls.__dict__:
                setattr(cls, name, _trace_aware(name, cls.__dict__[name]))

    def add_variable(self, shape=(), initializer="zeros", dtype="float32", name=None):
        """A state Variable (Keras's Metric.add_variable): `update_state` changes it with
        `assign` / `assign_add`, `result` reads it, `reset_state` puts its initial value
        back. Inside a traced step the assignments run on every batch.

        Example:
            >>> import numpy as np, paddle as pd
            >>> class Positives(pd.metrics.Metric):
            ...     def __init__(self, name="positives"):
            ...         super().__init__(name=name)
            ...         self.count = self.add_variable(shape=(), initializer="zeros")
            ...     def update_state(self, y_true, y_pred, sample_weight=None):
            ...         self.count.assign_add(pd.sum(pd.cast(pd.greater(y_pred, 0.5), "float32")))
            ...     def result(self):
            ...         return self.count
            >>> m = Positives()
            >>> m.update_state(None, np.array([0.2, 0.7, 0.9], np.float32))
            >>> float(m.count.val())
            2.0
        """
        init = initializers.get(initializer)
        full = NAMES.full(f"{self.name}/{name or 'variable'}")
        shape = tuple(shape) if isinstance(shape, (list, tuple)) else \
            (() if shape is None else (shape,))
        var = parameter(full, shape, dtype, init, trainable=False)
        self._state.append((var, init))
        return var

    @property
    def variables(self):
        """The state Variables made by add_variable."""
        return [v for v, _ in self._state]

    def batch_values(self, y_true, y_pred, sample_weight=None):
        """Float Variables this batch contributes to the state (scalars, or arrays of
        counts: `accumulate` receives floats for scalars and NumPy arrays for the rest)."""
        raise NotImplementedError(f"{type(self).__name__}.batch_values is not implemented")

    def accumulate(self, values):
        """Fold the floats `batch_values` evaluated to into the state."""
        raise NotImplementedError(f"{type(self).__name__}.accumulate is not implemented")

    def result(self):
        """The metric over everything accumulated since the last reset, as a float."""
        raise NotImplementedError(f"{type(self).__name__}.result is not implemented")

    def reset_state(self):
        """Forget everything accumulated: every add_variable Variable gets its initial
        value back (metrics with Python state override this)."""
        if self._python_state and type(self).reset_state is Metric.reset_state:
            raise NotImplementedError(f"{type(self).__name__}.reset_state is not implemented")
        for var, init in getattr(self, "_state", []):
            var.set_value(init(var.shape, var.dtype))

    def reset_states(self):
        """Keras 2's name for reset_state."""
        self.reset_state()

    def _update_in_graph(self, *args, **kwargs):
        """update_state on Variables: the batch's values join the step being traced (fit
        folds them in after each batch); outside a trace, Variables that read no data
        input are evaluated at once."""
        values = self.batch_values(*args, **kwargs)
        if _TRACES:
            _TRACES[-1].updates.append((self, list(values)))
            return
        try:
            evaluated = ll.eval(list(values))
        except Exception as e:
            raise ValueError(f"{self.name}: update_state received Variables of a graph with "
                             f"inputs; call it inside train_step / test_step (fit and "
                             f"evaluate trace them) or pass NumPy arrays ({e})") from None
        self.accumulate([batch_value(v) for v in evaluated])

    def _result_in_graph(self, current):
        """result() inside a traced step: a placeholder the loop feeds with the metric's
        result after folding in the batch."""
        trace = _TRACES[-1]
        found = trace.results.get(id(self))
        if found is None:
            shape = np.shape(current)
            found = trace.results[id(self)] = (self, ll.data(f"{self.name}_result", shape,
                                                             "float32"))
        return found[1]

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch given as NumPy arrays (outside the training loop)."""
        self.accumulate(self._evaluate(y_true, y_pred, sample_weight))

    def _evaluate(self, *arrays):
        """`batch_values` on NumPy arrays: the graph is built once per signature of shapes and
        dtypes (batch size left open) and run with pd.eval."""
        arrays = [None if a is None else _as_feed(a) for a in arrays]
        key = tuple(None if a is None else (a.shape[1:], a.ndim, a.dtype.name) for a in arrays)
        if key not in self._graphs:
            inputs = [None if a is None else
                      ll.data(f"{self.name}_in{i}", shape=(None,) * min(a.ndim, 1) + a.shape[1:],
                              dtype=a.dtype.name)
                      for i, a in enumerate(arrays)]
            self._graphs[key] = (inputs, self.batch_values(*inputs))
        inputs, targets = self._graphs[key]
        feeds = {v: a for v, a in zip(inputs, arrays) if v is not None}
        return [batch_value(v) for v in ll.eval(targets, feeds)]

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r}>"


_TRACES = []  # StepTrace of the train_step / test_step being traced (innermost last)


class StepTrace:
    """What a traced step's metrics did: batch values to fetch and fold in
    (`updates`: [(metric, [Variables])]) and result placeholders (`results`)."""

    def __init__(self):
        self.updates, self.results = [], {}
        self.assigned = set()  # ids of the values assigned in the step (its trace sets them)

    def __enter__(self):
        _TRACES.append(self)
        return self

    def __exit__(self, *exc):
        _TRACES.remove(self)


def _trace_aware(name, fn):
    """update_state / result of a metric with Python state, made to work inside a traced
    step: on Variables, update_state adds the batch's values to the step and result
    returns a placeholder for the running result; on NumPy values they run as written."""
    def wrapper(self, *args, **kwargs):
        if type(self)._python_state:
            if name == "update_state" and any(isinstance(a, Variable) for a in
                                              list(args) + list(kwargs.values())):
                return self._update_in_graph(*args, **kwargs)
            if name == "result" and _TRACES:
                return self._result_in_graph(fn(self, *args, **kwargs))
        return fn(self, *args, **kwargs)
    wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ = fn.__name__, fn.__doc__, fn
    return wrapper


Metric._python_state = False
Metric.update_state = _trace_aware("update_state", Metric.update_state)
Metric.result = _trace_aware("result", Metric.result)


def result_value(metric):
    """A metric's result as a float (or an array): a Variable that a Keras-style result()
    returns is evaluated (it reads state Variables only)."""
    value = metric.result()
    if isinstance(value, Variable):
        value = ll.eval(value)
    return float(value) if np.ndim(value) == 0 else np.asarray(value)


def batch_value(value):
    """A value `batch_values` evaluated to, as `accumulate` receives it: a float for a
    scalar, a NumPy array otherwise (per-threshold or per-class counts)."""
    return float(value) if np.ndim(value) == 0 else np.array(value, dtype=np.float64)


def _as_feed(value):
    """A NumPy array with a dtype the graph supports (floats stay float, ints are int64)."""
    a = np.asarray(value)
    if a.dtype.kind == "f":
        return a if a.dtype.name in ("float32", "float64") else a.astype(np.float32)
    if a.dtype.kind in "iu":
        return a if a.dtype.name in ("int64", "int32") else a.astype(np.int64)
    if a.dtype.kind == "b":
        return a.astype(np.float32)
    raise TypeError(f"metric: expected numbers, received an array of {a.dtype}")


class Mean(Metric):
    """The (weighted) mean of the values it is given; the loop tracks the loss with one.

    Values of rank > 1 count once per example (their inner axes are averaged first).

    Args:
        name: key in logs ("mean" by default).

    Example:
        >>> from paddle.highlevel import metrics
        >>> m = metrics.Mean()
        >>> m.update_state([1.0, 3.0]); m.update_state(5.0)
        >>> m.result()
        3.0
        >>> m.update_state([2.0], sample_weight=[3.0]); m.result()
        2.5
    """

    def __init__(self, name="mean"):
        super().__init__(name)

    def batch_values(self, values, sample_weight=None):
        """[sum of weighted per-example values, sum of weights] as float32 scalars."""
        values = ll.cast(as_variable(values, where=self.name), "float32")
        if sample_weight is None:
            values = _per_example_mean(values)
            return [ll.sum(values), ll.sum(ll.ones_like(values))]
        weight = ll.cast(as_variable(sample_weight, where=self.name), "float32")
        if values.ndim > 0:
            weight, values = match_rank(weight, values)
            if values.ndim > weight.ndim:  # reduce values to the weights' rank first
                values = ll.mean(values, axis=tuple(range(weight.ndim, values.ndim)))
        weight = ll.broadcast_to(weight, values) if values.ndim >= weight.ndim else weight
        values = _per_example_mean(values * weight)
        return [ll.sum(values), ll.sum(_per_example_mean(weight))]

    def update_state(self, values, sample_weight=None):
        """Accumulate NumPy values (a number or an array) with optional weights."""
        self.accumulate(self._evaluate(values, sample_weight))

    def accumulate(self, values):
        total, count = values
        self.total += float(total)
        self.count += float(count)

    def result(self):
        return self.total / self.count if self.count else 0.0

    def reset_state(self):
        self.total = 0.0
        self.count = 0.0


def _per_example_mean(v):
    """v averaged over every axis but the first (examples)."""
    return ll.mean(v, axis=tuple(range(1, v.ndim))) if v.ndim > 1 else v


class MeanMetricWrapper(Mean):
    """The mean over examples of `fn(y_true, y_pred, **kwargs)`.

    Args:
        fn: callable `(y_true, y_pred) -> Variable` of per-example values (a scalar counts
            as one value for the batch).
        name: key in logs (the function's name by default).
        **kwargs: passed on to fn.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel import metrics
        >>> m = metrics.MeanMetricWrapper(lambda t, p: pd.abs(p - t), name="l1")
        >>> m.update_state(np.array([1.0, 2.0]), np.array([1.5, 2.0])); m.result()
        0.25
    """

    def __init__(self, fn, name=None, **kwargs):
        super().__init__(name or getattr(fn, "__name__", "metric"))
        self.fn = fn
        self.kwargs = kwargs

    def batch_values(self, y_true, y_pred, sample_weight=None):
        y_pred = as_variable(y_pred, where=self.name)
        y_true = as_variable(y_true, where=self.name)
        out = self.fn(y_true, y_pred, **self.kwargs)
        if not isinstance(out, Variable):
            raise TypeError(f"metric {self.name!r}: expected the function to return a Variable, "
                            f"received {type(out).__name__}")
        return super().batch_values(out, sample_weight)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch of NumPy targets and predictions."""
        self.accumulate(self._evaluate(y_true, y_pred, sample_weight))

    def get_config(self):
        return {"name": self.name, **self.kwargs}
