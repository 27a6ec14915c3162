"""The custom-training API of Keras 3 (keras-io guides/custom_train_step_in_tensorflow.py,
with TensorFlow's GradientTape replaced by paddle's `pd.gradients`): compute_loss,
model.metrics, trainable_variables, optimizer.apply / apply_gradients(zip(...)), an
overridden test_step, sample_weight in the step's data, and stateful metrics that work
inside a traced step."""
import numpy as np
import pytest

import paddle as pd


def regression(n=64, d=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random((n, d)).astype(np.float32)
    return x, (x @ rng.random((d, 1)) + 0.1).astype(np.float32)


class GuideModel(pd.Model):
    """The guide's first CustomModel, verbatim but for the tape."""

    def train_step(self, data):
        x, y = data
        y_pred = self(x, training=True)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = pd.gradients(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def functional(cls, d=8, seed=1):
    pd.seed(seed)
    inputs = pd.Input(shape=(d,))
    return cls(inputs, pd.layers.Dense(1)(inputs))


def test_guide_train_step_matches_the_built_in_fit():
    x, y = regression()
    custom = functional(GuideModel)
    plain = functional(pd.Model)
    plain.set_weights(custom.get_weights())
    for m in (custom, plain):
        m.compile(optimizer=pd.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    hc = custom.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0).history
    hp = plain.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0).history
    assert list(hc) == ["loss", "mae"]
    np.testing.assert_allclose(hc["loss"], hp["loss"], rtol=1e-5)
    np.testing.assert_allclose(hc["mae"], hp["mae"], rtol=1e-5)
    np.testing.assert_allclose(custom.get_weights()[0], plain.get_weights()[0], rtol=1e-5)
    assert [m.name for m in custom.metrics] == ["loss", "mae"]


class TrackerModel(pd.Model):
    """The guide's lower-level example: metrics of its own, listed in `metrics`."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = pd.metrics.Mean(name="loss")
        self.mae_metric = pd.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = pd.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        y_pred = self(x, training=True)
        loss = self.loss_fn(y, y_pred)
        grads = pd.gradients(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def test_own_trackers_are_running_means_reset_every_epoch():
    x, y = regression(n=32)
    model = functional(TrackerModel)
    model.compile(optimizer=pd.optimizers.SGD(0.0))       # no learning: equal epochs
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0).history
    pred = model.predict(x, verbose=0)
    mse, mae = float(np.mean((pred - y) ** 2)), float(np.mean(np.abs(pred - y)))
    np.testing.assert_allclose(history["loss"], [mse, mse], rtol=1e-5)   # reset each epoch
    np.testing.assert_allclose(history["mae"], [mae, mae], rtol=1e-5)
    assert model.loss_tracker.result() == pytest.approx(mse, rel=1e-5)


class WeightedModel(pd.Model):
    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        y_pred = self(x, training=True)
        loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        self.optimizer.apply(pd.gradients(loss, self.trainable_variables),
                             self.trainable_variables)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


def test_sample_weight_reaches_train_step():
    x, y = regression(n=16)
    sw = np.zeros(16, np.float32)
    sw[:4] = 1.0
    model = functional(WeightedModel)
    model.compile(optimizer=pd.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    weighted = model.fit(x, y, sample_weight=sw, batch_size=16, verbose=0).history
    pred = model.predict(x, verbose=0)
    mse4 = np.mean((pred[:4] - y[:4]) ** 2)
    mse = np.mean((pred - y) ** 2)
    # Keras's sum-over-batch-size reduction: weighted squared errors / batch size.
    assert weighted["loss"][0] == pytest.approx(mse4 * 4 / 16, rel=1e-4)
    assert weighted["mae"][0] == pytest.approx(np.mean(np.abs(pred[:4] - y[:4])), rel=1e-4)
    plain = model.fit(x, y, batch_size=16, verbose=0).history      # (x, y) without weights
    assert plain["loss"][0] == pytest.approx(mse, rel=1e-4)


class EvalModel(pd.Model):
    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics} | {"twice": 2.0 * loss}


def test_overridden_test_step_drives_evaluate_and_validation():
    x, y = regression(n=32)
    model = functional(EvalModel)
    model.compile(loss="mse", metrics=["mae"])
    logs = model.evaluate(x, y, batch_size=8, verbose=0, return_dict=True)
    pred = model.predict(x, verbose=0)
    mse = float(np.mean((pred - y) ** 2))
    assert list(logs) == ["loss", "mae", "twice"]
    assert logs["loss"] == pytest.approx(mse, rel=1e-5)
    assert logs["twice"] == pytest.approx(2 * mse, rel=1e-5)   # a per-batch value: averaged
    history = model.fit(x, y, batch_size=8, epochs=1, validation_data=(x, y), verbose=0)
    assert "val_twice" in history.history


def test_super_train_step_is_kerass_step():
    class Logged(pd.Model):
        def train_step(self, data):
            self.traced = True
            return super().train_step(data)

    x, y = regression(n=32)
    custom, plain = functional(Logged), functional(pd.Model)
    plain.set_weights(custom.get_weights())
    for m in (custom, plain):
        m.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    hc = custom.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history
    hp = plain.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history
    assert custom.traced
    np.testing.assert_allclose(hc["loss"], hp["loss"], rtol=1e-5)
    np.testing.assert_allclose(hc["mae"], hp["mae"], rtol=1e-5)


class TruePositives(pd.metrics.Metric):
    """keras-io's training_with_built_in_methods custom metric, with pd for keras.ops."""

    def __init__(self, name="categorical_true_positives", **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_positives = self.add_variable(shape=(), name="ctp", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = pd.reshape(pd.argmax(y_pred, axis=1), (-1, 1))
        values = pd.cast(pd.equal(pd.cast(y_true, "int64"), y_pred), "float32")
        if sample_weight is not None:
            values = values * pd.reshape(pd.cast(sample_weight, "float32"), (-1, 1))
        self.true_positives.assign_add(pd.sum(values))

    def result(self):
        return self.true_positives

    def reset_state(self):
        self.true_positives.assign(0.0)


def test_a_keras_style_metric_in_compile_counts_over_the_epoch():
    rng = np.random.default_rng(0)
    x = rng.random((40, 4)).astype(np.float32)
    y = rng.integers(0, 3, (40, 1))
    model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3)])
    model.compile(optimizer=pd.optimizers.SGD(0.0), loss=pd.losses.SparseCategoricalCrossentropy(
        from_logits=True), metrics=[TruePositives()])
    history = model.fit(x, y, batch_size=10, epochs=2, verbose=0).history
    hits = float(np.sum(np.argmax(model.predict(x, verbose=0), axis=1) == y[:, 0]))
    assert history["categorical_true_positives"] == [hits, hits]
    logs = model.evaluate(x, y, batch_size=10, verbose=0, return_dict=True)
    assert logs["categorical_true_positives"] == hits


