"""keras-io `guides/training_with_built_in_methods.py` ("Training & evaluation with the
built-in methods", fchollet), in its Keras 3 text (`guides/keras_core/...`), ported by
renaming `keras` to `pd` (`from paddle import layers, ops`).

Other changes:
- Data: `keras.datasets.mnist` downloads; `mnist_like` gives scikit-learn's digits at
  MNIST's 28x28 (1,437 training, 360 test). The guide reserves the last 10,000 of 60,000
  training samples for validation; here the last 300.
- `tf.data.Dataset.from_tensor_slices(...).shuffle(...).batch(...)` is TensorFlow's:
  `from_tensor_slices` below is paddle's equivalent, a reader creator (a no-argument
  function returning an iterator of batches, which `fit`, `evaluate` and `predict` take),
  shuffled and batched the same way.
- `torch.utils.data.Dataset` / `DataLoader` are PyTorch's (tests never import torch): the
  same sample-level dataset is batched by paddle's readers (`pd.reader.shuffle` /
  `pd.reader.batch`).
- Fewer epochs where the guide trains many; verbose=0.
Each section is a test; what the guide shows (history keys, shapes, it learns, callbacks
stop or save) is asserted, with Keras 3.15.1's numbers (JAX backend) where it prints some.
"""
import gc
import os

import numpy as np
import pytest

import paddle as pd
from paddle import layers
from paddle import ops

from keras_ports.mnist_like import mnist


@pytest.fixture(autouse=True)
def fresh_state():
    gc.collect()
    pd.utils.set_random_seed(0)


@pytest.fixture(scope="module")
def digits():
    (x_train, y_train), (x_test, y_test) = mnist.load_data()

    # Preprocess the data (these are NumPy arrays)
    x_train = x_train.reshape(len(x_train), 784).astype("float32") / 255  # 60000 in keras-io
    x_test = x_test.reshape(len(x_test), 784).astype("float32") / 255

    y_train = y_train.astype("float32")
    y_test = y_test.astype("float32")

    # Reserve 300 samples for validation (10,000 of 60,000 in keras-io)
    x_val = x_train[-300:]
    y_val = y_train[-300:]
    x_train = x_train[:-300]
    y_train = y_train[:-300]
    return x_train, y_train, x_val, y_val, x_test, y_test


def from_tensor_slices(arrays, batch_size, shuffle_buffer=None):
    """paddle's stand-in for TensorFlow's `tf.data.Dataset.from_tensor_slices(arrays)`
    `.shuffle(shuffle_buffer).batch(batch_size)`: a reader creator of batches (arrays, or
    dicts of arrays, cut along the first axis), drawn afresh each epoch."""
    first = arrays[0]
    n = len(next(iter(first.values()))) if isinstance(first, dict) else len(first)

    def take(a, idx):
        return {k: v[idx] for k, v in a.items()} if isinstance(a, dict) else a[idx]

    def batches():
        order = np.arange(n)
        if shuffle_buffer:
            order = np.random.permutation(n)
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            yield tuple(take(a, idx) for a in arrays)

    return batches


def get_uncompiled_model():
    inputs = pd.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    model = pd.Model(inputs=inputs, outputs=outputs)
    return model


def get_compiled_model():
    model = get_uncompiled_model()
    model.compile(
        optimizer="rmsprop",
        loss="sparse_categorical_crossentropy",
        metrics=["sparse_categorical_accuracy"],
    )
    return model


