"""keras-io `guides/making_new_layers_and_models_via_subclassing.py` (fchollet), in its
Keras 3 text (`guides/keras_core/...`: `ops`, `keras.random`, no TensorFlow), ported by
renaming `keras` to `pd` (`from paddle import ops, layers`).

The only other change is the data: `keras.datasets.mnist` downloads, so `mnist_like`
gives scikit-learn's digits at MNIST's 28x28 (1,437 images; see mnist_like.py). Each
section of the guide is a test; what Keras prints for it (run under Keras 3.15.1, JAX
backend) is asserted.
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import layers
from paddle import ops

from keras_ports.mnist_like import mnist


@pytest.fixture(autouse=True)
def fresh_state():
    gc.collect()  # layer names are global and held weakly: free those of earlier tests
    pd.utils.set_random_seed(1337)


def test_the_layer_class_holds_weights_and_a_call():
    class Linear(pd.layers.Layer):
        def __init__(self, units=32, input_dim=32):
            super().__init__()
            self.w = self.add_weight(
                shape=(input_dim, units),
                initializer="random_normal",
                trainable=True,
            )
            self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

        def call(self, inputs):
            return ops.matmul(inputs, self.w) + self.b

    x = ops.ones((2, 2))
    linear_layer = Linear(4, 2)
    y = linear_layer(x)
    print(y)

    assert linear_layer.weights == [linear_layer.w, linear_layer.b]

    # Keras prints a (2, 4) tensor: ones @ w + 0, i.e. w's column sums on both rows.
    value = ops.convert_to_numpy(y)
    assert value.shape == (2, 4)
    np.testing.assert_allclose(value, np.ones((2, 2)) @ linear_layer.w.numpy(), rtol=1e-6)


def test_non_trainable_weights():
    class ComputeSum(pd.layers.Layer):
        def __init__(self, input_dim):
            super().__init__()
            self.total = self.add_weight(
                initializer="zeros", shape=(input_dim,), trainable=False
            )

        def call(self, inputs):
            self.total.assign_add(ops.sum(inputs, axis=0))
            return self.total

    x = ops.ones((2, 2))
    my_sum = ComputeSum(2)
    y = my_sum(x)
    print(y.numpy())
    first = y.numpy()
    y = my_sum(x)
    print(y.numpy())

    print("weights:", len(my_sum.weights))
    print("non-trainable weights:", len(my_sum.non_trainable_weights))

    # It's not included in the trainable weights:
    print("trainable_weights:", my_sum.trainable_weights)

    # Keras 3.15.1 prints [2. 2.], [4. 4.], weights: 1, non-trainable weights: 1,
    # trainable_weights: [].
    np.testing.assert_array_equal(first, [2.0, 2.0])
    np.testing.assert_array_equal(y.numpy(), [4.0, 4.0])
    assert len(my_sum.weights) == 1 and len(my_sum.non_trainable_weights) == 1
    assert my_sum.trainable_weights == []


class Linear(pd.layers.Layer):
    def __init__(self, units=32):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer="random_normal",
            trainable=True,
        )
        self.b = self.add_weight(
            shape=(self.units,), initializer="random_normal", trainable=True
        )

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b


def test_deferred_weight_creation_and_composable_layers():
    x = ops.ones((2, 2))
    # At instantiation, we don't know on what inputs this is going to get called
    linear_layer = Linear(32)
    assert linear_layer.weights == []

    # The layer's weights are created dynamically the first time the layer is called
    y = linear_layer(x)
    assert linear_layer.w.shape == (2, 32) and y.shape == (2, 32)

    class MLPBlock(pd.layers.Layer):
        def __init__(self):
            super().__init__()
            self.linear_1 = Linear(32)
            self.linear_2 = Linear(32)
            self.linear_3 = Linear(1)

        def call(self, inputs):
            x = self.linear_1(inputs)
            x = pd.activations.relu(x)
            x = self.linear_2(x)
            x = pd.activations.relu(x)
            return self.linear_3(x)

    mlp = MLPBlock()
    y = mlp(ops.ones(shape=(3, 64)))  # The first call to the `mlp` will create the weights
    print("weights:", len(mlp.weights))
    print("trainable weights:", len(mlp.trainable_weights))

    # Keras 3.15.1: "weights: 6", "trainable weights: 6".
    assert len(mlp.weights) == 6 and len(mlp.trainable_weights) == 6
    assert y.shape == (3, 1)


# A layer that creates an activity regularization loss
class ActivityRegularizationLayer(pd.layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * ops.mean(inputs))
        return inputs


def test_add_loss_and_layer_losses():
    class OuterLayer(pd.layers.Layer):
        def __init__(self):
            super().__init__()
            self.activity_reg = ActivityRegularizationLayer(1e-2)

        def call(self, inputs):
            return self.activity_reg(inputs)

    layer = OuterLayer()
    assert len(layer.losses) == 0  # No losses yet since the layer has never been called

    _ = layer(ops.zeros((1, 1)))
    assert len(layer.losses) == 1  # We created one loss value

    # `layer.losses` gets reset at the start of each __call__
    _ = layer(ops.zeros((1, 1)))
    assert len(layer.losses) == 1  # This is the loss created during the call above

    class OuterLayerWithKernelRegularizer(pd.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(
                32, kernel_regularizer=pd.regularizers.l2(1e-3)
            )

        def call(self, inputs):
            return self.dense(inputs)

    layer = OuterLayerWithKernelRegularizer()
    _ = layer(ops.zeros((1, 1)))

    # This is `1e-3 * sum(layer.dense.kernel ** 2)`,
    # created by the `kernel_regularizer` above.
    print(layer.losses)

    # Keras 3.15.1 prints one scalar, equal to 1e-3 * sum(kernel ** 2).
    (penalty,) = layer.losses
    np.testing.assert_allclose(ops.convert_to_numpy(penalty),
                               1e-3 * np.sum(layer.dense.kernel.numpy() ** 2), rtol=1e-5)


def test_add_loss_works_with_fit():
    inputs = pd.Input(shape=(3,))
    outputs = ActivityRegularizationLayer()(inputs)
    model = pd.Model(inputs, outputs)

    # If there is a loss passed in `compile`, the regularization
    # losses get added to it
    model.compile(optimizer="adam", loss="mse")
    x, y = np.random.random((2, 3)), np.random.random((2, 3))
    logs = model.fit(x, y, verbose=0).history
    expected = np.mean((x - y) ** 2) + 1e-2 * np.mean(x)
    assert logs["loss"][0] == pytest.approx(expected, rel=1e-5)

    # It's also possible not to pass any loss in `compile`,
    # since the model already has a loss to minimize, via the `add_loss`
    # call during the forward pass!
    model.compile(optimizer="adam")
    x, y = np.random.random((2, 3)), np.random.random((2, 3))
    logs = model.fit(x, y, verbose=0).history
    assert logs["loss"][0] == pytest.approx(1e-2 * np.mean(x), rel=1e-5)


def test_serialization_via_get_config():
    class Linear(pd.layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units),
                initializer="random_normal",
                trainable=True,
            )
            self.b = self.add_weight(
                shape=(self.units,), initializer="random_normal", trainable=True
            )

        def call(self, inputs):
            return ops.matmul(inputs, self.w) + self.b

        def get_config(self):
            return {"units": self.units}

    # Now you can recreate the layer from its config:
    layer = Linear(64)
    config = layer.get_config()
    print(config)
    new_layer = Linear.from_config(config)
    assert config == {"units": 64} and new_layer.units == 64  # as Keras prints

    class Linear(pd.layers.Layer):  # noqa: F811  (the guide redefines it)
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units),
                initializer="random_normal",
                trainable=True,
            )
            self.b = self.add_weight(
                shape=(self.units,), initializer="random_normal", trainable=True
            )

        def call(self, inputs):
            return ops.matmul(inputs, self.w) + self.b

        def get_config(self):
            config = super().get_config()
            config.update({"units": self.units})
            return config

    layer = Linear(64)
    config = layer.get_config()
    print(config)
    new_layer = Linear.from_config(config)

    # Keras 3.15.1 prints {'name': 'linear_5', 'trainable': True, 'dtype': <float32
    # policy>, 'units': 64}; paddle's dtype is the plain string.
    assert {"name", "trainable", "dtype", "units"} <= set(config)
    assert config["units"] == 64 and config["trainable"] is True
    assert config["name"] == layer.name and config["dtype"] == "float32"
    assert new_layer.units == 64 and new_layer.name == layer.name


def test_privileged_training_argument():
    class CustomDropout(pd.layers.Layer):
        def __init__(self, rate, **kwargs):
            super().__init__(**kwargs)
            self.rate = rate

        def call(self, inputs, training=None):
            if training:
                return pd.random.dropout(inputs, rate=self.rate)
            return inputs

    layer = CustomDropout(0.5)
    x = np.ones((4, 1000), np.float32)
    np.testing.assert_array_equal(layer(x), x)  # inference (training=None): identity
    dropped = layer(x, training=True)
    kept = dropped != 0
    assert 0.4 < kept.mean() < 0.6
    # (NumPy's boolean indexing: paddle's tensors have none, see docs/keras.md)
    np.testing.assert_allclose(np.asarray(dropped)[np.asarray(kept)], 2.0)  # scaled by 1 / 0.5
    again = layer(x, training=True)
    assert not np.array_equal(again, dropped)  # a new draw on every call

    # Beyond the guide: the layer inside a functional model trained with fit. fit runs its
    # training branch (units dropped: a loss where none is due), predict and evaluate the
    # inference one (nothing dropped: the exact fit), as in Keras 3.
    inputs = pd.Input(shape=(1000,))
    dense = layers.Dense(1, kernel_initializer=pd.initializers.Constant(0.001), use_bias=False)
    model = pd.Model(inputs, dense(CustomDropout(0.5)(inputs)))
    model.compile(optimizer=pd.optimizers.SGD(learning_rate=0.0), loss="mse")
    targets = np.ones((4, 1), np.float32)
    history = model.fit(x, targets, batch_size=4, epochs=2, verbose=0)
    assert all(loss > 1e-5 for loss in history.history["loss"])  # variance 0.001 per sample
    assert model.evaluate(x, targets, verbose=0) == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_allclose(model.predict(x, verbose=0), targets, rtol=1e-6)


class Sampling(layers.Layer):
    """Uses (z_mean, z_log_var) to sample z, the vector encoding a digit."""

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = ops.shape(z_mean)[0]
        dim = ops.shape(z_mean)[1]
        epsilon = pd.random.normal(shape=(batch, dim))
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


class Encoder(layers.Layer):
    """Maps MNIST digits to a triplet (z_mean, z_log_var, z)."""

    def __init__(self, latent_dim=32, intermediate_dim=64, name="encoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_mean = layers.Dense(latent_dim)
        self.dense_log_var = layers.Dense(latent_dim)
        self.sampling = Sampling()

    def call(self, inputs):
        x = self.dense_proj(inputs)
        z_mean = self.dense_mean(x)
        z_log_var = self.dense_log_var(x)
        z = self.sampling((z_mean, z_log_var))
        return z_mean, z_log_var, z


class Decoder(layers.Layer):
    """Converts z, the encoded digit vector, back into a readable digit."""

    def __init__(self, original_dim, intermediate_dim=64, name="decoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_output = layers.Dense(original_dim, activation="sigmoid")

    def call(self, inputs):
        x = self.dense_proj(inputs)
        return self.dense_output(x)


class VariationalAutoEncoder(pd.Model):
    """Combines the encoder and decoder into an end-to-end model for training."""

    def __init__(
        self,
        original_dim,
        intermediate_dim=64,
        latent_dim=32,
        name="autoencoder",
        **kwargs
    ):
        super().__init__(name=name, **kwargs)
        self.original_dim = original_dim
        self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
        self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

    def call(self, inputs):
        z_mean, z_log_var, z = self.encoder(inputs)
        reconstructed = self.decoder(z)
        # Add KL divergence regularization loss.
        kl_loss = -0.5 * ops.mean(
            z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1
        )
        self.add_loss(kl_loss)
        return reconstructed


def test_end_to_end_variational_autoencoder():
    (x_train, _), _ = mnist.load_data()
    x_train = x_train.reshape(len(x_train), 784).astype("float32") / 255  # 60000 in keras-io

    original_dim = 784
    vae = VariationalAutoEncoder(784, 64, 32)

    optimizer = pd.optimizers.Adam(learning_rate=1e-3)
    vae.compile(optimizer, loss=pd.losses.MeanSquaredError())

    history = vae.fit(x_train, x_train, epochs=2, batch_size=64, verbose=0)

    # It learns: the loss (MSE + KL) falls, and reconstructions beat the mean image.
    loss = history.history["loss"]
    assert loss[1] < loss[0], loss
    # Keras 3.15.1: 107,472 parameters (encoder 784*64+64 + 2*(64*32+32) = 54,400,
    # decoder 32*64+64 + 64*784+784 = 53,072).
    assert vae.count_params() == 107472
    assert [type(layer).__name__ for layer in vae.layers] == ["Encoder", "Decoder"]
    assert vae.encoder.sampling.count_params() == 0
    rebuilt = vae.predict(x_train[:256], verbose=0)
    assert rebuilt.shape == (256, original_dim)
    assert 0.0 <= rebuilt.min() and rebuilt.max() <= 1.0  # sigmoid outputs
    # sampling draws afresh on every call: two predictions differ
    assert not np.array_equal(rebuilt, vae.predict(x_train[:256], verbose=0))
