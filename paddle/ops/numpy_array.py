"""Keras's `keras.ops.numpy` array functions (creation, shape manipulation, indexing) and
`keras.ops.core`'s scatter/slice_update/unstack, built from paddle's ops: each has the
kernels and the gradient of the ops it is made of.

The reductions, sorting and statistics are in numpy_reduce.py, the products (dot,
tensordot, einsum, ...) in numpy_products.py, Keras's `keras.ops.math` functions (segment
ops, top_k, ...) in math.py; this module exports them too, so that `pd.ops` takes all of
them from one import.

Window functions, eye/tri/linspace of Python numbers are constants computed once on the
host (as `pd.arange` is). Functions whose result size depends on the data in Keras
(`nonzero`, `unique` without `size`, `bincount` without `minlength`) are not graph ops here.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.arange(6.0).reshape(2, 3))
    >>> pd.eval(pd.ops.tile(x[0], 2)).tolist()
    [0.0, 1.0, 2.0, 0.0, 1.0, 2.0]
    >>> pd.eval(pd.ops.moveaxis(x, 0, 1)).shape
    (3, 2)
"""
import builtins

import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.creation import arange as _arange
from paddle.lowlevel.creation import full as _full
from paddle.lowlevel.creation import zeros
from paddle.lowlevel.graph import FLOATS, Variable, apply, as_dtype, constant
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import reduce as _r
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops.math import cast, where
from paddle.lowlevel.ops.matmul import matmul as _matmul
from paddle.lowlevel.ops.sort import cumprod
from paddle.lowlevel.ops.sort import take_along_axis as _take_along
from paddle.ops._arrays import (axes_of, axis_of, dtype_of, fail, is_number, known, result_type,
                                tensor)
from paddle.ops.math import *  # noqa: F401,F403
from paddle.ops.math import __all__ as _math
from paddle.ops.numpy_products import *  # noqa: F401,F403
from paddle.ops.numpy_products import __all__ as _products
from paddle.ops.numpy_reduce import *  # noqa: F401,F403
from paddle.ops.numpy_reduce import __all__ as _reductions

__all__ = sorted(_math + _products + _reductions + [
    "append", "arange", "array", "array_split", "copy", "full", "unravel_index", "ones",
    "zeros", "ones_like", "zeros_like", "reshape", "slice", "stack", "matmul", "bartlett", "blackman", "broadcast_to", "dsplit",
    "dstack", "dtype", "empty", "empty_like", "expand_dims", "eye", "flip", "fliplr", "flipud",
    "full_like", "geomspace", "get_item", "hamming", "hanning", "hsplit", "hstack", "identity",
    "is_tensor", "kaiser", "linspace", "logspace", "meshgrid", "moveaxis", "ndim", "pad",
    "ravel", "repeat", "roll", "rot90", "scatter", "scatter_update", "select", "size",
    "slice_update", "split", "swapaxes", "take", "take_along_axis", "tile", "transpose", "tri",
    "tril", "triu", "unstack", "vander", "vsplit", "vstack"])


def _dtype(dtype, where, default="float32"):
    return default if dtype is None else as_dtype(dtype, where)


# ---- creation ---------------------------------------------------------------------------