def test_a_first_end_to_end_example(digits):
    x_train, y_train, x_val, y_val, x_test, y_test = digits
    inputs = pd.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)

    model = pd.Model(inputs=inputs, outputs=outputs)

    model.compile(
        optimizer=pd.optimizers.RMSprop(),  # Optimizer
        # Loss function to minimize
        loss=pd.losses.SparseCategoricalCrossentropy(),
        # List of metrics to monitor
        metrics=[pd.metrics.SparseCategoricalAccuracy()],
    )

    print("Fit model on training data")
    history = model.fit(
        x_train,
        y_train,
        batch_size=64,
        epochs=2,
        # We pass some validation for
        # monitoring validation loss and metrics
        # at the end of each epoch
        validation_data=(x_val, y_val),
        verbose=0,
    )

    # Keras 3.15.1's history.history keys for this model:
    assert sorted(history.history) == ["loss", "sparse_categorical_accuracy", "val_loss",
                                       "val_sparse_categorical_accuracy"]

    # Evaluate the model on the test data using `evaluate`
    print("Evaluate on test data")
    results = model.evaluate(x_test, y_test, batch_size=128, verbose=0)
    print("test loss, test acc:", results)

    # Generate predictions (probabilities -- the output of the last layer)
    # on new data using `predict`
    print("Generate predictions for 3 samples")
    predictions = model.predict(x_test[:3], verbose=0)
    print("predictions shape:", predictions.shape)

    assert predictions.shape == (3, 10)  # as Keras prints
    np.testing.assert_allclose(predictions.sum(axis=1), 1.0, rtol=1e-5)
    assert history.history["loss"][1] < history.history["loss"][0]
    assert len(results) == 2 and results[1] > 0.7  # chance: 0.1

    # The compile() method: the same configuration by objects and by names.
    model.compile(
        optimizer=pd.optimizers.RMSprop(learning_rate=1e-3),
        loss=pd.losses.SparseCategoricalCrossentropy(),
        metrics=[pd.metrics.SparseCategoricalAccuracy()],
    )
    by_objects = model.evaluate(x_test, y_test, verbose=0)
    model.compile(
        optimizer="rmsprop",
        loss="sparse_categorical_crossentropy",
        metrics=["sparse_categorical_accuracy"],
    )
    np.testing.assert_allclose(model.evaluate(x_test, y_test, verbose=0), by_objects,
                               rtol=1e-6)


def custom_mean_squared_error(y_true, y_pred):
    return ops.mean(ops.square(y_true - y_pred), axis=-1)


class CustomMSE(pd.losses.Loss):
    def __init__(self, regularization_factor=0.1, name="custom_mse"):
        super().__init__(name=name)
        self.regularization_factor = regularization_factor

    def call(self, y_true, y_pred):
        mse = ops.mean(ops.square(y_true - y_pred), axis=-1)
        reg = ops.mean(ops.square(0.5 - y_pred), axis=-1)
        return mse + reg * self.regularization_factor


def test_custom_losses(digits):
    x_train, y_train, *_ = digits
    model = get_uncompiled_model()
    model.compile(optimizer=pd.optimizers.Adam(), loss=custom_mean_squared_error)

    # We need to one-hot encode the labels to use MSE
    y_train_one_hot = ops.one_hot(y_train, num_classes=10)
    history = model.fit(x_train, y_train_one_hot, batch_size=64, epochs=1, verbose=0)

    one_hot = ops.convert_to_numpy(y_train_one_hot)
    assert one_hot.shape == (len(y_train), 10)
    np.testing.assert_array_equal(one_hot.argmax(axis=1), y_train)
    first = history.history["loss"][0]

    model = get_uncompiled_model()
    model.compile(optimizer=pd.optimizers.Adam(), loss=CustomMSE())

    y_train_one_hot = ops.one_hot(y_train, num_classes=10)
    history = model.fit(x_train, y_train_one_hot, batch_size=64, epochs=1, verbose=0)

    # Both are MSEs of softmax outputs against one-hot targets: below 0.1 (the MSE of a
    # uniform guess is 0.09); CustomMSE adds 0.1 * mean((0.5 - p) ** 2), about 0.02 more.
    assert 0 < first < 0.1
    assert 0 < history.history["loss"][0] < 0.1 + 0.1 * 0.25
    loss = CustomMSE()
    y_true = np.eye(10, dtype="float32")[:2]
    y_pred = np.full((2, 10), 0.1, "float32")
    expected = np.mean((y_true - y_pred) ** 2) + 0.1 * np.mean((0.5 - y_pred) ** 2)
    assert float(ops.convert_to_numpy(loss(y_true, y_pred))) == pytest.approx(expected, rel=1e-5)


