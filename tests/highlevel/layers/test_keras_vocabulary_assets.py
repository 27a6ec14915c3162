"""Adapted vocabularies travel as Keras writes them: `assets/.../vocabulary.txt` in a
`.keras` file (and tf_idf's `idf_weights` with the layer's variables). The two files in
keras_files/ were written by real Keras 3.15.1 on TensorFlow (make_adapted_lookups.py);
the expected outputs are what that Keras model gave. Adapted multi_hot / count / tf_idf
layers: a file built here in Keras's format, and files real Keras writes in the test (with
the Python PADDLE_KERAS_PYTHON names, /work/kvenv's by default; skipped without one)."""
import os
import zipfile

import numpy as np
import pytest

import paddle as pd

FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_files")


def test_keras_adapted_lookups_load_with_their_vocabularies():
    model = pd.saving.load_model(os.path.join(FILES, "adapted_lookups.keras"))
    words, numbers = model.predict([np.array([["a"], ["b"], ["z"]]),
                                    np.array([[7], [9], [1]])], verbose=0)
    assert words.tolist() == [[2], [1], [0]] and numbers.tolist() == [[1], [2], [0]]
    vocabularies = [layer.get_vocabulary() for layer in model.layers
                    if hasattr(layer, "get_vocabulary")]
    assert vocabularies == [["[UNK]", "b", "a", "c"], [-1, 7, 9, 3]]


def test_keras_adapted_text_vectorization_loads_with_its_vocabulary():
    model = pd.saving.load_model(os.path.join(FILES, "adapted_text_vectorization.keras"))
    out = model.predict(np.array(["the cat", "dog down up"]), verbose=0)
    assert out.tolist() == [[2, 4, 0, 0, 0], [6, 5, 1, 0, 0]]


def test_paddle_writes_the_vocabulary_asset_as_keras(tmp_path):
    lookup = pd.layers.StringLookup(output_mode="tf_idf")
    lookup.adapt(np.array([["x"], ["y"], ["x"]]))
    inp = pd.Input(shape=(1,), dtype="string")
    model = pd.Model(inp, lookup(inp))
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        assets = [n for n in z.namelist() if n.endswith("vocabulary.txt")]
        assert len(assets) == 1
        assert z.read(assets[0]).decode().split("\n") == ["[UNK]", "x", "y"]
    again = pd.saving.load_model(path)
    x = np.array([["x"], ["z"]])
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0))


def test_a_vocabulary_asset_that_is_not_integers_is_refused(tmp_path):
    layer = pd.layers.IntegerLookup()
    (tmp_path / "vocabulary.txt").write_text("-1\n7\nseven\n")
    with pytest.raises(ValueError, match="is not an integer \\('seven'\\)"):
        layer.load_assets(str(tmp_path))


# ---- an adapted multi_hot / count / tf_idf layer: its output width comes from the config ----
# Keras writes an adapted layer's config with vocabulary None and `vocabulary_size`, the
# vocabulary as an asset and tf_idf's weights as the variable `idf_weights` (of the
# TextVectorization and of the StringLookup inside it). Values below: Keras 3.15.1 (JAX
# backend, TextVectorization(max_tokens=12, output_mode=...) adapted on TEXTS, called on
# PROBE).
TEXTS = ["the cat sat", "the dog sat down", "a cat and a dog", "the end"]
PROBE = np.array(["the cat", "dog dog unknown", ""])
VOCABULARY = ["[UNK]", "the", "sat", "dog", "cat", "a", "end", "down", "and"]
IDF = np.array([0.95368624, 0.6931472, 0.84729785, 0.84729785, 0.84729785, 1.0986123,
                1.0986123, 1.0986123, 1.0986123], np.float32)
KERAS_TF_IDF = [[0.0, 0.6931471824645996, 0.0, 0.0, 0.8472978472709656, 0, 0, 0, 0],
                [0.9536862373352051, 0.0, 0.0, 1.6945956945419312, 0.0, 0, 0, 0, 0],
                [0.0] * 9]
KERAS_COUNT = [[0, 1, 0, 0, 1, 0, 0, 0, 0], [1, 0, 0, 2, 0, 0, 0, 0, 0], [0] * 9]


