"""The EMA arguments every optimizer takes (use_ema, ema_momentum, ema_overwrite_frequency),
finalize_variable_values at the end of fit and pd.callbacks.SwapEMAWeights, against
numbers from Keras 3.15.1; their state saved and loaded; bad arguments."""
import numpy as np
import pytest

import paddle as pd
from lowlevel.test_optimizers import quadratic
from paddle.devices import cuda
from paddle.highlevel.saving import keras_v3


# Keras 3.15.1 (JAX backend, JAX_ENABLE_X64, floatx float64): keras.optimizers.X(**kwargs)
# .apply([g], [w]) ten times on the quadratic of test_optimizers (w from 0.3,
# g = 2 * SCALE * (w - TARGET)): the weights, then the optimizer's "average" variable.
KERAS_EMA = [
    (pd.optimizers.SGD, {"learning_rate": 0.1, "momentum": 0.5, "use_ema": True,
                         "ema_momentum": 0.9},
     [[0.5065090593, -1.0353303592, 1.8869374445], [1.4652552965, -0.009763589, -0.5057719789]],
     [[0.4333650955, -0.8300478681, 1.1218512021], [1.2418264469, 0.0999523568, -0.4595345656]]),
    # every third step the weights take their averages
    (pd.optimizers.Adam, {"learning_rate": 0.1, "use_ema": True, "ema_momentum": 0.8,
                          "ema_overwrite_frequency": 3},
     [[0.5239585502, -0.1571833763, 0.7597477454], [0.756165956, -0.0396857353, -0.1478768706]],
     [[0.5260346326, -0.0804062503, 0.6819799001], [0.6797841191, -0.0091385798, -0.0747590184]]),
]


@pytest.mark.parametrize("device", ["cpu", "simulated"])
@pytest.mark.parametrize("cls, kwargs, weights, average", KERAS_EMA)
def test_ema_trajectory_matches_keras(cls, kwargs, weights, average, device):
    w, loss = quadratic("float64")
    opt = cls(**kwargs)
    step = opt.minimize(loss)
    with cuda.simulated():
        for _ in range(10):
            pd.eval(step, device="cpu" if device == "cpu" else "gpu")
    assert opt.iterations == 10
    np.testing.assert_allclose(w.val(), weights, rtol=0, atol=1e-9)
    np.testing.assert_allclose(opt.slots(w)["average"], average, rtol=0, atol=1e-9)


def test_the_average_starts_as_the_weight_and_follows_it():
    w, loss = quadratic("float64")
    opt = pd.optimizers.SGD(0.05, use_ema=True, ema_momentum=0.7)
    step = opt.minimize(loss)
    assert opt.all_slot_names() == ("average",) and opt.slot_names == ()
    pd.eval(step)
    np.testing.assert_array_equal(opt.slots(w)["average"], w.val())  # momentum 0 at step 1
    for _ in range(3):
        before = opt.slots(w)["average"].copy()
        pd.eval(step)
        np.testing.assert_allclose(opt.slots(w)["average"], 0.7 * before + 0.3 * w.val(),
                                   rtol=1e-13)
    opt.finalize_variable_values([w])
    np.testing.assert_array_equal(w.val(), opt.slots(w)["average"])
    # without use_ema it changes nothing
    plain = pd.optimizers.SGD(0.05)
    v, loss2 = quadratic("float64")
    pd.eval(plain.minimize(loss2))
    before = v.val()
    plain.finalize_variable_values([v])
    np.testing.assert_array_equal(v.val(), before)


def test_float32_and_weight_constraints_come_after_the_average():
    """Keras averages the updated weights before applying constraints."""
    w = pd.Variable("ema_c", shape=[3], dtype="float32",
                    initializer=pd.initializers.Constant(1.0))
    w.constraint = pd.constraints.NonNeg()
    opt = pd.optimizers.SGD(1.0, use_ema=True, ema_momentum=0.5)
    step = opt.minimize(pd.sum(w * pd.constant(np.array([2.0, 0.5, -1.0], "float32"))))
    pd.eval(step)  # w - g = [-1, 0.5, 2]; the average takes that, then w is clipped
    np.testing.assert_allclose(opt.slots(w)["average"], [-1.0, 0.5, 2.0])
    np.testing.assert_allclose(w.val(), [0.0, 0.5, 2.0])


