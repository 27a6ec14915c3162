"""Knowledge distillation (Keras 3's `keras.distillation`): a `Distiller` model trains a
student against the labels and a frozen teacher, through compile/fit, with distillation
losses that compare the teacher's outputs (or an inner layer's) with the student's:
`LogitsDistillation`, `FeatureDistillation`, or a `DistillationLoss` of one's own.

The total loss of a step is `student_loss_weight * student_loss + (1 -
student_loss_weight) * sum(weight_i * distillation_loss_i)`, as Keras computes it; `fit`'s
logs carry `student_loss`, `distillation_loss` and `total_loss` beside `loss`.

Example:
    >>> import numpy as np, paddle as pd
    >>> teacher = pd.Sequential([pd.Input((4,)), pd.layers.Dense(3)])
    >>> student = pd.Sequential([pd.Input((4,)), pd.layers.Dense(3)])
    >>> distiller = pd.distillation.Distiller(
    ...     teacher, student, pd.distillation.LogitsDistillation(temperature=2.0))
    >>> distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    >>> h = distiller.fit(np.ones((4, 4), "float32"), np.zeros(4, "int32"), verbose=0)
    >>> sorted(h.history)
    ['distillation_loss', 'loss', 'student_loss', 'total_loss']
"""
import numbers

from paddle import tree
from paddle.highlevel import losses as losses_module
from paddle.highlevel.metrics import Mean
from paddle.highlevel.models.model import Model
from paddle.highlevel.models.sequential import Sequential
from paddle.highlevel.saving.registry import register_family
from paddle.highlevel.saving.serialization import (deserialize_keras_object,
                                                   serialize_keras_object)
from paddle.lowlevel.ops.activations import softmax
from paddle.lowlevel.ops.reduce import mean, sum as reduce_sum
from paddle.lowlevel.ops.shape import stack


def _loss_function(item, owner):
    """Keras's `_convert_loss_to_function`: a name becomes Keras's loss *function* of that
    name (per-sample values; so `"kl_divergence"` is not a `KLDivergence` instance, and
    LogitsDistillation's softmax-and-temperature-squared path is taken only for an
    instance, as in Keras); anything else is kept."""
    if item is None or not isinstance(item, str):
        return item
    try:
        found = losses_module.get(item)
    except ValueError as e:
        raise ValueError(f"{owner}: unknown loss {item!r} ({e})") from None
    return getattr(losses_module, found.name, found)


def _losses(loss, owner):
    converted = tree.map_structure(lambda item: _loss_function(item, owner), loss)
    if all(item is None for item in tree.flatten(converted)):
        raise ValueError(f"{owner}: expected at least one loss that is not None, received "
                         f"{loss!r}")
    for item in tree.flatten(converted):
        if item is not None and not callable(item):
            raise ValueError(f"{owner}: expected losses as names or callables (y_true, "
                             f"y_pred), received {item!r}")
    return converted


def _total(values):
    """The sum of a structure's losses (numbers or scalar Variables), as Keras's
    `ops.sum(ops.stack(flat))`."""
    flat = tree.flatten(values)
    variables = [v for v in flat if not isinstance(v, numbers.Number)]
    if not variables:
        return float(sum(flat))
    like = variables[0]
    return reduce_sum(stack([v if not isinstance(v, numbers.Number) else like * 0.0 + v
                             for v in flat]))


def _serialized_loss(loss):
    """A loss as Keras 3 writes it in a distillation loss's config: a loss function (what a
    name became) as Keras's function entry, a Loss by its config."""
    if loss is None:
        return None
    if isinstance(loss, losses_module.Loss):
        return losses_module.serialize(loss)
    return {"module": "builtins", "class_name": "function",
            "config": getattr(loss, "__name__", str(loss)), "registered_name": "function"}


def _deserialized_loss(entry):
    if isinstance(entry, dict) and entry.get("class_name") == "function":
        return entry.get("config")  # a loss function, by its name
    if isinstance(entry, dict):
        return losses_module.deserialize(entry)
    return entry


def _loss_entries(losses):
    """The losses of a config: a single entry (a dict) or a list or dict of them."""
    if isinstance(losses, dict) and "class_name" in losses:
        return _deserialized_loss(losses)
    if isinstance(losses, (list, tuple)):
        return [_loss_entries(item) for item in losses]
    if isinstance(losses, dict):
        return {k: _loss_entries(v) for k, v in losses.items()}
    return _deserialized_loss(losses)


