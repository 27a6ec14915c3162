"""Bad input to models and the training loop: every case is a Python exception whose message
says what was expected and what was received, never a crash or silent garbage."""
import math

import numpy as np
import pytest

import paddle as pd


def mlp(n_in=4, n_out=1, name=None):
    return pd.Sequential([pd.layers.Input(shape=(n_in,)), pd.layers.Dense(3),
                          pd.layers.Dense(n_out)], name=name)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    x = rng.random((20, 4)).astype(np.float32)
    return x, x.sum(1, keepdims=True)


@pytest.fixture
def model():
    m = mlp(name="checked")
    m.compile("sgd", "mse")
    return m


# ---- input shapes -------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["fit", "evaluate", "predict", "call", "train_on_batch"])
def test_wrong_input_width_names_the_model_input_and_axis(model, data, call):
    x, y = data
    bad = x[:, :3]
    run = {"fit": lambda: model.fit(bad, y, verbose=0),
           "evaluate": lambda: model.evaluate(bad, y, verbose=0),
           "predict": lambda: model.predict(bad),
           "call": lambda: model(bad),
           "train_on_batch": lambda: model.train_on_batch(bad, y)}[call]
    name = model.inputs[0].name
    with pytest.raises(pd.ShapeError, match=rf"{model.name}: input '{name}' expects shape "
                                            r"\(None, 4\), received \(\d+, 3\) "
                                            r"\(axis 1 should be 4, received 3\)"):
        run()


def test_wrong_input_rank_is_named(model, data):
    x, _ = data
    with pytest.raises(pd.ShapeError, match=r"expected rank 2, received rank 3"):
        model.predict(x[:, :, None])


def test_wrong_input_of_a_multi_input_model_names_that_input(free_names):
    a, b = pd.Input(shape=(3,), name="left_in"), pd.Input(shape=(2,), name="right_in")
    out = pd.layers.Dense(1)(pd.layers.Concatenate()([a, b]))
    model = pd.Model([a, b], out)
    xa, xb = np.zeros((4, 3), np.float32), np.zeros((4, 2), np.float32)
    with pytest.raises(pd.ShapeError, match=r"input 'right_in'.*axis 1 should be 2, "
                                            r"received 5"):
        model.predict([xa, np.zeros((4, 5), np.float32)])


def test_wrong_input_shape_for_a_subclassed_model():
    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(2)

        def call(self, x, training=False):
            return self.dense(x)

    net = Net()
    net(np.zeros((2, 4), np.float32))
    with pytest.raises(pd.ShapeError, match=r"net.*axis 1 should be 4, received 6"):
        net.predict(np.zeros((2, 6), np.float32))
    # On a Variable the layer itself checks: it names the layer and the axis.
    with pytest.raises(pd.ShapeError, match=rf"{net.dense.name}: expected the last axis of "
                                            r"the input to be 4, received shape \(None, 6\)"):
        net(pd.Input(shape=(6,)))


def test_a_lazily_built_sequential_keeps_its_input_shape():
    model = pd.Sequential([pd.layers.Dense(2)])
    model(np.zeros((2, 4), np.float32))
    with pytest.raises(pd.ShapeError, match=r"axis 1 should be 4, received 5"):
        model(np.zeros((2, 5), np.float32))


def test_predict_with_the_wrong_number_of_inputs():
    a, b = pd.Input(shape=(3,)), pd.Input(shape=(3,))
    model = pd.Model([a, b], pd.layers.Add()([a, b]), name="two_inputs")
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="two_inputs: the model has 2 inputs but 1 input "
                                         "arrays were given"):
        model.predict(x)
    with pytest.raises(ValueError, match="has 2 inputs but 3 input arrays"):
        model.predict([x, x, x])
    single = mlp(n_in=3)
    with pytest.raises(ValueError, match="has 1 inputs but 2 input arrays"):
        single.predict([x, x])


def test_the_wrong_number_of_targets(model, data):
    x, y = data
    with pytest.raises(ValueError, match="1 outputs but 2 target arrays"):
        model.fit(x, [y, y], verbose=0)
    with pytest.raises(ValueError, match=r"targets \(y\) are needed"):
        model.fit(x, verbose=0)


