"""ONNX export, layer by layer: ONNX Runtime's outputs on random inputs match
model.predict within 1e-5, at two batch sizes (the batch axis is dynamic)."""
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel.layer_functions import ACTIVATIONS as LOWLEVEL

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
L = pd.layers


def run_onnx(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def check(model, tmp_path, *shapes, ints=None, batches=(3, 5), transposes=None):
    """Exports the model and compares ONNX Runtime with predict on random inputs; returns
    the ONNX model."""
    path = tmp_path / f"{model.name}.onnx"
    model.export(path, format="onnx")
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    rng = np.random.default_rng(1)
    for batch in batches:
        arrays = [rng.integers(0, ints, size=(batch,) + s).astype(np.int64) if ints
                  else rng.normal(size=(batch,) + s).astype(np.float32) for s in shapes]
        want = model.predict(arrays if len(arrays) > 1 else arrays[0], verbose=0)
        want = want if isinstance(want, list) else [want]
        names = [i.name for i in proto.graph.input]
        got = run_onnx(path, dict(zip(names, arrays)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    if transposes is not None:
        assert sum(n.op_type == "Transpose" for n in proto.graph.node) == transposes
    return proto


def seq(*layers, shape, name=None, dtype="float32"):
    pd.seed(0)
    return pd.Sequential([L.Input(shape=shape, dtype=dtype)] + list(layers), name=name)


# ---- core ---------------------------------------------------------------------------------

def test_dense_2d_3d_and_no_bias(tmp_path):
    check(seq(L.Dense(5, activation="relu"), L.Dense(3, use_bias=False), shape=(4,)),
          tmp_path, (4,))
    proto = check(seq(L.Dense(6), L.Dense(2, activation="tanh"), shape=(7, 4)), tmp_path,
                  (7, 4))
    assert "MatMul" in {n.op_type for n in proto.graph.node}


NO_ONNX = {"glu", "sparsemax"}  # built-in activations ONNX export has no mapping for


@pytest.mark.parametrize("name", sorted((set(pd.activations.ALL) | set(LOWLEVEL)) - NO_ONNX))
def test_every_builtin_activation(tmp_path, name):
    check(seq(L.Dense(6, activation=name), L.Activation(name), shape=(4,), name=f"a_{name}"),
          tmp_path, (4,))


@pytest.mark.parametrize("name", sorted(NO_ONNX))
def test_activations_without_a_mapping_are_refused_by_name(tmp_path, name):
    model = seq(L.Dense(6, activation=name), shape=(4,), name=f"a_{name}")
    with pytest.raises(pd.ExportError, match=f"activation '{name}' has no ONNX mapping"):
        model.export(tmp_path / "m.onnx", format="onnx")


def test_linear_and_callable_builtin_activations(tmp_path):
    check(seq(L.Dense(3, activation="linear"), L.Dense(3, activation=pd.relu),
              L.Dense(3, activation=pd.activations.gelu), L.Activation(pd.sigmoid),
              shape=(4,)), tmp_path, (4,))


def test_flatten_reshape_permute_dropout(tmp_path):
    check(seq(L.Reshape((3, 8)), L.Permute((2, 1)), L.Dropout(0.5), L.Reshape((-1, 4)),
              L.Flatten(), L.Dense(2), shape=(24,)), tmp_path, (24,))


def test_integer_inputs_cast_as_the_layers_do(tmp_path):
    pd.seed(0)
    x = L.Input(shape=(4,), dtype="int64")
    model = pd.Model(x, L.Concatenate()([L.Dense(3)(x), L.Flatten()(L.Embedding(9, 2)(x))]))
    check(model, tmp_path, (4,), ints=9)


def test_embedding(tmp_path):
    check(seq(L.Embedding(11, 4), L.Flatten(), L.Dense(3), shape=(6,), dtype="int64"),
          tmp_path, (6,), ints=11)


# ---- convolutions and pools ---------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {}, {"padding": "same"}, {"padding": "causal", "dilation_rate": 2},
    {"strides": 2, "padding": "same"}, {"groups": 2}, {"data_format": "channels_first"},
])
def test_conv1d(tmp_path, kwargs):
    check(seq(L.Conv1D(4, 3, activation="relu", **kwargs), L.Flatten(), shape=(10, 4)),
          tmp_path, (10, 4))


@pytest.mark.parametrize("kwargs", [
    {}, {"padding": "same"}, {"strides": 2, "padding": "same"}, {"strides": (2, 1)},
    {"dilation_rate": 2}, {"groups": 3, "use_bias": False},
    {"data_format": "channels_first"}, {"activation": "softmax"},
])
def test_conv2d(tmp_path, kwargs):
    check(seq(L.Conv2D(6, 3, **kwargs), shape=(9, 8, 3)), tmp_path, (9, 8, 3))


def test_depthwise_conv2d(tmp_path):
    check(seq(L.DepthwiseConv2D(3, depth_multiplier=2, padding="same", activation="relu"),
              shape=(7, 7, 3)), tmp_path, (7, 7, 3))


@pytest.mark.parametrize("kwargs", [
    {"strides": 2}, {"strides": 2, "padding": "same"}, {"strides": 3, "kernel_size": 2},
    {"strides": 3, "kernel_size": 2, "padding": "same"}, {"dilation_rate": 2},
    {"strides": 2, "output_padding": 1}, {"strides": 2, "padding": "same",
                                           "output_padding": 1},
])
def test_conv2d_transpose(tmp_path, kwargs):
    kwargs = {"kernel_size": 3, **kwargs}
    check(seq(L.Conv2DTranspose(4, activation="relu", **kwargs), shape=(5, 6, 3)), tmp_path,
          (5, 6, 3))


@pytest.mark.parametrize("layer", [
    lambda: L.MaxPooling2D(2), lambda: L.MaxPooling2D(3, strides=2, padding="same"),
    lambda: L.AveragePooling2D(2), lambda: L.AveragePooling2D(3, strides=2, padding="same"),
    lambda: L.AveragePooling2D(2, data_format="channels_first"),
])
def test_pooling2d(tmp_path, layer):
    check(seq(layer(), shape=(7, 6, 3)), tmp_path, (7, 6, 3))


@pytest.mark.parametrize("layer", [
    lambda: L.MaxPooling1D(2), lambda: L.AveragePooling1D(3, strides=2, padding="same"),
])
def test_pooling1d(tmp_path, layer):
    check(seq(layer(), shape=(9, 3)), tmp_path, (9, 3))


@pytest.mark.parametrize("layer, shape", [
    (lambda: L.GlobalAveragePooling2D(), (5, 4, 3)),
    (lambda: L.GlobalAveragePooling2D(keepdims=True), (5, 4, 3)),
    (lambda: L.GlobalAveragePooling1D(), (6, 3)),
    (lambda: L.GlobalMaxPooling2D(), (5, 4, 3)),
    (lambda: L.GlobalMaxPooling1D(keepdims=True), (6, 3)),
])
def test_global_pooling_after_conv(tmp_path, layer, shape):
    conv = L.Conv2D(4, 2) if len(shape) == 3 else L.Conv1D(4, 2)
    check(seq(conv, layer(), shape=shape), tmp_path, shape)


def test_convnet_transposes_only_at_the_edges(tmp_path):
    model = seq(L.Conv2D(4, 3, padding="same", activation="relu"), L.BatchNormalization(),
                L.MaxPooling2D(2), L.Conv2D(8, 3, activation="relu"), L.Dropout(0.2),
                L.AveragePooling2D(2, padding="same"), L.Flatten(), L.Dense(3), shape=(12, 12, 2))
    randomize_batch_norm(model)
    check(model, tmp_path, (12, 12, 2), transposes=2)  # in, and before Flatten


# ---- normalization ------------------------------------------------------------------------

def randomize_batch_norm(model):
    rng = np.random.default_rng(2)
    for layer in model.layers:
        if isinstance(layer, L.BatchNormalization):
            layer.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(np.float32)
                               if "variance" in w.name or "gamma" in w.name else
                               rng.normal(size=w.shape).astype(np.float32)
                               for w in layer.weights])