def _keras_file(path, mode, vocabulary=VOCABULARY, idf=IDF, size=None):
    """A .keras file as Keras 3.15 writes a model Input(string) -> adapted
    TextVectorization (config.json, model.weights.h5, the vocabulary assets)."""
    import json
    import h5py
    layer = {"name": "text_vectorization", "trainable": True,
             "dtype": {"module": "keras", "class_name": "DTypePolicy",
                       "config": {"name": "float32"}, "registered_name": None},
             "max_tokens": 12, "standardize": "lower_and_strip_punctuation",
             "split": "whitespace", "ngrams": None, "output_mode": mode,
             "output_sequence_length": None, "pad_to_max_tokens": False, "sparse": False,
             "ragged": False, "vocabulary": None, "idf_weights": None, "encoding": "utf-8",
             "vocabulary_size": size or len(vocabulary)}
    tensor = {"class_name": "__keras_tensor__", "config": {
        "shape": [None], "dtype": "string", "keras_history": ["input_layer", 0, 0]}}
    config = {"module": "keras.src.models.functional", "class_name": "Functional",
              "config": {"name": "functional", "trainable": True, "layers": [
                  {"module": "keras.layers", "class_name": "InputLayer",
                   "config": {"batch_shape": [None], "dtype": "string", "sparse": False,
                              "ragged": False, "name": "input_layer", "optional": False},
                   "registered_name": None, "name": "input_layer", "inbound_nodes": []},
                  {"module": "keras.layers", "class_name": "TextVectorization",
                   "config": layer, "registered_name": None,
                   "build_config": {"input_shape": [None]}, "name": "text_vectorization",
                   "inbound_nodes": [{"args": [tensor], "kwargs": {}}]}],
                  "input_layers": ["input_layer", 0, 0],
                  "output_layers": ["text_vectorization", 0, 0]},
              "registered_name": "Functional", "build_config": {"input_shape": None},
              "compile_config": None}
    weights = path.parent / "model.weights.h5"
    with h5py.File(weights, "w") as f:
        f.create_group("vars").attrs["name"] = "functional"
        f.create_group("layers/input_layer/vars")
        for group in ("layers/text_vectorization/vars",
                      "layers/text_vectorization/_lookup_layer/vars"):
            g = f.create_group(group)
            if mode == "tf_idf":
                g.create_dataset("idf_weights", data=idf)
    text = "\n".join(vocabulary)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "3.15.1"}))
        z.writestr("config.json", json.dumps(config))
        z.write(weights, "model.weights.h5")
        z.writestr("assets/layers/text_vectorization/vocabulary.txt", text)
        z.writestr("assets/layers/text_vectorization/_lookup_layer/vocabulary.txt", text)
    return str(path)


@pytest.mark.parametrize("mode, expected", [("tf_idf", KERAS_TF_IDF), ("count", KERAS_COUNT),
                                            ("multi_hot", np.minimum(KERAS_COUNT, 1))])
def test_keras_adapted_encoding_text_vectorization_loads(tmp_path, mode, expected):
    model = pd.saving.load_model(_keras_file(tmp_path / "m.keras", mode))
    layer = model.layers[-1]
    assert layer.get_vocabulary() == VOCABULARY
    np.testing.assert_allclose(model.predict(PROBE, verbose=0), expected, rtol=1e-6)
    if mode == "tf_idf":
        np.testing.assert_array_equal(layer._lookup_layer.idf_weights, IDF)
    # saved again by paddle, it loads again with the same outputs
    model.save(str(tmp_path / "again.keras"))
    again = pd.saving.load_model(str(tmp_path / "again.keras"))
    np.testing.assert_allclose(again.predict(PROBE, verbose=0), expected, rtol=1e-6)


def test_a_vocabulary_asset_of_another_size_is_refused(tmp_path):
    path = _keras_file(tmp_path / "m.keras", "count", size=12)
    with pytest.raises(pd.errors.CheckpointError, match="vocabulary of 12 entries"):
        pd.saving.load_model(path)
    # no asset: the config alone cannot give the vocabulary, and says so when called
    layer = pd.layers.StringLookup(output_mode="count", vocabulary_size=4)
    pd.Model(inp := pd.Input(shape=(2,), dtype="string"), layer(inp))
    with pytest.raises(ValueError, match="set the vocabulary"):
        layer(np.array([["a", "b"]]))


@pytest.fixture(scope="module")
def keras_written(tmp_path_factory):
    """(folder, outputs) of .keras files real Keras wrote (once for the module's devices)."""
    import json
    import subprocess
    python = os.environ.get("PADDLE_KERAS_PYTHON", "/work/kvenv/bin/python")
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        pytest.skip("needs a Python with Keras 3: set PADDLE_KERAS_PYTHON")
    tmp_path = tmp_path_factory.mktemp("keras_written")
    script = f"""
import json, numpy as np, keras
out = {{}}
for mode in ("tf_idf", "count", "multi_hot"):
    layer = keras.layers.TextVectorization(max_tokens=12, output_mode=mode, ngrams=2)
    layer.adapt(np.array({TEXTS!r}))
    inp = keras.Input(shape=(), dtype="string")
    keras.Model(inp, layer(inp)).save({str(tmp_path)!r} + "/" + mode + ".keras")
    out[mode] = np.asarray(layer(np.array({PROBE.tolist()!r}))).tolist()
lookup = keras.layers.StringLookup(output_mode="tf_idf", num_oov_indices=2)
lookup.adapt(np.array([["a", "b"], ["a", "c"], ["d", "a"]]))
inp = keras.Input(shape=(2,), dtype="string")
keras.Model(inp, lookup(inp)).save({str(tmp_path)!r} + "/lookup.keras")
out["lookup"] = np.asarray(lookup(np.array([["a", "c"], ["b", "zz"]]))).tolist()
print(json.dumps(out))
"""
    done = subprocess.run([python, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ, KERAS_BACKEND="jax"), timeout=600)
    if done.returncode and "No module named 'keras'" in done.stderr:
        pytest.skip(f"{python} has no Keras: set PADDLE_KERAS_PYTHON")
    assert done.returncode == 0, done.stderr[-2000:]
    return tmp_path, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_file_written_by_real_keras_gives_keras_outputs(keras_written):
    tmp_path, expected = keras_written
    for mode in ("tf_idf", "count", "multi_hot"):
        model = pd.saving.load_model(str(tmp_path / f"{mode}.keras"))
        np.testing.assert_allclose(model.predict(PROBE, verbose=0), expected[mode],
                                   rtol=1e-6, err_msg=mode)
    model = pd.saving.load_model(str(tmp_path / "lookup.keras"))
    np.testing.assert_allclose(model.predict(np.array([["a", "c"], ["b", "zz"]]), verbose=0),
                               expected["lookup"], rtol=1e-6)
