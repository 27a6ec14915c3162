"""A user's layer that branches on `training` in Python, inside a functional model or a
Sequential: `fit` runs its training branch, `predict` and `evaluate` its inference one, as
Keras 3's `model(x, training=True)` re-runs each layer's call (issue #16).

The numbers marked "Keras 3.15.1" come from the same programs run with Keras 3.15.1 (JAX
backend), `keras` in place of `pd`; SGD with learning_rate 0 keeps the weights as they
are, so fit's loss is the training graph's loss on the data that evaluate sees.
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import ops


@pytest.fixture(autouse=True)
def fresh_state():
    gc.collect()  # layer names are global and held weakly
    pd.utils.set_random_seed(7)


class AddIfTraining(pd.layers.Layer):
    """`amount` added in training, the identity otherwise (the input returned as it is)."""

    def __init__(self, amount=1.0, **kwargs):
        super().__init__(**kwargs)
        self.amount = amount

    def call(self, inputs, training=None):
        if training:
            return inputs + self.amount
        return inputs


class CustomDropout(pd.layers.Layer):
    """The keras-io subclassing guide's layer."""

    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate

    def call(self, inputs, training=None):
        if training:
            return pd.random.dropout(inputs, rate=self.rate)
        return inputs


X = np.ones((4, 1), np.float32)
Y = np.zeros((4, 1), np.float32)


def ones_dense(**kwargs):
    return pd.layers.Dense(1, kernel_initializer="ones", use_bias=False, **kwargs)


def fit_and_evaluate(model, x=X, y=Y):
    """(fit's loss, evaluate's loss) on one batch with the weights left as they are."""
    model.compile(pd.optimizers.SGD(learning_rate=0.0), "mse")
    history = model.fit(x, y, batch_size=len(x), epochs=1, verbose=0, shuffle=False)
    return history.history["loss"][0], model.evaluate(x, y, batch_size=len(x), verbose=0)


def test_fit_runs_the_training_branch_and_evaluate_the_inference_one():
    inp = pd.Input(shape=(1,))
    model = pd.Model(inp, ones_dense()(AddIfTraining()(inp)))
    fit_loss, eval_loss = fit_and_evaluate(model)
    np.testing.assert_allclose([fit_loss, eval_loss], [4.0, 1.0], rtol=1e-6)  # Keras 3.15.1


def test_predict_and_a_plain_call_use_the_inference_branch():
    inp = pd.Input(shape=(2,))
    model = pd.Model(inp, AddIfTraining(100.0)(pd.layers.Dense(2, kernel_initializer="ones")(inp)))
    x = np.ones((3, 2), np.float32)
    model.compile("sgd", "mse")
    model.fit(x, np.zeros((3, 2), np.float32), verbose=0)  # builds the training graph
    np.testing.assert_allclose(model.predict(x, verbose=0), model(x))
    assert np.all(model.predict(x, verbose=0) < 50)
    assert np.all(model(x, training=True) - model(x) == pytest.approx(100.0))


def test_fit_drops_units_with_the_guides_custom_dropout():
    inp = pd.Input(shape=(100,))
    out = pd.layers.Dense(1, kernel_initializer=pd.initializers.Constant(0.01),
                          use_bias=False)(CustomDropout(0.5)(inp))
    model = pd.Model(inp, out)
    x, y = np.ones((64, 100), np.float32), np.ones((64, 1), np.float32)
    fit_loss, eval_loss = fit_and_evaluate(model, x, y)
    assert eval_loss == pytest.approx(0.0, abs=1e-10)
    # Each output is the mean of 100 values that are 0 or 2 with even odds: variance 0.01.
    assert 0.004 < fit_loss < 0.02
    np.testing.assert_allclose(model.predict(x, verbose=0), y, rtol=1e-6)


def test_dropout_in_training_changes_the_gradient():
    inp = pd.Input(shape=(50,))
    dense = pd.layers.Dense(1, kernel_initializer="zeros", use_bias=False)
    model = pd.Model(inp, dense(CustomDropout(0.5)(inp)))
    model.compile(pd.optimizers.SGD(learning_rate=0.1), "mse")
    model.fit(np.ones((1, 50), np.float32), np.ones((1, 1), np.float32), epochs=1,
              batch_size=1, verbose=0)
    kernel = dense.get_weights()[0].ravel()
    # The gradient reaches only the kept units (each then 2 * 0.1 * 2 = 0.4), not all 50.
    assert 0 < np.count_nonzero(kernel) < 50
    np.testing.assert_allclose(kernel[kernel != 0], 0.4, rtol=1e-6)


