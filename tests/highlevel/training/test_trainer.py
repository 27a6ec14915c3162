"""The seeds' Trainer and Inferencer: events, test/save_params/stop from the handler,
parameters by name, agreement with Model.evaluate, and the errors for bad input.
Also `pd.cross_entropy`, the probability-input loss the seeds' networks use."""
import os

import numpy as np
import pytest

import paddle as pd
from paddle import devices
from paddle.errors import CheckpointError, FeedError, ShapeError
from gradcheck import check_gradients

FEED = ["x", "y"]


# ---- a small network and data ---------------------------------------------------------

def make_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = ((x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5)).astype(np.int64)
    return x, y


def reader_of(x, y, batch_size=16):
    samples = list(zip(x, y))
    return pd.reader.batch(lambda: iter(samples), batch_size)


def infer_net():
    x = pd.data("x", shape=[None, 4])
    hidden = pd.fc(x, size=8, act="tanh")
    return pd.fc(hidden, size=3, act="softmax")


def train_net(keep=None):
    """[loss, accuracy]; `keep` receives the prediction Variable."""
    y = pd.data("y", shape=[None], dtype="int64")
    predict = infer_net()
    if keep is not None:
        keep["predict"] = predict
    return [pd.mean(pd.cross_entropy(predict, y)), pd.accuracy(predict, y)]


def sgd(rate=0.1):
    return lambda: pd.optimizers.SGD(learning_rate=rate)


def make_trainer(keep=None, rate=0.1, seed=0, **kwargs):
    pd.seed(seed)
    return pd.Trainer(lambda: train_net(keep), sgd(rate), **kwargs)


def describe(event):
    return (type(event).__name__, event.epoch, getattr(event, "step", None))


# ---- events ---------------------------------------------------------------------------

def test_events_arrive_in_order_with_counters():
    x, y = make_data(40)
    trainer = make_trainer()
    seen = []
    trainer.train(num_epochs=2, event_handler=lambda e: seen.append(describe(e)),
                  reader=reader_of(x, y, 16), feed_order=FEED)
    expected = []
    for epoch in range(2):
        expected.append(("BeginEpochEvent", epoch, None))
        for step in range(3):  # 16 + 16 + 8 samples
            expected += [("BeginStepEvent", epoch, step), ("EndStepEvent", epoch, step)]
        expected.append(("EndEpochEvent", epoch, None))
    assert seen == expected


def test_step_metrics_are_this_batchs_floats_loss_first():
    # A step's metrics are the batch's [loss, accuracy] before the update: what
    # Trainer.test gives on that batch alone, called when the step begins.
    x, y = make_data(40)
    trainer = make_trainer(rate=0.5)
    expected, metrics = [], []

    def handler(event):
        if isinstance(event, pd.BeginStepEvent):
            lo = event.step * 16
            expected.append(trainer.test(reader_of(x[lo:lo + 16], y[lo:lo + 16]), FEED))
        elif isinstance(event, pd.EndStepEvent):
            metrics.append(event.metrics)

    trainer.train(2, handler, reader_of(x, y, 16), FEED)
    assert len(metrics) == 6
    for values, wanted in zip(metrics, expected):
        assert isinstance(values, list) and len(values) == 2
        assert all(type(v) is float for v in values)
        np.testing.assert_allclose(values, wanted, rtol=1e-5)
    assert expected[0] != expected[3]  # the weights did move between epochs


def test_a_lone_loss_gives_one_metric():
    x, y = make_data(16)
    pd.seed(0)
    trainer = pd.Trainer(lambda: train_net()[0], sgd())
    metrics = []
    trainer.train(1, lambda e: metrics.append(e.metrics) if hasattr(e, "metrics") else None,
                  reader_of(x, y, 8), FEED)
    assert [len(m) for m in metrics] == [1, 1]
    assert len(trainer.test(reader_of(x, y), FEED)) == 1


