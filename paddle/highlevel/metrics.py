"""Stateful metrics: a graph part computed with each batch, a running state kept in Python.

`batch_values(y_true, y_pred, sample_weight)` builds, from low-level ops, the few scalar
Variables a batch contributes (for a mean: the weighted total and the weight count). The
training loop compiles them into the same plan as the loss and hands the floats it gets back
to `accumulate`; `result()` is the value for the epoch so far. Outside the loop,
`update_state` does both steps on NumPy arrays.

Example:
    >>> import numpy as np
    >>> from paddle.highlevel import metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state(np.array([0, 1]), np.array([[0.9, 0.1], [0.8, 0.2]], np.float32))
    >>> m.result()
    0.5
"""
import numpy as np

from paddle import lowlevel as ll
from paddle.highlevel import losses
from paddle.highlevel.saving.registry import register_family as _register_family
from paddle.lowlevel.graph import Variable, as_variable


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
        self.name = name or losses._snake(type(self).__name__)
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
        from paddle.lowlevel import initializers
        from paddle.lowlevel.graph import NAMES
        from paddle.lowlevel.layer_functions import parameter
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
            weight, values = losses.match_rank(weight, values)
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


# ---- per-example functions (float 1.0 for a hit, 0.0 for a miss) ------------------------

def accuracy(y_true, y_pred):
    """1.0 where y_pred equals y_true exactly."""
    y_true, y_pred = losses.match_rank(y_true, ll.cast(y_pred, y_true.dtype))
    return ll.cast(ll.equal(y_true, y_pred), "float32")


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Share of the last axis where (y_pred > threshold) matches the 0/1 target."""
    y_true, y_pred = losses.match_rank(ll.cast(y_true, "float32"), y_pred)
    predicted = ll.cast(ll.greater(y_pred, threshold), "float32")
    return ll.mean(ll.cast(ll.equal(y_true, predicted), "float32"), axis=-1)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the highest score's index is the integer label ((N,) or (N, 1))."""
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = ll.squeeze(y_true, -1)
    return ll.cast(ll.equal(y_true, ll.cast(ll.argmax(y_pred, -1), y_true.dtype)), "float32")


def categorical_accuracy(y_true, y_pred):
    """1.0 where the highest score's index is the one-hot target's."""
    return sparse_categorical_accuracy(ll.argmax(y_true, -1), y_pred)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the k highest scores (ties count as in)."""
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = ll.squeeze(y_true, -1)
    labels = y_true if y_true.dtype in ("int64", "int32") else ll.cast(y_true, "int64")
    classes = y_pred.shape[-1]
    if classes is None:
        raise ValueError(f"top-k accuracy: the class axis must have a known size, received "
                         f"predictions of shape {y_pred.shape}")
    # The label is in the top k when fewer than k classes score strictly higher. Per-example
    # values are needed for sample weights, so pd.accuracy (a batch mean) does not fit here.
    own = ll.sum(ll.one_hot(labels, classes, y_pred.dtype) * y_pred, axis=-1, keepdims=True)
    higher = ll.sum(ll.cast(ll.greater(y_pred, own), "float32"), axis=-1)
    return ll.cast(ll.less(higher, float(k)), "float32")


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target's class is among the k highest scores."""
    return sparse_top_k_categorical_accuracy(ll.argmax(y_true, -1), y_pred, k)


# ---- metric classes ---------------------------------------------------------------------

class MeanSquaredError(MeanMetricWrapper):
    """Mean over examples of the mean squared error of each."""

    def __init__(self, name="mean_squared_error"):
        super().__init__(losses.mean_squared_error, name)


