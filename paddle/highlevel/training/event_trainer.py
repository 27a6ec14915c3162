"""The seeds' Trainer and Inferencer: a network as a Python function, training driven by
events — a thin layer over Model.fit and callbacks (PaddlePaddle issue #10248).

`train_func` builds the graph and returns `[loss, *metrics]`; the Trainer wraps that
graph in a functional Model whose `train_step` replays it on the loop's inputs, and runs
`Model.fit` with a callback that turns the loop's hooks into events. docs/trainer.md
compares this style with `Model.fit`.

Example:
    >>> import numpy as np, paddle as pd
    >>> def net():
    ...     x = pd.data("x", shape=[None, 3])
    ...     return pd.fc(x, size=1)
    >>> def train_program():
    ...     y = pd.data("y", shape=[None, 1])
    ...     return [pd.mean(pd.square(net() - y))]
    >>> trainer = pd.Trainer(train_program, lambda: pd.optimizers.SGD(0.1))
    >>> samples = [(np.ones(3, np.float32), np.ones(1, np.float32))] * 8
    >>> reader = pd.reader.batch(lambda: iter(samples), 4)
    >>> trainer.train(2, lambda e: None, reader, feed_order=["x", "y"])
    >>> loss, = trainer.test(reader, feed_order=["x", "y"])
    >>> loss < 1.0
    True
"""
import contextlib
import functools
import os

import numpy as np

from paddle import devices
from paddle.distributed.world import is_chief
from paddle.errors import CheckpointError, FeedError
from paddle.lowlevel import stored_state
from paddle.lowlevel.executor import eval as run
from paddle.lowlevel.executor import topological_nodes
from paddle.lowlevel.graph import FLOATS, Variable, fresh_names
from paddle.lowlevel.optimizers import Optimizer, trainable_parameters
from paddle.highlevel.saving import hdf5_file, hdf5_reader as saving_reader
from paddle.highlevel.callbacks import Callback
from paddle.highlevel.models.model import Model
from paddle.reader.arrays import iter_batches

PARAMS_FILE = "params.h5"


class _Event:
    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class BeginEpochEvent(_Event):
    """Before the first step of epoch `epoch` (counted from 0)."""

    def __init__(self, epoch):
        self.epoch = epoch


class EndEpochEvent(_Event):
    """After the last step of epoch `epoch` (also when `stop()` cut the epoch short)."""

    def __init__(self, epoch):
        self.epoch = epoch


class BeginStepEvent(_Event):
    """Before step `step` (counted from 0 in each epoch) of epoch `epoch`."""

    def __init__(self, epoch, step):
        self.epoch, self.step = epoch, step


class EndStepEvent(_Event):
    """After a step; `metrics`: this batch's loss and metrics as floats, the loss first."""

    def __init__(self, epoch, step, metrics):
        self.epoch, self.step, self.metrics = epoch, step, metrics


def _graph_inputs(outputs):
    """The pd.data Variables the outputs read, by name."""
    found = {}
    for node in topological_nodes(outputs):
        for v in node.inputs:
            if v.kind == "data":
                if v.name in found and found[v.name] is not v:
                    raise ValueError(f"the network has two inputs named {v.name!r}")
                found[v.name] = v
    for v in outputs:
        if v.kind == "data":
            found[v.name] = v
    return found


def _parameters(outputs):
    params, seen = [], set()
    for node in topological_nodes(outputs):
        for v in node.inputs:
            if v.kind == "param" and id(v) not in seen:
                seen.add(id(v))
                params.append(v)
    return params


def _ordered_inputs(inputs, feed_order, where):
    """The network's pd.data inputs in feed_order's order; every input named exactly once."""
    if isinstance(feed_order, str) or not isinstance(feed_order, (list, tuple)) or \
            not all(isinstance(n, str) for n in feed_order):
        raise TypeError(f"{where}: feed_order must be a list of input names, received "
                        f"{feed_order!r}")
    unknown = [n for n in feed_order if n not in inputs]
    if unknown:
        raise FeedError(f"{where}: feed_order names {unknown}, which are not inputs of the "
                        f"network; its inputs are {sorted(inputs)}")
    missing = [n for n in inputs if n not in feed_order]
    if missing or len(feed_order) != len(set(feed_order)):
        raise FeedError(f"{where}: feed_order must name each input of the network once: its "
                        f"inputs are {sorted(inputs)}, received {list(feed_order)}")
    return [inputs[n] for n in feed_order]


def _check_reader(reader, where):
    if not callable(reader):
        raise TypeError(f"{where}: reader must be a batched reader creator (a function "
                        f"returning an iterator of batches, e.g. pd.reader.batch(...)), "
                        f"received {type(reader).__name__}")


