"""compile / fit / evaluate / predict and the *_on_batch calls, on real models: data sources,
options, progress output, compiled-once steps, custom train_step, callbacks in a real fit."""
import math

import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.training import loop, step
from paddle.lowlevel import executor


def blobs(n=60, seed=0):
    """Two separable classes in 4-D: (x float32, y int64)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(size=(n, 4)).astype(np.float32) + 1.5 * y[:, None].astype(np.float32)
    return x, y.astype(np.int64)


def classifier(seed=0, hidden=8):
    pd.seed(seed)
    return pd.Sequential([pd.layers.Input(shape=(4,)),
                          pd.layers.Dense(hidden, activation="relu"),
                          pd.layers.Dense(2)])


def compiled_classifier(seed=0, optimizer="sgd", **kwargs):
    model = classifier(seed)
    model.compile(optimizer, pd.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], **kwargs)
    return model


def regressor(seed=0):
    pd.seed(seed)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
    model.compile(pd.optimizers.SGD(0.05), "mse")
    return model


def np_sparse_ce(logits, y):
    z = logits - logits.max(1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(1, keepdims=True))
    return -log_p[np.arange(len(y)), y]


def same_weights(a, b):
    return all(np.array_equal(u, v) for u, v in zip(a, b))


class Recorder(pd.callbacks.Callback):
    """Every hook call as (hook, index, logs copy)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def on_epoch_begin(self, epoch, logs=None):
        self.calls.append(("epoch_begin", epoch, None))

    def on_epoch_end(self, epoch, logs=None):
        self.calls.append(("epoch_end", epoch, dict(logs)))

    def on_train_batch_end(self, batch, logs=None):
        self.calls.append(("batch_end", batch, dict(logs)))

    def count(self, hook):
        return sum(1 for c in self.calls if c[0] == hook)


# ---- compile ------------------------------------------------------------------------------

@pytest.mark.parametrize("optimizer", [
    "sgd", "adam", "adamw", "rmsprop", "adagrad",
    lambda: pd.optimizers.SGD(learning_rate=0.1, momentum=0.9),
    lambda: pd.optimizers.Adam(learning_rate=1e-2)])
def test_compile_takes_optimizer_names_and_objects(optimizer):
    if callable(optimizer):  # an object of its own for each device's run
        optimizer = optimizer()
    x, y = blobs(16)
    model = compiled_classifier(optimizer=optimizer)
    before = model.get_weights()
    model.fit(x, y, batch_size=8, verbose=0)
    assert isinstance(model.optimizer, pd.optimizers.Optimizer)
    if not isinstance(optimizer, str):
        assert model.optimizer is optimizer
    assert model.optimizer.iterations == 2
    assert not same_weights(before, model.get_weights())


@pytest.mark.parametrize("loss, target", [
    ("mse", "float"), ("mae", "float"), ("huber", "float"),
    ("binary_crossentropy", "binary"), ("categorical_crossentropy", "onehot"),
    ("sparse_categorical_crossentropy", "int"),
    (pd.losses.MeanSquaredError(), "float"),
    (pd.losses.CategoricalCrossentropy(), "onehot"),
    (lambda y_true, y_pred: pd.mean(pd.abs(y_true - y_pred), axis=-1), "float")])
def test_compile_takes_loss_names_objects_and_callables(loss, target):
    x, y = blobs(12)
    targets = {"float": np.stack([y, 1 - y], 1).astype(np.float32) * 0.5,
               "binary": np.stack([y, 1 - y], 1).astype(np.float32),
               "onehot": np.eye(2, dtype=np.float32)[y], "int": y}[target]
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(4,)),
                           pd.layers.Dense(2, activation="softmax")])
    model.compile("adam", loss)
    first = model.fit(x, targets, epochs=3, verbose=0).history["loss"]
    assert len(first) == 3 and all(math.isfinite(v) for v in first)
    assert first[-1] < first[0]