def eye(N, M=None, k=0, dtype=None):  # noqa: N803 (Keras's names)
    """An N x M matrix with ones on diagonal k (float32 unless `dtype` says otherwise).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.eye(2, 3, k=1)).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    N, M, k = _sizes("eye", N, M, k)
    return constant(np.eye(N, M, k), dtype=_dtype(dtype, "eye"))


def identity(n, dtype=None):
    """The n x n identity matrix (float32 unless `dtype` says otherwise).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.identity(2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803
    """Ones at and below diagonal k of an N x M matrix, zeros above.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.tri(2)).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    N, M, k = _sizes("tri", N, M, k)
    return constant(np.tri(N, M, k), dtype=_dtype(dtype, "tri"))


def _sizes(where, N, M, k):  # noqa: N803
    M = N if M is None else M
    for name, v in (("N", N), ("M", M)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0:
            fail(ValueError, f"{where}: expected a size >= 0 as {name}, received {v!r}")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        fail(TypeError, f"{where}: expected an integer diagonal k, received {k!r}")
    return int(N), int(M), int(k)


def _triangle(x, k, lower, where_):
    x = tensor(x, where_)
    if x.ndim < 2:
        fail(ShapeError, f"{where_}: expected a tensor of rank >= 2, received shape {x.shape}")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        fail(TypeError, f"{where_}: expected an integer diagonal k, received {k!r}")
    n, m = known(x, (x.ndim - 2, x.ndim - 1), where_)
    mask = np.tri(n, m, int(k), dtype=bool)
    keep = constant(mask if lower else ~np.tri(n, m, int(k) - 1, dtype=bool))
    return where(keep, x, _m.zeros_like(x))


def tril(x, k=0):
    """x with the elements above diagonal k of its last two axes set to zero.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.eval(pd.ops.tril(np.ones((2, 2), np.float32))).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    return _triangle(x, k, True, "tril")


def triu(x, k=0):
    """x with the elements below diagonal k of its last two axes set to zero.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.eval(pd.ops.triu(np.ones((2, 2), np.float32))).tolist()
        [[1.0, 1.0], [0.0, 1.0]]
    """
    return _triangle(x, k, False, "triu")


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop) (np.arange), int32 for Python ints and float32
    when one is a float, as Keras gives them.

    Example:
        >>> import paddle as pd
        >>> x = pd.ops.arange(1, 7, 2)
        >>> pd.eval(x).tolist(), x.dtype
        ([1, 3, 5], 'int32')
    """
    step = 1 if step is None else step
    if dtype is None:
        dtype = result_type(*[dtype_of(v) for v in (start, stop, step) if v is not None])
    try:
        return _arange(start, stop, step, dtype=dtype)
    except (TypeError, ValueError) as e:
        fail(type(e), str(e))


def full(shape, fill_value, dtype=None):
    """A tensor of `shape` filled with `fill_value`, float32 unless `dtype` says otherwise
    (Keras's default, whatever the value).

    Example:
        >>> import paddle as pd
        >>> pd.ops.full((2,), 3).dtype
        'float32'
    """
    dtype = _dtype(dtype, "full")
    if isinstance(fill_value, Variable):
        return broadcast_to(cast(fill_value, dtype), shape)
    try:
        return _full(shape, fill_value, dtype=dtype)
    except (TypeError, ValueError) as e:
        fail(type(e), str(e))


def ones(shape, dtype=None):
    """A tensor of ones (float32 unless `dtype` says otherwise).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.ones((2,), dtype="int32")).tolist()
        [1, 1]
    """
    return full(shape, 1, dtype)


def zeros(shape, dtype=None):
    """A tensor of zeros (float32 unless `dtype` says otherwise).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.zeros((2,))).tolist()
        [0.0, 0.0]
    """
    return full(shape, 0, dtype)


def ones_like(x, dtype=None):
    """Ones of x's shape, of x's dtype unless `dtype` says otherwise.

    Example:
        >>> import paddle as pd
        >>> pd.ops.ones_like(pd.constant([1, 2]), dtype="float32").dtype
        'float32'
    """
    return full_like(x, 1, dtype)


def zeros_like(x, dtype=None):
    """Zeros of x's shape, of x's dtype unless `dtype` says otherwise.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.zeros_like(pd.constant([1.0, 2.0]))).tolist()
        [0.0, 0.0]
    """
    return full_like(x, 0, dtype)


def copy(x):
    """A copy of x (its values now, not a view of its buffer).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.copy(pd.constant([1, 2]))).tolist()
        [1, 2]
    """
    return tensor(x, "copy")[...]


def empty(shape, dtype=None):
    """A tensor of `shape` (zeros: paddle never hands out uninitialized memory).

    Example:
        >>> import paddle as pd
        >>> pd.ops.empty((2, 3)).shape
        (2, 3)
    """
    return zeros(shape, dtype=_dtype(dtype, "empty"))


def empty_like(x, dtype=None):
    """A tensor of x's shape (zeros), of x's dtype unless `dtype` says otherwise.

    Example:
        >>> import paddle as pd
        >>> pd.ops.empty_like(pd.constant([1, 2])).dtype
        'int64'
    """
    return full_like(x, 0, dtype=dtype)


def full_like(x, fill_value, dtype=None):
    """A tensor of x's shape filled with `fill_value`, of x's dtype unless `dtype` says.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.full_like(pd.constant([1.0, 2.0]), 7)).tolist()
        [7.0, 7.0]
    """
    x = tensor(x, "full_like")
    dtype = x.dtype if dtype is None else as_dtype(dtype, "full_like")
    if isinstance(fill_value, Variable):
        return _m.broadcast_to(cast(fill_value, dtype), _m.zeros_like(cast(x, dtype)))
    if not isinstance(fill_value, (int, float, bool, np.number)):
        fail(TypeError, f"full_like: expected a number as fill_value, received {fill_value!r}")
    return apply(OPS["full_like"], [x], {"value": float(fill_value), "shape": x.shape,
                                          "dtype": dtype})


def array(x, dtype=None):
    """x as a tensor (a constant for arrays and numbers), cast to `dtype` if given.

    Example:
        >>> import paddle as pd
        >>> pd.ops.array([1, 2], dtype="float32").dtype
        'float32'
    """
    return tensor(x, "array", None if dtype is None else as_dtype(dtype, "array"))


def _spaced(where, start, stop, num, endpoint, dtype, axis):
    if not isinstance(num, (int, np.integer)) or isinstance(num, bool) or num < 0:
        fail(ValueError, f"{where}: expected a count >= 0 as num, received {num!r}")
    dtype = as_dtype(dtype, where) if dtype is not None else \
        result_type(dtype_of(start), dtype_of(stop), float)
    return int(num), dtype


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from start to stop (included when `endpoint`), as
    np.linspace; start and stop may be tensors (the values then run along `axis`).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.linspace(0.0, 1.0, 5)).tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    num, dtype = _spaced("linspace", start, stop, num, endpoint, dtype, axis)
    div = (num - 1) if endpoint else num
    if not isinstance(start, Variable) and not isinstance(stop, Variable):
        values, step = np.linspace(np.asarray(start, np.float64), np.asarray(stop, np.float64),
                                   num, endpoint=endpoint, retstep=True, axis=axis)
        out = constant(values, dtype=dtype)
        return (out, step) if retstep else out
    start, stop = tensor(start, "linspace", "float64"), tensor(stop, "linspace", "float64")
    shape = _m.broadcast_to(start, _m.zeros_like(start + stop))
    t = constant(np.arange(num, dtype=np.float64) / builtins.max(div, 1))
    t = _s.reshape(t, [num] + [1] * shape.ndim)
    step = (stop - start) / float(builtins.max(div, 1))
    values = _s.expand_dims(start, 0) + t * _s.expand_dims(stop - start, 0)
    if axis % (shape.ndim + 1) != 0:
        values = moveaxis(values, 0, axis)
    out = cast(values, dtype)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """base ** linspace(start, stop, num), as np.logspace.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.logspace(0.0, 2.0, 3)).tolist()
        [1.0, 10.0, 100.0]
    """
    num, dtype = _spaced("logspace", start, stop, num, endpoint, dtype, axis)
    exps = linspace(start, stop, num, endpoint=endpoint, dtype="float64", axis=axis)
    return cast(_m.pow(tensor(base, "logspace", "float64"), exps), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Values spaced evenly on a log scale from start to stop, as np.geomspace (positive
    start and stop).

    Example:
        >>> import paddle as pd
        >>> [round(v, 4) for v in pd.eval(pd.ops.geomspace(1.0, 100.0, 3)).tolist()]
        [1.0, 10.0, 100.0]
    """
    num, dtype = _spaced("geomspace", start, stop, num, endpoint, dtype, axis)
    if not isinstance(start, Variable) and not isinstance(stop, Variable):
        if np.any(np.asarray(start) == 0) or np.any(np.asarray(stop) == 0):
            fail(ValueError, "geomspace: start and stop must not be 0")
        return constant(np.geomspace(np.asarray(start, np.float64), np.asarray(stop, np.float64),
                                     num, endpoint=endpoint, axis=axis), dtype=dtype)
    start, stop = tensor(start, "geomspace", "float64"), tensor(stop, "geomspace", "float64")
    return cast(_m.exp(linspace(_m.log(start), _m.log(stop), num, endpoint, dtype="float64",
                                axis=axis)), dtype)