def _checked_batches(reader, inputs, where):
    """The reader's batches as tuples of arrays, each field checked against the input that
    feed_order gives it (so a mismatch names the input, not an internal feed)."""
    for index, fields in enumerate(iter_batches(reader)):
        if len(fields) != len(inputs):
            raise FeedError(f"{where}: batch {index} has {len(fields)} fields per sample, but "
                            f"feed_order names {len(inputs)} inputs "
                            f"{[v.name for v in inputs]}")
        for position, (field, var) in enumerate(zip(fields, inputs)):
            if not isinstance(field, np.ndarray):
                raise FeedError(f"{where}: field {position} of batch {index} is a "
                                f"{type(field).__name__}; feed_order needs arrays (dicts "
                                f"of arrays are for Model.fit)")
            if field.ndim != len(var.shape) or any(
                    d is not None and d != s for d, s in zip(var.shape, field.shape)):
                raise FeedError(f"{where}: field {position} of the reader goes to input "
                                f"{var.name!r} (position {position} in feed_order), which "
                                f"expects shape {var.shape}; batch {index} has shape "
                                f"{field.shape}")
            if not np.can_cast(field.dtype, var.dtype, "same_kind"):
                raise FeedError(f"{where}: field {position} of the reader goes to input "
                                f"{var.name!r} (position {position} in feed_order), which "
                                f"expects {var.dtype}; batch {index} holds {field.dtype}")
        yield fields


@contextlib.contextmanager
def _default_device(place):
    """Run with `place` as the default device: fit builds its steps on the default one."""
    saved = devices.get_device()
    devices.set_device(place)
    try:
        yield
    finally:
        devices.set_device(saved)


def load_params(params, dirname):
    """Assign saved values to parameters by name. Every name, shape and dtype is checked,
    and every value read, before the first is assigned; only the parameters' own
    datasets are read (through saving_reader: no links, external or virtual data)."""
    if os.path.isfile(dirname):
        raise CheckpointError(f"param_path must be the folder given to save_params, received "
                              f"the file {dirname!r}")
    path = os.path.join(dirname, PARAMS_FILE)
    if not os.path.isfile(path):
        raise CheckpointError(f"no saved parameters at {path!r} (param_path is the folder "
                              "given to Trainer.save_params)")
    with saving_reader.open_file(path, "not a readable parameter file: Trainer.save_params "
                                       "writes HDF5") as f:
        found = {p.name: saving_reader.find(f, p.name, path) for p in params}
        missing = [name for name, dset in found.items() if dset is None]
        if missing:
            held = saving_reader.dataset_names(f, 11)
            raise CheckpointError(f"{path}: no saved value for the parameters {missing}; the "
                                  f"file holds {held[:10]}{' ...' if len(held) > 10 else ''}")
        datasets = [saving_reader.dataset(f, p.name, path) for p in params]
        for p, dset in zip(params, datasets):
            _check_saved(path, p, dset)
        values = [saving_reader.read(dset, p.shape, path) for p, dset in zip(params, datasets)]
    for p, value in zip(params, values):
        p.set_value(value)


def _check_saved(path, param, dset):
    if tuple(dset.shape) != tuple(param.shape):
        raise CheckpointError(f"{path}: parameter {param.name!r} has shape {param.shape} in "
                              f"the network but {tuple(dset.shape)} in the file")
    if not (np.can_cast(dset.dtype, param.dtype, "same_kind") or dset.dtype.kind == "b"):
        raise CheckpointError(f"{path}: parameter {param.name!r} is {param.dtype} in the "
                              f"network but {dset.dtype} in the file")


class _ProgramModel(Model):
    """The Trainer's graph as a model: train_step replays it on the loop's inputs."""

    def __init__(self, inputs, outputs):
        super().__init__(inputs=inputs, outputs=outputs, name="trainer_program")

    def train_step(self, data):
        outs = self._replay(list(data) if isinstance(data, tuple) else [data])
        outs = outs if isinstance(outs, list) else [outs]
        self.optimizer.minimize(outs[0])
        return {("loss" if i == 0 else f"metric_{i}"): v for i, v in enumerate(outs)}


class _Events(Callback):
    def __init__(self, handler):
        super().__init__()
        self.handler, self.epoch = handler, 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch
        self.handler(BeginEpochEvent(epoch))

    def on_epoch_end(self, epoch, logs=None):
        self.handler(EndEpochEvent(epoch))

    def on_train_batch_begin(self, batch, logs=None):
        self.handler(BeginStepEvent(self.epoch, batch))

    def on_train_batch_end(self, batch, logs=None):
        values = self.model._last_batch
        self.handler(EndStepEvent(self.epoch, batch, [float(v) for v in values.values()]))


