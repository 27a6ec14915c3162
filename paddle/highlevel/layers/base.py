"""The Layer base class, its input contract, and `Input`.

A layer is a callable that builds low-level ops: called on a Variable it returns a
Variable, creating its parameters (`add_weight`) under the current namespace the first
time (`build(input_shape)`). Called on concrete values (NumPy arrays, numbers, eager
tensors) it runs at once, op by op, and returns EagerTensors (paddle/lowlevel/eager.py).

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.Dense(3)
    >>> y = layer(pd.layers.Input(shape=(4,)))
    >>> y.shape, [w.shape for w in layer.weights]
    ((None, 3), [(4, 3), (3,)])
    >>> layer(np.ones((2, 4), np.float32)).shape
    (2, 3)
"""
import contextlib
import inspect
import operator
import re
import weakref

import numpy as np

from paddle import _settings as settings
from paddle.devices.half import HALF
from paddle.errors import ShapeError, at_user
from paddle.lowlevel import eager, stored_state
from paddle.lowlevel.graph import (ASSIGNED, FLOATS, NAMES, Variable, apply, as_dtype,
                                   assigned_value, autocast, building_scope, call_inputs,
                                   current_mode, data, forced_mode, in_call)
from paddle.lowlevel.op import OPS
from paddle.lowlevel.optimizers import collect_updates
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.layer_functions import parameter
from paddle.lowlevel.ops.reduce import sum as sum_all
from paddle.highlevel import constraints, dtype_policies, regularizers
from paddle.highlevel.layers import eager_calls, state_updates
from paddle.highlevel.layers.keras_api import KerasLayerAPI
from paddle.highlevel.layers.quantization import Quantizable
from paddle.highlevel.layers.remat import get_current_remat_mode


def check_flag(value, name, layer):
    """`value` as a bool if it is one (or 0 / 1); ValueError naming the layer and the argument
    otherwise: bool('no') is True, so return_sequences='no' silently meant yes."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and
                                              value in (0, 1)):
        return bool(value)
    raise ValueError(f"{layer}: expected {name} to be True or False, received {value!r}")


def passthrough(x):
    """x as a new Variable of the same values (a view, no copy): what a layer that changes
    nothing returns, since a layer's output records the layer that made it and handing back
    its input itself would rewrite the input's history (its producer lost from the model)."""
    if isinstance(x, (list, tuple)):
        return type(x)(passthrough(v) for v in x)
    if isinstance(x, dict):
        return {k: passthrough(v) for k, v in x.items()}
    return apply(OPS["reshape_like"], [x, x])


def snake_case(name):
    """Keras's default layer names: Conv2D -> conv2d, Conv2DTranspose -> conv2d_transpose,
    SimpleRNN -> simple_rnn (so names match those of a Keras model of the same layers)."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


# The `training` value of the layer calls in progress (innermost last): a layer called
# without one inherits its caller's, as in Keras. None: the run decides.
_CALL_TRAINING = [None]
@contextlib.contextmanager
def call_context(training):
    """Layers called inside receive `training` in `call` (unless given one explicitly),
    without fixing the mode of their ops: how a model traces its training graph."""
    _CALL_TRAINING.append(training)
    try:
        yield
    finally:
        _CALL_TRAINING.pop()


def _check_training(value, where):
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (np.bool_, int, np.integer)) and value in (0, 1):
        return bool(value)
    received = f"an array of shape {value.shape}" if isinstance(value, np.ndarray) \
        else repr(value)
    raise ValueError(at_user(f"{where}: expected training to be True, False or None, "
                             f"received {received}"))


class _CallSpec:
    """What a layer class's `call` accepts, read once per class (not per call)."""

    def __init__(self, cls):
        params = list(inspect.signature(cls.call).parameters.values())[1:]  # after self
        self.cls_name = cls.__name__
        named = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.first = named[0].name if named else None
        self.positional = [p.name for p in named[1:]]    # what extra positionals bind to
        names = {p.name for p in params}
        self.training = "training" in names
        self.mask = "mask" in names
        # `call` written outside paddle (a user's layer or model): it may branch on
        # `training` in Python, where paddle's own layers switch mode inside the plan.
        self.user_code = not (getattr(cls.call, "__module__", None) or "").startswith("paddle.")
        # A paddle layer that must branch in Python too says so (SpectralNormalization).
        self.user_training = self.training and (
            self.user_code or getattr(cls, "branches_on_training", False))

    def bind(self, layer, args, kwargs):
        """(inputs, keyword arguments) from a call's arguments; positional arguments after
        the inputs are named by `call`'s signature."""
        if args:
            inputs, extra = args[0], args[1:]
        elif self.first is not None and self.first in kwargs:
            inputs = kwargs.pop(self.first)
            extra = ()
        else:
            raise TypeError(at_user(f"{layer.name}: expected the inputs as the first "
                                    "argument, received none"))
        if extra:
            if len(extra) > len(self.positional):
                raise TypeError(at_user(
                    f"{layer.name}: {self.cls_name}.call takes {1 + len(self.positional)} "
                    f"positional argument(s) ({', '.join([self.first] + self.positional)}), "
                    f"received {1 + len(extra)}"))
            for name, value in zip(self.positional, extra):
                if name in kwargs:
                    raise TypeError(at_user(f"{layer.name}: got {name!r} both by position "
                                            "and by keyword"))
                kwargs[name] = value
        return inputs, kwargs

    def call_kwargs(self, kwargs, training):
        """The keyword arguments `call` receives: `training` and `mask` only if named."""
        out = dict(kwargs)
        if self.training:
            out["training"] = training
        if not self.mask:
            out.pop("mask", None)
        return out