def test_events_repr_names_their_fields():
    assert repr(pd.EndStepEvent(1, 2, [0.5])) == "EndStepEvent(epoch=1, step=2, metrics=[0.5])"
    assert repr(pd.BeginEpochEvent(0)) == "BeginEpochEvent(epoch=0)"


def test_training_lowers_the_loss():
    x, y = make_data(80)
    trainer = make_trainer(rate=0.5)
    before = trainer.test(reader_of(x, y), FEED)
    trainer.train(15, None, reader_of(x, y), FEED)
    after = trainer.test(reader_of(x, y), FEED)
    assert after[0] < before[0] * 0.8 and after[1] > before[1]


# ---- test(), against Model.evaluate -----------------------------------------------------

def test_test_matches_model_evaluate_on_the_same_weights():
    x, y = make_data(40)
    keep = {}
    trainer = make_trainer(keep)
    trainer.train(2, None, reader_of(x, y), FEED)
    # A functional model over the same graph: same parameters, same loss and accuracy.
    model = pd.Model(inputs=trainer.inputs["x"], outputs=keep["predict"])
    model.compile(optimizer="sgd", loss=lambda t, p: pd.cross_entropy(p, t),
                  metrics=[pd.metrics.SparseCategoricalAccuracy()])
    expected = model.evaluate(x, y, batch_size=16, verbose=0)
    got = trainer.test(reader_of(x, y, 16), FEED)  # batches of 16, 16, 8: sample-weighted
    assert all(type(v) is float for v in got)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    # and against NumPy on the predictions
    probs = pd.eval(keep["predict"], {trainer.inputs["x"]: x})
    loss = -np.log(np.clip(probs[np.arange(40), y], 1e-7, 1)).mean()
    np.testing.assert_allclose(got, [loss, (probs.argmax(1) == y).mean()], rtol=1e-5)


def test_test_accepts_batches_of_arrays_and_float64_features():
    x, y = make_data(24)
    trainer = make_trainer()
    expected = trainer.test(reader_of(x, y, 8), FEED)
    got = trainer.test(lambda: iter([(x[:8].astype(np.float64), y[:8]), (x[8:], y[8:])]), FEED)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


# ---- parameters: save, load, infer ----------------------------------------------------

def test_inferencer_gives_the_trainers_predictions(tmp_path):
    x, y = make_data(40)
    keep = {}
    trainer = make_trainer(keep)
    trainer.train(2, None, reader_of(x, y), FEED)
    trainer.save_params(str(tmp_path))
    assert os.listdir(tmp_path) == ["params.h5"]
    # built while the trainer's graph (same names) is alive, with a different seed
    pd.seed(123)
    inferencer = pd.Inferencer(infer_func=infer_net, param_path=str(tmp_path))
    probs = inferencer.infer({"x": x})
    assert isinstance(probs, np.ndarray) and probs.shape == (40, 3)
    np.testing.assert_array_equal(probs, pd.eval(keep["predict"], {trainer.inputs["x"]: x}))


def test_inferencer_returns_a_list_for_several_outputs(tmp_path):
    trainer = make_trainer()
    trainer.save_params(str(tmp_path))

    def two_outputs():
        probs = infer_net()
        return [probs, pd.argmax(probs, axis=-1)]

    x, _ = make_data(5)
    probs, labels = pd.Inferencer(two_outputs, str(tmp_path)).infer({"x": x})
    np.testing.assert_array_equal(labels, probs.argmax(-1))


def test_a_namespace_keeps_names_when_train_func_builds_other_layers_first(tmp_path):
    def net():
        x = pd.data("x", shape=[None, 4])
        with pd.namespace("net"):  # net/fc_0, net/fc_1 whatever was built before
            return pd.fc(pd.fc(x, size=8, act="tanh"), size=3, act="softmax")

    def train_with_extra_layer():
        y = pd.data("y", shape=[None], dtype="int64")
        extra = pd.fc(pd.expand_dims(pd.cast(y, "float32"), -1), size=2)  # takes fc_0
        predict = net()
        return pd.mean(pd.cross_entropy(predict, y)) + 0.0 * pd.mean(extra)

    x, y = make_data(16)
    pd.seed(0)
    trainer = pd.Trainer(train_with_extra_layer, sgd())
    trainer.train(1, None, reader_of(x, y), FEED)
    trainer.save_params(str(tmp_path))
    probs = pd.Inferencer(net, str(tmp_path)).infer({"x": x})
    loss = -np.log(probs[np.arange(16), y]).mean()
    np.testing.assert_allclose(trainer.test(reader_of(x, y), FEED)[0], loss, rtol=1e-5)