class CategoricalTruePositives(pd.metrics.Metric):
    def __init__(self, name="categorical_true_positives", **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_positives = self.add_variable(
            shape=(), name="ctp", initializer="zeros"
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = ops.reshape(ops.argmax(y_pred, axis=1), (-1, 1))
        values = ops.cast(y_true, "int32") == ops.cast(y_pred, "int32")
        values = ops.cast(values, "float32")
        if sample_weight is not None:
            sample_weight = ops.cast(sample_weight, "float32")
            values = ops.multiply(values, sample_weight)
        self.true_positives.assign_add(ops.sum(values))

    def result(self):
        return self.true_positives

    def reset_state(self):
        # The state of the metric will be reset at the start of each epoch.
        self.true_positives.assign(0.0)


def test_custom_metrics(digits):
    x_train, y_train, *_ = digits
    model = get_uncompiled_model()
    model.compile(
        optimizer=pd.optimizers.RMSprop(learning_rate=1e-3),
        loss=pd.losses.SparseCategoricalCrossentropy(),
        metrics=[CategoricalTruePositives()],
    )
    history = model.fit(x_train, y_train, batch_size=64, epochs=3, verbose=0)

    # The count is reset each epoch: at most the number of training samples. Note that
    # `y_true` (n,) against `y_pred` (n, 1) broadcasts to (n, n) in Keras as here: the
    # guide's metric counts, for every prediction, the samples whose label equals it.
    tp = history.history["categorical_true_positives"]
    assert len(tp) == 3 and all(t > 0 for t in tp)
    preds = model.predict(x_train, verbose=0).argmax(axis=1)
    counts = np.bincount(y_train.astype(int), minlength=10)
    broadcast_count = float(counts[preds].sum())  # what the metric sums in one pass
    metric = CategoricalTruePositives()
    metric.update_state(y_train, model.predict(x_train, verbose=0))
    assert float(ops.convert_to_numpy(metric.result())) == pytest.approx(broadcast_count)
    metric.reset_state()
    assert float(ops.convert_to_numpy(metric.result())) == 0.0


class ActivityRegularizationLayer(layers.Layer):
    def call(self, inputs):
        self.add_loss(ops.sum(inputs) * 0.1)
        return inputs  # Pass-through layer.


class LogisticEndpoint(pd.layers.Layer):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.loss_fn = pd.losses.BinaryCrossentropy(from_logits=True)

    def call(self, targets, logits, sample_weights=None):
        # Compute the training-time loss value and add it
        # to the layer using `self.add_loss()`.
        loss = self.loss_fn(targets, logits, sample_weights)
        self.add_loss(loss)

        # Return the inference-time prediction tensor (for `.predict()`).
        return ops.softmax(logits)


def test_losses_that_do_not_fit_the_standard_signature(digits):
    x_train, y_train, *_ = digits
    inputs = pd.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)

    # Insert activity regularization as a layer
    x = ActivityRegularizationLayer()(x)

    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, name="predictions")(x)

    model = pd.Model(inputs=inputs, outputs=outputs)
    model.compile(
        optimizer=pd.optimizers.RMSprop(learning_rate=1e-3),
        loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True),
    )

    # The displayed loss will be much higher than before
    # due to the regularization component.
    history = model.fit(x_train, y_train, batch_size=64, epochs=1, verbose=0)
    assert history.history["loss"][0] > 2.3  # crossentropy alone starts near ln(10)

    inputs = pd.Input(shape=(3,), name="inputs")
    targets = pd.Input(shape=(10,), name="targets")
    logits = pd.layers.Dense(10)(inputs)
    predictions = LogisticEndpoint(name="predictions")(targets, logits)

    model = pd.Model(inputs=[inputs, targets], outputs=predictions)
    model.compile(optimizer="adam")  # No loss argument!

    data = {
        "inputs": np.random.random((3, 3)),
        "targets": np.random.random((3, 10)),
    }
    history = model.fit(data, verbose=0)

    # The loss is the endpoint's binary crossentropy, computed from the targets input.
    dense = model.layers[-2] if isinstance(model.layers[-1], LogisticEndpoint) else None
    assert isinstance(model.layers[-1], LogisticEndpoint) and dense is not None
    assert np.isfinite(history.history["loss"][0])
    z = data["inputs"] @ dense.kernel.numpy() + dense.bias.numpy()
    t = data["targets"]
    bce = np.mean(np.maximum(z, 0) - z * t + np.log1p(np.exp(-np.abs(z))))
    assert model.evaluate(data, verbose=0) == pytest.approx(bce, rel=1e-4)
    probs = model.predict(data, verbose=0)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)


