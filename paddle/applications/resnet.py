"""ResNet50 (He et al., "Deep Residual Learning for Image Recognition", CVPR 2015), as
Keras's `keras.applications.resnet`: the same layers, layer names and parameter counts, so
Keras's weights files load into it."""
from paddle.applications import imagenet_utils
from paddle.highlevel import layers
from paddle.highlevel.models.model import Model

WEIGHTS_URL = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/{}"
WEIGHTS_HASHES = {"resnet50": ("2cb95161c43110f7111970584f804107",
                               "4d473c1dd8becc155b73f8504c6f6626")}


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="resnet50"):
    """The ResNet50 model (v1: bottleneck blocks, 3-4-6-3), as Keras's.

    The arguments are those of `pd.applications.VGG16`, which documents them; the top is
    global average pooling ("avg_pool") and one dense layer ("predictions").

    Example:
        >>> import paddle as pd
        >>> model = pd.applications.ResNet50(weights=None, include_top=False,
        ...                                  input_shape=(32, 32, 3), pooling="avg")
        >>> model.output.shape, model.count_params()
        ((None, 2048), 23587712)
    """
    def stack_fn(x):
        x = _stack(x, 64, 3, stride1=1, name="conv2")
        x = _stack(x, 128, 4, name="conv3")
        x = _stack(x, 256, 6, name="conv4")
        return _stack(x, 512, 3, name="conv5")

    return _resnet("ResNet50", stack_fn, "resnet50", include_top, weights, input_tensor,
                   input_shape, pooling, classes, classifier_activation, name)


def _resnet(who, stack_fn, weights_name, include_top, weights, input_tensor, input_shape,
            pooling, classes, classifier_activation, name):
    imagenet_utils.check_weights(who, weights, include_top, classes)
    imagenet_utils.check_pooling(who, pooling)
    input_shape = imagenet_utils.obtain_input_shape(
        who, input_shape, default_size=224, min_size=32, require_flatten=include_top,
        weights=weights)
    if include_top:
        imagenet_utils.validate_activation(who, classifier_activation, weights)
    fname = f"{weights_name}_weights_tf_dim_ordering_tf_kernels" + \
        ("" if include_top else "_notop") + ".h5"
    path = imagenet_utils.weights_path(who, weights, fname, WEIGHTS_URL.format(fname),
                                       WEIGHTS_HASHES[weights_name][0 if include_top else 1])
    x, inputs = imagenet_utils.image_input(who, input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(x)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    return imagenet_utils.load_weights(Model(inputs, x, name=name), who, path)


def _block(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """A bottleneck residual block (v1): 1x1, kxk, 1x1 convolutions beside a shortcut."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = layers.BatchNormalization(axis=3, epsilon=1.001e-5,
                                             name=f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="same", name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=f"{name}_3_bn")(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def _stack(x, filters, blocks, stride1=2, name=None):
    x = _block(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = _block(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def preprocess_input(x, data_format=None):
    """ResNet's preprocessing: RGB to BGR, then the ImageNet mean pixel subtracted (Keras's
    "caffe" mode of `imagenet_utils.preprocess_input`, which documents the arguments)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """The top ImageNet classes of each prediction (`imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