def _window(name, M, make):
    if not isinstance(M, (int, np.integer)) or isinstance(M, bool):
        fail(TypeError, f"{name}: expected an integer window length, received {M!r}")
    return constant(make(int(M)), dtype="float32")


def bartlett(x):
    """The Bartlett (triangular) window of length x, float32.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.bartlett(3)).tolist()
        [0.0, 1.0, 0.0]
    """
    return _window("bartlett", x, np.bartlett)


def blackman(x):
    """The Blackman window of length x, float32.

    Example:
        >>> import paddle as pd
        >>> pd.ops.blackman(5).shape
        (5,)
    """
    return _window("blackman", x, np.blackman)


def hamming(x):
    """The Hamming window of length x, float32.

    Example:
        >>> import paddle as pd
        >>> [round(v, 2) for v in pd.eval(pd.ops.hamming(3)).tolist()]
        [0.08, 1.0, 0.08]
    """
    return _window("hamming", x, np.hamming)


def hanning(x):
    """The Hann window of length x, float32.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.hanning(3)).tolist()
        [0.0, 1.0, 0.0]
    """
    return _window("hanning", x, np.hanning)


def kaiser(x, beta):
    """The Kaiser window of length x and shape `beta`, float32.

    Example:
        >>> import paddle as pd
        >>> pd.ops.kaiser(4, 5.0).shape
        (4,)
    """
    if not is_number(beta):
        fail(TypeError, f"kaiser: expected a number as beta, received {beta!r}")
    return _window("kaiser", x, lambda m: np.kaiser(m, float(beta)))


