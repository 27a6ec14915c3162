"""The low level: Variables, ops, namespaces, gradients, optimizers' update ops, eval.

Data flow: user code builds Variables (graph.py) by calling ops (ops/), each op inferring
its output shape at once (op.py); `eval` (executor.py) compiles the nodes the targets need
into a plan and runs it on the device's kernels (paddle/devices/).
"""
import types as _types

from paddle.lowlevel import initializers, optimizers, random_state, schedules  # noqa: F401
from paddle.lowlevel.creation import arange, full, ones, shape, zeros  # noqa: F401
from paddle.lowlevel.executor import eval  # noqa: F401
from paddle.lowlevel.gradients import gradients  # noqa: F401
from paddle.lowlevel.graph import Variable, constant, data, get_variable, namespace  # noqa: F401
from paddle.lowlevel.layer_functions import fc  # noqa: F401
from paddle.lowlevel.ops import *  # noqa: F401,F403
from paddle.lowlevel.random_state import seed  # noqa: F401
from paddle.lowlevel import eager  # noqa: F401,E402  (installs eager execution in graph.apply)

optimizers.schedules = schedules

# What `from paddle.lowlevel import *` gives `pd`: functions and classes, never modules
# (pd.initializers and pd.optimizers are paddle/initializers.py and paddle/optimizers/,
# which re-export these two).
__all__ = sorted(name for name, value in list(globals().items())
                 if not name.startswith("_") and not isinstance(value, _types.ModuleType))
