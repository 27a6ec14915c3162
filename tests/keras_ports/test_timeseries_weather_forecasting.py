"""keras-io `examples/timeseries/timeseries_weather_forecasting.py` ("Timeseries
forecasting for weather prediction", Prabhanshu Attri, Yashika Sharma, Kristi Takach,
Falak Shah), ported by renaming `keras` to `pd`.

What changed, and why:
- The data: the Jena climate CSV is a download read with pandas (not installed here), so
  `jena_like()` makes 6,000 rows of the 14 features offline, with a temperature that
  follows the pressure of about 12 hours before (learnable, as the real one is); the
  DataFrame indexing becomes NumPy indexing (`features.iloc[start:end][[1]]` ->
  `features[start:end][:, [1]]`, `.values` dropped); the plots are left out.
- The sizes: 120 past rows (not 720) sampled every 6 (20 steps), 12 rows ahead (not
  72), batch size 64 and 4 epochs (not 256 and 10), so that it runs in seconds.
- `keras.preprocessing.timeseries_dataset_from_array` is `pd.utils.` (paddle has the
  function under `keras.utils`, Keras 3's other name for it, and no `preprocessing`).
- `for batch in dataset_train.take(1)` (a tf.data method) is `dataset_train[0]`, and
  `inputs.numpy().shape` is `inputs.shape`: paddle's dataset is a `PyDataset` of NumPy
  batches; likewise `dataset_val.take(5)` is the first five batches.
- The checkpoint is `model_checkpoint.weights.h5` (Keras 3's name for weights-only
  checkpoints; the TensorFlow-era text says `.h5`), written in a temporary folder;
  `verbose=0`.
The test checks what the program shows: the shapes it prints, that the model learns (the
validation loss falls below the variance of the normalized target, 1), that the best
checkpoint is written and reloads, and that predictions come out one per sample.
"""
import numpy as np
import pytest

import paddle as pd

keras = pd


def jena_like(rows=6000, seed=0):
    """14 climate-like features; "T (degC)" (column 1) follows "p (mbar)" (column 0) of
    72 rows before, plus a daily cycle and noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(rows)
    pressure = np.cumsum(rng.normal(size=rows)) * 0.5 + 990
    daily = np.sin(2 * np.pi * t / 144)
    temperature = 0.8 * np.roll(pressure - 990, 72) + 3 * daily + rng.normal(size=rows)
    others = rng.normal(size=(rows, 12)) + daily[:, None]
    return np.column_stack([pressure, temperature, others]).astype("float32")


@pytest.mark.slow
def test_timeseries_weather_forecasting(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pd.utils.set_random_seed(0)
    data = jena_like()

    split_fraction = 0.715
    train_split = int(split_fraction * int(data.shape[0]))
    step = 6

    past = 120
    future = 12
    learning_rate = 0.001
    batch_size = 64
    epochs = 4

    def normalize(data, train_split):
        data_mean = data[:train_split].mean(axis=0)
        data_std = data[:train_split].std(axis=0)
        return (data - data_mean) / data_std

    features = data[:, [0, 1, 5, 7, 8, 10, 11]]
    features = normalize(features, train_split)

    train_data = features[0:train_split]
    val_data = features[train_split:]

    start = past + future
    end = start + train_split

    x_train = train_data[:, [i for i in range(7)]]
    y_train = features[start:end][:, [1]]

    sequence_length = int(past / step)

    dataset_train = keras.utils.timeseries_dataset_from_array(
        x_train,
        y_train,
        sequence_length=sequence_length,
        sampling_rate=step,
        batch_size=batch_size,
    )

    x_end = len(val_data) - past - future

    label_start = train_split + past + future

    x_val = val_data[:x_end][:, [i for i in range(7)]]
    y_val = features[label_start:][:, [1]]

    dataset_val = keras.utils.timeseries_dataset_from_array(
        x_val,
        y_val,
        sequence_length=sequence_length,
        sampling_rate=step,
        batch_size=batch_size,
    )

    inputs, targets = dataset_train[0]
    assert inputs.shape == (64, 20, 7)      # "Input shape:"
    assert targets.shape == (64, 1)         # "Target shape:"

    inputs = keras.layers.Input(shape=(inputs.shape[1], inputs.shape[2]))
    lstm_out = keras.layers.LSTM(32)(inputs)
    outputs = keras.layers.Dense(1)(lstm_out)

    model = keras.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=learning_rate), loss="mse")
    assert model.count_params() == 5_153  # Keras 3.15.1 counts the same

    path_checkpoint = "model_checkpoint.weights.h5"
    es_callback = keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=0, patience=5)

    modelckpt_callback = keras.callbacks.ModelCheckpoint(
        monitor="val_loss",
        filepath=path_checkpoint,
        verbose=0,
        save_weights_only=True,
        save_best_only=True,
    )

    history = model.fit(
        dataset_train,
        epochs=epochs,
        validation_data=dataset_val,
        callbacks=[es_callback, modelckpt_callback],
        verbose=0,
    )

    val_loss = history.history["val_loss"]
    assert len(val_loss) == epochs and history.history["loss"][-1] < history.history["loss"][0]
    assert min(val_loss) < 0.6                 # the normalized target's variance is ~1
    model.load_weights(path_checkpoint)       # the best epoch's weights
    assert model.evaluate(dataset_val, verbose=0) == pytest.approx(min(val_loss), rel=1e-4)

    for i in range(5):
        x, y = dataset_val[i]
        prediction = model.predict(x, verbose=0)[0]
        assert x[0][:, 1].shape == (20,) and y[0].shape == (1,) and prediction.shape == (1,)