def vander(x, N=None, increasing=False):  # noqa: N803
    """The Vandermonde matrix of the 1-D x: columns x**(N-1), ..., x**0 (or increasing), as a
    running product (exact for integers).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.vander(pd.constant([1, 2, 3]), 3)).tolist()
        [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    x = tensor(x, "vander")
    if x.ndim != 1:
        fail(ShapeError, f"vander: expected a 1-D x, received shape {x.shape}")
    n = known(x, [0], "vander")[0] if N is None else N
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        fail(ValueError, f"vander: expected N >= 0, received {N!r}")
    if x.dtype == "bool":
        x = cast(x, "int32")
    if n == 0:
        return _s.reshape(_m.zeros_like(x), [-1, 0]) if x.shape[0] else x
    column = _s.expand_dims(x, 1)
    cols = [_m.ones_like(column)] + [column] * (int(n) - 1)
    powers = cumprod(_s.concat(cols, axis=1), 1)
    return powers if increasing else _s.reverse(powers, 1)


# ---- shape manipulation ----------------------------------------------------------------

def transpose(x, axes=None):
    """x with its axes permuted by `axes` (reversed when None), as keras.ops.transpose.

    Example:
        >>> import paddle as pd
        >>> pd.ops.transpose(pd.ones((2, 3, 4)), axes=(1, 0, 2)).shape
        (3, 2, 4)
    """
    x = tensor(x, "transpose")
    if axes is None:
        return _s.transpose(x)
    try:
        perm = [axis_of(x, a, "transpose") for a in axes]
    except TypeError:
        fail(TypeError, f"transpose: expected a sequence of integer axes, received {axes!r}")
    if sorted(perm) != list(range(x.ndim)):
        fail(ValueError, f"transpose: axes {tuple(axes)} are not a permutation of the "
                         f"{x.ndim} axes of shape {x.shape}")
    return _s.transpose(x, perm)


def broadcast_to(x, shape):
    """x broadcast to `shape` (a tuple or list of sizes), as NumPy does.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.broadcast_to(pd.constant([1.0, 2.0]), (2, 2))).tolist()
        [[1.0, 2.0], [1.0, 2.0]]
    """
    x = tensor(x, "broadcast_to")
    if isinstance(shape, Variable):
        return _m.broadcast_to(x, shape)  # paddle's own form: the shape of a tensor
    try:
        shape = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        fail(TypeError, f"broadcast_to: expected a tuple of sizes, received {shape!r}")
    if len(shape) < x.ndim or builtins.any(d != s and d != 1 for d, s in
                                   zip(x.shape[::-1], shape[::-1]) if d is not None):
        fail(ShapeError, f"broadcast_to: cannot broadcast shape {x.shape} to {shape}")
    like = apply(OPS["full_like"], [x], {"value": 0.0, "shape": shape, "dtype": x.dtype})
    return _m.broadcast_to(x, like)


def expand_dims(x, axis):
    """x with new axes of size 1 at `axis` (an int or a tuple), as keras.ops.expand_dims.

    Example:
        >>> import paddle as pd
        >>> pd.ops.expand_dims(pd.ones((2,)), (0, 2)).shape
        (1, 2, 1)
    """
    x = tensor(x, "expand_dims")
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    rank = x.ndim + len(items)
    if builtins.any(not isinstance(a, (int, np.integer)) or isinstance(a, bool) for a in items):
        fail(TypeError, f"expand_dims: expected integer axes, received {axis!r}")
    if builtins.any(not -rank <= a < rank for a in items):
        fail(ShapeError, f"expand_dims: axis {axis!r} is out of range for a result of rank "
                         f"{rank}")
    for a in sorted(int(a) % rank for a in items):
        x = _s.expand_dims(x, a)
    return x


def reshape(x, newshape):
    """x with a new shape (one size may be -1: inferred), as keras.ops.reshape.

    Example:
        >>> import paddle as pd
        >>> pd.ops.reshape(pd.ones((2, 3)), (3, -1)).shape
        (3, 2)
    """
    x = tensor(x, "reshape")
    if isinstance(newshape, (int, np.integer)):
        newshape = (newshape,)
    return _s.reshape(x, newshape)


def stack(x, axis=0):
    """Tensors of one shape joined along a new axis (their dtypes promoted as Keras does).

    Example:
        >>> import paddle as pd
        >>> pd.ops.stack([pd.ones((2,)), pd.zeros((2,))], axis=1).shape
        (2, 2)
    """
    return _s.stack(_joined(x, "stack"), axis=axis)


def slice(inputs, start_indices, shape):  # noqa: A001 (Keras's name)
    """The block of `inputs` at `start_indices` of size `shape`, as keras.ops.slice.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.slice(pd.constant([[1, 2, 3], [4, 5, 6]]), (0, 1), (2, 2))).tolist()
        [[2, 3], [5, 6]]
    """
    return _s.slice(tensor(inputs, "slice"), start_indices, shape)


def matmul(x1, x2):
    """The matrix product of the last two axes (leading ones broadcast), as keras.ops.matmul;
    integers multiply in float64 and come back as their dtype (bool as int32).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.matmul(pd.constant([[1, 2]]), pd.constant([[3], [4]]))).tolist()
        [[11]]
    """
    a, b = tensor(x1, "matmul"), tensor(x2, "matmul")
    dtype = result_type(a.dtype, b.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    compute = dtype if dtype in FLOATS else "float64"
    return cast(_matmul(cast(a, compute), cast(b, compute)), dtype)


def moveaxis(x, source, destination):
    """x with axes `source` moved to positions `destination` (ints or sequences).

    Example:
        >>> import paddle as pd
        >>> pd.ops.moveaxis(pd.ones((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    x = tensor(x, "moveaxis")
    src = [axis_of(x, a, "moveaxis") for a in (source if isinstance(source, (list, tuple))
                                               else [source])]
    dst = [axis_of(x, a, "moveaxis") for a in (destination
                                               if isinstance(destination, (list, tuple))
                                               else [destination])]
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        fail(ValueError, f"moveaxis: expected as many distinct source as destination axes, "
                         f"received {source!r} and {destination!r}")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x if order == list(range(x.ndim)) else _s.transpose(x, order)


def swapaxes(x, axis1, axis2):
    """x with two axes exchanged.

    Example:
        >>> import paddle as pd
        >>> pd.ops.swapaxes(pd.ones((2, 3, 4)), 0, 2).shape
        (4, 3, 2)
    """
    x = tensor(x, "swapaxes")
    a, b = axis_of(x, axis1, "swapaxes"), axis_of(x, axis2, "swapaxes")
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return x if a == b else _s.transpose(x, perm)


def ravel(x):
    """x flattened to 1-D (no copy).

    Example:
        >>> import paddle as pd
        >>> pd.ops.ravel(pd.ones((2, 3))).shape
        (6,)
    """
    return _s.reshape(tensor(x, "ravel"), [-1])


def flip(x, axis=None):
    """x with the order of the elements along `axis` (an int, a tuple, None: all) reversed.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.flip(pd.constant([[1, 2], [3, 4]]))).tolist()
        [[4, 3], [2, 1]]
    """
    x = tensor(x, "flip")
    for a in axes_of(x, axis, "flip"):
        x = _s.reverse(x, a)
    return x


def fliplr(x):
    """x reversed along axis 1.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.fliplr(pd.constant([[1, 2]]))).tolist()
        [[2, 1]]
    """
    x = tensor(x, "fliplr")
    if x.ndim < 2:
        fail(ShapeError, f"fliplr: expected a tensor of rank >= 2, received shape {x.shape}")
    return _s.reverse(x, 1)


def flipud(x):
    """x reversed along axis 0.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.flipud(pd.constant([1, 2]))).tolist()
        [2, 1]
    """
    x = tensor(x, "flipud")
    if x.ndim < 1:
        fail(ShapeError, "flipud: expected a tensor of rank >= 1, received a scalar")
    return _s.reverse(x, 0)


def roll(x, shift, axis=None):
    """x with its elements shifted along `axis` (None: the flattened x) and wrapped around.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.roll(pd.constant([1, 2, 3, 4]), 1)).tolist()
        [4, 1, 2, 3]
    """
    x = tensor(x, "roll")
    if axis is None:
        return _s.reshape_like(roll(ravel(x), shift, 0), x) if x.ndim != 1 else \
            roll(x, shift, 0)
    shifts = shift if isinstance(shift, (list, tuple)) else [shift]
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        else:
            fail(ValueError, f"roll: expected one shift per axis, received {shift!r} and "
                             f"{axis!r}")
    for s, a in zip(shifts, axes):
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            fail(TypeError, f"roll: expected integer shifts, received {shift!r}")
        a = axis_of(x, a, "roll")
        n = known(x, [a], "roll")[0]
        s = int(s) % n if n else 0
        if s:
            head = x[(builtins.slice(None),) * a + (builtins.slice(n - s, None),)]
            tail = x[(builtins.slice(None),) * a + (builtins.slice(None, n - s),)]
            x = _s.concat([head, tail], axis=a)
    return x


def rot90(array, k=1, axes=(0, 1)):
    """`array` rotated by 90 degrees k times in the plane of `axes`, as np.rot90.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.rot90(pd.constant([[1, 2], [3, 4]]))).tolist()
        [[2, 4], [1, 3]]
    """
    x = tensor(array, "rot90")
    if x.ndim < 2:
        fail(ShapeError, f"rot90: expected a tensor of rank >= 2, received shape {x.shape}")
    if len(axes) != 2:
        fail(ValueError, f"rot90: expected two axes, received {axes!r}")
    a, b = axis_of(x, axes[0], "rot90"), axis_of(x, axes[1], "rot90")
    if a == b:
        fail(ValueError, f"rot90: expected two different axes, received {axes!r}")
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return _s.reverse(_s.reverse(x, a), b)
    if k == 1:
        return swapaxes(_s.reverse(x, b), a, b)
    return _s.reverse(swapaxes(x, a, b), b)


def tile(x, repeats):
    """x repeated `repeats` times along each axis (np.tile), by broadcasting and a reshape.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.tile(pd.constant([[1, 2]]), (2, 2))).tolist()
        [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = tensor(x, "tile")
    reps = [repeats] if isinstance(repeats, (int, np.integer)) else list(repeats)
    if builtins.any(not isinstance(r, (int, np.integer)) or isinstance(r, bool) or r < 0
                    for r in reps):
        fail(ValueError, f"tile: expected repeat counts >= 0, received {repeats!r}")
    rank = builtins.max(x.ndim, len(reps))
    reps = [1] * (rank - len(reps)) + [int(r) for r in reps]
    x = _s.reshape(x, [1] * (rank - x.ndim) + list(x.shape)) if rank > x.ndim else x
    if builtins.all(r == 1 for r in reps):
        return x
    dims = known(x, range(rank), "tile")
    inter = []
    for r, d in zip(reps, dims):
        inter += [1, d]
    big = [v for r, d in zip(reps, dims) for v in (r, d)]
    return _s.reshape(broadcast_to(_s.reshape(x, inter), big),
                      [r * d for r, d in zip(reps, dims)])


def repeat(x, repeats, axis=None):
    """Each element of x repeated `repeats` times (an int, or one count per element) along
    `axis` (None: the flattened x), as np.repeat.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.repeat(pd.constant([1, 2]), 2)).tolist()
        [1, 1, 2, 2]
    """
    x = tensor(x, "repeat")
    if axis is None:
        x, axis = ravel(x), 0
    a = axis_of(x, axis, "repeat")
    n = known(x, [a], "repeat")[0]
    counts = np.asarray(repeats.numpy() if isinstance(repeats, Variable) else repeats)
    if counts.dtype.kind not in "iu" or (counts < 0).any() or counts.ndim > 1 or \
            (counts.ndim == 1 and counts.size not in (1, n)):
        fail(ValueError, f"repeat: expected counts >= 0 (one, or one per element of axis {a} "
                         f"of size {n}), received {repeats!r}")
    index = np.repeat(np.arange(n, dtype=np.int64), np.broadcast_to(counts.reshape(-1), (n,)))
    return _s.gather(x, constant(index), axis=a)


def _sections(x, indices_or_sections, axis, where_, equal):
    a = axis_of(x, axis, where_)
    n = known(x, [a], where_)[0]
    if isinstance(indices_or_sections, (int, np.integer)) and \
            not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0 or (equal and n % k):
            fail(ValueError, f"{where_}: cannot split axis {a} of size {n} into {k} equal "
                             f"sections")
        sizes = [n // k + 1] * (n % k) + [n // k] * (k - n % k)
    else:
        cuts = [builtins.min(builtins.max(int(i) + (n if i < 0 else 0), 0), n)
                for i in indices_or_sections]
        bounds = [0] + cuts + [n]
        sizes = [builtins.max(e - b, 0) for b, e in zip(bounds, bounds[1:])]
    pieces = _s.split(x, sizes, axis=a) if len(sizes) > 1 else [x]
    return list(pieces)


def split(x, indices_or_sections, axis=0):
    """x cut along `axis` into equal sections (an int) or at the given indices, as
    keras.ops.split (np.split): the list gives positions, not sizes.

    Example:
        >>> import paddle as pd
        >>> [p.shape for p in pd.ops.split(pd.ones((5, 2)), [2, 3])]
        [(2, 2), (1, 2), (2, 2)]
    """
    return _sections(tensor(x, "split"), indices_or_sections, axis, "split", True)


def array_split(x, indices_or_sections, axis=0):
    """As `split`, but an int count need not divide the axis (the first pieces are one
    longer), as np.array_split.

    Example:
        >>> import paddle as pd
        >>> [p.shape for p in pd.ops.array_split(pd.ones((5,)), 3)]
        [(2,), (2,), (1,)]
    """
    return _sections(tensor(x, "array_split"), indices_or_sections, axis, "array_split", False)


def hsplit(x, indices_or_sections):
    """split along axis 1 (axis 0 for 1-D x).

    Example:
        >>> import paddle as pd
        >>> [p.shape for p in pd.ops.hsplit(pd.ones((2, 4)), 2)]
        [(2, 2), (2, 2)]
    """
    x = tensor(x, "hsplit")
    return _sections(x, indices_or_sections, 1 if x.ndim > 1 else 0, "hsplit", True)


def vsplit(x, indices_or_sections):
    """split along axis 0.

    Example:
        >>> import paddle as pd
        >>> [p.shape for p in pd.ops.vsplit(pd.ones((4, 2)), 2)]
        [(2, 2), (2, 2)]
    """
    return _sections(tensor(x, "vsplit"), indices_or_sections, 0, "vsplit", True)


def dsplit(x, indices_or_sections):
    """split along axis 2 (x of rank >= 3).

    Example:
        >>> import paddle as pd
        >>> [p.shape for p in pd.ops.dsplit(pd.ones((1, 1, 4)), 2)]
        [(1, 1, 2), (1, 1, 2)]
    """
    x = tensor(x, "dsplit")
    if x.ndim < 3:
        fail(ShapeError, f"dsplit: expected a tensor of rank >= 3, received shape {x.shape}")
    return _sections(x, indices_or_sections, 2, "dsplit", True)


def _joined(xs, where_):
    xs = [tensor(v, where_) for v in xs]
    if not xs:
        fail(ValueError, f"{where_}: expected at least one tensor")
    dtype = result_type(*[v.dtype for v in xs])
    return [cast(v, dtype) for v in xs]


def _at_least(x, rank, where_):
    # np.atleast_2d puts a 1-D x in a row; atleast_3d a 1-D x as (1, n, 1), a 2-D (m, n, 1)
    if x.ndim >= rank:
        return x
    if rank == 2:
        return _s.reshape(x, [1, -1] if x.ndim == 1 else [1, 1])
    shape = {0: [1, 1, 1], 1: [1, -1, 1]}.get(x.ndim)
    return _s.reshape(x, shape) if shape else _s.expand_dims(x, 2)


def hstack(xs):
    """Tensors joined along axis 1 (axis 0 for 1-D ones).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.hstack([pd.constant([1]), pd.constant([2, 3])])).tolist()
        [1, 2, 3]
    """
    xs = _joined(xs, "hstack")
    return _s.concat(xs, axis=0 if xs[0].ndim <= 1 else 1)


def vstack(xs):
    """Tensors joined along axis 0, 1-D ones as rows.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.vstack([pd.constant([1, 2]), pd.constant([3, 4])])).tolist()
        [[1, 2], [3, 4]]
    """
    return _s.concat([_at_least(v, 2, "vstack") for v in _joined(xs, "vstack")], axis=0)


def dstack(xs):
    """Tensors joined along axis 2 (as np.dstack).

    Example:
        >>> import paddle as pd
        >>> pd.ops.dstack([pd.ones((2, 3)), pd.ones((2, 3))]).shape
        (2, 3, 2)
    """
    return _s.concat([_at_least(v, 3, "dstack") for v in _joined(xs, "dstack")], axis=2)


def append(x1, x2, axis=None):
    """x2 joined after x1 along `axis` (None: both flattened).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.append(pd.constant([[1, 2]]), pd.constant([3]))).tolist()
        [1, 2, 3]
    """
    x1, x2 = _joined([x1, x2], "append")
    if axis is None:
        x1, x2, axis = ravel(x1), ravel(x2), 0
    return _s.concat([x1, x2], axis=axis_of(x1, axis, "append"))


def unstack(x, num=None, axis=0):
    """The slices of x along `axis`, as a list.

    Example:
        >>> import paddle as pd
        >>> [v.shape for v in pd.ops.unstack(pd.ones((2, 3)))]
        [(3,), (3,)]
    """
    x = tensor(x, "unstack")
    a = axis_of(x, axis, "unstack")
    n = known(x, [a], "unstack")[0]
    if num is not None and num != n:
        fail(ValueError, f"unstack: num={num} differs from the size {n} of axis {a}")
    pieces = _s.split(x, [1] * n, axis=a) if n > 1 else [x]
    return [_s.squeeze(p, a) for p in pieces]


def meshgrid(*x, indexing="xy"):
    """Coordinate grids of 1-D tensors, as np.meshgrid ('xy': the first two axes swapped).

    Example:
        >>> import paddle as pd
        >>> [g.shape for g in pd.ops.meshgrid(pd.ones((2,)), pd.ones((3,)))]
        [(3, 2), (3, 2)]
    """
    if indexing not in ("xy", "ij"):
        fail(ValueError, f"meshgrid: expected indexing 'xy' or 'ij', received {indexing!r}")
    xs = [ravel(tensor(v, "meshgrid")) for v in x]
    sizes = [known(v, [0], "meshgrid")[0] for v in xs]
    if indexing == "xy" and len(xs) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, v in enumerate(xs):
        pos = (1 - i if i < 2 else i) if indexing == "xy" and len(xs) > 1 else i
        shape = [1] * len(xs)
        shape[pos] = -1
        out.append(broadcast_to(_s.reshape(v, shape), sizes))
    return out


def pad(x, pad_width, mode="constant", constant_values=None):
    """x padded by `pad_width` ((before, after) per axis, one pair for all, or an int), in
    mode 'constant' (with `constant_values`, default 0), 'reflect' or 'symmetric'.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.pad(pd.constant([1.0, 2.0, 3.0]), 2, mode="reflect")).tolist()
        [3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]
    """
    x = tensor(x, "pad")
    try:
        pairs = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.ndim, 2))
    except (TypeError, ValueError):
        fail(ValueError, f"pad: expected (before, after) pairs of integers for the {x.ndim} "
                         f"axes, received {pad_width!r}")
    if (pairs < 0).any():
        fail(ValueError, f"pad: expected pad widths >= 0, received {pad_width!r}")
    pairs = [(int(b), int(a)) for b, a in pairs]
    if mode == "constant":
        if constant_values is None:
            constant_values = 0
        return _s.pad(x, pairs, constant_values=constant_values)
    if mode not in ("reflect", "symmetric"):
        fail(ValueError, f"pad: expected mode 'constant', 'reflect' or 'symmetric', received "
                         f"{mode!r}")
    if constant_values is not None:
        fail(ValueError, f"pad: constant_values is only for mode 'constant', received mode "
                         f"{mode!r}")
    for a, (before, after) in enumerate(pairs):
        if before or after:
            n = known(x, [a], "pad")[0]
            edge = 0 if mode == "symmetric" else 1
            if before + edge > n or after + edge > n:
                fail(ValueError, f"pad: cannot pad axis {a} of size {n} by {(before, after)} "
                                 f"in mode {mode!r}")
            index = np.concatenate([np.arange(before + edge - 1, edge - 1, -1),
                                    np.arange(n),
                                    np.arange(n - 1 - edge, n - 1 - edge - after, -1)])
            x = _s.gather(x, constant(index.astype(np.int64)), axis=a)
    return x


# ---- indexing ---------------------------------------------------------------------------

def _wrapped(indices, n, where_):
    """Integer indices with negative ones counted from the end of an axis of size n."""
    indices = tensor(indices, where_)
    if indices.dtype not in ("int32", "int64"):
        fail(TypeError, f"{where_}: expected integer indices, received {indices.dtype}")
    indices = cast(indices, "int64")
    if n is None:
        return indices
    return where(_m.less(indices, 0), indices + n, indices)


def take(x, indices, axis=None):
    """Elements of x at `indices` along `axis` (None: of the flattened x); negative indices
    count from the end.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.take(pd.constant([[1, 2], [3, 4]]), [0, -1], axis=1)).tolist()
        [[1, 2], [3, 4]]
    """
    x = tensor(x, "take")
    if axis is None:
        x, axis = ravel(x), 0
    a = axis_of(x, axis, "take")
    return _s.gather(x, _wrapped(indices, x.shape[a], "take"), axis=a)


def take_along_axis(x, indices, axis=None):
    """x[..., indices[..., j, ...], ...] along `axis` (None: both flattened); x and indices
    broadcast on the other axes, negative indices count from the end.

    Example:
        >>> import paddle as pd
        >>> x = pd.constant([[10, 30, 20]])
        >>> pd.eval(pd.ops.take_along_axis(x, pd.ops.argsort(x), axis=1)).tolist()
        [[10, 20, 30]]
    """
    x = tensor(x, "take_along_axis")
    indices = tensor(indices, "take_along_axis")
    if axis is None:
        x, indices, axis = ravel(x), ravel(indices), 0
    a = axis_of(x, axis, "take_along_axis")
    if indices.ndim != x.ndim:
        fail(ShapeError, f"take_along_axis: expected indices of x's rank {x.ndim}, received "
                         f"shape {indices.shape}")
    indices = _wrapped(indices, x.shape[a], "take_along_axis")
    if builtins.any(p != q for i, (p, q) in enumerate(zip(x.shape, indices.shape)) if i != a):
        sizes = known(x, range(x.ndim), "take_along_axis")
        isizes = known(indices, range(x.ndim), "take_along_axis")
        try:
            common = np.broadcast_shapes(tuple(s for i, s in enumerate(sizes) if i != a),
                                         tuple(s for i, s in enumerate(isizes) if i != a))
        except ValueError:
            fail(ShapeError, f"take_along_axis: x of shape {x.shape} and indices of shape "
                             f"{indices.shape} do not broadcast outside axis {a}")
        common = list(common)
        x = broadcast_to(x, common[:a] + [sizes[a]] + common[a:])
        indices = broadcast_to(indices, common[:a] + [isizes[a]] + common[a:])
    return _take_along(x, indices, a)


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds, else `default`, as np.select.

    Example:
        >>> import paddle as pd
        >>> x = pd.constant([1.0, 5.0, 9.0])
        >>> pd.eval(pd.ops.select([x < 3.0, x > 6.0], [x, -x], 0.0)).tolist()
        [1.0, 0.0, -9.0]
    """
    if len(condlist) != len(choicelist) or not condlist:
        fail(ValueError, f"select: expected as many conditions as choices (at least one), "
                         f"received {len(condlist)} and {len(choicelist)}")
    conds = [tensor(c, "select") for c in condlist]
    if builtins.any(c.dtype != "bool" for c in conds):
        fail(TypeError, "select: expected bool conditions, received "
                        f"{[c.dtype for c in conds]}")
    choices = [tensor(c, "select") for c in choicelist]
    dtype = result_type(*[c.dtype for c in choices], dtype_of(default))
    out = tensor(default, "select", dtype)
    for c, v in reversed(list(zip(conds, choices))):
        out = where(c, cast(v, dtype), out)
    return out