class Trainer:
    """Trains the network that `train_func` builds; events report progress.

    Args:
        train_func: builds the graph with `pd.data` inputs; returns the loss Variable (a
            float scalar) or a list `[loss, *metrics]` of scalar Variables.
        optimizer_func: a function returning the optimizer
            (e.g. `lambda: pd.optimizers.Adam(1e-3)`).
        place: "cpu", or "gpu" / "gpu:N" (an NVIDIA GPU through CuPy, docs/gpu.md).
        param_path: a folder written by `save_params` to start from.

    Raises:
        TypeError: train_func returns no Variable, or optimizer_func gives no optimizer.
        ValueError: the loss or a metric is not a scalar, or the loss reaches no
            trainable parameter.
        CheckpointError: param_path holds no parameters, or ones of other shapes.
    """

    def __init__(self, train_func, optimizer_func, place="cpu", param_path=None):
        devices.kernels_for(place)  # an unusable place fails now, saying why
        self.place = place
        if not callable(train_func):
            raise TypeError(f"Trainer: train_func must be a function that builds the network, "
                            f"received {type(train_func).__name__}")
        with fresh_names():
            outputs = train_func()
        self.outputs = _checked_outputs(outputs)
        self.inputs = _graph_inputs(self.outputs)
        self.optimizer = _make_optimizer(optimizer_func)
        if param_path is not None:
            load_params(_parameters(self.outputs), param_path)
        self._models = {}
        self._current = None

    def _model(self, feed_order):
        """The model whose inputs are in feed_order's order (one per order, sharing the
        parameters and the optimizer)."""
        inputs = _ordered_inputs(self.inputs, feed_order, "Trainer.train")
        key = tuple(feed_order)
        if key not in self._models:
            model = _ProgramModel(inputs, self.outputs)
            model.compile(optimizer=self.optimizer)
            self._models[key] = model
        return self._models[key]

    def train(self, num_epochs, event_handler, reader, feed_order):
        """Train for `num_epochs` passes over a batched reader creator.

        Args:
            num_epochs: number of passes (an int >= 0).
            event_handler: called with each Begin/End Epoch/Step event (None: no events).
                It may call `test`, `save_params` and `stop`.
            reader: a batched reader creator (`pd.reader.batch(...)`); each sample's
                fields go to the inputs named by `feed_order`, in that order.
            feed_order: the names of the network's `pd.data` inputs, each once.

        Raises:
            FeedError: feed_order or the reader's fields do not match the inputs.
        """
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, (int, np.integer)) \
                or num_epochs < 0:
            raise ValueError(f"Trainer.train: num_epochs must be an int >= 0, received "
                             f"{num_epochs!r}")
        if event_handler is not None and not callable(event_handler):
            raise TypeError(f"Trainer.train: event_handler must be a function of one event "
                            f"(or None), received {type(event_handler).__name__}")
        model = self._model(feed_order)
        inputs = model.inputs
        self._current = model
        _check_reader(reader, "Trainer.train")
        batches = functools.partial(_checked_batches, reader, inputs, "Trainer.train")
        with _default_device(self.place):  # fit builds its steps on the default device
            model.fit(batches, epochs=int(num_epochs), verbose=0,
                      callbacks=[_Events(event_handler or (lambda event: None))])

    def test(self, reader, feed_order):
        """The loss and metrics averaged over every sample of a batched reader.

        Returns:
            A list of floats, the loss first, in the order train_func returned them.
        """
        inputs = _ordered_inputs(self.inputs, feed_order, "Trainer.test")
        _check_reader(reader, "Trainer.test")
        totals, count = np.zeros(len(self.outputs)), 0
        for fields in _checked_batches(reader, inputs, "Trainer.test"):
            values = run(self.outputs, dict(zip(inputs, fields)), device=self.place)
            n = len(fields[0])
            totals += np.array([float(v) for v in values]) * n
            count += n
        if count == 0:
            raise ValueError("Trainer.test: the reader produced no sample")
        return [float(v) for v in totals / count]

    def save_params(self, dirname):
        """Write every parameter of the network, by name, to `dirname/params.h5` (in
        distributed training, on rank 0 only)."""
        if not is_chief():
            return
        # Through the one HDF5 writer: a unique temporary file, fsynced and renamed over the
        # target, so two saves at once both succeed and a crash never leaves a half file.
        parameters = _parameters(self.outputs)
        with stored_state.LOCK:  # one snapshot, before or after a step in another thread
            values = [(p.name, p.val()) for p in parameters]
        def write(f):
            for name, value in values:
                f.create_dataset(name, data=value)
        hdf5_file.atomic_write(os.path.join(dirname, PARAMS_FILE), write, create_folder=True)

    def stop(self):
        """End training after the current step (from inside the event handler); the
        current epoch's EndEpochEvent still arrives."""
        if self._current is not None:
            self._current.stop_training = True


