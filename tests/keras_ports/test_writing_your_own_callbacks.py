"""keras-io `guides/writing_your_own_callbacks.py` (Rick Chao, Francois Chollet), in its
Keras 3 text (`guides/keras_core/...`), ported by renaming `keras` to `pd`.

Other changes: the data (`keras.datasets.mnist` downloads; `mnist_like` gives
scikit-learn's digits at MNIST's 28x28: 1,437 training and 360 test images, so
`x_test[:1000]` holds 360), `np.Inf` spelled `np.inf` (NumPy 2 removed the alias; not a
Keras matter), fewer epochs where the guide trains 15 or 30, and the callbacks' prints
captured to be compared with what Keras prints.
"""
import gc

import numpy as np
import pytest

import paddle as pd

from keras_ports.mnist_like import mnist

# What the guide's CustomCallback prints under Keras 3.15.1 (JAX backend) for the same
# shapes: fit on 1,000 samples with validation_split=0.5 and batch_size=128 (4 batches),
# evaluate and predict on 360 samples (3 batches).
KERAS_CUSTOM_CALLBACK_PRINTS = """\
Starting training; got log keys: []
Start epoch 0 of training; got log keys: []
...Training: start of batch 0; got log keys: []
...Training: end of batch 0; got log keys: ['loss', 'mean_absolute_error']
...Training: start of batch 1; got log keys: []
...Training: end of batch 1; got log keys: ['loss', 'mean_absolute_error']
...Training: start of batch 2; got log keys: []
...Training: end of batch 2; got log keys: ['loss', 'mean_absolute_error']
...Training: start of batch 3; got log keys: []
...Training: end of batch 3; got log keys: ['loss', 'mean_absolute_error']
Start testing; got log keys: []
...Evaluating: start of batch 0; got log keys: []
...Evaluating: end of batch 0; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 1; got log keys: []
...Evaluating: end of batch 1; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 2; got log keys: []
...Evaluating: end of batch 2; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 3; got log keys: []
...Evaluating: end of batch 3; got log keys: ['loss', 'mean_absolute_error']
Stop testing; got log keys: ['loss', 'mean_absolute_error']
End epoch 0 of training; got log keys: ['loss', 'mean_absolute_error', 'val_loss', 'val_mean_absolute_error']
Stop training; got log keys: ['loss', 'mean_absolute_error', 'val_loss', 'val_mean_absolute_error']
Start testing; got log keys: []
...Evaluating: start of batch 0; got log keys: []
...Evaluating: end of batch 0; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 1; got log keys: []
...Evaluating: end of batch 1; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 2; got log keys: []
...Evaluating: end of batch 2; got log keys: ['loss', 'mean_absolute_error']
Stop testing; got log keys: ['loss', 'mean_absolute_error']
Start predicting; got log keys: []
...Predicting: start of batch 0; got log keys: []
...Predicting: end of batch 0; got log keys: ['outputs']
...Predicting: start of batch 1; got log keys: []
...Predicting: end of batch 1; got log keys: ['outputs']
...Predicting: start of batch 2; got log keys: []
...Predicting: end of batch 2; got log keys: ['outputs']
Stop predicting; got log keys: []
"""


# Define the Keras model to add callbacks to
def get_model():
    model = pd.Sequential()
    model.add(pd.layers.Dense(1))
    model.compile(
        optimizer=pd.optimizers.RMSprop(learning_rate=0.1),
        loss="mean_squared_error",
        metrics=["mean_absolute_error"],
    )
    return model


@pytest.fixture
def data():
    gc.collect()
    pd.utils.set_random_seed(0)
    # Load example MNIST data and pre-process it
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    x_train = x_train.reshape(-1, 784).astype("float32") / 255.0
    x_test = x_test.reshape(-1, 784).astype("float32") / 255.0

    # Limit the data to 1000 samples
    x_train = x_train[:1000]
    y_train = y_train[:1000]
    x_test = x_test[:1000]
    y_test = y_test[:1000]
    return (x_train, y_train), (x_test, y_test)