def get_item(x, key):
    """x[key] (ints, slices, Ellipsis).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.get_item(pd.constant([[1, 2], [3, 4]]), 1)).tolist()
        [3, 4]
    """
    return tensor(x, "get_item")[key]


def _start(inputs, start_indices, shape, where_):
    try:
        start = [int(s) for s in start_indices]
    except (TypeError, ValueError):
        fail(TypeError, f"{where_}: expected integer start indices, received "
                        f"{start_indices!r}")
    if len(start) != inputs.ndim:
        fail(ShapeError, f"{where_}: expected {inputs.ndim} start indices, received {start}")
    sizes = known(inputs, range(inputs.ndim), where_)
    if builtins.any(s < 0 or s + d > n for s, d, n in zip(start, shape, sizes)):
        fail(ShapeError, f"{where_}: a block of shape {tuple(shape)} at {tuple(start)} does "
                         f"not fit in shape {inputs.shape}")
    return start, sizes


def slice_update(inputs, start_indices, updates):
    """inputs with the block at `start_indices` replaced by `updates`.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.slice_update(pd.zeros((3,)), [1], pd.ones((2,)))).tolist()
        [0.0, 1.0, 1.0]
    """
    inputs = tensor(inputs, "slice_update")
    updates = tensor(updates, "slice_update", inputs.dtype)
    start, sizes = _start(inputs, start_indices, known(updates, range(updates.ndim),
                                                       "slice_update"), "slice_update")
    pairs = [(s, n - s - d) for s, d, n in zip(start, updates.shape, sizes)]
    mask = np.zeros(sizes, bool)
    mask[tuple(builtins.slice(s, s + d) for s, d in zip(start, updates.shape))] = True
    return where(constant(mask), _s.pad(updates, pairs), inputs)


