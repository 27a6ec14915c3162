"""The top level is the public API: Keras's op names are functions, pd.activations is
Keras's activations module, pd.ops Keras's ops namespace, and no internal module leaks."""
import importlib
import types

import numpy as np
import pytest

import paddle as pd

PUBLIC_MODULES = {"activations", "devices", "callbacks", "dataset", "distributed", "errors",
                  "highlevel", "initializers", "layers", "losses", "lowlevel", "metrics",
                  "ops", "optimizers", "random", "reader", "regularizers", "constraints", "utils",
                  "saving", "profiler",
                  "models", "capi", "export", "applications", "datasets",
                  "preprocessing", "backend", "config", "tree", "dtype_policies",
                  "mixed_precision", "legacy", "wrappers", "quantizers", "distribution",
                  "visualization", "distillation"}
# capi: the C API's flags and Python half, on import; export: Keras 3's keras.export, the
# home of model.export's formats; applications: Keras 3's keras.applications; datasets:
# Keras 3's keras.datasets (Keras's cache files; paddle's own readers are pd.dataset);
# preprocessing: Keras 3's keras.preprocessing aliases


def test_no_internal_module_is_reachable_from_pd():
    modules = {n for n in dir(pd) if isinstance(getattr(pd, n), types.ModuleType)
               and not n.startswith("_")}
    assert modules <= PUBLIC_MODULES, sorted(modules - PUBLIC_MODULES)
    for internal in ("shape", "math", "nn", "graph", "executor", "op", "conv", "norm",
                     "pool", "recurrent", "reduce", "shapes", "numpy", "paddle"):
        assert not isinstance(getattr(pd, internal, None), types.ModuleType), internal


def test_keras_op_names_at_the_top_level_are_functions():
    x = pd.data("ns_x", shape=[None, 3])
    assert pd.shape(x) == (None, 3) and pd.shape(np.ones((2, 5))) == (2, 5)
    assert pd.eval(pd.ones((2, 3))).tolist() == [[1.0] * 3] * 2
    assert pd.zeros(4, dtype="int64").dtype == "int64"
    assert pd.eval(pd.full((2,), 7.0)).tolist() == [7.0, 7.0]
    assert pd.eval(pd.arange(4)).tolist() == [0, 1, 2, 3] and pd.arange(4).dtype == "int64"
    assert pd.arange(0.0, 1.0, 0.5).dtype == "float32"
    for name in ("shape", "ones", "zeros", "arange", "matmul", "softmax", "reshape"):
        assert callable(getattr(pd, name)) and not isinstance(getattr(pd, name), types.ModuleType)


@pytest.mark.parametrize("call, error, match", [
    (lambda: pd.ones((2, None)), ValueError, "ones: expected a fully known shape"),
    (lambda: pd.zeros("x"), (TypeError, ValueError), "zeros"),
    (lambda: pd.full((2,), "a"), TypeError, "full: expected a number as fill_value"),
    (lambda: pd.arange(0, 3, 0), ValueError, "arange: step must not be 0"),
    (lambda: pd.arange("3"), TypeError, "arange: expected start as a number"),
])
def test_creation_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_pd_ops_is_kerass_ops_namespace():
    a = pd.ops.convert_to_tensor(np.array([[1.0, 2.0]], np.float32))
    b = pd.ops.ones((1, 2))
    out = pd.ops.concatenate([pd.ops.multiply(a, b), pd.ops.subtract(a, b)], axis=0)
    assert pd.ops.convert_to_numpy(out).tolist() == [[1.0, 2.0], [0.0, 1.0]]
    assert pd.ops.convert_to_tensor(a) is a
    assert pd.ops.convert_to_tensor(a, dtype="float64").dtype == "float64"
    assert pd.ops.shape(a) == (1, 2) and pd.ops.matmul is pd.matmul
    assert pd.ops.convert_to_numpy(pd.ops.true_divide(a, 2.0)).tolist() == [[0.5, 1.0]]