def test_a_target_shape_that_does_not_fit_the_output(data):
    x, _ = data
    model = mlp(n_out=3)
    model.compile("sgd", pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    with pytest.raises(pd.ShapeError, match="labels must have the shape of the scores"):
        model.fit(x, np.zeros((20, 3), np.int64), verbose=0)


def test_labels_outside_the_classes_are_a_python_error(data):
    x, _ = data
    model = mlp(n_out=3)
    model.compile("sgd", pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    for bad in (7, -1):
        with pytest.raises(ValueError, match=rf"label {bad} at position 0 is outside the 3 "
                                             r"classes"):
            model.fit(x, np.full(20, bad), verbose=0)


def test_a_label_outside_the_classes_is_named_by_its_place_in_the_users_y(data):
    # It said "one_hot: index 10 at position 1": a position inside a shuffled batch, in the
    # words of an op the user never called.
    x, _ = data
    y = np.zeros(20, np.int64)
    y[13] = 10
    model = mlp(n_out=3)
    model.compile("sgd", "sparse_categorical_crossentropy")
    expected = (r"^sparse_categorical_crossentropy: label 10 at position 13 is outside the 3 "
                r"classes \[0, 3\) of the model's output \(shape \(None, 3\)\): {}\[13\] is "
                r"10{}; class labels run from 0 to 2$")
    with pytest.raises(ValueError, match=expected.format("y", "")):
        model.fit(x, y, batch_size=4, shuffle=True, verbose=0)
    with pytest.raises(ValueError, match=expected.format("y", "")):
        model.fit(x, y, validation_split=0.5, verbose=0)  # in the validation part
    with pytest.raises(ValueError, match=expected.format(r"validation_data\[1\]", "")):
        model.fit(x, np.zeros(20, np.int64), validation_data=(x, y), verbose=0)
    with pytest.raises(ValueError, match=expected.format("y", "")):
        model.evaluate(x, y, verbose=0)
    with pytest.raises(ValueError, match=expected.format("y", " in this batch")):
        model.train_on_batch(x, y)
    with pytest.raises(ValueError, match="label 10 at position 1 .*: y\\[1\\] is 10 in this batch"):
        model.fit([(x[12:16], y[12:16])], verbose=0)  # batches of the user's own
    for call in (lambda: model.fit(x, y, verbose=0), lambda: model.evaluate(x, y, verbose=0)):
        with pytest.raises(ValueError) as info:
            call()
        assert "one_hot" not in str(info.value)


# ---- data ---------------------------------------------------------------------------------

def test_x_and_y_lengths_must_match(model, data):
    x, y = data
    with pytest.raises(ValueError, match="same number of samples: x has 20, y has 15"):
        model.fit(x, y[:15], verbose=0)
    with pytest.raises(ValueError, match="same number of samples: x has 15, y has 20"):
        model.evaluate(x[:15], y, verbose=0)
    with pytest.raises(ValueError, match="a batch has 4 inputs but 3 targets"):
        model.fit([(x[:4], y[:3])], verbose=0)


@pytest.mark.parametrize("bad_x", [
    np.array([["a", "b", "c", "d"]] * 20),
    np.array([[object()] * 4] * 20, dtype=object),
    [["1", "2", "3", "4"]] * 20])
def test_non_numeric_inputs(model, data, bad_x):
    _, y = data
    with pytest.raises(TypeError, match="x: expected numeric data, received an array of"):
        model.fit(bad_x, y, verbose=0)
    with pytest.raises(TypeError, match="x: expected numeric data"):
        model.predict(bad_x)


def test_non_numeric_targets_and_batches(model, data):
    x, _ = data
    with pytest.raises(TypeError, match="y: expected numeric data, received an array of <U"):
        model.fit(x, np.array(["cat"] * 20), verbose=0)
    with pytest.raises(TypeError, match="y: expected numeric data"):
        model.fit([(x[:5], ["a"] * 5)], verbose=0)
    with pytest.raises(TypeError, match="x: expected numeric data"):
        model.fit([("text", np.zeros((5, 1)))], verbose=0)


def test_unsupported_data_sources(model, data):
    x, y = data
    with pytest.raises(TypeError, match="expected NumPy arrays, a reader creator or an "
                                        "iterable of batches, received int"):
        model.fit(3, verbose=0)
    with pytest.raises(ValueError, match=r"x: the dict's keys \['input'\] do not match the "
                                         r"model's inputs \['input_layer(_\d+)?'\]"):
        model.fit({"input": x}, y, verbose=0)
    with pytest.raises(ValueError, match="reader creator yields .* do not pass y"):
        model.fit(lambda: iter([]), y, verbose=0)
    with pytest.raises(ValueError, match="validation_split needs NumPy arrays"):
        model.fit([(x, y)], validation_split=0.5, verbose=0)
    with pytest.raises(ValueError, match=r"x has no samples"):
        model.fit(x[:0], y[:0], verbose=0)


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size: expected a positive integer, received 0"),
    ({"batch_size": 2.5}, "batch_size: expected a positive integer"),
    ({"validation_split": 1.5}, r"validation_split: expected a fraction in \(0, 1\)"),
    ({"sample_weight": np.ones(3)}, r"sample_weight: expected shape \(20,\), received \(3,\)"),
    ({"epochs": "3"}, "expected epochs to be an integer >= 0, received '3'"),
    ({"initial_epoch": -1}, "expected initial_epoch to be an integer >= 0")])