def _flat_positions(indices, shape, where_):
    indices = tensor(indices, where_)
    if indices.dtype not in ("int32", "int64") or indices.ndim < 1:
        fail(TypeError, f"{where_}: expected integer indices of rank >= 1, received "
                        f"{indices.dtype} of shape {indices.shape}")
    depth = known(indices, [indices.ndim - 1], where_)[0]
    if depth > len(shape):
        fail(ShapeError, f"{where_}: indices of depth {depth} for a tensor of rank "
                         f"{len(shape)}")
    strides = np.array([int(np.prod(shape[i + 1:depth])) for i in range(depth)], np.int64)
    flat = _r.sum(cast(indices, "int64") * constant(strides), axis=-1) \
        if depth else None
    return flat, depth


def _scatter_rows(values, flat, rows, tail, dtype):
    """Zeros of (rows, *tail) with the rows of `values` added at positions `flat`."""
    compute = dtype if dtype in FLOATS else "float64"
    values = _s.reshape(cast(values, compute), [-1] + list(tail))
    like = apply(OPS["full_like"], [values], {"value": 0.0, "shape": (rows,) + tuple(tail),
                                               "dtype": compute})
    out = apply(OPS["scatter_add"], [values, _s.reshape(flat, [-1]), like], {"axis": 0})
    return out, compute