def test_param_path_starts_a_trainer_from_saved_parameters(tmp_path):
    x, y = make_data(40)
    first = make_trainer()
    first.train(3, None, reader_of(x, y), FEED)
    first.save_params(str(tmp_path))
    fresh = make_trainer(seed=7)
    loaded = make_trainer(seed=7, param_path=str(tmp_path))
    assert loaded.test(reader_of(x, y), FEED) == first.test(reader_of(x, y), FEED)
    assert fresh.test(reader_of(x, y), FEED) != first.test(reader_of(x, y), FEED)
    # and it trains on from there, as the first one does
    loaded.train(1, None, reader_of(x, y), FEED)
    first.train(1, None, reader_of(x, y), FEED)
    np.testing.assert_allclose(loaded.test(reader_of(x, y), FEED),
                               first.test(reader_of(x, y), FEED), rtol=1e-6)


def normalized_net(keep=None):
    """Dropout and batch normalization: training and inference runs differ, and the moving
    statistics are parameters that are not trained but must be saved."""
    x = pd.data("x", shape=[None, 4])
    hidden = pd.fc(x, size=8, act="tanh")
    with pd.namespace("bn"):
        mean = pd.Variable("moving_mean", [8], initializer="zeros", trainable=False)
        variance = pd.Variable("moving_variance", [8], initializer="ones", trainable=False)
    if keep is not None:
        keep["moving_mean"] = mean
    hidden = pd.dropout(pd.batch_norm(hidden, None, None, mean, variance, momentum=0.5), 0.3)
    return pd.fc(hidden, size=3, act="softmax")


def test_dropout_and_batch_norm_train_in_training_mode_and_save_their_statistics(tmp_path):
    x, y = make_data(40)
    keep = {}

    def train_func():
        label = pd.data("y", shape=[None], dtype="int64")
        keep["predict"] = predict = normalized_net(keep)
        return [pd.mean(pd.cross_entropy(predict, label)), pd.accuracy(predict, label)]

    pd.seed(0)
    trainer = pd.Trainer(train_func, sgd(0.0))
    step_metrics = []
    trainer.train(1, lambda e: step_metrics.append(e.metrics)
                  if isinstance(e, pd.EndStepEvent) else None, reader_of(x, y, 40), FEED)
    tested = trainer.test(reader_of(x, y, 40), FEED)
    assert step_metrics[0] != tested  # batch statistics and dropout while training only
    assert trainer.test(reader_of(x, y, 40), FEED) == tested  # inference is deterministic
    assert keep["moving_mean"].name == "bn/moving_mean"
    assert np.abs(keep["moving_mean"].val()).max() > 0  # updated by the training step
    trainer.save_params(str(tmp_path))
    pd.seed(5)
    inferencer = pd.Inferencer(normalized_net, str(tmp_path))
    np.testing.assert_array_equal(inferencer.infer({"x": x}),
                                  pd.eval(keep["predict"], {trainer.inputs["x"]: x}))


# ---- the handler calls test, save_params, stop --------------------------------------------

