"""Every architecture of keras.applications, as Keras builds it: the same parameter count
with and without the top, and a forward pass that gives finite features.

The Keras numbers are in keras_param_counts.json, written once by Keras 3.15.1 (JAX
backend): `keras.applications.<Model>(weights=None, include_top=...).count_params()`. The
largest models take seconds to build (their weights are initialized): marked slow."""
import json
import os

import numpy as np
import pytest

import paddle as pd

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "keras_param_counts.json")) as f:
    KERAS = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
SLOW = {"ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge", "EfficientNetB5", "EfficientNetB6",
        "EfficientNetB7", "EfficientNetV2M", "EfficientNetV2L", "NASNetLarge", "VGG16",
        "VGG19", "ResNet152", "ResNet152V2", "InceptionResNetV2"}
MODELS = sorted({key.split("/")[0] for key in KERAS})


def test_every_keras_architecture_is_here():
    assert len(MODELS) == 40
    for name in MODELS:
        assert callable(getattr(pd.applications, name)), name


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in MODELS])
def test_parameter_counts_are_keras(name):
    for top in (True, False):
        model = getattr(pd.applications, name)(weights=None, include_top=top)
        assert model.count_params() == KERAS[f"{name}/{top}"], (name, top)


@pytest.mark.parametrize("name, size", [
    ("MobileNet", 32), ("MobileNetV3Small", 32), ("MobileNetV3Large", 32), ("DenseNet121", 32),
    ("EfficientNetB0", 32), ("EfficientNetV2B0", 32), ("ConvNeXtTiny", 32),
    ("NASNetMobile", 32), ("ResNet50V2", 32), ("ResNet101", 32), ("Xception", 71),
    ("InceptionV3", 75), pytest.param("InceptionResNetV2", 75, marks=pytest.mark.slow)])
def test_features_of_a_small_batch(name, size):
    model = getattr(pd.applications, name)(weights=None, include_top=False, pooling="avg",
                                           input_shape=(size, size, 3))
    images = np.random.default_rng(0).uniform(0, 255, (2, size, size, 3)).astype(np.float32)
    features = model.predict(images, verbose=0)
    assert features.shape == (2, model.output.shape[-1])
    assert np.isfinite(features).all()


def test_each_module_has_keras_preprocessing():
    x = np.full((1, 4, 4, 3), 127.5, np.float32)
    # "tf" mode scales to [-1, 1]; "torch" mode to ImageNet's standardized values; the
    # EfficientNet and ConvNeXt models standardize inside (their preprocess_input passes).
    np.testing.assert_allclose(pd.applications.xception.preprocess_input(x.copy()), 0.0,
                               atol=1e-6)
    np.testing.assert_allclose(pd.applications.densenet.preprocess_input(x.copy())[0, 0, 0],
                               (0.5 - np.array([0.485, 0.456, 0.406])) /
                               np.array([0.229, 0.224, 0.225]), rtol=1e-5)
    np.testing.assert_array_equal(pd.applications.efficientnet.preprocess_input(x), x)
    np.testing.assert_array_equal(pd.applications.convnext.preprocess_input(x), x)


def test_bad_pooling_is_refused_by_every_family():
    for name in ("MobileNetV3Small", "DenseNet121", "EfficientNetB0", "ConvNeXtTiny"):
        with pytest.raises(ValueError, match="expected pooling None, 'avg' or 'max'"):
            getattr(pd.applications, name)(weights=None, include_top=False, pooling="mean")