def scatter(indices, values, shape):
    """Zeros of `shape` with `values` added at `indices` (rows of coordinates; repeated
    positions add up), as keras.ops.scatter.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.scatter([[0], [2], [0]], pd.constant([1.0, 2.0, 3.0]), (3,))).tolist()
        [4.0, 0.0, 2.0]
    """
    values = tensor(values, "scatter")
    try:
        shape = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        fail(TypeError, f"scatter: expected a tuple of sizes as shape, received {shape!r}")
    flat, depth = _flat_positions(indices, shape, "scatter")
    rows, tail = int(np.prod(shape[:depth])), shape[depth:]
    out, _ = _scatter_rows(values, flat, rows, tail, values.dtype)
    return cast(_s.reshape(out, list(shape)), values.dtype)


def scatter_update(inputs, indices, updates, reduction=None):
    """inputs with the elements (or slices) at `indices` replaced by `updates` (reduction
    None), or combined with them: 'add', 'max', 'min', 'mul', as keras.ops.scatter_update.
    Repeated positions: their updates combine under a reduction; under None they add up
    (JAX keeps one of them, unspecified which).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.scatter_update(pd.zeros((3,)), [[1]], pd.constant([5.0]))).tolist()
        [0.0, 5.0, 0.0]
    """
    inputs = tensor(inputs, "scatter_update")
    updates = tensor(updates, "scatter_update", inputs.dtype)
    if reduction not in (None, "add", "max", "min", "mul"):
        fail(ValueError, f"scatter_update: expected reduction None, 'add', 'max', 'min' or "
                         f"'mul', received {reduction!r}")
    shape = tuple(known(inputs, range(inputs.ndim), "scatter_update"))
    flat, depth = _flat_positions(indices, shape, "scatter_update")
    rows, tail = int(np.prod(shape[:depth])), shape[depth:]
    compute = inputs.dtype if inputs.dtype in FLOATS else "float64"
    hits, _ = _scatter_rows(_m.ones_like(cast(updates, compute)), flat, rows, tail, compute)
    hit = _m.greater(_s.reshape(hits, list(shape)), 0.0)
    if reduction in ("max", "min", "mul"):
        combine = {"max": (segment_max, _m.maximum), "min": (segment_min, _m.minimum),
                   "mul": (segment_prod, _m.mul)}[reduction]
        ids = _s.reshape(flat, [-1])
        grouped = combine[0](_s.reshape(updates, [-1] + list(tail)), ids, rows)
        grouped = _s.reshape(grouped, list(shape))
        return where(hit, combine[1](inputs, grouped), inputs)
    added, _ = _scatter_rows(updates, flat, rows, tail, inputs.dtype)
    added = cast(_s.reshape(added, list(shape)), inputs.dtype)
    if reduction == "add":
        return inputs + added
    return where(hit, added, inputs)


