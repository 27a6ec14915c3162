"""keras-io `examples/generative/vae.py` ("Variational AutoEncoder", fchollet), ported by
renaming `keras` to `pd`.

The program is written against `tf.keras` with TensorFlow in two places, TensorFlow-only
and so paddle's equivalents here (Keras 3's keras-io version makes the same swaps with
`keras.ops` and `keras.random`):
- `Sampling.call`: `tf.shape` is `pd.shape`, `tf.keras.backend.random_normal` is
  `pd.random.normal` (a new draw every step), `tf.exp` is `pd.exp`;
- `train_step`: `tf.GradientTape` and `tape.gradient(loss, weights)` are
  `pd.gradients(loss, weights)` (the graph is symbolic: gradients are Variables built from
  the loss, no tape), `tf.reduce_mean` / `tf.reduce_sum` / `tf.square` are `pd.mean` /
  `pd.sum` / `pd.square`.
The data is the only other change: `mnist_like.mnist.load_data()` gives scikit-learn's 8x8
digits blown up to MNIST's 28x28 instead of downloading MNIST, 512 of them are trained on
for 2 epochs (30 in keras-io), and the matplotlib plots are left out but their
`predict` calls kept. The test checks what the program shows: the summaries Keras prints
for the encoder and the decoder, that the three losses it logs fall, and the shapes and
ranges of what `plot_latent_space` and `plot_label_clusters` predict.
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import layers

from keras_ports.mnist_like import mnist
from keras_ports.summaries import assert_summary, printed_summary

# Keras 3.15.1 (JAX backend) prints for these models (the program's model part, with a
# SeedGenerator in Sampling as JAX requires); its InputLayer rows are checked by shape, the
# encoder's "Connected to" column (which paddle does not print) is left aside:
KERAS_ENCODER = [
    ("conv2d", (None, 14, 14, 32), 320),
    ("conv2d_1", (None, 7, 7, 64), 18_496),
    ("flatten", (None, 3136), 0),
    ("dense", (None, 16), 50_192),
    ("z_mean", (None, 2), 34),
    ("z_log_var", (None, 2), 34),
    ("sampling", (None, 2), 0),
]
KERAS_DECODER = [
    ("dense_1", (None, 3136), 9_408),
    ("reshape", (None, 7, 7, 64), 0),
    ("conv2d_transpose", (None, 14, 14, 64), 36_928),
    ("conv2d_transpose_1", (None, 28, 28, 32), 18_464),
    ("conv2d_transpose_2", (None, 28, 28, 1), 289),
]


# ---- the program's classes, as keras-io writes them ----
class Sampling(layers.Layer):
    """Uses (z_mean, z_log_var) to sample z, the vector encoding a digit."""

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = pd.shape(z_mean)[0]                       # tf.shape
        dim = pd.shape(z_mean)[1]
        epsilon = pd.random.normal(shape=(batch, dim))    # tf.keras.backend.random_normal
        return z_mean + pd.exp(0.5 * z_log_var) * epsilon


class VAE(pd.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super(VAE, self).__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = pd.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = pd.metrics.Mean(
            name="reconstruction_loss"
        )
        self.kl_loss_tracker = pd.metrics.Mean(name="kl_loss")

    @property
    def metrics(self):
        return [
            self.total_loss_tracker,
            self.reconstruction_loss_tracker,
            self.kl_loss_tracker,
        ]

    def train_step(self, data):
        # with tf.GradientTape() as tape: (TensorFlow-only; pd.gradients below)
        z_mean, z_log_var, z = self.encoder(data)
        reconstruction = self.decoder(z)
        reconstruction_loss = pd.mean(
            pd.sum(
                pd.losses.binary_crossentropy(data, reconstruction), axis=(1, 2)
            )
        )
        kl_loss = -0.5 * (1 + z_log_var - pd.square(z_mean) - pd.exp(z_log_var))
        kl_loss = pd.mean(pd.sum(kl_loss, axis=1))
        total_loss = reconstruction_loss + kl_loss
        grads = pd.gradients(total_loss, self.trainable_weights)  # tape.gradient(...)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {
            "loss": self.total_loss_tracker.result(),
            "reconstruction_loss": self.reconstruction_loss_tracker.result(),
            "kl_loss": self.kl_loss_tracker.result(),
        }

    def call(self, x):
        z_mean, z_log_var, z = self.encoder(x)
        return self.decoder(z)
# ---- end of the program's classes ----


@pytest.mark.slow
def test_vae():
    gc.collect()  # layer names are global and held weakly: free the names earlier tests took
    pd.utils.set_random_seed(0)

    # ---- the program, as keras-io writes it ----
    latent_dim = 2

    encoder_inputs = pd.Input(shape=(28, 28, 1))
    x = layers.Conv2D(32, 3, activation="relu", strides=2, padding="same")(encoder_inputs)
    x = layers.Conv2D(64, 3, activation="relu", strides=2, padding="same")(x)
    x = layers.Flatten()(x)
    x = layers.Dense(16, activation="relu")(x)
    z_mean = layers.Dense(latent_dim, name="z_mean")(x)
    z_log_var = layers.Dense(latent_dim, name="z_log_var")(x)
    z = Sampling()([z_mean, z_log_var])
    encoder = pd.Model(encoder_inputs, [z_mean, z_log_var, z], name="encoder")
    encoder_summary = printed_summary(encoder)  # encoder.summary()

    latent_inputs = pd.Input(shape=(latent_dim,))
    x = layers.Dense(7 * 7 * 64, activation="relu")(latent_inputs)
    x = layers.Reshape((7, 7, 64))(x)
    x = layers.Conv2DTranspose(64, 3, activation="relu", strides=2, padding="same")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu", strides=2, padding="same")(x)
    decoder_outputs = layers.Conv2DTranspose(1, 3, activation="sigmoid", padding="same")(x)
    decoder = pd.Model(latent_inputs, decoder_outputs, name="decoder")
    decoder_summary = printed_summary(decoder)  # decoder.summary()

    (x_train, _), (x_test, _) = mnist.load_data()
    mnist_digits = np.concatenate([x_train, x_test], axis=0)
    mnist_digits = np.expand_dims(mnist_digits, -1).astype("float32") / 255
    mnist_digits = mnist_digits[:512]  # (not in keras-io: a few seconds' worth)

    vae = VAE(encoder, decoder)
    vae.compile(optimizer=pd.optimizers.Adam())
    history = vae.fit(mnist_digits, epochs=2, batch_size=128, verbose=0)  # 30 epochs

    # plot_latent_space(vae), its predictions: decode a point of the latent plane
    z_sample = np.array([[0.5, -0.5]])
    x_decoded = vae.decoder.predict(z_sample, verbose=0)
    digit = x_decoded[0].reshape(28, 28)

    # plot_label_clusters(vae, x_train, y_train), its predictions
    (x_train, y_train), _ = mnist.load_data()
    x_train = np.expand_dims(x_train, -1).astype("float32") / 255
    z_mean, _, _ = vae.encoder.predict(x_train, verbose=0)
    # ---- end of the program ----

    assert_summary(encoder_summary, KERAS_ENCODER, 69_076, inputs=[(None, 28, 28, 1)])
    assert_summary(decoder_summary, KERAS_DECODER, 65_089, inputs=[(None, 2)])

    h = history.history
    assert list(h) == ["loss", "reconstruction_loss", "kl_loss"], h
    for name in ("loss", "reconstruction_loss"):
        assert h[name][-1] < h[name][0], (name, h[name])
    # A decoder that outputs 0.5 everywhere scores 784 * log(2) = 543.4 (sigmoid outputs
    # start near 0.5); 8 steps of Adam bring it below (Keras's 30 epochs reach about 140).
    assert h["reconstruction_loss"][-1] < 784 * np.log(2) - 5, h
    np.testing.assert_allclose(np.add(h["reconstruction_loss"], h["kl_loss"]), h["loss"],
                               rtol=1e-4)

    assert x_decoded.shape == (1, 28, 28, 1) and digit.shape == (28, 28)
    assert 0.0 <= digit.min() and digit.max() <= 1.0          # sigmoid
    assert z_mean.shape == (len(x_train), 2) and len(y_train) == len(x_train)
    assert np.isfinite(z_mean).all()

    # Sampling draws anew on every run; z_mean does not.
    first, second = (vae.encoder.predict(x_train[:8], verbose=0) for _ in range(2))
    np.testing.assert_array_equal(first[0], second[0])
    assert not np.allclose(first[2], second[2])
    # the model's own call: decode(encode(x)), images in [0, 1]
    images = vae.predict(x_train[:8], verbose=0)
    assert images.shape == (8, 28, 28, 1) and 0.0 <= images.min() and images.max() <= 1.0
