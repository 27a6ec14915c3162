"""Keras 3's stateless and state-tree members of `Model` (mixed into it): `get_state_tree`,
`set_state_tree`, `stateless_compute_loss`, `compute_loss_and_updates`, `operations` and
`get_quantization_layer_structure`.

The state tree is Keras's nested dict {"trainable_variables", "non_trainable_variables",
"optimizer_variables", "metrics_variables"}, split on "/" of each variable's path. A path
is Keras's: the names of the layers from the model down to the one that made the weight,
then the weight's name (`"dense/kernel"`), under the model's name for a Sequential or a
subclassed model (Keras builds their layers in the model's name scope:
`"sequential/dense/kernel"`), not for a functional one. Two models of the same
architecture and names have the same paths, so a tree moves between them. The optimizer's
entries are `iteration`, `learning_rate` (a constant rate only) and
`<weight path with "_">_<slot>` with paddle's slot names (`m`, `v` where Keras writes
`momentum`, `velocity`).

Example:
    >>> import numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.Input((1,)), pd.layers.Dense(1, name="state_dense")],
    ...                       name="sequential_state")
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> tree = model.get_state_tree()
    >>> sorted(tree["trainable_variables"]["sequential_state"]["state_dense"])
    ['bias', 'kernel']
"""
import numpy as np

from paddle.lowlevel import schedules
from paddle.lowlevel.executor import eval as run
from paddle.lowlevel.graph import Variable, data
from paddle.lowlevel.scopes import StatelessScope
from paddle.lowlevel.strings import feed_dtype

VALUE_FORMATS = ("backend_tensor", "numpy_array")


