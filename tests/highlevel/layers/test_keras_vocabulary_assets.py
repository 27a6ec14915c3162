"""Adapted vocabularies travel as Keras writes them: `assets/.../vocabulary.txt` in a
`.keras` file (and tf_idf's `idf_weights` with the layer's variables). The two files in
keras_files/ were written by real Keras 3.15.1 on TensorFlow (make_adapted_lookups.py);
the expected outputs are what that Keras model gave."""
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