def test_test_and_save_params_inside_the_handler(tmp_path):
    x, y = make_data(40)
    trainer = make_trainer()
    at_epoch_end, mid_epoch = [], []

    def handler(event):
        if isinstance(event, pd.EndStepEvent):
            mid_epoch.append(trainer.test(reader_of(x[:8], y[:8]), FEED))
        elif isinstance(event, pd.EndEpochEvent):
            at_epoch_end.append(trainer.test(reader_of(x, y), FEED))
            trainer.save_params(str(tmp_path / f"epoch_{event.epoch}"))

    trainer.train(2, handler, reader_of(x, y), FEED)
    assert len(mid_epoch) == 6 and len(at_epoch_end) == 2
    assert at_epoch_end[-1] == trainer.test(reader_of(x, y), FEED)
    # Testing and saving inside the loop do not disturb training.
    quiet = make_trainer()
    quiet.train(2, None, reader_of(x, y), FEED)
    np.testing.assert_allclose(quiet.test(reader_of(x, y), FEED), at_epoch_end[-1], rtol=1e-6)
    # Each save holds the weights of its epoch.
    last = pd.Inferencer(infer_net, str(tmp_path / "epoch_1")).infer({"x": x})
    first = pd.Inferencer(infer_net, str(tmp_path / "epoch_0")).infer({"x": x})
    np.testing.assert_array_equal(last, pd.Inferencer(infer_net, str(tmp_path / "epoch_1"))
                                  .infer({"x": x}))
    assert not np.array_equal(first, last)
    loss = -np.log(last[np.arange(40), y]).mean()
    np.testing.assert_allclose(loss, at_epoch_end[-1][0], rtol=1e-5)


def test_stop_inside_the_handler_ends_training_after_the_current_step():
    x, y = make_data(40)
    trainer = make_trainer()
    seen = []

    def handler(event):
        seen.append(describe(event))
        if isinstance(event, pd.EndStepEvent) and event.step == 1:
            trainer.stop()

    trainer.train(3, handler, reader_of(x, y), FEED)
    assert seen == [("BeginEpochEvent", 0, None),
                    ("BeginStepEvent", 0, 0), ("EndStepEvent", 0, 0),
                    ("BeginStepEvent", 0, 1), ("EndStepEvent", 0, 1),
                    ("EndEpochEvent", 0, None)]


def test_stop_at_a_step_begin_still_runs_that_step_then_train_again_runs_fully():
    x, y = make_data(40)
    trainer = make_trainer()
    before = trainer.test(reader_of(x, y), FEED)
    seen = []

    def stop_at_once(event):
        seen.append(describe(event))
        if isinstance(event, pd.BeginStepEvent):
            trainer.stop()

    trainer.train(2, stop_at_once, reader_of(x, y), FEED)
    assert seen[-2:] == [("EndStepEvent", 0, 0), ("EndEpochEvent", 0, None)]
    assert trainer.test(reader_of(x, y), FEED) != before  # the one step did update
    steps = []
    trainer.train(2, lambda e: steps.append(describe(e)) if isinstance(e, pd.EndStepEvent)
                  else None, reader_of(x, y), FEED)
    assert len(steps) == 6


def test_stop_at_an_epoch_end_skips_the_remaining_epochs():
    x, y = make_data(16)
    trainer = make_trainer()
    epochs = []

    def handler(event):
        if isinstance(event, pd.EndEpochEvent):
            epochs.append(event.epoch)
            trainer.stop()

    trainer.train(5, handler, reader_of(x, y), FEED)
    assert epochs == [0]


def test_a_handler_error_propagates_and_the_default_device_is_restored():
    x, y = make_data(16)
    trainer = make_trainer()

    def handler(event):
        raise RuntimeError("from the handler")

    with pytest.raises(RuntimeError, match="from the handler"):
        trainer.train(1, handler, reader_of(x, y), FEED)
    assert devices.get_device() == "cpu"


# ---- feed_order and readers ---------------------------------------------------------------

