"""keras-io `examples/vision/mnist_convnet.py` ("Simple MNIST convnet", fchollet), ported
by renaming `keras` to `pd`.

The data is the only other change: `keras.datasets.mnist.load_data()` downloads MNIST, so
`mnist_like.mnist.load_data()` gives scikit-learn's 8x8 digits blown up to MNIST's 28x28
uint8 images (1,437 training, 360 test), and the program trains 3 epochs instead of 15.
The test checks what the program shows: the summary Keras prints (layer output shapes and
parameter counts), that the model learns (loss falls, test accuracy far above chance).
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import layers

from keras_ports.mnist_like import mnist

# Keras 3.15.1 (JAX backend) prints for this model: per layer (output shape, Param #),
# and "Total params: 34,826" (run of the unchanged program's model part).
KERAS_SUMMARY = [
    ("conv2d", (None, 26, 26, 32), 320),
    ("max_pooling2d", (None, 13, 13, 32), 0),
    ("conv2d_1", (None, 11, 11, 64), 18496),
    ("max_pooling2d_1", (None, 5, 5, 64), 0),
    ("flatten", (None, 1600), 0),
    ("dropout", (None, 1600), 0),
    ("dense", (None, 10), 16010),
]


@pytest.mark.slow
def test_mnist_convnet():
    gc.collect()  # layer names are global and held weakly: free the names earlier tests took
    pd.utils.set_random_seed(0)

    # ---- the program, as keras-io writes it ----
    # Model / data parameters
    num_classes = 10
    input_shape = (28, 28, 1)

    # Load the data and split it between train and test sets
    (x_train, y_train), (x_test, y_test) = mnist.load_data()

    # Scale images to the [0, 1] range
    x_train = x_train.astype("float32") / 255
    x_test = x_test.astype("float32") / 255
    # Make sure images have shape (28, 28, 1)
    x_train = np.expand_dims(x_train, -1)
    x_test = np.expand_dims(x_test, -1)
    print("x_train shape:", x_train.shape)
    print(x_train.shape[0], "train samples")
    print(x_test.shape[0], "test samples")

    # convert class vectors to binary class matrices
    y_train = pd.utils.to_categorical(y_train, num_classes)
    y_test = pd.utils.to_categorical(y_test, num_classes)

    model = pd.Sequential(
        [
            pd.Input(shape=input_shape),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(num_classes, activation="softmax"),
        ]
    )

    printed = []
    model.summary(print_fn=printed.append)

    batch_size = 128
    epochs = 3  # 15 in keras-io: the digits are learnt in 3

    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])

    history = model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs,
                        validation_split=0.1, verbose=0)

    score = model.evaluate(x_test, y_test, verbose=0)
    print("Test loss:", score[0])
    print("Test accuracy:", score[1])
    # ---- end of the program ----

    assert x_train.shape == (1437, 28, 28, 1) and y_train.shape == (1437, 10)
    assert y_train.dtype == np.float32 and np.all(y_train.sum(axis=1) == 1)
    got = [(layer.name, layer.output.shape, layer.count_params()) for layer in model.layers]
    assert got == KERAS_SUMMARY
    assert "Total params: 34,826" in printed
    assert "Trainable params: 34,826" in printed
    for name, shape, params in KERAS_SUMMARY:
        row = next(line for line in printed if line.startswith(name + " ("))
        assert str(shape) in row and f"{params:,}" in row, row

    losses = history.history["loss"]
    assert len(losses) == epochs and losses[-1] < 0.75 * losses[0], losses
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert set(history.history) >= {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert history.history["val_accuracy"][-1] > 0.6
    assert isinstance(score, list) and len(score) == 2
    assert score[1] > 0.6, score  # chance is 0.1
