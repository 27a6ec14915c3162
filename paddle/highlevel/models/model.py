"""Models: functional (`pd.Model(inputs, outputs)`) and subclassed (`class Net(pd.Model)`);
`Sequential` is in sequential.py. Training (compile/fit/evaluate/predict) comes from
training.py.

Saving and exporting sit on floors above this one: `paddle.highlevel.saving` fills the
table `formats.SAVING` and `paddle.export` fills `EXPORTERS` when they are imported, and
the model calls through them (imports run downward only).

Example:
    >>> import numpy as np, paddle as pd
    >>> inp = pd.Input(shape=(4,))
    >>> out = pd.layers.Dense(2)(pd.layers.Dense(8, activation="relu")(inp))
    >>> model = pd.Model(inputs=inp, outputs=out)
    >>> model(np.ones((3, 4), np.float32)).shape
    (3, 2)
"""
import collections
import contextlib
import os
import re
import threading
import warnings

import numpy as np

from paddle.distributed.world import is_chief
from paddle.errors import CheckpointError, at_user
from paddle.lowlevel import eager
from paddle.lowlevel.executor import topological_nodes
from paddle.lowlevel.strings import feed_dtype, is_string_array
from paddle.lowlevel.graph import Variable, apply, data
from paddle.highlevel.training.data.arrays import by_name
from paddle.highlevel.layers import eager_calls
from paddle.highlevel.models.state_api import StateTreeAPI
from paddle.highlevel.layers.base import Layer, _call_spec, _check_training, call_context, \
    tensor_arguments
from paddle.highlevel import gptq
from paddle.highlevel.quantization_config import (
    AWQConfig, GPTQConfig, validate_and_resolve_config)
from paddle.highlevel.saving.formats import saving
from paddle.highlevel.saving.serialization import inherited_scope
from paddle.highlevel.training.checks import check_input as _check_input
from paddle.highlevel.training.loop import Trainable

EXPORTERS = {}  # format name -> exporter(model, path, **options); paddle.export fills it


def _flat(x):
    if isinstance(x, dict):
        return list(x.values())
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _keys(structure, what):
    """The keys of a dict of Variables (None for a list or a single one), checked."""
    if not isinstance(structure, dict):
        return None
    for key in structure:
        if not isinstance(key, str) or not key:
            raise TypeError(f"Model: expected the {what} dict's keys to be names (str), "
                            f"received {key!r}")
    if not structure:
        raise ValueError(f"Model: the {what} dict is empty")
    return list(structure)