class StateTreeAPI:
    """Keras 3's state-tree and stateless-loss members of Model."""

    # ---- the state tree -----------------------------------------------------------------

    def get_state_tree(self, value_format="backend_tensor"):
        """The model's variables as Keras 3's nested dict: "trainable_variables",
        "non_trainable_variables", "optimizer_variables" (empty before compile),
        "metrics_variables", each nested by the parts of the variables' paths.

        Args:
            value_format: "backend_tensor" (paddle's arrays: NumPy) or "numpy_array".

        Raises:
            ValueError: another value_format, or two variables with one path.

        Example:
            >>> import paddle as pd
            >>> inp = pd.Input((2,))
            >>> model = pd.Model(inp, pd.layers.Dense(1, name="tree_d")(inp))
            >>> model.get_state_tree()["trainable_variables"]["tree_d"]["kernel"].shape
            (2, 1)
        """
        if value_format not in VALUE_FORMATS:
            raise ValueError(f"Invalid `value_format` argument. Expected one of "
                             f"{{'numpy_array', 'backend_tensor'}}. Received: "
                             f"value_format={value_format}")
        optimizer = getattr(self, "optimizer", None)
        paths = self._state_paths()
        return {
            "trainable_variables": _nested(_named(self.trainable_variables, paths)),
            "non_trainable_variables": _nested(_named(self.non_trainable_variables, paths)),
            "optimizer_variables": _nested(_optimizer_state(optimizer, paths))
            if optimizer is not None else {},
            "metrics_variables": _nested(_named(self.metrics_variables, paths))}

    def _state_paths(self):
        """{id(variable): its Keras path} for the weights of the model's layers."""
        prefix = f"{self.name}/" if getattr(self, "_builds_under_own_name", False) or \
            not self.functional else ""
        paths, stack = {}, [(layer, prefix) for layer in reversed(self.layers)]
        while stack:
            layer, above = stack.pop()
            here = f"{above}{layer.name}/"
            for w in getattr(layer, "_weights", []):
                paths.setdefault(id(w), here + getattr(w, "_weight_name",
                                                       w.name.rsplit("/", 1)[-1]))
            stack.extend((inner, here) for inner in reversed(layer._sublayers()))
        return paths

    def set_state_tree(self, state_tree):
        """Assign the values of a tree as `get_state_tree` returns it (any part of it):
        each leaf goes to the variable of its path; paths the model lacks are skipped, as
        Keras does.

        Raises:
            ValueError: a top-level key other than Keras's four.

        Example:
            >>> import numpy as np, paddle as pd
            >>> model = pd.Sequential([pd.Input((2,)), pd.layers.Dense(1, name="set_d")],
            ...                       name="set_model")
            >>> model.set_state_tree({"trainable_variables": {"set_model": {"set_d": {
            ...     "bias": np.array([5.0], "float32")}}}})
            >>> model.layers[0].bias.numpy().tolist()
            [5.0]
        """
        paths = self._state_paths()
        for key, tree in state_tree.items():
            flat = _flatten(tree)
            if key == "trainable_variables":
                _assign(self.trainable_variables, flat, paths)
            elif key == "non_trainable_variables":
                _assign(self.non_trainable_variables, flat, paths)
            elif key == "optimizer_variables":
                if getattr(self, "optimizer", None) is not None:
                    _assign_optimizer(self.optimizer, self.trainable_variables, flat, paths)
            elif key == "metrics_variables":
                if self.metrics_variables:
                    _assign(self.metrics_variables, flat, paths)
            else:
                raise ValueError(f"Unknown variable name: {key}")

    # ---- the stateless loss -------------------------------------------------------------

    def stateless_compute_loss(self, trainable_variables, non_trainable_variables,
                               metrics_variables, x=None, y=None, y_pred=None,
                               sample_weight=None, training=True):
        """`compute_loss` with the given variable values instead of the model's own, which
        it leaves untouched (Keras 3's): y, y_pred and sample_weight are arrays.

        Returns:
            `(loss, (trainable_variables, non_trainable_variables, metrics_variables))`.

        Example:
            >>> import numpy as np, paddle as pd
            >>> model = pd.Sequential([pd.Input((1,)), pd.layers.Dense(1)])
            >>> model.compile(loss="mse")
            >>> loss, _ = model.stateless_compute_loss(
            ...     [w.numpy() for w in model.trainable_variables], [], [],
            ...     y=np.ones((2, 1), "float32"), y_pred=np.zeros((2, 1), "float32"))
            >>> float(loss)
            1.0
        """
        mapping = list(zip(self.trainable_variables, trainable_variables))
        mapping += zip(self.non_trainable_variables, non_trainable_variables)
        mapping += zip(self.metrics_variables, metrics_variables)
        feeds = {}
        ys = _placeholders(y, "y", feeds)
        preds = _placeholders(y_pred, "y_pred", feeds)
        weights = _placeholders(sample_weight, "sample_weight", feeds)
        with StatelessScope(state_mapping=mapping) as scope:
            total = self.compute_loss(y=ys, y_pred=preds, sample_weight=weights,
                                      training=training)
            loss = run(total, feeds, training=bool(training))
        return loss, (list(trainable_variables),
                      [scope.get_current_value(v) for v in self.non_trainable_variables],
                      [scope.get_current_value(v) for v in self.metrics_variables])

    def compute_loss_and_updates(self, trainable_variables, non_trainable_variables,
                                 metrics_variables, x, y, sample_weight, training=False,
                                 optimizer_variables=None):
        """A stateless forward pass and loss (Keras 3's, on its JAX backend): the model's
        own variables are untouched.

        Returns:
            `(loss, (unscaled_loss, y_pred, non_trainable_variables, metrics_variables))`;
            the loss is scaled by a LossScaleOptimizer when training, else the same.

        Example:
            >>> import numpy as np, paddle as pd
            >>> model = pd.Sequential([pd.Input((1,)), pd.layers.Dense(1, use_bias=False)])
            >>> model.compile(loss="mse")
            >>> loss, (_, y_pred, _, _) = model.compute_loss_and_updates(
            ...     [np.full((1, 1), 2.0, "float32")], [], [], np.ones((1, 1), "float32"),
            ...     np.zeros((1, 1), "float32"), None)
            >>> float(loss), y_pred.tolist()
            (4.0, [[2.0]])
        """
        y_pred, non_trainable_variables, losses = self.stateless_call(
            trainable_variables, non_trainable_variables, x, return_losses=True,
            training=training)
        loss, (_, non_trainable_variables, metrics_variables) = self.stateless_compute_loss(
            trainable_variables, non_trainable_variables, metrics_variables, x=x, y=y,
            y_pred=y_pred, sample_weight=sample_weight, training=training)
        unscaled = loss
        optimizer = getattr(self, "optimizer", None)
        if training and optimizer is not None and hasattr(optimizer, "scale_loss"):
            loss = run(optimizer.scale_loss(Variable(np.asarray(loss))))
        return loss, (unscaled, y_pred, non_trainable_variables, metrics_variables)

    # ---- structure ----------------------------------------------------------------------

    @property
    def operations(self):
        """The layers of a functional model, inputs first, as Keras 3's `operations`
        (paddle's inputs are graph Variables, not InputLayers, and its plain ops between
        layers are graph nodes: neither is listed); a subclassed model's layers.

        Example:
            >>> import paddle as pd
            >>> inp = pd.Input((3,))
            >>> model = pd.Model(inp, pd.layers.Dense(2, name="ops_dense")(inp))
            >>> [op.name for op in model.operations]
            ['ops_dense']
        """
        return list(self.layers)

    def get_quantization_layer_structure(self, mode=None):
        """The topology structure-aware quantization modes need (Keras 3's hook, for model
        authors to override: `{"pre_block_layers": [...], "sequential_blocks": [...]}`):
        None by default, as Keras.

        Example:
            >>> import paddle as pd
            >>> pd.Sequential([pd.layers.Dense(1)]).get_quantization_layer_structure("gptq")
        """
        del mode
        return None


