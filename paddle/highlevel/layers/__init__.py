"""The layer catalogue (`pd.layers.*`), Keras names and defaults (channels_last)."""
from paddle.highlevel.layers.base import Input, InputSpec, Layer  # noqa: F401
from paddle.highlevel.layers.core import (  # noqa: F401
    Activation, Dense, Flatten, Identity, InputLayer, Lambda, Masking, Permute, Reshape)
from paddle.highlevel.layers.conv import (  # noqa: F401
    Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D)
from paddle.highlevel.layers.conv_composed import (  # noqa: F401
    Conv1DTranspose, Conv3D, Conv3DTranspose, DepthwiseConv1D, SeparableConv1D,
    SeparableConv2D)
from paddle.highlevel.layers.einsum_dense import EinsumDense  # noqa: F401
from paddle.highlevel.layers.merge import (  # noqa: F401
    Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract, add, average,
    concatenate, dot, maximum, minimum, multiply, subtract)
from paddle.highlevel.layers.activations import ELU, LeakyReLU, PReLU, ReLU, Softmax  # noqa: F401
from paddle.highlevel.layers.reshaping import (  # noqa: F401
    Cropping1D, Cropping2D, Cropping3D, RepeatVector, UpSampling1D, UpSampling2D, UpSampling3D,
    ZeroPadding1D, ZeroPadding2D, ZeroPadding3D)
from paddle.highlevel.layers.wrappers import TimeDistributed, Wrapper  # noqa: F401
from paddle.highlevel.layers.spectral_normalization import SpectralNormalization  # noqa: F401
from paddle.highlevel.layers.recurrent import GRU, LSTM, Bidirectional, SimpleRNN  # noqa: F401
from paddle.highlevel.layers.conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D  # noqa: F401
from paddle.highlevel.layers.rnn_cells import (  # noqa: F401
    RNN, GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells)
from paddle.highlevel.layers.attention import (  # noqa: F401
    AdditiveAttention, Attention, GroupedQueryAttention, MultiHeadAttention)
GroupQueryAttention = GroupedQueryAttention  # Keras's public name of its GroupedQueryAttention
from paddle.highlevel.layers.pooling import (  # noqa: F401
    AdaptiveAveragePooling1D, AdaptiveAveragePooling2D, AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D, AdaptiveMaxPooling2D, AdaptiveMaxPooling3D, AveragePooling1D,
    AveragePooling2D, AveragePooling3D, GlobalAveragePooling1D, GlobalAveragePooling2D,
    GlobalAveragePooling3D, GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D,
    MaxPooling1D, MaxPooling2D, MaxPooling3D)
from paddle.highlevel.layers.normalization import (  # noqa: F401
    BatchNormalization, GroupNormalization, LayerNormalization, RMSNormalization,
    UnitNormalization)
from paddle.highlevel.layers.regularization import (  # noqa: F401
    ActivityRegularization, AlphaDropout, Dropout, GaussianDropout, GaussianNoise,
    SpatialDropout1D, SpatialDropout2D, SpatialDropout3D)
from paddle.highlevel.layers.preprocessing import (  # noqa: F401
    CategoryEncoding, Discretization, Normalization, Rescaling)
from paddle.highlevel.layers.lookup import (  # noqa: F401
    HashedCrossing, Hashing, IntegerLookup, StringLookup)
from paddle.highlevel.layers.text_vectorization import TextVectorization  # noqa: F401
from paddle.highlevel.layers.image_preprocessing import (  # noqa: F401
    CenterCrop, RandomBrightness, RandomContrast, RandomCrop, RandomFlip, Resizing)
from paddle.highlevel.layers.bounding_box_layers import MaxNumBoundingBoxes  # noqa: F401
from paddle.highlevel.layers.image_affine import (  # noqa: F401
    RandomPerspective, RandomRotation, RandomShear, RandomTranslation, RandomZoom)
from paddle.highlevel.layers.color_augmentation import (  # noqa: F401
    AutoContrast, RandomColorDegeneration, RandomColorJitter, RandomGrayscale, RandomHue,
    RandomInvert, RandomSaturation, Solarization)
from paddle.highlevel.layers.mixing_augmentation import (  # noqa: F401
    CutMix, MixUp, RandomErasing)
from paddle.highlevel.layers.histogram_augmentation import (  # noqa: F401
    ContrastLimitedAdaptiveHistogramEqualization, Equalization)
from paddle.highlevel.layers.image_blur import (  # noqa: F401
    RandomElasticTransform, RandomGaussianBlur)
from paddle.highlevel.layers.rand_augment import (  # noqa: F401
    AugMix, RandAugment, RandomPosterization, RandomSharpness)
from paddle.highlevel.layers.embedding import Embedding, ReversibleEmbedding  # noqa: F401
from paddle.highlevel.layers.pipeline import Pipeline  # noqa: F401
from paddle.highlevel.layers.audio import MelSpectrogram, STFTSpectrogram  # noqa: F401
from paddle.highlevel.saving.registry import register_family as _register_family
from paddle.highlevel.saving.serialization import (
    deserialize_keras_object as _deserialize_keras_object,
    serialize_keras_object as _serialize_keras_object)

# Keras's other names for the same classes (keras.layers.MaxPool2D is MaxPooling2D).
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
Convolution1D, Convolution2D, Convolution2DTranspose = Conv1D, Conv2D, Conv2DTranspose
Convolution1DTranspose = Conv1DTranspose
Convolution3D, Convolution3DTranspose = Conv3D, Conv3DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D

def serialize(layer):
    """Keras's `keras.layers.serialize`: the layer's `{"module", "class_name", "config",
    "registered_name"}` (`pd.saving.serialize_keras_object` of a layer).

    Example:
        >>> import paddle as pd
        >>> config = pd.layers.serialize(pd.layers.Dense(4, name="d"))
        >>> pd.layers.deserialize(config).units
        4
    """
    if not isinstance(layer, Layer):
        raise TypeError(f"layers.serialize: expected a layer, received "
                        f"{type(layer).__name__}")
    return _serialize_keras_object(layer)


def deserialize(config, custom_objects=None):
    """Keras's `keras.layers.deserialize`: a new layer from `serialize`'s dict (custom
    classes registered, in a custom object scope, or in `custom_objects`)."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"layers.deserialize: expected a dict with 'class_name' and "
                         f"'config', received {config!r}")
    layer = _deserialize_keras_object(config, custom_objects=custom_objects)
    if not isinstance(layer, Layer):
        raise ValueError(f"layers.deserialize: {config['class_name']!r} is not a layer "
                         f"(received a {type(layer).__name__})")
    return layer


_register_family("keras.layers", globals())
