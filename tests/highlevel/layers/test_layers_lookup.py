"""StringLookup, IntegerLookup and Hashing against Keras's numbers, and the string path
through a model (fit, predict, save/load) on the host.

Keras 3.15 computes these layers with TensorFlow (which /work/kvenv lacks), so the
expected values are the outputs printed in Keras's own docstrings (string_lookup.py,
integer_lookup.py, hashing.py) and TensorFlow's `to_hash_bucket_fast` documentation.
"""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.layers.farmhash import fingerprint64

L = pd.layers
DATA = [["a", "c", "d"], ["d", "z", "b"]]
DOCS = [["a", "c", "d", "d"], ["d", "z", "b", "z"]]


def test_string_lookup_keras_docstring_values():
    assert L.StringLookup(vocabulary=list("abcd"))(DATA).tolist() == [[1, 3, 4], [4, 0, 2]]
    layer = L.StringLookup()
    layer.adapt(DATA)
    assert layer.get_vocabulary() == ["[UNK]", "d", "z", "c", "b", "a"]
    assert layer(DATA).tolist() == [[5, 3, 1], [1, 2, 4]]
    two = L.StringLookup(vocabulary=list("abcd"), num_oov_indices=2)
    assert two([["a", "c", "d"], ["m", "z", "b"]]).tolist() == [[2, 4, 5], [0, 1, 3]]
    one_hot = L.StringLookup(vocabulary=list("abcd"), output_mode="one_hot")
    np.testing.assert_array_equal(one_hot(["a", "b", "c", "d", "z"]),
                                  np.eye(5)[[1, 2, 3, 4, 0]])
    multi = L.StringLookup(vocabulary=list("abcd"), output_mode="multi_hot")
    assert multi(DOCS).tolist() == [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]]
    count = L.StringLookup(vocabulary=list("abcd"), output_mode="count")
    assert count(DOCS).tolist() == [[0, 1, 0, 1, 2], [2, 0, 1, 0, 1]]
    tfidf = L.StringLookup(output_mode="tf_idf")
    tfidf.set_vocabulary(list("abcd"), idf_weights=[0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(tfidf(DOCS), [[0, 0.25, 0, 0.6, 0.8], [1.0, 0, 0.75, 0, 0.4]],
                               rtol=1e-6)
    tfidf.set_vocabulary(["[UNK]"] + list("abcd"), idf_weights=[0.9, 0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(tfidf(DOCS), [[0, 0.25, 0, 0.6, 0.8], [1.8, 0, 0.75, 0, 0.4]],
                               rtol=1e-6)
    inverse = L.StringLookup(vocabulary=list("abcd"), invert=True)
    assert inverse([[1, 3, 4], [4, 0, 2]]).tolist() == [["a", "c", "d"], ["d", "[UNK]", "b"]]


def test_string_lookup_mask_and_errors():
    layer = L.StringLookup(vocabulary=list("ab"), mask_token="")
    assert layer([["a", "", "q"]]).tolist() == [[2, 0, 1]]
    assert layer.get_vocabulary() == ["", "[UNK]", "a", "b"]
    with pytest.raises(ValueError, match="repeats the terms"):
        L.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="num_oov_indices=0 every input"):
        L.StringLookup(vocabulary=["a"], num_oov_indices=0)([["b"]])
    with pytest.raises(ValueError, match="undecodable bytes"):
        L.StringLookup(vocabulary=["a"])(np.array([b"\xff\xfe"], object))
    with pytest.raises(ValueError, match="more than max_tokens=2"):
        L.StringLookup(vocabulary=["a", "b"], max_tokens=2)


def test_integer_lookup_keras_docstring_values():
    vocab = [12, 36, 1138, 42]
    data = [[12, 1138, 42], [42, 1000, 36]]
    assert L.IntegerLookup(vocabulary=vocab)(data).tolist() == [[1, 3, 4], [4, 0, 2]]
    layer = L.IntegerLookup()
    layer.adapt(np.array([[12, 1138, 42], [42, 1000, 36]]))
    assert layer.get_vocabulary() == [-1, 42, 1138, 1000, 36, 12]
    two = L.IntegerLookup(vocabulary=vocab, num_oov_indices=2)
    assert two([[12, 1138, 42], [37, 1000, 36]]).tolist() == [[2, 4, 5], [1, 0, 3]]
    masked = L.IntegerLookup(vocabulary=vocab, mask_token=0)
    assert masked([[12, 1138, 42], [42, 0, 36]]).tolist() == [[2, 4, 5], [5, 0, 3]]
    inverse = L.IntegerLookup(vocabulary=vocab, invert=True)
    assert inverse([[1, 3, 4], [4, 0, 2]]).tolist() == [[12, 1138, 42], [42, -1, 36]]


def test_hashing_matches_keras_and_tensorflow():
    layer = L.Hashing(num_bins=3)
    assert layer([["A"], ["B"], ["C"], ["D"], ["E"]]).tolist() == [[1], [0], [1], [1], [2]]
    masked = L.Hashing(num_bins=3, mask_value="")
    assert masked([["A"], ["B"], [""], ["C"], ["D"]]).tolist() == [[1], [1], [0], [2], [2]]
    # tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3) == [0, 2, 2]
    assert [fingerprint64(s) % 3 for s in (b"Hello", b"TensorFlow", b"2.x")] == [0, 2, 2]
    # every length branch of the fingerprint runs and stays in 64 bits
    for n in (0, 3, 7, 15, 20, 40, 64, 65, 200):
        assert 0 <= fingerprint64(bytes(range(n % 256)) * 1 if n < 256 else b"") < 2 ** 64
    with pytest.raises(ValueError, match="salt"):
        L.Hashing(num_bins=3, salt=133)


def _structured_model():
    thal = pd.Input(shape=(1,), dtype="string", name="thal")
    age = pd.Input(shape=(1,), name="age")
    ids = L.StringLookup(vocabulary=["fixed", "normal", "reversible"])(thal)
    hot = L.CategoryEncoding(num_tokens=4, output_mode="one_hot")(ids)
    x = L.Concatenate()([hot, age])
    return pd.Model([thal, age], L.Dense(1, activation="sigmoid")(x))


def test_string_inputs_fit_predict_save(tmp_path):
    pd.seed(0)
    model = _structured_model()
    model.compile("adam", "binary_crossentropy")
    thal = np.array([["fixed"], ["normal"], ["odd"], ["reversible"]] * 8, dtype=object)
    age = np.linspace(0, 1, 32, dtype=np.float32).reshape(32, 1)
    y = (np.arange(32) % 2).reshape(32, 1).astype(np.float32)
    history = model.fit([thal, age], y, epochs=3, batch_size=8, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    pred = model.predict([thal, age], verbose=0)
    assert pred.shape == (32, 1)
    # str_ arrays and object arrays of bytes are the same strings
    as_str = model.predict([thal.astype(str), age], verbose=0)
    as_bytes = model.predict([np.char.encode(thal.astype(str)), age],
                             verbose=0)
    np.testing.assert_array_equal(pred, as_str)
    np.testing.assert_array_equal(pred, as_bytes)
    model.save(tmp_path / "m.keras")
    again = pd.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(again.predict([thal, age], verbose=0), pred,
                               rtol=1e-6)


def test_adapted_vocabulary_is_saved(tmp_path):
    text = pd.Input(shape=(2,), dtype="string")
    lookup = L.StringLookup(output_mode="multi_hot")
    lookup.adapt(np.array([["x", "y"], ["y", "w"]]))
    model = pd.Model(text, L.Dense(2)(lookup(text)))
    data = np.array([["w", "x"], ["q", "y"]])
    before = model.predict(data, verbose=0)
    model.save(tmp_path / "m.keras")
    np.testing.assert_allclose(pd.saving.load_model(tmp_path / "m.keras").predict(
        data, verbose=0), before, rtol=1e-6)


def test_strings_never_reach_an_op():
    text = pd.Input(shape=(1,), dtype="string", name="words")
    with pytest.raises(TypeError, match="received the string input"):
        L.Dense(2)(text)
    number = pd.Input(shape=(1,))
    model = pd.Model(number, L.Dense(1)(number))
    with pytest.raises(TypeError, match="expected numeric data, received an array of strings"):
        model.predict(np.array([["a"]]), verbose=0)
    lookup_model = pd.Model(text, L.StringLookup(vocabulary=["a"])(text))
    with pytest.raises(TypeError, match="expected strings for the string input"):
        lookup_model.predict(np.zeros((2, 1), np.float32), verbose=0)
    with pytest.raises(TypeError, match="runs on the host"):
        L.IntegerLookup(vocabulary=[1])(L.Dense(1)(number))