@pytest.mark.parametrize("method", ["train", "test"])
@pytest.mark.parametrize("feed_order, error, message", [
    (["x", "label"], FeedError, r"feed_order names \['label'\], which are not inputs of the "
                                r"network; its inputs are \['x', 'y'\]"),
    (["x"], FeedError, r"feed_order must name each input of the network once: its inputs "
                       r"are \['x', 'y'\], received \['x'\]"),
    (["x", "y", "y"], FeedError, r"feed_order must name each input of the network once.*"
                                 r"received \['x', 'y', 'y'\]"),
    ("xy", TypeError, r"feed_order must be a list of input names, received 'xy'"),
    (None, TypeError, r"feed_order must be a list of input names"),
], ids=["unknown", "too_few", "twice", "string", "none"])
def test_feed_order_errors_are_clear(method, feed_order, error, message):
    x, y = make_data(16)
    trainer = make_trainer()
    run = (lambda: trainer.train(1, None, reader_of(x, y), feed_order)) if method == "train" \
        else (lambda: trainer.test(reader_of(x, y), feed_order))
    with pytest.raises(error, match=f"Trainer.{method}: {message}"):
        run()


@pytest.mark.parametrize("method", ["train", "test"])
def test_reader_fields_that_do_not_fit_feed_order_name_the_input(method):
    x, y = make_data(16)
    trainer = make_trainer()

    def call(reader, feed_order=FEED):
        if method == "train":
            trainer.train(1, None, reader, feed_order)
        else:
            trainer.test(reader, feed_order)

    three = pd.reader.batch(lambda: iter(list(zip(x, y, y))), 8)
    with pytest.raises(FeedError, match=r"batch 0 has 3 fields per sample, but feed_order "
                                        r"names 2 inputs \['x', 'y'\]"):
        call(three)
    with pytest.raises(FeedError, match=r"field 0 of the reader goes to input 'y' \(position 0 "
                                        r"in feed_order\), which expects shape \(None,\); batch "
                                        r"0 has shape \(8, 4\)"):
        call(reader_of(x, y, 8), ["y", "x"])
    with pytest.raises(FeedError, match=r"input 'y'.*expects int64; batch 0 holds float32"):
        call(reader_of(x, y.astype(np.float32), 8))
    with pytest.raises(FeedError, match=r"field 0 of batch 0 is a dict; feed_order needs "
                                        r"arrays"):
        call(lambda: iter([({"x": x}, y)]))


def test_feed_order_may_list_the_inputs_in_any_order():
    x, y = make_data(16)
    trainer = make_trainer()
    swapped = pd.reader.batch(lambda: iter(list(zip(y, x))), 8)
    trainer.train(1, None, swapped, ["y", "x"])
    np.testing.assert_allclose(trainer.test(swapped, ["y", "x"]),
                               trainer.test(reader_of(x, y), FEED), rtol=1e-6)


def test_train_and_test_argument_errors():
    x, y = make_data(16)
    trainer = make_trainer()
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(ValueError, match="num_epochs must be an int >= 0"):
            trainer.train(bad, None, reader_of(x, y), FEED)
    with pytest.raises(TypeError, match="event_handler must be a function"):
        trainer.train(1, "print", reader_of(x, y), FEED)
    with pytest.raises(ValueError, match="Trainer.test: the reader produced no sample"):
        trainer.test(lambda: iter([]), FEED)
    batches = list(reader_of(x, y)())
    with pytest.raises(TypeError, match=r"Trainer.train: reader must be a batched reader "
                                        r"creator .*received list"):
        trainer.train(1, None, batches, FEED)
    with pytest.raises(TypeError, match=r"Trainer.test: reader must be .*received generator"):
        trainer.test(reader_of(x, y)(), FEED)


# ---- bad train_func, optimizer_func, place ---------------------------------------------------

