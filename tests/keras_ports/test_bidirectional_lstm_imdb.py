"""keras-io `examples/nlp/bidirectional_lstm_imdb.py` ("Bidirectional LSTM on IMDB",
fchollet), ported by renaming `keras` to `pd`.

The data is the only other change: `keras.datasets.imdb.load_data` downloads 50,000
reviews, so `imdb_like.imdb.load_data` makes 128 + 64 synthetic reviews of the same form
(lists of word indices below `max_features`, of varying length, padded to 200 by
`pd.utils.pad_sequences` as the program does), and training is 2 epochs of those. The
model takes variable-length sequences (`Input(shape=(None,))`) through two
`Bidirectional(LSTM)` layers. The test checks what the program shows: Keras's summary,
that it learns, and that it runs on any sequence length.
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import layers

from keras_ports.imdb_like import imdb
from keras_ports.summaries import assert_summary, printed_summary

# Keras 3.15.1 (JAX backend) prints for this model (the unchanged program's model part):
KERAS_SUMMARY = [
    ("embedding", (None, None, 128), 2_560_000),
    ("bidirectional", (None, None, 128), 98_816),
    ("bidirectional_1", (None, 128), 98_816),
    ("dense", (None, 1), 129),
]
KERAS_TOTAL = 2_757_761


@pytest.mark.slow
def test_bidirectional_lstm_imdb():
    gc.collect()  # layer names are global and held weakly: free the names earlier tests took
    pd.utils.set_random_seed(0)

    # ---- the program, as keras-io writes it ----
    max_features = 20000  # Only consider the top 20k words
    maxlen = 200  # Only consider the first 200 words of each movie review

    # Input for variable-length sequences of integers
    inputs = pd.Input(shape=(None,), dtype="int32")
    # Embed each integer in a 128-dimensional vector
    x = layers.Embedding(max_features, 128)(inputs)
    # Add 2 bidirectional LSTMs
    x = layers.Bidirectional(layers.LSTM(64, return_sequences=True))(x)
    x = layers.Bidirectional(layers.LSTM(64))(x)
    # Add a classifier
    outputs = layers.Dense(1, activation="sigmoid")(x)
    model = pd.Model(inputs, outputs)
    summary = printed_summary(model)  # model.summary()

    (x_train, y_train), (x_val, y_val) = imdb.load_data(num_words=max_features)
    print(len(x_train), "Training sequences")
    print(len(x_val), "Validation sequences")
    # keras.preprocessing.sequence.pad_sequences is Keras 2's path; Keras 3 (and pd) keep
    # it as keras.utils.pad_sequences.
    x_train = pd.utils.pad_sequences(x_train, maxlen=maxlen)
    x_val = pd.utils.pad_sequences(x_val, maxlen=maxlen)

    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=32, epochs=2,
                        validation_data=(x_val, y_val), verbose=0)
    # ---- end of the program ----

    assert_summary(summary, KERAS_SUMMARY, KERAS_TOTAL, inputs=[(None, None)])
    assert x_train.shape == (128, maxlen) and x_val.shape == (64, maxlen)
    assert x_train.dtype == np.int32   # Keras's pad_sequences default dtype
    losses = history.history["loss"]
    assert losses[-1] < losses[0], losses
    assert history.history["val_accuracy"][-1] > 0.75, history.history   # chance: 0.5
    assert history.history["val_loss"][-1] < history.history["val_loss"][0]

    # Input(shape=(None,)): the same model reads shorter and longer reviews.
    for length in (7, 300):
        assert model.predict(x_val[:3, :length], verbose=0).shape == (3, 1)
    # Predictions of the full padded reviews agree with the learnt validation accuracy.
    acc = np.mean((model.predict(x_val, verbose=0)[:, 0] > 0.5) == y_val)
    assert acc == pytest.approx(history.history["val_accuracy"][-1], abs=1e-6)
