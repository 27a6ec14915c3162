"""VGG19 (Simonyan and Zisserman, ICLR 2015), as Keras's `keras.applications.vgg19`: the
same layers, layer names and parameter counts, so Keras's weights files load into it."""
from paddle.applications import imagenet_utils
from paddle.applications.vgg16 import build_vgg

WEIGHTS_URL = ("https://storage.googleapis.com/tensorflow/keras-applications/vgg19/"
               "vgg19_weights_tf_dim_ordering_tf_kernels{}.h5")
WEIGHTS_HASHES = {True: "cbe5617147190e668d6c5d5026f83318",
                  False: "253f8cb515780f3b799900260a226db6"}


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg19"):
    """The VGG19 model (16 convolutions in 5 blocks, then 3 dense layers), as Keras's.

    The arguments are those of `pd.applications.VGG16`, which documents them.

    Example:
        >>> import paddle as pd
        >>> model = pd.applications.VGG19(weights=None, include_top=False,
        ...                               input_shape=(32, 32, 3))
        >>> [layer.name for layer in model.layers][-2:], model.output.shape
        (['block5_conv4', 'block5_pool'], (None, 1, 1, 512))
    """
    return build_vgg("VGG19", (2, 2, 4, 4, 4), include_top, weights, input_tensor,
                     input_shape, pooling, classes, classifier_activation, name,
                     WEIGHTS_URL, WEIGHTS_HASHES, "vgg19")


def preprocess_input(x, data_format=None):
    """VGG19's preprocessing: RGB to BGR, then the ImageNet mean pixel subtracted (Keras's
    "caffe" mode of `imagenet_utils.preprocess_input`, which documents the arguments)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """The top ImageNet classes of each prediction (`imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
