"""The seeds' Trainer and Inferencer: a network as a Python function, training driven by
events — a thin layer over Model.fit and callbacks (PaddlePaddle issue #10248).

`train_func` builds the graph and returns `[loss, *metrics]`; the Trainer wraps that
graph in a functional Model whose `train_step` replays it on the loop's inputs, and runs
`Model.fit` with a callback that turns the loop's hooks into events.

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
import os

import h5py
import numpy as np

from paddle import backend
from paddle.errors import CheckpointError, FeedError
from paddle.lowlevel.executor import eval as run
from paddle.lowlevel.executor import topological_nodes
from paddle.lowlevel.graph import Variable, fresh_names
from paddle.highlevel.callbacks import Callback
from paddle.highlevel.model import Model
from paddle.reader.arrays import to_arrays

PARAMS_FILE = "params.h5"


class BeginEpochEvent:
    def __init__(self, epoch):
        self.epoch = epoch


class EndEpochEvent:
    def __init__(self, epoch):
        self.epoch = epoch


class BeginStepEvent:
    def __init__(self, epoch, step):
        self.epoch, self.step = epoch, step


class EndStepEvent:
    """`metrics`: this step's loss and metrics as floats, the loss first."""

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
    if isinstance(feed_order, str) or not all(isinstance(n, str) for n in feed_order):
        raise TypeError(f"{where}: feed_order must be a list of input names, received "
                        f"{feed_order!r}")
    unknown = [n for n in feed_order if n not in inputs]
    if unknown:
        raise FeedError(f"{where}: feed_order names {unknown}, which are not inputs of the "
                        f"network; its inputs are {sorted(inputs)}")
    missing = [n for n in inputs if n not in feed_order]
    if missing or len(feed_order) != len(set(feed_order)):
        raise FeedError(f"{where}: feed_order must name each input once: the network's "
                        f"inputs are {sorted(inputs)}, received {list(feed_order)}")
    return [inputs[n] for n in feed_order]


def load_params(params, dirname):
    """Assign saved values to parameters by name; every shape is checked first."""
    path = os.path.join(dirname, PARAMS_FILE)
    if not os.path.isfile(path):
        raise CheckpointError(f"no saved parameters at {path!r}")
    try:
        with h5py.File(path, "r") as f:
            values = {}
            for p in params:
                if p.name not in f:
                    raise CheckpointError(f"{path}: no saved value for parameter {p.name!r}")
                values[p.name] = f[p.name][()]
    except OSError as e:
        if isinstance(e, CheckpointError):
            raise
        raise CheckpointError(f"{path}: not a readable parameter file ({e})") from None
    for p in params:
        if values[p.name].shape != p.shape:
            raise CheckpointError(f"{path}: parameter {p.name!r} has shape {p.shape} in the "
                                  f"network but {values[p.name].shape} in the file")
    for p in params:
        p.set_value(values[p.name])


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
        train_func: builds the graph; returns the loss Variable or [loss, *metrics].
        optimizer_func: returns the optimizer (e.g. `lambda: pd.optimizers.Adam(1e-3)`).
        place: "cpu" (or "gpu" where a GPU backend is available).
        param_path: a folder written by `save_params` to start from.
    """

    def __init__(self, train_func, optimizer_func, place="cpu", param_path=None):
        backend.kernels_for(place)  # an unusable place fails now, saying why
        self.place = place
        with fresh_names():
            outputs = train_func()
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if not outputs or not all(isinstance(v, Variable) for v in outputs):
            raise TypeError("Trainer: train_func must return the loss Variable, or a list "
                            f"[loss, *metrics] of Variables; received {outputs!r}")
        for i, v in enumerate(outputs):
            if v.shape != ():
                what = "the loss" if i == 0 else f"metric {i}"
                raise ValueError(f"Trainer: {what} must be a scalar (reduce it with pd.mean), "
                                 f"received shape {v.shape}")
        self.outputs = outputs
        self.inputs = _graph_inputs(outputs)
        self.optimizer = optimizer_func()
        if param_path is not None:
            load_params(_parameters(outputs), param_path)
        self._models = {}
        self._current = None

    def _model(self, feed_order):
        key = tuple(feed_order)
        if key not in self._models:
            model = _ProgramModel(_ordered_inputs(self.inputs, feed_order, "Trainer"),
                                  self.outputs)
            model.compile(optimizer=self.optimizer)
            self._models[key] = model
        return self._models[key]

    def train(self, num_epochs, event_handler, reader, feed_order):
        """Train for `num_epochs` passes over a batched reader creator, calling
        `event_handler` with Begin/End Epoch/Step events."""
        model = self._model(feed_order)
        self._current = model
        model.fit(reader, epochs=num_epochs, verbose=0, callbacks=[_Events(event_handler)])

    def test(self, reader, feed_order):
        """The loss and metrics averaged over a batched reader, as a list of floats."""
        inputs = _ordered_inputs(self.inputs, feed_order, "Trainer.test")
        totals, count = np.zeros(len(self.outputs)), 0
        for batch in reader():
            fields = to_arrays(batch)
            if len(fields) != len(inputs):
                raise FeedError(f"Trainer.test: the reader yields {len(fields)} fields per "
                                f"sample, feed_order names {len(inputs)}")
            values = run(self.outputs, dict(zip(inputs, fields)), device=self.place)
            n = len(fields[0])
            totals += np.array([float(v) for v in values]) * n
            count += n
        if count == 0:
            raise ValueError("Trainer.test: the reader produced no sample")
        return [float(v) for v in totals / count]

    def save_params(self, dirname):
        """Write every parameter of the network, by name, to `dirname/params.h5`."""
        os.makedirs(dirname, exist_ok=True)
        path = os.path.join(dirname, PARAMS_FILE)
        tmp = path + ".tmp"
        try:
            with h5py.File(tmp, "w") as f:
                for p in _parameters(self.outputs):
                    f.create_dataset(p.name, data=p.value)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def stop(self):
        """End training after the current step."""
        if self._current is not None:
            self._current.stop_training = True


class Inferencer:
    """Runs the network that `infer_func` builds with parameters saved by a Trainer.

    `infer_func` is called afresh (its parameters get the names the Trainer's build gave
    them), then the saved values are loaded by name.
    """

    def __init__(self, infer_func, param_path, place="cpu"):
        backend.kernels_for(place)
        self.place = place
        with fresh_names():
            outputs = infer_func()
        self._single = isinstance(outputs, Variable)
        self.outputs = [outputs] if self._single else list(outputs)
        if not self.outputs or not all(isinstance(v, Variable) for v in self.outputs):
            raise TypeError(f"Inferencer: infer_func must return Variables, received "
                            f"{outputs!r}")
        self.inputs = _graph_inputs(self.outputs)
        load_params(_parameters(self.outputs), param_path)

    def infer(self, inputs):
        """{input name: array} -> the network's output array (a list for several)."""
        if not isinstance(inputs, dict):
            raise TypeError("Inferencer.infer: expected a dict {input name: array}")
        unknown = [k for k in inputs if k not in self.inputs]
        if unknown:
            raise FeedError(f"Inferencer.infer: unknown inputs {unknown}; the network's inputs "
                            f"are {sorted(self.inputs)}")
        feeds = {self.inputs[k]: v for k, v in inputs.items()}
        out = run(self.outputs, feeds, device=self.place)
        return out[0] if self._single else out
