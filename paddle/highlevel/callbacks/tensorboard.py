"""TensorBoard: losses, metrics, the learning rate, weight histograms and the model's graph
as TensorBoard event files.

The files are written by the `tensorboard` package's own event writer
(`tensorboard.summary.writer.event_file_writer.EventFileWriter`, the one PyTorch's
`SummaryWriter` uses) with its protocol buffers (`tensorboard.compat.proto`): no TensorFlow
is needed, and no file format is written by hand. Install it with
`pip install "paddle-graph[tensorboard]"`; then `tensorboard --logdir <log_dir>`.
"""
import numbers
import os

import numpy as np

from paddle.highlevel.callbacks.base import Callback
from paddle.highlevel.models.layer_graph import layer_graph
from paddle.highlevel.training.progress import BOOKKEEPING
from paddle.profiler import BatchProfiler

OPTIONAL_REQUIREMENTS = ("tensorboard",)  # docstring examples run only where it is installed


def _tensorboard():
    """The writer class and the proto modules; ImportError saying how to install them."""
    try:  # an optional dependency (the "tensorboard" extra)
        # optional dependency: the protocol buffers and the writer of the tensorboard package
        from tensorboard.compat.proto import (attr_value_pb2, event_pb2, graph_pb2,
                                              node_def_pb2, summary_pb2, tensor_shape_pb2)
        # optional dependency, as above
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError as e:
        raise ImportError("TensorBoard callback: the 'tensorboard' package is not installed "
                          f"({e}); install it with pip install 'paddle-graph[tensorboard]' "
                          "(or pip install tensorboard)") from None
    return EventFileWriter, {"attr": attr_value_pb2, "event": event_pb2, "graph": graph_pb2,
                             "node": node_def_pb2, "summary": summary_pb2,
                             "shape": tensor_shape_pb2}