# Weak: a layer class defined in a function (its methods closing over that function's
# models) must not live on, holding them and their layer names, after the function ends.
_CALL_SPECS = weakref.WeakKeyDictionary()


class _Nothing:
    """A context that does nothing (and gives no updates): what an eager call enters in
    place of the contexts it does not need (one object, entered on every call)."""

    __slots__ = ()

    def __enter__(self):
        return ()

    def __exit__(self, *exc):
        return None


_NOTHING = _Nothing()
# Whether layer calls on symbolic inputs leave no history (a model's eager program being
# traced, eager_calls.py): the trace is not a call of the model's graph.
_UNRECORDED = [False]


@contextlib.contextmanager
def _unrecorded():
    saved, _UNRECORDED[0] = _UNRECORDED[0], True
    try:
        yield
    finally:
        _UNRECORDED[0] = saved
# The layers whose `_recent_losses` are not empty, {id: weak reference} (add_loss adds
# them; an outermost call clears its layers' lists): when there are none, a call has
# nothing to clear. (A dict, not a WeakSet, whose len() is Python code run on every call.)
_HOLDING_RECENT_LOSSES = {}


def _holds_recent_losses(layer):
    key = id(layer)
    _HOLDING_RECENT_LOSSES[key] = weakref.ref(
        layer, lambda ref: _HOLDING_RECENT_LOSSES.get(key) is ref and
        _HOLDING_RECENT_LOSSES.pop(key))


def _call_spec(cls):
    # Read from the class's own dict first (a subclass has its own `call`): a weak
    # dictionary's lookup costs more, on every layer call.
    spec = cls.__dict__.get("_paddle_call_spec")
    if spec is None:
        spec = _CALL_SPECS.get(cls)
        if spec is None:
            spec = _CALL_SPECS[cls] = _CallSpec(cls)
        try:
            type.__setattr__(cls, "_paddle_call_spec", spec)
        except TypeError:  # a class that refuses attributes: the weak dictionary serves
            pass
    return spec


