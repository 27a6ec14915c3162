"""ONNX export of whole models (the digits convnet), and bad input: unbuilt models,
untraceable subclassed models and unmapped layers are errors naming them, leaving no file."""
import os
import re
import sys

import numpy as np
import pytest

import paddle as pd

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
L = pd.layers
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples")


def session(path):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def test_digits_convnet_matches_predict(tmp_path):
    sys.path.insert(0, EXAMPLES)
    try:
        from digits_convnet import build_model, load
    finally:
        sys.path.remove(EXAMPLES)
    pd.seed(0)
    x, y = load(pd.dataset.digits.train())
    model = build_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x[:512], y[:512], batch_size=64, epochs=1, verbose=0)
    path = tmp_path / "digits.onnx"
    model.export(path, format="onnx")
    run = session(path)
    (name,) = [i.name for i in run.get_inputs()]
    rng = np.random.default_rng(0)
    for batch in (rng.uniform(0, 16, size=(7, 8, 8, 1)).astype(np.float32),
                  rng.normal(size=(1, 8, 8, 1)).astype(np.float32), x[:100]):
        (probs,) = run.run(None, {name: batch})
        np.testing.assert_allclose(probs, model.predict(batch, verbose=0), rtol=1e-5,
                                   atol=1e-5)
    proto = onnx.load(str(path))
    ops = [n.op_type for n in proto.graph.node]
    assert ops.count("Conv") == 2 and ops.count("MaxPool") == 2
    assert ops.count("Transpose") == 2  # NHWC in, NCHW back before Flatten: edges only
    dims = proto.graph.output[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_value == 10


def test_export_returns_nothing_and_overwrites_atomically(tmp_path):
    model = pd.Sequential([L.Input(shape=(3,)), L.Dense(2)])
    path = tmp_path / "m.onnx"
    path.write_bytes(b"old")
    assert model.export(str(path)) is None  # format defaults to "onnx"
    assert onnx.load(str(path)).graph.node
    assert os.listdir(tmp_path) == ["m.onnx"]


# ---- bad input ----------------------------------------------------------------------------

def no_file_left(tmp_path, existing=()):
    assert sorted(os.listdir(tmp_path)) == sorted(existing)


def test_unbuilt_models_are_named(tmp_path):
    model = pd.Sequential([L.Dense(3)], name="shapeless")
    with pytest.raises(ValueError, match="export: the model 'shapeless' is not built"):
        model.export(tmp_path / "m.onnx", format="onnx")

    class Net(pd.Model):
        def __init__(self):
            super().__init__(name="never_called")
            self.dense = L.Dense(2)

        def call(self, x, training=False):
            return self.dense(x)

    with pytest.raises(pd.ExportError, match="'never_called' is not built"):
        Net().export(tmp_path / "m.onnx")
    no_file_left(tmp_path)


def matches_predict(model, path, *inputs, atol=1e-5):
    model.export(path, format="onnx")
    run = session(path)
    names = [i.name for i in run.get_inputs()]
    got = run.run(None, dict(zip(names, inputs)))[0]
    np.testing.assert_allclose(got, model.predict(list(inputs) if len(inputs) > 1 else
                                                  inputs[0], verbose=0), atol=atol)


def test_ops_outside_layers_are_exported_op_by_op(tmp_path):
    # Until the exporter mapped the graph's ops, this was "it computes the op 'mul' outside
    # any layer": export what the model computes, not a table of layer classes.
    class Scaled(pd.Model):
        def __init__(self):
            super().__init__(name="scaled_net")
            self.dense = L.Dense(2)

        def call(self, x, training=False):
            return self.dense(x) * 2.0

    model = Scaled()
    model(np.ones((1, 3), np.float32))
    matches_predict(model, tmp_path / "m.onnx", np.random.rand(4, 3).astype(np.float32))


@pytest.mark.parametrize("make", [
    lambda x: L.Lambda(lambda t: t * 2.0 - pd.ops.exp(t), name="doubler")(x),
    lambda x: L.MultiHeadAttention(2, 4, name="attend")(x, x),
    lambda x: L.LayerNormalization()(L.ZeroPadding1D(1)(x)[:, 1:-1, :] + x),
])
def test_layers_without_a_mapping_are_exported_op_by_op(tmp_path, make):
    x = L.Input(shape=(4, 3))
    model = pd.Model(x, make(x), name="has_unmapped")
    data = np.random.default_rng(0).normal(size=(2, 4, 3)).astype(np.float32)
    matches_predict(model, tmp_path / "m.onnx", data)


def test_an_op_without_a_mapping_names_the_op_the_layer_and_the_line(tmp_path):
    class Hot(L.Layer):
        def call(self, x):
            return pd.ops.one_hot(pd.ops.argmax(x, axis=-1), 3)  # ops without a mapping

    x = L.Input(shape=(3,))
    model = pd.Model(x, Hot(name="hot")(x), name="with_one_hot")
    target = tmp_path / "m.onnx"
    target.write_bytes(b"previous export")
    with pytest.raises(ValueError, match=r"export: with_one_hot: the op '\w+' in layer "
                                         r"'hot' \(built at .*test_onnx_model.py:\d+\) has "
                                         r"no ONNX mapping"):
        model.export(target)
    assert target.read_bytes() == b"previous export"
    no_file_left(tmp_path, ["m.onnx"])


def test_custom_activation_is_named(tmp_path):
    def wiggle(x):
        return x * pd.sigmoid(x * 3.0)
    model = pd.Sequential([L.Input(shape=(3,)), L.Dense(2, activation=wiggle, name="wavy")])
    with pytest.raises(ValueError, match=r"wavy: its activation 'wiggle' is not a built-in"):
        model.export(tmp_path / "m.onnx")
    no_file_left(tmp_path)


def test_layer_without_a_mapping_inside_a_nested_model(tmp_path):
    inner_in = L.Input(shape=(3,))
    inner = pd.Model(inner_in, L.Lambda(lambda t: t + 1.0, name="plus_one")(inner_in),
                     name="inner_block")
    model = pd.Sequential([L.Input(shape=(3,)), inner])
    matches_predict(model, tmp_path / "m.onnx", np.random.rand(2, 3).astype(np.float32))


def test_bad_arguments(tmp_path):
    model = pd.Sequential([L.Input(shape=(3,)), L.Dense(2)])
    with pytest.raises(ValueError, match="export: expected format 'onnx', received 'tflite'"):
        model.export(tmp_path / "m.tflite", format="tflite")
    with pytest.raises(TypeError, match="filepath to be a path, received int"):
        model.export(3)
    with pytest.raises(ValueError, match="opset_version >= 17, received 11"):
        model.export(tmp_path / "m.onnx", opset_version=11)
    with pytest.raises(OSError, match="export: cannot write"):
        model.export(tmp_path / "missing" / "m.onnx")
    no_file_left(tmp_path)
