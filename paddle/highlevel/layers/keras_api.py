"""Keras 3's layer attributes around the core of `Layer` (mixed into it): dtypes, `path`,
build configs, per-layer variable stores, metric variables and the retired `add_metric`.

`variable_dtype` is the layer's `dtype` (its weights'), `compute_dtype` and `input_dtype`
its policy's compute dtype: the half type under "mixed_float16"/"mixed_bfloat16".

Example:
    >>> import paddle as pd
    >>> dense = pd.layers.Dense(3, name="keras_api_dense")
    >>> _ = dense(pd.Input(shape=(4,)))
    >>> dense.compute_dtype, dense.variable_dtype, dense.path
    ('float32', 'float32', 'keras_api_dense')
    >>> dense.get_build_config()
    {'input_shape': (None, 4)}
"""
import functools
import inspect

import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel import stored_state
from paddle.lowlevel.executor import eval as run
from paddle.lowlevel.graph import NAMES, Variable, data
from paddle.lowlevel.strings import feed_dtype
from paddle.highlevel.layers.remat import remat
from paddle.highlevel.saving.registry import family_namespace


class KerasLayerAPI:
    """Keras 3's Layer attributes that paddle's layers get from this mixin."""

    # Whether a direct `layer.build(shape)` marks the layer built (Keras's build wrapper);
    # models keep their own notion of built (a traced graph).
    _build_marks_built = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "build" in cls.__dict__ and cls._build_marks_built:
            cls.build = _marking_built(cls.__dict__["build"])

    def _mark_built(self, input_shape):
        """What follows a build: built, the build's input shape (for get_build_config),
        the regularizers and constraints of the weights it made."""
        self.built = True
        self._build_input_shape = input_shape
        self._regularize_built_weights()

    @property
    def compute_dtype(self):
        """The dtype the layer computes in: its policy's (float16 under "mixed_float16",
        else its `dtype`)."""
        policy = getattr(self, "dtype_policy", None)
        return policy.compute_dtype if policy is not None and \
            policy.compute_dtype != policy.variable_dtype else self.dtype

    @property
    def variable_dtype(self):
        """The dtype of the layer's weights: its `dtype`."""
        return self.dtype

    @property
    def input_dtype(self):
        """The dtype float inputs are cast to: its `compute_dtype` (integer inputs of a
        float layer are cast too, as Keras does; Embedding keeps integer ids)."""
        return self.compute_dtype

    @property
    def path(self):
        """The layer's name with the `pd.namespace` prefix its weights were created under
        (`"block/dense"`); its weights are named `path + "/kernel"`. Keras 3 prefixes the
        enclosing model's name instead (`"sequential/dense"`)."""
        weights = getattr(self, "_weights", None)
        if weights:
            return weights[0].name.rsplit("/", 1)[0]
        return NAMES.full(self.name)

    # ---- build configs ------------------------------------------------------------------

    def get_build_config(self):
        """`{"input_shape": shape}` of the first build (a list of shapes for several
        inputs), or None before the layer is built, as Keras 3.

        Example:
            >>> import paddle as pd
            >>> layer = pd.layers.Dense(2)
            >>> layer.get_build_config() is None
            True
            >>> fresh = pd.layers.Dense(2)
            >>> _ = layer(pd.Input(shape=(5,)))
            >>> fresh.build_from_config(layer.get_build_config())
            >>> fresh.built, fresh.kernel.shape
            (True, (5, 2))
        """
        shape = getattr(self, "_build_input_shape", None)
        if not self.built or shape is None:
            return None
        return {"input_shape": shape}

    def build_from_config(self, config):
        """Build the layer (create its weights) from `get_build_config()`'s dict.

        Raises:
            ValueError: config is not a dict with an "input_shape".
        """
        if not isinstance(config, dict):
            raise ValueError(f"{self.name}: build_from_config expected a dict with "
                             f"'input_shape', received {config!r}")
        if self.built or not config:
            return
        if "input_shape" not in config:
            raise ValueError(f"{self.name}: build_from_config expected the key "
                             f"'input_shape', received {sorted(config)}")
        shape = config["input_shape"]
        shape = [tuple(s) for s in shape] if shape and isinstance(shape[0], (list, tuple)) \
            else tuple(shape)
        self.build(shape)
        if not self.built:  # a build that does not mark it (a model's)
            self._mark_built(shape)

    # ---- variables one layer owns -------------------------------------------------------

    def _own_variables(self):
        """The layer's own weights (not its sublayers'), created-trainable first, as
        Keras 3 stores them."""
        own = getattr(self, "_weights", [])
        return [w for w in own if w._layer_trainable] + \
            [w for w in own if not w._layer_trainable]

    def save_own_variables(self, store):
        """Write the layer's own weights into `store` (a dict-like) under "0", "1", ...,
        as Keras 3 does for `model.weights.h5`.

        Example:
            >>> import paddle as pd
            >>> layer = pd.layers.Dense(2)
            >>> _ = layer(pd.Input(shape=(3,)))
            >>> store = {}
            >>> layer.save_own_variables(store)
            >>> {k: v.shape for k, v in store.items()}
            {'0': (3, 2), '1': (2,)}
        """
        for i, w in enumerate(self._own_variables()):
            store[str(i)] = np.array(w.val())

    def load_own_variables(self, store):
        """Set the layer's own weights from `store` ("0", "1", ... as
        `save_own_variables` writes them).

        Raises:
            ValueError: the store holds another number of weights (as Keras 3).
            ShapeError: an array of another shape.
        """
        own = self._own_variables()
        if len(store.keys()) != len(own):
            if not own and not self.built:
                raise ValueError(f"Layer '{self.name}' was never built and thus it doesn't "
                                 f"have any variables. However the weights file lists "
                                 f"{len(store.keys())} variables for this layer.")
            raise ValueError(f"Layer '{self.name}' expected {len(own)} variables, but "
                             f"received {len(store.keys())} variables during loading. "
                             f"Expected: {[w.name for w in own]}")
        for i, w in enumerate(own):
            value = np.asarray(store[str(i)])
            if value.shape != w.shape:
                raise ShapeError(f"{self.name}: load_own_variables: {w.name!r} has shape "
                                 f"{w.shape}, the store's entry {i} has shape {value.shape}")
            w.set_value(value)

    # ---- metrics ------------------------------------------------------------------------

    @property
    def metrics(self):
        """The metric objects this layer holds as attributes (alone or in lists), then its
        sublayers', as Keras 3's `Layer.metrics`. (A model's are its compiled metrics.)

        Example:
            >>> import paddle as pd
            >>> class Tracked(pd.layers.Layer):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.seen = pd.metrics.Mean(name="seen")
            ...     def call(self, x):
            ...         return x
            >>> [m.name for m in Tracked().metrics]
            ['seen']
        """
        metric = family_namespace("keras.metrics").get("Metric")  # metrics sit above layers
        found = []
        if metric is None:
            return found
        for value in vars(self).values():
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(item, metric) and all(item is not m for m in found):
                    found.append(item)
        for layer in self._sublayers():
            found.extend(m for m in layer.metrics if all(m is not f for f in found))
        return found

    @property
    def metrics_variables(self):
        """The state Variables of `layer.metrics` (those of `add_variable`; paddle's
        built-in metrics keep their state in Python and have none)."""
        return [v for m in self.metrics for v in getattr(m, "variables", [])]

    # ---- introspection and symbolic calls (Keras 3's Operation API) ---------------------

    # Keras 3 sets it True on every layer; a model can be jit-compiled when all its layers
    # say so. paddle compiles every call into a plan, so it is True unless a layer sets it.
    supports_jit = True

    @property
    def call_signature_parameters(self):
        """The names of `call`'s parameters, as Keras 3 lists them.

        Example:
            >>> import paddle as pd
            >>> class Scale(pd.layers.Layer):
            ...     def call(self, inputs, training=None, mask=None):
            ...         return inputs
            >>> Scale().call_signature_parameters
            ['inputs', 'training', 'mask']
        """
        return list(inspect.signature(self.call).parameters)

    def compute_output_spec(self, *args, **kwargs):
        """The symbolic outputs (paddle's KerasTensors: graph Variables with shape and
        dtype) of a call on symbolic inputs; arrays and objects with `shape` and `dtype`
        stand for inputs of that shape. The layer is built by it, as in Keras.

        Example:
            >>> import paddle as pd
            >>> spec = pd.layers.Dense(2).compute_output_spec(pd.Input(shape=(3,)))
            >>> spec.shape, spec.dtype
            ((None, 2), 'float32')
        """
        args, kwargs = _symbolic(args, f"{self.name}.compute_output_spec"), \
            dict(zip(kwargs, _symbolic(kwargs.values(), self.name)))
        return self(*args, **kwargs)

    def symbolic_call(self, *args, **kwargs):
        """A call on symbolic inputs, recorded in the layer's graph (Keras 3's
        `symbolic_call`): the outputs of `compute_output_spec`."""
        return self.compute_output_spec(*args, **kwargs)

    def rematerialized_call(self, layer_call, *args, **kwargs):
        """`layer_call` or its `pd.remat` form, as Keras 3 chooses it from the RematScope
        the layer was made in: "full" rematerializes every call, "activations" the layer's
        `activation`, "larger_than" calls whose outputs have more elements than the
        threshold, "list_of_layers" the named layers. paddle computes the same values and
        keeps the activations (see paddle/highlevel/layers/remat.py).

        Example:
            >>> import numpy as np, paddle as pd
            >>> with pd.RematScope(mode="full"):
            ...     dense = pd.layers.Dense(2, kernel_initializer="ones")
            >>> x = np.ones((1, 3), "float32")
            >>> _ = dense(x)
            >>> dense.rematerialized_call(dense.call, x)(x).numpy().tolist()
            [[3.0, 3.0]]
        """
        mode = getattr(self, "_remat_mode", None)
        if not mode:
            return layer_call
        if mode.mode == "full":
            return remat(layer_call)
        if mode.mode == "activations":
            if getattr(self, "activation", None) is None:
                return layer_call

            @functools.wraps(layer_call)
            def with_remat_activation(*call_args, **call_kwargs):
                original = self.activation
                self.activation = remat(original)
                try:
                    return layer_call(*call_args, **call_kwargs)
                finally:
                    self.activation = original
            return with_remat_activation
        if mode.mode == "list_of_layers":
            return remat(layer_call) if self.name in mode.layer_names else layer_call
        if mode.mode == "larger_than":
            outputs = self.compute_output_spec(*args, **kwargs)
            flat = outputs if isinstance(outputs, (list, tuple)) else \
                list(outputs.values()) if isinstance(outputs, dict) else [outputs]
            size = sum(int(np.prod([d or 1 for d in v.shape])) for v in flat
                       if isinstance(v, Variable))
            if size and size > mode.output_size_threshold:
                return remat(layer_call)
        return layer_call

    def add_metric(self, *args, **kwargs):
        """Retired in Keras 3, which raises as here: add metrics in `compile(metrics=...)`
        or keep metric objects in the layer and call their `update_state`."""
        raise NotImplementedError(
            "Layer `add_metric()` method is deprecated. Add your metric in "
            "`Model.compile(metrics=[...])`, or create metric trackers in init() or build() "
            "when subclassing the layer or model, then call `metric.update_state()` "
            "whenever necessary.")

    # ---- the stateless API (Keras 3's, for functional training loops) -------------------

    def stateless_call(self, trainable_variables, non_trainable_variables, *args,
                       return_losses=False, **kwargs):
        """Call the layer on NumPy inputs with the given weight values instead of its own,
        leaving its own untouched, as Keras 3's `stateless_call`.

        Args:
            trainable_variables: arrays, one per `layer.trainable_variables`, in order.
            non_trainable_variables: arrays, one per `layer.non_trainable_variables`.
            *args: the inputs (NumPy arrays: the call computes values); a list or tuple of
                arrays for several inputs.
            return_losses: also return the values of the losses the call adds
                (`add_loss`, activity regularizers).
            **kwargs: the call's keyword arguments (`training=True`, ...).

        Returns:
            `(outputs, non_trainable_variables)`: the outputs and the non-trainable
            values after the call (a BatchNormalization's moving statistics move under
            `training=True`); with `return_losses`, `(outputs, non_trainable_variables,
            losses)`.

        Raises:
            ValueError: a list of values whose length or shapes do not match the layer's
                variables (the layer must be built).
            TypeError: symbolic inputs (a stateless call computes values).

        Example:
            >>> import numpy as np, paddle as pd
            >>> dense = pd.layers.Dense(2, kernel_initializer="ones")
            >>> _ = dense(np.zeros((1, 3), "float32"))
            >>> kernel, bias = np.full((3, 2), 2.0, "float32"), np.zeros(2, "float32")
            >>> out, _ = dense.stateless_call([kernel, bias], [], np.ones((1, 3), "float32"))
            >>> out.tolist(), dense.kernel.val()[0].tolist()
            ([[6.0, 6.0]], [1.0, 1.0])
        """
        where = f"{self.name}.stateless_call"
        owned = list(self.trainable_variables), list(self.non_trainable_variables)
        given = []
        for values, variables, what in ((trainable_variables, owned[0], "trainable"),
                                        (non_trainable_variables, owned[1], "non-trainable")):
            values = list(values)
            if len(values) != len(variables):
                raise ValueError(f"{where}: expected {len(variables)} {what} values (one per "
                                 f"layer.{what.replace('-', '_')}_variables), received "
                                 f"{len(values)}")
            for value, var in zip(values, variables):
                value = np.asarray(value)
                if value.shape != tuple(var.shape):
                    raise ValueError(f"{where}: expected a value of shape {var.shape} for "
                                     f"{var.name}, received shape {value.shape}")
                given.append((var, value))
        if len(args) != 1:
            raise TypeError(f"{where}: expected the inputs as one argument (a list for "
                            f"several inputs), received {len(args)} arguments")
        inputs = args[0]
        flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if any(isinstance(x, Variable) for x in flat):
            raise TypeError(f"{where}: expected NumPy inputs (a stateless call computes "
                            f"values), received a symbolic Variable")
        flat = [np.asarray(x) for x in flat]
        outputs, losses = self._stateless_graph(flat, isinstance(inputs, (list, tuple)),
                                                kwargs)
        feeds = dict(zip(outputs[0], flat))
        with stored_state.LOCK:  # nobody sees the borrowed values
            saved = [(var, var.val()) for var, _ in given]
            try:
                for var, value in given:
                    var.set_value(value)
                values = run([outputs[1]] + losses, feeds,
                             training=bool(kwargs.get("training", False)))
                after = [v.val() for v in owned[1]]
            finally:
                for var, value in saved:
                    var.set_value(value)
        result = (values[0], after)
        return result + (list(values[1:]),) if return_losses else result

    def _stateless_graph(self, flat, listed, kwargs):
        """((data inputs, outputs), losses) of the layer called on data inputs shaped as
        `flat`, built once per input signature and keyword arguments."""
        cache = self.__dict__.setdefault("_stateless", {})
        key = (tuple((a.shape[1:], a.dtype.str) for a in flat), repr(sorted(kwargs.items())))
        if key not in cache:
            names = [data(f"{self.name}_stateless_in{i}", (None,) + a.shape[1:],
                          feed_dtype(a, self.dtype)) for i, a in enumerate(flat)]
            out = self(names if listed else names[0], **kwargs)
            cache[key] = ((names, out), list(self.losses))
        return cache[key]


