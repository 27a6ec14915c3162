"""Dict inputs and outputs, as Keras 3 takes them: arrays keyed by the names of the model's
inputs (`pd.Input(name=...)`) and outputs (the names of the layers making them, or the keys
of a dict given as `outputs`), and `loss` / `loss_weights` / `metrics` keyed the same way."""
import numpy as np
import pytest

import paddle as pd

RNG = np.random.default_rng(0)


def two_headed(outputs_as_dict=False):
    """title + body -> priority (regression) and department (3 classes, logits)."""
    title = pd.Input(shape=(5,), name="title")
    body = pd.Input(shape=(3,), name="body")
    h = pd.layers.Concatenate()([pd.layers.Dense(4, activation="relu")(title),
                                 pd.layers.Dense(4, activation="relu")(body)])
    priority = pd.layers.Dense(1, name="priority")(h)
    department = pd.layers.Dense(3, name="department")(h)
    outputs = {"priority": priority, "department": department} if outputs_as_dict \
        else [priority, department]
    return pd.Model(inputs=[title, body], outputs=outputs)


def data(n=24):
    x = {"title": RNG.random((n, 5), dtype=np.float32),
         "body": RNG.random((n, 3), dtype=np.float32)}
    y = {"priority": RNG.random((n, 1), dtype=np.float32),
         "department": np.eye(3, dtype=np.float32)[np.arange(n) % 3]}
    return x, y


def np_cce_logits(logits, onehot):
    z = logits - logits.max(1, keepdims=True)
    return -np.sum(onehot * (z - np.log(np.exp(z).sum(1, keepdims=True))), axis=1)


def test_names_come_from_inputs_and_output_layers():
    pd.seed(0)
    model = two_headed()
    assert model.input_names == ["title", "body"]
    assert model.output_names == ["priority", "department"]
    assert two_headed(outputs_as_dict=True).output_names == ["priority", "department"]


def test_losses_weights_and_metrics_keyed_by_output_name():
    pd.seed(0)
    model = two_headed()
    model.compile("adam",
                  loss={"priority": "mse",
                        "department": pd.losses.CategoricalCrossentropy(from_logits=True)},
                  loss_weights={"priority": 1.0, "department": 0.2},
                  metrics={"priority": "mae", "department": ["accuracy"]})
    x, y = data()
    logs = model.evaluate(x, y, return_dict=True, verbose=0)
    assert set(logs) == {"loss", "priority_loss", "department_loss", "priority_mae",
                         "department_accuracy"}
    priority, department = model.predict(x)
    np.testing.assert_allclose(model.predict([x["title"], x["body"]])[1], department)
    mse = np.mean((priority - y["priority"]) ** 2)
    cce = np.mean(np_cce_logits(department, y["department"]))
    assert logs["priority_loss"] == pytest.approx(mse, rel=1e-5)
    assert logs["department_loss"] == pytest.approx(cce, rel=1e-5)
    assert logs["loss"] == pytest.approx(mse + 0.2 * cce, rel=1e-5)
    assert logs["priority_mae"] == pytest.approx(np.mean(np.abs(priority - y["priority"])),
                                                 rel=1e-5)
    assert logs["department_accuracy"] == pytest.approx(
        np.mean(department.argmax(1) == y["department"].argmax(1)))

    first = model.evaluate(x, y, verbose=0)[0]
    history = model.fit(x, y, epochs=30, batch_size=8, verbose=0,
                        validation_data=(x, y)).history
    assert "val_department_accuracy" in history and "val_priority_loss" in history
    assert model.evaluate(x, y, verbose=0)[0] < first  # it learns


def test_dicts_in_any_order_and_in_batches_and_splits():
    pd.seed(0)
    model = two_headed()
    model.compile("sgd", loss=["mse", pd.losses.CategoricalCrossentropy(from_logits=True)])
    x, y = data()
    reordered_x = {"body": x["body"], "title": x["title"]}
    reordered_y = {"department": y["department"], "priority": y["priority"]}
    listed = model.evaluate([x["title"], x["body"]], [y["priority"], y["department"]],
                            return_dict=True, verbose=0)
    assert model.evaluate(reordered_x, reordered_y, return_dict=True, verbose=0) == \
        pytest.approx(listed)
    batches = [({k: v[i:i + 8] for k, v in x.items()}, {k: v[i:i + 8] for k, v in y.items()})
               for i in range(0, 24, 8)]
    assert model.evaluate(batches, return_dict=True, verbose=0) == pytest.approx(listed)
    predicted = model.predict([{k: v[i:i + 8] for k, v in x.items()} for i in range(0, 24, 8)])
    np.testing.assert_allclose(predicted[0], model.predict(x)[0], rtol=1e-6)
    single = model.test_on_batch(x, y, return_dict=True)
    assert single["loss"] == pytest.approx(listed["loss"], rel=1e-5)
    history = model.fit(x, y, validation_split=0.25, epochs=1, verbose=0).history
    assert "val_loss" in history


def test_outputs_given_as_a_dict_come_back_as_a_dict():
    pd.seed(0)
    model = two_headed(outputs_as_dict=True)
    x, _ = data(6)
    out = model.predict(x)
    assert set(out) == {"priority", "department"}
    assert out["priority"].shape == (6, 1) and out["department"].shape == (6, 3)
    assert set(model.predict_on_batch(x)) == {"priority", "department"}
    eager = model(x)
    np.testing.assert_allclose(eager["department"], out["department"], rtol=1e-6)
    symbolic = model({"title": pd.Input(shape=(5,)), "body": pd.Input(shape=(3,))})
    assert {k: v.shape for k, v in symbolic.items()} == {"priority": (None, 1),
                                                          "department": (None, 3)}