class DistillationLoss:
    """Base class of the distillation losses: `compute_loss(teacher_outputs,
    student_outputs)` returns a scalar; `validate_outputs` and
    `validate_model_compatibility` check the pair (Keras 3's
    `keras.distillation.DistillationLoss`).

    Example:
        >>> import paddle as pd
        >>> class L1(pd.distillation.DistillationLoss):
        ...     def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        ...         return pd.mean(pd.abs(teacher_outputs - student_outputs))
        >>> t = pd.constant([[1.0, 2.0]]); s = pd.constant([[0.0, 2.0]])
        >>> float(pd.eval(L1().compute_loss(t, s)))
        0.5
    """

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: subclasses of DistillationLoss "
                                  "implement compute_loss")

    def validate_outputs(self, teacher_outputs, student_outputs):
        """Raise ValueError when the two outputs differ in structure."""
        tree.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher, student):
        """Raise ValueError when this loss cannot work on the two models (nothing here)."""


class LogitsDistillation(DistillationLoss):
    """The distillation loss of the final outputs (logits) divided by `temperature`.

    A `pd.losses.KLDivergence` instance compares the softmax of both, times
    `temperature ** 2`; any other loss (a name, such as the default "kl_divergence", is
    Keras's loss function of that name) compares the scaled logits themselves, as Keras 3
    does. A structure of losses matches a model of several outputs (None skips one).

    Args:
        temperature: a number > 0 (3.0).
        loss: a loss name, a loss, or a structure of them ("kl_divergence").

    Raises:
        ValueError: a temperature that is not a number > 0, every loss None, an unknown
            loss name.

    Example:
        >>> import paddle as pd
        >>> kd = pd.distillation.LogitsDistillation(
        ...     temperature=2.0, loss=pd.losses.KLDivergence())
        >>> t = pd.constant([[2.0, 0.0]]); s = pd.constant([[0.0, 0.0]])
        >>> round(float(pd.eval(kd.compute_loss(t, s))), 4)
        0.4438
    """

    def __init__(self, temperature=3.0, loss="kl_divergence"):
        if not isinstance(temperature, (int, float)) or isinstance(temperature, bool):
            raise ValueError(f"LogitsDistillation: expected temperature to be a number, "
                             f"received {temperature!r}")
        if not temperature > 0:
            raise ValueError(f"LogitsDistillation: expected temperature > 0, received "
                             f"{temperature!r}")
        self.temperature = temperature
        self._loss_arg = loss
        self.loss = _losses(loss, "LogitsDistillation")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        t = self.temperature

        def one(loss_fn, teacher, student):
            if loss_fn is None:
                return 0.0
            if isinstance(loss_fn, losses_module.KLDivergence):
                value = mean(loss_fn(softmax(teacher, axis=-1), softmax(student, axis=-1)))
                return value * float(t ** 2)
            return mean(loss_fn(teacher, student))
        scaled = [tree.map_structure(lambda x: x / float(t), o)
                  for o in (teacher_outputs, student_outputs)]
        return _total(tree.map_structure(one, self.loss, *scaled))

    def get_config(self):
        return {"temperature": self.temperature,
                "loss": tree.map_structure(_serialized_loss, self.loss)}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = _loss_entries(config.get("loss", "kl_divergence"))
        return cls(**config)


class FeatureDistillation(DistillationLoss):
    """The distillation loss of features: an inner layer's outputs of the teacher
    (`teacher_layer_name`) against the student's (`student_layer_name`), or the final
    outputs when the names are None; the mean of `loss` over them.

    Args:
        loss: a loss name, a loss, or a structure of them ("mse").
        teacher_layer_name, student_layer_name: layer names, or None for the output.

    Raises:
        ValueError: every loss None, an unknown loss name; at the Distiller, a layer name
            the model does not have, or names on a model without symbolic inputs.

    Example:
        >>> import paddle as pd
        >>> fd = pd.distillation.FeatureDistillation(loss="mae")
        >>> t = pd.constant([[1.0, 2.0]]); s = pd.constant([[0.0, 4.0]])
        >>> float(pd.eval(fd.compute_loss(t, s)))
        1.5
    """

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None):
        for arg, value in (("teacher_layer_name", teacher_layer_name),
                           ("student_layer_name", student_layer_name)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"FeatureDistillation: expected {arg} to be a layer name or "
                                 f"None, received {value!r}")
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self._loss_arg = loss
        self.loss = _losses(loss, "FeatureDistillation")

    def validate_model_compatibility(self, teacher, student):
        if self.teacher_layer_name is None and self.student_layer_name is None:
            return
        missing = [role for role, m in (("teacher", teacher), ("student", student))
                   if getattr(m, "inputs", None) is None]
        if missing:
            raise ValueError(f"FeatureDistillation with layer names needs Functional or "
                             f"Sequential models; the {' and '.join(missing)} model has no "
                             "symbolic inputs (a subclassed model): distill the final "
                             "outputs (no layer names) or use LogitsDistillation")
        for role, model, name in (("teacher", teacher, self.teacher_layer_name),
                                  ("student", student, self.student_layer_name)):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as e:
                    raise ValueError(f"FeatureDistillation: in the {role} model: {e}") from None

    def validate_outputs(self, teacher_outputs, student_outputs):
        super().validate_outputs(teacher_outputs, student_outputs)
        try:
            tree.assert_same_structure(self.loss, teacher_outputs)
        except ValueError as e:
            raise ValueError(f"FeatureDistillation: the losses {self._loss_arg!r} do not match "
                             f"the structure of the outputs ({e})") from None

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        def one(loss_fn, teacher, student):
            return 0.0 if loss_fn is None else mean(loss_fn(teacher, student))
        return _total(tree.map_structure(one, self.loss, teacher_outputs, student_outputs))

    def get_config(self):
        return {"loss": tree.map_structure(_serialized_loss, self.loss),
                "teacher_layer_name": self.teacher_layer_name,
                "student_layer_name": self.student_layer_name}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = _loss_entries(config.get("loss", "mse"))
        return cls(**config)


