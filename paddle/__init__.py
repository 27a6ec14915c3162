"""paddle: Keras-style models on a graph of ops that run on native kernels.

    import paddle as pd

`paddle.lowlevel` holds Variables, ops, gradients, optimizers and eval; `paddle.highlevel`
holds layers, models and the training loop. Both are re-exported here. See
docs/architecture.md for how a call travels from user code to the C++ kernels.
"""
# Order matters: NumPy first, then scipy_openblas32 (it loads libscipy_openblas globally,
# which paddle._C links against without an rpath), then the extension.
import numpy as _numpy  # noqa: F401
import scipy_openblas32 as _scipy_openblas32  # noqa: F401


def _import_core():
    """paddle._C, or an ImportError that says what to do when it is not built: most often
    Python found the source tree (a clone's root comes first on sys.path), not the installed
    package."""
    import glob
    import os
    try:
        from paddle import _C
    except ImportError:
        folder = os.path.dirname(os.path.abspath(__file__))
        if glob.glob(os.path.join(folder, "_C.*")):
            raise  # built, but it does not load: the loader's own message says why
        raise ImportError(
            f"paddle: the C++ core paddle._C is not built in {folder}: Python imported the "
            f"unbuilt source tree (the current folder comes first on sys.path), not an "
            f"installed paddle. Either run from another folder (`cd` out of the repository "
            f"root; the tests: `.venv/bin/pytest tests`), or build the core in place: "
            f"`pip install -e .` (or `python setup.py build_ext --inplace`).") from None
    return _C


_C = _import_core()
from paddle.errors import (  # noqa: F401,E402
    CheckpointError, ExportError, FeedError, PaddleError, ShapeError)
from paddle.lowlevel import *  # noqa: F401,F403,E402
from paddle.backend import get_device, set_device  # noqa: F401,E402
from paddle import backend as _backend  # noqa: F401,E402
from paddle.backend import cpu as _cpu  # noqa: F401,E402  (fills the CPU kernel table)
from paddle.backend.cpu import threads as _threads  # noqa: E402
from paddle.backend.cpu.threads import get_num_threads, set_num_threads  # noqa: F401,E402
_threads.apply_default()  # under MPI: the cores shared among this machine's ranks
from paddle import dataset, distributed, reader, utils  # noqa: F401,E402
# pd.random is the Keras-style module (paddle/random.py), not the low-level random state
# (paddle.lowlevel.random).
import importlib as _importlib  # noqa: E402
random = _importlib.import_module("paddle.random")
from paddle.highlevel import Input, Model, Sequential, load_model  # noqa: F401,E402
# Keras 3's base classes at the top level (keras.Layer is keras.layers.Layer, ...).
from paddle.highlevel.layers import InputSpec, Layer  # noqa: F401,E402
from paddle.highlevel.losses import Loss  # noqa: F401,E402
from paddle.highlevel.metrics import Metric  # noqa: F401,E402
from paddle.highlevel.regularizers import Regularizer  # noqa: F401,E402
from paddle.lowlevel.initializers import Initializer  # noqa: F401,E402
from paddle.lowlevel.optimizers import Optimizer  # noqa: F401,E402
# Keras's namespaces as importable modules (`from paddle.layers import Dense`), each
# re-exporting the module of paddle.highlevel or paddle.lowlevel where the code lives.
from paddle import (  # noqa: F401,E402
    activations, callbacks, constraints, initializers, layers, losses, metrics, optimizers,
    regularizers)
from paddle import models, ops, saving, utils  # noqa: F401,E402  (pd.ops: Keras's ops names)
from paddle import applications  # noqa: F401,E402
from paddle.highlevel.trainer import (  # noqa: F401,E402
    BeginEpochEvent, BeginStepEvent, EndEpochEvent, EndStepEvent, Inferencer, Trainer)

__version__ = "0.1.0"