def test_keras_style_metric_eagerly_and_reset():
    m = TruePositives()
    m.update_state(np.array([[0], [1]]), np.array([[0.9, 0.1], [0.8, 0.2]], np.float32))
    assert float(m.true_positives.val()) == 1.0
    m.reset_state()
    assert float(m.true_positives.val()) == 0.0
    assert m.variables == [m.true_positives]


def test_builtin_metric_result_usable_in_arithmetic_inside_a_step():
    class Scaled(pd.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.tracker = pd.metrics.Mean(name="t")

        def train_step(self, data):
            x, y = data
            loss = pd.mean(pd.square(self(x) - y))
            self.tracker.update_state(loss)
            return {"double": self.tracker.result() * 2.0, "loss": loss}

        @property
        def metrics(self):
            return [self.tracker]

    x, y = regression(n=8)
    model = functional(Scaled)
    model.compile()
    h = model.fit(x, y, batch_size=8, verbose=0).history
    assert h["double"][0] == pytest.approx(2 * h["loss"][0], rel=1e-5)


def test_gan_style_step_with_two_optimizers_and_apply():
    class GAN(pd.Model):
        def __init__(self):
            super().__init__()
            self.generator = pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(2)])
            self.discriminator = pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(1)])
            self.d_loss_tracker = pd.metrics.Mean(name="d_loss")
            self.g_loss_tracker = pd.metrics.Mean(name="g_loss")

        @property
        def metrics(self):
            return [self.d_loss_tracker, self.g_loss_tracker]

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super().compile()
            self.d_optimizer, self.g_optimizer, self.loss_fn = d_optimizer, g_optimizer, loss_fn

        def call(self, noise):
            return self.generator(noise)

        def train_step(self, data):
            real, noise = data
            fake = self.generator(noise)
            scores = self.discriminator(pd.concat([fake, real], axis=0))
            labels = pd.concat([pd.ones_like(fake[:, :1]), pd.zeros_like(real[:, :1])],
                               axis=0)
            d_loss = self.loss_fn(labels, scores)
            d_vars = self.discriminator.trainable_weights
            self.d_optimizer.apply(pd.gradients(d_loss, d_vars), d_vars)
            g_loss = self.loss_fn(pd.zeros_like(fake[:, :1]), self.discriminator(fake))
            g_vars = self.generator.trainable_weights
            self.g_optimizer.apply(pd.gradients(g_loss, g_vars), g_vars)
            self.d_loss_tracker.update_state(d_loss)
            self.g_loss_tracker.update_state(g_loss)
            return {"d_loss": self.d_loss_tracker.result(),
                    "g_loss": self.g_loss_tracker.result()}

    rng = np.random.default_rng(0)
    gan = GAN()
    gan.compile(pd.optimizers.Adam(1e-2), pd.optimizers.Adam(1e-2),
                pd.losses.BinaryCrossentropy(from_logits=True))
    before = [w.copy() for w in gan.get_weights()]
    h = gan.fit(rng.normal(size=(64, 2)).astype(np.float32),
                rng.normal(size=(64, 2)).astype(np.float32), batch_size=16, epochs=2,
                verbose=0).history
    assert sorted(h) == ["d_loss", "g_loss"] and all(np.isfinite(h["d_loss"]))
    assert all(not np.array_equal(a, b) for a, b in zip(before, gan.get_weights()))


