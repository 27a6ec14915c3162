"""The layer catalogue (`pd.layers.*`), Keras names and defaults (channels_last)."""
from paddle.highlevel.layers.base import Input, InputSpec, Layer  # noqa: F401
from paddle.highlevel.layers.core import (  # noqa: F401
    Activation, Dense, Flatten, Lambda, Permute, Reshape)
from paddle.highlevel.layers.conv import (  # noqa: F401
    Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D)
from paddle.highlevel.layers.merge import Add, Concatenate, Multiply  # noqa: F401
from paddle.highlevel.layers.recurrent import GRU, LSTM, Bidirectional, SimpleRNN  # noqa: F401
from paddle.highlevel.layers.attention import MultiHeadAttention  # noqa: F401
from paddle.highlevel.layers.pooling import (  # noqa: F401
    AveragePooling1D, AveragePooling2D, GlobalAveragePooling1D, GlobalAveragePooling2D,
    GlobalMaxPooling1D, GlobalMaxPooling2D, MaxPooling1D, MaxPooling2D)
from paddle.highlevel.layers.normalization import (  # noqa: F401
    BatchNormalization, LayerNormalization)
from paddle.highlevel.layers.regularization import Dropout  # noqa: F401
from paddle.highlevel.layers.embedding import Embedding  # noqa: F401
