"""Every op of the low level, re-exported flat (`pd.matmul`, `pd.softmax`, ...)."""
from paddle.lowlevel.ops.math import (  # noqa: F401
    abs, add, broadcast_to, cast, clip, div, equal, erf, exp, greater, greater_equal, less,
    less_equal, log, log1p, maximum, minimum, mul, neg, not_equal, ones_like, pow, relu, sigmoid,
    sign, sqrt, square, sub, tanh, where, zeros_like)
from paddle.lowlevel.ops.matmul import matmul  # noqa: F401
from paddle.lowlevel.ops.reduce import argmax, max, mean, min, sum  # noqa: F401
from paddle.lowlevel.ops.shape import (  # noqa: F401
    concat, expand_dims, flatten, gather, one_hot, pad, reshape, slice, split, squeeze, stack,
    transpose)
from paddle.lowlevel.ops.activations import (  # noqa: F401
    elu, gelu, leaky_relu, log_softmax, silu, softmax, softplus)
from paddle.lowlevel.ops.losses import (  # noqa: F401
    accuracy, cross_entropy, huber, mae, mse, sigmoid_cross_entropy, softmax_cross_entropy)
from paddle.lowlevel.ops.conv import conv1d, conv2d, conv2d_transpose  # noqa: F401
from paddle.lowlevel.ops.pool import (  # noqa: F401
    avg_pool1d, avg_pool2d, global_avg_pool2d, max_pool1d, max_pool2d)
from paddle.lowlevel.ops.norm import batch_norm, layer_norm  # noqa: F401
from paddle.lowlevel.ops.nn import dropout, embedding  # noqa: F401
from paddle.lowlevel.ops.recurrent import gru, lstm  # noqa: F401
from paddle.lowlevel.ops.state import assign  # noqa: F401
# Registers the random op; pd.random (paddle/random.py) is its public face, so the module
# is not left as a name of this package (where `import *` would export it).
from paddle.lowlevel.ops import sampling as _sampling  # noqa: F401,E402
del sampling  # noqa: F821
# The ordering ops (argsort, take_along_axis, cumsum, cumprod, diff): pd.ops's Keras
# functions (paddle/ops/numpy_array.py) are their public face, as pd.ops.prod is prod's
# (reduce.py) and pd.ops.logsumexp the last-axis logsumexp's (activations.py).
from paddle.lowlevel.ops import sort as _sort  # noqa: F401,E402
del sort  # noqa: F821

# The op functions only: `from paddle.lowlevel.ops import *` (and so `pd`) must not pick up
# the family modules (`pd.shape` was the module of shape ops, not a function).
import types as _types  # noqa: E402

__all__ = sorted(name for name, value in list(globals().items())
                 if not name.startswith("_") and not isinstance(value, _types.ModuleType))