def test_an_explicit_training_false_at_construction_stays_fixed():
    inp = pd.Input(shape=(1,))
    model = pd.Model(inp, ones_dense()(AddIfTraining()(inp, training=False)))
    fit_loss, eval_loss = fit_and_evaluate(model)
    # paddle keeps the construction's explicit value (Keras 3.15.1 lets fit's
    # training=True override it and gives 4.0: see docs/highlevel.md).
    np.testing.assert_allclose([fit_loss, eval_loss], [1.0, 1.0], rtol=1e-6)


def test_an_explicit_training_true_at_construction_runs_in_predict_too():
    inp = pd.Input(shape=(1,))
    model = pd.Model(inp, AddIfTraining()(inp, training=True))
    np.testing.assert_allclose(model.predict(X, verbose=0), X + 1.0)


def test_nested_functional_models_hear_the_training_mode():
    inp = pd.Input(shape=(1,))
    inner = pd.Model(inp, AddIfTraining(2.0)(inp))
    outer_in = pd.Input(shape=(1,))
    outer = pd.Model(outer_in, ones_dense()(inner(outer_in)))
    fit_loss, eval_loss = fit_and_evaluate(outer)
    np.testing.assert_allclose([fit_loss, eval_loss], [9.0, 1.0], rtol=1e-6)  # Keras 3.15.1


def test_a_nested_model_called_with_training_false_stays_in_inference():
    inp = pd.Input(shape=(1,))
    inner = pd.Model(inp, AddIfTraining(2.0)(inp))
    outer_in = pd.Input(shape=(1,))
    outer = pd.Model(outer_in, ones_dense()(inner(outer_in, training=False)))
    fit_loss, eval_loss = fit_and_evaluate(outer)
    np.testing.assert_allclose([fit_loss, eval_loss], [1.0, 1.0], rtol=1e-6)


def test_sequential_runs_the_training_branch_in_fit():
    model = pd.Sequential([pd.Input(shape=(1,)), AddIfTraining(), ones_dense()])
    fit_loss, eval_loss = fit_and_evaluate(model)
    np.testing.assert_allclose([fit_loss, eval_loss], [4.0, 1.0], rtol=1e-6)  # Keras 3.15.1


def test_sequential_built_from_data_runs_the_training_branch_in_fit():
    model = pd.Sequential([AddIfTraining(), ones_dense()])
    fit_loss, eval_loss = fit_and_evaluate(model)
    np.testing.assert_allclose([fit_loss, eval_loss], [4.0, 1.0], rtol=1e-6)


class LossAndShift(pd.layers.Layer):
    def call(self, inputs, training=None):
        self.add_loss(ops.sum(inputs))
        return inputs + (1.0 if training else 0.0)


def test_add_loss_counts_once_in_each_mode():
    inp = pd.Input(shape=(1,))
    model = pd.Model(inp, LossAndShift()(inp))
    assert len(model.losses) == 1
    fit_loss, eval_loss = fit_and_evaluate(model)
    np.testing.assert_allclose([fit_loss, eval_loss], [8.0, 5.0], rtol=1e-6)  # Keras 3.15.1
    assert len(model.losses) == 1  # the training graph's call does not show in `losses`
    assert model.losses[0] is model.layers[0].losses[0]