class TensorBoard(Callback):
    """Writes training curves, weight histograms and the graph for TensorBoard, as Keras.

    Two runs under `log_dir`: `train/` holds `epoch_<name>` for the loss and every metric,
    `epoch_learning_rate` (step: the epoch), `batch_<name>` every `update_freq` batches
    (step: the batch count since training began), the weight histograms and the graph;
    `validation/` holds `epoch_<name>` for the `val_` values and
    `evaluation_<name>_vs_iterations` (step: the batch count when validation ran).

    Args:
        log_dir: the folder of the event files (created when training begins).
        histogram_freq: write a histogram of every weight each `histogram_freq` epochs
            (0: never).
        write_graph: write the model's graph of layers (TensorBoard's Graphs tab).
        update_freq: "epoch" (epoch values only), "batch" (also every batch's running
            values), or an integer N (every N batches).
        embeddings_freq, embeddings_metadata: Keras's projector arguments; only 0 and
            None (off) are accepted.
        profile_batch: 0 (off), a train batch number (1-based, counted over the whole fit)
            or a pair (first, last): those batches are profiled (paddle.profiler) and their
            kernel timeline written to `train/plugins/profile/` for TensorBoard's profile
            plugin; `callback.profile` holds the Profile after them.

    Raises:
        ImportError: the tensorboard package is missing (says how to install it).
        OSError: (when training begins) `log_dir` cannot be written; nothing is created.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        >>> model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> tb = pd.callbacks.TensorBoard("logs")
        >>> _ = model.fit(np.ones((8, 2)), np.ones((8, 1)), epochs=2, verbose=0, callbacks=[tb])
        >>> runs = EventAccumulator("logs/train"); _ = runs.Reload()
        >>> [event.step for event in runs.Scalars("epoch_loss")]
        [0, 1]
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True,
                 update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        # Keras's embedding-projector arguments: paddle writes no projector data, so only
        # their "off" values are accepted (keras-io passes embeddings_freq=0 explicitly).
        if embeddings_freq != 0 or isinstance(embeddings_freq, bool):
            raise ValueError(f"TensorBoard: embeddings_freq must be 0 (paddle writes no "
                             f"embedding projector data), received {embeddings_freq!r}")
        if embeddings_metadata is not None:
            raise ValueError(f"TensorBoard: embeddings_metadata must be None (paddle writes "
                             f"no embedding projector data), received {embeddings_metadata!r}")
        try:
            self.log_dir = os.fspath(log_dir)
        except TypeError:
            raise TypeError(f"TensorBoard: expected log_dir to be a path, received "
                            f"{type(log_dir).__name__}") from None
        if not isinstance(histogram_freq, numbers.Integral) or isinstance(histogram_freq, bool) \
                or histogram_freq < 0:
            raise ValueError(f"TensorBoard: expected histogram_freq to be an integer >= 0, "
                             f"received {histogram_freq!r}")
        if not isinstance(write_graph, (bool, np.bool_)):
            raise ValueError(f"TensorBoard: expected write_graph to be True or False, "
                             f"received {write_graph!r}")
        if update_freq == "batch":
            update_freq = 1
        valid_int = isinstance(update_freq, numbers.Integral) and \
            not isinstance(update_freq, bool) and update_freq >= 1
        if update_freq != "epoch" and not valid_int:
            raise ValueError(f"TensorBoard: expected update_freq 'epoch', 'batch' or an integer "
                             f">= 1, received {update_freq!r}")
        self.histogram_freq = int(histogram_freq)
        self.write_graph = bool(write_graph)
        self.profile_batch = profile_batch
        self._profiler = None if profile_batch in (0, None, "0", (0, 0)) else BatchProfiler(
            profile_batch, self._write_profile, "TensorBoard profile_batch")
        self.update_freq = update_freq if update_freq == "epoch" else int(update_freq)
        self._writer_class, self._pb = _tensorboard()
        self._writers = {}
        self._train_step = 0
        self._in_fit = False

    # ---- writers ------------------------------------------------------------------------

    def _writer(self, run):
        """The EventFileWriter of `run` ("train" or "validation"), opened on first use."""
        if run not in self._writers:
            path = os.path.join(self.log_dir, run)
            try:
                os.makedirs(path, exist_ok=True)
                self._writers[run] = self._writer_class(path)
            except OSError as e:
                raise OSError(f"TensorBoard: cannot write event files under log_dir "
                              f"{self.log_dir!r} ({path!r}): {e.strerror or e}") from e
        return self._writers[run]

    def _scalars(self, run, values, step):
        pb = self._pb["summary"]
        summary = pb.Summary(value=[pb.Summary.Value(tag=tag, simple_value=float(v))
                                    for tag, v in values.items()])
        self._writer(run).add_event(self._pb["event"].Event(step=int(step), summary=summary))

    def _close(self):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    # ---- hooks --------------------------------------------------------------------------

    def on_train_begin(self, logs=None):
        self._in_fit = True
        self._train_step = int(getattr(getattr(self.model, "optimizer", None), "iterations", 0)
                               or 0)
        self._writer("train")
        if self.write_graph:
            self._write_graph()

    def on_train_end(self, logs=None):
        self._in_fit = False
        if self._profiler is not None:
            self._profiler.stop()
        self._close()

    def on_train_batch_begin(self, batch, logs=None):
        if self._profiler is not None:
            self._profiler.batch_begin()

    def on_train_batch_end(self, batch, logs=None):
        if self._profiler is not None:
            self._profiler.batch_end()
        self._train_step += 1
        if self.update_freq == "epoch" or self._train_step % self.update_freq:
            return
        self._scalars("train", {f"batch_{k}": v for k, v in _numbers(logs).items()},
                      self._train_step)

    def on_test_end(self, logs=None):
        if self._in_fit and logs:  # fit's validation pass
            self._scalars("validation", {f"evaluation_{k}_vs_iterations": v
                                         for k, v in _numbers(logs).items()}, self._train_step)

    def on_epoch_end(self, epoch, logs=None):
        values = _numbers(logs)
        train = {f"epoch_{k}": v for k, v in values.items() if not k.startswith("val_")}
        rate = _learning_rate(self.model)
        if rate is not None:
            train["epoch_learning_rate"] = rate
        self._scalars("train", train, epoch)
        validation = {f"epoch_{k[4:]}": v for k, v in values.items() if k.startswith("val_")}
        if validation:
            self._scalars("validation", validation, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._write_histograms(epoch)
        for writer in self._writers.values():
            writer.flush()

    def _write_profile(self, prof):
        """The profiled batches' kernel timeline, where TensorBoard's profile plugin reads
        it (log_dir/train/plugins/profile/<time>/<host>.trace.json.gz)."""
        self.profile = prof
        prof.export_tensorboard(os.path.join(self.log_dir, "train"))

    # ---- histograms and graph -----------------------------------------------------------

    def _write_histograms(self, epoch):
        pb = self._pb["summary"]
        values = [pb.Summary.Value(tag=w.name, histo=_histogram(pb, w.val()))
                  for w in getattr(self.model, "weights", [])]
        if values:
            self._writer("train").add_event(self._pb["event"].Event(
                step=int(epoch), summary=pb.Summary(value=values)))

    def _write_graph(self):
        try:
            graph = layer_graph(self.model, "TensorBoard")
        except (ValueError, AttributeError):
            return  # a subclassed model traced only by its first batch: no graph to draw
        attr, shape_pb = self._pb["attr"], self._pb["shape"]
        nodes = []
        for node in graph.nodes:
            shapes = attr.AttrValue.ListValue(shape=[
                shape_pb.TensorShapeProto(dim=[shape_pb.TensorShapeProto.Dim(
                    size=-1 if d is None else d) for d in s]) for s in node.output_shapes])
            nodes.append(self._pb["node"].NodeDef(
                name=node.name, op=node.class_name, input=[p.name for p in node.parents],
                attr={"_output_shapes": attr.AttrValue(list=shapes)}))
        graph_def = self._pb["graph"].GraphDef(node=nodes)
        self._writer("train").add_event(self._pb["event"].Event(
            graph_def=graph_def.SerializeToString()))


def _numbers(logs):
    """The logged losses and metrics (not epoch / batch counters) as floats."""
    return {k: float(v) for k, v in (logs or {}).items()
            if k not in BOOKKEEPING and isinstance(v, numbers.Real)}


def _learning_rate(model):
    optimizer = getattr(model, "optimizer", None)
    current = getattr(optimizer, "current_learning_rate", None)
    if current is not None:
        return float(current())
    rate = getattr(optimizer, "learning_rate", None)
    return float(rate) if isinstance(rate, numbers.Real) else None


def _histogram(pb, array, bins=30):
    """A HistogramProto of an array's values (TensorBoard's Histograms tab)."""
    values = np.asarray(array, dtype=np.float64).ravel()
    values = values[np.isfinite(values)]
    if values.size == 0:
        return pb.HistogramProto()
    low, high = float(values.min()), float(values.max())
    if low == high:  # one value: one bucket around it
        low, high = low - 0.5, high + 0.5
    counts, edges = np.histogram(values, bins=bins, range=(low, high))
    return pb.HistogramProto(min=float(values.min()), max=float(values.max()),
                             num=float(values.size), sum=float(values.sum()),
                             sum_squares=float(np.dot(values, values)),
                             bucket_limit=[float(e) for e in edges[1:]],
                             bucket=[float(c) for c in counts])