# Keras 3.15.1: a Dense(2) from fixed weights, SGD(0.1, use_ema=True, ema_momentum=0.5),
# fit(batch_size=4, epochs=3, shuffle=False, validation_data=(x, y)): val_loss with
# SwapEMAWeights (evaluated on the averages) and without, and the weights after fit (the
# averages, with or without the callback).
X = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
Y = np.random.default_rng(1).normal(size=(8, 2)).astype("float32")
K0 = np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], "float32")
B0 = np.array([0.05, -0.05], "float32")
KERAS_VAL_SWAPPED = [0.4510849, 0.4255924, 0.4056166]
KERAS_VAL_PLAIN = [0.436, 0.4115398, 0.3951671]
KERAS_FINAL = [[[0.0853373, -0.22946], [0.2325606, 0.3718439], [-0.4652304, 0.5230974]],
               [0.0373117, 0.09213]]


def _model(optimizer=None):
    m = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    m.compile(optimizer or pd.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5), "mse")
    m.set_weights([K0, B0])
    return m


@pytest.mark.parametrize("callbacks, val_loss", [
    ([], KERAS_VAL_PLAIN),
    ([pd.callbacks.SwapEMAWeights()], KERAS_VAL_SWAPPED),
    ([pd.callbacks.SwapEMAWeights(swap_on_epoch=True)], KERAS_VAL_SWAPPED),
])
def test_fit_ends_on_the_averages_and_swap_evaluates_with_them(callbacks, val_loss):
    m = _model()
    history = m.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0,
                    validation_data=(X, Y), callbacks=callbacks)
    np.testing.assert_allclose(history.history["val_loss"], val_loss, rtol=1e-5)
    for got, want in zip(m.get_weights(), KERAS_FINAL):
        np.testing.assert_allclose(got, want, atol=1e-6)


def test_swap_restores_the_weights_after_evaluate_and_predict():
    m = _model()
    m.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    opt = m.optimizer
    raw = [w.val() for w in m.trainable_weights]
    averages = [opt.slots(w)["average"].copy() for w in m.trainable_weights]
    swap = pd.callbacks.SwapEMAWeights()
    loss_on_averages = m.evaluate(X, Y, verbose=0, callbacks=[swap])
    for w, r, a in zip(m.trainable_weights, raw, averages):
        np.testing.assert_array_equal(w.val(), r)
        np.testing.assert_array_equal(opt.slots(w)["average"], a)
    predicted = m.predict(X, verbose=0, callbacks=[swap])
    for w, r in zip(m.trainable_weights, raw):
        np.testing.assert_array_equal(w.val(), r)
    np.testing.assert_allclose(predicted, X @ averages[0] + averages[1], rtol=1e-5, atol=1e-6)
    assert loss_on_averages == pytest.approx(
        float(np.mean((X @ averages[0] + averages[1] - Y) ** 2)), rel=1e-5)


