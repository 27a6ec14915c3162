"""The TensorBoard callback: event files read back with TensorBoard's own EventAccumulator."""
import os

import numpy as np
import pytest

import paddle as pd

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import (  # noqa: E402
    EventAccumulator)


def read(path):
    runs = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0})
    runs.Reload()
    return runs


def scalars(runs, tag):
    """(steps, values) in the order they were written: a run's files are read in name
    order, and two files opened in the same second sort by a counter compared as text."""
    events = sorted(runs.Scalars(tag), key=lambda e: e.wall_time)
    return [e.step for e in events], [e.value for e in events]


def classifier():
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(4,), name="features"),
                           pd.layers.Dense(8, activation="relu", name="hidden"),
                           pd.layers.Dense(3, activation="softmax", name="probs")])
    model.compile(optimizer=pd.optimizers.SGD(learning_rate=0.1),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)
    return model, x, y


def test_epoch_scalars_learning_rate_histograms_and_graph(tmp_path, free_names):
    model, x, y = classifier()
    tb = pd.callbacks.TensorBoard(tmp_path / "logs", histogram_freq=2, update_freq=3)
    history = model.fit(x, y, batch_size=8, epochs=3, validation_data=(x[:16], y[:16]),
                        verbose=0, callbacks=[tb])
    train, val = read(tmp_path / "logs" / "train"), read(tmp_path / "logs" / "validation")

    for name in ("loss", "accuracy"):
        steps, values = scalars(train, f"epoch_{name}")
        assert steps == [0, 1, 2]
        np.testing.assert_allclose(values, history.history[name], rtol=1e-6)
        steps, values = scalars(val, f"epoch_{name}")
        assert steps == [0, 1, 2]
        np.testing.assert_allclose(values, history.history[f"val_{name}"], rtol=1e-6)
    assert scalars(train, "epoch_learning_rate") == ([0, 1, 2], [pytest.approx(0.1)] * 3)

    # 4 batches per epoch, 12 in all: every third batch, counted across epochs
    steps, values = scalars(train, "batch_loss")
    assert steps == [3, 6, 9, 12]
    assert all(np.isfinite(values))
    # validation ran after batches 4, 8 and 12
    steps, values = scalars(val, "evaluation_loss_vs_iterations")
    assert steps == [4, 8, 12]
    np.testing.assert_allclose(values, history.history["val_loss"], rtol=1e-6)

    weights = {w.name: w.val() for w in model.weights}
    assert set(train.Tags()["histograms"]) == set(weights)
    for name, value in weights.items():
        events = train.Histograms(name)
        assert [e.step for e in events] == [0, 2]
        assert events[-1].histogram_value.num == value.size
        assert events[-1].histogram_value.max == pytest.approx(float(value.max()))
        assert sum(events[-1].histogram_value.bucket) == value.size

    graph = train.Graph()
    nodes = {n.name: n for n in graph.node}
    assert list(nodes) == ["features", "hidden", "probs"]
    assert nodes["hidden"].op == "Dense" and list(nodes["probs"].input) == ["hidden"]
    dims = nodes["probs"].attr["_output_shapes"].list.shape[0].dim
    assert [d.size for d in dims] == [-1, 3]


def test_batch_update_freq_and_schedule(tmp_path):
    model, x, y = classifier()
    schedule = pd.optimizers.schedules.ExponentialDecay(0.1, decay_steps=4, decay_rate=0.5)
    model.compile(optimizer=pd.optimizers.SGD(learning_rate=schedule),
                  loss="sparse_categorical_crossentropy")
    tb = pd.callbacks.TensorBoard(str(tmp_path), update_freq="batch", write_graph=False)
    model.fit(x, y, batch_size=16, epochs=2, verbose=0, callbacks=[tb])
    train = read(tmp_path / "train")
    assert scalars(train, "batch_loss")[0] == [1, 2, 3, 4]
    steps, rates = scalars(train, "epoch_learning_rate")
    # after epoch k, 2 * (k + 1) updates have run: 0.1 * 0.5 ** (steps / 4)
    np.testing.assert_allclose(rates, [0.1 * 0.5 ** 0.5, 0.1 * 0.5], rtol=1e-6)
    assert not os.path.exists(tmp_path / "validation")  # no validation data, no run
    assert "graph" not in train.Tags() or not train.Tags()["graph"]


def test_steps_continue_when_training_resumes(tmp_path):
    model, x, y = classifier()
    tb = pd.callbacks.TensorBoard(tmp_path, update_freq=1)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[tb])
    model.fit(x, y, batch_size=16, epochs=2, initial_epoch=1, verbose=0, callbacks=[tb])
    train = read(tmp_path / "train")
    assert scalars(train, "batch_loss")[0] == [1, 2, 3, 4]
    assert scalars(train, "epoch_loss")[0] == [0, 1]


def test_subclassed_model_writes_scalars(tmp_path):
    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, x, training=False):
            return self.dense(x) * 2.0

    model = Net()
    model.compile(optimizer="sgd", loss="mse")
    tb = pd.callbacks.TensorBoard(tmp_path, histogram_freq=1)
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 1), np.float32), epochs=2, verbose=0,
              callbacks=[tb])
    train = read(tmp_path / "train")
    assert scalars(train, "epoch_loss")[0] == [0, 1]
    assert len(train.Tags()["histograms"]) == 2  # kernel and bias


# ---- bad input ----------------------------------------------------------------------------

def test_unwritable_log_dir_is_a_clear_error_and_creates_nothing(tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    model, x, y = classifier()
    for log_dir in (blocker, blocker / "logs"):
        tb = pd.callbacks.TensorBoard(log_dir)
        with pytest.raises(OSError, match=r"TensorBoard: cannot write event files under "
                                          r"log_dir .*taken"):
            model.fit(x, y, epochs=1, verbose=0, callbacks=[tb])
    assert sorted(os.listdir(tmp_path)) == ["taken"]
    assert blocker.read_text() == "a file, not a folder"


@pytest.mark.parametrize("kwargs, match", [
    ({"histogram_freq": -1}, "histogram_freq to be an integer >= 0, received -1"),
    ({"histogram_freq": 1.5}, "histogram_freq"),
    ({"update_freq": "epochs"}, "update_freq 'epoch', 'batch' or an integer >= 1, received "
                                "'epochs'"),
    ({"update_freq": 0}, "update_freq"),
    ({"write_graph": "yes"}, "write_graph to be True or False"),
])
def test_bad_arguments(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pd.callbacks.TensorBoard(tmp_path, **kwargs)


def test_log_dir_must_be_a_path():
    with pytest.raises(TypeError, match="log_dir to be a path, received int"):
        pd.callbacks.TensorBoard(3)


def test_keras_projector_arguments_are_accepted_off_and_refused_on(tmp_path):
    tb = pd.callbacks.TensorBoard(str(tmp_path), embeddings_freq=0, embeddings_metadata=None)
    assert tb.update_freq == "epoch"
    with pytest.raises(ValueError, match="embeddings_freq must be 0"):
        pd.callbacks.TensorBoard(str(tmp_path), embeddings_freq=1)
    with pytest.raises(ValueError, match="embeddings_metadata must be None"):
        pd.callbacks.TensorBoard(str(tmp_path), embeddings_metadata={"emb": "meta.tsv"})
