"""pd.applications against Keras 3.15.1's keras.applications: the same layers (names,
classes, output shapes, parameter counts), the same outputs for the same weights, Keras's
weights files loaded, and Keras's argument checks.

The Keras numbers are in keras_models.json (see its "_source") and below; tests never
import keras. Models are built small (32x32 inputs, no top) where the test allows, since CI
has 2 cores: a full VGG19 is built once, in tests/keras_ports/test_functional_api.py.
"""
import gc
import hashlib
import io
import json
import os
import re
import zlib

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.applications import imagenet_utils as iu
from paddle.lowlevel.graph import fresh_names as keras_names
from paddle.dataset import common

A = pd.applications
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "keras_models.json")) as f:
    KERAS = json.load(f)

CONFIGS = {
    "vgg16_small_top": lambda: A.VGG16(weights=None, input_shape=(32, 32, 3), classes=10),
    "vgg16_notop_avg": lambda: A.VGG16(weights=None, include_top=False,
                                       input_shape=(32, 32, 3), pooling="avg"),
    "vgg19_notop_max": lambda: A.VGG19(weights=None, include_top=False,
                                       input_shape=(32, 32, 3), pooling="max"),
    "vgg19_notop_none": lambda: A.VGG19(weights=None, include_top=False),
    "resnet50_top": lambda: A.ResNet50(weights=None),
    "mobilenetv2_top": lambda: A.MobileNetV2(weights=None),
    "mobilenetv2_035_96": lambda: A.MobileNetV2(weights=None, alpha=0.35,
                                                input_shape=(96, 96, 3), classes=7,
                                                classifier_activation=None),
    "mobilenetv2_notop_33": lambda: A.MobileNetV2(weights=None, include_top=False,
                                                  input_shape=(33, 33, 3), pooling="max"),
    "mobilenetv2_14_notop": lambda: A.MobileNetV2(weights=None, alpha=1.4, include_top=False,
                                                  input_shape=(64, 64, 3)),
}
# Layers Keras names after their class (global_average_pooling2d, ...): paddle numbers
# those names per process, so for them only the prefix is compared.
AUTO_NAMED = ("global_average_pooling2d", "global_max_pooling2d")


@pytest.fixture(autouse=True)
def fresh_names():
    gc.collect()  # layer names are global and held weakly: free those of earlier tests
    pd.utils.set_random_seed(0)


def rows(model):
    return [[layer.name, type(layer).__name__, list(layer.output.shape),
             layer.count_params()] for layer in model.layers]


def normalized(table):
    return sorted([next((p for p in AUTO_NAMED if name.startswith(p)), name), cls, shape, n]
                  for name, cls, shape, n in table)


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_same_layers_as_keras(config):
    model = CONFIGS[config]()
    keras = KERAS[config]
    assert model.name == keras["name"]
    assert keras["rows"][0][1] == "InputLayer"  # paddle's model.layers has no InputLayer
    assert [list(model.input.shape)] == [keras["rows"][0][2]]
    # paddle orders model.layers inputs first as Keras does, but breaks ties between the
    # branches of a residual block differently: the rows are compared as sets.
    assert normalized(rows(model)) == normalized(keras["rows"][1:])
    assert model.count_params() == keras["total"]
    assert sum(int(np.prod(w.shape)) for w in model.trainable_weights) == keras["trainable"]


def test_summary_lists_keras_names():
    model = A.VGG19(weights=None, include_top=False, input_shape=(32, 32, 3))
    printed = []
    model.summary(print_fn=printed.append)
    text = "\n".join(printed)
    assert 'Model: "vgg19"' in text
    assert "block5_conv4 (Conv2D)" in text and "Total params: 20,024,384" in text


# ---- the same numbers as Keras for the same weights ----------------------------------------