def test_pd_activations_is_kerass_module():
    x = pd.constant(np.array([-2.0, -0.5, 0.5, 8.0], np.float32))

    def run(v):
        return pd.eval(v)

    np.testing.assert_allclose(run(pd.activations.relu(x)), [0, 0, 0.5, 8])
    np.testing.assert_allclose(run(pd.activations.relu(x, max_value=6.0)), [0, 0, 0.5, 6])
    np.testing.assert_allclose(run(pd.activations.relu(x, negative_slope=0.1)),
                               [-0.2, -0.05, 0.5, 8], rtol=1e-6)
    np.testing.assert_allclose(run(pd.activations.relu(x, threshold=1.0)), [0, 0, 0, 8])
    np.testing.assert_allclose(run(pd.activations.relu6(x)), [0, 0, 0.5, 6])
    np.testing.assert_allclose(run(pd.activations.softsign(x)), [-2 / 3, -1 / 3, 1 / 3, 8 / 9],
                               rtol=1e-6)
    np.testing.assert_allclose(run(pd.activations.hard_sigmoid(x)),
                               np.clip(np.array([-2, -0.5, 0.5, 8]) / 6 + 0.5, 0, 1), rtol=1e-6)
    xs = np.array([-2.0, -0.5, 0.5, 8.0])
    np.testing.assert_allclose(run(pd.activations.selu(x)),
                               1.05070098 * np.where(xs > 0, xs, 1.67326324 * (np.exp(xs) - 1)),
                               rtol=1e-5)
    np.testing.assert_allclose(run(pd.activations.mish(x)),
                               xs * np.tanh(np.log1p(np.exp(xs))), rtol=1e-5)
    np.testing.assert_allclose(run(pd.activations.exponential(x)), np.exp(xs), rtol=1e-6)
    assert pd.activations.get("swish") is pd.activations.silu
    assert pd.activations.get(None) is pd.activations.linear
    assert pd.activations.serialize(pd.activations.gelu) == "gelu"
    assert pd.activations.deserialize("tanh") is pd.activations.tanh
    assert pd.activations.deserialize({"class_name": "function", "config": "relu"}) is \
        pd.activations.relu
    fn = lambda v: v * 2.0  # noqa: E731
    assert pd.activations.deserialize("double", custom_objects={"double": fn}) is fn


def test_layers_take_every_keras_activation_name():
    layer = pd.layers.Dense(2, activation="swish")
    assert layer(np.ones((1, 3), np.float32)).shape == (1, 2)
    assert layer.get_config()["activation"] == "swish"
    assert pd.layers.Dense(2, activation=pd.activations.relu6).get_config()["activation"] == "relu6"


@pytest.mark.parametrize("call, error, match", [
    (lambda: pd.activations.get("relux"), ValueError, "activation: unknown 'relux'"),
    (lambda: pd.activations.get(3), TypeError, "expected a name or a callable"),
    (lambda: pd.activations.relu(pd.constant([1, 2])), TypeError,
     "activations.relu: expected a float input, received int64"),
    (lambda: pd.activations.relu(pd.constant([1.0]), max_value="6"), ValueError,
     "activations.relu: expected max_value as a number"),
])
def test_activations_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_layer_whose_constructor_failed_has_a_repr():
    class Broken(pd.layers.Layer):
        def __init__(self):
            raise_before_init = repr(self)             # nothing set yet
            assert raise_before_init == "<Broken name=None built=False>"
            super().__init__()

    Broken()
    with pytest.raises(ValueError) as info:
        pd.layers.Dense(-1)
    assert "Dense" in str(info.value)


def test_kerass_other_layer_names_are_the_same_classes():
    pairs = {"AvgPool1D": "AveragePooling1D", "AvgPool2D": "AveragePooling2D",
             "MaxPool1D": "MaxPooling1D", "MaxPool2D": "MaxPooling2D",
             "GlobalAvgPool1D": "GlobalAveragePooling1D",
             "GlobalAvgPool2D": "GlobalAveragePooling2D",
             "GlobalMaxPool1D": "GlobalMaxPooling1D", "GlobalMaxPool2D": "GlobalMaxPooling2D",
             "Convolution1D": "Conv1D", "Convolution2D": "Conv2D",
             "Convolution2DTranspose": "Conv2DTranspose"}
    for alias, name in pairs.items():
        assert getattr(pd.layers, alias) is getattr(pd.layers, name), alias
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2)
    assert pd.layers.MaxPool2D(2)(x).tolist() == pd.layers.MaxPooling2D(2)(x).tolist()
    # Saved under the class's own name, which Keras knows too.
    assert pd.layers.AvgPool2D(2).get_config()["name"].startswith("average_pooling2d")


def _namespaces(module):
    return sorted(n for n in dir(module) if not n.startswith("_")
                  and isinstance(getattr(module, n), types.ModuleType))