class CustomCallback(pd.callbacks.Callback):
    def on_train_begin(self, logs=None):
        keys = list(logs.keys())
        print("Starting training; got log keys: {}".format(keys))

    def on_train_end(self, logs=None):
        keys = list(logs.keys())
        print("Stop training; got log keys: {}".format(keys))

    def on_epoch_begin(self, epoch, logs=None):
        keys = list(logs.keys())
        print("Start epoch {} of training; got log keys: {}".format(epoch, keys))

    def on_epoch_end(self, epoch, logs=None):
        keys = list(logs.keys())
        print("End epoch {} of training; got log keys: {}".format(epoch, keys))

    def on_test_begin(self, logs=None):
        keys = list(logs.keys())
        print("Start testing; got log keys: {}".format(keys))

    def on_test_end(self, logs=None):
        keys = list(logs.keys())
        print("Stop testing; got log keys: {}".format(keys))

    def on_predict_begin(self, logs=None):
        keys = list(logs.keys())
        print("Start predicting; got log keys: {}".format(keys))

    def on_predict_end(self, logs=None):
        keys = list(logs.keys())
        print("Stop predicting; got log keys: {}".format(keys))

    def on_train_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Training: start of batch {}; got log keys: {}".format(batch, keys))

    def on_train_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Training: end of batch {}; got log keys: {}".format(batch, keys))

    def on_test_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Evaluating: start of batch {}; got log keys: {}".format(batch, keys))

    def on_test_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Evaluating: end of batch {}; got log keys: {}".format(batch, keys))

    def on_predict_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Predicting: start of batch {}; got log keys: {}".format(batch, keys))

    def on_predict_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Predicting: end of batch {}; got log keys: {}".format(batch, keys))


def test_a_basic_example_calls_every_hook_as_keras_does(data, capsys):
    (x_train, y_train), (x_test, y_test) = data
    model = get_model()
    model.fit(
        x_train,
        y_train,
        batch_size=128,
        epochs=1,
        verbose=0,
        validation_split=0.5,
        callbacks=[CustomCallback()],
    )

    res = model.evaluate(
        x_test, y_test, batch_size=128, verbose=0, callbacks=[CustomCallback()]
    )

    res = model.predict(x_test, batch_size=128, callbacks=[CustomCallback()], verbose=0)

    # The one difference: paddle's training logs also carry the counters `batch` (batch
    # ends) and `epoch` (epoch and training ends), as docs/api.md's contract says ("logs
    # holds plain floats and ints: loss, each metric, epoch, batch").
    expected = "".join(
        line.replace("']", "', 'batch']") if line.startswith("...Training: end") else
        line.replace("']", "', 'epoch']") if line.startswith(("End epoch", "Stop training"))
        else line
        for line in KERAS_CUSTOM_CALLBACK_PRINTS.splitlines(keepends=True))
    assert capsys.readouterr().out == expected
    assert res.shape == (360, 1)


