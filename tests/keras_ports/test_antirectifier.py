"""keras-io `examples/keras_recipes/antirectifier.py` ("Simple custom layer example:
Antirectifier", fchollet), ported by renaming `keras` to `pd`.

The program is written against `tf.keras` with TensorFlow ops in the layer's `call`
(`tf.reduce_mean`, `tf.nn.relu`, `tf.concat`, `tf.matmul`): TensorFlow-only, so they are
paddle's ops of the same meaning (`pd.mean`, `pd.relu`, `pd.concat`, `pd.matmul`; Keras
3's keras-io version uses `keras.ops` the same way). The data is the only other change:
`mnist_like.mnist.load_data()` gives scikit-learn's 8x8 digits blown up to MNIST's 28x28
(1,437 training, 360 test images) instead of downloading MNIST, and training is 3 epochs
instead of 20. The test checks what the program shows: Keras's summary (the custom layer's
parameter count), that it learns, and that the custom layer round-trips through
`get_config` and a saved `.keras` file.
"""
import gc

import numpy as np

import paddle as pd
from paddle import layers

from keras_ports.mnist_like import mnist
from keras_ports.summaries import assert_summary, printed_summary

# Keras 3.15.1 (JAX backend) prints for this model (the program's model, unchanged but for
# keras.ops in `call`):
KERAS_SUMMARY = [
    ("dense", (None, 256), 200_960),
    ("antirectifier", (None, 256), 131_072),
    ("dense_1", (None, 256), 65_792),
    ("antirectifier_1", (None, 256), 131_072),
    ("dropout", (None, 256), 0),
    ("dense_2", (None, 10), 2_570),
]
KERAS_TOTAL = 531_466


# ---- the program's layer, as keras-io writes it ----
class Antirectifier(layers.Layer):
    def __init__(self, initializer="he_normal", **kwargs):
        super(Antirectifier, self).__init__(**kwargs)
        self.initializer = pd.initializers.get(initializer)

    def build(self, input_shape):
        output_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(output_dim * 2, output_dim),
            initializer=self.initializer,
            name="kernel",
            trainable=True,
        )

    def call(self, inputs):
        # tf.reduce_mean, tf.nn.relu, tf.concat, tf.matmul: TensorFlow's ops, paddle's here
        inputs -= pd.mean(inputs, axis=-1, keepdims=True)
        pos = pd.relu(inputs)
        neg = pd.relu(-inputs)
        concatenated = pd.concat([pos, neg], axis=-1)
        mixed = pd.matmul(concatenated, self.kernel)
        return mixed

    def get_config(self):
        # Implement get_config to enable serialization. This is optional.
        base_config = super(Antirectifier, self).get_config()
        config = {"initializer": pd.initializers.serialize(self.initializer)}
        return dict(list(base_config.items()) + list(config.items()))
# ---- end of the program's layer ----


def test_antirectifier(tmp_path):
    gc.collect()  # layer names are global and held weakly: free the names earlier tests took
    pd.utils.set_random_seed(0)

    # ---- the program, as keras-io writes it ----
    # Training parameters
    batch_size = 128
    num_classes = 10
    epochs = 3  # 20 in keras-io

    # The data, split between train and test sets
    (x_train, y_train), (x_test, y_test) = mnist.load_data()

    x_train = x_train.reshape(-1, 784)
    x_test = x_test.reshape(-1, 784)
    x_train = x_train.astype("float32")
    x_test = x_test.astype("float32")
    x_train /= 255
    x_test /= 255
    print(x_train.shape[0], "train samples")
    print(x_test.shape[0], "test samples")

    # Build the model
    model = pd.Sequential(
        [
            pd.Input(shape=(784,)),
            layers.Dense(256),
            Antirectifier(),
            layers.Dense(256),
            Antirectifier(),
            layers.Dropout(0.5),
            layers.Dense(10),
        ]
    )

    # Compile the model
    model.compile(
        loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer=pd.optimizers.RMSprop(),
        metrics=[pd.metrics.SparseCategoricalAccuracy()],
    )

    # Train the model
    history = model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs,
                        validation_split=0.15, verbose=0)

    # Test the model
    score = model.evaluate(x_test, y_test, verbose=0)
    # ---- end of the program ----

    assert num_classes == 10 and x_train.shape == (1437, 784)
    assert_summary(printed_summary(model), KERAS_SUMMARY, KERAS_TOTAL)
    assert [tuple(w.shape) for w in model.layers[1].weights] == [(512, 256)]

    h = history.history
    assert set(h) == {"loss", "sparse_categorical_accuracy", "val_loss",
                      "val_sparse_categorical_accuracy"}, h
    assert h["loss"][-1] < 0.5 * h["loss"][0], h["loss"]
    assert h["val_sparse_categorical_accuracy"][-1] > 0.6, h   # chance: 0.1
    assert isinstance(score, list) and len(score) == 2 and score[1] > 0.6, score

    # The custom layer round-trips: through its config...
    layer = model.layers[1]
    config = layer.get_config()
    clone = Antirectifier.from_config(config)
    assert clone.get_config()["initializer"] == config["initializer"]
    assert isinstance(pd.initializers.get(config["initializer"]),
                      type(pd.initializers.get("he_normal")))
    # ...and, with the model, through a saved .keras file.
    model.save(tmp_path / "antirectifier.keras")
    loaded = pd.models.load_model(tmp_path / "antirectifier.keras",
                                  custom_objects={"Antirectifier": Antirectifier})
    assert isinstance(loaded.layers[1], Antirectifier)
    np.testing.assert_allclose(loaded.predict(x_test[:32], verbose=0),
                               model.predict(x_test[:32], verbose=0), rtol=1e-5, atol=1e-5)