def test_every_namespace_of_pd_imports_as_a_module_of_that_name():
    # Keras-style imports (`from paddle.layers import Dense`, `import paddle.callbacks`) used
    # to raise ModuleNotFoundError for the namespaces that were attributes only.
    names = _namespaces(pd)
    assert {"layers", "callbacks", "optimizers", "losses", "metrics", "activations",
            "initializers", "regularizers", "constraints"} <= set(names)
    for name in names:
        assert importlib.import_module(f"paddle.{name}") is getattr(pd, name), name
    # Keras's nested namespace: keras.optimizers.schedules.
    schedules = importlib.import_module("paddle.optimizers.schedules")
    assert schedules is pd.optimizers.schedules
    assert schedules.ExponentialDecay is pd.lowlevel.schedules.ExponentialDecay


@pytest.mark.parametrize("statement, name", [
    ("from paddle.layers import Dense", "Dense"),
    ("from paddle.callbacks import EarlyStopping", "EarlyStopping"),
    ("from paddle.optimizers import Adam", "Adam"),
    ("from paddle.optimizers.schedules import CosineDecay", "CosineDecay"),
    ("from paddle.losses import SparseCategoricalCrossentropy", "SparseCategoricalCrossentropy"),
    ("from paddle.metrics import SparseCategoricalAccuracy", "SparseCategoricalAccuracy"),
    ("from paddle.activations import relu", "relu"),
    ("from paddle.initializers import GlorotUniform", "GlorotUniform"),
    ("from paddle.regularizers import L2", "L2"),
    ("from paddle.constraints import MaxNorm", "MaxNorm"),
])
def test_kerass_import_statements_give_the_objects_of_pd(statement, name):
    scope = {}
    exec(statement, scope)
    module = statement.split()[1]
    assert scope[name] is getattr(importlib.import_module(module), name)
    assert scope[name] is getattr(eval(module.replace("paddle", "pd", 1)), name)


def test_the_keras_style_modules_re_export_every_public_name_of_their_home():
    # They re-export (no second implementation): each name is the very object of the module
    # where the code lives, and none is missing.
    homes = {pd.layers: pd.highlevel.layers, pd.callbacks: pd.highlevel.callbacks,
             pd.losses: pd.highlevel.losses, pd.metrics: pd.highlevel.metrics,
             pd.regularizers: pd.highlevel.regularizers,
             pd.constraints: pd.highlevel.constraints,
             pd.initializers: pd.lowlevel.initializers, pd.optimizers: pd.lowlevel.optimizers,
             pd.optimizers.schedules: pd.lowlevel.schedules}
    for module, home in homes.items():
        public = [n for n in dir(home) if not n.startswith("_")]
        missing = [n for n in public if not hasattr(module, n)]
        assert not missing, f"{module.__name__} lacks {missing} of {home.__name__}"
        for n in public:
            if n != "schedules":  # pd.optimizers.schedules is the Keras-style module
                assert getattr(module, n) is getattr(home, n), f"{module.__name__}.{n}"
    for n in pd.highlevel.activations.__all__ + ["ALL"]:
        assert getattr(pd.activations, n) is getattr(pd.highlevel.activations, n), n


def test_kerass_base_classes_are_at_the_top_level():
    assert pd.Layer is pd.layers.Layer and pd.InputSpec is pd.layers.InputSpec
    assert pd.Loss is pd.losses.Loss and pd.Metric is pd.metrics.Metric
    assert pd.Optimizer is pd.optimizers.Optimizer
    assert pd.Regularizer is pd.regularizers.Regularizer
    assert pd.Initializer is pd.initializers.Initializer

    class Double(pd.Layer):                       # keras-io's idiom: class X(keras.Layer)
        def call(self, inputs):
            return inputs * 2.0
    inp = pd.Input(shape=(3,))
    model = pd.Model(inp, Double()(inp))
    assert model.predict(np.ones((2, 3), np.float32)).tolist() == [[2.0] * 3] * 2


def test_utils_has_kerass_serialization_registry():
    names = ("CustomObjectScope", "custom_object_scope", "deserialize_keras_object",
             "get_custom_objects", "get_registered_name", "get_registered_object",
             "register_keras_serializable", "serialize_keras_object")
    for name in names:
        assert getattr(pd.utils, name) is getattr(pd.saving, name), name

    @pd.utils.register_keras_serializable(package="ns_test")
    class Twice(pd.layers.Layer):
        def call(self, inputs):
            return inputs * 2.0
    assert pd.saving.get_registered_object("ns_test>Twice") is Twice
