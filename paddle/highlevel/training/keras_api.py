"""Keras 3's Model attributes around the training loop (mixed into `Trainable`):
`predict_step`, the `make_*_function` / `*_function` one-step functions, the compile
settings paddle accepts for Keras's sake (`run_eagerly`, `jit_compile`,
`steps_per_execution`), compile and build configs, `get_metrics_result`,
`metrics_variables`, `input_shape` / `output_shape`.

How paddle treats Keras's execution settings: every step (a built-in one or an overridden
`train_step` / `test_step` / `predict_step`) is traced once into a graph and run as one
compiled plan per batch, whatever they say.

- `run_eagerly=True` is accepted and kept (`model.run_eagerly`), but steps are still
  traced: Python inside `train_step` runs once, at the trace, not per batch.
- `jit_compile` is accepted and kept; there is no XLA: "auto" reads as False.
- `steps_per_execution` (an int >= 1) is accepted and kept; each batch is still one run
  and batch callbacks are called for every batch (Keras calls them every N batches).

Example:
    >>> import numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2)])
    >>> model.compile("sgd", "mse", metrics=["mae"], steps_per_execution=4)
    >>> model.input_shape, model.output_shape, model.steps_per_execution
    ((None, 3), (None, 2), 4)
    >>> _ = model.evaluate(np.zeros((4, 3)), np.zeros((4, 2)), verbose=0)
    >>> model.get_metrics_result()
    {'loss': 0.0, 'mae': 0.0}
"""
import numbers

import numpy as np

from paddle.lowlevel.graph import Variable
from paddle.highlevel.saving.formats import saving
from paddle.highlevel.training.step import Step, _unpack_batch, trace_step