class InputSpec:
    """What a built layer accepts, with Keras 3's arguments: a rank (ndim, min_ndim,
    max_ndim), fixed sizes on some axes, or a whole `shape` (None: any size), with a dtype
    and name; it is also the input signature of `pd.export.ExportArchive` endpoints.
    Layers check the rank and sizes when called.

    Example:
        >>> import paddle as pd
        >>> spec = pd.InputSpec(shape=(None, 3), dtype="float32", name="x")
        >>> spec.ndim, spec.shape, spec.dtype
        (2, (None, 3), 'float32')
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        if shape is not None:
            try:
                shape = tuple(None if d is None else operator.index(d) for d in shape)
            except TypeError:
                raise TypeError(f"InputSpec: expected shape to be a tuple of integers or "
                                f"None, received {shape!r}") from None
            ndim = len(shape)
        self.dtype = None if dtype is None else as_dtype(dtype, "InputSpec")
        self.shape, self.ndim, self.max_ndim, self.min_ndim = shape, ndim, max_ndim, min_ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze, self.name = allow_last_axis_squeeze, name
        self.optional = optional

    def __repr__(self):
        given = [f"{k}={getattr(self, k)!r}" for k in
                 ("dtype", "shape", "ndim", "max_ndim", "min_ndim", "name")
                 if getattr(self, k) is not None]
        return f"InputSpec({', '.join(given + ([f'axes={self.axes}'] if self.axes else []))})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def check(self, layer, shape):
        if self.shape is not None and len(shape) == len(self.shape) and any(
                a is not None and b is not None and a != b for a, b in zip(shape, self.shape)):
            raise ShapeError(at_user(f"{layer.name}: expected an input of shape {self.shape}, "
                                     f"received shape {shape}"))
        if self.max_ndim is not None and len(shape) > self.max_ndim:
            raise ShapeError(at_user(f"{layer.name}: expected an input of rank <= "
                                     f"{self.max_ndim}, received shape {shape}"))
        if self.ndim is not None and len(shape) != self.ndim:
            raise ShapeError(at_user(f"{layer.name}: expected an input of rank {self.ndim}, "
                                     f"received shape {shape}"))
        if self.min_ndim is not None and len(shape) < self.min_ndim:
            raise ShapeError(at_user(f"{layer.name}: expected an input of rank >= "
                                     f"{self.min_ndim}, received shape {shape}"))
        for axis, size in self.axes.items():
            got = shape[axis] if -len(shape) <= axis < len(shape) else "missing"
            if got is not None and got != size:
                where = "the last axis" if axis == -1 else f"axis {axis}"
                raise ShapeError(at_user(f"{layer.name}: expected {where} of the input to be "
                                         f"{size}, received shape {shape}"))


class Layer(KerasLayerAPI, Quantizable):
    """Base class of all layers.

    Subclasses override `build(input_shape)` (create weights with `add_weight`) and
    `call(inputs)` (build the output from low-level ops; name `training` and `mask` in its
    signature to receive them, as in Keras), and extend `get_config()` with their
    constructor arguments.

    Args:
        name: unique layer name (default: the class name in snake_case, numbered).
        trainable: whether the layer's trainable weights are updated by training.
        dtype: the layer's dtype policy: a name ("float32", "mixed_float16"), a
            `pd.DTypePolicy`, or None for the global policy. Its weights are in the
            policy's variable dtype (`layer.dtype`), its computation in its compute dtype.
        autocast: under a mixed policy, cast float inputs to the compute dtype (Keras).
    """

    casts_integer_inputs = True  # see _cast_integer_inputs
    # Regularizer arguments the base takes for a subclass, by the weight attribute they
    # apply to once built ({"gamma_regularizer": "gamma"}), as keyword arguments.
    weight_regularizers = {}
    # Constraint arguments the base takes, by the weight attribute they apply to once built
    # ({"kernel_constraint": "kernel"}): the optimizer projects that weight after updates.
    weight_constraints = {}

    def __init__(self, name=None, trainable=True, dtype=None, input_shape=None,
                 activity_regularizer=None, autocast=True, **unknown):
        for key in type(self).weight_regularizers:
            setattr(self, key, regularizers.get(unknown.pop(key, None)))
        for key in type(self).weight_constraints:
            setattr(self, key, _constraint(unknown.pop(key, None), key, type(self).__name__))
        if unknown:
            raise TypeError(f"{type(self).__name__}: unexpected arguments "
                            f"{', '.join(sorted(unknown))}")
        self._losses = []        # add_loss values of every call: [Variable] (for training)
        self._recent_losses = []  # those of the latest outermost call (`layer.losses`)
        self._penalties = []     # weight regularization: [(weight, penalty Variable)]
        if name is None:
            saved_prefix, NAMES.prefix = NAMES.prefix, []
            try:  # layer names are global (as in Keras); namespaces prefix their weights only
                self.name = NAMES.unique(snake_case(type(self).__name__), self)
            finally:
                NAMES.prefix = saved_prefix
        else:  # a given name is kept as it is (a model checks its layers' names are unique)
            if not isinstance(name, str) or not name or "/" in name:
                raise ValueError(f"{type(self).__name__}: expected a non-empty name without "
                                 f"'/', received {name!r}")
            self.name = name
            NAMES.taken.setdefault(name, self)
        self._trainable = bool(trainable)
        # Keras's autocast: cast float inputs to the compute dtype under a mixed policy
        self.autocast = check_flag(autocast, "autocast", self.name)
        # None: the global policy (pd.config.set_dtype_policy), else floatx(), as in Keras.
        self.dtype_policy = dtype_policies.layer_policy(dtype)
        self.dtype = as_dtype(self.dtype_policy.variable_dtype, self.name)
        self.built = False
        self.input_spec = None
        self._weights = []
        self._input_shape_arg = tuple(input_shape) if input_shape is not None else None
        self._inbound = []       # [(input Variables, output Variables, call kwargs)]
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._remat_mode = get_current_remat_mode()  # the RematScope it was made in

    def __setattr__(self, name, value):
        # What eager calls keep is checked again after any layer's attribute is set
        # (eager_calls.py: a new activation, kernel, policy, input_spec, a rebuild).
        object.__setattr__(self, name, value)
        eager_calls.touched()

    # ---- weights ------------------------------------------------------------------------

    def add_weight(self, *args, shape=None, initializer=None, dtype=None, trainable=True,
                   autocast=True, regularizer=None, constraint=None, name=None,
                   overwrite_with_gradient=False):
        """Create a parameter `<namespace>/<layer name>/<name>` (or fetch it under reuse).

        Keras's keywords: `add_weight(shape=(3, 4), initializer="zeros", trainable=False)`;
        positionally either Keras 3's order (shape, initializer, dtype, trainable) or
        paddle's (name, shape, initializer, trainable, dtype) when the first is a name.

        Args:
            shape: an int or a tuple of ints >= 0 (None: a scalar).
            initializer: a name, an initializer or a callable(shape, dtype) (default
                "glorot_uniform" for rank >= 2, "zeros" below, as `pd.Variable`).
            dtype: the weight's dtype (default: the layer's).
            trainable: whether training updates it.
            regularizer: a `pd.regularizers` name, object or callable: its penalty on this
                weight joins `layer.losses`.
            constraint: a `pd.constraints` name, object or callable `w -> Variable`: the
                optimizer projects the weight with it after each update (as Keras), and
                it is kept as the weight's `constraint` attribute.
            name: the weight's name within the layer (default "variable", numbered).
            autocast: under a mixed policy, read the weight in the compute dtype (through
                a cast node) inside the layer's calls; False reads it as it is stored.
            overwrite_with_gradient: the optimizer writes the weight's gradient into it
                instead of a step down it (Keras's: a float8 layer's scales and amax
                histories, whose "gradients" are their next values).

        Returns:
            The parameter Variable.

        Example:
            >>> import paddle as pd
            >>> class Scale(pd.layers.Layer):
            ...     def build(self, input_shape):
            ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
            ...     def call(self, inputs):
            ...         return inputs * self.w
            >>> layer = Scale()
            >>> _ = layer(pd.Input(shape=(3,)))
            >>> layer.w.shape, layer.w.name.rsplit("/", 1)[-1]
            ((3,), 'variable')
        """
        given = dict(shape=shape, initializer=initializer, dtype=dtype, trainable=trainable,
                     name=name)
        defaults = dict(shape=None, initializer=None, dtype=None, trainable=True, name=None)
        order = ("name", "shape", "initializer", "trainable", "dtype") \
            if args and isinstance(args[0], str) else ("shape", "initializer", "dtype", "trainable")
        if len(args) > len(order):
            raise TypeError(f"{self.name}: add_weight takes at most {len(order)} positional "
                            f"arguments ({', '.join(order)}), received {len(args)}")
        for key, value in zip(order, args):
            if given[key] is not defaults[key] and given[key] != defaults[key]:
                raise TypeError(f"{self.name}: add_weight got {key!r} both by position and "
                                "by keyword")
            given[key] = value
        shape = _weight_shape(given["shape"], self.name)
        name = given["name"] if given["name"] is not None else "variable"
        if not isinstance(name, str) or not name:
            raise ValueError(f"{self.name}: add_weight expected a non-empty name, received "
                             f"{name!r}")
        initializer = given["initializer"]
        if initializer is None:
            initializer = "glorot_uniform" if len(shape) >= 2 else "zeros"
        trainable = check_flag(given["trainable"], "trainable (add_weight)", self.name)
        regularizer = regularizers.get(regularizer)
        constraint = _constraint(constraint, "constraint (add_weight)", self.name)
        full = NAMES.full(f"{self.name}/{name}")
        dtype = given["dtype"] or ("float32" if self.computes_in_float32 and
                                   self.dtype in HALF else self.dtype)
        var = parameter(full, shape, dtype, initializer,
                        trainable=trainable and self._trainable)
        var._layer_trainable = trainable
        var._weight_name = name  # its name within the layer (Keras's variable.name)
        var.constraint = constraint
        var.autocast = check_flag(autocast, "autocast (add_weight)", self.name)
        var.overwrite_with_gradient = check_flag(
            overwrite_with_gradient, "overwrite_with_gradient (add_weight)", self.name)
        self._weights.append(var)
        if regularizer is not None:
            self._penalties.append(
                (var, regularizers.penalty(regularizer, var, f"{self.name}: {name} regularizer")))
        return var

    def _regularize_built_weights(self):
        """Penalties for `weight_regularizers` arguments, on the weights build made, and the
        `weight_constraints` arguments attached to their weights."""
        for key, attr in type(self).weight_constraints.items():
            constraint, weight = getattr(self, key, None), getattr(self, attr, None)
            if constraint is not None and isinstance(weight, Variable):
                weight.constraint = constraint
        for key, attr in type(self).weight_regularizers.items():
            regularizer, weight = getattr(self, key, None), getattr(self, attr, None)
            if regularizer is not None and weight is not None:
                self._penalties.append((weight, regularizers.penalty(
                    regularizer, weight, f"{self.name}: {key}")))

    def add_variable(self, *args, **kwargs):
        """The same as `add_weight` (Keras 3 has both names)."""
        return self.add_weight(*args, **kwargs)

    # ---- losses -------------------------------------------------------------------------

    def add_loss(self, loss):
        """Add a scalar Variable (or a list of them) to the layer's losses: `fit`,
        `train_on_batch` and `evaluate` add every loss their graph computes to the
        compiled loss, as Keras does. Call it in `call` on values built from the inputs,
        or on a model with Variables of its graph. Non-scalar losses are summed.

        Example:
            >>> import paddle as pd
            >>> class ActivityPenalty(pd.layers.Layer):
            ...     def call(self, inputs):
            ...         self.add_loss(0.01 * pd.sum(pd.square(inputs)))
            ...         return inputs
            >>> layer = ActivityPenalty()
            >>> _ = layer(pd.Input(shape=(3,)))
            >>> [v.shape for v in layer.losses]
            [()]
        """
        for value in (loss if isinstance(loss, (list, tuple)) else [loss]):
            if not isinstance(value, Variable) or value.dtype not in FLOATS:
                raise TypeError(at_user(f"{self.name}: add_loss expected a float Variable, "
                                        f"received {value!r}"))
            value = sum_all(value) if value.ndim else value
            self._losses.append(value)
            self._recent_losses.append(value)
            _holds_recent_losses(self)

    @property
    def losses(self):
        """Scalar Variables: the values given to `add_loss` during the latest call (by this
        layer and the layers inside it; an outermost call starts the list afresh, as in
        Keras) and the regularization penalties of the trainable weights. The training loss
        adds those of every call that its graph computes (see docs/highlevel.md)."""
        return self._collect_losses("_recent_losses")

    def _all_losses(self):
        """`losses` over every call so far: the training step picks those its graph
        computes (a subclassed model's each trace adds its own)."""
        return self._collect_losses("_losses")

    def _clear_recent_losses(self):
        if not _HOLDING_RECENT_LOSSES:  # no layer holds any: nothing to walk, every call
            return
        for layer in [self] + self._nested_layers():
            layer._recent_losses = []
            _HOLDING_RECENT_LOSSES.pop(id(layer), None)

    def _keep_recent_losses(self, losses):
        """Make `losses` the latest call's again (a replay leaves `losses` as it found it)."""
        self._recent_losses = losses
        if losses:
            _holds_recent_losses(self)

    def _collect_losses(self, attr):
        found, seen = [], set()
        for layer in [self] + self._nested_layers():
            for v in getattr(layer, attr):
                if id(v) not in seen:
                    seen.add(id(v))
                    found.append(v)
        trainable = {id(w) for w in self.trainable_weights}
        for layer in [self] + self._nested_layers():
            for weight, v in layer._penalties:
                if id(weight) in trainable and id(v) not in seen:
                    seen.add(id(v))
                    found.append(v)
        return found

    def _nested_layers(self):
        """Every layer inside this one, depth first, each once."""
        found, stack = [], list(reversed(self._sublayers()))
        while stack:
            layer = stack.pop()
            if layer is self or any(layer is f for f in found):
                continue
            found.append(layer)
            stack.extend(reversed(layer._sublayers()))
        return found

    @property
    def weights(self):
        """Every weight in Keras 3's order: the layer's own (those created trainable, then
        the others, each in creation order), then each sublayer's, layer by layer. Freezing
        a layer does not move its weights (`trainable_weights` lists what trains)."""
        found = [w for w in self._weights if w._layer_trainable] + \
            [w for w in self._weights if not w._layer_trainable]
        seen = {id(w) for w in found}
        for layer in self._sublayers():
            for w in layer.weights:
                if id(w) not in seen:
                    seen.add(id(w))
                    found.append(w)
        return found

    @property
    def trainable_weights(self):
        own = [w for w in self._weights if self._trainable and w._layer_trainable]
        found = own + [w for layer in self._sublayers() for w in layer.trainable_weights
                       if self._trainable]
        return _distinct(found)  # a weight a sublayer shares (SpectralNormalization's) once

    @property
    def non_trainable_weights(self):
        own = [w for w in self._weights if not (self._trainable and w._layer_trainable)]
        nested = [w for layer in self._sublayers() for w in
                  (layer.weights if not self._trainable else layer.non_trainable_weights)]
        return _distinct(own + nested)

    @property
    def trainable_variables(self):
        """Keras's name for `trainable_weights`."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        """Keras's name for `non_trainable_weights`."""
        return self.non_trainable_weights

    @property
    def variables(self):
        """Keras's name for `weights`."""
        return self.weights

    def _sublayers(self):
        """Layers held as attributes (wrappers such as Bidirectional), in attribute order."""
        found = []
        for value in self.__dict__.values():
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(item, Layer) and item is not self and item not in found:
                    found.append(item)
        return found

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        for w in self._weights:
            w.trainable = self._trainable and w._layer_trainable
        for layer in self._sublayers():
            layer.trainable = value

    def get_weights(self):
        """The weights' values as NumPy arrays, in `weights` order: one set, taken between
        two steps of a `fit` or `set_weights` running in another thread."""
        weights = self.weights
        with stored_state.LOCK:
            return [w.val() for w in weights]

    def set_weights(self, weights):
        """Assign values in `weights` order; shapes must match. All of them at once for
        other threads: a `predict` running meanwhile computes with the old weights or the
        new ones, never a mix (docs/security.md, "Threads")."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"{self.name}: set_weights expected {len(mine)} arrays, received "
                             f"{len(weights)}")
        for w, value in zip(mine, weights):
            if np.shape(value) != w.shape:
                raise ShapeError(f"{self.name}: weight {w.name!r} has shape {w.shape}, received "
                                 f"{np.shape(value)}")
        values = [w.checked_value(value) for w, value in zip(mine, weights)]  # all, first
        with stored_state.LOCK:
            for w, value in zip(mine, values):
                w.assign_checked(value)

    def count_params(self):
        return int(sum(np.prod(w.shape) for w in self.weights))

    # ---- calling ------------------------------------------------------------------------

    def build(self, input_shape):
        """Create the weights for inputs of this shape (batch dim may be None)."""

    def call(self, inputs):
        """The layer's computation from low-level ops; may also name `training` and `mask`."""
        raise NotImplementedError(f"{type(self).__name__} must implement call()")

    # Whether the layer passes its input's mask on to its output unchanged (Keras's
    # supports_masking); layers that make or change masks override compute_mask.
    supports_masking = False

    def compute_mask(self, inputs, mask=None):
        """The mask of the output: the input's if `supports_masking`, else None.

        A mask is a boolean Variable (batch, timesteps) carried by a Variable as
        `_keras_mask`: `Embedding(mask_zero=True)` and `Masking` make one, recurrent layers
        skip the masked timesteps, and losses and metrics leave them out.
        """
        if not self.supports_masking:
            return None
        return mask[0] if isinstance(mask, (list, tuple)) else mask

    def compute_output_shape(self, input_shape):
        """The output shape for an input shape, found by building the ops on a pd.data."""
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        inputs = [data(f"{self.name}_probe", s) for s in shapes]
        out = self(inputs if isinstance(input_shape, list) else inputs[0])
        return [o.shape for o in out] if isinstance(out, (list, tuple)) else out.shape

    def __call__(self, *args, **kwargs):
        """Build (or, on NumPy arrays, compute) the layer's output for `inputs`.

        Arguments after `inputs` are bound by `call`'s own signature (a second positional
        argument is never taken as `training`). `training` reaches `call` only if `call`
        names it: an explicit True / False there, else the enclosing layer's, else None
        (the run decides: fit trains, predict infers). An explicit True / False also fixes
        the mode of every op the call builds: `Dropout(0.5)(x, training=True)` drops in
        predict too, as in Keras. `mask` reaches `call` only if `call` names it.
        """
        seen = eager_calls.lookup(self, args, kwargs)
        if seen is not None:  # an eager call of a signature seen before: its checks passed
            entry, inputs, training = seen
            spec, flat, kwargs, now, compute, back = _call_spec(type(self)), [inputs], {}, \
                True, entry.compute, entry.back
        else:  # (the body below stays in this frame: nested models cost one frame a level)
            spec, inputs, flat, kwargs, training, now, compute, back, entry = \
                self._checked_call(args, kwargs)
        if entry is not None:
            program = entry.program_for(self, inputs)
            if program is not None:  # the same ops and kernels, as one run
                if _HOLDING_RECENT_LOSSES and not in_call():
                    self._clear_recent_losses()
                return program.run(inputs)
        if training is not None:
            value = training
        else:  # an outermost eager call infers, as Keras's: call(..., training) hears False
            value = False if now and _CALL_TRAINING[-1] is None else _CALL_TRAINING[-1]
        call_kwargs = spec.call_kwargs(kwargs, value)
        input_mask = kwargs.get("mask", _input_masks(inputs, flat))
        if spec.mask and "mask" not in kwargs and input_mask is not None:
            call_kwargs["mask"] = input_mask  # Keras's implicit mask, from the inputs
        if _HOLDING_RECENT_LOSSES and not in_call():  # an outermost call: `losses` lists
            self._clear_recent_losses()                # this call's alone
        # forced_mode(None) under no forced mode changes nothing: not entered then.
        mode = forced_mode(training) if training is not None or current_mode() is not None \
            else _NOTHING
        _CALL_TRAINING.append(value)
        try:
            with eager.eager_call() if now else eager.tracing(), call_inputs(flat), mode, \
                    building_scope(self.name), autocast(compute), \
                    _NOTHING if now else collect_updates() as updates:
                # a quantized layer runs its quantized call (Keras's `quantized_call`)
                outputs = (self.quantized_call if self.dtype_policy.quantization_mode
                           else self.call)(inputs, **call_kwargs)
                if ASSIGNED:  # `return self.total` after assigning it returns the value assigned
                    outputs = _structure_map(assigned_value, outputs)
                if back is not None:  # computed in float32: the output in the half type
                    outputs = _structure_map(
                        lambda o: cast(o, back) if isinstance(o, Variable) and
                        o.dtype == "float32" else o, outputs)
        finally:
            _CALL_TRAINING.pop()
        outputs = _distinct_from_inputs(outputs, flat)
        outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        if self.activity_regularizer is not None:
            for o in outs:
                if isinstance(o, Variable) and o.dtype in FLOATS:
                    self.add_loss(regularizers.activity_penalty(
                        self.activity_regularizer, o, f"{self.name}: activity_regularizer"))
        _set_output_masks(self, inputs, outputs, input_mask)
        if now:  # no graph history: a model is made of calls on symbolic inputs
            return _concrete_outputs(outputs)
        if updates:  # the call's assignments run with whatever computes its outputs
            state_updates.attach([o for o in outs if isinstance(o, Variable)], updates)
        if _UNRECORDED[0]:  # a trace for an eager call's program: no history to keep
            return outputs
        recorded = dict(kwargs) if training is None else dict(kwargs, training=training)
        self._inbound.append((list(flat), list(outs), recorded))
        self._list_input = isinstance(inputs, (list, tuple))
        for k, o in enumerate(outs):
            if isinstance(o, Variable):
                o._history = (self, len(self._inbound) - 1, k)
        return outputs

    def _checked_call(self, args, kwargs):
        """A call's arguments bound and checked, the layer built if it was not, its inputs
        cast: (spec, inputs, flat inputs, keyword arguments, training, whether it runs at
        once, autocast's dtype for parameters, the dtype outputs go back to, the eager
        call's kept entry or None)."""
        spec = _call_spec(type(self))
        inputs, kwargs = spec.bind(self, args, kwargs)
        training = _check_training(kwargs.pop("training", None), self.name)
        flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        # Concrete inputs (arrays, numbers, eager tensors) outside a trace: the call runs at
        # once, op by op, its state updates included in the order written (Keras 3's eager
        # call), and gives EagerTensors; anything else builds the graph (one body for both,
        # so nested models cost one frame per level more than their call).
        now = bool(flat) and not eager.is_tracing() and _all_concrete(
            flat + tensor_arguments(kwargs) if kwargs else flat)
        if now and not _all_variables(flat):
            flat = [eager_calls.as_tensor(x, self.dtype) for x in flat]
            inputs = type(inputs)(flat) if isinstance(inputs, (list, tuple)) else flat[0]
        for x in flat:
            if not isinstance(x, Variable):
                raise TypeError(at_user(f"{self.name}: expected a Variable (or a NumPy array), "
                                        f"received {type(x).__name__}"))
        # An eager call builds the layer for any batch size, as a call on pd.Input would
        # (a stateful RNN keeps its states for the batch size of its first call, as Keras's).
        any_batch = now and not getattr(self, "stateful", False)
        shapes = [(None,) + x.shape[1:] if any_batch and x.shape else x.shape for x in flat]
        shape = shapes if isinstance(inputs, (list, tuple)) else shapes[0]
        if not self.built:
            with eager.graph_state():  # weight penalties stay graph nodes on the weights
                self.build(shape)  # marks the layer built (KerasLayerAPI wraps every build)
                if not self.built:
                    self._mark_built(shape)
        elif self.input_spec is not None:
            for s in shapes:
                self.input_spec.check(self, s)
        given = inputs
        inputs = self._cast_integer_inputs(inputs, flat)
        inputs, flat, compute, back = self._autocast_inputs(inputs, flat)
        # What passed depends on the layer and the input's shape and dtype alone: kept for
        # the next eager call of that signature (eager_calls.lookup above).
        entry = eager_calls.remember(self, given, inputs, kwargs, compute, back) if now \
            else None
        return spec, inputs, flat, kwargs, training, now, compute, back, entry

    # ---- eager calls seen before (eager_calls.py) ---------------------------------------

    def _eager_state(self):
        """What the checks of an eager call depend on besides its input's shape and dtype:
        a kept entry serves while these are the same objects."""
        return (self.built, self.input_spec, self.dtype_policy, self.autocast, self.dtype,
                len(self._weights), self.activity_regularizer)

    def _eager_program_reads(self):
        """None, or what `call` reads besides its input when it is a pure function of the
        two: the same ops in every mode, no state written, nothing drawn, no mask made, no
        loss added, nothing done in Python but building ops. Such a layer's eager calls run
        as one program per signature, traced again when these are not the same objects.
        The base says None: a layer opts in (Dense, Activation, ...)."""
        return None

    def _eager_program_takes_weak(self, dtype):
        """Whether a weak float input of `dtype` (a constant made without a dtype, which
        takes the dtype of what it meets, and whose results are weak where every operand
        is) gives the program's values and dtypes, as a strong one would: where the call's
        first op meets a strong operand of that dtype (Dense's kernel). False: such calls
        run op by op."""
        return False

    def _eager_program_graph(self, x):
        """(input data Variable, [outputs], single) of `call` traced on a data Variable like
        the tensor `x`, for eager_calls.LayerProgram; None when it gives no Variable or
        list of them. `training` is None: a pure call is the same in every mode, and the
        layers inside a model keep the plan's mode (a forced one is refused)."""
        data_x = data(f"{self.name}_eager_input", x.shape, x.dtype)
        spec = _call_spec(type(self))
        with _unrecorded(), eager.tracing(), call_inputs([data_x]), \
                building_scope(self.name):
            out = self.call(data_x, **spec.call_kwargs({}, None))
        if isinstance(out, Variable):
            return data_x, [out], True
        if type(out) in (list, tuple) and _all_variables(out):
            return data_x, list(out), False
        return None

    # Layers that compute in float32 under a half policy (Keras's normalization layers:
    # their statistics overflow float16): float32 inputs and weights, half outputs. Their
    # weights are float32 under the plain "float16"/"bfloat16" policies too (Keras keeps
    # them in the half type and casts them up at each call).
    computes_in_float32 = False

    def _autocast_inputs(self, inputs, flat):
        """Keras's autocast: (inputs, flat, the dtype float parameters are read in or None,
        the dtype the outputs are cast to or None). Float inputs become the compute dtype
        where half precision is involved: a layer under "mixed_float16" casts float32
        inputs to float16, and a float32 layer after it (a final softmax) casts its float16
        inputs back. Other float inputs are left as they are (float64 data to a float32
        layer reaches the ops, which decide)."""
        compute = self.compute_dtype
        reads = compute if compute != self.dtype else None
        back = None
        if self.computes_in_float32 and compute in HALF:  # half weights read as float32
            compute, reads, back = "float32", (None if self.dtype == "float32" else
                                               "float32"), compute
        if not self.autocast:
            return inputs, flat, reads, back
        cast_flat = [cast(x, compute) if x.dtype in FLOATS and x.dtype != compute and
                     (compute in HALF or x.dtype in HALF) else x for x in flat]
        if all(a is b for a, b in zip(cast_flat, flat)):
            return inputs, flat, reads, back
        inputs = type(inputs)(cast_flat) if isinstance(inputs, (list, tuple)) else cast_flat[0]
        return inputs, cast_flat, reads, back

    def _cast_integer_inputs(self, inputs, flat):
        """Integer (or bool) inputs cast to the layer's float dtype when the layer computes
        with float weights (Dense, Conv2D, LSTM...): Keras's implicit cast, so integer
        NumPy data fits a float model. Layers that consume integers (Embedding) opt out
        with `casts_integer_inputs = False`; weightless layers keep dtypes as they are."""
        if not self.casts_integer_inputs or _all_floats(flat) or not _any_floats(self._weights):
            return inputs
        cast_flat = [cast(x, self.compute_dtype) if x.dtype not in FLOATS else x for x in flat]
        return cast_flat if isinstance(inputs, (list, tuple)) else cast_flat[0]

    # ---- the graph it was called in -----------------------------------------------------

    @property
    def input(self):
        """The input Variable(s) of the layer's first call on Variables (Keras's
        `layer.input`: one Variable, or a list for several)."""
        return self._first_call_part(0, "input")

    @property
    def output(self):
        """The output Variable(s) of the layer's first call on Variables (Keras's
        `layer.output`), e.g. to build a feature extractor:
        `pd.Model(model.input, [layer.output for layer in model.layers])`.

        Example:
            >>> import paddle as pd
            >>> dense = pd.layers.Dense(3)
            >>> inp = pd.Input(shape=(4,))
            >>> dense(inp) is dense.output, dense.input is inp
            (True, True)
        """
        return self._first_call_part(1, "output")

    def _first_call_part(self, part, what):
        if not self._inbound:
            raise AttributeError(f"{self.name}: the layer has never been called and thus "
                                 f"has no defined {what}")
        values = self._inbound[0][part]
        return values[0] if len(values) == 1 else list(values)

    # ---- configuration ------------------------------------------------------------------

    def get_config(self):
        """Constructor arguments that rebuild this layer (extended by subclasses)."""
        policy = self.dtype_policy  # a mixed policy is saved whole, as Keras saves it
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self.dtype if policy.name == self.dtype
                  else dtype_policies.serialize(policy)}
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        config.update(regularizer_config(self, type(self).weight_regularizers))
        config.update((key, constraints.serialize(getattr(self, key)))
                      for key in type(self).weight_constraints)
        if self._input_shape_arg is not None:
            config["input_shape"] = list(self._input_shape_arg)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        # getattr: a layer whose __init__ raised (a bad argument) still has a repr.
        return (f"<{type(self).__name__} name={getattr(self, 'name', None)!r} "
                f"built={getattr(self, 'built', False)}>")


