"""keras-io `guides/custom_train_step_in_tensorflow.py` ("Customizing what happens in
`fit()` with TensorFlow", fchollet), ported by renaming `keras` to `pd`.

The guide runs only on TensorFlow. Its TensorFlow-only parts are paddle's equivalents:
- `with tf.GradientTape() as tape: ...; tape.gradient(loss, vars)` is
  `pd.gradients(loss, vars)`: paddle's graph is symbolic, so gradients are Variables
  built from the loss and there is no tape to record with;
- in the GAN, `tf.shape`, `tf.concat`, `tf.ones`, `tf.zeros` are `pd.shape`,
  `pd.concat`, `pd.ones`, `pd.zeros` (Keras's `keras.ops` names for them are in
  `pd.ops` too);
- `tf.data.Dataset.from_tensor_slices(...).shuffle(1024).batch(n)` and `.take(k)` are
  paddle's readers: `pd.reader.shuffle`, `pd.reader.batch`, `pd.reader.firstn`.
Everything else is the guide's code. The data: the guide's `np.random.random` arrays as
they are (seeded); the GAN's MNIST digits are `mnist_like.mnist.load_data()` (scikit-
learn's 8x8 digits blown up to 28x28), and it trains on 2 batches of 4 instead of 100 of
64 (its generator is about 270 million multiply-adds an image). Each test is one section
of the guide and checks what it shows: `fit` trains with the overridden `train_step`
(loss falls, the logs are the metrics'), `sample_weight` reaches it, `evaluate` runs the
overridden `test_step`, and the GAN's two models (Keras's summaries) are each trained by
their own optimizer.
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import layers

from keras_ports.mnist_like import mnist
from keras_ports.summaries import assert_summary, printed_summary


def random_data(*shapes, seed=0):
    np.random.seed(seed)  # the guide's np.random.random calls, made reproducible
    return [np.random.random(shape) for shape in shapes]


# ---- "A first simple example" ----
class CustomModel(pd.Model):
    def train_step(self, data):
        # Unpack the data. Its structure depends on your model and
        # on what you pass to `fit()`.
        x, y = data

        # with tf.GradientTape() as tape:   (TensorFlow-only: pd.gradients below)
        y_pred = self(x, training=True)  # Forward pass
        # Compute the loss value
        # (the loss function is configured in `compile()`)
        loss = self.compute_loss(y=y, y_pred=y_pred)

        # Compute gradients
        trainable_vars = self.trainable_variables
        gradients = pd.gradients(loss, trainable_vars)  # tape.gradient(loss, trainable_vars)

        # Update weights
        self.optimizer.apply(gradients, trainable_vars)

        # Update metrics (includes the metric that tracks the loss)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)

        # Return a dict mapping metric names to current value
        return {m.name: m.result() for m in self.metrics}


def test_a_first_simple_example():
    pd.utils.set_random_seed(0)
    # Construct and compile an instance of CustomModel
    inputs = pd.Input(shape=(32,))
    outputs = pd.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])

    # Just use `fit` as usual
    x, y = random_data((1000, 32), (1000, 1))
    history = model.fit(x, y, epochs=3, verbose=0)

    h = history.history
    assert list(h) == ["loss", "mae"] == [m.name for m in model.metrics]
    assert h["loss"][-1] < h["loss"][0] and h["mae"][-1] < h["mae"][0], h
    # The logs are the metrics' epoch averages: the last epoch's mae is the tracker's.
    assert model.metrics[1].result() == pytest.approx(h["mae"][-1], rel=1e-5)


# ---- "Going lower-level" ----
class LowerLevelModel(pd.Model):  # the guide's second `CustomModel`
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = pd.metrics.Mean(name="loss")
        self.mae_metric = pd.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = pd.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data

        # with tf.GradientTape() as tape:
        y_pred = self(x, training=True)  # Forward pass
        # Compute our own loss
        loss = self.loss_fn(y, y_pred)

        # Compute gradients
        trainable_vars = self.trainable_variables
        gradients = pd.gradients(loss, trainable_vars)

        # Update weights
        self.optimizer.apply(gradients, trainable_vars)

        # Compute our own metrics
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {
            "loss": self.loss_tracker.result(),
            "mae": self.mae_metric.result(),
        }

    @property
    def metrics(self):
        # We list our `Metric` objects here so that `reset_states()` can be
        # called automatically at the start of each epoch
        # or at the start of `evaluate()`.
        return [self.loss_tracker, self.mae_metric]


def test_going_lower_level():
    pd.utils.set_random_seed(0)
    # Construct an instance of CustomModel
    inputs = pd.Input(shape=(32,))
    outputs = pd.layers.Dense(1)(inputs)
    model = LowerLevelModel(inputs, outputs)

    # We don't pass a loss or metrics here.
    model.compile(optimizer="adam")

    # Just use `fit` as usual -- you can use callbacks, etc.
    x, y = random_data((1000, 32), (1000, 1))
    history = model.fit(x, y, epochs=5, verbose=0)

    h = history.history
    assert list(h) == ["loss", "mae"]
    assert all(b < a for a, b in zip(h["loss"], h["loss"][1:])), h["loss"]
    # The trackers were reset every epoch: their state is the last epoch's alone.
    assert model.loss_tracker.result() == pytest.approx(h["loss"][-1], rel=1e-5)
    assert model.mae_metric.result() == pytest.approx(h["mae"][-1], rel=1e-5)


# ---- "Supporting sample_weight & class_weight" ----
class WeightedModel(pd.Model):  # the guide's third `CustomModel`
    def train_step(self, data):
        # Unpack the data. Its structure depends on your model and
        # on what you pass to `fit()`.
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data

        # with tf.GradientTape() as tape:
        y_pred = self(x, training=True)  # Forward pass
        # Compute the loss value.
        # The loss function is configured in `compile()`.
        loss = self.compute_loss(
            y=y,
            y_pred=y_pred,
            sample_weight=sample_weight,
        )

        # Compute gradients
        trainable_vars = self.trainable_variables
        gradients = pd.gradients(loss, trainable_vars)

        # Update weights
        self.optimizer.apply(gradients, trainable_vars)

        # Update the metrics.
        # Metrics are configured in `compile()`.
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)

        # Return a dict mapping metric names to current value.
        # Note that it will include the loss (tracked in self.metrics).
        return {m.name: m.result() for m in self.metrics}


def test_supporting_sample_weight():
    pd.utils.set_random_seed(0)
    # Construct and compile an instance of CustomModel
    inputs = pd.Input(shape=(32,))
    outputs = pd.layers.Dense(1)(inputs)
    model = WeightedModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])

    # You can now use sample_weight argument
    x, y, sw = random_data((1000, 32), (1000, 1), (1000, 1))
    history = model.fit(x, y, sample_weight=sw, epochs=3, verbose=0)

    h = history.history
    assert list(h) == ["loss", "mae"]
    assert h["loss"][-1] < h["loss"][0], h["loss"]
    # sample_weight reached the step: with the weights frozen (learning rate 0), the
    # logged loss is Keras's weighted mean (sum of weighted squared errors / batch size)
    # and the logged mae the weighted mean of absolute errors.
    model.optimizer.learning_rate = 0.0
    logs = model.fit(x, y, sample_weight=sw, batch_size=1000, verbose=0).history
    err = model.predict(x, verbose=0) - y
    assert logs["loss"][0] == pytest.approx(np.mean(sw * err ** 2), rel=1e-4)
    assert logs["mae"][0] == pytest.approx(np.sum(sw * np.abs(err)) / np.sum(sw), rel=1e-4)


# ---- "Providing your own evaluation step" ----
class EvalModel(pd.Model):  # the guide's fourth `CustomModel`
    def test_step(self, data):
        # Unpack the data
        x, y = data
        # Compute predictions
        y_pred = self(x, training=False)
        # Updates the metrics tracking the loss
        loss = self.compute_loss(y=y, y_pred=y_pred)
        # Update the metrics.
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        # Return a dict mapping metric names to current value.
        # Note that it will include the loss (tracked in self.metrics).
        return {m.name: m.result() for m in self.metrics}


def test_providing_your_own_evaluation_step():
    pd.utils.set_random_seed(0)
    # Construct an instance of CustomModel
    inputs = pd.Input(shape=(32,))
    outputs = pd.layers.Dense(1)(inputs)
    model = EvalModel(inputs, outputs)
    model.compile(loss="mse", metrics=["mae"])

    # Evaluate with our custom test_step
    x, y = random_data((1000, 32), (1000, 1))
    score = model.evaluate(x, y, verbose=0)

    # "loss" is a Mean of the 32 batches' losses (each batch one value, as Keras's Mean
    # counts a scalar; the last batch has 8 samples), "mae" the mean over all samples.
    err = model.predict(x, verbose=0) - y
    batch_losses = [np.mean(err[i:i + 32] ** 2) for i in range(0, 1000, 32)]
    assert score == pytest.approx([np.mean(batch_losses), np.mean(np.abs(err))], rel=1e-4)


# ---- "Wrapping up: an end-to-end GAN example" ----
# Keras 3.15.1 (JAX backend) prints for the guide's two models:
KERAS_DISCRIMINATOR = [
    ("conv2d", (None, 14, 14, 64), 640),
    ("leaky_re_lu", (None, 14, 14, 64), 0),
    ("conv2d_1", (None, 7, 7, 128), 73_856),
    ("leaky_re_lu_1", (None, 7, 7, 128), 0),
    ("global_max_pooling2d", (None, 128), 0),
    ("dense", (None, 1), 129),
]
KERAS_GENERATOR = [
    ("dense_1", (None, 6272), 809_088),
    ("leaky_re_lu_2", (None, 6272), 0),
    ("reshape", (None, 7, 7, 128), 0),
    ("conv2d_transpose", (None, 14, 14, 128), 262_272),
    ("leaky_re_lu_3", (None, 14, 14, 128), 0),
    ("conv2d_transpose_1", (None, 28, 28, 128), 262_272),
    ("leaky_re_lu_4", (None, 28, 28, 128), 0),
    ("conv2d_2", (None, 28, 28, 1), 6_273),
]


class GAN(pd.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = pd.metrics.Mean(name="d_loss")
        self.g_loss_tracker = pd.metrics.Mean(name="g_loss")
        self.seed_generator = pd.random.SeedGenerator(1337)

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real_images):
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        # Sample random points in the latent space
        batch_size = pd.shape(real_images)[0]                         # tf.shape
        random_latent_vectors = pd.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )

        # Decode them to fake images
        generated_images = self.generator(random_latent_vectors)

        # Combine them with real images
        combined_images = pd.concat([generated_images, real_images], axis=0)  # tf.concat

        # Assemble labels discriminating real from fake images
        labels = pd.concat(
            [pd.ones((batch_size, 1)), pd.zeros((batch_size, 1))], axis=0   # tf.ones, tf.zeros
        )
        # Add random noise to the labels - important trick!
        labels += 0.05 * pd.random.uniform(
            pd.shape(labels), seed=self.seed_generator
        )

        # Train the discriminator
        # with tf.GradientTape() as tape:
        predictions = self.discriminator(combined_images)
        d_loss = self.loss_fn(labels, predictions)
        grads = pd.gradients(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)

        # Sample random points in the latent space
        random_latent_vectors = pd.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )

        # Assemble labels that say "all real images"
        misleading_labels = pd.zeros((batch_size, 1))

        # Train the generator (note that we should *not* update the weights
        # of the discriminator)!
        # with tf.GradientTape() as tape:
        predictions = self.discriminator(self.generator(random_latent_vectors))
        g_loss = self.loss_fn(misleading_labels, predictions)
        grads = pd.gradients(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply(grads, self.generator.trainable_weights)

        # Update metrics and return their value.
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {
            "d_loss": self.d_loss_tracker.result(),
            "g_loss": self.g_loss_tracker.result(),
        }


def test_an_end_to_end_gan_example():
    gc.collect()  # layer names are global and held weakly: free the names earlier tests took
    pd.utils.set_random_seed(0)

    # Create the discriminator
    discriminator = pd.Sequential(
        [
            pd.Input(shape=(28, 28, 1)),
            layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(128, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )

    # Create the generator
    latent_dim = 128
    generator = pd.Sequential(
        [
            pd.Input(shape=(latent_dim,)),
            # We want to generate 128 coefficients to reshape into a 7x7x128 map
            layers.Dense(7 * 7 * 128),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Reshape((7, 7, 128)),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )
    assert_summary(printed_summary(discriminator), KERAS_DISCRIMINATOR, 74_625)
    assert_summary(printed_summary(generator), KERAS_GENERATOR, 1_339_905)

    # Prepare the dataset. We use both the training & test MNIST digits.
    batch_size = 4  # 64 in the guide
    (x_train, _), (x_test, _) = mnist.load_data()
    all_digits = np.concatenate([x_train, x_test])
    all_digits = all_digits.astype("float32") / 255.0
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
    # tf.data.Dataset.from_tensor_slices(all_digits).shuffle(buffer_size=1024).batch(...)
    dataset = pd.reader.batch(
        pd.reader.shuffle(lambda: iter(all_digits), buf_size=1024), batch_size)

    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
    gan.compile(
        d_optimizer=pd.optimizers.Adam(learning_rate=0.0003),
        g_optimizer=pd.optimizers.Adam(learning_rate=0.0003),
        loss_fn=pd.losses.BinaryCrossentropy(from_logits=True),
    )

    d_before, g_before = discriminator.get_weights(), generator.get_weights()
    # To limit the execution time, we only train on 2 batches (100 in the guide).
    history = gan.fit(pd.reader.firstn(dataset, 2), epochs=1, verbose=0)  # dataset.take(2)

    h = history.history
    assert list(h) == ["d_loss", "g_loss"], h
    # binary cross-entropy of logits near 0 is about log(2) = 0.69 at the start
    assert 0.3 < h["d_loss"][0] < 1.5 and 0.3 < h["g_loss"][0] < 1.5, h
    # Each optimizer took its 2 steps over its own model's weights, and only those.
    assert int(gan.d_optimizer.iterations) == 2 == int(gan.g_optimizer.iterations)
    for before, after in ((d_before, discriminator.get_weights()),
                          (g_before, generator.get_weights())):
        assert all(not np.array_equal(a, b) for a, b in zip(before, after))
    d_slots = {id(v) for v in gan.d_optimizer.variables()}
    assert not any(id(w) in d_slots for w in generator.trainable_weights)
    # The generator makes images in [0, 1] from the latent space.
    images = generator.predict(np.random.normal(size=(3, latent_dim)), verbose=0)
    assert images.shape == (3, 28, 28, 1) and 0.0 <= images.min() and images.max() <= 1.0