@pytest.mark.parametrize("metric, key", [
    ("accuracy", "accuracy"), ("mae", "mae"), ("mse", "mse"),
    ("top_k_categorical_accuracy", "top_k_categorical_accuracy"),
    (pd.metrics.CategoricalAccuracy(), "categorical_accuracy"),
    (pd.metrics.MeanSquaredError(), "mean_squared_error")])
def test_compile_takes_metric_names_and_objects(metric, key):
    x, y = blobs(12)
    onehot = np.eye(2, dtype=np.float32)[y]
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(4,)),
                           pd.layers.Dense(2, activation="softmax")])
    model.compile("sgd", "categorical_crossentropy", metrics=[metric])
    logs = model.evaluate(x, onehot, return_dict=True, verbose=0)
    assert set(logs) == {"loss", key}
    probs = model.predict(x)
    expected = {"accuracy": np.mean(probs.argmax(1) == y),
                "categorical_accuracy": np.mean(probs.argmax(1) == y),
                "mae": np.mean(np.abs(probs - onehot)),
                "mse": np.mean((probs - onehot) ** 2),
                "mean_squared_error": np.mean((probs - onehot) ** 2),
                "top_k_categorical_accuracy": 1.0}[key]  # k=5 > 2 classes: always right
    assert logs[key] == pytest.approx(expected, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("weights, names", [([0.5, 2.0], ("w_reg", "w_cls")),
                                            ({"wd_reg": 0.5, "wd_cls": 2.0},
                                             ("wd_reg", "wd_cls"))])
def test_loss_weights_weight_each_output(weights, names):
    pd.seed(0)
    inp = pd.Input(shape=(4,))
    h = pd.layers.Dense(6, activation="relu")(inp)
    # Layer names are unique while a layer lives: each case names its outputs afresh.
    model = pd.Model(inp, [pd.layers.Dense(1, name=names[0])(h),
                           pd.layers.Dense(3, name=names[1])(h)])
    model.compile("sgd", ["mse", pd.losses.SparseCategoricalCrossentropy(from_logits=True)],
                  loss_weights=weights)
    x, _ = blobs(10)
    y_reg = np.linspace(0, 1, 10, dtype=np.float32)[:, None]
    y_cls = np.arange(10) % 3
    logs = model.evaluate(x, [y_reg, y_cls], return_dict=True, verbose=0)
    reg_key, cls_key = f"{names[0]}_loss", f"{names[1]}_loss"
    assert set(logs) == {"loss", reg_key, cls_key}
    assert logs["loss"] == pytest.approx(0.5 * logs[reg_key] + 2.0 * logs[cls_key], rel=1e-5)
    reg, cls = model.predict(x)
    assert logs[reg_key] == pytest.approx(np.mean((reg - y_reg) ** 2), rel=1e-5)
    assert logs[cls_key] == pytest.approx(np.mean(np_sparse_ce(cls, y_cls)), rel=1e-5)
    history = model.fit(x, [y_reg, y_cls], epochs=2, verbose=0).history
    assert set(history) == {"loss", reg_key, cls_key}


def test_an_output_without_a_loss_is_not_trained():
    pd.seed(0)
    inp = pd.Input(shape=(4,))
    shared = pd.layers.Dense(4)
    head, other = pd.layers.Dense(1), pd.layers.Dense(2)
    h = shared(inp)
    model = pd.Model(inp, [head(h), other(h)])
    model.compile("sgd", loss=["mse", None])
    x, _ = blobs(8)
    before = other.get_weights()
    model.fit(x, [np.ones((8, 1), np.float32), np.zeros((8, 2), np.float32)], verbose=0)
    assert same_weights(before, other.get_weights())


# ---- fit on arrays ------------------------------------------------------------------------

def test_fit_batches_by_batch_size_and_returns_the_history():
    x, y = blobs(50)
    model = compiled_classifier()
    rec = Recorder()
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, callbacks=[rec])
    assert isinstance(history, pd.callbacks.History) and model.history is history
    assert rec.count("batch_end") == 3 * 4  # ceil(50 / 16) batches per epoch
    assert history.epoch == [0, 1, 2]
    assert set(history.history) == {"loss", "accuracy"}
    assert all(len(v) == 3 for v in history.history.values())
    epoch_logs = [c[2] for c in rec.calls if c[0] == "epoch_end"]
    assert history.history["loss"] == [logs["loss"] for logs in epoch_logs]