def _structure_map(fn, value):
    """`fn` applied to a value, or to each item of a list, tuple or dict of them."""
    if type(value) in (list, tuple):
        return type(value)(fn(v) for v in value)
    if type(value) is dict:
        return {k: fn(v) for k, v in value.items()}
    return fn(value)


def _distinct_from_inputs(outputs, flat):
    """A layer call that returns one of its inputs as it is (a user's `return inputs`
    outside training, `Activation("linear")`) returns a copy of it instead (a same-dtype
    cast): each layer call then makes its own Variable, so a model's replay (another mode's
    graph, a call on new inputs) and `model.layers` find that call and the ones before it,
    where the input itself would name the call as its own producer."""
    if type(outputs) in (list, tuple):
        return type(outputs)(_distinct_output(o, flat) for o in outputs)
    return _distinct_output(outputs, flat)


def _distinct_output(value, flat):
    if isinstance(value, Variable):
        for x in flat:  # (a loop, not any() of a generator: on every call)
            if value is x:
                return apply(OPS["cast"], [value], {"dtype": value.dtype})
    return value


def _constraint(value, key, owner):
    """`pd.constraints.get(value)`, its error naming the layer and the argument."""
    try:
        return constraints.get(value)
    except ValueError as e:
        raise ValueError(f"{owner}: {key}: {e}") from None


