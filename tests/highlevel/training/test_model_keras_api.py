"""Keras 3's Model and Layer attributes beside the core: predict_step, make_*_function,
compile's execution settings, compile/build configs, get_metrics_result,
metrics_variables, input/output shapes, dtypes, path, own-variable stores, add_metric."""
import numpy as np
import pytest

import paddle as pd


def _model(metrics=("mae",)):
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2, name="out")])
    model.compile(pd.optimizers.SGD(0.1), "mse", metrics=list(metrics))
    return model


X = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
Y = np.ones((8, 2), np.float32)


# ---- predict_step -----------------------------------------------------------------------

class _Doubling(pd.Model):
    def __init__(self):
        super().__init__()
        self.dense = pd.layers.Dense(2, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)

    def predict_step(self, data):
        out = self(data, training=False)
        return out * 2.0, pd.argmax(out, axis=-1)


def test_overridden_predict_step_is_what_predict_runs():
    model = _Doubling()
    doubled, labels = model.predict(X, batch_size=3)
    plain = X.sum(1, keepdims=True) * np.ones((1, 2), np.float32)
    np.testing.assert_allclose(doubled, 2 * plain, rtol=1e-6)
    assert labels.shape == (8,) and labels.dtype == np.int64
    on_batch = model.predict_on_batch(X[:2])
    assert isinstance(on_batch, tuple) and on_batch[0].shape == (2, 2)
    assert np.array_equal(model.make_predict_function()(X[:2])[0], on_batch[0])


def test_default_predict_step_is_the_models_call():
    model = _model()
    x = pd.data("predict_step_x", (None, 3))
    out = model.predict_step(x)
    assert isinstance(out, pd.Variable) and out.shape == (None, 2)
    np.testing.assert_allclose(pd.eval(out, {x: X}), model.predict(X), rtol=1e-6)


def test_predict_step_returning_something_else_is_refused():
    class Bad(_Doubling):
        def predict_step(self, data):
            return {"n": 3}

    with pytest.raises(TypeError, match="predict_step must return a Variable"):
        Bad().predict(X)


# ---- one-step functions -----------------------------------------------------------------

def test_make_train_and_test_functions_run_one_batch():
    model = _model()
    train = model.make_train_function()
    assert model.train_function is train and model.make_train_function() is train
    assert model.make_train_function(force=True) is not train
    before = model.layers[-1].kernel.val().copy()
    logs = model.train_function(iter([(X, Y)]))  # an iterator: its next batch
    assert sorted(logs) == ["loss", "mae"]
    assert not np.array_equal(before, model.layers[-1].kernel.val())
    test = model.make_test_function()
    expected = model.test_on_batch(X, Y, return_dict=True)
    assert test((X, Y, np.ones(8, np.float32))) == pytest.approx(expected)
    with pytest.raises(ValueError, match="train_function expected a batch"):
        model.train_function(X)
    with pytest.raises(ValueError, match="exhausted iterator"):
        model.test_function(iter([]))


# ---- compile's execution settings, compile config ---------------------------------------

def test_compile_accepts_and_keeps_keras_execution_settings():
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2)])
    assert (model.run_eagerly, model.jit_compile, model.steps_per_execution) == (False, False, 1)
    model.compile("sgd", "mse", run_eagerly=True, steps_per_execution=3, jit_compile=True)
    assert (model.run_eagerly, model.jit_compile, model.steps_per_execution) == (True, True, 3)
    history = model.fit(X, Y, batch_size=4, epochs=1, verbose=0)  # still trains
    assert len(history.history["loss"]) == 1


@pytest.mark.parametrize("kwargs, message", [
    ({"run_eagerly": "yes"}, "expected run_eagerly to be True or False"),
    ({"steps_per_execution": 0}, "expected steps_per_execution to be an integer >= 1"),
    ({"steps_per_execution": 2.0}, "expected steps_per_execution to be an integer >= 1"),
    ({"jit_compile": "xla"}, "expected jit_compile to be True, False or 'auto'"),
    ({"auto_scale_loss": None}, "expected auto_scale_loss to be True or False"),
])
def test_compile_refuses_bad_execution_settings(kwargs, message):
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2)])
    with pytest.raises(ValueError, match=message):
        model.compile("sgd", "mse", **kwargs)


def test_compile_config_round_trip():
    model = _model()
    model.compile(pd.optimizers.SGD(0.25, momentum=0.5), "mse", metrics=["mae"],
                  steps_per_execution=2, jit_compile=False)
    config = model.get_compile_config()
    # Keras 3.15.1's get_compile_config() of the same compile has these keys and values
    # (its optimizer entry adds Keras-only settings such as use_ema).
    assert sorted(config) == ["jit_compile", "loss", "loss_weights", "metrics", "optimizer",
                              "run_eagerly", "steps_per_execution", "weighted_metrics"]
    assert config["loss"] == "mse" and config["metrics"] == ["mae"]
    assert config["steps_per_execution"] == 2 and config["jit_compile"] is False
    assert config["optimizer"]["module"] == "keras.optimizers"
    assert config["optimizer"]["class_name"] == "SGD"
    twin = pd.models.clone_model(model)
    assert twin.get_compile_config() == {}
    twin.compile_from_config(config)
    assert twin.optimizer.momentum == 0.5 and twin.steps_per_execution == 2
    assert twin.get_compile_config() == config
    with pytest.raises(ValueError, match="compile_from_config expected the dict"):
        twin.compile_from_config({"loss": "mse"})