def test_inputs_given_as_a_dict_are_keyed_by_their_keys():
    pd.seed(0)
    a, b = pd.Input(shape=(2,), name="first"), pd.Input(shape=(2,), name="second")
    model = pd.Model(inputs={"a": a, "b": b}, outputs=pd.layers.Add()([a, 2.0 * b]))
    assert model.input_names == ["a", "b"]
    out = model.predict({"a": np.ones((3, 2), np.float32), "b": np.ones((3, 2), np.float32)})
    np.testing.assert_allclose(out, np.full((3, 2), 3.0))


def test_metrics_as_a_list_of_lists_go_to_each_output():
    pd.seed(0)
    model = two_headed()
    model.compile("sgd", loss=["mse", pd.losses.CategoricalCrossentropy(from_logits=True)],
                  metrics=[["mae", "mse"], ["accuracy"]])
    x, y = data()
    logs = model.evaluate(x, y, return_dict=True, verbose=0)
    assert set(logs) == {"loss", "priority_loss", "department_loss", "priority_mae",
                         "priority_mse", "department_accuracy"}
    assert logs["priority_mse"] == pytest.approx(logs["priority_loss"], rel=1e-5)


def test_an_output_left_out_of_the_loss_dict_is_not_trained():
    pd.seed(0)
    model = two_headed()
    model.compile("sgd", loss={"department": pd.losses.CategoricalCrossentropy(
        from_logits=True)}, metrics={"priority": ["mae"], "department": "accuracy"})
    before = model.get_layer("priority").get_weights()
    x, y = data()
    logs = model.fit(x, y, epochs=2, verbose=0).history
    assert set(logs) == {"loss", "priority_mae", "department_accuracy"}
    for w0, w1 in zip(before, model.get_layer("priority").get_weights()):
        np.testing.assert_array_equal(w0, w1)


def test_accuracy_without_a_loss_is_chosen_from_the_shapes():
    pd.seed(0)
    model = two_headed()
    model.compile("sgd", loss=["mse", None], metrics={"department": "accuracy"})
    x, y = data()
    logs = model.evaluate(x, y, return_dict=True, verbose=0)
    department = model.predict(x)[1]
    assert logs["department_accuracy"] == pytest.approx(
        np.mean(department.argmax(1) == y["department"].argmax(1)))


# ---- bad input --------------------------------------------------------------------------

def test_missing_and_unknown_keys_are_named():
    pd.seed(0)
    model = two_headed()
    model.compile("sgd", loss=["mse", "mse"])
    x, y = data(4)
    with pytest.raises(ValueError, match=r"x: .*inputs \['title', 'body'\].*missing \['body'\]"):
        model.fit({"title": x["title"]}, y, verbose=0)
    with pytest.raises(ValueError, match=r"y: .*unknown \['dept'\]"):
        model.evaluate(x, dict(y, dept=y["department"]), verbose=0)
    with pytest.raises(ValueError, match=r"x: .*unknown \['titel'\]"):
        model.predict({"titel": x["title"], "body": x["body"], "title": x["title"]})
    with pytest.raises(ValueError, match=r"losses for unknown outputs \['prio'\]"):
        model.compile("sgd", loss={"prio": "mse"})
    with pytest.raises(ValueError, match=r"loss_weights for unknown outputs \['x'\]"):
        model.compile("sgd", loss="mse", loss_weights={"x": 1.0})
    with pytest.raises(ValueError, match=r"metrics for unknown outputs \['p'\]"):
        model.compile("sgd", loss="mse", metrics={"p": "mae"})
    with pytest.raises(ValueError, match="one list per output"):
        model.compile("sgd", loss="mse", metrics=[["mae"], ["mse"], ["mae"]])
    with pytest.raises(ValueError, match=r"3 losses for 2 outputs"):
        model.compile("sgd", loss=["mse", "mse", "mse"])
    with pytest.raises(ValueError, match="one output"):
        pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(1)]).compile(
            "sgd", loss="mse", metrics=[["mae"]])


def test_dicts_need_named_inputs():
    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, x, training=False):
            return self.dense(x)
    net = Net()
    net.compile("sgd", loss="mse")
    with pytest.raises(TypeError, match="x: a dict needs a model whose inputs have names"):
        net.fit({"a": np.ones((2, 2), np.float32)}, np.ones((2, 1), np.float32), verbose=0)


def test_bad_structures_are_refused():
    a = pd.Input(shape=(2,), name="same")
    with pytest.raises(TypeError, match=r"inputs dict's keys to be names \(str\), received 1"):
        pd.Model(inputs={1: a}, outputs=pd.layers.Dense(1)(a))
    b = pd.Input(shape=(2,), name="same")  # a live Input of that name: still keyed "same"
    with pytest.raises(ValueError, match="input names must be unique"):
        pd.Model(inputs=[a, b], outputs=pd.layers.Add()([a, b]))


def test_reader_creators_may_yield_batches_of_dicts():
    model = two_headed(outputs_as_dict=True)
    model.compile("sgd", {"priority": "mse", "department": "categorical_crossentropy"})
    x, y = data(12)

    def batches():  # what a tf.data pipeline of (dict, dict) yields
        for lo in range(0, 12, 4):
            yield ({k: v[lo:lo + 4] for k, v in x.items()},
                   {k: v[lo:lo + 4] for k, v in y.items()})

    history = model.fit(batches, epochs=2, verbose=0)
    assert model.optimizer.iterations == 6 and len(history.history["loss"]) == 2
    assert model.evaluate(batches, verbose=0, return_dict=True)["loss"] == pytest.approx(
        model.evaluate(x, y, verbose=0, return_dict=True)["loss"], rel=1e-5)
