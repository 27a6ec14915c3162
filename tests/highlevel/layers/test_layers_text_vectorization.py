"""TextVectorization against Keras 3's documented outputs and TensorFlow's string ops'
rules (Keras computes it with TensorFlow, which /work/kvenv lacks: the expected values
are Keras's docstring examples and what the TF ops it calls define)."""
import numpy as np
import pytest

import paddle as pd

TV = pd.layers.TextVectorization


def test_keras_docstring_examples():
    layer = TV(max_tokens=5000, output_mode="int", output_sequence_length=4)
    layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    assert layer([["foo qux bar"], ["qux baz"]]).tolist() == [[4, 1, 3, 0], [1, 2, 0, 0]]
    given = TV(max_tokens=5000, output_sequence_length=4,
               vocabulary=["earth", "wind", "and", "fire"])
    assert given.get_vocabulary() == ["", "[UNK]", "earth", "wind", "and", "fire"]


def test_vocabulary_order_counts_then_tokens_descending():
    layer = TV()
    layer.adapt(np.array(["b a c", "a c", "c"]))
    assert layer.get_vocabulary() == ["", "[UNK]", "c", "a", "b"]
    capped = TV(max_tokens=4)
    capped.adapt(np.array(["b a c", "a c", "c"]))
    assert capped.get_vocabulary() == ["", "[UNK]", "c", "a"]


def test_standardize_as_tensorflow():
    layer = TV()
    # tf.strings.lower lowers ASCII only; Keras's regex strips ASCII punctuation
    layer.adapt(["Hello, World! HÉLLO it's"])
    assert layer.get_vocabulary(include_special_tokens=False) == [
        "world", "its", "hÉllo", "hello"]
    assert TV(standardize="lower", vocabulary=["a,b"])(["A,B x"]).tolist() == [[2, 1]]
    assert TV(standardize=None, vocabulary=["A"])(["A a"]).tolist() == [[2, 1]]
    # ASCII whitespace only separates tokens (a no-break space does not)
    assert TV(vocabulary=["a\xa0b"])(["  a\xa0b \t\n a  "]).tolist() == [[2, 1]]


def test_split_modes_and_ngrams():
    chars = TV(split="character", standardize=None, vocabulary=["a", "b"])
    assert chars(["ab", "b"]).tolist() == [[2, 3], [3, 0]]
    whole = TV(split=None, vocabulary=["x y"])
    assert whole(["x y", "z"]).tolist() == [2, 1]
    bigrams = TV(ngrams=2, vocabulary=["a", "b", "c", "a b", "b c"])
    assert bigrams(["a b c"]).tolist() == [[2, 3, 4, 5, 6]]
    only2 = TV(ngrams=(2,), vocabulary=["a b"])
    assert only2(["a b c"]).tolist() == [[2, 1]]
    custom = TV(standardize=None, split=lambda texts: [t.split("-") for t in texts],
                vocabulary=["p", "q"])
    assert custom(["p-q-r"]).tolist() == [[2, 3, 1]]


def test_encoded_output_modes():
    vocab = ["a", "b", "c"]
    multi = TV(output_mode="multi_hot", vocabulary=vocab)
    assert multi(["a a b", "z"]).tolist() == [[0, 1, 1, 0], [1, 0, 0, 0]]
    count = TV(output_mode="count", vocabulary=vocab)
    assert count(["a a b", "z"]).tolist() == [[0, 2, 1, 0], [1, 0, 0, 0]]
    padded = TV(output_mode="count", vocabulary=vocab, max_tokens=6, pad_to_max_tokens=True)
    assert padded(["c"]).shape == (1, 6)
    tfidf = TV(output_mode="tf_idf")
    tfidf.adapt(np.array(["a b", "a", "a c"]))
    # idf = log(1 + N / (1 + document count)); [UNK] gets their mean
    idf = np.log(1 + 3 / (1 + np.array([3, 1, 1])))
    assert tfidf.get_vocabulary() == ["[UNK]", "a", "c", "b"]
    np.testing.assert_allclose(tfidf(["a a z b"]), [[idf.mean(), 2 * idf[0], 0, idf[2]]],
                               rtol=1e-6)


def test_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="output_sequence_length is used in output_mode"):
        TV(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="expected standardize"):
        TV(standardize="upper")
    with pytest.raises(ValueError, match="last axis of size 1"):
        TV(vocabulary=["a"])(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match="set the vocabulary"):
        TV(output_mode="multi_hot")(["a"])
    with pytest.raises(TypeError, match="expected strings"):
        TV(vocabulary=["a"])(np.array([1, 2]))


def test_text_classification_model_trains_and_saves(tmp_path):
    pd.seed(0)
    texts = np.array([["good movie"], ["bad movie"], ["very good"], ["very bad film"]] * 4)
    labels = np.array([1, 0, 1, 0] * 4, np.float32)
    vectorize = TV(max_tokens=20, output_sequence_length=5)
    vectorize.adapt(texts)
    inp = pd.Input(shape=(1,), dtype="string")
    x = pd.layers.Embedding(20, 4)(vectorize(inp))
    out = pd.layers.Dense(1, activation="sigmoid")(pd.layers.GlobalAveragePooling1D()(x))
    model = pd.Model(inp, out)
    model.compile("adam", "binary_crossentropy")
    model.fit(texts, labels, epochs=2, batch_size=4, verbose=0)
    pred = model.predict(texts, verbose=0)
    model.save(tmp_path / "text.keras")
    again = pd.saving.load_model(tmp_path / "text.keras")
    loaded = [layer for layer in again.layers if isinstance(layer, TV)]
    assert loaded[0].get_vocabulary() == vectorize.get_vocabulary()
    np.testing.assert_allclose(again.predict(texts, verbose=0), pred, rtol=1e-6)


def test_adapt_on_an_iterable_of_batches():
    def batches():
        yield np.array(["x y"]), np.array([0])
        yield np.array(["y"]), np.array([1])
    layer = TV()
    layer.adapt(batches())
    assert layer.get_vocabulary() == ["", "[UNK]", "y", "x"]