def _check_compatible(teacher, student):
    """Keras's checks: both models, inputs and outputs of compatible shapes and equal
    dtypes (where the models have symbolic ones)."""
    for role, model in (("teacher", teacher), ("student", student)):
        if not isinstance(model, Model):
            raise ValueError(f"Distiller: expected the {role} to be a pd.Model, received "
                             f"{type(model).__name__}")
    for what in ("inputs", "outputs"):
        ts, ss = getattr(teacher, what, None), getattr(student, what, None)
        if ts is None or ss is None:
            continue
        if len(ts) != len(ss):
            raise ValueError(f"Distiller: the teacher has {len(ts)} {what}, the student "
                             f"{len(ss)}")
        for t, s in zip(ts, ss):
            if len(t.shape) != len(s.shape) or any(
                    a is not None and b is not None and a != b for a, b in zip(t.shape, s.shape)):
                raise ValueError(f"Distiller: teacher and student {what[:-1]} shapes are "
                                 f"incompatible: teacher {tuple(t.shape)}, student "
                                 f"{tuple(s.shape)}")
            if t.dtype != s.dtype:
                raise ValueError(f"Distiller: teacher and student {what[:-1]} dtypes must "
                                 f"match: teacher {t.dtype}, student {s.dtype}")


class Distiller(Model):
    """A model that trains `student` against the labels and the frozen `teacher`
    (Keras 3's `keras.distillation.Distiller`). Compile it with the student's loss;
    `distiller.student` is the trained model.

    Args:
        teacher: a trained pd.Model (made non-trainable here).
        student: the pd.Model to train; its inputs and outputs must match the teacher's in
            shape and dtype.
        distillation_losses: a DistillationLoss or a list of them.
        distillation_loss_weights: a weight per loss (1.0 each by default).
        student_loss_weight: in [0, 1] (0.5): the share of the labels' loss.
        name: "distiller".

    Raises:
        ValueError: models that are not pd.Models or do not match; distillation_losses
            None; weights of another count; student_loss_weight outside [0, 1];
            compile() without a loss.

    Example:
        >>> import numpy as np, paddle as pd
        >>> teacher = pd.Sequential([pd.Input((2,)), pd.layers.Dense(2, name="t")])
        >>> student = pd.Sequential([pd.Input((2,)), pd.layers.Dense(2, name="s")])
        >>> d = pd.distillation.Distiller(
        ...     teacher, student, [pd.distillation.LogitsDistillation(),
        ...                        pd.distillation.FeatureDistillation(
        ...                            teacher_layer_name="t", student_layer_name="s")],
        ...     distillation_loss_weights=[1.0, 0.5], student_loss_weight=0.3)
        >>> teacher.trainable, len(d.trainable_weights)
        (False, 2)
    """

    def __init__(self, teacher, student, distillation_losses, distillation_loss_weights=None,
                 student_loss_weight=0.5, name="distiller", **kwargs):
        super().__init__(name=name, **kwargs)
        _check_compatible(teacher, student)
        self.teacher, self.student = teacher, student
        if not isinstance(student_loss_weight, (int, float)) or \
                isinstance(student_loss_weight, bool):
            raise ValueError(f"Distiller: expected student_loss_weight to be a number, "
                             f"received {student_loss_weight!r}")
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(f"Distiller: expected student_loss_weight in [0, 1], received "
                             f"{student_loss_weight!r}")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError("Distiller: distillation_losses cannot be None; give a "
                             "DistillationLoss (LogitsDistillation, FeatureDistillation) or "
                             "a list of them")
        if not isinstance(distillation_losses, (list, tuple)):
            losses, weights = [distillation_losses], [1.0]
        else:
            losses = list(distillation_losses)
            weights = [1.0] * len(losses) if distillation_loss_weights is None else \
                list(distillation_loss_weights)
            if len(weights) != len(losses):
                raise ValueError(f"Distiller: {len(weights)} distillation_loss_weights for "
                                 f"{len(losses)} distillation_losses; expected one each")
        for loss in losses:
            if not isinstance(loss, DistillationLoss):
                raise ValueError(f"Distiller: expected DistillationLoss objects in "
                                 f"distillation_losses, received {loss!r}")
            loss.validate_model_compatibility(teacher, student)
        self.distillation_losses, self.distillation_loss_weights = losses, weights
        self._teacher_features = self._extractor(teacher, "teacher_layer_name")
        self._student_features = self._extractor(student, "student_layer_name")
        self.teacher.trainable = False
        self.student_loss_tracker = Mean(name="student_loss")
        self.distillation_loss_tracker = Mean(name="distillation_loss")
        self.total_loss_tracker = Mean(name="total_loss")

    def _extractor(self, model, attribute):
        """A model giving {"final_output", layer name: output} of the layers the losses
        name, or None when none names one."""
        names = []
        for loss in self.distillation_losses:
            name = getattr(loss, attribute, None)
            if name and name not in names:
                names.append(name)
        if not names:
            return None
        final = model.layers[-1].output if isinstance(model, Sequential) else model.output
        outputs = {"final_output": final}
        outputs.update({n: model.get_layer(name=n).output for n in names})
        return Model(inputs=model.inputs, outputs=outputs,
                     name=f"{model.name}_multi_feature_extractor")

    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs):
        """Compile with the student's loss (needed) and metrics (a list)."""
        if loss is None:
            raise ValueError("Distiller.compile: expected the student's loss, received None")
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"Distiller.compile: expected metrics as a list or tuple, "
                             f"received {type(metrics).__name__}")
        self._student_loss = _losses(loss, "Distiller.compile")
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None):
        return self.student(inputs, training=training)

    @property
    def metrics(self):
        return super().metrics + [self.student_loss_tracker, self.distillation_loss_tracker,
                                  self.total_loss_tracker]

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        for metric in super().metrics:  # the compiled ones; the trackers follow the losses
            if metric is not self._loss_tracker:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            values = tree.flatten(tree.map_structure(lambda fn, t, p: fn(t, p),
                                                     self._student_loss, y, y_pred))
            student_loss = _total(values) if len(values) > 1 else values[0]
            if len(student_loss.shape) > 0:
                student_loss = mean(student_loss)
        distillation_loss = 0.0
        if self.student_loss_weight < 1.0:
            teacher = self._teacher_features(x, training=False) \
                if self._teacher_features is not None else \
                {"final_output": self.teacher(x, training=False)}
            student = self._student_features(x, training=True) \
                if self._student_features is not None else {"final_output": y_pred}
            for loss, weight in zip(self.distillation_losses, self.distillation_loss_weights):
                if getattr(loss, "teacher_layer_name", None) is not None:
                    pair = (teacher[loss.teacher_layer_name],
                            student[getattr(loss, "student_layer_name", None) or
                                    "final_output"])
                else:
                    pair = (teacher["final_output"], y_pred)
                loss.validate_outputs(*pair)
                value = loss.compute_loss(*pair)
                if len(getattr(value, "shape", ())) > 0:
                    raise ValueError(f"Distiller: {type(loss).__name__}.compute_loss returned "
                                     f"a loss of shape {tuple(value.shape)}; expected a scalar")
                distillation_loss = distillation_loss + value * float(weight)
        total = student_loss * float(self.student_loss_weight) + \
            distillation_loss * (1.0 - float(self.student_loss_weight))
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation_loss)
        self.total_loss_tracker.update_state(total)
        return total

    def get_config(self):
        """Keras's config: the teacher's and student's, the distillation losses', their
        weights and the student's loss weight."""
        return {"name": self.name, "teacher": serialize_keras_object(self.teacher),
                "student": serialize_keras_object(self.student),
                "distillation_losses": [serialize_keras_object(loss)
                                        for loss in self.distillation_losses],
                "distillation_loss_weights": list(self.distillation_loss_weights),
                "student_loss_weight": self.student_loss_weight}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("teacher", "student"):
            config[key] = deserialize_keras_object(config[key], custom_objects)
        config["distillation_losses"] = [deserialize_keras_object(c, custom_objects)
                                         for c in config["distillation_losses"]]
        return cls(**{k: v for k, v in config.items() if k in (
            "name", "teacher", "student", "distillation_losses", "distillation_loss_weights",
            "student_loss_weight")})


register_family("keras.distillation", globals())
