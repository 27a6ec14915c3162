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
    # FarmHash Fingerprint64's published values, one per length branch (0-16, 17-32,
    # 33-64, more): Guava's FarmHashFingerprint64Test and BigQuery's FARM_FINGERPRINT docs
    published = {b"test": 8581389452482819506, b"test" * 8: -4196240717365766262,
                 b"test" * 64: 3500507768004279527, b"alphabet": -2427165924636348523,
                 b"2applefalse": 2794438866806483259, b"3true": -4880158226897771312,
                 b"F7479877-4690-4A44-AFC9-8FE987EA512F:some_other_id": 6862335115798125349,
                 b"dXB@tDQ-v5<H]rq2Pcc*s>nC-[Mdy": 8365906589669344754}
    for text, value in published.items():
        assert fingerprint64(text) == value % 2 ** 64, text
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


def test_hashed_crossing_keras_docstring_values():
    feat1 = np.array(["A", "B", "A", "B", "A"])
    feat2 = np.array([101, 101, 101, 102, 102])
    assert L.HashedCrossing(num_bins=5)((feat1, feat2)).tolist() == [1, 4, 1, 1, 3]
    hot = L.HashedCrossing(num_bins=5, output_mode="one_hot")((feat1, feat2))
    assert hot.argmax(-1).tolist() == [1, 4, 1, 1, 3] and hot.shape == (5, 5)
    a = pd.Input(shape=(1,), dtype="string")
    b = pd.Input(shape=(1,), dtype="int64")
    model = pd.Model([a, b], L.HashedCrossing(5)([a, b]))
    assert model.predict([feat1[:, None], feat2[:, None]], verbose=0)[:, 0].tolist() == \
        [1, 4, 1, 1, 3]
    with pytest.raises(ValueError, match="at least two features"):
        L.HashedCrossing(5)(feat1)


def _frame(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return {"age": rng.uniform(20, 70, n).astype(np.float32),
            "thal": rng.choice(["fixed", "normal", "reversible"], n),
            "sex": rng.integers(0, 2, n),
            "chol": rng.uniform(100, 300, n).astype(np.float32)}


def test_feature_space_encodes_as_its_layers():
    data = _frame()
    space = pd.utils.FeatureSpace(
        features={"age": "float_normalized", "thal": "string_categorical",
                  "sex": "integer_categorical",
                  "chol": pd.utils.FeatureSpace.float_discretized(num_bins=4)},
        crosses=[pd.utils.FeatureSpace.cross(("sex", "thal"), crossing_dim=8)],
        output_mode="concat")
    space.adapt(data)
    out = space(data)
    # sorted features, then the cross: age 1, chol 4 bins, sex 1+2, thal 1+3, cross 8
    assert out.shape == (40, 1 + 4 + 3 + 4 + 8) and out.dtype == np.float32
    mean, std = data["age"].mean(), data["age"].std()
    np.testing.assert_allclose(out[:, 0], (data["age"] - mean) / std, rtol=1e-4, atol=1e-5)
    thal = space.preprocessors["thal"]
    np.testing.assert_array_equal(out[:, 8:12].argmax(1), thal(data["thal"][:, None])[:, 0])
    crossed = space.crossers["sex_X_thal"]((space.preprocessors["sex"](data["sex"][:, None]),
                                            thal(data["thal"][:, None])))
    np.testing.assert_array_equal(out[:, 12:].argmax(1), crossed[:, 0])
    assert np.all(out[:, 1:5].sum(1) == 1) and np.all(out[:, 12:].sum(1) == 1)
    single = space({k: v[0] for k, v in data.items()})
    np.testing.assert_allclose(single, out[0], rtol=1e-6)


def test_feature_space_model_trains_on_raw_dicts(tmp_path):
    pd.seed(0)
    data = _frame(64)
    labels = (data["sex"] == 1).astype(np.float32)
    space = pd.utils.FeatureSpace({"age": "float_normalized", "thal": "string_categorical",
                                   "sex": "integer_categorical"}, output_mode="concat")

    def batches():
        for i in range(0, 64, 16):
            yield {k: v[i:i + 16] for k, v in data.items()}, labels[i:i + 16]
    space.adapt(batches())
    inputs = space.get_inputs()
    out = pd.layers.Dense(1, activation="sigmoid")(space.get_encoded_features())
    model = pd.Model(inputs, out)
    model.compile("adam", "binary_crossentropy")
    x = {k: data[k][:, None] for k in ("age", "thal", "sex")}
    model.fit(x, labels, epochs=3, batch_size=16, verbose=0)
    pred = model.predict(x, verbose=0)
    model.save(tmp_path / "fs.keras")
    np.testing.assert_allclose(pd.saving.load_model(tmp_path / "fs.keras").predict(
        x, verbose=0), pred, rtol=1e-5)
    with pytest.raises(ValueError, match="unknown type"):
        pd.utils.FeatureSpace({"a": "float_magic"})
    with pytest.raises(ValueError, match="call adapt"):
        pd.utils.FeatureSpace({"a": "string_categorical"})({"a": np.array(["x"])})


def test_subclassed_model_reads_strings():
    class Words(pd.Model):
        def __init__(self):
            super().__init__()
            self.lookup = L.StringLookup(vocabulary=["a", "b"], output_mode="one_hot")
            self.dense = L.Dense(1)

        def call(self, x):
            return self.dense(self.lookup(x))

    model = Words()
    model.compile("sgd", "mse")
    x = np.array([["a"], ["b"], ["c"]])
    model.fit(x, np.ones((3, 1), np.float32), epochs=1, verbose=0)
    assert model.predict(x, verbose=0).shape == (3, 1) and model(x).shape == (3, 1)