def test_shuffle_is_reproducible_under_seed():
    x, y = blobs(48)
    runs = []
    for _ in range(2):
        model = compiled_classifier(seed=3)
        model.fit(x, y, batch_size=8, epochs=2, verbose=0)
        runs.append(model.get_weights())
    assert same_weights(*runs)
    unshuffled = compiled_classifier(seed=3)
    unshuffled.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert not same_weights(runs[0], unshuffled.get_weights())
    again = compiled_classifier(seed=3)
    again.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert same_weights(unshuffled.get_weights(), again.get_weights())


def test_validation_split_holds_out_the_last_samples():
    x, y = blobs(50)
    model = compiled_classifier()
    rec = Recorder()
    history = model.fit(x, y, batch_size=10, epochs=2, validation_split=0.2, verbose=0,
                        callbacks=[rec])
    assert rec.count("batch_end") == 2 * 4  # 40 training samples
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    # Validation runs after the epoch's updates: the last values are the final model's.
    final = model.evaluate(x[40:], y[40:], return_dict=True, verbose=0)
    assert history.history["val_loss"][-1] == pytest.approx(final["loss"], rel=1e-6)
    assert history.history["val_accuracy"][-1] == pytest.approx(final["accuracy"])


def test_validation_data_with_and_without_sample_weights():
    x, y = blobs(40)
    xv, yv = blobs(12, seed=5)
    model = compiled_classifier()
    history = model.fit(x, y, epochs=2, validation_data=(xv, yv), verbose=0)
    final = model.evaluate(xv, yv, return_dict=True, verbose=0)
    assert history.history["val_loss"][-1] == pytest.approx(final["loss"], rel=1e-6)
    sw = np.where(np.arange(12) < 6, 0.0, 2.0).astype(np.float32)
    history = model.fit(x, y, epochs=1, validation_data=(xv, yv, sw), verbose=0)
    weighted = np.sum(sw * np_sparse_ce(model.predict(xv), yv)) / 12
    assert history.history["val_loss"][-1] == pytest.approx(weighted, rel=1e-5)