# ---- metrics ----------------------------------------------------------------------------

def test_get_metrics_result_after_evaluate():
    model = _model()
    model.layers[-1].set_weights([np.zeros((3, 2), np.float32), np.zeros(2, np.float32)])
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    result = model.get_metrics_result()
    assert result == pytest.approx({"loss": 1.0, "mae": 1.0})
    assert result == pytest.approx(logs)
    model.fit(X, Y, batch_size=4, epochs=1, verbose=0, shuffle=False)
    last = {k: v[-1] for k, v in model.history.history.items()}
    assert model.get_metrics_result() == pytest.approx(last)


def test_metrics_variables_list_add_variable_state():
    class Count(pd.metrics.Metric):
        def __init__(self, name="count"):
            super().__init__(name=name)
            self.n = self.add_variable(shape=(), initializer="zeros", name="n")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.n.assign_add(pd.sum(pd.ones_like(y_pred[:, 0])))

        def result(self):
            return self.n

    model = _model(metrics=[Count()])
    assert [v.name.rsplit("/", 1)[-1] for v in model.metrics_variables] == ["n"]
    model.evaluate(X, Y, verbose=0)
    assert model.get_metrics_result()["count"] == 8.0

    class Holder(pd.layers.Layer):
        def __init__(self):
            super().__init__()
            self.tracker = Count(name="held")

    assert [v.name.rsplit("/", 1)[-1] for v in Holder().metrics_variables] == ["n"]


def test_add_metric_raises_as_in_keras_3():
    with pytest.raises(NotImplementedError, match="add_metric\\(\\)` method is deprecated"):
        pd.layers.Dense(2).add_metric(None)


# ---- shapes, build configs, dtypes, path ------------------------------------------------

def test_input_and_output_shapes():
    a, b = pd.Input(shape=(3,)), pd.Input(shape=(4, 5))
    model = pd.Model([a, b], [pd.layers.Dense(2)(a), pd.layers.Flatten()(b)])
    # Keras 3.15.1: a two-input, two-output functional model gives lists of tuples.
    assert model.input_shape == [(None, 3), (None, 4, 5)]
    assert model.output_shape == [(None, 2), (None, 20)]
    assert _model().input_shape == (None, 3) and _model().output_shape == (None, 2)
    with pytest.raises(AttributeError, match="has no defined input_shape"):
        _ = _Doubling().input_shape


def test_build_config_round_trip():
    layer = pd.layers.Conv2D(4, 3)
    assert layer.get_build_config() is None
    layer(pd.Input(shape=(8, 8, 2)))
    config = layer.get_build_config()
    assert config == {"input_shape": (None, 8, 8, 2)}  # Keras 3.15.1 gives the same
    fresh = pd.layers.Conv2D(4, 3)
    fresh.build_from_config(config)
    assert fresh.built and fresh.kernel.shape == (3, 3, 2, 4)
    assert _model().get_build_config() == {"input_shape": (None, 3)}
    with pytest.raises(ValueError, match="build_from_config expected the key 'input_shape'"):
        pd.layers.Dense(2).build_from_config({"shape": (None, 3)})
    with pytest.raises(ValueError, match="build_from_config expected a dict"):
        pd.layers.Dense(2).build_from_config([None, 3])


def test_dtypes_and_path(free_names):
    layer = pd.layers.Dense(2, dtype="float64", name="model_keras_api_dense")
    assert (layer.compute_dtype, layer.variable_dtype, layer.input_dtype) == ("float64",) * 3
    with pd.namespace("block"):
        layer(pd.Input(shape=(3,), dtype="float64"))
    assert layer.path == "block/model_keras_api_dense"
    assert layer.kernel.name == layer.path + "/kernel"


def test_save_and_load_own_variables():
    bn = pd.layers.BatchNormalization()
    bn(pd.Input(shape=(3,)))
    store = {}
    bn.save_own_variables(store)
    # Keras 3.15.1's BatchNormalization stores gamma, beta, moving_mean, moving_variance.
    assert list(store) == ["0", "1", "2", "3"]
    assert store["3"].tolist() == [1.0, 1.0, 1.0]
    store["0"] = np.array([2.0, 3.0, 4.0], np.float32)
    other = pd.layers.BatchNormalization()
    other(pd.Input(shape=(3,)))
    other.load_own_variables(store)
    assert other.gamma.val().tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="expected 4 variables, but received 1 variables"):
        other.load_own_variables({"0": np.ones(3, np.float32)})
    with pytest.raises(ValueError, match="was never built"):
        pd.layers.Dense(2).load_own_variables({"0": np.ones(3, np.float32)})
    store["1"] = np.ones(4, np.float32)
    with pytest.raises(pd.ShapeError, match="has shape \\(3,\\), the store's entry 1"):
        other.load_own_variables(store)
