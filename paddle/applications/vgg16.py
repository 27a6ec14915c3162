"""VGG16 (Simonyan and Zisserman, "Very Deep Convolutional Networks for Large-Scale Image
Recognition", ICLR 2015), as Keras's `keras.applications.vgg16`: the same layers, layer
names and parameter counts, so Keras's weights files load into it."""
from paddle.applications import imagenet_utils
from paddle.highlevel import layers
from paddle.highlevel.models.model import Model

WEIGHTS_URL = ("https://storage.googleapis.com/tensorflow/keras-applications/vgg16/"
               "vgg16_weights_tf_dim_ordering_tf_kernels{}.h5")
WEIGHTS_HASHES = {True: "64373286793e3c8b2b4e3219cbf3544b",
                  False: "6d6bbae143d832006294945121d1f1fc"}


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg16"):
    """The VGG16 model (13 convolutions in 5 blocks, then 3 dense layers), as Keras's.

    Args:
        include_top: whether to end with the 3 dense layers (flatten, fc1, fc2,
            predictions); the input is then 224x224x3 unless `weights` is None.
        weights: None (random initialization), "imagenet" (Keras's ImageNet weights,
            read from Keras's cache folder, downloaded there first when missing, see
            `pd.applications.imagenet_utils`) or the path of a weights file (a Keras or
            paddle `.h5`, `.weights.h5` or `.keras` file of this architecture).
        input_tensor: a symbolic Variable (`pd.Input(...)` or layers on it) to start from.
        input_shape: (height, width, channels), each side at least 32; by default
            (224, 224, 3) with the top, (None, None, 3) without.
        pooling: without the top, None (the last block's 4D output), "avg" or "max"
            (global pooling to a 2D output).
        classes: the number of classes of the top (1000 with ImageNet weights).
        classifier_activation: the top's activation (a name, a callable or None).
        name: the model's name.

    Returns:
        A functional `pd.Model`.

    Raises:
        ValueError: an argument Keras refuses (see `imagenet_utils`).
        pd.CheckpointError: weights="imagenet" and the file is not in Keras's cache.

    Example:
        >>> import paddle as pd
        >>> model = pd.applications.VGG16(weights=None, include_top=False,
        ...                               input_shape=(32, 32, 3), pooling="avg")
        >>> model.output.shape, model.count_params()
        ((None, 512), 14714688)
    """
    return build_vgg("VGG16", (2, 2, 3, 3, 3), include_top, weights, input_tensor,
                     input_shape, pooling, classes, classifier_activation, name,
                     WEIGHTS_URL, WEIGHTS_HASHES, "vgg16")


def build_vgg(who, convs, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation, name, url, hashes, file_prefix):
    """A VGG network with `convs[i]` 3x3 convolutions in block i+1 (Keras's layer names)."""
    imagenet_utils.check_weights(who, weights, include_top, classes)
    imagenet_utils.check_pooling(who, pooling)
    input_shape = imagenet_utils.obtain_input_shape(
        who, input_shape, default_size=224, min_size=32, require_flatten=include_top,
        weights=weights)
    if include_top:
        imagenet_utils.validate_activation(who, classifier_activation, weights)
    suffix = "" if include_top else "_notop"
    path = imagenet_utils.weights_path(
        who, weights, f"{file_prefix}_weights_tf_dim_ordering_tf_kernels{suffix}.h5",
        url.format(suffix), hashes[bool(include_top)])
    x, inputs = imagenet_utils.image_input(who, input_tensor, input_shape)
    for block, (count, filters) in enumerate(zip(convs, (64, 128, 256, 512, 512)), 1):
        for i in range(1, count + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    return imagenet_utils.load_weights(Model(inputs, x, name=name), who, path)


def preprocess_input(x, data_format=None):
    """VGG16's preprocessing: RGB to BGR, then the ImageNet mean pixel subtracted (Keras's
    "caffe" mode of `imagenet_utils.preprocess_input`, which documents the arguments)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """The top ImageNet classes of each prediction (`imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