def test_sample_weight_and_class_weight_weigh_the_loss():
    x, y = blobs(20)
    model = compiled_classifier()
    losses = np_sparse_ce(model.predict(x), y)
    # train_on_batch reports the loss of the weights it started from.
    sw = np.linspace(0, 2, 20).astype(np.float32)
    loss = model.train_on_batch(x, y, sample_weight=sw, return_dict=True)["loss"]
    assert loss == pytest.approx(np.mean(sw * losses), rel=1e-5)
    losses = np_sparse_ce(model.predict(x), y)
    loss = model.train_on_batch(x, y, class_weight={0: 1.0, 1: 3.0}, return_dict=True)["loss"]
    assert loss == pytest.approx(np.mean(np.where(y == 1, 3.0, 1.0) * losses), rel=1e-5)
    # In fit, class_weight is the sample weights it stands for.
    by_class = compiled_classifier(seed=1)
    by_class.fit(x, y, batch_size=5, epochs=2, class_weight={0: 0.5, 1: 2.0}, verbose=0)
    by_sample = compiled_classifier(seed=1)
    by_sample.fit(x, y, batch_size=5, epochs=2, sample_weight=np.where(y == 1, 2.0, 0.5),
                  verbose=0)
    for a, b in zip(by_class.get_weights(), by_sample.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_column_of_sample_weights_is_one_weight_per_sample():
    # keras-io's custom_train_step guide: fit(x, y, sample_weight=np.random.random((n, 1)))
    x, y = blobs(20)
    sw = np.linspace(0, 2, 20).astype(np.float32)
    flat, column = compiled_classifier(seed=1), compiled_classifier(seed=1)
    hf = flat.fit(x, y, batch_size=5, epochs=2, sample_weight=sw, shuffle=False, verbose=0)
    hc = column.fit(x, y, batch_size=5, epochs=2, sample_weight=sw[:, None], shuffle=False,
                    verbose=0)
    np.testing.assert_allclose(hc.history["loss"], hf.history["loss"], rtol=1e-6)
    for a, b in zip(flat.get_weights(), column.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert column.evaluate(x, y, sample_weight=sw[:, None], verbose=0) == pytest.approx(
        flat.evaluate(x, y, sample_weight=sw, verbose=0), rel=1e-6)
    assert column.train_on_batch(x, y, sample_weight=sw[:, None]) == pytest.approx(
        flat.train_on_batch(x, y, sample_weight=sw), rel=1e-6)
    with pytest.raises(ValueError, match=r"^sample_weight: expected shape \(20,\), received "
                                         r"\(20, 2\)"):
        flat.fit(x, y, sample_weight=np.ones((20, 2)), verbose=0)


def test_epochs_initial_epoch_and_steps_per_epoch():
    x, y = blobs(40)
    model = compiled_classifier()
    rec = Recorder()
    history = model.fit(x, y, batch_size=5, epochs=5, initial_epoch=2, steps_per_epoch=3,
                        verbose=0, callbacks=[rec])
    assert history.epoch == [2, 3, 4]
    assert [c[1] for c in rec.calls if c[0] == "epoch_begin"] == [2, 3, 4]
    assert rec.count("batch_end") == 3 * 3
    assert model.optimizer.iterations == 9
    assert model.fit(x, y, epochs=0, verbose=0).history == {}


# ---- other data sources -------------------------------------------------------------------

def test_fit_on_a_reader_creator_matches_arrays():
    x, y = blobs(30)

    def samples():
        for i in range(len(x)):
            yield x[i], int(y[i])

    from_reader = compiled_classifier(seed=2)
    rec = Recorder()
    history = from_reader.fit(pd.reader.batch(samples, 10), epochs=2, verbose=0,
                              callbacks=[rec])
    assert rec.count("batch_end") == 6 and len(history.history["loss"]) == 2
    from_arrays = compiled_classifier(seed=2)
    from_arrays.fit(x, y, batch_size=10, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(from_reader.get_weights(), from_arrays.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    logs = from_reader.evaluate(pd.reader.batch(samples, 7), return_dict=True, verbose=0)
    assert logs == pytest.approx(from_arrays.evaluate(x, y, return_dict=True, verbose=0))
    # Batches of 8 and of 30: a GPU's BLAS may sum a row in another order at another batch
    # size (seen on an H200: 2e-8 apart), hence the float32 ulp of atol.
    np.testing.assert_allclose(from_reader.predict(pd.reader.batch(samples, 8)),
                               from_arrays.predict(x), rtol=1e-6, atol=1e-7)


def test_fit_on_a_list_of_batches_matches_arrays():
    x, y = blobs(30)
    batches = [(x[i:i + 10], y[i:i + 10]) for i in range(0, 30, 10)]
    from_list = compiled_classifier(seed=2)
    from_list.fit(batches, epochs=2, verbose=0)
    from_arrays = compiled_classifier(seed=2)
    from_arrays.fit(x, y, batch_size=10, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(from_list.get_weights(), from_arrays.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert from_list.evaluate(batches, verbose=0) == \
        pytest.approx(from_arrays.evaluate(x, y, verbose=0))


def test_fit_on_a_generator_with_steps_per_epoch():
    x, y = blobs(30)
    served = []

    def forever():
        while True:
            for i in range(0, 30, 10):
                served.append(i)
                yield x[i:i + 10], y[i:i + 10]

    model = compiled_classifier()
    rec = Recorder()
    history = model.fit(forever(), epochs=3, steps_per_epoch=2, verbose=0, callbacks=[rec])
    assert len(history.history["loss"]) == 3 and rec.count("batch_end") == 6
    assert served == [0, 10, 20, 0, 10, 20]  # the next epoch goes on where the last stopped


# ---- evaluate / predict / *_on_batch ------------------------------------------------------

def test_evaluate_matches_numpy_on_the_predictions():
    x, y = blobs(23)
    model = compiled_classifier()
    model.fit(x, y, epochs=2, verbose=0)
    logits = model.predict(x)
    loss = np.mean(np_sparse_ce(logits, y))
    accuracy = np.mean(logits.argmax(1) == y)
    logs = model.evaluate(x, y, batch_size=5, return_dict=True, verbose=0)  # uneven batches
    assert list(logs) == ["loss", "accuracy"]
    assert all(type(v) is float for v in logs.values())
    assert logs["loss"] == pytest.approx(loss, rel=1e-5)
    assert logs["accuracy"] == pytest.approx(accuracy)
    assert model.evaluate(x, y, batch_size=5, verbose=0) == \
        pytest.approx([logs["loss"], logs["accuracy"]])
    single = regressor()
    value = single.evaluate(x, np.ones((23, 1), np.float32), verbose=0)
    assert isinstance(value, float)
    assert value == pytest.approx(np.mean((single.predict(x) - 1) ** 2), rel=1e-5)


def test_predict_in_batches_equals_predict_on_batch(device):
    x, _ = blobs(37)
    model = compiled_classifier()
    whole = model.predict_on_batch(x)
    assert isinstance(whole, np.ndarray) and whole.shape == (37, 2)
    # A GPU's products may round differently at another batch size (float32: 1e-5).
    rtol = 1e-6 if device == "cpu" else 1e-5
    for batch_size in (None, 4, 37, 100):
        np.testing.assert_allclose(model.predict(x, batch_size=batch_size), whole, rtol=rtol)
    np.testing.assert_allclose(model(x), whole, rtol=rtol)


def test_on_batch_calls_return_values():
    x, y = blobs(16)
    model = compiled_classifier()
    before = model.get_weights()
    tested = model.test_on_batch(x, y)
    assert same_weights(before, model.get_weights())  # test_on_batch does not train
    assert isinstance(tested, list) and len(tested) == 2
    trained = model.train_on_batch(x, y)
    assert trained == pytest.approx(tested, rel=1e-6)  # the loss before the update
    assert not same_weights(before, model.get_weights())
    after = model.test_on_batch(x, y, return_dict=True)
    assert set(after) == {"loss", "accuracy"} and after["loss"] < tested[0]
    assert all(type(v) is float for v in after.values())
    single = regressor()
    assert isinstance(single.train_on_batch(x, np.zeros((16, 1), np.float32)), float)
    assert isinstance(single.test_on_batch(x, np.zeros((16, 1), np.float32)), float)
    assert single.predict_on_batch(x[:3]).shape == (3, 1)


def test_steps_are_built_once_not_per_batch(monkeypatch):
    built = {"steps": 0, "programs": 0}

    class CountingStep(step.Step):
        def __init__(self, *args, **kwargs):
            built["steps"] += 1
            super().__init__(*args, **kwargs)

    class CountingProgram(executor.Program):
        def __init__(self, *args, **kwargs):
            built["programs"] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(loop, "Step", CountingStep)
    monkeypatch.setattr(executor, "Program", CountingProgram)
    x, y = blobs(95)
    model = compiled_classifier()
    rec = Recorder()
    model.fit(x, y, batch_size=10, epochs=1, validation_split=0.2, verbose=0, callbacks=[rec])
    assert rec.count("batch_end") == 8
    # A train step and a test step; programs per batch shape (10 and the last, 6).
    assert built == {"steps": 2, "programs": 4}
    model.fit(x, y, batch_size=10, epochs=3, validation_split=0.2, verbose=0)
    model.evaluate(x[76:], y[76:], batch_size=10, verbose=0)  # the validation shapes
    assert built == {"steps": 2, "programs": 4}
    model.predict(x, batch_size=10)
    assert built == {"steps": 3, "programs": 6}


# ---- progress output ----------------------------------------------------------------------

def test_verbose_0_prints_nothing(capsys):
    x, y = blobs(20)
    model = compiled_classifier()
    model.fit(x, y, epochs=2, verbose=0)
    model.evaluate(x, y, verbose=0)
    model.predict(x, verbose=0)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("verbose", [1, 2])
def test_verbose_1_and_2_print_one_line_per_epoch_off_a_terminal(capsys, verbose):
    x, y = blobs(20)
    model = compiled_classifier()
    history = model.fit(x, y, batch_size=5, epochs=3, validation_split=0.2, verbose=verbose)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for epoch, line in enumerate(lines):
        assert line.startswith(f"Epoch {epoch + 1}/3 - 4/4 - ")
        loss = history.history["loss"][epoch]
        assert f"loss: {loss:.4f} - accuracy: " in line and " - val_loss: " in line
        assert "val_accuracy: " in line
    model.evaluate(x, y, verbose=verbose)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("1/1 - ") and "loss: " in out[0]


# ---- learning -----------------------------------------------------------------------------

def digits_images(creator):
    x, y = pd.reader.to_arrays(list(creator()))
    return x.reshape(-1, 8, 8, 1), y


def test_a_small_convnet_learns_the_digits():
    pd.seed(0)
    x_train, y_train = digits_images(pd.dataset.digits.train())
    x_test, y_test = digits_images(pd.dataset.digits.test())
    model = pd.Sequential([pd.layers.Input(shape=(8, 8, 1)),
                           pd.layers.Conv2D(16, 3, padding="same", activation="relu"),
                           pd.layers.MaxPooling2D(2),
                           pd.layers.Flatten(),
                           pd.layers.Dense(10, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=32, epochs=6, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 3
    assert model.evaluate(x_test, y_test, return_dict=True, verbose=0)["accuracy"] > 0.9


# ---- custom train_step: a GAN -------------------------------------------------------------

class GAN(pd.Model):
    """Generator and discriminator, each with its own optimizer over its own weights."""

    def __init__(self, g_rate=1e-2, d_rate=1e-2):
        super().__init__()
        self.generator = pd.Sequential([pd.layers.Input(shape=(2,)),
                                        pd.layers.Dense(8, activation="relu"),
                                        pd.layers.Dense(2)])
        self.discriminator = pd.Sequential([pd.layers.Input(shape=(2,)),
                                            pd.layers.Dense(8, activation="relu"),
                                            pd.layers.Dense(1)])
        self.g_opt = pd.optimizers.Adam(g_rate)
        self.d_opt = pd.optimizers.Adam(d_rate)
        self.traced = 0

    def call(self, noise, training=False):
        return self.generator(noise)

    def train_step(self, data):
        self.traced += 1
        real, noise = data
        bce = pd.losses.BinaryCrossentropy(from_logits=True)
        fake_scores = self.discriminator(self.generator(noise))
        real_scores = self.discriminator(real)
        d_loss = bce(pd.ones_like(real_scores), real_scores) + \
            bce(pd.zeros_like(fake_scores), fake_scores)
        g_loss = bce(pd.ones_like(fake_scores), fake_scores)
        self.d_opt.minimize(d_loss, var_list=self.discriminator.trainable_weights)
        self.g_opt.minimize(g_loss, var_list=self.generator.trainable_weights)
        return {"d_loss": d_loss, "g_loss": g_loss}


def gan_data(n=64):
    rng = np.random.default_rng(0)
    real = (rng.normal(size=(n, 2)) * 0.1 + [2.0, -1.0]).astype(np.float32)
    return real, rng.normal(size=(n, 2)).astype(np.float32)


@pytest.mark.parametrize("frozen", ["generator", "discriminator"])
def test_gan_updates_change_only_their_half(frozen):
    pd.seed(0)
    gan = GAN(**({"g_rate": 0.0} if frozen == "generator" else {"d_rate": 0.0}))
    gan.compile()
    real, noise = gan_data()
    g_before, d_before = gan.generator.get_weights(), gan.discriminator.get_weights()
    gan.fit(real, noise, batch_size=16, epochs=1, verbose=0)
    g_same = same_weights(g_before, gan.generator.get_weights())
    d_same = same_weights(d_before, gan.discriminator.get_weights())
    assert (g_same, d_same) == ((True, False) if frozen == "generator" else (False, True))


def test_gan_trains_through_train_step_with_fit():
    pd.seed(0)
    gan = GAN()
    gan.compile()
    real, noise = gan_data()
    g_before, d_before = gan.generator.get_weights(), gan.discriminator.get_weights()
    rec = Recorder()
    history = gan.fit(real, noise, batch_size=16, epochs=3, verbose=0, callbacks=[rec])
    assert gan.traced == 1  # traced once into the graph, not per batch
    assert set(history.history) == {"d_loss", "g_loss"}
    assert all(type(v) is float and math.isfinite(v) for vs in history.history.values()
               for v in vs)
    assert rec.count("batch_end") == 12
    assert gan.g_opt.iterations == gan.d_opt.iterations == 12
    assert not same_weights(g_before, gan.generator.get_weights())
    assert not same_weights(d_before, gan.discriminator.get_weights())
    samples = gan.predict(noise[:5])
    assert samples.shape == (5, 2)


def test_train_step_may_use_the_compiled_optimizer():
    class Custom(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, x, training=False):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            loss = pd.mean(pd.square(self(x, training=True) - y))
            self.optimizer.minimize(loss)
            return {"loss": loss, "twice": loss * 2.0}

    pd.seed(0)
    model = Custom()
    model.compile(optimizer=pd.optimizers.SGD(0.1))
    x, _ = blobs(32)
    y = x.sum(1, keepdims=True)
    history = model.fit(x, y, batch_size=8, epochs=4, verbose=0).history
    assert history["loss"][-1] < history["loss"][0]
    assert history["twice"] == pytest.approx([2 * v for v in history["loss"]])


# ---- callbacks inside a real fit ----------------------------------------------------------

def test_early_stopping_restores_the_best_weights():
    x, _ = blobs(40)
    y = x.sum(1, keepdims=True)
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
    model.compile(pd.optimizers.SGD(0.3), "mse")  # too large: the loss grows every epoch
    at_epoch_end = []
    keep = pd.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: at_epoch_end.append(model.get_weights()))
    stop = pd.callbacks.EarlyStopping(monitor="val_loss", patience=10,
                                      restore_best_weights=True)
    history = model.fit(x, y, batch_size=4, epochs=4, validation_data=(x, y), verbose=0,
                        callbacks=[keep, stop])
    val = history.history["val_loss"]
    best = int(np.argmin(val))
    assert len(val) == 4 and best < 3  # patience did not run out, best is not the last
    assert same_weights(model.get_weights(), at_epoch_end[best])
    assert model.evaluate(x, y, verbose=0) == pytest.approx(val[best], rel=1e-5)


def test_early_stopping_stops_when_patience_runs_out():
    x, _ = blobs(40)
    y = x.sum(1, keepdims=True)
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
    model.compile(pd.optimizers.SGD(0.3), "mse")
    stop = pd.callbacks.EarlyStopping(monitor="loss", patience=1)
    history = model.fit(x, y, batch_size=4, epochs=20, verbose=0, callbacks=[stop])
    assert len(history.history["loss"]) < 20 and stop.stopped_epoch == len(history.epoch) - 1


@pytest.mark.skipif(not hasattr(pd.Model, "save"), reason="model.save has not landed")
def test_model_checkpoint_saves_in_a_real_fit(tmp_path):
    x, y = blobs(30)
    model = compiled_classifier()
    ckpt = pd.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch:02d}.h5"), monitor="loss")
    model.fit(x, y, epochs=2, verbose=0, callbacks=[ckpt])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-01.h5", "m-02.h5"]
    restored = pd.load_model(str(tmp_path / "m-02.h5"))
    np.testing.assert_allclose(restored.predict(x), model.predict(x), rtol=1e-6)


def test_stop_training_from_a_callback_stops_after_the_current_batch():
    x, y = blobs(40)
    model = compiled_classifier()
    batches = []

    def on_batch_end(batch, logs):
        batches.append(batch)
        if batch == 2:
            model.stop_training = True

    history = model.fit(x, y, batch_size=5, epochs=3, verbose=0,
                        callbacks=[pd.callbacks.LambdaCallback(on_train_batch_end=on_batch_end)])
    assert batches == [0, 1, 2] and model.optimizer.iterations == 3
    assert history.epoch == [0] and len(history.history["loss"]) == 1
    # The next fit starts afresh.
    model.fit(x, y, batch_size=20, epochs=1, verbose=0)
    assert model.optimizer.iterations == 5


def test_on_train_end_runs_when_training_raises():
    x, y = blobs(20)
    model = compiled_classifier()
    ended = []

    class Boom(pd.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            raise RuntimeError("boom at the end of the epoch")

    with pytest.raises(RuntimeError, match="boom"):
        model.fit(x, y, epochs=3, verbose=0,
                  callbacks=[Boom(), pd.callbacks.LambdaCallback(
                      on_train_end=lambda logs: ended.append(logs))])
    assert len(ended) == 1 and set(ended[0]) == {"loss", "accuracy", "epoch"}


def test_logs_hold_plain_python_numbers():
    x, y = blobs(20)
    model = compiled_classifier()
    rec = Recorder()
    history = model.fit(x, y, batch_size=5, epochs=2, validation_split=0.25, verbose=0,
                        callbacks=[rec])
    for hook, index, logs in rec.calls:
        assert type(index) is int
        for value in (logs or {}).values():
            assert type(value) in (float, int), (hook, logs)
    assert all(type(v) is float for vs in history.history.values() for v in vs)


def test_fit_takes_variables_computed_by_ops_as_data():
    model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(4, activation="softmax")])
    model.compile("sgd", "mse")
    labels = np.array([0, 3, 1, 2], np.float32)
    y = pd.ops.one_hot(labels, num_classes=4)  # a Variable, as Keras's ops return tensors
    x = np.ones((4, 3), np.float32)
    assert model.fit(x, y, verbose=0).history["loss"][0] == pytest.approx(
        model.evaluate(x, np.eye(4, dtype=np.float32)[[0, 3, 1, 2]], verbose=0), rel=0.2)
    with pytest.raises(ValueError, match="y: item 0 is a Variable whose value cannot be "
                                         "computed without feeds"):
        model.fit(x, pd.data("not_fed_y", [None, 4]), verbose=0)


def test_metrics_names_name_what_evaluate_returns():
    model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2)])
    model.compile("sgd", "mse", metrics=["mae"])
    assert model.metrics_names[0] == "loss"
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)
    result = model.evaluate(x, y, verbose=0)
    assert dict(zip(model.metrics_names, result)) == model.evaluate(x, y, verbose=0,
                                                                    return_dict=True)
