"""Keras's ready-made image models (`keras.applications`): the same architectures, layer
names and parameter counts, built from paddle's layers.

    model = pd.applications.VGG19(weights=None)      # random initialization
    model = pd.applications.VGG19(weights="vgg19_weights_tf_dim_ordering_tf_kernels.h5")

`weights="imagenet"` reads Keras's weights file from Keras's cache folder
(`$KERAS_HOME/models/`, by default `~/.keras/models/`, where Keras leaves what it downloads)
and otherwise raises `pd.CheckpointError` saying where to put it: paddle downloads nothing.
Each model's module has its `preprocess_input` and `decode_predictions`, as in Keras
(`pd.applications.vgg19.preprocess_input`). Only channels_last images (Keras's default).
"""
from paddle.applications import (  # noqa: F401
    imagenet_utils, mobilenet_v2, resnet, resnet50, vgg16, vgg19)
from paddle.applications.mobilenet_v2 import MobileNetV2  # noqa: F401
from paddle.applications.resnet import ResNet50  # noqa: F401
from paddle.applications.vgg16 import VGG16  # noqa: F401
from paddle.applications.vgg19 import VGG19  # noqa: F401
