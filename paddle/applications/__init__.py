"""Keras's ready-made image models (`keras.applications`): the same architectures, layer
names and parameter counts, built from paddle's layers (ported from Keras's own sources).

    model = pd.applications.VGG19(weights=None)      # random initialization
    model = pd.applications.VGG19(weights="vgg19_weights_tf_dim_ordering_tf_kernels.h5")

`weights="imagenet"` reads Keras's weights file from Keras's cache folder
(`$KERAS_HOME/models/`, by default `~/.keras/models/`, where Keras leaves what it downloads),
downloading it there from Keras's address first when it is missing (deadline, size cap,
Keras's hash); offline, a `pd.CheckpointError` says where to put it.
Each model's module has its `preprocess_input` and `decode_predictions`, as in Keras
(`pd.applications.vgg19.preprocess_input`). Only channels_last images (Keras's default).
"""
from paddle.applications import (  # noqa: F401
    convnext, densenet, efficientnet, efficientnet_v2, imagenet_utils, inception_resnet_v2,
    inception_v3, mobilenet, mobilenet_v2, mobilenet_v3, nasnet, resnet, resnet50, resnet_v2,
    vgg16, vgg19, xception)
from paddle.applications.convnext import (  # noqa: F401
    ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge)
from paddle.applications.densenet import DenseNet121, DenseNet169, DenseNet201  # noqa: F401
from paddle.applications.efficientnet import (  # noqa: F401
    EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3, EfficientNetB4,
    EfficientNetB5, EfficientNetB6, EfficientNetB7)
from paddle.applications.efficientnet_v2 import (  # noqa: F401
    EfficientNetV2B0, EfficientNetV2B1, EfficientNetV2B2, EfficientNetV2B3, EfficientNetV2L,
    EfficientNetV2M, EfficientNetV2S)
from paddle.applications.inception_resnet_v2 import InceptionResNetV2  # noqa: F401
from paddle.applications.inception_v3 import InceptionV3  # noqa: F401
from paddle.applications.mobilenet import MobileNet  # noqa: F401
from paddle.applications.mobilenet_v2 import MobileNetV2  # noqa: F401
from paddle.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small  # noqa: F401
from paddle.applications.nasnet import NASNetLarge, NASNetMobile  # noqa: F401
from paddle.applications.resnet import ResNet50, ResNet101, ResNet152  # noqa: F401
from paddle.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2  # noqa: F401
from paddle.applications.vgg16 import VGG16  # noqa: F401
from paddle.applications.vgg19 import VGG19  # noqa: F401
from paddle.applications.xception import Xception  # noqa: F401
