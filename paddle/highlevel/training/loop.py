"""compile / fit / evaluate / predict, run as compiled plans of the low level.

The first batch of a kind (train, test, predict) builds a step: data inputs for the
targets and sample weights, the loss and metric Variables, the optimizer's update op,
and the low-level plan for all of them. Every later batch is one `plan.run`: the graph,
the plan and its buffers are built once, not per batch.

One path for every step: the built-in step and a model's own `train_step` / `test_step`
(through `compute_loss`) assemble the loss in one method (`_total_loss`); a model's own
step methods are traced by one tracer (`step.trace_step`); every step runs as a
`step.Step`; the data comes through one adapter (`data.adapt`).

Example:
    >>> import numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> x = np.ones((8, 3), np.float32); y = np.zeros((8, 1), np.float32)
    >>> history = model.fit(x, y, epochs=2, verbose=0)
    >>> len(history.history["loss"])
    2
"""
import inspect

import numpy as np

from paddle import _settings as settings
from paddle import distributed
from paddle.distributed import training as distributed_training
from paddle.lowlevel import optimizers
from paddle.lowlevel.loss_scale import LossScaleOptimizer
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.graph import Variable, building_scope, data
from paddle.highlevel import losses as losses_module
from paddle.highlevel import metrics as metrics_module
from paddle.highlevel.callbacks import CallbackList
from paddle.highlevel.training.data import adapt
from paddle.highlevel.training.data.arrays import (
    ArrayData, as_arrays, as_list, check_samples, class_weights_for, positive_int,
    sample_weights)
from paddle.highlevel.training.checks import (
    check_input, check_text, _check_label_range, _check_not_empty, _check_whole_labels,
    _target_name)
from paddle.highlevel.training.keras_api import KerasTrainingAPI
from paddle.highlevel.training.step import (
    Step, _check_step_logs, _custom_logs, _CustomLogs, _data_inputs, _plus, _split_logs,
    _unpack_batch, _variables, masked_weights, trace_step)



METRIC_ARGS = ("metrics", "weighted_metrics")  # compile arguments holding metric lists

def _capped(epochs, steps_per_epoch):
    """`fit`'s epochs and steps per epoch under `pd.config.set_max_epochs` and
    `set_max_steps_per_epoch` (caps for quick runs of long programs, as Keras's)."""
    cap = settings.max_epochs()
    if cap is not None:
        epochs = min(epochs, cap)
    cap = settings.max_steps_per_epoch()
    if cap is not None:
        steps_per_epoch = cap if steps_per_epoch is None else min(steps_per_epoch, cap)
    return epochs, steps_per_epoch