@pytest.mark.parametrize("train_func, error, message", [
    (lambda: None, TypeError, "train_func must return the loss Variable, or a list"),
    (lambda: [], TypeError, "train_func must return the loss Variable"),
    (lambda: 0.5, TypeError, "train_func must return the loss Variable.*received 0.5"),
    (lambda: {"loss": train_net()[0]}, TypeError, "train_func must return the loss Variable"),
    (lambda: pd.cross_entropy(infer_net(), pd.data("y", [None], "int64")), ValueError,
     r"the loss \('.*'\) must be a scalar \(reduce it with pd.mean\), received shape \(None,\)"),
    (lambda: [train_net()[0], infer_net()], ValueError,
     r"metric 1 \('.*'\) must be a scalar.*received shape \(None, 3\)"),
    (lambda: pd.sum(pd.argmax(infer_net(), axis=-1)), TypeError,
     r"the loss \('.*'\) must be a float scalar, received int64"),
    (lambda: pd.mean(pd.data("x", [None, 4])), ValueError,
     r"the loss \('.*'\) depends on no trainable parameter, so there is nothing to train"),
], ids=["none", "empty", "number", "dict", "vector_loss", "vector_metric", "int_loss",
        "no_parameter"])
def test_bad_train_func_results_are_named(train_func, error, message):
    with pytest.raises(error, match=f"Trainer: {message}"):
        pd.Trainer(train_func, sgd())


def test_bad_functions_and_places():
    with pytest.raises(TypeError, match="train_func must be a function"):
        pd.Trainer(train_net(), sgd())
    with pytest.raises(TypeError, match="optimizer_func must be a function returning an "
                                        "optimizer"):
        pd.Trainer(train_net, pd.optimizers.SGD(0.1))
    with pytest.raises(TypeError, match="optimizer_func must return an optimizer.*returned 'sgd'"):
        pd.Trainer(train_net, lambda: "sgd")
    with pytest.raises(ValueError, match="expected 'cpu', 'gpu' or 'gpu:N', received 'tpu'"):
        pd.Trainer(train_net, sgd(), place="tpu")
    with pytest.raises(ValueError, match="received 'tpu'"):
        pd.Inferencer(infer_net, "unused", place="tpu")


def test_gpu_place_without_a_gpu_says_why():
    from paddle.devices import cuda
    if cuda.available:
        pytest.skip("a GPU is available")
    with pytest.raises(RuntimeError, match="device 'gpu'"):
        pd.Trainer(train_net, sgd(), place="gpu")


# ---- bad param_path ---------------------------------------------------------------------

@pytest.fixture
def saved(tmp_path):
    trainer = make_trainer()
    trainer.save_params(str(tmp_path / "params"))
    return str(tmp_path / "params")


def wider_net():
    x = pd.data("x", shape=[None, 4])
    return pd.fc(pd.fc(x, size=5, act="tanh"), size=3, act="softmax")


def renamed_net():
    x = pd.data("x", shape=[None, 4])
    with pd.namespace("other"):
        return pd.fc(pd.fc(x, size=8, act="tanh"), size=3, act="softmax")


def test_a_missing_param_path_is_named(tmp_path):
    missing = str(tmp_path / "nowhere")
    with pytest.raises(CheckpointError, match=r"no saved parameters at '.*nowhere.params.h5'"):
        make_trainer(param_path=missing)
    with pytest.raises(CheckpointError, match="no saved parameters at"):
        pd.Inferencer(infer_net, missing)


def test_a_param_path_that_is_the_file_itself(saved):
    with pytest.raises(CheckpointError, match="param_path must be the folder given to "
                                              "save_params, received the file"):
        pd.Inferencer(infer_net, os.path.join(saved, "params.h5"))


def test_params_of_other_shapes_are_named(saved):
    with pytest.raises(CheckpointError, match=r"parameter 'fc_0/w' has shape \(4, 5\) in the "
                                              r"network but \(4, 8\) in the file"):
        pd.Inferencer(wider_net, saved)

    def wider_train():
        return pd.mean(pd.cross_entropy(wider_net(), pd.data("y", [None], "int64")))

    with pytest.raises(CheckpointError, match=r"'fc_0/w' has shape \(4, 5\)"):
        pd.Trainer(wider_train, sgd(), param_path=saved)


def test_params_of_other_names_are_named(saved):
    with pytest.raises(CheckpointError, match=r"no saved value for the parameters "
                                              r"\['other/fc_0/w', .*the file holds "
                                              r"\['fc_0/b', 'fc_0/w', 'fc_1/b', 'fc_1/w'\]"):
        pd.Inferencer(renamed_net, saved)


