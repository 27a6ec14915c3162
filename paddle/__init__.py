"""paddle: Keras-style models on a graph of ops that run on native kernels.

    import paddle as pd

`paddle.lowlevel` holds Variables, ops, gradients, optimizers and eval; `paddle.highlevel`
holds layers, models and the training loop. Both are re-exported here. See
docs/architecture.md for how a call travels from user code to the C++ kernels.
"""
# Order matters: NumPy first, then scipy_openblas32 (it loads libscipy_openblas globally,
# which paddle._C links against without an rpath), then the extension.
import numpy  # noqa: F401
import scipy_openblas32  # noqa: F401

from paddle import _C  # noqa: F401
from paddle.errors import CheckpointError, FeedError, PaddleError, ShapeError  # noqa: F401
from paddle.lowlevel import *  # noqa: F401,F403
from paddle.lowlevel import initializers, optimizers  # noqa: F401
from paddle.backend import get_device, set_device  # noqa: F401
from paddle import backend as _backend  # noqa: F401
import paddle.backend.cpu  # noqa: F401,E402  (fills the CPU kernel table)
from paddle import dataset, reader, utils  # noqa: F401,E402
# pd.random is the Keras-style module (paddle/random.py), not the low-level random state
# (paddle.lowlevel.random) that `import *` above brought in under the same name.
import importlib as _importlib  # noqa: E402
random = _importlib.import_module("paddle.random")
from paddle.highlevel import Input, Model, Sequential, load_model  # noqa: F401,E402
from paddle.highlevel import callbacks, layers, losses, metrics, regularizers  # noqa: F401,E402
from paddle import models, saving, utils  # noqa: F401,E402
from paddle.highlevel.trainer import (  # noqa: F401,E402
    BeginEpochEvent, BeginStepEvent, EndEpochEvent, EndStepEvent, Inferencer, Trainer)

__version__ = "0.1.0"