@pytest.mark.parametrize("shape, kwargs", [
    ((5,), {}), ((6, 4), {}), ((6, 4), {"axis": 1}), ((4, 4, 3), {"center": False}),
    ((4, 4, 3), {"scale": False, "epsilon": 0.1}),
])
def test_batch_normalization_inference(tmp_path, shape, kwargs):
    model = seq(L.BatchNormalization(**kwargs), shape=shape)
    randomize_batch_norm(model)
    check(model, tmp_path, shape)


@pytest.mark.parametrize("shape, axis", [((6,), -1), ((5, 6), -1), ((5, 6), [1, 2]),
                                         ((5, 6), 1), ((3, 4, 5), [1, 3])])
def test_layer_normalization(tmp_path, shape, axis):
    model = seq(L.LayerNormalization(axis=axis), shape=shape)
    rng = np.random.default_rng(3)
    model.layers[0].set_weights([rng.normal(size=w.shape).astype(np.float32)
                                 for w in model.layers[0].weights])
    check(model, tmp_path, shape)


# ---- recurrent ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"return_sequences": True}, {"go_backwards": True},
                                    {"return_sequences": True, "go_backwards": True},
                                    {"use_bias": False}])
def test_lstm(tmp_path, kwargs):
    model = seq(L.LSTM(5, **kwargs), shape=(6, 3))
    rng = np.random.default_rng(4)
    layer = model.layers[0]
    layer.set_weights([rng.normal(scale=0.5, size=w.shape).astype(np.float32)
                       for w in layer.weights])
    check(model, tmp_path, (6, 3))


