"""MobileNetV2 (Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks",
CVPR 2018), as Keras's `keras.applications.mobilenet_v2`: the same layers, layer names and
parameter counts, so Keras's weights files load into it."""
import warnings

import numpy as np

from paddle.applications import imagenet_utils
from paddle.highlevel import layers
from paddle.highlevel.models.model import Model

WEIGHTS_URL = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/{}"
SIZES = (96, 128, 160, 192, 224)           # the input sides ImageNet weights exist for
ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)  # the widths ImageNet weights exist for
# (filters, stride, expansion) of the 17 inverted residual blocks
BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
          (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6),
          (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", name=None):
    """The MobileNetV2 model, as Keras's (arguments in Keras's order: input_shape first).

    Args:
        alpha: the width multiplier: < 1 thins every layer, > 1 widens it (ImageNet
            weights exist for 0.35, 0.5, 0.75, 1.0, 1.3 and 1.4).
        name: the model's name; by default Keras's "mobilenetv2_{alpha:.2f}_{rows}".
        The other arguments are those of `pd.applications.VGG16`, which documents them;
        without `input_shape` the side is the input_tensor's when square and one of 96,
        128, 160, 192 or 224, else 224.

    Example:
        >>> import paddle as pd
        >>> model = pd.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35,
        ...                                     weights=None, classes=7)
        >>> model.name, model.output.shape, model.count_params()
        ('mobilenetv2_0.35_96', (None, 7), 419175)
    """
    who = "MobileNetV2"
    imagenet_utils.check_weights(who, weights, include_top, classes)
    imagenet_utils.check_pooling(who, pooling)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or \
            not alpha > 0:
        raise ValueError(f"{who}: expected alpha to be a positive number, received "
                         f"alpha={alpha!r}")
    default_size = _default_size(who, input_shape, input_tensor)
    input_shape = imagenet_utils.obtain_input_shape(
        who, input_shape, default_size=default_size, min_size=32,
        require_flatten=include_top, weights=weights)
    rows, cols = input_shape[0], input_shape[1]
    if weights == "imagenet":
        if alpha not in ALPHAS:
            raise ValueError(f"{who}: ImageNet weights exist for alpha in {ALPHAS}, received "
                             f"alpha={alpha!r}")
        if rows != cols or rows not in SIZES:
            rows = 224
            warnings.warn(f"{who}: input_shape is undefined, not square or its side not one "
                          f"of {SIZES}: the weights of the 224x224 model are loaded",
                          stacklevel=2)
    if include_top:
        imagenet_utils.validate_activation(who, classifier_activation, weights)
    fname = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}" + \
        ("" if include_top else "_no_top") + ".h5"
    path = imagenet_utils.weights_path(who, weights, fname, WEIGHTS_URL.format(fname),
                                       None)  # Keras checks no hash for these files
    x, inputs = imagenet_utils.image_input(who, input_tensor, input_shape)
    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)
    last = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    model = Model(inputs, x, name=f"mobilenetv2_{alpha:0.2f}_{rows}" if name is None else name)
    return imagenet_utils.load_weights(model, who, path)


def _default_size(who, input_shape, input_tensor):
    """The side of the ImageNet model to match: the input's when square and one of SIZES."""
    if input_shape is not None:
        rows, cols = input_shape[:2] if isinstance(input_shape, (list, tuple)) and \
            len(input_shape) == 3 else (None, None)
    elif input_tensor is not None and len(getattr(input_tensor, "shape", ())) == 4:
        rows, cols = input_tensor.shape[1:3]
    else:
        return 224
    return rows if rows == cols and rows in SIZES else 224


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    """Expand (1x1), depthwise 3x3, project (1x1, linear); a residual when shapes allow."""
    in_channels = inputs.shape[-1]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same",
                          use_bias=False, activation=None, name=f"{prefix}expand")(x)
        x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999,
                                      name=f"{prefix}expand_BN")(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3),
                                 name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None,
                               use_bias=False, padding="same" if stride == 1 else "valid",
                               name=f"{prefix}depthwise")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}depthwise_BN")(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def _make_divisible(v, divisor, min_value=None):
    """The multiple of `divisor` nearest `v`, never below 90% of it."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def preprocess_input(x, data_format=None):
    """MobileNetV2's preprocessing: pixels scaled to [-1, 1] (Keras's "tf" mode of
    `imagenet_utils.preprocess_input`, which documents the arguments)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    """The top ImageNet classes of each prediction (`imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