def test_variables_properties_on_layers_and_models():
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2),
                           pd.layers.BatchNormalization()])
    assert model.trainable_variables == model.trainable_weights
    assert model.non_trainable_variables == model.non_trainable_weights
    assert len(model.non_trainable_variables) == 2 and len(model.variables) == 6
    assert model.layers[0].trainable_variables == model.layers[0].trainable_weights


def test_apply_gradients_reads_a_zip_once_and_apply_checks_its_arguments():
    w = pd.Variable("custom_train_w", shape=[2], initializer="ones")
    opt = pd.optimizers.SGD(0.5)
    loss = pd.sum(w * w)
    pd.eval(opt.apply_gradients(zip(pd.gradients(loss, [w]), [w])))
    assert w.val().tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="SGD.apply: 2 gradients for 1 variables"):
        opt.apply([w, w], [w])
    with pytest.raises(TypeError, match="expected gradients as Variables"):
        opt.apply([np.ones(2)], [w])
    with pytest.raises(TypeError, match="expected float parameters"):
        opt.apply([w], [pd.constant([1.0, 2.0])])
    with pytest.raises(ValueError, match="every gradient is None"):
        opt.apply([None], [w])
    with pytest.raises(TypeError, match=r"apply_gradients: expected \(gradient, variable\) pairs"):
        opt.apply_gradients([w])


def test_step_errors_name_the_model_and_the_log():
    class Bad(pd.Model):
        def train_step(self, data):
            return {"loss": "low"}

    model = functional(Bad)
    model.compile()
    with pytest.raises(TypeError, match="train_step must return a dict of Variables; 'loss' is str"):
        model.fit(*regression(n=4), verbose=0)

    class Mixed(pd.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.tracker = pd.metrics.Mean()

        def train_step(self, data):
            x, y = data
            loss = pd.mean(pd.square(self(x) - y))
            self.tracker.update_state(loss)
            return {"mixed": loss + self.tracker.result()}

    model = functional(Mixed)
    model.compile()
    with pytest.raises(ValueError, match="'mixed', which mixes this batch's values with a "
                                         "metric's result"):
        model.fit(*regression(n=4), verbose=0)


def test_compute_loss_needs_a_loss_and_matching_arguments():
    model = functional(pd.Model)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="y and y_pred are needed"):
        model.compute_loss(y_pred=model.outputs[0])
    with pytest.raises(TypeError, match="expected y as Variables, received ndarray"):
        model.compute_loss(y=np.ones((2, 1)), y_pred=model.outputs[0])
    bare = functional(pd.Model)
    bare.compile(optimizer="sgd", loss="mse")
    assert isinstance(bare.compute_loss(y=pd.data("t", [None, 1]), y_pred=bare.outputs[0]),
                      pd.Variable)


def test_a_graph_update_state_outside_a_step_is_refused():
    m = pd.metrics.Mean()
    with pytest.raises(ValueError, match="update_state received Variables of a graph"):
        m.update_state(pd.data("outside", [None]))
    m.update_state(pd.constant([1.0, 3.0]))        # reads no input: evaluated at once
    assert m.result() == 2.0


def test_batch_sized_tensors_inside_a_train_step():
    """keras-io's GAN (custom_train_step guide): `batch_size = tf.shape(real_images)[0]`
    is None here; `pd.random.normal((batch_size, k))`, `pd.ones((batch_size, 1))` and
    `pd.zeros` take it from the step's data at run time, and `pd.shape(labels)` is labels'
    own (2 * batch) sizes."""
    class Sizes(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)
            self.seed_generator = pd.random.SeedGenerator(3)

        def call(self, x):
            return self.dense(x)

        def train_step(self, images):
            batch_size = pd.shape(images)[0]
            assert batch_size is None
            latent = pd.random.normal(shape=(batch_size, 3), seed=self.seed_generator)
            labels = pd.concat([pd.ones((batch_size, 1)), pd.zeros((batch_size, 1))], axis=0)
            labels += 0.05 * pd.random.uniform(pd.shape(labels), seed=self.seed_generator)
            return {"rows": pd.sum(pd.ones_like(latent[:, 0])), "labels": pd.sum(labels),
                    "label_rows": pd.sum(pd.ones_like(labels))}

    model = Sizes()
    model.compile(optimizer="sgd")
    images = np.zeros((6, 4, 4, 1), np.float32)
    logs = model.fit(images, batch_size=3, epochs=1, shuffle=False, verbose=0).history
    assert logs["rows"] == [3.0] and logs["label_rows"] == [6.0]   # per-batch means
    assert 3.0 <= logs["labels"][0] <= 3.0 + 0.05 * 6               # ones plus the noise
    with pytest.raises(ValueError, match=r"^ones: expected a fully known shape, or None sizes "
                                         r"inside a layer call or train_step"):
        pd.ones((None, 1))                                             # no step, no call