class Model(StateTreeAPI, Trainable, Layer):
    """A network of layers that can be trained.

    Functional: `pd.Model(inputs=..., outputs=...)` over Variables built by layers and ops.
    Subclassed: set layers in `__init__` (after `super().__init__()`) and write
    `call(self, inputs)` (or `call(self, inputs, training=None)` to branch on the mode) with
    any layers and low-level ops.
    """

    _build_marks_built = False  # a model is built by its graph (traced or functional)


    _summary_lists_inputs = True  # a functional model's summary starts with its inputs

    def __init__(self, inputs=None, outputs=None, name=None, **kwargs):
        Layer.__init__(self, name=name, **kwargs)
        Trainable.__init__(self)
        self._graphs = {}          # training flag -> (inputs, outputs) for subclassed models
        self._training_graph = None  # a functional model's graph for training, if it has one
        self.inputs = self.outputs = None
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("Model: give both inputs and outputs, or subclass Model")
            self._init_graph(inputs, outputs)

    def _init_graph(self, inputs, outputs):
        self._input_keys, self._output_keys = _keys(inputs, "inputs"), _keys(outputs, "outputs")
        self._single_input = not isinstance(inputs, (list, tuple, dict))
        self._single_output = not isinstance(outputs, (list, tuple, dict))
        self.inputs, self.outputs = _flat(inputs), _flat(outputs)
        # What eager calls keep names the graph by this (a plain object: holding the graph
        # itself from a global cache would hold the model, which its layers' calls name).
        self._graph_token = object()
        for v in self.inputs + self.outputs:
            if not isinstance(v, Variable):
                raise TypeError(f"Model: inputs and outputs must be Variables, received "
                                f"{type(v).__name__}")
        for v in self.inputs:
            if v.kind != "data":
                raise ValueError(f"Model: input {v.name!r} is not a graph input (use pd.Input)")
        self._steps = {}  # steps compiled for the previous graph (Sequential add/pop) are stale
        self._training_graph = None  # likewise the replay of the graph for training
        self.built = True
        counts = collections.Counter(layer.name for layer in self.layers)
        repeated = sorted(n for n, c in counts.items() if c > 1)
        if repeated:
            raise ValueError(f"{self.name}: layer names must be unique within a model; "
                             f"{repeated} appear more than once")
        names = self.input_names
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: input names must be unique (dicts of inputs are "
                             f"matched by name); received {names}")

    @property
    def input_names(self):
        """The names that dicts of input arrays are keyed by: the keys of a dict given as
        `inputs`, else each `pd.Input`'s `name`."""
        if self.inputs is None:
            return []
        if getattr(self, "_input_keys", None):
            return list(self._input_keys)
        return [getattr(v, "_input_key", None) or v.name.rsplit("/", 1)[-1]
                for v in self.inputs]

    @property
    def output_names(self):
        """The names that losses, metrics and targets given as dicts are keyed by: the keys
        of a dict given as `outputs`, else the names of the layers making the outputs
        (`output_<i>` for an output made by a low-level op), as in Keras."""
        if getattr(self, "_output_keys", None):
            return list(self._output_keys)
        if self.functional:
            outputs = self.outputs
        elif self._graphs:
            outputs = next(iter(self._graphs.values()))[1]
        else:
            return []
        names = []
        for i, o in enumerate(outputs):
            history = getattr(o, "_history", None)
            name = history[0].name if history and history[0] is not self else f"output_{i}"
            names.append(name if name not in names else f"{name}_{i}")
        return names

    @property
    def functional(self):
        return self.inputs is not None

    @property
    def input(self):
        """The model's input Variable (a list for several, a dict for inputs given as
        one): Keras's `model.input`."""
        if self.functional:
            return self._as_given(self.inputs, self._single_input, "_input_keys")
        return Layer.input.fget(self)

    @property
    def output(self):
        """The model's output Variable (a list for several, a dict for outputs given as
        one): Keras's `model.output`."""
        if self.functional:
            return self._as_given(self.outputs, self._single_output, "_output_keys")
        return Layer.output.fget(self)

    def _as_given(self, flat, single, keys_attr):
        keys = getattr(self, keys_attr, None)
        if keys:
            return dict(zip(keys, flat))
        return flat[0] if single else list(flat)

    # ---- structure ----------------------------------------------------------------------

    @property
    def layers(self):
        """The layers of the model, in the order data flows through them."""
        if not self.functional:
            return [layer for layer in self._sublayers() if isinstance(layer, Layer)]
        return _layers_between(self, self.outputs)

    def _sublayers(self):
        if self.functional:
            return self.layers
        return Layer._sublayers(self)

    def get_layer(self, name=None, index=None):
        """A layer by name or by index in `layers`."""
        layers = self.layers
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool) or \
                    not -len(layers) <= index < len(layers):
                raise ValueError(f"get_layer: index {index!r} is out of range for the "
                                 f"{len(layers)} layers of {self.name}")
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(f"get_layer: no layer named {name!r}; layers: "
                         f"{[layer.name for layer in layers]}")

    @property
    def trainable_weights(self):
        if not self._trainable:
            return []
        with _weights_query():
            seen, out = set(), []
            for w in [w for layer in self.layers for w in layer.trainable_weights] + \
                    [v for v in self._loose_parameters() if v.trainable]:
                if id(w) not in seen:
                    seen.add(id(w))
                    out.append(w)
            return out

    @property
    def weights(self):
        """Every weight in Keras 3's order: layer by layer (see `Layer.weights`), then the
        parameters the model's graph uses that no layer owns."""
        with _weights_query() as known:
            if id(self) not in known:
                owned = Layer.weights.fget(self)
                known[id(self)] = owned + self._loose_parameters(owned)
            return list(known[id(self)])

    @property
    def non_trainable_weights(self):
        with _weights_query():
            trainable = {id(w) for w in self.trainable_weights}
            seen, out = set(), []
            owned = [w for layer in self.layers for w in layer.weights]
            for w in owned + self._loose_parameters(owned):
                if id(w) not in trainable and id(w) not in seen:
                    seen.add(id(w))
                    out.append(w)
            return out

    def _loose_parameters(self, owned=None):
        """Parameters used by the model's graph that no layer owns (pd.Variable in call);
        `owned`, when the caller has them, the layers' weights (else computed here)."""
        if owned is None:
            owned = [w for layer in self.layers for w in layer.weights]
        seen = {id(w) for w in owned}  # owned, or found
        graphs = [self.outputs] if self.functional else [g[1] for g in self._graphs.values()]
        candidates = [v for outputs in graphs for node in topological_nodes(outputs)
                      for v in node.inputs]
        if not self.functional:
            candidates += [v for v in self.__dict__.values() if isinstance(v, Variable)]
        found = []
        for v in candidates:
            if v.kind == "param" and id(v) not in seen and \
                    not getattr(v, "_layer_state", False):  # a stateful RNN's states
                seen.add(id(v))
                found.append(v)
        return found

    # ---- calling ------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if eager_calls.lookup(self, args, kwargs) is not None:
            # An eager call of a signature seen before: the checks below passed then.
            out = Layer.__call__(self, *args, **kwargs)
            return self._structured(out) if self.functional else out
        inputs, kwargs = _call_spec(type(self)).bind(self, args, kwargs)
        if isinstance(inputs, dict) and self.functional:
            inputs = by_name(inputs, self.input_names, f"{self.name}: inputs", "inputs")
            inputs = inputs[0] if self._single_input else inputs
        flat = _flat(inputs)
        if "training" in kwargs:  # an array there (a second positional input) is refused
            kwargs["training"] = _check_training(kwargs["training"], self.name)
        if flat and not eager.is_tracing() and all(eager.is_concrete(x) for x in flat):
            # Runs at once (Layer.__call__); a subclassed model is first traced on data
            # shaped like the inputs, so that saving and summary know its graph.
            self._ensure_graph([np.asarray(x) for x in flat])
            if any(is_string_array(np.asarray(x)) for x in flat) and \
                    not kwargs.get("training"):
                # Text is read on the host by the model's preprocessing layers: run the
                # traced model on it, as predict does.
                return self.predict_on_batch(inputs)
            known = self.inputs if self.functional else None
            if known and len(known) == len(flat):  # named as the model's input, as predict
                for old, x in zip(known, flat):
                    _check_input(self, old, np.shape(x))
        if self.functional:
            return self._structured(Layer.__call__(self, inputs, **kwargs))
        self.built = True  # calling `call` on Variables is itself the trace
        out = Layer.__call__(self, inputs, **kwargs)
        if not self._graphs and flat and all(isinstance(v, Variable) and v.kind == "data"
                                             for v in flat):
            # The first call on graph inputs (a custom train_step's self(x)) is the model's
            # trace: saving needs its input shapes, as after a call on data.
            self._graphs[bool(kwargs.get("training"))] = (list(flat), _flat(out))
            self._single_input = not isinstance(inputs, (list, tuple))
            self._single_output = not isinstance(out, (list, tuple))
        return out

    # ---- eager calls seen before (layers/eager_calls.py) --------------------------------

    def _eager_state(self):
        # The checks of Model.__call__ (the input against the model's inputs) too.
        return Layer._eager_state(self) + (self.__dict__.get("_graph_token"),)

    def _eager_program_reads(self):
        """A functional model (Sequential included) of one input whose layers are all
        pure (eager_calls.py) runs its eager calls as one program: what it reads is its
        graph and what each layer reads, in the state each layer is in."""
        if not self.functional or len(self.inputs) != 1 or _call_spec(type(self)).user_code:
            return None
        reads = [self._graph_token]
        for layer in eager_calls.layers_of(self):
            own = layer._eager_program_reads()
            if own is None or layer.activity_regularizer is not None:
                return None
            reads.append(layer._eager_state())
            reads.append(own)
        return tuple(reads)

    def build(self, input_shape):
        """Create the weights by tracing `call` on inputs of this shape."""
        if self.functional:
            return
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        inputs = [data(f"{self.name}_input_{i}", s) for i, s in enumerate(shapes)]
        self._trace_with(inputs if isinstance(input_shape, list) else inputs[0], False)

    def call(self, inputs, training=None):
        if not self.functional:
            raise NotImplementedError(f"{type(self).__name__}: a subclassed Model must "
                                      "implement call(self, inputs, training=False)")
        return self._replay(inputs)

    def _replay(self, inputs):
        """The functional graph rebuilt on new input Variables (layers are shared)."""
        new = _flat(inputs)
        if len(new) != len(self.inputs):
            raise ValueError(at_user(f"{self.name}: expected {len(self.inputs)} inputs, "
                                     f"received {len(new)}"))
        mapping = {}
        for old, v in zip(self.inputs, new):
            _check_input(self, old, v.shape)
            mapping[id(old)] = v
        outs = [_resolve(v, mapping) for v in self.outputs]
        return outs[0] if self._single_output else outs

    def _structured(self, outputs):
        """Outputs (a list, as the graph holds them) as a dict when the model's outputs
        were given as one."""
        if getattr(self, "_output_keys", None) and isinstance(outputs, (list, tuple)):
            return dict(zip(self._output_keys, outputs))
        return outputs

    def graph(self, training=False, example=None):
        """(inputs, outputs) Variables of the model's graph for a mode; a subclassed model is
        traced on first use from `example` arrays (their shapes, any batch size). A
        functional model has its construction graph, and for training a second one when a
        layer branches on `training` in Python (see `_functional_graph`)."""
        if self.functional:
            return self._functional_graph(training)
        if training not in self._graphs:
            if not self._graphs and example is None:
                raise ValueError(f"{self.name}: the model has not been called yet; call it "
                                 "on data (or fit it) so its input shapes are known")
            if example is not None:
                inputs = [data(f"{self.name}_input_{i}", (None,) + np.shape(a)[1:],
                               feed_dtype(np.asarray(a), self.dtype))
                          for i, a in enumerate(example)]
            else:
                first = next(iter(self._graphs.values()))[0]
                inputs = [data(v.name, v.shape, v.dtype) for v in first]
            self._trace_with(inputs if len(inputs) > 1 else inputs[0], training)
        return self._graphs[training]

    def _functional_graph(self, training):
        """The construction graph, built with training=None: paddle's own layers switch mode
        inside the plan, so one graph serves every mode. A user's layer whose `call` takes
        `training` (in this model or a nested one) may branch on it in Python, so training
        gets the graph replayed on new inputs with training=True, as Keras's
        `model(x, training=True)` re-runs each layer's call: the same layers and weights,
        their new calls' add_loss values kept for the training step alone."""
        if not training or not _branches_on_training(self):
            return self.inputs, self.outputs
        if self._training_graph is None:
            inputs = [data(v.name, v.shape, v.dtype) for v in self.inputs]
            before = _add_loss_ids(self)
            with call_context(True), _recent_losses_kept(self):
                outputs = _flat(self._replay(inputs))
            self._training_graph = (inputs, outputs)
            self._graph_losses = (before, _add_loss_ids(self) - before)
        return self._training_graph

    def _losses_of_graph(self, fed):
        """`_all_losses()` less those of the other graph, for a functional model with two:
        fed the training graph's inputs, the replay's add_loss values count, else the
        others. (A value that reads no input, `add_loss(ops.sum(self.w))`, is computable in
        both and would count twice.) Weight penalties serve both graphs."""
        losses = self._all_losses()
        if getattr(self, "_training_graph", None) is None:
            return losses
        construction, replayed = self._graph_losses
        other = construction if any(id(v) in fed for v in self._training_graph[0]) else replayed
        return [loss for loss in losses if id(loss) not in other]

    def _trace_with(self, inputs, training):
        self.built = True
        with call_context(training):  # call(..., training) hears it; the plan sets the mode
            out = Layer.__call__(self, inputs)
        self._graphs[training] = (_flat(inputs), _flat(out))
        self._single_output = not isinstance(out, (list, tuple))
        self._single_input = not isinstance(inputs, (list, tuple))

    def _ensure_graph(self, arrays):
        if not self.functional and not self._graphs:
            self.graph(False, example=arrays)

    # ---- quantization -------------------------------------------------------------------

    def quantize(self, mode=None, config=None, filters=None, **kwargs):
        """Quantize the weights of every layer that has a quantized form (Keras's
        `Model.quantize`): Dense, EinsumDense and Embedding to int8 or int4, Dense and
        EinsumDense to float8 (see paddle/highlevel/layers/quantization.py); other layers
        are left as they are, with Keras's warning. The model's graph is rebuilt on the
        quantized calls, so the float kernels (int8, int4) are gone from it and from
        `weights`.

        Args:
            mode: "int8", "int4", "float8", "gptq" or "awq". Optional with `config`.
            config: a `pd.quantizers.Int8QuantizationConfig`, `Int4QuantizationConfig`
                (its block size), `Float8QuantizationConfig`, `GPTQConfig` or
                `AWQConfig` (required for "gptq", "awq": the calibration data and the
                blocks, see
                paddle/highlevel/gptq.py; the Dense layers of the blocks are quantized,
                other Dense layers keep their float kernel under a GPTQ/AWQ policy, as
                Keras's).
            filters: a regular expression, a list of them (searched in layer names) or a
                callable(layer) -> bool: only the layers it accepts are quantized.

        Raises:
            ValueError: Keras's errors: an unknown mode, neither mode nor config,
                contradicting mode and config, a layer not built or already quantized.

        Example:
            >>> import numpy as np, paddle as pd
            >>> model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(2)])
            >>> model.quantize("int8")
            >>> model.layers[0].dtype_policy.name, model.predict(np.ones((1, 4)), verbose=0).shape
            ('int8_from_float32', (1, 2))
        """
        type_check = kwargs.pop("type_check", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to "
                             f"{type(self).__name__}: {kwargs}")
        if filters is not None and not isinstance(filters, (str, list, tuple)) and \
                not callable(filters):
            raise ValueError("The `filters` argument must be a regex string, a list of regex "
                             f"strings, or a callable. Received: {type(filters)}")
        config = validate_and_resolve_config(mode, config)  # awq: refused here
        structure = None
        if config.mode in ("gptq", "awq"):  # Keras's checks, before any layer changes
            name = {"gptq": "GPTQ", "awq": "AWQ"}[config.mode]
            if not isinstance(config, {"gptq": GPTQConfig, "awq": AWQConfig}[config.mode]):
                raise ValueError(f"For {name}, you must pass a `{name}Config` object in the "
                                 f"`config` argument. Received: config={config!r}")
            if config.dataset is None or config.tokenizer is None:
                raise ValueError(f"{name} quantization requires a dataset and a tokenizer. "
                                 f"Please provide them in the `{name}Config`.")
            structure = config.quantization_layer_structure
            if structure is None:
                structure = self.get_quantization_layer_structure(config.mode)
            if structure is None:
                raise ValueError(
                    f"For mode='{config.mode}', a valid quantization structure must be "
                    "provided either via `config.quantization_layer_structure` or by "
                    "overriding `model.get_quantization_layer_structure(mode)`. The "
                    "structure should be a dictionary with keys 'pre_block_layers' and "
                    "'sequential_blocks'.")
            gptq.check_structure(structure)
        changed = False
        for layer in [self] + self._nested_layers():
            if layer._nested_layers() or not _accepts(layer, filters):
                continue  # Keras quantizes the leaves only
            try:
                layer.quantize(config.mode, type_check=type_check, config=config)
                changed = True
            except NotImplementedError as e:
                warnings.warn(str(e), stacklevel=2)
        if structure is not None:  # the calibration pass (paddle/highlevel/gptq.py)
            gptq.quantize_model(config, structure, lambda layer: _accepts(layer, filters))
        if changed:  # the innermost models first: an outer graph calls the inner ones
            for model in [m for m in reversed(self._nested_layers())
                          if isinstance(m, Model)] + [self]:
                model._quantized_graph()

    quantize._checked = True  # its own checks above, not a layer's (checked_quantize)

    def _quantized_graph(self):
        """The graph made again from the layers' calls (now quantized), each call taking
        the place of the one it replaces in its layer's history (so the old graph, and
        the float kernels it read, are freed)."""
        self._steps = {}
        self._training_graph = None
        if not self.functional:
            self._graphs = {}
            return
        layers = self._nested_layers()
        before = {id(layer): len(layer._inbound) for layer in layers}
        mapping = {id(v): v for v in self.inputs}
        self.outputs = [_resolve(v, mapping) for v in self.outputs]
        for layer in layers:
            _reuse_call_slots(layer, before[id(layer)], mapping)

    # ---- description --------------------------------------------------------------------

    def summary(self, print_fn=print):
        """Print the layers with output shapes and parameter counts, and the totals. A
        functional model lists its inputs first, as Keras's `InputLayer` rows."""
        rows = [("Layer (type)", "Output Shape", "Param #")]
        if self.functional and self._summary_lists_inputs:
            rows += [(f"{v.name} (InputLayer)", str(v.shape), "0") for v in self.inputs]
        for layer in self.layers:
            shape = layer._inbound[-1][1][0].shape if layer._inbound else "?"
            rows.append((f"{layer.name} ({type(layer).__name__})", str(shape),
                         f"{layer.count_params():,}"))
        loose = self._loose_parameters()
        if loose:
            rows.append(("(parameters outside layers)", "", f"{_count(loose):,}"))
        widths = [max(len(r[i]) for r in rows) + 2 for i in range(3)]
        line = "-" * sum(widths)
        print_fn(f'Model: "{self.name}"')
        print_fn(line)
        for i, r in enumerate(rows):
            print_fn("".join(c.ljust(w) for c, w in zip(r, widths)))
            print_fn("=" * sum(widths) if i == 0 else line)
        trainable, frozen = _count(self.trainable_weights), _count(self.non_trainable_weights)
        print_fn(f"Total params: {trainable + frozen:,}")
        print_fn(f"Trainable params: {trainable:,}")
        print_fn(f"Non-trainable params: {frozen:,}")

    def get_config(self):
        """A functional model's whole architecture in Keras's layout (every layer with its
        `inbound_nodes`, `input_layers`, `output_layers`); `Model.from_config` rebuilds it
        with new weights. A subclassed model gives its name and `trainable` (extend it with
        your `__init__` arguments)."""
        if type(self) is Model and self.functional:
            return saving("model_config")(self, top=False)["config"]
        return {"name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new model from `get_config()`'s dict: a functional architecture, or the
        constructor arguments of a subclassed model.

        Example:
            >>> import paddle as pd
            >>> inp = pd.Input(shape=(3,))
            >>> model = pd.Model(inp, pd.layers.Dense(2)(inp))
            >>> pd.Model.from_config(model.get_config()).outputs[0].shape
            (None, 2)
        """
        if cls is Model and isinstance(config, dict) and "input_layers" in config and \
                "layers" in config:
            try:
                with _safe_unless_told():
                    return saving("functional_from_config")(config, custom_objects)
            except CheckpointError as e:
                raise ValueError(f"Model.from_config: {e}") from e
        return cls(**config)

    def to_json(self, **kwargs):
        """The architecture as a JSON string in Keras 3's format (`kwargs` go to
        json.dumps); `pd.models.model_from_json` rebuilds the model, with new weights.

        Example:
            >>> import paddle as pd
            >>> model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
            >>> pd.models.model_from_json(model.to_json()).outputs[0].shape
            (None, 2)
        """
        return saving("to_json")(self, **kwargs)

    # ---- saving (paddle/highlevel/saving/api.py, docs/saving.md) ------------------------

    def save(self, filepath, overwrite=True, include_optimizer=True):
        """Write the whole model to one file, atomically: architecture, weights, optimizer
        state, compile settings and training position. A name ending in `.keras` gets Keras
        3's native zip, `.h5` or `.hdf5` Keras's legacy HDF5 layout (docs/saving.md); any
        other name raises ValueError, as in Keras 3. `pd.load_model(filepath)` gives it
        back. In distributed training only rank 0 writes (the ranks hold the same weights);
        on the others this does nothing."""
        if is_chief():
            saving("save_model")(self, filepath, overwrite, include_optimizer)

    def save_weights(self, filepath, overwrite=True):
        """Write the weights alone: Keras 3's layout (with the optimizer's state) for a
        name ending in `.weights.h5`, Keras's legacy weights layout otherwise. In
        distributed training only rank 0 writes."""
        if is_chief():
            saving("save_weights")(self, filepath, overwrite)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False):
        """Load weights written by save_weights or save (paddle's or Keras's files). From
        legacy .h5 files: by layer order or, with by_name, by layer name; skip_mismatch
        (with by_name) skips layers whose weights do not fit, with a warning each. From
        `.keras` and `.weights.h5` files: by Keras 3's paths, restoring a compiled model's
        optimizer state too (as Keras 3). Raises pd.CheckpointError (assigning nothing)
        when the file does not fit the model."""
        saving("load_weights")(self, filepath, by_name, skip_mismatch)

    def export(self, filepath, format="onnx", **options):
        """Write the model for another runtime, as Keras 3's `export` (format "onnx").

        An ONNX model with a dynamic batch axis that ONNX Runtime runs with the outputs of
        `predict`, written atomically; options: opset_version. See
        `paddle.export.onnx.export_onnx` (its example runs ONNX Runtime) and
        docs/deployment.md. Raises pd.ExportError (a ValueError) naming the model and the
        layer when the model is not built or holds something ONNX export cannot map.
        """
        export_model(self, filepath, format, **options)


_QUERY = threading.local()


@contextlib.contextmanager
def _weights_query():
    """One question about a model's weights (`weights`, `trainable_weights`, ...): within
    it, each nested model's `weights` is computed once ({id(model): weights}). Asked
    again by every level above it (for the list, then for the parameters no layer owns),
    nested models made the work double at each level: 20 nested models took 20 s."""
    if getattr(_QUERY, "known", None) is not None:
        yield _QUERY.known
        return
    _QUERY.known = {}
    try:
        yield _QUERY.known
    finally:
        _QUERY.known = None


def _layers_between(model, outputs):
    """The layers whose calls produced `outputs`, inputs first. A nested model counts as one
    layer: the walk goes from a layer call's outputs to its inputs, never inside it."""
    found, seen = [], set()
    stack = [(v, False) for v in reversed(outputs)]
    while stack:
        var, expanded = stack.pop()
        history = getattr(var, "_history", None)
        layer = history[0] if history and history[0] is not model else None
        if expanded:
            if layer is not None and layer not in found:
                found.append(layer)
            continue
        if id(var) in seen:
            continue
        seen.add(id(var))
        stack.append((var, True))
        if layer is not None:
            ins, _, kwargs = layer._inbound[history[1]]
            parents = list(ins) + tensor_arguments(kwargs)
        else:
            parents = var.node.inputs if var.node is not None else []
        stack.extend((v, False) for v in reversed(parents) if id(v) not in seen)
    return found