@pytest.mark.parametrize("kwargs", [{}, {"reset_after": False}, {"return_sequences": True},
                                    {"go_backwards": True, "return_sequences": True},
                                    {"use_bias": False}])
def test_gru(tmp_path, kwargs):
    model = seq(L.GRU(4, **kwargs), shape=(5, 3))
    rng = np.random.default_rng(5)
    layer = model.layers[0]
    layer.set_weights([rng.normal(scale=0.5, size=w.shape).astype(np.float32)
                       for w in layer.weights])
    check(model, tmp_path, (5, 3))


def test_simple_rnn_and_stacked_recurrences(tmp_path):
    check(seq(L.SimpleRNN(4, return_sequences=True), L.GRU(3, return_sequences=True),
              L.LSTM(2), shape=(5, 3)), tmp_path, (5, 3))


@pytest.mark.parametrize("inner, kwargs", [
    (lambda: L.LSTM(3, return_sequences=True), {}),
    (lambda: L.GRU(3), {"merge_mode": "sum"}),
    (lambda: L.LSTM(2, return_sequences=True), {"merge_mode": "ave"}),
    (lambda: L.SimpleRNN(2), {"merge_mode": "mul"}),
    (lambda: L.GRU(2, return_sequences=True, return_state=True), {"merge_mode": None}),
    (lambda: L.LSTM(2, return_state=True), {}),
])
def test_bidirectional(tmp_path, inner, kwargs):
    pd.seed(0)
    x = L.Input(shape=(5, 3))
    out = L.Bidirectional(inner(), **kwargs)(x)
    check(pd.Model(x, out), tmp_path, (5, 3))


def test_lstm_states_in_and_out(tmp_path):
    pd.seed(0)
    x, h0, c0 = L.Input(shape=(4, 3)), L.Input(shape=(5,)), L.Input(shape=(5,))
    out, h, c = L.LSTM(5, return_state=True, return_sequences=True)(x, initial_state=[h0, c0])
    gru_out = L.GRU(5)(out, initial_state=h)
    model = pd.Model([x, h0, c0], [L.Add()([gru_out, c]), h])
    check(model, tmp_path, (4, 3), (5,), (5,))


# ---- merges and graphs --------------------------------------------------------------------

def test_add_concatenate_multiply_branches(tmp_path):
    pd.seed(0)
    inp = L.Input(shape=(8, 8, 2))
    a = L.Conv2D(4, 3, padding="same")(inp)
    b = L.Conv2D(4, 1)(inp)
    joined = L.Concatenate()([L.Add()([a, b]), L.Multiply()([a, b]), inp])
    pooled = L.GlobalAveragePooling2D()(joined)
    flat = L.Concatenate(axis=1)([pooled, L.Dense(3)(pooled)])
    model = pd.Model(inp, [L.Dense(2)(flat), L.Conv2D(2, 1)(joined)])
    proto = check(model, tmp_path, (8, 8, 2))
    # one Transpose in (shared by both branches), one out for the conv output
    assert sum(n.op_type == "Transpose" for n in proto.graph.node) == 2


def test_concatenate_along_a_spatial_axis_of_conv_outputs(tmp_path):
    pd.seed(0)
    inp = L.Input(shape=(6, 5, 2))
    a, b = L.Conv2D(3, 2)(inp), L.Conv2D(3, 2)(inp)
    model = pd.Model(inp, L.Flatten()(L.Concatenate(axis=2)([a, b])))
    check(model, tmp_path, (6, 5, 2))


def test_several_inputs_and_nested_models(tmp_path):
    pd.seed(0)
    inner_in = L.Input(shape=(4,))
    inner = pd.Model(inner_in, L.Dense(3, activation="relu")(L.Dense(5)(inner_in)),
                     name="block")
    a, b = L.Input(shape=(4,), name="left"), L.Input(shape=(4,), name="right")
    out = L.Dense(2)(L.Concatenate()([inner(a), inner(b)]))  # one nested model, two calls
    model = pd.Model([a, b], out)
    proto = check(model, tmp_path, (4,), (4,))
    assert [i.name for i in proto.graph.input] == ["left", "right"]
    nested = pd.Sequential([L.Input(shape=(4,)), inner, L.Dense(1)])
    check(nested, tmp_path, (4,))


def test_subclassed_model_of_layers(tmp_path):
    class Net(pd.Model):
        def __init__(self):
            super().__init__(name="net")
            self.conv = L.Conv2D(3, 3, activation="relu")
            self.pool = L.GlobalAveragePooling2D()
            self.head = L.Dense(2, activation="softmax")

        def call(self, x, training=False):
            return self.head(self.pool(self.conv(x)))

    pd.seed(0)
    model = Net()
    model(np.zeros((1, 6, 6, 1), np.float32))
    check(model, tmp_path, (6, 6, 1))