def test_bad_fit_arguments(model, data, kwargs, message):
    x, y = data
    with pytest.raises(ValueError, match=message):
        model.fit(x, y, verbose=0, **kwargs)


def test_bad_class_weight_and_callbacks(model, data):
    x, y = data
    with pytest.raises(TypeError, match=r"class_weight: expected a dict"):
        model.fit(x, y, class_weight=[1.0, 2.0], verbose=0)
    with pytest.raises(TypeError, match="callbacks: expected Callback objects, received "
                                        "function"):
        model.fit(x, y, callbacks=[lambda: None], verbose=0)


# ---- compile ------------------------------------------------------------------------------

def test_unknown_optimizer_lists_the_valid_ones():
    model = mlp()
    with pytest.raises(ValueError, match="unknown 'adamm'; expected one of adadelta, "
                                         "adafactor, adagrad, adam, adamax, adamw, ftrl, lamb, "
                                         "lion, muon, nadam, rmsprop, schedulefreeadamw, sgd"):
        model.compile(optimizer="adamm", loss="mse")
    assert not model.compiled


def test_unknown_loss_lists_the_valid_ones():
    model = mlp()
    with pytest.raises(ValueError, match=r"Unknown loss 'msee'; expected one of "
                                         r"binary_crossentropy, binary_focal_crossentropy, "
                                         r"categorical_crossentropy, .*mse, msle, poisson, "
                                         r"sparse_categorical_crossentropy, squared_hinge"):
        model.compile(optimizer="adam", loss="msee")
    with pytest.raises(ValueError, match="Unknown loss 'nope'"):
        model.compile(optimizer="adam", loss=["mse", "nope"])
    with pytest.raises(TypeError, match="Could not interpret loss 3"):
        model.compile(optimizer="adam", loss=3)
    assert not model.compiled


def test_unknown_metric_lists_the_valid_ones():
    model = mlp()
    with pytest.raises(ValueError, match=r"Unknown metric 'acc2'; expected one of accuracy, "
                                         r"acc, .*mae, .*top_k_categorical_accuracy"):
        model.compile(optimizer="adam", loss="mse", metrics=["acc2"])
    with pytest.raises(ValueError, match="Unknown metric 'f1ish'"):
        model.compile(optimizer="adam", loss="mse", metrics={"dense": ["f1ish"]})
    assert not model.compiled


def test_a_metrics_string_is_one_metric(data):
    x, y = data
    model = mlp()
    model.compile("sgd", "mse", metrics="mae")
    assert set(model.evaluate(x, y, return_dict=True, verbose=0)) == {"loss", "mae"}


def test_compile_needs_a_loss_and_matching_outputs(data):
    x, y = data
    model = mlp()
    model.compile("sgd")  # Keras's "add_loss values are the loss": this model has none
    with pytest.raises(ValueError, match="nothing to minimize: compile a loss, or add one "
                                         "with add_loss"):
        model.fit(x, y, verbose=0)
    # A functional model knows its outputs: compile checks at once.
    with pytest.raises(ValueError, match="2 loss_weights for 1 outputs"):
        model.compile("sgd", "mse", loss_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"losses for unknown outputs \['nope'\]; the outputs "
                                         r"are \["):
        model.compile("sgd", {"nope": "mse"})


# ---- order of calls -----------------------------------------------------------------------

def test_fit_evaluate_and_train_before_compile(data):
    x, y = data
    model = mlp(name="uncompiled")
    with pytest.raises(ValueError, match=r"uncompiled: call compile\(\) before fit\(\)"):
        model.fit(x, y, verbose=0)
    with pytest.raises(ValueError, match=r"call compile\(\) before evaluate\(\)"):
        model.evaluate(x, y, verbose=0)
    with pytest.raises(ValueError, match=r"call compile\(\) before training"):
        model.train_on_batch(x, y)
    with pytest.raises(ValueError, match=r"call compile\(\) before testing"):
        model.test_on_batch(x, y)
    assert model.predict(x).shape == (20, 1)  # predicting needs no compile