def regularizer_config(layer, keys):
    """The regularizer arguments, serialized for get_config (Keras's form); unset ones are
    listed as None, as Keras's layer configs list them."""
    return {key: regularizers.serialize(getattr(layer, key)) for key in keys}


def tensor_arguments(kwargs):
    """The Variables among a layer call's keyword arguments: a second tensor argument of
    `call` (Keras's `LogisticEndpoint()(targets, logits)`) or an explicit mask. They feed
    the layer as its inputs do: a model's layers, its replay and its drawing follow them."""
    found = []
    for value in kwargs.values():
        for item in (value if isinstance(value, (list, tuple)) else [value]):
            if isinstance(item, Variable):
                found.append(item)
    return found


def _weight_shape(shape, where):
    """add_weight's shape as a tuple of ints; ValueError naming the layer otherwise."""
    if shape is None:
        return ()
    items = shape if isinstance(shape, (list, tuple)) else (shape,)
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
               for d in items):
        raise ValueError(f"{where}: add_weight expected shape as ints >= 0, received "
                         f"{shape!r}")
    return tuple(int(d) for d in items)


def _distinct(weights):
    """weights without repeats, in order."""
    seen = set()
    return [w for w in weights if not (id(w) in seen or seen.add(id(w)))]


def _input_masks(inputs, flat):
    """The masks the inputs carry: one, a list for a list of inputs, or None."""
    if len(flat) == 1:  # the usual call: no list to make
        mask = getattr(flat[0], "_keras_mask", None)
        return mask if mask is None or not isinstance(inputs, (list, tuple)) else [mask]
    masks = [getattr(x, "_keras_mask", None) for x in flat]
    if all(m is None for m in masks):
        return None
    return masks if isinstance(inputs, (list, tuple)) else masks[0]