def test_an_unreadable_param_file(tmp_path):
    (tmp_path / "params.h5").write_text("not hdf5")
    with pytest.raises(CheckpointError, match="not a readable parameter file"):
        pd.Inferencer(infer_net, str(tmp_path))


# ---- bad inference input ------------------------------------------------------------------

def test_inferencer_errors(saved):
    with pytest.raises(TypeError, match="infer_func must return the output Variable"):
        pd.Inferencer(lambda: None, saved)
    with pytest.raises(TypeError, match="infer_func must be a function"):
        pd.Inferencer("infer_net", saved)
    inferencer = pd.Inferencer(infer_net, saved)
    x, _ = make_data(4)
    with pytest.raises(TypeError, match=r"expected a dict \{input name: array\}, received list"):
        inferencer.infer([x])
    with pytest.raises(FeedError, match=r"unknown inputs \['image'\]; the network's inputs are "
                                        r"\['x'\]"):
        inferencer.infer({"x": x, "image": x})
    with pytest.raises(FeedError, match=r"no value for the inputs \['x'\]"):
        inferencer.infer({})
    with pytest.raises(FeedError, match=r"input 'x': expected shape \(None, 4\), received "
                                        r"\(4, 3\)"):
        inferencer.infer({"x": x[:, :3]})


# ---- cross_entropy on probabilities --------------------------------------------------------

def test_cross_entropy_matches_numpy():
    rng = np.random.default_rng(0)
    probs = rng.random((6, 5)).astype(np.float32)
    probs /= probs.sum(1, keepdims=True)
    labels = rng.integers(0, 5, 6)
    got = pd.eval(pd.cross_entropy(pd.constant(probs), pd.constant(labels)))
    np.testing.assert_allclose(got, -np.log(probs[np.arange(6), labels]), rtol=1e-6)
    assert got.shape == (6,)
    # the seeds' (N, 1) labels, and softmax probabilities against softmax_cross_entropy
    logits = rng.standard_normal((6, 5)).astype(np.float32)
    p, l = pd.constant(logits), pd.constant(labels)
    a, b, c = pd.eval([pd.cross_entropy(pd.softmax(p), l),
                       pd.cross_entropy(pd.softmax(p), pd.constant(labels.reshape(6, 1))),
                       pd.softmax_cross_entropy(p, l)])
    np.testing.assert_allclose(a, c, rtol=1e-5)
    np.testing.assert_array_equal(a, b)


def test_cross_entropy_of_zero_probability_is_finite():
    probs = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]], np.float32)
    labels = np.array([0, 0, 1])
    p = pd.Variable("probs", shape=[3, 2], initializer="zeros")
    p.set_value(probs)
    loss = pd.mean(pd.cross_entropy(p, pd.constant(labels)))
    value, grad = pd.eval([loss, pd.gradients(loss, p)[0]])
    per_example = [-np.log(1e-7), 0.0, -np.log(0.5)]
    np.testing.assert_allclose(value, np.mean(per_example), rtol=1e-5)
    assert np.isfinite(grad).all()


def test_cross_entropy_gradient():
    rng = np.random.default_rng(1)
    probs = rng.uniform(0.1, 1.0, (4, 3))
    labels = np.array([0, 2, 1, 2])
    check_gradients(lambda p, l: pd.cross_entropy(p, l), [probs, labels], wrt=[0])


def test_cross_entropy_errors():
    probs = pd.data("p", shape=[None, 3])
    with pytest.raises(TypeError, match="expected integer class labels, received float32"):
        pd.cross_entropy(probs, pd.data("l", shape=[None]))
    with pytest.raises(ShapeError, match="labels must have the shape of the scores"):
        pd.cross_entropy(probs, pd.data("l2", shape=[None, 3], dtype="int64"))
    with pytest.raises(ValueError, match="the class axis must have a known size"):
        pd.cross_entropy(pd.data("q", shape=[None, None]), pd.data("l3", [None], "int64"))