class MeanAbsoluteError(MeanMetricWrapper):
    """Mean over examples of the mean absolute error of each."""

    def __init__(self, name="mean_absolute_error"):
        super().__init__(losses.mean_absolute_error, name)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """Mean over examples of the mean absolute percentage error of each."""

    def __init__(self, name="mean_absolute_percentage_error"):
        super().__init__(losses.mean_absolute_percentage_error, name)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """Mean over examples of the mean squared logarithmic error of each."""

    def __init__(self, name="mean_squared_logarithmic_error"):
        super().__init__(losses.mean_squared_logarithmic_error, name)


class KLDivergence(MeanMetricWrapper):
    """Mean over examples of the Kullback-Leibler divergence of each."""

    def __init__(self, name="kl_divergence"):
        super().__init__(losses.kl_divergence, name)


class Poisson(MeanMetricWrapper):
    """Mean over examples of the Poisson loss of each."""

    def __init__(self, name="poisson"):
        super().__init__(losses.poisson, name)


class LogCoshError(MeanMetricWrapper):
    """Mean over examples of log(cosh(error)) (Keras's name "logcosh")."""

    def __init__(self, name="logcosh"):
        super().__init__(losses.log_cosh, name)


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine similarity of the L2-normalized vectors along `axis` (1: same direction)."""
    return -losses.cosine_similarity(y_true, y_pred, axis)


class CosineSimilarity(MeanMetricWrapper):
    """Mean over examples of the cosine similarity of targets and predictions (positive,
    unlike the loss of the same name).

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.CosineSimilarity()
        >>> m.update_state(np.array([[0.0, 1.0], [1.0, 1.0]]),
        ...                np.array([[1.0, 0.0], [1.0, 1.0]]))
        >>> round(m.result(), 4)
        0.5
    """

    def __init__(self, name="cosine_similarity", axis=-1):
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"CosineSimilarity: expected an integer axis, received {axis!r}")
        super().__init__(cosine_similarity, name, axis=axis)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal targets exactly."""

    def __init__(self, name="accuracy"):
        super().__init__(accuracy, name)


class BinaryAccuracy(MeanMetricWrapper):
    """How often `y_pred > threshold` matches 0/1 targets.

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.BinaryAccuracy()
        >>> m.update_state(np.array([[1], [0]]), np.array([[0.7], [0.6]])); m.result()
        0.5
    """

    def __init__(self, name="binary_accuracy", threshold=0.5):
        super().__init__(binary_accuracy, name, threshold=float(threshold))


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the highest score matches a one-hot target."""

    def __init__(self, name="categorical_accuracy"):
        super().__init__(categorical_accuracy, name)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the highest score matches an integer label."""

    def __init__(self, name="sparse_categorical_accuracy"):
        super().__init__(sparse_categorical_accuracy, name)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often a one-hot target is among the k highest scores."""

    def __init__(self, k=5, name="top_k_categorical_accuracy"):
        super().__init__(top_k_categorical_accuracy, name, k=_check_k(k))


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often an integer label is among the k highest scores.

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel import metrics
        >>> m = metrics.SparseTopKCategoricalAccuracy(k=2)
        >>> m.update_state(np.array([2, 0]), np.array([[0.1, 0.5, 0.4], [0.1, 0.5, 0.4]]))
        >>> m.result()
        0.5
    """

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy"):
        super().__init__(sparse_top_k_categorical_accuracy, name, k=_check_k(k))


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"top-k accuracy: expected an integer k >= 1, received {k!r}")
    return int(k)


# ---- lookup -----------------------------------------------------------------------------

_NAMES = {
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError, "mean_absolute_error": MeanAbsoluteError,
    "binary_accuracy": BinaryAccuracy, "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "mape": MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "kld": KLDivergence, "kl_divergence": KLDivergence, "poisson": Poisson,
    "logcosh": LogCoshError, "cosine_similarity": CosineSimilarity,
}
_CLASSES = {c.__name__: c for c in (Mean, MeanSquaredError, MeanAbsoluteError, Accuracy,
                                     BinaryAccuracy, CategoricalAccuracy,
                                     SparseCategoricalAccuracy, TopKCategoricalAccuracy,
                                     SparseTopKCategoricalAccuracy, MeanAbsolutePercentageError,
                                     MeanSquaredLogarithmicError, KLDivergence, Poisson,
                                     LogCoshError, CosineSimilarity)}