class WeightLoss(pd.layers.Layer):
    """An add_loss value that reads only a weight: computable in either graph."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(1,), initializer="ones")

    def call(self, inputs, training=None):
        self.add_loss(ops.sum(self.w))
        return inputs * self.w + (1.0 if training else 0.0)


def test_an_add_loss_of_weights_alone_counts_once_in_fit():
    inp = pd.Input(shape=(1,))
    model = pd.Model(inp, WeightLoss()(inp))
    fit_loss, eval_loss = fit_and_evaluate(model)
    np.testing.assert_allclose([fit_loss, eval_loss], [5.0, 2.0], rtol=1e-6)  # Keras 3.15.1


def test_activity_regularizer_follows_the_training_branch():
    inp = pd.Input(shape=(1,))
    dense = ones_dense(activity_regularizer=pd.regularizers.L2(0.1))
    model = pd.Model(inp, dense(AddIfTraining()(inp)))
    fit_loss, eval_loss = fit_and_evaluate(model)
    # The penalty of the training branch's outputs (2 each) in fit, of the inference
    # branch's (1 each) in evaluate, once each, divided by the batch size (4) as Keras 3
    # divides activity penalties: 4 + 0.1 * 16 / 4 and 1 + 0.1 * 4 / 4 (Keras 3.15.1 gives
    # the same [4.4, 1.1]).
    np.testing.assert_allclose([fit_loss, eval_loss], [4.4, 1.1], rtol=1e-6)


def test_models_of_paddles_own_layers_keep_one_graph():
    inp = pd.Input(shape=(3,))
    model = pd.Model(inp, pd.layers.Dense(1)(pd.layers.Dropout(0.5)(pd.layers.Dense(4)(inp))))
    assert model.graph(training=True) == (model.inputs, model.outputs)

    class NoTraining(pd.layers.Layer):
        def call(self, inputs):
            return inputs * 2.0
    model = pd.Model(inp, NoTraining()(inp))
    assert model.graph(training=True) == (model.inputs, model.outputs)


def test_the_training_graph_is_built_once_and_leaves_the_model_as_built():
    inp = pd.Input(shape=(1,))
    out = ones_dense(name="head")(AddIfTraining(name="shift")(inp))
    model = pd.Model(inp, out)
    config = model.get_config()
    first = model.graph(training=True)
    assert first[1][0] is not model.outputs[0]
    assert model.graph(training=True) is first
    assert model.graph(training=False) == (model.inputs, model.outputs)
    assert model.outputs[0] is out and model.inputs[0] is inp
    assert model.get_config() == config
    assert [layer.name for layer in model.layers] == ["shift", "head"]
    restored = pd.Model.from_config(config, custom_objects={"AddIfTraining": AddIfTraining})
    restored.set_weights(model.get_weights())
    np.testing.assert_allclose(restored.predict(X, verbose=0), X)


def test_a_pass_through_layer_keeps_the_layers_before_it():
    class Penalty(pd.layers.Layer):
        def call(self, inputs):
            self.add_loss(0.0 * ops.sum(inputs))
            return inputs
    inp = pd.Input(shape=(2,))
    first = pd.layers.Dense(2, name="first")
    out = pd.layers.Dense(1, name="last")(Penalty(name="penalty")(first(inp)))
    model = pd.Model(inp, out)
    assert [layer.name for layer in model.layers] == ["first", "penalty", "last"]
    assert model(pd.Input(shape=(2,))).shape == (None, 1)  # the replay on new inputs


def test_a_builtin_identity_layer_keeps_the_layers_before_it():
    inp = pd.Input(shape=(2,))
    first = pd.layers.Dense(2, name="first")
    linear = pd.layers.Activation("linear", name="linear")
    out = pd.layers.Dense(1, name="last")(linear(first(inp)))
    model = pd.Model(inp, pd.layers.Add(name="join")([out, AddIfTraining(name="shift")(out)]))
    assert [layer.name for layer in model.layers] == ["first", "linear", "last", "shift", "join"]
    assert model(pd.Input(shape=(2,))).shape == (None, 1)
    x = np.ones((3, 2), np.float32)
    np.testing.assert_allclose(model(x, training=True), model(x) + 1.0, rtol=1e-6)


def test_a_call_on_arrays_with_training_true_runs_the_training_branch():
    inp = pd.Input(shape=(2,))
    model = pd.Model(inp, AddIfTraining(5.0)(inp))
    x = np.ones((2, 2), np.float32)
    np.testing.assert_allclose(model(x, training=True), x + 5.0)
    np.testing.assert_allclose(model(x, training=False), x)
    np.testing.assert_allclose(model(x), x)


def test_train_step_and_test_step_overrides_hear_the_mode():
    class Net(pd.Model):
        def train_step(self, data):
            x, y = data
            loss = self.compute_loss(y=y, y_pred=self(x, training=True))
            return {"loss": loss}

        def test_step(self, data):
            x, y = data
            return {"loss": self.compute_loss(y=y, y_pred=self(x, training=False))}

    inp = pd.Input(shape=(1,))
    model = Net(inp, ones_dense()(AddIfTraining()(inp)))
    model.compile("sgd", "mse")
    history = model.fit(X, Y, batch_size=4, epochs=1, verbose=0)
    assert history.history["loss"][0] == pytest.approx(4.0)
    assert model.evaluate(X, Y, batch_size=4, verbose=0) == pytest.approx(1.0)


def test_a_user_layer_inside_a_wrapper_hears_training():
    inp = pd.Input(shape=(2, 1))
    steps = pd.layers.TimeDistributed(AddIfTraining())(inp)
    model = pd.Model(inp, ones_dense()(pd.layers.Flatten()(steps)))
    x, y = np.ones((4, 2, 1), np.float32), np.zeros((4, 1), np.float32)
    fit_loss, eval_loss = fit_and_evaluate(model, x, y)
    np.testing.assert_allclose([fit_loss, eval_loss], [16.0, 4.0], rtol=1e-6)  # (2+2)², 2²