def test_validation_split(digits):
    x_train, y_train, *_ = digits
    model = get_compiled_model()
    history = model.fit(x_train, y_train, batch_size=64, validation_split=0.2, epochs=1,
                        verbose=0)
    assert "val_loss" in history.history and "val_sparse_categorical_accuracy" in \
        history.history


def test_training_on_datasets(digits):
    x_train, y_train, x_val, y_val, x_test, y_test = digits
    model = get_compiled_model()

    # First, let's create a training Dataset instance.
    # For the sake of our example, we'll use the same MNIST data as before.
    # Shuffle and slice the dataset.
    train_dataset = from_tensor_slices((x_train, y_train), 64, shuffle_buffer=1024)

    # Now we get a test dataset.
    test_dataset = from_tensor_slices((x_test, y_test), 64)

    # Since the dataset already takes care of batching,
    # we don't pass a `batch_size` argument.
    history = model.fit(train_dataset, epochs=3, verbose=0)

    # You can also evaluate or predict on a dataset.
    print("Evaluate")
    result = model.evaluate(test_dataset, verbose=0)
    named = dict(zip(model.metrics_names, result))
    assert named["loss"] == result[0] and result[1] > 0.7
    loss = history.history["loss"]
    assert len(loss) == 3 and loss[2] < loss[0]

    model = get_compiled_model()
    # Only use the 10 batches per epoch (that's 64 * 10 samples; 100 in keras-io)
    history = model.fit(train_dataset, epochs=3, steps_per_epoch=10, verbose=0)
    assert model.optimizer.iterations == 30

    model = get_compiled_model()
    # Prepare the validation dataset
    val_dataset = from_tensor_slices((x_val, y_val), 64)
    history = model.fit(train_dataset, epochs=1, validation_data=val_dataset, verbose=0)
    assert "val_loss" in history.history

    model = get_compiled_model()
    seen = []

    class CountValidationBatches(pd.callbacks.Callback):
        def on_test_batch_end(self, batch, logs=None):
            seen.append(batch)

    model.fit(
        train_dataset,
        epochs=1,
        # Only run validation using the first 3 batches of the dataset
        # using the `validation_steps` argument (10 in keras-io)
        validation_data=val_dataset,
        validation_steps=3,
        callbacks=[CountValidationBatches()],
        verbose=0,
    )
    assert seen == [0, 1, 2]


class ExamplePyDataset(pd.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x = x
        self.y = y
        self.batch_size = batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / float(self.batch_size)))

    def __getitem__(self, idx):
        batch_x = self.x[idx * self.batch_size : (idx + 1) * self.batch_size]
        batch_y = self.y[idx * self.batch_size : (idx + 1) * self.batch_size]
        return batch_x, batch_y


def test_training_on_py_datasets(digits):
    x_train, y_train, x_val, y_val, *_ = digits
    train_py_dataset = ExamplePyDataset(x_train, y_train, batch_size=32)
    val_py_dataset = ExamplePyDataset(x_val, y_val, batch_size=32)

    model = get_compiled_model()
    history = model.fit(train_py_dataset, batch_size=64, validation_data=val_py_dataset,
                        epochs=1, verbose=0)

    result = model.evaluate(val_py_dataset, verbose=0)
    assert result[1] > 0.5 and model.optimizer.iterations == len(train_py_dataset) == 36
    assert "val_loss" in history.history

    train_py_dataset = ExamplePyDataset(x_train, y_train, batch_size=32, workers=4)
    val_py_dataset = ExamplePyDataset(x_val, y_val, batch_size=32, workers=4)

    model = get_compiled_model()
    history = model.fit(train_py_dataset, batch_size=64, validation_data=val_py_dataset,
                        epochs=1, verbose=0)
    assert model.optimizer.iterations == 36 and np.isfinite(history.history["val_loss"][0])