class LossAndErrorPrintingCallback(pd.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print(
            "Up to batch {}, the average loss is {:7.2f}.".format(batch, logs["loss"])
        )

    def on_test_batch_end(self, batch, logs=None):
        print(
            "Up to batch {}, the average loss is {:7.2f}.".format(batch, logs["loss"])
        )

    def on_epoch_end(self, epoch, logs=None):
        print(
            "The average loss for epoch {} is {:7.2f} "
            "and mean absolute error is {:7.2f}.".format(
                epoch, logs["loss"], logs["mean_absolute_error"]
            )
        )


def test_usage_of_the_logs_dict(data, capsys):
    (x_train, y_train), (x_test, y_test) = data
    model = get_model()
    history = model.fit(
        x_train,
        y_train,
        batch_size=128,
        epochs=2,
        verbose=0,
        callbacks=[LossAndErrorPrintingCallback()],
    )

    res = model.evaluate(
        x_test,
        y_test,
        batch_size=128,
        verbose=0,
        callbacks=[LossAndErrorPrintingCallback()],
    )

    lines = capsys.readouterr().out.splitlines()
    # 8 training batches (1,000 / 128) per epoch, an epoch line, then 3 test batches.
    assert [line.split(",")[0] for line in lines[:9]] == \
        [f"Up to batch {b}" for b in range(8)] + ["The average loss for epoch 0 is"
                                                   + lines[8][31:].split(",")[0]]
    assert lines[17].startswith("The average loss for epoch 1 is")
    assert len(lines) == 2 * 9 + 3
    # The per-batch value is the running average: the last batch's is the epoch's.
    epoch_loss = history.history["loss"]
    assert float(lines[7].split()[-1].rstrip(".")) == pytest.approx(epoch_loss[0], abs=0.006)
    assert float(lines[-1].split()[-1].rstrip(".")) == pytest.approx(res[0], abs=0.006)
    mae = float(lines[17].split()[-1].rstrip("."))
    assert mae == pytest.approx(history.history["mean_absolute_error"][1], abs=0.006)
    assert epoch_loss[1] < epoch_loss[0]


class EarlyStoppingAtMinLoss(pd.callbacks.Callback):
    """Stop training when the loss is at its min, i.e. the loss stops decreasing.

    Arguments:
        patience: Number of epochs to wait after min has been hit. After this
        number of no improvement, training stops.
    """

    def __init__(self, patience=0):
        super().__init__()
        self.patience = patience
        # best_weights to store the weights at which the minimum loss occurs.
        self.best_weights = None

    def on_train_begin(self, logs=None):
        # The number of epoch it has waited when loss is no longer minimum.
        self.wait = 0
        # The epoch the training stops at.
        self.stopped_epoch = 0
        # Initialize the best as infinity.
        self.best = np.inf  # np.Inf in keras-io: NumPy 2 removed that spelling

    def on_epoch_end(self, epoch, logs=None):
        current = logs.get("loss")
        if np.less(current, self.best):
            self.best = current
            self.wait = 0
            # Record the best weights if current results is better (less).
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


def test_early_stopping_at_min_loss(data, capsys):
    (x_train, y_train), (x_test, y_test) = data
    model = get_model()
    stopper = EarlyStoppingAtMinLoss()
    history = model.fit(
        x_train,
        y_train,
        batch_size=64,
        epochs=30,
        verbose=0,
        callbacks=[LossAndErrorPrintingCallback(), stopper],
    )

    # RMSprop at 0.1 on a linear regression of the digit from its pixels overshoots: the
    # loss stops falling within a few epochs, training stops at the first epoch whose loss
    # is not a new minimum, and the best epoch's weights are put back.
    loss = history.history["loss"]
    out = capsys.readouterr().out
    assert 0 < stopper.stopped_epoch < 29 and len(loss) == stopper.stopped_epoch + 1
    assert loss[-1] >= min(loss[:-1]) and all(b < a for a, b in zip(loss[:-2], loss[1:-1]))
    assert stopper.best == min(loss)
    for got, best in zip(model.get_weights(), stopper.best_weights):
        np.testing.assert_array_equal(got, best)
    assert out.endswith("Restoring model weights from the end of the best epoch.\n"
                        f"Epoch {stopper.stopped_epoch + 1}: early stopping\n")


class CustomLearningRateScheduler(pd.callbacks.Callback):
    """Learning rate scheduler which sets the learning rate according to schedule.

    Arguments:
        schedule: a function that takes an epoch index
            (integer, indexed from 0) and current learning rate
            as inputs and returns a new learning rate as output (float).
    """

    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        # Get the current learning rate from model's optimizer.
        lr = self.model.optimizer.learning_rate
        # Call schedule function to get the scheduled learning rate.
        scheduled_lr = self.schedule(epoch, lr)
        # Set the value back to the optimizer before this epoch starts
        self.model.optimizer.learning_rate = scheduled_lr
        print(f"\nEpoch {epoch}: Learning rate is {float(np.array(scheduled_lr))}.")


LR_SCHEDULE = [
    # (epoch to start, learning rate) tuples
    (3, 0.05),
    (6, 0.01),
    (9, 0.005),
    (12, 0.001),
]


def lr_schedule(epoch, lr):
    """Helper function to retrieve the scheduled learning rate based on epoch."""
    if epoch < LR_SCHEDULE[0][0] or epoch > LR_SCHEDULE[-1][0]:
        return lr
    for i in range(len(LR_SCHEDULE)):
        if epoch == LR_SCHEDULE[i][0]:
            return LR_SCHEDULE[i][1]
    return lr


def test_learning_rate_scheduling(data, capsys):
    (x_train, y_train), (x_test, y_test) = data
    model = get_model()
    history = model.fit(
        x_train,
        y_train,
        batch_size=64,
        epochs=15,
        verbose=0,
        callbacks=[
            LossAndErrorPrintingCallback(),
            CustomLearningRateScheduler(lr_schedule),
        ],
    )

    # Keras 3.15.1 prints, per epoch, the rate that epoch trains at (float32 values).
    printed = [line for line in capsys.readouterr().out.splitlines()
               if line.startswith("Epoch ")]
    expected = [0.1] * 3 + [0.05] * 3 + [0.01] * 3 + [0.005] * 3 + [0.001] * 3
    assert [line.split()[1] for line in printed] == [f"{e}:" for e in range(15)]
    np.testing.assert_allclose([float(line.split()[-1].rstrip(".")) for line in printed],
                               expected, rtol=1e-6)
    assert float(np.array(model.optimizer.learning_rate)) == pytest.approx(0.001)
    loss = history.history["loss"]
    assert len(loss) == 15 and loss[-1] < loss[0]