def test_an_unbuilt_subclassed_model_asks_for_data():
    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, x, training=False):
            return self.dense(x)

    with pytest.raises(ValueError, match="has not been called yet"):
        Net().graph()


def test_train_step_must_return_a_dict_of_variables(data):
    x, y = data

    class Bad(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, x, training=False):
            return self.dense(x)

        def train_step(self, data):
            return 0.5

    model = Bad()
    model.compile("sgd")
    with pytest.raises(TypeError, match="train_step must return a dict of Variables, "
                                        "received float"):
        model.fit(x, y, verbose=0)


# ---- NaN ----------------------------------------------------------------------------------

def diverging(data):
    x, y = data
    model = mlp()
    model.compile(pd.optimizers.SGD(1e6), "mse")
    return model, x, y * 1e10


def test_a_nan_loss_goes_on_and_shows_in_the_history(data):
    model, x, y = diverging(data)
    batches = []
    history = model.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=[
        pd.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batches.append(logs))])
    assert len(batches) == 15 and len(history.history["loss"]) == 3
    assert all(math.isnan(v) for v in history.history["loss"])
    assert math.isnan(batches[-1]["loss"])


def test_terminate_on_nan_stops_at_the_first_invalid_loss(data, capsys):
    model, x, y = diverging(data)
    batches = []
    history = model.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=[
        pd.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batches.append(logs)),
        pd.callbacks.TerminateOnNaN()])
    first_bad = next(i for i, logs in enumerate(batches) if not math.isfinite(logs["loss"]))
    assert len(batches) == first_bad + 1 < 15
    assert len(history.history["loss"]) == 1
    assert f"Batch {first_bad}: invalid loss" in capsys.readouterr().out


def test_nan_inputs_predict_nan_rather_than_failing(model):
    out = model.predict(np.full((3, 4), np.nan, np.float32))
    assert out.shape == (3, 1) and np.isnan(out).all()


# ---- empty batches (issue 25, item 9) -----------------------------------------------------

class OwnStep(pd.Model):
    """A subclassed model with its own train_step and test_step."""

    def __init__(self):
        super().__init__()
        self.dense = pd.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        loss = pd.mean(pd.square(self(x, training=True) - y))
        self.optimizer.minimize(loss, var_list=self.trainable_weights)
        return {"loss": loss}

    def test_step(self, data):
        x, y = data
        return {"loss": pd.mean(pd.square(self(x) - y))}


def state_of(model):
    return ([w.val() for w in model.weights], model.optimizer.iterations,
            [m.result() for m in model.metrics] if model.metrics else [])


def assert_same_state(before, after):
    for a, b in zip(before[0], after[0]):
        np.testing.assert_array_equal(a, b)
    assert before[1:] == after[1:]


@pytest.mark.parametrize("kind", ["built-in", "own step"])
@pytest.mark.parametrize("call", ["train_on_batch", "test_on_batch", "predict_on_batch",
                                  "fit on batches", "evaluate on batches",
                                  "predict on batches"])
def test_an_empty_batch_is_a_value_error_that_changes_nothing(data, kind, call):
    x, y = data
    model = mlp() if kind == "built-in" else OwnStep()
    model.compile("adam", "mse", metrics=["mae"])
    model.train_on_batch(x, y)  # built, with optimizer state and metric values
    before = state_of(model)
    empty = [(x[:0], y[:0])]
    run = {"train_on_batch": lambda: model.train_on_batch(x[:0], y[:0]),
           "test_on_batch": lambda: model.test_on_batch(x[:0], y[:0]),
           "predict_on_batch": lambda: model.predict_on_batch(x[:0]),
           "fit on batches": lambda: model.fit(empty, verbose=0),
           "evaluate on batches": lambda: model.evaluate(empty, verbose=0),
           "predict on batches": lambda: model.predict(iter([x[:0]]))}[call]
    with pytest.raises(ValueError, match=r"on an empty batch: x has shape \(0, 4\) "
                                         r"\(0 samples\); expected at least one sample"):
        run()
    after = state_of(model)
    if call.endswith("batches"):  # fit and evaluate start by resetting the metrics (Keras)
        before, after = before[:2], after[:2]
    assert_same_state(before, after)


def test_an_empty_first_batch_builds_nothing_and_counts_no_step(data):
    x, y = data
    model = mlp()
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="training on an empty batch"):
        model.train_on_batch(x[:0], y[:0])
    assert model.optimizer.iterations == 0
    model.train_on_batch(x, y)
    assert model.optimizer.iterations == 1