def _symbolic(values, where):
    """Each value as a symbolic input: a Variable as it is, an array (or anything with
    `shape` and `dtype`) as a graph input of its shape and dtype, other values (None,
    flags, lists of them) unchanged."""
    out = []
    for value in values:
        if isinstance(value, (list, tuple)):
            out.append(type(value)(_symbolic(value, where)))
        elif isinstance(value, dict):
            out.append(dict(zip(value, _symbolic(value.values(), where))))
        elif isinstance(value, Variable) or not (hasattr(value, "shape") and
                                                 hasattr(value, "dtype")):
            out.append(value)
        else:
            out.append(data(f"{where}_spec", tuple(value.shape), np.dtype(value.dtype).name))
    return out


def _marking_built(build):
    """`build` that marks the layer built once the outermost build returns (a subclass's
    build calling `super().build(...)` is one build), as Keras 3 wraps every build: a
    layer built by a direct call (`layer.build((None, 8))`, or with extra arguments, as
    Keras's customizing-saving guide does) is not built again by its first call."""
    @functools.wraps(build)
    def wrapper(self, *args, **kwargs):
        depth = self.__dict__.get("_build_depth", 0)
        self.__dict__["_build_depth"] = depth + 1
        try:
            result = build(self, *args, **kwargs)
        finally:
            self.__dict__["_build_depth"] = depth
        if depth == 0 and not self.built:
            self._mark_built(kwargs.get("input_shape", args[0] if args else None))
        return result
    return wrapper