def _all_floats(values):
    """Whether every value has a float dtype (a loop: on every call)."""
    for x in values:
        if x.dtype not in FLOATS:
            return False
    return True


def _any_floats(values):
    for x in values:
        if x.dtype in FLOATS:
            return True
    return False


def _all_variables(values):
    """Whether every value is a Variable (a loop: on every call)."""
    for x in values:
        if not isinstance(x, Variable):
            return False
    return True


def _all_concrete(values):
    """Whether every value holds a value now (eager.is_concrete), as a loop: on every call."""
    for x in values:
        if not eager.is_concrete(x):
            return False
    return True


def _set_output_masks(layer, inputs, outputs, input_mask):
    if input_mask is None and type(layer).compute_mask is Layer.compute_mask:
        return  # (the base's compute_mask gives None for no mask: no call, on every call)
    masks = layer.compute_mask(inputs, input_mask)
    outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    masks = masks if isinstance(masks, (list, tuple)) else [masks] * len(outs)
    for o, m in zip(outs, masks):
        if isinstance(o, Variable) and m is not None:
            o._keras_mask = m


def _concrete_outputs(outputs):
    """The outputs of an eager call as EagerTensors: a parameter or a node on parameters
    that the call returned is read now (its value after the call's updates)."""
    if isinstance(outputs, (list, tuple)):
        return type(outputs)(_concrete_outputs(o) for o in outputs)
    if isinstance(outputs, dict):
        return {k: _concrete_outputs(v) for k, v in outputs.items()}
    if isinstance(outputs, Variable) and not isinstance(outputs, eager.EagerTensor):
        value = eager.tensor(outputs.numpy())
        mask = getattr(outputs, "_keras_mask", None)
        if mask is not None:
            value._keras_mask = mask
        return value
    return outputs