def weight_value(layer_class, layer_name, index, shape):
    """The weights both sides load: drawn from a seed made of the layer's name, He-scaled
    kernels, small biases, batch norms near identity (the same function made the Keras
    numbers below)."""
    rng = np.random.default_rng(zlib.crc32(layer_name.encode()) + index)
    n = rng.standard_normal(shape)
    if layer_class == "BatchNormalization":
        return [1 + 0.1 * n, 0.1 * n, 0.1 * n, rng.uniform(0.5, 1.5, shape)][index] \
            .astype("float32")
    if layer_class == "Normalization":  # mean, variance and count of 0-255 pixels
        if index == 2:
            return np.asarray(1000, "int64").reshape(shape)
        return [100 + 20 * n, rng.uniform(500, 3000, shape)][index].astype("float32")
    if layer_class == "LayerNormalization":
        return [1 + 0.1 * n, 0.1 * n][index].astype("float32")
    if layer_class == "LayerScale":
        return (0.5 + 0.1 * n).astype("float32")
    if index == 1:
        return (0.05 * n).astype("float32")
    fan_in = np.prod(shape[:2]) if layer_class == "DepthwiseConv2D" else np.prod(shape[:-1])
    return (n * np.sqrt(2.0 / fan_in)).astype("float32")


def write_keras_h5(path, model, order=None):
    """A weights file in the layout of Keras's ImageNet files (the legacy HDF5 layout:
    `layer_names`, then a group per layer with `weight_names` and its datasets), with
    `weight_value`s; `order` lists the layers' names in the file's order."""
    layers = {layer.name: layer for layer in model.layers}
    names = order or list(layers)
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = [n.encode() for n in names]
        f.attrs["backend"], f.attrs["keras_version"] = b"tensorflow", b"2.2.4"
        for name in names:
            layer = layers[name]
            group = f.create_group(name)
            # paddle's weight names (block1_conv1/kernel, .../moving_mean_1): Keras's kinds
            kinds = [re.sub(r"_\d+$", "", w.name.rsplit("/", 1)[-1]) for w in layer.weights]
            weight_names = [f"{name}/{kind}:0" for kind in kinds]
            group.attrs["weight_names"] = [w.encode() for w in weight_names]
            for i, (wname, w) in enumerate(zip(weight_names, layer.weights)):
                group[wname] = weight_value(type(layer).__name__, name, i, tuple(w.shape))


# Keras 3.15.1 (JAX backend): the model built with weights=None, every layer's weights set
# to weight_value(...), then predict(preprocess_input(x)) on
# x = np.random.default_rng(0).uniform(0, 255, shape).astype("float32"):
# the sum of each sample's outputs and the first six outputs of sample 0.
NUMBERS = {
    "vgg16": (lambda path: A.VGG16(weights=path, include_top=False, input_shape=(32, 32, 3),
                                   pooling="avg"), A.vgg16, (2, 32, 32, 3),
              [28929.3984375, 29292.9921875],
              [75.5966796875, 113.4106216430664, 48.17411422729492, 62.170448303222656,
               61.98119354248047, 36.31455993652344]),
    "resnet50": (lambda path: A.ResNet50(weights=path, include_top=False,
                                         input_shape=(32, 32, 3), pooling="avg"),
                 A.resnet50, (2, 32, 32, 3), [43912432.0, 44696720.0],
                 [27944.23046875, 0.0, 9248.41796875, 5354.7421875, 0.0, 7999.173828125]),
    "mobilenetv2": (lambda path: A.MobileNetV2(weights=path, alpha=0.35,
                                               input_shape=(96, 96, 3), classes=7,
                                               classifier_activation=None),
                    A.mobilenet_v2, (2, 96, 96, 3),
                    [-6.6250786781311035, -9.167669296264648],
                    [-3.3010447025299072, -2.497292995452881, -0.49400031566619873,
                     1.249464511871338, -0.9501602649688721, -1.0008598566055298]),
    "efficientnetb0": (lambda path: A.EfficientNetB0(weights=path, include_top=False,
                                                     input_shape=(32, 32, 3), pooling="avg"),
                       A.efficientnet, (2, 32, 32, 3), [23.040058135986328, 23.039630889892578],
                       [0.17759078741073608, -0.08133970201015472, 0.0177411250770092,
                        -0.006151766516268253, 0.12584392726421356, -0.2207813709974289]),
}

# The same, each leaf layer's weights set with set_weights (Keras: then finalize_state() on
# Normalization, which derives its mean and variance from them, as loading a file does);
# ConvNeXt's blocks hold nested Sequential models.
LEAF_NUMBERS = {
    "ConvNeXtTiny": ([-6.517289161682129, -4.325481414794922],
                     [-0.1566663384437561, -0.4975767135620117, 0.2192646563053131,
                      -0.06768316775560379, 0.7031587958335876, -1.678856372833252]),
    "EfficientNetB0": ([23.040058135986328, 23.039630889892578],
                       [0.17759078741073608, -0.08133970201015472, 0.0177411250770092,
                        -0.006151766516268253, 0.12584392726421356, -0.2207813709974289]),
}