def _branches_on_training(model):
    """Whether a layer of the model, at any depth, is user code that takes `training`."""
    return any(_call_spec(type(layer)).user_training for layer in model._nested_layers())


def _add_loss_ids(model):
    return {id(v) for layer in [model] + model._nested_layers() for v in layer._losses}


@contextlib.contextmanager
def _recent_losses_kept(model):
    """`layer.losses` (the latest call's) stay those of the model's construction while the
    training graph is replayed: its calls' add_loss values reach only the training step
    (which picks the losses its own inputs compute), so nothing is counted twice."""
    layers = [model] + model._nested_layers()
    kept = [list(layer._recent_losses) for layer in layers]
    try:
        yield
    finally:
        for layer, losses in zip(layers, kept):
            layer._keep_recent_losses(losses)


def _accepts(layer, filters):
    """Keras's `should_quantize_layer`: whether `filters` lets `layer` be quantized."""
    if filters is None:
        return True
    if isinstance(filters, str):
        return bool(re.search(filters, layer.name))
    if isinstance(filters, (list, tuple)):
        return any(re.search(pattern, layer.name) for pattern in filters)
    return bool(filters(layer))


def _reuse_call_slots(layer, count, mapping):
    """Move the calls `_resolve` appended to `layer._inbound` into the slots of the calls
    they remade (the first `count`), and drop the appended ones when all moved."""
    moved = set()
    for i in range(count):
        new = [mapping.get(id(v)) for v in layer._inbound[i][1]]
        if not new or any(v is None or getattr(v, "_history", (None,))[0] is not layer
                          for v in new):
            continue
        j = new[0]._history[1]
        if j < count:
            continue
        layer._inbound[i] = layer._inbound[j]
        for k, v in enumerate(new):
            v._history = (layer, i, k)
        moved.add(j)
    if moved == set(range(count, len(layer._inbound))):
        del layer._inbound[count:]


