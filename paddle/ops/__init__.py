"""`pd.ops`: the op functions under Keras 3's `keras.ops` names, for code ported from Keras.

Everything at the top level of `pd` that is an op is here too (`pd.ops.matmul`,
`pd.ops.softmax`, `pd.ops.shape`, `pd.ops.ones`, ...), plus Keras's spellings of the
same ops: `concatenate` (concat), `multiply`, `subtract`, `divide`, `power`, `negative`,
`absolute`, `convert_to_tensor` (a constant, or the Variable itself), `convert_to_numpy`
(evaluates a Variable that needs no feeds), `sum`/`mean`/`max`/`min` with `axis` and
`keepdims`.

`paddle/ops/` is a package so that Keras's submodules (`keras.ops.nn`, `keras.ops.numpy`,
`keras.ops.linalg`) can be added beside this namespace as modules of their own.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.ops.convert_to_tensor(np.array([[1.0, 2.0]], np.float32))
    >>> pd.ops.convert_to_numpy(pd.ops.concatenate([x, pd.ops.ones((1, 1))], axis=-1)).tolist()
    [[1.0, 2.0, 1.0]]
"""
import sys as _sys
import types as _types

import numpy as _np


from paddle.lowlevel.creation import arange, full, ones, shape, zeros  # noqa: F401
from paddle.lowlevel.executor import eval as _eval
from paddle.lowlevel.graph import Variable, constant
from paddle.lowlevel.ops import *  # noqa: F401,F403
from paddle.lowlevel.ops import abs, add, concat, div, mul, neg, pow, sub  # noqa: F401
from paddle.lowlevel.ops.math import cast
from paddle.ops.core import *  # noqa: F401,F403


# one_hot (Keras's, any axis, zero rows for ids outside the classes) is in paddle/ops/nn.py.


def concatenate(xs, axis=0):
    """Keras's name for `concat` (default axis 0, as keras.ops.concatenate)."""
    return concat(xs, axis=axis)


def convert_to_tensor(x, dtype=None):
    """A Variable stays itself (cast if `dtype` differs); anything else becomes a constant
    with `pd.constant`'s dtype rule."""
    if isinstance(x, Variable):
        return x if dtype is None or dtype == x.dtype else cast(x, dtype)
    return constant(x, dtype=dtype)


def convert_to_numpy(x):
    """The NumPy value of a Variable that needs no feeds (constants, parameters, ops on
    them), or `np.asarray(x)` for anything else."""
    if isinstance(x, Variable):
        return _eval(x)
    return _np.asarray(x)


# divide and true_divide (true division, integers as float32) are in numpy_math.
multiply, subtract, power, negative, absolute = mul, sub, pow, neg, abs
from paddle.ops.numpy_math import *  # noqa: F401,F403,E402
from paddle.ops.nn import *  # noqa: F401,F403,E402
from paddle.ops.convolutions import *  # noqa: F401,F403,E402
from paddle.ops.fft import *  # noqa: F401,F403,E402
from paddle.ops import image  # noqa: F401,E402  (keras.ops.image: a namespace only)
from paddle.ops.linalg import *  # noqa: F401,F403,E402
from paddle.ops.complex import *  # noqa: F401,F403,E402  (abs, absolute: complex too)
from paddle.ops.ctc import *  # noqa: F401,F403,E402
from paddle.ops.numpy_array import *  # noqa: F401,F403,E402
from paddle.ops.vectorize import vectorize  # noqa: F401,E402
from paddle.ops.rearrange import rearrange  # noqa: F401,E402
from paddle.ops import keras_numpy as _keras_numpy  # noqa: E402


def _namespace(name, names, doc):
    """A module object `name` holding these functions of pd.ops (Keras's alias namespaces,
    made here so that they import nothing back)."""
    module = _types.ModuleType(name, doc)
    for n in names:
        setattr(module, n, globals()[n])
    module.__all__ = list(names)
    _sys.modules[name] = module
    return module


numpy = _namespace("paddle.ops.numpy", _keras_numpy.NAMES, _keras_numpy.__doc__.replace(
    "The names of Keras's", "Keras's", 1))
