"""Keras names added to existing namespaces: OrthogonalRegularizer, the Identity initializer,
optimizers' and schedules' serialize/deserialize (reference values read from Keras 3.15 once
and written here)."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

W = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)


@pytest.mark.parametrize("mode, keras_value", [("rows", 0.047001201659440994),
                                               ("columns", 0.06872635334730148)])
def test_orthogonal_regularizer_is_kerass(mode, keras_value):
    reg = pd.regularizers.OrthogonalRegularizer(0.1, mode)
    assert float(pd.eval(reg(pd.constant(W)))) == pytest.approx(keras_value, rel=1e-5)
    assert pd.regularizers.get("orthogonal_regularizer").get_config() == {
        "factor": 0.01, "mode": "rows"}
    again = pd.regularizers.deserialize(pd.regularizers.serialize(reg))
    assert again.get_config() == {"factor": 0.1, "mode": mode}


def test_orthogonal_regularizer_gradient_and_training():
    for mode in ("rows", "columns"):
        check_gradients(lambda w: pd.regularizers.OrthogonalRegularizer(1.0, mode)(w),
                        [W.astype(np.float64)])
    layer = pd.layers.Dense(3, kernel_regularizer=pd.regularizers.OrthogonalRegularizer(1.0),
                            kernel_initializer=pd.initializers.GlorotUniform(seed=3))
    model = pd.Sequential([pd.Input(shape=(4,)), layer])
    model.compile(pd.optimizers.SGD(0.5), loss=lambda y, p: pd.mean(p) * 0.0)
    before = float(pd.eval(pd.regularizers.OrthogonalRegularizer(1.0)(layer.kernel)))
    model.fit(np.zeros((8, 4), np.float32), np.zeros((8, 3), np.float32), epochs=40, verbose=0)
    after = float(pd.eval(pd.regularizers.OrthogonalRegularizer(1.0)(layer.kernel)))
    assert after < before / 2  # the penalty alone pushes the rows apart


def test_orthogonal_regularizer_bad_input():
    with pytest.raises(ValueError, match="expected mode 'rows' or 'columns'"):
        pd.regularizers.OrthogonalRegularizer(mode="diagonal")
    with pytest.raises(ValueError, match="expected a 2-D weight"):
        pd.regularizers.OrthogonalRegularizer()(pd.constant(np.ones((2, 2, 2), np.float32)))


def test_identity_initializer():
    assert pd.initializers.Identity(2.0)((2, 3)).tolist() == [[2, 0, 0], [0, 2, 0]]
    assert pd.initializers.IdentityInitializer is pd.initializers.identity
    assert pd.initializers.OrthogonalInitializer is pd.initializers.Orthogonal
    assert pd.initializers.get("identity")((2, 2)).tolist() == [[1, 0], [0, 1]]
    layer = pd.layers.Dense(3, kernel_initializer="identity")
    layer(pd.Input(shape=(3,)))
    assert np.array_equal(layer.kernel.val(), np.eye(3))
    config = pd.initializers.serialize(pd.initializers.Identity(2.0))
    assert pd.initializers.deserialize(config).gain == 2.0
    assert isinstance(pd.initializers.deserialize({"class_name": "IdentityInitializer",
                                                   "config": {}}), pd.initializers.Identity)
    with pytest.raises(ValueError, match="only be used for 2-D weights"):
        pd.initializers.Identity()((2, 2, 2))


def test_optimizer_and_schedule_configs_round_trip():
    schedule = pd.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    entry = pd.optimizers.serialize(pd.optimizers.Adam(learning_rate=schedule, beta_1=0.8))
    assert entry["module"] == "keras.optimizers" and entry["class_name"] == "Adam"
    assert entry["config"]["learning_rate"]["module"] == "keras.optimizers.schedules"
    back = pd.optimizers.deserialize(entry)
    assert isinstance(back, pd.optimizers.Adam) and back.beta_1 == 0.8
    assert back.learning_rate.get_config() == schedule.get_config()
    assert isinstance(pd.optimizers.deserialize("sgd"), pd.optimizers.SGD)
    # Keras 3.15's serialize(SGD(0.5, momentum=0.9)), trimmed to what paddle reads.
    keras_entry = {"module": "keras.optimizers", "class_name": "SGD", "registered_name": None,
                   "config": {"name": "SGD", "learning_rate": 0.5, "momentum": 0.9,
                              "nesterov": False, "weight_decay": None, "clipnorm": None,
                              "global_clipnorm": None, "clipvalue": None, "use_ema": False,
                              "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                              "loss_scale_factor": None,
                              "gradient_accumulation_steps": None}}
    assert pd.optimizers.deserialize(keras_entry).momentum == 0.9
    with pytest.raises(ValueError, match="unknown schedule 'Nope'"):
        pd.optimizers.schedules.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(TypeError, match="expected an Optimizer"):
        pd.optimizers.serialize("adam")