def leaf_layers(model):
    for layer in model.layers:
        if getattr(layer, "layers", None):
            yield from leaf_layers(layer)
        else:
            yield layer


@pytest.mark.parametrize("name", sorted(LEAF_NUMBERS))
def test_same_weights_give_keras_outputs(name):
    sums, first = LEAF_NUMBERS[name]
    with keras_names():  # Keras's names (a layer named by a counter: 'normalization')
        model = getattr(A, name)(weights=None, include_top=False, input_shape=(32, 32, 3),
                                 pooling="avg")
    for layer in leaf_layers(model):
        layer.set_weights([weight_value(type(layer).__name__, layer.name, i, tuple(w.shape))
                           for i, w in enumerate(layer.weights)])
    x = np.random.default_rng(0).uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    y = model.predict(x, verbose=0)  # both models standardize inside: no preprocess_input
    np.testing.assert_allclose(y.sum(axis=1), sums, rtol=1e-4)
    np.testing.assert_allclose(y[0, :6], first, rtol=1e-4, atol=1e-4 * np.abs(first).max())


@pytest.mark.parametrize("arch", sorted(NUMBERS))
def test_keras_weights_file_gives_keras_outputs(arch, tmp_path):
    build, module, shape, sums, first = NUMBERS[arch]
    with keras_names():  # Keras's names, whatever other tests built before
        template = build(None)
    path = str(tmp_path / f"{arch}.h5")
    # The file lists the layers in reverse: they are found by name, whatever the order
    # (Keras orders a residual block's branches differently from paddle).
    write_keras_h5(path, template, order=[layer.name for layer in template.layers][::-1])
    del template
    with keras_names():
        model = build(path)
    x = np.random.default_rng(0).uniform(0, 255, shape).astype("float32")
    y = model.predict(module.preprocess_input(x.copy()), verbose=0)
    np.testing.assert_allclose(y.sum(axis=1), sums, rtol=2e-4)
    np.testing.assert_allclose(y[0, :6], first, rtol=2e-4, atol=1e-4 * np.abs(first).max())