def test_sample_level_datasets_batched_by_readers(digits):
    # torch.utils.data.Dataset / DataLoader are PyTorch's: paddle's readers batch and
    # shuffle a sample-level dataset the same way.
    x_train, y_train, x_val, y_val, *_ = digits

    class ExampleDataset:
        def __init__(self, x, y):
            self.x = x
            self.y = y

        def __len__(self):
            return len(self.x)

        def __getitem__(self, idx):
            return self.x[idx], self.y[idx]

    def loader(dataset, batch_size):
        def samples():
            return (dataset[i] for i in range(len(dataset)))
        return pd.reader.batch(pd.reader.shuffle(samples, buf_size=len(dataset)), batch_size)

    train_dataloader = loader(ExampleDataset(x_train, y_train), batch_size=32)
    val_dataloader = loader(ExampleDataset(x_val, y_val), batch_size=32)

    model = get_compiled_model()
    history = model.fit(train_dataloader, batch_size=64, validation_data=val_dataloader,
                        epochs=1, verbose=0)
    result = model.evaluate(val_dataloader, verbose=0)
    assert model.optimizer.iterations == 36 and result[1] > 0.5
    assert "val_loss" in history.history


def test_class_weights_and_sample_weights(digits):
    x_train, y_train, *_ = digits
    class_weight = {
        0: 1.0,
        1: 1.0,
        2: 1.0,
        3: 1.0,
        4: 1.0,
        # Set weight "2" for class "5",
        # making this class 2x more important
        5: 2.0,
        6: 1.0,
        7: 1.0,
        8: 1.0,
        9: 1.0,
    }

    print("Fit with class weight")
    pd.utils.set_random_seed(7)
    model = get_compiled_model()
    start = model.get_weights()
    by_class = model.fit(x_train, y_train, class_weight=class_weight, batch_size=64,
                         epochs=1, shuffle=False, verbose=0).history["loss"][0]

    sample_weight = np.ones(shape=(len(y_train),))
    sample_weight[y_train == 5] = 2.0

    print("Fit with sample weight")
    model = get_compiled_model()
    model.set_weights(start)
    by_sample = model.fit(x_train, y_train, sample_weight=sample_weight, batch_size=64,
                          epochs=1, shuffle=False, verbose=0).history["loss"][0]
    # The same weights per sample, from the same start and order: the same training.
    assert by_class == pytest.approx(by_sample, rel=1e-5)

    sample_weight = np.ones(shape=(len(y_train),))
    sample_weight[y_train == 5] = 2.0

    # Create a Dataset that includes sample weights
    # (3rd element in the return tuple).
    train_dataset = from_tensor_slices((x_train, y_train, sample_weight), 64)

    model = get_compiled_model()
    model.set_weights(start)
    by_dataset = model.fit(train_dataset, epochs=1, verbose=0).history["loss"][0]
    assert by_dataset == pytest.approx(by_sample, rel=1e-5)


def multi_io_model():
    image_input = pd.Input(shape=(32, 32, 3), name="img_input")
    timeseries_input = pd.Input(shape=(None, 10), name="ts_input")

    x1 = layers.Conv2D(3, 3)(image_input)
    x1 = layers.GlobalMaxPooling2D()(x1)

    x2 = layers.Conv1D(3, 3)(timeseries_input)
    x2 = layers.GlobalMaxPooling1D()(x2)

    x = layers.concatenate([x1, x2])

    score_output = layers.Dense(1, name="score_output")(x)
    class_output = layers.Dense(5, name="class_output")(x)

    model = pd.Model(
        inputs=[image_input, timeseries_input], outputs=[score_output, class_output]
    )
    return model


