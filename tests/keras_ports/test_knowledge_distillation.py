"""keras-io `examples/vision/knowledge_distillation.py` ("Knowledge Distillation", Kenneth
Borup), in its Keras 3 text (the Distiller overrides `compute_loss` and `call`, with
`keras.ops.softmax`), ported by renaming `keras` to `pd`.

What changed: the data (`mnist_like.mnist.load_data()`: scikit-learn's 8x8 digits blown
up to MNIST's 28x28, 1,437 training and 360 test images, instead of downloading MNIST);
the sizes (the convolutions have 32/64 filters for the teacher and 8/16 for the student
instead of 256/512 and 16/32, and every fit is 2 epochs instead of 5 and 3), so that it
runs in seconds; `pd.utils.set_random_seed(0)`; `verbose=0`. The program's Distiller, its
compile with two losses and no compiled loss, `compute_loss` (without `training`, as
written before Keras 3.3) and `clone_model` are unchanged. The test checks what the program
shows: the teacher learns, the distilled student learns from it (its `compute_loss` is
what fit minimizes: its loss falls), and the student trained from scratch learns too.
"""
import numpy as np
import pytest

import paddle as pd
from paddle import layers, ops

from keras_ports.mnist_like import mnist

keras = pd


class Distiller(keras.Model):
    def __init__(self, student, teacher):
        super().__init__()
        self.teacher = teacher
        self.student = student

    def compile(
        self,
        optimizer,
        metrics,
        student_loss_fn,
        distillation_loss_fn,
        alpha=0.1,
        temperature=3,
    ):
        super().compile(optimizer=optimizer, metrics=metrics)
        self.student_loss_fn = student_loss_fn
        self.distillation_loss_fn = distillation_loss_fn
        self.alpha = alpha
        self.temperature = temperature

    def compute_loss(
        self, x=None, y=None, y_pred=None, sample_weight=None, allow_empty=False
    ):
        teacher_pred = self.teacher(x, training=False)
        student_loss = self.student_loss_fn(y, y_pred)

        distillation_loss = self.distillation_loss_fn(
            ops.softmax(teacher_pred / self.temperature, axis=1),
            ops.softmax(y_pred / self.temperature, axis=1),
        ) * (self.temperature**2)

        loss = self.alpha * student_loss + (1 - self.alpha) * distillation_loss
        return loss

    def call(self, x):
        return self.student(x)


@pytest.mark.slow
def test_knowledge_distillation():
    pd.utils.set_random_seed(0)
    # Create the teacher
    teacher = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(32, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(alpha=0.2),
            layers.MaxPooling2D(pool_size=(2, 2), strides=(1, 1), padding="same"),
            layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same"),
            layers.Flatten(),
            layers.Dense(10),
        ],
        name="teacher",
    )

    # Create the student
    student = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(alpha=0.2),
            layers.MaxPooling2D(pool_size=(2, 2), strides=(1, 1), padding="same"),
            layers.Conv2D(16, (3, 3), strides=(2, 2), padding="same"),
            layers.Flatten(),
            layers.Dense(10),
        ],
        name="student",
    )

    # Clone student for later comparison
    student_scratch = keras.models.clone_model(student)

    # Prepare the train and test dataset.
    batch_size = 64  # noqa: F841  (the program's, unused there too)
    (x_train, y_train), (x_test, y_test) = mnist.load_data()

    # Normalize data
    x_train = x_train.astype("float32") / 255.0
    x_train = np.reshape(x_train, (-1, 28, 28, 1))

    x_test = x_test.astype("float32") / 255.0
    x_test = np.reshape(x_test, (-1, 28, 28, 1))

    # Train teacher as usual
    teacher.compile(
        optimizer=keras.optimizers.Adam(),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
    )

    # Train and evaluate teacher on data.
    teacher.fit(x_train, y_train, epochs=2, verbose=0)
    teacher_accuracy = teacher.evaluate(x_test, y_test, verbose=0)[1]

    # Initialize and compile distiller
    distiller = Distiller(student=student, teacher=teacher)
    distiller.compile(
        optimizer=keras.optimizers.Adam(),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
        student_loss_fn=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        distillation_loss_fn=keras.losses.KLDivergence(),
        alpha=0.1,
        temperature=10,
    )

    # Distill teacher to student
    history = distiller.fit(x_train, y_train, epochs=2, verbose=0)

    # Evaluate student on test dataset
    distilled = distiller.evaluate(x_test, y_test, verbose=0, return_dict=True)

    # Train student as doen usually
    student_scratch.compile(
        optimizer=keras.optimizers.Adam(),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
    )

    # Train and evaluate student trained from scratch.
    student_scratch.fit(x_train, y_train, epochs=2, verbose=0)
    scratch_accuracy = student_scratch.evaluate(x_test, y_test, verbose=0)[1]

    assert teacher_accuracy > 0.8
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert sorted(distilled) == ["loss", "sparse_categorical_accuracy"]
    assert distilled["sparse_categorical_accuracy"] > 0.6
    assert scratch_accuracy > 0.5