def Input(shape=None, batch_size=None, dtype=None, batch_shape=None, name=None):
    """A model input: a pd.data Variable whose first axis is the batch (None = any size).

    Args:
        shape: the shape of one sample (without the batch axis).
        batch_size: a fixed batch size, or None for any.
        dtype: the dtype of the data (None: `pd.config.floatx()`, float32 by default),
            or "string" for text, which stays on the host: call a preprocessing layer on
            it (StringLookup, TextVectorization, Hashing), which gives the numbers the
            model computes with.
        batch_shape: instead of `shape` and `batch_size`, the whole shape with its batch
            axis first, as Keras's `Input(batch_shape=(16, 10, 5))`.
        name: the input's name, which keys dicts of input arrays.

    The arguments come in Keras 3's order (`keras.Input(shape, batch_size, dtype, ...,
    batch_shape, name)`); Keras's sparse, ragged, tensor and optional inputs are not
    supported.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Input(shape=(28, 28, 1)).shape
        (None, 28, 28, 1)
        >>> pd.layers.Input(batch_shape=(16, 10, 5)).shape
        (16, 10, 5)
    """
    if batch_shape is not None:
        if shape is not None or batch_size is not None:
            raise ValueError(f"Input: give either batch_shape or shape (and batch_size), "
                             f"received batch_shape={batch_shape!r} with shape={shape!r}, "
                             f"batch_size={batch_size!r}")
        if not isinstance(batch_shape, (list, tuple)) or not batch_shape:
            raise ValueError(f"Input: expected batch_shape as a non-empty tuple (batch axis "
                             f"first), received {batch_shape!r}")
        batch_size, shape = batch_shape[0], tuple(batch_shape[1:])
    elif shape is None:
        raise ValueError("Input: expected a shape (the shape of one sample) or a "
                         "batch_shape, received neither")
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    base = name or "input_layer"
    holder = _InputName()
    full = NAMES.unique(base, holder)
    var = data(full.rsplit("/", 1)[-1], (batch_size,) + shape,
               settings.floatx() if dtype is None else dtype)
    var._input_name_claim = holder
    var._input_key = name  # dicts of input arrays are keyed by the name asked for
    var._is_input = True
    return var


class _InputName:
    """Owner of an Input's name claim (lives as long as the Input Variable)."""
