"""pd.utils.plot_model / model_to_dot: the DOT source names the layers and draws the DAG;
the pictures are real images; bad input leaves no file behind."""
import os

import numpy as np
import pytest

import paddle as pd

pydot = pytest.importorskip("pydot")
from pictures import check_png  # noqa: E402

needs_dot = pytest.mark.skipif(__import__("shutil").which("dot") is None,
                               reason="needs Graphviz's dot program")


def nodes(dot):
    return {n.get_name().strip('"'): n for n in dot.get_nodes()}


def edges(dot):
    return sorted((e.get_source().strip('"'), e.get_destination().strip('"'))
                  for e in dot.get_edges())


def convnet():
    return pd.Sequential([
        pd.layers.Input(shape=(8, 8, 1), name="image"),
        pd.layers.Conv2D(4, 3, activation="relu", name="conv"),
        pd.layers.MaxPooling2D(2, name="pool"),
        pd.layers.Flatten(name="flatten"),
        pd.layers.Dense(10, activation="softmax", name="probs"),
    ], name="convnet")


def branchy():
    inp = pd.Input(shape=(6,), name="x")
    left = pd.layers.Dense(4, name="left")(inp)
    right = pd.layers.Dense(4, name="right")(inp)
    added = pd.layers.Add(name="added")([left, right])
    joined = pd.layers.Concatenate(name="joined")([added, left])
    return pd.Model(inp, pd.layers.Dense(2, name="head")(joined), name="branchy")


@needs_dot
def test_sequential_png_names_every_layer(tmp_path):
    model = convnet()
    path = tmp_path / "model.png"
    dot = pd.utils.plot_model(model, to_file=path, show_shapes=True)
    width, height = check_png(path)
    assert height > width  # drawn top to bottom
    assert list(nodes(dot)) == ["image", "conv", "pool", "flatten", "probs"]
    assert edges(dot) == sorted([("image", "conv"), ("conv", "pool"), ("pool", "flatten"),
                                 ("flatten", "probs")])
    source = dot.to_string()
    for layer in model.layers:
        assert f"{layer.name} ({type(layer).__name__})" in source
    assert "output: (None, 6, 6, 4)" in source and "shape: (None, 8, 8, 1)" in source
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


@needs_dot
def test_branches_and_merges_are_a_dag(tmp_path):
    model = branchy()
    dot = pd.utils.model_to_dot(model, rankdir="LR")
    assert edges(dot) == sorted([("x", "left"), ("x", "right"), ("left", "added"),
                                 ("right", "added"), ("added", "joined"), ("left", "joined"),
                                 ("joined", "head")])
    assert dot.get_rankdir() == "LR"
    width, height = check_png(_draw(model, tmp_path / "lr.png", rankdir="LR"))
    assert width > height


def _draw(model, path, **kwargs):
    pd.utils.plot_model(model, to_file=path, **kwargs)
    return path


def test_labels_follow_the_options():
    model = convnet()
    plain = pd.utils.model_to_dot(model).to_string()
    assert "conv (Conv2D)" in plain and "output:" not in plain
    anonymous = nodes(pd.utils.model_to_dot(model, show_layer_names=False))
    assert anonymous["conv"].get_label().strip('"') == "Conv2D"
    typed = pd.utils.model_to_dot(model, show_dtype=True).to_string()
    assert "dtype: float32" in typed


@needs_dot
def test_nested_model_one_node_or_expanded(tmp_path):
    inner_in = pd.Input(shape=(8,), name="inner_x")
    inner = pd.Model(inner_in, pd.layers.Dense(3, name="inner_b")(
        pd.layers.Dense(5, name="inner_a")(inner_in)), name="encoder")
    inp = pd.Input(shape=(8,), name="outer_x")
    out = pd.layers.Dense(1, name="score")(inner(inp))
    model = pd.Model(inp, out, name="outer")

    dot = pd.utils.model_to_dot(model)
    assert list(nodes(dot)) == ["outer_x", "encoder", "score"]
    assert nodes(dot)["encoder"].get_label().strip('"') == "encoder (Model)"

    dot = pd.utils.plot_model(model, to_file=tmp_path / "nested.png", expand_nested=True,
                              show_shapes=True)
    check_png(tmp_path / "nested.png")
    clusters = dot.get_subgraphs()
    assert [c.get_name() for c in clusters] == ["cluster_encoder"]
    assert sorted(nodes(clusters[0])) == ["encoder/inner_a", "encoder/inner_b"]
    assert edges(dot) == [("encoder/inner_b", "score"), ("outer_x", "encoder/inner_a")]
    assert edges(clusters[0]) == [("encoder/inner_a", "encoder/inner_b")]


def test_subclassed_model_after_a_call():
    class Net(pd.Model):
        def __init__(self):
            super().__init__(name="net")
            self.first = pd.layers.Dense(4, name="first")
            self.second = pd.layers.Dense(2, name="second")

        def call(self, x, training=False):
            return self.second(pd.relu(self.first(x)))

    model = Net()
    with pytest.raises(ValueError, match="model_to_dot: the model 'net' is not built"):
        pd.utils.model_to_dot(model)
    model(np.ones((1, 3), np.float32))
    dot = pd.utils.model_to_dot(model)
    assert list(nodes(dot)) == ["net_input_0", "first", "second"]
    assert ("first", "second") in edges(dot)  # through the relu op between them


def test_dot_source_file(tmp_path):
    path = tmp_path / "model.dot"
    pd.utils.plot_model(branchy(), to_file=path)
    text = path.read_text()
    assert text.startswith("digraph") and "left -> added;" in text


# ---- bad input ----------------------------------------------------------------------------

def test_unbuilt_model_is_named_and_no_file_is_left(tmp_path):
    model = pd.Sequential([pd.layers.Dense(3)], name="no_input_yet")
    target = tmp_path / "model.png"
    target.write_bytes(b"old picture")
    with pytest.raises(ValueError, match="plot_model: the model 'no_input_yet' is not built"):
        pd.utils.plot_model(model, to_file=target)
    assert target.read_bytes() == b"old picture"
    assert os.listdir(tmp_path) == ["model.png"]


def test_missing_dot_program_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot here
    with pytest.raises(ImportError, match=r"Graphviz's `dot` program was not found.*"
                                          r"apt-get install graphviz"):
        pd.utils.plot_model(convnet(), to_file=tmp_path / "model.png")
    assert os.listdir(tmp_path) == []


@needs_dot
def test_failed_drawing_leaves_no_partial_file(tmp_path, monkeypatch):
    def broken(self, prog=None, format="ps", encoding=None):
        raise RuntimeError("dot crashed")
    monkeypatch.setattr(pydot.Dot, "create", broken)
    with pytest.raises(RuntimeError, match="dot crashed"):
        pd.utils.plot_model(convnet(), to_file=tmp_path / "model.png")
    assert os.listdir(tmp_path) == []


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match=r"image format from to_file .*model\.bmp"):
        pd.utils.plot_model(convnet(), to_file=tmp_path / "model.bmp")
    with pytest.raises(TypeError, match="expected a pd.Model .* received Dense"):
        pd.utils.plot_model(pd.layers.Dense(2), to_file=tmp_path / "model.png")
    with pytest.raises(ValueError, match="rankdir 'TB' or 'LR', received 'BT'"):
        pd.utils.model_to_dot(convnet(), rankdir="BT")
    with pytest.raises(OSError, match=r"plot_model: cannot write .*missing"):
        pd.utils.plot_model(convnet(), to_file=tmp_path / "missing" / "model.dot")
    assert os.listdir(tmp_path) == []