_ACCURACY_FOR_LOSS = {
    losses.SparseCategoricalCrossentropy: SparseCategoricalAccuracy,
    losses.CategoricalCrossentropy: CategoricalAccuracy,
    losses.BinaryCrossentropy: BinaryAccuracy,
}


def accuracy_for_loss(loss):
    """The accuracy class that fits a loss (as Keras picks it): integer labels for the sparse
    categorical loss and by default, argmax of one-hot targets for the categorical one,
    a 0.5 threshold for the binary one."""
    if isinstance(loss, str):
        try:
            loss = losses.get(loss)
        except ValueError:
            loss = None
    elif loss is not None and not isinstance(loss, losses.Loss) and callable(loss):
        loss = losses.get(loss)
    for loss_cls, metric_cls in _ACCURACY_FOR_LOSS.items():
        if isinstance(loss, loss_cls):
            return metric_cls
    return SparseCategoricalAccuracy


def get(identifier, loss=None):
    """A Metric from a name, a Metric, a Metric class, a config dict or a callable.

    Args:
        identifier: "accuracy" / "acc" (the kind is chosen from `loss`, see
            `accuracy_for_loss`), "mae", "mse", "top_k_categorical_accuracy",
            "sparse_top_k_categorical_accuracy" and the other snake-case Keras names; a
            Metric object (returned as is); a Metric class; `{"class_name", "config"}`;
            or a callable `(y_true, y_pred) -> Variable` (its mean, named after it).
        loss: the loss the metric goes with (a name, a Loss object or a function).
    Returns:
        A Metric whose `name` is its key in logs: the name as given for names
        (`"acc"` logs as "acc", `"mae"` as "mae").
    Raises:
        ValueError: an unknown name; the message lists the valid ones.
        TypeError: something that is none of the above.

    Example:
        >>> from paddle.highlevel import metrics
        >>> m = metrics.get("accuracy", loss="categorical_crossentropy")
        >>> type(m).__name__, m.name
        ('CategoricalAccuracy', 'accuracy')
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc"):
            return accuracy_for_loss(loss)(name=identifier)
        cls = _NAMES.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            valid = ", ".join(["accuracy", "acc"] + sorted(_NAMES))
            raise ValueError(f"Unknown metric {identifier!r}; expected one of {valid}, a "
                             "Metric object or a callable (y_true, y_pred) -> Variable")
        return cls(name=identifier) if identifier in _NAMES else cls()
    if isinstance(identifier, dict) and "class_name" in identifier:
        cls = _CLASSES.get(identifier["class_name"])
        if cls is None:
            raise ValueError(f"Unknown metric class {identifier['class_name']!r}; expected one "
                             f"of {', '.join(sorted(_CLASSES))}")
        return cls.from_config(identifier.get("config", {}))
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise TypeError(f"Could not interpret metric {identifier!r}: expected a name, a Metric "
                    "object or a callable (y_true, y_pred) -> Variable")


def serialize(metric):
    """A JSON-able description `get` turns back into the metric (for checkpoints): the name
    for metrics made from names, `{"class_name", "config"}` for other built-ins."""
    if isinstance(metric, str):
        return metric
    cls = type(metric)
    if cls.__name__ in _CLASSES and _CLASSES[cls.__name__] is cls:
        return {"class_name": cls.__name__, "config": metric.get_config()}
    return metric.name


def deserialize(config, custom_objects=None):
    """The metric `serialize` (or Keras 3) described: a name or `{"class_name", "config"}`;
    names and classes in `custom_objects` come first.

    Args:
        config: a metric name, or a dict with "class_name" and "config" (Keras's "module"
            and "registered_name" keys are ignored).
        custom_objects: {name: Metric class or function} of the user's own metrics.
    Returns:
        A Metric.
    Raises:
        ValueError: an unknown name or class.
        TypeError: neither a name nor such a dict.

    Example:
        >>> import paddle as pd
        >>> m = pd.metrics.deserialize(pd.metrics.serialize(pd.metrics.MeanIoU(num_classes=3)))
        >>> type(m).__name__, m.num_classes
        ('MeanIoU', 3)
    """
    custom = custom_objects or {}
    if isinstance(config, str) and config in custom:
        return get(custom[config])
    if isinstance(config, dict) and config.get("class_name") in custom:
        cls = custom[config["class_name"]]
        if isinstance(cls, type):
            return cls.from_config(config.get("config", {}))
        return get(cls)
    if not isinstance(config, (str, dict)):
        raise TypeError(f"metrics.deserialize: expected a name or a {{'class_name', 'config'}} "
                        f"dict, received {config!r}")
    if isinstance(config, dict) and "class_name" not in config:
        raise ValueError(f"metrics.deserialize: expected a 'class_name' key, received the keys "
                         f"{sorted(config)}")
    return get(config)


# The metrics computed from confusion counts live in their own module (they need it).
from paddle.highlevel.metrics_confusion import (  # noqa: E402
    AUC, F1Score, FBetaScore, Precision, Recall)

_CLASSES.update({c.__name__: c for c in (AUC, F1Score, FBetaScore, Precision, Recall)})
_NAMES.update({"auc": AUC, "precision": Precision, "recall": Recall, "f1_score": F1Score})

# Keras's metrics namespace holds the loss functions too (the same functions).
from paddle.highlevel.losses import (  # noqa: E402,F401
    binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
    categorical_focal_crossentropy, categorical_hinge, hinge, huber, kl_divergence, log_cosh,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error, poisson, sparse_categorical_crossentropy, squared_hinge)
from paddle.highlevel.metrics_losses import (  # noqa: E402
    BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge, Hinge,
    SparseCategoricalCrossentropy, SquaredHinge)
from paddle.highlevel.metrics_regression import (  # noqa: E402
    ConcordanceCorrelation, PearsonCorrelation, R2Score, RootMeanSquaredError, Sum,
    concordance_correlation, pearson_correlation)

_LOSS_AND_REGRESSION = (BinaryCrossentropy, CategoricalCrossentropy,
                        SparseCategoricalCrossentropy, Hinge, SquaredHinge, CategoricalHinge,
                        RootMeanSquaredError, Sum, R2Score, PearsonCorrelation,
                        ConcordanceCorrelation)
_CLASSES.update({c.__name__: c for c in _LOSS_AND_REGRESSION})
_NAMES.update({losses._snake(c.__name__): c for c in _LOSS_AND_REGRESSION
               if c not in (Sum, R2Score)})
_NAMES.update({"bce": BinaryCrossentropy, "r2_score": R2Score})
from paddle.highlevel.metrics_thresholds import (  # noqa: E402
    FalseNegatives, FalsePositives, PrecisionAtRecall, RecallAtPrecision,
    SensitivityAtSpecificity, SpecificityAtSensitivity, TrueNegatives, TruePositives)
from paddle.highlevel.metrics_iou import (  # noqa: E402
    BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU)

_COUNTS_AND_IOU = (TruePositives, FalsePositives, TrueNegatives, FalseNegatives,
                   PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity,
                   SpecificityAtSensitivity, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU)
_CLASSES.update({c.__name__: c for c in _COUNTS_AND_IOU})
# Keras's names for the four counts (the others need arguments: no name builds them)
_NAMES.update({losses._snake(c.__name__): c for c in _COUNTS_AND_IOU[:4]})


# The serialization code finds this family's classes by name here (it imports no family).
_register_family("keras.metrics", globals())
