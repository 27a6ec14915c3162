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
import numpy as _np

from paddle.errors import at_user
from paddle.lowlevel.creation import arange, full, ones, shape, zeros  # noqa: F401
from paddle.lowlevel.executor import eval as _eval
from paddle.lowlevel.graph import Variable, as_variable, constant
from paddle.lowlevel.ops import *  # noqa: F401,F403
from paddle.lowlevel.ops import abs, add, concat, div, mul, neg, pow, sub  # noqa: F401
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.shape import one_hot as _one_hot_op


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """Keras's `keras.ops.one_hot`: rows with a one at each class id, the class axis at
    `axis` (the last by default). Float class ids (Keras's guides keep labels as float32)
    are cast to integers first, as Keras's TensorFlow backend does; the output is dense.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.one_hot(np.array([2.0, 0.0], np.float32), num_classes=3).numpy().tolist()
        [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    if sparse:
        raise ValueError(at_user("ops.one_hot: sparse=True is not supported (paddle has no "
                                 "sparse tensors)"))
    x = convert_to_tensor(x)
    rank = x.ndim + 1
    if axis is None:
        axis = -1
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise ValueError(at_user(f"ops.one_hot: expected an axis in [{-rank}, {rank}) for "
                                 f"indices of shape {x.shape}, received {axis!r}"))
    if x.dtype in ("float32", "float64"):
        x = cast(x, "int64")
    out = _one_hot_op(x, num_classes, dtype="float32" if dtype is None else dtype)
    if axis % rank == rank - 1:
        return out
    perm = list(range(rank - 1))
    perm.insert(axis % rank, rank - 1)
    return transpose(out, perm)


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


multiply, subtract, divide, power, negative, absolute = mul, sub, div, pow, neg, abs


def true_divide(a, b):
    """a / b (Keras's `true_divide`)."""
    return div(as_variable(a, where="true_divide"), b)
from paddle.ops.numpy_array import *  # noqa: F401,F403