def test_paddle_and_keras3_weights_files_round_trip(tmp_path):
    model = A.MobileNetV2(weights=None, alpha=0.35, include_top=False,
                          input_shape=(32, 32, 3))
    x = np.random.default_rng(1).uniform(-1, 1, (1, 32, 32, 3)).astype("float32")
    expected = model.predict(x, verbose=0)
    for name in ("m.weights.h5", "m.keras"):  # (legacy .h5: the tests above)
        path = str(tmp_path / name)
        model.save(path) if name.endswith(".keras") else model.save_weights(path)
        again = A.MobileNetV2(weights=path, alpha=0.35, include_top=False,
                              input_shape=(32, 32, 3))
        np.testing.assert_allclose(again.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_weights_file_of_another_model_is_refused(tmp_path):
    path = str(tmp_path / "mobilenet.h5")
    small = A.MobileNetV2(weights=None, alpha=0.35, include_top=False, input_shape=(32, 32, 3))
    write_keras_h5(path, small)
    with pytest.raises(pd.CheckpointError, match=r"layers missing from the file: \['predictions'\]"):
        A.MobileNetV2(weights=path, alpha=0.35, input_shape=(32, 32, 3), classes=3)
    # the same layers, a different width: the shape is named
    with pytest.raises(pd.CheckpointError, match="block_1_project.*has shape .1, 1, 48, 16. in the model"):
        A.MobileNetV2(weights=path, alpha=0.5, include_top=False, input_shape=(32, 32, 3))


# ---- weights="imagenet": from Keras's cache, or a clear error ------------------------------

def test_imagenet_weights_missing_and_offline_says_what_to_do(tmp_path, monkeypatch,
                                                              offline):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    expected = str(tmp_path / "models" / "vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5")
    with pytest.raises(pd.CheckpointError) as info:
        A.VGG19(include_top=False, input_shape=(32, 32, 3))  # weights="imagenet", Keras's default
    message = str(info.value)
    assert "could not be downloaded" in message and expected in message
    assert "weights=None" in message and "storage.googleapis.com" in message
    assert offline == ["https://storage.googleapis.com/tensorflow/keras-applications/vgg19/"
                       "vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5"]
    assert not list((tmp_path / "models").iterdir())  # no partial file left


def test_missing_weights_are_downloaded_into_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    payload = b"the weights file"
    monkeypatch.setattr(common, "urlopen", lambda url, timeout=None: io.BytesIO(payload))
    path = iu.cached_file("test", "w.h5", "https://example.invalid/w.h5",
                          hashlib.md5(payload).hexdigest())
    assert path == str(tmp_path / "models" / "w.h5")
    with open(path, "rb") as f:
        assert f.read() == payload
    sha = hashlib.sha256(payload).hexdigest()  # Keras's 64-digit hashes are SHA-256
    assert iu.cached_file("test", "w.h5", "https://example.invalid/w.h5", sha) == path
    # A download that is not the file Keras names is refused, and no file takes the name.
    with pytest.raises(pd.CheckpointError, match="MD5 .* expected 0+"):
        iu.cached_file("test", "v.h5", "https://example.invalid/v.h5", "0" * 32)
    assert not (tmp_path / "models" / "v.h5").exists()


def test_imagenet_weights_from_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    fname = "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"
    template = A.MobileNetV2(weights=None, alpha=0.35, include_top=False,
                             input_shape=(96, 96, 3))
    write_keras_h5(str(tmp_path / "models" / fname), template)
    model = A.MobileNetV2(alpha=0.35, include_top=False, input_shape=(96, 96, 3))
    kernel = model.get_layer("Conv1").get_weights()[0]
    np.testing.assert_array_equal(kernel, weight_value("Conv2D", "Conv1", 0, kernel.shape))


def test_imagenet_file_with_wrong_hash_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5") \
        .write_bytes(b"not the weights")
    with pytest.raises(pd.CheckpointError, match="md5 is .* expected "
                       "4d473c1dd8becc155b73f8504c6f6626"):
        A.ResNet50(include_top=False, input_shape=(32, 32, 3))


# ---- arguments --------------------------------------------------------------------------

def test_input_tensor_and_its_source_inputs():
    images = pd.Input(shape=(32, 32, 3))
    scaled = images * (1 / 255.0)
    model = A.VGG16(weights=None, include_top=False, input_tensor=scaled, pooling="max")
    assert model.input is images and model.output.shape == (None, 512)
    x = np.full((1, 32, 32, 3), 255.0, "float32")
    np.testing.assert_allclose(model.predict(x, verbose=0),
                               model.predict(x, verbose=0))  # runs end to end
    with pytest.raises(TypeError, match="VGG16: expected input_tensor to be a symbolic"):
        A.VGG16(weights=None, include_top=False, input_tensor=np.zeros((1, 32, 32, 3)))


@pytest.mark.parametrize("call, message", [
    (lambda: A.VGG16(weights="nowhere.h5"), "expected weights to be None"),
    (lambda: A.VGG16(weights="imagenet", classes=10), "classes must be 1000"),
    (lambda: A.VGG19(weights=None, input_shape=(16, 16, 3), include_top=False),
     "at least 32x32"),
    (lambda: A.VGG19(weights=None, input_shape=(32, 32)), "tuple of three positive"),
    (lambda: A.VGG19(weights=None, include_top=True, input_shape=(None, None, 3)),
     "must be static"),
    (lambda: A.ResNet50(weights="imagenet", input_shape=(200, 200, 3)),
     r"input_shape must be \(224, 224, 3\)"),
    (lambda: A.ResNet50(weights=None, include_top=False, pooling="mean"),
     "expected pooling None, 'avg' or 'max'"),
    (lambda: A.MobileNetV2(weights="imagenet", alpha=0.6, include_top=False),
     "alpha in"),
    (lambda: A.MobileNetV2(weights=None, alpha=0), "alpha to be a positive number"),
    (lambda: A.VGG16(weights="imagenet", classifier_activation="relu"),
     "classifier_activation must be None or 'softmax'"),
    (lambda: A.VGG16(weights=None, classes=0), "classes to be a positive integer"),
])
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_unusual_channel_count_warns_as_keras():
    with pytest.warns(UserWarning, match="1 or 3 input channels"):
        model = A.VGG16(weights=None, include_top=False, input_shape=(32, 32, 4))
    assert model.input.shape == (None, 32, 32, 4)
