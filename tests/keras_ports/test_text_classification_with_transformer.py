"""keras-io `examples/nlp/text_classification_with_transformer.py` ("Text classification
with Transformer", Apoorv Nandan; Keras 3 version), ported by renaming `keras` to `pd`
(`from keras import ops` is `from paddle import ops`).

The data is the only other change: `keras.datasets.imdb.load_data` downloads 50,000
reviews, so `imdb_like.imdb.load_data` makes 128 + 64 synthetic reviews of the same form
(lists of word indices below `vocab_size`, padded to `maxlen` = 200), and the program's 2
epochs run over those. The test checks what the program shows: Keras's summary (the two
custom layers' parameter counts included), that it learns, and the custom layers'
`call(self, inputs)` without a `training` argument (dropout still follows `fit`).
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import layers, ops

from keras_ports.imdb_like import imdb
from keras_ports.summaries import assert_summary, printed_summary

# Keras 3.15.1 (JAX backend) prints for this model (the unchanged program's model part; the
# names dropout, dropout_1 and dropout_2 went to TransformerBlock's two Dropout layers and
# the one MultiHeadAttention keeps for its attention probabilities):
KERAS_SUMMARY = [
    ("token_and_position_embedding", (None, 200, 32), 646_400),
    ("transformer_block", (None, 200, 32), 10_656),
    ("global_average_pooling1d", (None, 32), 0),
    ("dropout_3", (None, 32), 0),
    ("dense_2", (None, 20), 660),
    ("dropout_4", (None, 20), 0),
    ("dense_3", (None, 2), 42),
]
KERAS_TOTAL = 657_758
# Keras's weights of the transformer block, by path (model.weights).
KERAS_BLOCK_WEIGHTS = [
    ("multi_head_attention/query/kernel", (32, 2, 32)), ("multi_head_attention/query/bias", (2, 32)),
    ("multi_head_attention/key/kernel", (32, 2, 32)), ("multi_head_attention/key/bias", (2, 32)),
    ("multi_head_attention/value/kernel", (32, 2, 32)), ("multi_head_attention/value/bias", (2, 32)),
    ("multi_head_attention/attention_output/kernel", (2, 32, 32)),
    ("multi_head_attention/attention_output/bias", (32,)),
]


# ---- the program's layers, as keras-io writes them ----
class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = pd.Sequential(
            [
                layers.Dense(ff_dim, activation="relu"),
                layers.Dense(embed_dim),
            ]
        )
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output)
        return self.layernorm2(out1 + ffn_output)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        maxlen = ops.shape(x)[-1]
        positions = ops.arange(start=0, stop=maxlen, step=1)
        positions = self.pos_emb(positions)
        x = self.token_emb(x)
        return x + positions
# ---- end of the program's layers ----


@pytest.mark.slow
def test_text_classification_with_transformer():
    gc.collect()  # layer names are global and held weakly: free the names earlier tests took
    pd.utils.set_random_seed(0)

    # ---- the program, as keras-io writes it ----
    vocab_size = 20000  # Only consider the top 20k words
    maxlen = 200  # Only consider the first 200 words of each movie review
    (x_train, y_train), (x_val, y_val) = imdb.load_data(num_words=vocab_size)
    print(len(x_train), "Training sequences")
    print(len(x_val), "Validation sequences")
    x_train = pd.utils.pad_sequences(x_train, maxlen=maxlen)
    x_val = pd.utils.pad_sequences(x_val, maxlen=maxlen)

    embed_dim = 32  # Embedding size for each token
    num_heads = 2  # Number of attention heads
    ff_dim = 32  # Hidden layer size in feed forward network inside transformer

    inputs = layers.Input(shape=(maxlen,))
    embedding_layer = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)
    x = embedding_layer(inputs)
    transformer_block = TransformerBlock(embed_dim, num_heads, ff_dim)
    x = transformer_block(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    x = layers.Dense(20, activation="relu")(x)
    x = layers.Dropout(0.1)(x)
    outputs = layers.Dense(2, activation="softmax")(x)

    model = pd.Model(inputs=inputs, outputs=outputs)

    model.compile(
        optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"]
    )
    history = model.fit(
        x_train, y_train, batch_size=32, epochs=2, validation_data=(x_val, y_val),
        verbose=0,
    )
    # ---- end of the program ----

    assert_summary(printed_summary(model), KERAS_SUMMARY, KERAS_TOTAL, inputs=[(None, 200)])
    assert model.count_params() == KERAS_TOTAL
    block_weights = [tuple(w.shape) for w in transformer_block.weights]
    for _, shape in KERAS_BLOCK_WEIGHTS:
        assert shape in block_weights, (shape, block_weights)
    assert embedding_layer.count_params() == vocab_size * embed_dim + maxlen * embed_dim

    losses = history.history["loss"]
    assert losses[-1] < losses[0], losses
    assert history.history["val_accuracy"][-1] > 0.75, history.history  # chance: 0.5

    # Inference is deterministic (the Dropout layers inside `call(self, inputs)` are off),
    # training mode is not (they are on).
    first = model.predict(x_val[:16], verbose=0)
    np.testing.assert_array_equal(first, model.predict(x_val[:16], verbose=0))
    assert first.shape == (16, 2)
    np.testing.assert_allclose(first.sum(axis=1), 1.0, rtol=1e-5)
    # (an explicit training=True call: dropout on in the block and the head)
    noisy = pd.eval(model(pd.constant(x_val[:16].astype(np.float32)), training=True),
                    training=True)
    assert not np.allclose(noisy, first)