class Trainable(KerasTrainingAPI):
    """The training half of Model (mixed in; Model provides `graph()` and weights).

    Custom training: a subclassed model may define `train_step(self, data)`, where `data`
    holds Variables (`x`, or `(x, y)`). Build losses and update ops in it with
    `self.optimizer.minimize(...)` or optimizers of its own, and return a dict of scalar
    Variables: they become the logs. It is traced once; fit and callbacks work unchanged.
    """

    def __init__(self):
        self.optimizer = None
        self.compiled = False
        self.stop_training = False
        self.history = None
        self._steps = {}
        self._ones = {}

    # ---- compile ------------------------------------------------------------------------

    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True):
        """Choose the optimizer, the loss(es) and the metrics for training.

        The arguments come in Keras 3's order (`loss_weights` before `metrics`).

        Args:
            optimizer: a name ('sgd', 'adam', 'adamw', 'rmsprop', 'adagrad') or an optimizer.
            loss: a name, a `pd.losses` object, a callable `(y_true, y_pred) -> Variable`,
                or a list (in output order) or a dict (by output name, see
                `output_names`) of those for several outputs; an output given None, or
                left out of the dict, has no loss.
            loss_weights: list/dict of floats weighting each output's loss (1 where a dict
                leaves an output out).
            metrics: list of names ('accuracy', 'mae', 'mse', 'top_k_categorical_accuracy')
                or `pd.metrics` objects, applied to every output; or, for several outputs,
                a list of such lists (one per output) or a dict by output name of a metric
                or a list of them. Several outputs log `<output name>_<metric name>`.
            weighted_metrics: metrics in the same forms, updated with the sample weights
                (`sample_weight` and `class_weight` of `fit`/`evaluate`) as Keras's: a
                name also in `metrics` is logged as `weighted_<name>`.
            auto_scale_loss: under the "mixed_float16" policy, wrap the optimizer in a
                `pd.optimizers.LossScaleOptimizer` (as Keras does).
            run_eagerly, steps_per_execution, jit_compile: Keras's
                execution settings, checked and kept as attributes; paddle runs every
                step as one compiled plan per batch whatever they say (see
                paddle/highlevel/training/keras_api.py).
        """
        if isinstance(metrics, str):
            metrics = [metrics]  # not its characters
        # Unknown names fail here, listing the valid ones, rather than at the first batch.
        for spec in _leaves(loss):
            losses_module.get(spec)
        if isinstance(weighted_metrics, str):
            weighted_metrics = [weighted_metrics]
        for spec in _leaves(metrics) + _leaves(weighted_metrics):
            metrics_module.get(spec)
        for w in _leaves(loss_weights):
            if not isinstance(w, (int, float, np.integer, np.floating)) or isinstance(w, bool):
                raise ValueError(f"compile: expected loss_weights as numbers (a list or a dict "
                                 f"by output), received {loss_weights!r}")
        if getattr(self, "functional", False):  # names are known: check the dicts' keys now
            names = self.output_names
            for value, what in ((loss, "losses"), (metrics, "metrics"),
                                (weighted_metrics, "weighted_metrics"),
                                (loss_weights, "loss_weights")):
                self._per_output(value, names, what)
        self.optimizer = optimizers.get(optimizer)
        self._loss_arg, self._metrics_arg, self._loss_weights_arg = loss, metrics, loss_weights
        self._weighted_metrics_arg = weighted_metrics
        # loss=None is Keras's "the model's add_loss values are the loss": a model with
        # neither fails when its first step is built, saying so.
        self._steps = {}
        self._metric_cache = {}
        self._loss_tracker = metrics_module.Mean(name="loss")
        self._set_execution(run_eagerly, steps_per_execution, jit_compile, auto_scale_loss)
        policy = getattr(self, "dtype_policy", None)
        if self.auto_scale_loss and policy is not None and policy.name == "mixed_float16" \
                and not isinstance(self.optimizer, LossScaleOptimizer):
            # Keras's Model.compile: float16 gradients need the loss scaled
            self.optimizer = LossScaleOptimizer(self.optimizer)
        self.compiled = True

    @property
    def loss(self):
        """The loss given to `compile` (Keras's `model.loss`); None before compile.

        Example:
            >>> import paddle as pd
            >>> model = pd.Sequential([pd.Input((2,)), pd.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> model.loss
            'mse'
        """
        return self.__dict__.get("_loss_arg")

    @loss.setter
    def loss(self, value):
        self._loss_arg = value
        self._steps = {}  # the steps built with the old loss are stale

    def _per_output(self, value, names, what):
        """One entry per output from a compile argument: a dict by output name (missing
        outputs get None), a list in output order, or one value for every output."""
        if isinstance(value, dict):
            unknown = [k for k in value if k not in names]
            if unknown:
                raise ValueError(f"compile: {what} for unknown outputs {unknown}; the "
                                 f"outputs are {names}")
            found = [value.get(n) for n in names]
            if what in METRIC_ARGS:  # {"out": "mae"} is {"out": ["mae"]}
                found = [[m] if m is not None and not isinstance(m, (list, tuple)) else m
                         for m in found]
            return found
        if what in METRIC_ARGS:
            if value is None:
                return [None] * len(names)
            nested = [m for m in value if isinstance(m, (list, tuple)) or m is None]
            if len(names) > 1 and nested:  # [[...], [...]]: one list per output (Keras 3)
                if len(nested) != len(value) or len(value) != len(names):
                    raise ValueError(f"compile: {what} as a list of lists needs one list per "
                                     f"output ({len(names)} outputs: {names}), received "
                                     f"{value!r}")
                return list(value)
            if len(names) == 1 and nested:
                raise ValueError(f"compile: expected {what} as a list of metrics for the one "
                                 f"output {names}, received {value!r}")
            return [list(value)] * len(names)
        if isinstance(value, (list, tuple)):
            if len(value) != len(names):
                raise ValueError(f"compile: {len(value)} {what} for {len(names)} outputs "
                                 f"{names}")
            return list(value)
        return [value] * len(names)

    def _output_names(self, outputs):
        names = self.output_names
        return names if len(names) == len(outputs) else [f"output_{i}" for i in
                                                         range(len(outputs))]

    def _data_names(self):
        """(input names, output names) that dicts of arrays are ordered by (None: unknown)."""
        if not getattr(self, "functional", False):
            return None, None
        return self.input_names, self.output_names

    # ---- building steps -----------------------------------------------------------------

    def _targets_for(self, outputs, y):
        if y and len(y) != len(outputs):
            raise ValueError(f"{self.name}: the model has {len(outputs)} outputs but "
                             f"{len(y)} target arrays were given")
        return [data(f"target_{i}", (None,) + a.shape[1:],
                     "int64" if a.dtype.kind in "iu" else o.dtype)
                for i, (a, o) in enumerate(zip(y, outputs))]

    def _loss_terms(self, ys, outputs, sw):
        names = self._output_names(outputs)
        losses = [losses_module.get(l) if l is not None else None
                  for l in self._per_output(self._loss_arg, names, "losses")]
        weights = self._per_output(self._loss_weights_arg, names, "loss_weights") \
            if self._loss_weights_arg is not None else [1.0] * len(outputs)
        weights = [1.0 if w is None else w for w in weights]
        terms = []
        for name, loss, w, yt, yp in zip(names, losses, weights, ys, outputs):
            if loss is not None:
                weight = masked_weights(yp, sw, mean=True)
                terms.append((f"{name}_loss", loss(yt, yp, sample_weight=weight), w))
        if not terms:
            raise ValueError("compile: no output has a loss")
        total = None
        for _, t, w in terms:
            t = t * float(w) if w != 1.0 else t
            total = t if total is None else total + t
        return total, terms, losses

    def _losses_computable_from(self, known):
        """The model's `losses` (add_loss values, regularization penalties) that a graph
        fed by the data Variables `known` computes: those of other traces (another mode's
        graph, an eager call) read inputs it does not have."""
        fed = {id(v) for v in known}
        return [loss for loss in self._losses_of_graph(fed)
                if all(id(v) in fed for v in _data_inputs(loss))]

    def _metric_objects(self, outputs, losses, ys=None):
        """[(label, metric, output index, weighted)] of the compiled metrics, then the
        weighted metrics (Keras's order and names)."""
        names = self._output_names(outputs)
        if ys:  # an output without a loss: "accuracy" is picked from the shapes (Keras 3)
            losses = [loss if loss is not None else _loss_like(y, o)
                      for loss, y, o in zip(losses, ys, outputs)]
        found, labels = [], set()
        cache = self.__dict__.setdefault("_metric_cache", {})
        for weighted, arg in ((False, self._metrics_arg),
                              (True, getattr(self, "_weighted_metrics_arg", None))):
            what = "weighted_metrics" if weighted else "metrics"
            per_output = self._per_output(arg, names, what) if arg is not None else \
                [None] * len(outputs)
            for k, (name, spec, loss) in enumerate(zip(names, per_output, losses)):
                for j, m in enumerate(spec or []):
                    # One object per compiled metric, shared by every step and model.metrics.
                    key = (k, j, _loss_key(loss)) + (("weighted",) if weighted else ())
                    if key not in cache:
                        cache[key] = metrics_module.get(m, loss=loss)
                    metric = cache[key]
                    prefix = "" if len(outputs) == 1 else f"{name}_"
                    label = prefix + metric.name
                    if weighted and label in labels:
                        label = f"{prefix}weighted_{metric.name}"
                    labels.add(label)
                    found.append((label, metric, k, weighted))
        return found

    # ---- the custom-training API (Keras 3's) --------------------------------------------

    @property
    def metrics_names(self):
        """The names of the values `evaluate` returns, in its order ("loss", then each
        output's loss and each metric), once the model has been evaluated; before, the
        names of `metrics`. So `dict(zip(model.metrics_names, model.evaluate(...)))` names
        every value (Keras 3 lists its metric containers here: ['loss', 'compile_metrics']).

        Example:
            >>> import numpy as np, paddle as pd
            >>> model = pd.Sequential([pd.Input((2,)), pd.layers.Dense(1)])
            >>> model.compile("sgd", "mse", metrics=["mae"])
            >>> _ = model.evaluate(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0)
            >>> model.metrics_names
            ['loss', 'mae']
        """
        names = getattr(self, "_result_names", None)
        return list(names) if names else [m.name for m in self.metrics]

    @property
    def metrics(self):
        """Keras's `model.metrics`: the compiled loss tracker (a `Mean` named "loss") and
        the compiled metrics, as Metric objects. `fit` resets them at the start of every
        epoch and `evaluate` at its start; a model may override this property to list
        metrics of its own (they are reset the same way). Empty before compile."""
        if not getattr(self, "compiled", False):
            return []
        found = [self._loss_tracker]
        if self._metrics_arg is not None or self._weighted_metrics_arg is not None:
            outputs = self.outputs if self.functional else [None]
            losses = [losses_module.get(l) if l is not None else None for l in
                      self._per_output(self._loss_arg, self._names_for(outputs), "losses")]
            found += [m for _, m, _, _ in self._metric_objects_for(outputs, losses)]
        return found

    def _names_for(self, outputs):
        return self._output_names(outputs) if outputs != [None] else ["output_0"]

    def _metric_objects_for(self, outputs, losses):
        if outputs != [None]:
            return self._metric_objects(outputs, losses)
        return self._metric_objects(["output_0"], losses)

    def reset_metrics(self):
        """reset_state() on every metric of `model.metrics`."""
        for metric in self.metrics:
            if not hasattr(metric, "reset_state"):
                raise TypeError(f"{self.name}: model.metrics must hold Metric objects, "
                                f"found {metric!r}")
            metric.reset_state()

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of `y_pred` against `y`, plus the model's `losses` (add_loss
        values, regularization penalties) that this graph computes, as a scalar Variable:
        Keras 3's `compute_loss`, for a custom train_step / test_step.

        Args:
            x: the inputs (their add_loss values count; optional).
            y, y_pred: targets and predictions, Variables (lists for several outputs).
            sample_weight: a (batch,) Variable of weights, or None.
            training: kept for Keras's signature.

        Example:
            >>> import numpy as np, paddle as pd
            >>> class Net(pd.Model):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.dense = pd.layers.Dense(1)
            ...     def call(self, x):
            ...         return self.dense(x)
            ...     def train_step(self, data):
            ...         x, y = data
            ...         loss = self.compute_loss(y=y, y_pred=self(x, training=True))
            ...         ws = self.trainable_variables
            ...         self.optimizer.apply(pd.gradients(loss, ws), ws)  # GradientTape's part
            ...         return {"loss": loss}
            >>> net = Net(); net.compile(optimizer="sgd", loss="mse")
            >>> h = net.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32),
            ...             epochs=2, verbose=0)
            >>> sorted(h.history)
            ['loss']
        """
        if not getattr(self, "compiled", False):
            raise ValueError(f"{self.name}: call compile() before compute_loss()")
        preds, ys = _variables(y_pred, "y_pred"), _variables(y, "y")
        if sample_weight is not None and not isinstance(sample_weight, Variable):
            raise TypeError(f"compute_loss: expected sample_weight as a Variable or None, "
                            f"received {type(sample_weight).__name__}")
        if self._loss_arg is not None:
            if not preds or not ys:
                raise ValueError("compute_loss: y and y_pred are needed for the compiled loss")
            if len(ys) != len(preds):
                raise ValueError(f"compute_loss: {len(ys)} targets for {len(preds)} "
                                 "predictions")
        known = [d for v in _variables(x, "x") + ys + preds +
                 ([sample_weight] if sample_weight is not None else []) for d in _data_inputs(v)]
        total, _, _ = self._total_loss(
            ys, preds, sample_weight, known,
            f"{self.name}: compute_loss has no loss to compute: compile a loss, or add one "
            "with add_loss")
        return total

    def _total_loss(self, ys, outputs, sw, known, nothing):
        """(total, terms, losses): the compiled loss of `outputs` against `ys` (the weighted
        sum of its terms), plus the model's `losses` that a graph fed by the data Variables
        `known` computes. The one loss assembly of the built-in step and `compute_loss`;
        ValueError `nothing` when there is no loss at all."""
        if self._loss_arg is not None:
            with building_scope("loss"):  # how profiles name these ops
                total, terms, losses = self._loss_terms(ys, outputs, sw)
        else:
            total, terms, losses = None, [], [None] * len(outputs)
        extra = self._losses_computable_from(known)
        if total is None:
            if not extra:
                raise ValueError(nothing)
            total, extra = extra[0], extra[1:]
        return _plus(total, extra), terms, losses

    def _compute_loss(self, x, y, y_pred, sample_weight, training):
        """`compute_loss`, an override's included: Keras 3's steps call it positionally and
        pass `training` only to an override that takes it (the argument came in Keras
        3.3, and overrides written before, as the knowledge distillation example's, lack
        it)."""
        if "training" in inspect.signature(self.compute_loss).parameters:
            return self.compute_loss(x, y, y_pred, sample_weight, training=training)
        return self.compute_loss(x, y, y_pred, sample_weight)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics (not the loss tracker) and return
        `{name: result}` of every metric in `model.metrics` (Keras 3's)."""
        for metric in self.metrics:
            if metric is not self._loss_tracker:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def train_step(self, data):
        """One training step as Keras 3 writes it (what `super().train_step(data)` runs in
        an override): forward, `compute_loss`, `pd.gradients` (TensorFlow's GradientTape),
        `optimizer.apply`, then the metrics. `fit` itself runs an equivalent built-in step
        unless a subclass overrides this method."""
        x, y, sample_weight = _unpack_batch(data)
        y_pred = self(x, training=True)
        loss = self._compute_loss(x, y, y_pred, sample_weight, training=True)
        variables = [w for w in self.trainable_variables
                     if w in set(optimizers.trainable_parameters(loss))]
        if variables:
            self.optimizer.apply(gradients(loss, variables), variables)
        self._loss_tracker.update_state(loss)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        """One evaluation step as Keras 3 writes it (for `super().test_step(data)`)."""
        x, y, sample_weight = _unpack_batch(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(x, y, y_pred, sample_weight, training=False)
        self._loss_tracker.update_state(loss)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def _build_step(self, kind, x, y, weighted=False):
        # An overridden compute_loss is used by Keras's own steps (the model's train_step
        # and test_step), which then run as a traced custom step: as Keras, also when
        # compile() was given no loss.
        if kind in ("train", "test") and (_overrides(self, f"{kind}_step")
                                          or _overrides(self, "compute_loss")):
            return self._build_custom_step(kind, x, y, weighted)
        if kind == "predict" and _overrides(self, "predict_step"):
            return self._build_custom_predict(x)
        inputs, outputs = self.graph(training=kind == "train", example=x)
        if len(x) != len(inputs):
            raise ValueError(f"{self.name}: the model has {len(inputs)} inputs but {len(x)} "
                             "input arrays were given")
        for v, a in zip(inputs, x):  # once per input signature: the step is cached
            check_input(self, v, a.shape)
            check_text(self, v, a)
        if kind == "predict":
            return Step(inputs, list(outputs), False), {}
        ys = self._targets_for(outputs, y)
        sw = data("sample_weight", (None,), "float32")
        feeds = list(inputs) + ys + [sw]
        if self._loss_arg is not None and not ys:
            raise ValueError(f"{self.name}: targets (y) are needed to compute the loss")
        total, terms, losses = self._total_loss(
            ys, outputs, sw, feeds, f"{self.name}: nothing to minimize: compile a loss, or add "
            "one with add_loss in the model's layers")
        metrics = self._metric_objects(outputs, losses, ys)
        fetches = [total] + ([t for _, t, _ in terms] if len(terms) > 1 else [])
        layout = {"loss_names": [n for n, _, _ in terms] if len(terms) > 1 else [],
                  "metrics": [],
                  "integer_targets": [(k, loss.name, outputs[k].shape)
                                      for k, loss in enumerate(losses)
                                      if loss is not None and loss.integer_targets]}
        for label, metric, k, weighted in metrics:
            mask = masked_weights(outputs[k], sw if weighted else None, mean=False)
            if metric._python_state:
                values = metric.batch_values(ys[k], outputs[k]) if mask is None else \
                    metric.batch_values(ys[k], outputs[k], sample_weight=mask)
            else:  # Keras's add_variable metric: its assignments run with the step
                with optimizers.collect_updates() as values:
                    metric.update_state(ys[k], outputs[k],
                                        masked_weights(outputs[k], sw, mean=False))
            layout["metrics"].append((label, metric, len(values)))
            fetches.extend(values)
        if kind == "train":
            if self.optimizer is None:
                raise ValueError(f"{self.name}: compile the model before training it")
            # Only weights the loss reaches: an output without a loss has none to give, and a
            # frozen model trains nothing (as in Keras) rather than failing.
            reached = {id(v) for v in optimizers.trainable_parameters(total)}
            var_list = [w for w in self.trainable_weights if id(w) in reached]
            if var_list:
                with building_scope("optimizer"):
                    fetches.append(self.optimizer.minimize(total, var_list=var_list))
        return Step(feeds, fetches, kind == "train"), layout

    def _build_custom_step(self, kind, x, y, weighted):
        """Trace the user's train_step (or test_step) once on data Variables shaped like
        the batch. Logs that read the batch are fetched with the step; logs that read only
        metric state (`metric.result()`) are computed after the batch is folded in."""
        feeds, logs, updates, trace = trace_step(self, kind, x, y, weighted)
        logs = _check_step_logs(self, logs, f"{kind}_step")
        placeholders = [ph for _, ph in trace.results.values()]
        per_batch, after = _split_logs(self, logs, feeds, placeholders, f"{kind}_step",
                                       trace.assigned)
        folded = [v for _, values in trace.updates for v in values]
        main = Step(feeds, [logs[k] for k in per_batch] + folded + updates, kind == "train")
        post = None
        if after:
            read = {id(v) for k in after for v in _data_inputs(logs[k])}
            fed = [(m, ph) for m, ph in trace.results.values() if id(ph) in read]
            post = (Step([ph for _, ph in fed], [logs[k] for k in after], False),
                    [m for m, _ in fed])
        return main, {"custom": per_batch, "after": after, "order": list(logs), "post": post,
                      "fold": [(m, len(values)) for m, values in trace.updates]}

    def _step(self, kind, x, y, weighted=False):
        key = (kind, tuple((a.shape[1:], a.dtype.kind) for a in x),
               tuple((a.shape[1:], a.dtype.kind) for a in y), weighted)
        found = self._steps.get(key)
        if found is None:
            if kind != "predict" and not self.compiled:
                raise ValueError(f"{self.name}: call compile() before {kind}ing the model")
            found = self._steps[key] = self._build_step(kind, x, y, weighted)
        return found

    def _sample_weights(self, n, sw, y, class_weight):
        if class_weight is not None:
            if not y:
                raise ValueError("class_weight needs targets (y)")
            cw = class_weights_for(y[0], class_weight)
            return cw if sw is None else cw * sw
        if sw is not None:
            return sw
        ones = self._ones.get(n)
        if ones is None:
            ones = self._ones[n] = np.ones(n, np.float32)
        return ones

    def _integer_targets(self):
        """[(target index, loss name, output shape)] of the outputs whose compiled loss takes
        class labels, or [] when the outputs are not known before a first batch (a
        subclassed model)."""
        outputs = getattr(self, "outputs", None)
        if not outputs or self._loss_arg is None:
            return []
        names = self._output_names(outputs)
        losses = [losses_module.get(l) if l is not None else None
                  for l in self._per_output(self._loss_arg, names, "losses")]
        return [(k, loss.name, outputs[k].shape) for k, loss in enumerate(losses)
                if loss is not None and loss.integer_targets]

    def _check_class_labels(self, source, what="y"):
        """Every class label of in-memory data, once, before the first step: an error gives
        the position in the user's own array (a batch's would be shuffled)."""
        if not isinstance(source, ArrayData) or not source.y:
            return
        for k, loss_name, shape in self._integer_targets():
            if k < len(source.y):
                target = what if len(source.y) == 1 else f"{what}[{k}]"
                _check_label_range(source.y[k], target, loss_name, shape)

    # ---- one batch ----------------------------------------------------------------------

    def _run_batch(self, kind, x, y, sw=None, class_weight=None):
        """Run one batch; returns what a _Tracker turns into logs."""
        if x:
            check_samples(x, y)
            _check_not_empty(x, kind)
            if sw is not None and sw.shape != (len(x[0]),):  # (1,) would broadcast to all
                raise ValueError(f"sample_weight: expected shape ({len(x[0])},), received "
                                 f"{sw.shape}")
        weighted = sw is not None or class_weight is not None
        step, layout = self._step(kind, x, y, weighted and _overrides(self, f"{kind}_step"))
        for k, loss_name, shape in layout.get("integer_targets", ()):
            _check_whole_labels(y[k], k, loss_name)
            _check_label_range(y[k], _target_name(k, len(y)), loss_name, shape,
                               " in this batch")
        n = len(x[0])
        values = step(x + y + [self._sample_weights(n, sw, y, class_weight)])
        if "custom" in layout:
            return _custom_logs(layout, values)
        return values, n, layout

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One optimizer step on one batch; returns the loss (and metrics) of that batch."""
        x, y = self._batch_arrays(x, y)
        logs = _Tracker().add(self._run_batch("train", x, y, _weights(sample_weight),
                                              class_weight))
        return _batch_result(logs, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss and metrics of one batch, in inference mode."""
        x, y = self._batch_arrays(x, y)
        logs = _Tracker().add(self._run_batch("test", x, y, _weights(sample_weight)))
        return _batch_result(logs, return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as NumPy arrays (a list for several outputs,
        a dict for outputs given as a dict)."""
        x, _ = self._batch_arrays(x, None)
        if x:
            check_samples(x, [])
            _check_not_empty(x, "predict")
        step, layout = self._step("predict", x, [])
        if "rebuild" in layout:
            return layout["rebuild"](step(x))
        return self._structured_arrays(step(x))

    def _batch_arrays(self, x, y):
        # Names only matter for dicts; finding them costs ~10 us, too much per batch.
        names = self._data_names() if isinstance(x, dict) or isinstance(y, dict) \
            else (None, None)
        return _arrays(x, "x", names[0]), _arrays(y, "y", names[1])

    def _structured_arrays(self, out):
        keys = getattr(self, "_output_keys", None)
        if keys and len(keys) == len(out):
            return dict(zip(keys, out))
        return out[0] if len(out) == 1 else out

    # ---- loops --------------------------------------------------------------------------

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        """Train for `epochs` epochs on arrays, a reader creator or an iterable of batches.

        Returns:
            The History callback: `history.history["loss"]` etc., one value per epoch.
        """
        if not self.compiled:
            raise ValueError(f"{self.name}: call compile() before fit()")
        for name, value in (("epochs", epochs), ("initial_epoch", initial_epoch)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"fit: expected {name} to be an integer >= 0, received {value!r}")
        positive_int(validation_freq, "fit: validation_freq", allow_none=False)
        epochs, steps_per_epoch = _capped(epochs, steps_per_epoch)
        n_in = len(self.inputs) if getattr(self, "inputs", None) else 1
        names = self._data_names()
        train = adapt(x, y, sample_weight, batch_size, shuffle, steps_per_epoch,
                                   n_in, names)
        self._check_class_labels(train)  # before the split: positions in the user's y
        val = None
        if validation_split:
            if not isinstance(train, ArrayData):
                raise ValueError("validation_split needs NumPy arrays; pass validation_data")
            train, val = train.split(validation_split)
        elif validation_data is not None:
            vx, vy, vsw = _unpack_batch(validation_data)
            val = adapt(vx, vy, vsw, batch_size if validation_batch_size is None
                                     else validation_batch_size, False, validation_steps, n_in,
                                     names)
            self._check_class_labels(val, "validation_data[1]")
        agreement = None
        if distributed.active():  # shards, averaged logs, one voice (distributed/training.py)
            train, val = distributed_training.for_fit(train, val)
            agreement = distributed_training.Agreement()
        else:
            distributed.world.warn_if_launched_alone()
        cbs = CallbackList(callbacks, model=self, add_history=True, add_progbar=verbose != 0,
                           verbose=verbose, epochs=epochs, steps=train.steps)
        self.stop_training = False
        logs = {}
        self._initial_epoch = initial_epoch  # a callback may move it on (BackupAndRestore)
        cbs.on_train_begin()
        try:
            for epoch in range(self._initial_epoch, epochs):
                cbs.on_epoch_begin(epoch)
                self.reset_metrics()  # as Keras: model.metrics start each epoch afresh
                logs = self._epoch(train, cbs, class_weight, agreement)
                if val is not None and (epoch + 1 - initial_epoch) % validation_freq == 0:
                    val_logs = self._evaluation(val, cbs)
                    if agreement is not None:
                        val_logs = agreement.weighted(val_logs, self._evaluated_samples)
                    logs.update({f"val_{k}": v for k, v in val_logs.items()})
                self._last_finished_epoch = epoch  # set before checkpoints save it
                logs["epoch"] = epoch
                cbs.on_epoch_end(epoch, logs)
                if agreement is not None:
                    self.stop_training = agreement.any(self.stop_training)
                if self.stop_training:
                    break
        finally:
            # Keras 3: with use_ema the weights take their moving averages once fit ends
            # (before on_train_end), if the optimizer has updated them.
            opt = self.optimizer
            if isinstance(opt, optimizers.Optimizer) and epochs > 0 and opt.use_ema:
                weights = self.trainable_weights
                has = {id(v) for v in opt.variables()}  # (== on Variables builds an op)
                if weights and all(id(w) in has for w in weights):
                    opt.finalize_variable_values(weights)
            cbs.on_train_end(logs)
        return cbs.history

    def _epoch(self, train, cbs, class_weight, agreement=None):
        tracker = _Tracker(self._loss_tracker)
        logs = {}
        for step, (xb, yb, swb) in enumerate(train.epoch()):
            cbs.on_train_batch_begin(step)
            result = self._run_batch("train", xb, yb, swb, class_weight)
            self._last_batch = result  # this batch's own values (the logs are epoch means)
            logs = tracker.add(result)
            if agreement is not None:  # every rank's callbacks see the same numbers
                logs, self._last_batch = agreement.batch(logs, result)
            cbs.on_train_batch_end(step, dict(logs, batch=step))
            if agreement is not None:
                self.stop_training = agreement.any(self.stop_training)
            if self.stop_training:
                break
        return dict(logs)

    def _evaluation(self, source, cbs):
        """One evaluation pass (evaluate's, and fit's validation): the on_test_* hooks run
        around it, as Keras runs them in both."""
        cbs.on_test_begin()
        self.reset_metrics()
        logs = {}
        try:
            logs = self._evaluate_data(source, cbs)
        finally:
            cbs.on_test_end(logs)
        return logs

    def _evaluate_data(self, source, cbs=None):
        tracker = _Tracker(self._loss_tracker)
        logs = {}
        for step, (xb, yb, swb) in enumerate(source.epoch()):
            if cbs:
                cbs.on_test_batch_begin(step)
            logs = tracker.add(self._run_batch("test", xb, yb, swb))
            if cbs:
                cbs.on_test_batch_end(step, logs)
        if not logs:
            raise ValueError("evaluate: the data produced no batch")
        self._evaluated_samples = tracker.count
        return dict(logs)

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, return_dict=False):
        """Loss and metrics over the data, in inference mode.

        Returns:
            The loss alone (no metrics), a list [loss, metrics...], or with return_dict a dict.
        """
        if not self.compiled:
            raise ValueError(f"{self.name}: call compile() before evaluate()")
        n_in = len(self.inputs) if getattr(self, "inputs", None) else 1
        source = adapt(x, y, sample_weight, batch_size, False, steps, n_in,
                                    self._data_names())
        self._check_class_labels(source)
        cbs = CallbackList(callbacks, model=self, add_progbar=verbose != 0, verbose=verbose,
                           epochs=1, steps=source.steps)
        logs = self._evaluation(source, cbs)
        self._result_names = list(logs)
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None):
        """The model's outputs for every sample, as NumPy arrays (a list for several).

        Each batch is computed with one complete set of weights, even while another
        thread runs set_weights or fit (docs/security.md, "Threads")."""
        n_in = len(self.inputs) if getattr(self, "inputs", None) else 1
        source = adapt(x, None, None, batch_size, False, steps, n_in,
                                    self._data_names())
        cbs = CallbackList(callbacks, model=self, add_progbar=verbose != 0, verbose=verbose,
                           epochs=1, steps=source.steps)
        cbs.on_predict_begin()
        chunks = []
        try:
            for step, (xb, _, _) in enumerate(source.epoch()):
                cbs.on_predict_batch_begin(step)
                check_samples(xb, [])
                _check_not_empty(xb, "predict")
                step_, layout = self._step("predict", xb, [])
                chunks.append(step_(xb))
                cbs.on_predict_batch_end(step, {"outputs": None})
        finally:
            cbs.on_predict_end()
        if not chunks:
            raise ValueError("predict: the data produced no batch")
        joined = [np.concatenate(parts) for parts in zip(*chunks)]
        if "rebuild" in layout:  # an overridden predict_step's structure
            return layout["rebuild"](joined)
        return self._structured_arrays(joined)


class _Tracker:
    """Running epoch values: sample-weighted means of the loss terms and custom logs, and
    the stateful metrics' results. A built-in step's loss also goes into the model's loss
    tracker (`model.metrics[0]`), as Keras's does (`get_metrics_result`)."""

    def __init__(self, loss_tracker=None):
        self.sums, self.count, self.metrics = {}, 0, {}
        self.loss_tracker = loss_tracker

    def add(self, result):
        if isinstance(result, _CustomLogs):
            # A custom step's logs: per-batch values are averaged over the epoch, metric
            # results (running already) are taken as they are, in the step's order.
            self.count += 1
            for k, v in result.per_batch.items():
                self.sums[k] = self.sums.get(k, 0.0) + v
            means = {k: s / self.count for k, s in self.sums.items()}
            return {k: means[k] if k in means else result.after[k] for k in result.order}
        values, n, layout = result
        self.count += n
        names = ["loss"] + layout["loss_names"]
        out = {}
        for k, v in zip(names, values):
            self.sums[k] = self.sums.get(k, 0.0) + float(v) * n
            out[k] = self.sums[k] / self.count
        if self.loss_tracker is not None:
            self.loss_tracker.accumulate([float(values[0]) * n, float(n)])
        i = len(names)
        for label, metric, count in layout["metrics"]:
            if not metric._python_state:  # its state Variables were updated by the step
                out[label] = metrics_module.result_value(metric)
                i += count
                continue
            if label not in self.metrics:
                metric.reset_state()
                self.metrics[label] = metric
            metric.accumulate([metrics_module.batch_value(v) for v in values[i:i + count]])
            out[label] = metric.result()
            i += count
        return out


def _overrides(obj, method):
    """Whether the model's class defines its own `method` (train_step, ...)."""
    return getattr(type(obj), method, None) is not getattr(Trainable, method, None)


def _loss_key(loss):
    """What a compiled metric depends on in its loss ("accuracy" picks its kind from it)."""
    return loss if loss is None or isinstance(loss, str) else \
        getattr(loss, "name", type(loss).__name__)


def _loss_like(target, output):
    """The loss whose accuracy fits these target and output Variables (Keras 3 picks the
    accuracy by shapes): binary for one output unit, categorical for one-hot targets,
    sparse categorical for class indices."""
    if output.shape and output.shape[-1] == 1:
        return "binary_crossentropy"
    if len(target.shape) == len(output.shape) and target.dtype.startswith("float"):
        return "categorical_crossentropy"
    return "sparse_categorical_crossentropy"


def _leaves(value):
    """The single specs in a compile argument: a name/object, or lists/dicts of them."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [] if value is None else [value]


def _arrays(x, what, names=None):
    if x is None:
        return []
    return as_arrays(as_list(x, names, what), what)


def _weights(sample_weight):
    return sample_weights(sample_weight)


def _batch_result(logs, return_dict):
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values