class KerasTrainingAPI:
    """Keras 3's Model attributes that paddle's models get from this mixin."""

    @property
    def train_function(self):
        """The function `make_train_function` made (None before)."""
        return self.__dict__.get("_train_function")

    @train_function.setter
    def train_function(self, value):
        self.__dict__["_train_function"] = value

    @property
    def test_function(self):
        """The function `make_test_function` made (None before)."""
        return self.__dict__.get("_test_function")

    @test_function.setter
    def test_function(self, value):
        self.__dict__["_test_function"] = value

    @property
    def predict_function(self):
        """The function `make_predict_function` made (None before)."""
        return self.__dict__.get("_predict_function")

    @predict_function.setter
    def predict_function(self, value):
        self.__dict__["_predict_function"] = value

    # ---- execution settings (compile's Keras-only arguments) ----------------------------

    def _set_execution(self, run_eagerly, steps_per_execution, jit_compile, auto_scale_loss):
        """Check and keep compile's execution arguments (see the module docstring)."""
        for name, value in (("run_eagerly", run_eagerly),
                            ("auto_scale_loss", auto_scale_loss)):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"compile: expected {name} to be True or False, received "
                                 f"{value!r}")
        if jit_compile != "auto" and not isinstance(jit_compile, (bool, np.bool_)):
            raise ValueError(f"compile: expected jit_compile to be True, False or 'auto', "
                             f"received {jit_compile!r}")
        if not isinstance(steps_per_execution, numbers.Integral) or \
                isinstance(steps_per_execution, bool) or steps_per_execution < 1:
            raise ValueError(f"compile: expected steps_per_execution to be an integer >= 1, "
                             f"received {steps_per_execution!r}")
        self.run_eagerly = bool(run_eagerly)
        self.jit_compile = False if jit_compile == "auto" else bool(jit_compile)
        self.steps_per_execution = int(steps_per_execution)
        self.auto_scale_loss = bool(auto_scale_loss)
        self.train_function = self.test_function = self.predict_function = None

    run_eagerly = False
    jit_compile = False
    steps_per_execution = 1

    # ---- shapes and configs -------------------------------------------------------------

    @property
    def input_shape(self):
        """The shape of the model's input (a list of shapes for several inputs), with
        None for the batch, as Keras 3's functional models.

        Raises:
            AttributeError: a subclassed model that has not been called yet.
        """
        return self._shapes("inputs", "input_shape")

    @property
    def output_shape(self):
        """The shape of the model's output (a list of shapes for several outputs)."""
        return self._shapes("outputs", "output_shape")

    def _shapes(self, attr, what):
        values = getattr(self, attr, None)
        if not values:
            raise AttributeError(f"{self.name}: the model has no defined {what} (a "
                                 "subclassed model gets it once called or fitted)")
        shapes = [tuple(v.shape) for v in values]
        return shapes[0] if len(shapes) == 1 else shapes

    def get_build_config(self):
        """`{"input_shape": ...}` of a model with known inputs (as Keras 3), None before."""
        if getattr(self, "inputs", None):
            return {"input_shape": self.input_shape}
        return super().get_build_config()

    def get_compile_config(self):
        """compile's arguments in Keras 3's form (`model.compile_from_config` and Keras's
        `compile_config` of a `.keras` file); {} before compile.

        Example:
            >>> import paddle as pd
            >>> model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(1)])
            >>> model.compile(pd.optimizers.SGD(0.5), "mse")
            >>> config = model.get_compile_config()
            >>> config["loss"], config["optimizer"]["config"]["learning_rate"]
            ('mse', 0.5)
            >>> twin = pd.models.clone_model(model)
            >>> twin.compile_from_config(config)
            >>> type(twin.optimizer).__name__, twin.optimizer.learning_rate
            ('SGD', 0.5)
        """
        if not getattr(self, "compiled", False) or self.optimizer is None:
            return {}
        config = saving("compile_config")(self)
        config.update(run_eagerly=self.run_eagerly,
                      steps_per_execution=self.steps_per_execution,
                      jit_compile=self.jit_compile)
        return config

    def compile_from_config(self, config):
        """Compile with `get_compile_config()`'s dict (Keras 3's `compile_config`).

        Raises:
            ValueError: config is not such a dict.
        """
        if not isinstance(config, dict) or "optimizer" not in config:
            raise ValueError(f"{self.name}: compile_from_config expected the dict of "
                             f"get_compile_config() (with 'optimizer'), received {config!r}")
        kwargs = saving("compile_args_from_config")(self, config)
        if isinstance(config.get("loss"), str):  # a name stays a name, as in Keras
            kwargs["loss"] = config["loss"]
        for key, default in (("run_eagerly", False), ("steps_per_execution", 1),
                             ("jit_compile", "auto")):
            value = config.get(key)
            kwargs[key] = default if value is None else value
        self.compile(**kwargs)

    # ---- metrics ------------------------------------------------------------------------

    def get_metrics_result(self):
        """`{name: value}` of every metric in `model.metrics` as it stands (their running
        results, as floats or NumPy arrays), as Keras 3: a metric whose result is a dict
        adds its entries."""
        found = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                found.update((k, _value(v)) for k, v in result.items())
            else:
                found[metric.name] = _value(result)
        return found

    @property
    def metrics_variables(self):
        """The state Variables of `model.metrics` (those made by `add_variable`; paddle's
        built-in metrics keep their state in Python and have none)."""
        return [v for m in self.metrics for v in getattr(m, "variables", [])]

    # ---- predict_step and the one-step functions ----------------------------------------

    def predict_step(self, data):
        """One prediction step (what `predict` runs): `self(x, training=False)` for a
        batch `data` (`x`, or `(x, y, sample_weight)` whose x is used). Override it to
        change what `predict` returns: it is traced once on data Variables shaped like the
        batch and may return a Variable, a list or tuple, or a dict of them; `predict`
        concatenates each over the batches.

        Example:
            >>> import numpy as np, paddle as pd
            >>> class WithArgmax(pd.Model):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.dense = pd.layers.Dense(3)
            ...     def call(self, x):
            ...         return self.dense(x)
            ...     def predict_step(self, data):
            ...         scores = self(data, training=False)
            ...         return {"scores": scores, "label": pd.argmax(scores, axis=-1)}
            >>> out = WithArgmax().predict(np.ones((5, 2), np.float32), batch_size=2)
            >>> out["scores"].shape, out["label"].shape
            ((5, 3), (5,))
        """
        x, _, _ = _unpack_batch(data)
        return self(x, training=False)

    def _build_custom_predict(self, x):
        """Trace the user's predict_step once on data Variables shaped like the batch."""
        xs, out, _, _ = trace_step(self, "predict", x)
        flat, rebuild = _flatten(out, self.name)
        return Step(xs, flat, False), {"rebuild": rebuild}

    def make_train_function(self, force=False):
        """`self.train_function`: one training step on one batch, made once (again with
        `force=True`). It takes a batch, `(x, y)` or `(x, y, sample_weight)`, or an
        iterator of them (the next batch is taken, as Keras's TensorFlow backend), and
        returns the logs dict (`train_on_batch(..., return_dict=True)`). `fit` runs its own
        loop and does not call it.

        Example:
            >>> import numpy as np, paddle as pd
            >>> model = pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> step = model.make_train_function()
            >>> sorted(step((np.ones((4, 2)), np.zeros((4, 1)))))
            ['loss']
        """
        if self.train_function is None or force:
            self.train_function = _OneStep(self, "train")
        return self.train_function

    def make_test_function(self, force=False):
        """`self.test_function`: `test_on_batch(..., return_dict=True)` on a batch or the
        next batch of an iterator (see make_train_function)."""
        if self.test_function is None or force:
            self.test_function = _OneStep(self, "test")
        return self.test_function

    def make_predict_function(self, force=False):
        """`self.predict_function`: `predict_on_batch` on `x`, a batch `(x, ...)` or the
        next batch of an iterator (see make_train_function)."""
        if self.predict_function is None or force:
            self.predict_function = _OneStep(self, "predict")
        return self.predict_function


