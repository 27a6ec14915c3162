"""paddle: a deep-learning library of two levels, Keras-style models on a graph of ops, both
running on native kernels (C++ with OpenMP and OpenBLAS; NVIDIA GPUs through CuPy).

    import paddle as pd

The high level is Keras 3's API (the code lives in paddle.highlevel):

    model = pd.Sequential([pd.layers.Input(shape=(784,)),
                           pd.layers.Dense(128, activation="relu"),
                           pd.layers.Dense(10)])
    model.compile(optimizer="adam", metrics=["accuracy"],
                  loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x_train, y_train, epochs=5, validation_split=0.1)
    model.save("model.keras")                  # pd.load_model("model.keras") gives it back

  Entry points: pd.Model, pd.Sequential, pd.Input, pd.load_model, and Keras's namespaces
  pd.layers, pd.losses, pd.metrics, pd.optimizers, pd.callbacks, pd.activations,
  pd.initializers, pd.regularizers, pd.constraints, pd.models, pd.saving, pd.ops,
  pd.random, pd.utils, pd.applications, pd.config, pd.backend, pd.tree, pd.dtype_policies,
  pd.mixed_precision (`from paddle.layers import Dense` works too).

The low level builds a graph of Variables whose shapes are inferred as each op is called,
with symbolic gradients (the code lives in paddle.lowlevel):

    x = pd.data("x", shape=[None, 784])
    y = pd.data("y", shape=[None], dtype="int64")
    logits = pd.fc(pd.fc(x, size=128, act="relu"), size=10)
    loss = pd.mean(pd.softmax_cross_entropy(logits, y))
    step = pd.optimizers.Adam(learning_rate=1e-3).minimize(loss)
    loss_value, _ = pd.eval([loss, step], feeds={x: x_batch, y: y_batch})

  Entry points: pd.data, pd.eval, pd.gradients, pd.namespace, pd.seed, and the ops at the
  top level (pd.matmul, pd.conv2d, pd.relu, pd.softmax_cross_entropy, ...).

Also: pd.set_device("gpu") and pd.set_num_threads(n) (where it runs); pd.distributed (data
parallel over MPI); pd.reader and pd.dataset (data); model.export("m.onnx", format="onnx")
and paddle.capi (deployment; a C API). Mistakes raise pd.ShapeError, pd.FeedError,
pd.CheckpointError or pd.ExportError (all pd.PaddleError) saying what was expected, what was
received and the line of your code that did it.

Documentation: every public name has a docstring with an example (help(pd.Model.fit),
help(pd.layers.Dense), help(pd.eval)). The guides are the Markdown files in docs/ of the
source distribution and repository: highlevel.md and lowlevel.md (the two levels), keras.md
(for Keras users: every Keras 3 name, same or different), callbacks.md, saving.md, data.md,
gpu.md, distributed.md, deployment.md, monitoring.md, c_api.md, architecture.md (how a call
travels from your code to the kernels) and api.md (every public name).
"""
# Order matters: NumPy first, then scipy_openblas32 (it loads libscipy_openblas globally,
# which paddle._C links against without an rpath), then the extension.
import numpy as _numpy  # noqa: F401
import scipy_openblas32 as _scipy_openblas32  # noqa: F401

# How long an OpenMP thread of the kernels spins at a barrier, or waiting for the next
# parallel region, before it sleeps: libgomp's default is 300,000 spins (milliseconds on
# this hardware). While another process holds a core, a spinning thread burns the time the
# thread it waits for needs: a resnet step took 2x its CPU time and 2-3x its wall time on
# a loaded machine (docs/performance.md, "Sharing the machine"). 10,000 spins still
# bridge the microseconds between one kernel and the next. libgomp reads it once, when
# paddle._C loads it; a user's GOMP_SPINCOUNT or OMP_WAIT_POLICY wins.
_GOMP_SPINCOUNT = "10000"


def _import_core():
    """paddle._C, or an ImportError that says what to do when it is not built: most often
    Python found the source tree (a clone's root comes first on sys.path), not the installed
    package."""
    import glob  # only here: the names stay out of the paddle namespace
    import os  # likewise
    spin = not any(os.environ.get(k, "").strip() for k in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY"))
    if spin:
        os.environ["GOMP_SPINCOUNT"] = _GOMP_SPINCOUNT  # for libgomp only: removed below
    try:
        from paddle import _C  # the compiled core: first, so its absence is explained
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
    finally:
        if spin:
            os.environ.pop("GOMP_SPINCOUNT", None)  # child processes see the user's own
    return _C


_C = _import_core()
from paddle.errors import (  # noqa: F401,E402
    CheckpointError, ExportError, FeedError, PaddleError, ShapeError)
from paddle.lowlevel import *  # noqa: F401,F403,E402
from paddle.devices import device, get_device, set_device  # noqa: F401,E402
from paddle import devices  # noqa: F401,E402  (pd.devices: the CPU and the GPUs)
from paddle.devices import cpu as _cpu  # noqa: F401,E402  (fills the CPU kernel table)
from paddle.devices.cpu import threads as _threads  # noqa: E402
from paddle.devices.cpu.threads import get_num_threads, set_num_threads  # noqa: F401,E402
_threads.apply_default()  # under MPI: the cores shared among this machine's ranks
from paddle import dataset, distributed, reader, utils  # noqa: F401,E402
# pd.random is the Keras-style module (paddle/random.py), not the low-level random state
# (paddle.lowlevel.random_state).
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
from paddle import applications, profiler  # noqa: F401,E402
from paddle import datasets, preprocessing  # noqa: F401,E402  (Keras's namespaces)
from paddle import export  # noqa: F401,E402  (registers the exporters Model.export reads)
# Keras's other namespaces: settings, dtype utilities, nested structures, dtype policies.
from paddle import (  # noqa: F401,E402
    backend, config, distillation, distribution, dtype_policies, legacy, mixed_precision,
    quantizers, tree, visualization)
from paddle.highlevel.dtype_policies import DTypePolicy, FloatDTypePolicy  # noqa: F401,E402
from paddle.lowlevel.name_scope import name_scope  # noqa: F401,E402
from paddle.highlevel.quantizers import Quantizer  # noqa: F401,E402
KerasTensor = Variable  # noqa: F405  (Keras's symbolic tensor: paddle's graph Variable)
# Keras 3's operation, scope and rematerialization names at the top level.
from paddle.highlevel.operation import Function, Operation  # noqa: F401,E402
from paddle.highlevel.layers.remat import RematScope, remat  # noqa: F401,E402
from paddle.lowlevel.scopes import StatelessScope, SymbolicScope  # noqa: F401,E402

from paddle.highlevel.training.event_trainer import (  # noqa: F401,E402
    BeginEpochEvent, BeginStepEvent, EndEpochEvent, EndStepEvent, Inferencer, Trainer)

from paddle._version import __version__, version  # noqa: F401,E402


def __getattr__(name):
    """`pd.wrappers` is imported on first use: it imports scikit-learn, which takes
    seconds."""
    if name == "wrappers":
        return _importlib.import_module("paddle.wrappers")
    raise AttributeError(f"module 'paddle' has no attribute {name!r}")
