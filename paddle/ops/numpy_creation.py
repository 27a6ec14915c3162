"""Keras's creation functions of `keras.ops.numpy`: eye, identity, tri, tril/triu, arange,
full, ones/zeros (and their _like forms), empty, array, copy, linspace/logspace/geomspace,
the window functions, vander.

Of Python numbers, eye/tri/linspace/the windows are constants computed once on the host
(as `pd.arange` is); of tensors (linspace's start and stop, vander's x) they are ops, with
gradients. Keras's dtypes: float32 by default, Python ints int32 in arange.

Example:
    >>> import paddle as pd
    >>> pd.eval(pd.ops.eye(2)).tolist(), pd.ops.arange(3).dtype
    ([[1.0, 0.0], [0.0, 1.0]], 'int32')
"""
import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.creation import arange as _arange
from paddle.lowlevel.creation import full as _full
from paddle.lowlevel.creation import zeros as _zeros
from paddle.lowlevel.graph import Variable, apply, as_dtype, constant
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops.math import cast, where
from paddle.lowlevel.ops.sort import cumprod
from paddle.ops._arrays import dtype_of, fail, is_number, known, result_type, tensor
from paddle.ops.numpy_math import copy  # noqa: F401  (one implementation)

__all__ = [
    "arange", "array", "bartlett", "blackman", "copy", "empty", "empty_like", "eye", "full",
    "full_like", "geomspace", "hamming", "hanning", "identity", "kaiser", "linspace",
    "logspace", "ones", "ones_like", "tri", "tril", "triu", "vander", "zeros", "zeros_like"]


def _dtype(dtype, where, default="float32"):
    return default if dtype is None else as_dtype(dtype, where)


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
        value = cast(fill_value, dtype)
        like = apply(OPS["full_like"], [value], {"value": 0.0, "shape": tuple(shape),
                                                 "dtype": dtype})
        return _m.broadcast_to(value, like)
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


def empty(shape, dtype=None):
    """A tensor of `shape` (zeros: paddle never hands out uninitialized memory).

    Example:
        >>> import paddle as pd
        >>> pd.ops.empty((2, 3)).shape
        (2, 3)
    """
    return _zeros(shape, dtype=_dtype(dtype, "empty"))


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
    t = constant(np.arange(num, dtype=np.float64) / max(div, 1))
    t = _s.reshape(t, [num] + [1] * shape.ndim)
    step = (stop - start) / float(max(div, 1))
    values = _s.expand_dims(start, 0) + t * _s.expand_dims(stop - start, 0)
    a = axis % (shape.ndim + 1)
    if a:  # the samples' axis from the front to `axis`
        perm = list(range(1, shape.ndim + 1))
        perm.insert(a, 0)
        values = _s.transpose(values, perm)
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