def _path(variable, paths):
    return paths.get(id(variable), variable.name)


def _named(variables, paths):
    flat = {}
    for v in variables:
        path = _path(v, paths)
        if path in flat:
            raise ValueError(f"The following variable path is found twice in the model: "
                             f"'{path}'. `get_state_tree()` can only be called when all "
                             f"variable paths are unique. Make sure to give unique names to "
                             f"your layers (and other objects).")
        flat[path] = v.val()
    return flat


def _nested(flat):
    nested = {}
    for path, value in flat.items():
        parts = path.split("/")
        current = nested
        for part in parts[:-1]:
            current = current.setdefault(part, {})
        current[parts[-1]] = value
    return nested


def _flatten(tree, prefix=""):
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}/"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _assign(variables, flat, paths):
    by_name = {_path(v, paths): v for v in variables}
    for path, value in flat.items():
        if path in by_name:
            by_name[path].set_value(np.asarray(value))


def _optimizer_state(optimizer, paths):
    """{path: value} of the optimizer's state: its step count, a constant learning rate,
    and the slots it made."""
    name = optimizer.name
    state = {f"{name}/iteration": np.int64(optimizer.iterations)}
    if not isinstance(optimizer.learning_rate, schedules.LearningRateSchedule) and \
            not callable(optimizer.learning_rate):
        state[f"{name}/learning_rate"] = np.float32(optimizer.learning_rate)
    for var in optimizer.variables():
        for slot, array in optimizer.slots(var).items():
            state[f"{name}/{_path(var, paths).replace('/', '_')}_{slot}"] = array.copy()
    return state


def _assign_optimizer(optimizer, weights, flat, paths):
    slots = {}
    for var in weights:
        for slot in getattr(optimizer, "all_slot_names", lambda: ())():
            slots[f"{optimizer.name}/{_path(var, paths).replace('/', '_')}_{slot}"] = \
                (var, slot)
    for path, value in flat.items():
        if path == f"{optimizer.name}/iteration":
            optimizer.iterations = int(np.asarray(value))
        elif path == f"{optimizer.name}/learning_rate":
            optimizer.learning_rate = float(np.asarray(value))
        elif path in slots:
            var, slot = slots[path]
            np.copyto(optimizer.slots(var)[slot], np.asarray(value), casting="unsafe")


def _placeholders(values, what, feeds):
    """Graph inputs standing for arrays (a list, dict or one), with their feeds."""
    if values is None:
        return None
    if isinstance(values, dict):
        return dict(zip(values, (_placeholders(v, what, feeds) for v in values.values())))
    if isinstance(values, (list, tuple)):
        return [_placeholders(v, what, feeds) for v in values]
    array = np.asarray(values)
    var = data(f"stateless_{what}", array.shape, feed_dtype(array, "float32"))
    feeds[var] = array
    return var