class _OneStep:
    """A model's one-batch function of make_*_function."""

    def __init__(self, model, kind):
        self.model, self.kind = model, kind

    def __call__(self, batch):
        if hasattr(batch, "__next__"):
            try:
                batch = next(batch)
            except StopIteration:
                raise ValueError(f"{self.model.name}: {self.kind}_function received an "
                                 "exhausted iterator") from None
        model = self.model
        if self.kind == "predict":
            x = batch[0] if isinstance(batch, tuple) else batch
            return model.predict_on_batch(x)
        if not isinstance(batch, tuple) or not 1 <= len(batch) <= 3:
            raise ValueError(f"{model.name}: {self.kind}_function expected a batch (x, y) or "
                             f"(x, y, sample_weight), received {type(batch).__name__}")
        x, y, sw = (tuple(batch) + (None, None))[:3]
        if self.kind == "train":
            return model.train_on_batch(x, y, sample_weight=sw, return_dict=True)
        return model.test_on_batch(x, y, sample_weight=sw, return_dict=True)

    def __repr__(self):
        return f"<{self.kind}_function of {self.model.name!r}>"


def _value(result):
    """A metric's result as a float (a scalar) or a NumPy array."""
    if isinstance(result, Variable):
        result = result.numpy()
    array = np.asarray(result)
    return float(array) if array.ndim == 0 else array


def _flatten(out, owner):
    """The Variables of predict_step's result and a function rebuilding its structure
    from the arrays predicted for them."""
    if isinstance(out, Variable):
        return [out], lambda arrays: arrays[0]
    if isinstance(out, (list, tuple)) and out and all(isinstance(v, Variable) for v in out):
        kind = type(out)
        return list(out), lambda arrays: kind(arrays) if kind is tuple else list(arrays)
    if isinstance(out, dict) and out and all(isinstance(v, Variable) for v in out.values()):
        keys = list(out)
        return [out[k] for k in keys], lambda arrays: dict(zip(keys, arrays))
    raise TypeError(f"{owner}: predict_step must return a Variable, or a non-empty list, "
                    f"tuple or dict of Variables, received {out!r}")