def _count(weights):
    return int(sum(np.prod(w.shape) for w in weights))


def _resolve(var, mapping):
    """var rebuilt on the mapped inputs: layer calls are called again, other ops re-applied."""
    if id(var) in mapping:
        return mapping[id(var)]
    history = getattr(var, "_history", None)
    if history is not None:
        layer, index, _ = history
        ins, outs, kwargs = layer._inbound[index]
        new_ins = [_resolve(v, mapping) for v in ins]
        was_list = len(ins) > 1 or getattr(layer, "_list_input", False)
        kwargs = {k: _resolve_argument(v, mapping) for k, v in kwargs.items()}
        result = _flat(layer(new_ins if was_list else new_ins[0], **kwargs))
        for old, new in zip(outs, result):
            mapping[id(old)] = new
    elif var.node is None:
        if var.kind == "data":
            raise ValueError(f"the model's graph reads {var.name!r}, which is not one of its "
                             "inputs")
        return var  # parameters and constants are shared
    else:
        node = var.node
        result = _flat(apply(node.op, [_resolve(v, mapping) for v in node.inputs], node.attrs))
        if len(result) > 1:  # as keep_siblings: gradients read saved outputs (dropout's mask)
            result[0]._siblings = tuple(result[1:])
        for old, new in zip(node.outputs, result):
            if old is not None:
                mapping[id(old)] = new
    return mapping[id(var)]


def _resolve_argument(value, mapping):
    """A call's keyword argument on the mapped inputs (Variables in it rebuilt)."""
    if isinstance(value, Variable):
        return _resolve(value, mapping)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Variable) for v in value):
        return type(value)(_resolve_argument(v, mapping) for v in value)
    return value


def _safe_unless_told():
    """Rebuilding a model from a config refuses a Lambda's bytecode, as Keras 3's
    from_config does, unless a caller's safe_mode_scope(False) (load_model(...,
    safe_mode=False)) says the config is trusted."""
    return inherited_scope(True)


def export_model(model, filepath, format="onnx", **options):
    """Writes `model` to `filepath` in `format` with the exporter registered for it in
    `EXPORTERS` (see `Model.export`); returns what the exporter returns."""
    if not isinstance(format, str) or format.lower() not in EXPORTERS:
        raise ValueError(f"export: expected format {' or '.join(map(repr, EXPORTERS))}, "
                         f"received {format!r}")
    try:
        path = os.fspath(filepath)
    except TypeError:
        raise TypeError(f"export: expected filepath to be a path, received "
                        f"{type(filepath).__name__}") from None
    return EXPORTERS[format.lower()](model, path, **options)