def test_multi_input_multi_output_models(tmp_path):
    model = multi_io_model()
    try:
        import pydot  # noqa: F401
        pd.utils.plot_model(model, str(tmp_path / "multi_input_and_output_model.png"),
                            show_shapes=True)
        assert (tmp_path / "multi_input_and_output_model.png").stat().st_size > 0
    except ImportError:  # plot_model needs the plot extra (pydot); CI installs it
        pass

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss=[
            pd.losses.MeanSquaredError(),
            pd.losses.CategoricalCrossentropy(),
        ],
    )

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss=[
            pd.losses.MeanSquaredError(),
            pd.losses.CategoricalCrossentropy(),
        ],
        metrics=[
            [
                pd.metrics.MeanAbsolutePercentageError(),
                pd.metrics.MeanAbsoluteError(),
            ],
            [pd.metrics.CategoricalAccuracy()],
        ],
    )

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss={
            "score_output": pd.losses.MeanSquaredError(),
            "class_output": pd.losses.CategoricalCrossentropy(),
        },
        metrics={
            "score_output": [
                pd.metrics.MeanAbsolutePercentageError(),
                pd.metrics.MeanAbsoluteError(),
            ],
            "class_output": [pd.metrics.CategoricalAccuracy()],
        },
    )

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss={
            "score_output": pd.losses.MeanSquaredError(),
            "class_output": pd.losses.CategoricalCrossentropy(),
        },
        metrics={
            "score_output": [
                pd.metrics.MeanAbsolutePercentageError(),
                pd.metrics.MeanAbsoluteError(),
            ],
            "class_output": [pd.metrics.CategoricalAccuracy()],
        },
        loss_weights={"score_output": 2.0, "class_output": 1.0},
    )

    # Generate dummy NumPy data
    img_data = np.random.random_sample(size=(100, 32, 32, 3))
    ts_data = np.random.random_sample(size=(100, 20, 10))
    score_targets = np.random.random_sample(size=(100, 1))
    class_targets = np.random.random_sample(size=(100, 5))

    history = model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32,
                        epochs=1, verbose=0)
    # Keras 3.15.1 logs, for these metrics: loss, each output's loss, and
    # <output>_<metric> for each metric.
    assert set(history.history) == {
        "loss", "score_output_loss", "class_output_loss",
        "score_output_mean_absolute_percentage_error", "score_output_mean_absolute_error",
        "class_output_categorical_accuracy"}
    logs = model.evaluate([img_data, ts_data], [score_targets, class_targets], verbose=0,
                          return_dict=True)
    assert logs["loss"] == pytest.approx(2.0 * logs["score_output_loss"]
                                         + logs["class_output_loss"], rel=1e-4)

    # List loss version
    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss=[None, pd.losses.CategoricalCrossentropy()],
    )
    loss = model.evaluate([img_data, ts_data], [score_targets, class_targets], verbose=0)

    # Or dict loss version
    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss={"class_output": pd.losses.CategoricalCrossentropy()},
    )
    assert model.evaluate([img_data, ts_data], [score_targets, class_targets],
                          verbose=0) == pytest.approx(loss, rel=1e-6)

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss=[
            pd.losses.MeanSquaredError(),
            pd.losses.CategoricalCrossentropy(),
        ],
    )

    # Fit on lists
    model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32, epochs=1,
              verbose=0)

    # Alternatively, fit on dicts
    history = model.fit(
        {"img_input": img_data, "ts_input": ts_data},
        {"score_output": score_targets, "class_output": class_targets},
        batch_size=32,
        epochs=1,
        verbose=0,
    )
    assert {"loss", "score_output_loss", "class_output_loss"} <= set(history.history)

    train_dataset = from_tensor_slices(
        (
            {"img_input": img_data, "ts_input": ts_data},
            {"score_output": score_targets, "class_output": class_targets},
        ),
        64,
        shuffle_buffer=1024,
    )

    history = model.fit(train_dataset, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert model.optimizer.iterations == 4 + 4 + 2


def test_callbacks_early_stopping(digits):
    x_train, y_train, *_ = digits
    model = get_compiled_model()

    callbacks = [
        pd.callbacks.EarlyStopping(
            # Stop training when `val_loss` is no longer improving
            monitor="val_loss",
            # "no longer improving" being defined as "no better than 1e-2 less"
            min_delta=1e-2,
            # "no longer improving" being further defined as "for at least 2 epochs"
            patience=2,
            verbose=1,
        )
    ]
    history = model.fit(
        x_train,
        y_train,
        epochs=20,
        batch_size=64,
        callbacks=callbacks,
        validation_split=0.2,
        verbose=0,
    )

    # It stops 2 epochs after the last epoch that beat the best val_loss by 1e-2.
    val = history.history["val_loss"]
    best, best_epoch = np.inf, 0
    for epoch, v in enumerate(val):
        if v < best - 1e-2:
            best, best_epoch = v, epoch
    stopped = len(val) - 1
    assert stopped < 19, val  # the digits are learnt well before 20 epochs
    assert stopped == best_epoch + 2 and callbacks[0].stopped_epoch == stopped


class LossHistory(pd.callbacks.Callback):
    def on_train_begin(self, logs):
        self.per_batch_losses = []

    def on_batch_end(self, batch, logs):
        self.per_batch_losses.append(logs.get("loss"))


def test_writing_your_own_callback(digits):
    x_train, y_train, *_ = digits
    model = get_compiled_model()
    history_cb = LossHistory()
    history = model.fit(x_train, y_train, batch_size=64, epochs=1, callbacks=[history_cb],
                        verbose=0)
    # on_batch_end is Keras's legacy alias of on_train_batch_end: one loss per batch, the
    # running average, whose last value is the epoch's.
    assert len(history_cb.per_batch_losses) == 18
    assert history_cb.per_batch_losses[-1] == pytest.approx(history.history["loss"][0])


def test_checkpointing_models(digits, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x_train, y_train, x_val, y_val, *_ = digits
    model = get_compiled_model()

    callbacks = [
        pd.callbacks.ModelCheckpoint(
            # Path where to save the model
            # The two parameters below mean that we will overwrite
            # the current checkpoint if and only if
            # the `val_loss` score has improved.
            # The saved model name will include the current epoch.
            filepath="mymodel_{epoch}.keras",
            save_best_only=True,  # Only save a model if `val_loss` has improved.
            monitor="val_loss",
            verbose=1,
        )
    ]
    history = model.fit(
        x_train,
        y_train,
        epochs=2,
        batch_size=64,
        callbacks=callbacks,
        validation_split=0.2,
        verbose=0,
    )
    val = history.history["val_loss"]
    expected = ["mymodel_1.keras"] + (["mymodel_2.keras"] if val[1] < val[0] else [])
    assert sorted(name for name in os.listdir() if name.endswith(".keras")) == expected

    # Prepare a directory to store all the checkpoints.
    checkpoint_dir = "./ckpt"
    if not os.path.exists(checkpoint_dir):
        os.makedirs(checkpoint_dir)

    def make_or_restore_model():
        # Either restore the latest model, or create a fresh one
        # if there is no checkpoint available.
        checkpoints = [checkpoint_dir + "/" + name for name in os.listdir(checkpoint_dir)]
        if checkpoints:
            latest_checkpoint = max(checkpoints, key=os.path.getctime)
            print("Restoring from", latest_checkpoint)
            return pd.models.load_model(latest_checkpoint)
        print("Creating a new model")
        return get_compiled_model()

    model = make_or_restore_model()
    callbacks = [
        # This callback saves the model every 10 batches (100 in keras-io).
        # We include the training loss in the saved model name.
        pd.callbacks.ModelCheckpoint(
            filepath=checkpoint_dir + "/model-loss={loss:.2f}.keras", save_freq=10
        )
    ]
    model.fit(x_train, y_train, epochs=1, callbacks=callbacks, verbose=0)

    saved = os.listdir(checkpoint_dir)
    assert len(saved) >= 1 and all(n.startswith("model-loss=") for n in saved)
    restored = make_or_restore_model()  # the second run restores the latest checkpoint
    assert restored.count_params() == model.count_params()
    assert restored.optimizer.iterations >= 10


def test_learning_rate_schedules_and_tensorboard(tmp_path):
    initial_learning_rate = 0.1
    lr_schedule = pd.optimizers.schedules.ExponentialDecay(
        initial_learning_rate, decay_steps=100000, decay_rate=0.96, staircase=True
    )

    optimizer = pd.optimizers.RMSprop(learning_rate=lr_schedule)

    # staircase: the rate stays 0.1 until step 100,000, then 0.096.
    assert float(lr_schedule(0)) == pytest.approx(0.1)
    assert float(lr_schedule(99999)) == pytest.approx(0.1)
    assert float(lr_schedule(100000)) == pytest.approx(0.096)
    assert optimizer.learning_rate is lr_schedule or \
        float(np.array(optimizer.learning_rate)) == pytest.approx(0.1)

    pytest.importorskip("tensorboard", reason="pd.callbacks.TensorBoard needs the "
                                              "tensorboard extra (CI installs it)")
    callback = pd.callbacks.TensorBoard(
        log_dir=str(tmp_path / "full_path_to_your_logs"),
        histogram_freq=0,  # How often to log histogram visualizations
        embeddings_freq=0,  # How often to log embedding visualizations
        update_freq="epoch",
    )  # How often to write logs (default: once per epoch)
    assert callback.update_freq == "epoch"