def _divmod(i, n):
    """(i // n, i % n) for non-negative int64 i and a positive int n: a quotient through
    float64, corrected by one step where rounding made it off by one."""
    q = cast(cast(i, "float64") / float(n), "int64")
    r = i - q * n
    low = _m.less(r, 0)
    q, r = where(low, q - 1, q), where(low, r + n, r)
    high = _m.greater_equal(r, n)
    return where(high, q + 1, q), where(high, r - n, r)


def unravel_index(indices, shape):
    """The coordinates in an array of `shape` of flat (C-order) `indices`: one tensor per
    axis, of the indices' integer dtype.

    Example:
        >>> import paddle as pd
        >>> rows, cols = pd.ops.unravel_index(pd.constant([5, 7]), (3, 4))
        >>> pd.eval(rows).tolist(), pd.eval(cols).tolist()
        ([1, 1], [1, 3])
    """
    indices = tensor(indices, "unravel_index")
    if indices.dtype not in ("int32", "int64"):
        fail(TypeError, f"unravel_index: expected integer indices, received {indices.dtype}")
    try:
        dims = [int(d) for d in shape]
    except (TypeError, ValueError):
        fail(TypeError, f"unravel_index: expected a tuple of sizes, received {shape!r}")
    if builtins.any(d <= 0 for d in dims):
        fail(ValueError, f"unravel_index: expected sizes > 0, received {tuple(dims)}")
    rest, coords = cast(indices, "int64"), []
    for d in reversed(dims[1:]):
        rest, c = _divmod(rest, d)
        coords.append(c)
    coords.append(rest)
    return tuple(cast(c, indices.dtype) for c in reversed(coords))


# ---- what a tensor is ------------------------------------------------------------------

def ndim(x):
    """The rank of x (a Python int).

    Example:
        >>> import paddle as pd
        >>> pd.ops.ndim(pd.ones((2, 3)))
        2
    """
    return tensor(x, "ndim").ndim


def size(x):
    """The number of elements of x (a Python int; None while a size is unknown).

    Example:
        >>> import paddle as pd
        >>> pd.ops.size(pd.ones((2, 3)))
        6
    """
    shape = tensor(x, "size").shape
    return None if None in shape else int(np.prod(shape, dtype=np.int64))


def dtype(x):
    """The dtype name of x ('float32', 'int64', ...).

    Example:
        >>> import paddle as pd
        >>> pd.ops.dtype(pd.ones((2,)))
        'float32'
    """
    return tensor(x, "dtype").dtype


def is_tensor(x):
    """Whether x is a paddle tensor (a Variable).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.is_tensor(pd.ones((2,))), pd.ops.is_tensor(np.ones(2))
        (True, False)
    """
    return isinstance(x, Variable)