def _checked_outputs(outputs):
    """train_func's result as [loss, *metrics]: float scalar loss, scalar metrics."""
    flat = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    if not flat or not all(isinstance(v, Variable) for v in flat):
        raise TypeError("Trainer: train_func must return the loss Variable, or a list "
                        f"[loss, *metrics] of Variables; received {outputs!r}")
    for i, v in enumerate(flat):
        if v.shape != ():
            what = "the loss" if i == 0 else f"metric {i}"
            raise ValueError(f"Trainer: {what} ({v.name!r}) must be a scalar (reduce it with "
                             f"pd.mean), received shape {v.shape}")
    loss = flat[0]
    if loss.dtype not in FLOATS:
        raise TypeError(f"Trainer: the loss ({loss.name!r}) must be a float scalar, received "
                        f"{loss.dtype}")
    if not trainable_parameters(loss):
        raise ValueError(f"Trainer: the loss ({loss.name!r}) depends on no trainable "
                         "parameter, so there is nothing to train")
    return flat


def _make_optimizer(optimizer_func):
    if isinstance(optimizer_func, Optimizer) or not callable(optimizer_func):
        raise TypeError("Trainer: optimizer_func must be a function returning an optimizer, "
                        "e.g. lambda: pd.optimizers.SGD(learning_rate=0.01); received "
                        f"{optimizer_func!r}")
    optimizer = optimizer_func()
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"Trainer: optimizer_func must return an optimizer (pd.optimizers.*), "
                        f"it returned {optimizer!r}")
    return optimizer


class Inferencer:
    """Runs the network that `infer_func` builds with parameters saved by a Trainer.

    `infer_func` is called afresh, in a fresh name registry, so its parameters get the
    names they got when `train_func` called it (`fc_0/w`, ...); the saved values are then
    loaded by name. This holds when `train_func` builds the inference network before any
    other parameter; otherwise wrap it in `pd.namespace("net")` in both places.

    Args:
        infer_func: builds the network from `pd.data` inputs; returns its output Variable
            (or a list of them).
        param_path: a folder written by `Trainer.save_params`.
        place: "cpu", or "gpu" / "gpu:N" (an NVIDIA GPU through CuPy, docs/gpu.md).

    Raises:
        TypeError: infer_func returns no Variable.
        CheckpointError: param_path lacks a parameter of the network or holds another shape.
    """

    def __init__(self, infer_func, param_path, place="cpu"):
        devices.kernels_for(place)
        self.place = place
        if not callable(infer_func):
            raise TypeError(f"Inferencer: infer_func must be a function that builds the "
                            f"network, received {type(infer_func).__name__}")
        with fresh_names():
            outputs = infer_func()
        self._single = isinstance(outputs, Variable)
        self.outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if not self.outputs or not all(isinstance(v, Variable) for v in self.outputs):
            raise TypeError(f"Inferencer: infer_func must return the output Variable or a "
                            f"list of them, received {outputs!r}")
        self.inputs = _graph_inputs(self.outputs)
        load_params(_parameters(self.outputs), param_path)

    def infer(self, inputs):
        """Run the network on `{input name: array}`.

        Returns:
            The output as a NumPy array (a list of arrays if infer_func returned a list).

        Raises:
            FeedError: an input is unknown, missing, or of the wrong shape or dtype.
        """
        if not isinstance(inputs, dict):
            raise TypeError(f"Inferencer.infer: expected a dict {{input name: array}}, "
                            f"received {type(inputs).__name__}")
        unknown = [k for k in inputs if k not in self.inputs]
        if unknown:
            raise FeedError(f"Inferencer.infer: unknown inputs {unknown}; the network's inputs "
                            f"are {sorted(self.inputs)}")
        missing = [k for k in self.inputs if k not in inputs]
        if missing:
            raise FeedError(f"Inferencer.infer: no value for the inputs {missing}; the "
                            f"network's inputs are {sorted(self.inputs)}")
        feeds = {self.inputs[k]: v for k, v in inputs.items()}
        out = run(self.outputs, feeds, device=self.place)
        return out[0] if self._single else out
