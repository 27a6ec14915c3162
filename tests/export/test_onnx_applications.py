"""ONNX export of what models compute: every family of pd.applications and the
transformer of ../shared/bench/workloads.py (a user's own TokenAndPosition layer,
MultiHeadAttention) export, and ONNX Runtime matches `predict` within 1e-4 of the
outputs' scale. Layers with a mapping give ONNX's own nodes (Conv, Pad, Clip, ...); the
rest (Rescaling, Normalization, a user's layer, ops between layers) are converted op by
op from the graph."""
import numpy as np
import pytest

import paddle as pd

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
L = pd.layers


def assert_runtime_matches(model, path, *inputs):
    model.export(path, format="onnx")
    run = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in run.get_inputs()]
    got = run.run(None, dict(zip(names, inputs)))[0]
    want = model.predict(list(inputs) if len(inputs) > 1 else inputs[0], verbose=0)
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max()))
    assert float(np.abs(got - want).max()) <= 1e-4 * scale


# One model of each family of keras.applications (the others differ in sizes only), at
# the smallest input each takes.
FAMILIES = [("VGG16", 32), ("ResNet50", 32), ("ResNet50V2", 32), ("Xception", 71),
            ("InceptionV3", 75), ("MobileNet", 32), ("MobileNetV2", 32),
            ("MobileNetV3Small", 32), ("MobileNetV3Large", 32), ("DenseNet121", 32),
            ("NASNetMobile", 32), ("EfficientNetB0", 32), ("EfficientNetV2B0", 32),
            ("ConvNeXtTiny", 32),
            pytest.param("InceptionResNetV2", 75, marks=pytest.mark.slow)]


@pytest.mark.parametrize("name, size", FAMILIES)
def test_applications_export_and_match_predict(tmp_path, name, size):
    model = getattr(pd.applications, name)(weights=None, include_top=False, pooling="avg",
                                           input_shape=(size, size, 3))
    images = np.random.default_rng(0).uniform(0, 255, (2, size, size, 3)).astype(np.float32)
    assert_runtime_matches(model, tmp_path / f"{name}.onnx", images)


def test_a_classifier_top_exports(tmp_path):
    model = pd.applications.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), classes=7)
    images = np.random.default_rng(1).uniform(0, 255, (3, 32, 32, 3)).astype(np.float32)
    assert_runtime_matches(model, tmp_path / "top.onnx", images)


def test_the_benchmark_transformer_exports(tmp_path):
    length, vocab = 16, 50

    class TokenAndPosition(L.Layer):  # as ../shared/bench/workloads.py and keras-io's
        def __init__(self):
            super().__init__()
            self.tok, self.pos = L.Embedding(vocab, 32), L.Embedding(length, 32)

        def call(self, x):
            return self.tok(x) + self.pos(pd.ops.arange(0, length, 1))

    inp = pd.Input(shape=(length,), dtype="int32")
    h = TokenAndPosition()(inp)
    a = L.MultiHeadAttention(num_heads=4, key_dim=8)(h, h)
    h = L.LayerNormalization(epsilon=1e-6)(L.Add()([h, a]))
    f = L.Dense(32)(L.Dense(64, activation="relu")(h))
    h = L.LayerNormalization(epsilon=1e-6)(L.Add()([h, f]))
    model = pd.Model(inp, L.Dense(2)(L.GlobalAveragePooling1D()(h)))
    tokens = np.random.default_rng(2).integers(0, vocab, (4, length)).astype(np.int32)
    assert_runtime_matches(model, tmp_path / "transformer.onnx", tokens)


@pytest.mark.parametrize("layer", [
    L.ReLU(max_value=6.0), L.ReLU(negative_slope=0.1, threshold=0.5, max_value=2.0),
    L.Rescaling(1 / 127.5, offset=-1.0), L.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0]),
    L.ZeroPadding2D(((1, 2), (0, 3))), L.Cropping2D(((1, 0), (2, 1))),
    L.SeparableConv2D(3, 3, strides=2, padding="same", depth_multiplier=2,
                      activation="relu")])
def test_layers_between_convolutions(tmp_path, layer):
    x = pd.Input(shape=(6, 7, 2))
    y = L.Conv2D(2, 1)(layer(L.Conv2D(2, 1)(x)))
    model = pd.Model(x, y)
    data = np.random.default_rng(3).normal(size=(2, 6, 7, 2)).astype(np.float32) * 3
    assert_runtime_matches(model, tmp_path / "m.onnx", data)