@pytest.mark.parametrize("fmt", ["keras", "h5"])
def test_ema_state_resumes_from_a_saved_model(fmt, tmp_path):
    def model():
        return _model(pd.optimizers.Adam(0.05, use_ema=True, ema_momentum=0.6,
                                         ema_overwrite_frequency=4, amsgrad=True))
    straight = model()
    for _ in range(6):
        straight.train_on_batch(X, Y)
    resumed = model()
    for _ in range(3):
        resumed.train_on_batch(X, Y)
    path = str(tmp_path / f"m.{fmt}")
    resumed.save(path)
    loaded = pd.load_model(path)
    config = loaded.optimizer.get_config()
    assert (config["use_ema"], config["ema_momentum"], config["ema_overwrite_frequency"]) == \
        (True, 0.6, 4)
    for w, v in zip(loaded.trainable_weights, resumed.trainable_weights):
        np.testing.assert_array_equal(loaded.optimizer.slots(w)["average"],
                                      resumed.optimizer.slots(v)["average"])
    for _ in range(3):
        loaded.train_on_batch(X, Y)
    for a, b in zip(straight.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for w, v in zip(straight.trainable_weights, loaded.trainable_weights):
        np.testing.assert_allclose(straight.optimizer.slots(w)["average"],
                                   loaded.optimizer.slots(v)["average"], rtol=1e-5, atol=1e-6)


def test_keras_saved_averages_load_at_their_paths(tmp_path):
    """The .keras layout: iterations, learning rate, the averages of every weight, then the
    optimizer's own slots (Keras's base build adds the averages first)."""

    m = _model(pd.optimizers.SGD(0.1, momentum=0.5, use_ema=True))
    m.train_on_batch(X, Y)
    entries = [(path, slot, w.name if w is not None else None)
               for path, kind, w, slot in keras_v3.optimizer_entries(m, m.optimizer)]
    kernel, bias = (w.name for w in m.trainable_weights)
    assert [e[1:] for e in entries] == [
        (None, None), (None, None), ("average", kernel), ("average", bias),
        ("velocity", kernel), ("velocity", bias)]


def test_config_round_trip_on_every_optimizer():
    for name in ("sgd", "adam", "adamw", "rmsprop", "adagrad", "adamax", "nadam", "lion",
                 "ftrl", "adadelta"):
        cls = type(pd.optimizers.get(name))
        opt = cls(use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
        config = opt.get_config()
        assert (config["use_ema"], config["ema_momentum"],
                config["ema_overwrite_frequency"]) == (True, 0.5, 2), name
        assert cls.from_config(config).get_config() == config
    assert pd.optimizers.Adam().get_config()["use_ema"] is False


@pytest.mark.parametrize("kwargs, match", [
    ({"use_ema": "yes"}, r"SGD: expected use_ema to be True or False, received 'yes'"),
    ({"use_ema": True, "ema_momentum": 1.5}, r"SGD: expected ema_momentum in \[0, 1\]"),
    ({"ema_momentum": -0.1}, r"SGD: expected ema_momentum in \[0, 1\]"),
    ({"use_ema": True, "ema_overwrite_frequency": 0},
     r"SGD: expected ema_overwrite_frequency to be an integer >= 1 or None, received 0"),
    ({"use_ema": True, "ema_overwrite_frequency": 2.5},
     r"expected ema_overwrite_frequency to be an integer >= 1 or None, received 2.5"),
])
def test_bad_ema_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pd.optimizers.SGD(**kwargs)


def test_swap_and_finalize_refuse_what_they_cannot_do():
    with pytest.raises(TypeError, match="SwapEMAWeights: expected swap_on_epoch as True or "
                                        "False, received 1"):
        pd.callbacks.SwapEMAWeights(swap_on_epoch=1)
    m = _model(pd.optimizers.SGD(0.1))
    with pytest.raises(ValueError, match="SwapEMAWeights: expected a model compiled with an "
                                         "optimizer with use_ema=True"):
        m.evaluate(X, Y, verbose=0, callbacks=[pd.callbacks.SwapEMAWeights()])
    fresh = _model()
    with pytest.raises(ValueError, match="SwapEMAWeights: the optimizer has no moving "
                                         "average for"):
        fresh.evaluate(X, Y, verbose=0, callbacks=[pd.callbacks.SwapEMAWeights()])
    w = pd.Variable("ema_untrained", shape=[2])
    with pytest.raises(ValueError, match="SGD.finalize_variable_values: no moving average "
                                         "for \\['ema_untrained'\\]"):
        pd.optimizers.SGD(use_ema=True).finalize_variable_values([w])
