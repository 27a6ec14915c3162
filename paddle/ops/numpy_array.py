"""Keras's `keras.ops.numpy` indexing functions (take, take_along_axis, select, get_item,
unravel_index), `keras.ops.core`'s slice/slice_update/scatter/scatter_update and what a
tensor is (ndim, size, dtype, is_tensor), built from paddle's ops: each has the kernels
and the gradient of the ops it is made of.

The creation functions are in numpy_creation.py, shape manipulation in numpy_shape.py
(transpose, tile, pad, splits, ...), the reductions and sorting in
numpy_reduce.py, the statistics in numpy_stats.py, the products (dot, tensordot, einsum,
...) in numpy_products.py, Keras's `keras.ops.math` functions (segment ops, top_k, ...) in
math.py; this module exports them too, so that `pd.ops` takes all of them from one import.
Functions whose result size depends on the data in Keras (`unique` without `size`,
`bincount` without `minlength`) are not graph ops here; `nonzero` runs on values only
(eager mode), where its count of elements is known before the indices are made.

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
from paddle.lowlevel import eager
from paddle.lowlevel.graph import FLOATS, Variable, apply, constant
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import reduce as _r
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops.math import cast, where
from paddle.lowlevel.ops.sort import cumsum as _cumsum
from paddle.lowlevel.ops.sort import take_along_axis as _take_along
from paddle.ops._arrays import axis_of, dtype_of, fail, known, promoted, result_type, tensor
from paddle.ops.math import *  # noqa: F401,F403
from paddle.ops.math import __all__ as _math
from paddle.ops.math import segment_max, segment_min, segment_prod
from paddle.ops.numpy_creation import *  # noqa: F401,F403
from paddle.ops.numpy_creation import __all__ as _creation
from paddle.ops.numpy_products import *  # noqa: F401,F403
from paddle.ops.numpy_products import __all__ as _products
from paddle.ops.numpy_reduce import *  # noqa: F401,F403
from paddle.ops.numpy_reduce import __all__ as _reductions
from paddle.ops.numpy_shape import *  # noqa: F401,F403
from paddle.ops.numpy_shape import __all__ as _shapes
from paddle.ops.numpy_shape import broadcast_to, ravel
from paddle.ops.numpy_stats import *  # noqa: F401,F403
from paddle.ops.numpy_stats import __all__ as _statistics

__all__ = sorted(_creation + _math + _products + _reductions + _shapes + _statistics + [
    "dtype", "get_item", "is_tensor", "ndim", "nonzero", "scatter", "scatter_update", "select",
    "size",
    "slice", "slice_update", "take", "take_along_axis", "unravel_index"])


# ---- indexing ---------------------------------------------------------------------------

def _wrapped(indices, n, where_):
    """int64 indices with negative ones counted from the end of an axis of size n."""
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
        indices = tensor(indices, "take")
        if indices.dtype not in ("int32", "int64"):
            fail(TypeError, f"take: expected integer indices, received {indices.dtype}")
        if None not in indices.shape:
            # Of a flat x, take is take_along_axis of the flat indices: one kernel that
            # reads int32 or int64 indices and counts negative ones from the end as it
            # goes (at 10^6 elements 3.5 ms against 4.7 for gather, its int64 cast and the
            # where that wraps the negative indices).
            flat = _take_along(ravel(x), _s.reshape(indices, [-1]), 0, wrap=True)
            return _s.reshape(flat, list(indices.shape))
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
    if indices.dtype not in ("int32", "int64"):
        fail(TypeError, f"take_along_axis: expected integer indices, received {indices.dtype}")
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
    # negative indices wrapped in the kernel's one pass (no normalized copy of them)
    return _take_along(x, indices, a, wrap=True)


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
    dtype = result_type(promoted(*choices), dtype_of(default))
    out = tensor(default, "select", dtype)
    for c, v in reversed(list(zip(conds, choices))):
        out = where(c, cast(v, dtype), out)
    return out


def slice(inputs, start_indices, shape):  # noqa: A001 (Keras's name)
    """The block of `inputs` at `start_indices` of size `shape`, as keras.ops.slice.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.slice(pd.constant([[1, 2, 3], [4, 5, 6]]), (0, 1), (2, 2))).tolist()
        [[2, 3], [5, 6]]
    """
    return _s.slice(tensor(inputs, "slice"), start_indices, shape)


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


def nonzero(x):
    """The indices of x's non-zero elements: a tuple of one int32 tensor per axis (C
    order), as `keras.ops.nonzero` (JAX's `jnp.nonzero`).

    How many elements are non-zero depends on the values, so x must hold values (eager
    mode): the count is read from the device first, then the indices are computed by ops
    of that size (a cumulative sum places each non-zero element's flat position). A
    symbolic x (a graph input, a traced step) raises: give the size statically there, e.g.
    `ops.where(x != 0, ...)`, or `ops.unique(..., size=)`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> rows, cols = pd.ops.nonzero(np.array([[0.0, 2.0], [3.0, 0.0]]))
        >>> rows.numpy().tolist(), cols.numpy().tolist()
        ([0, 1], [1, 0])
    """
    x = tensor(x, "nonzero")
    if x.ndim == 0:
        fail(ValueError, "nonzero: expected a tensor of rank >= 1, received a scalar (as "
                         "JAX: use nonzero(atleast_1d(x)))")
    if eager.is_tracing() or not eager.is_concrete(x):
        fail(ValueError, f"nonzero: the number of non-zero elements depends on the data, so "
                         f"x must hold values (eager mode); received a symbolic tensor of "
                         f"shape {x.shape} (a graph input or a traced step). In a graph, "
                         "use where(x != 0, ...) or unique(..., size=) instead")
    flat = _s.reshape(x, [-1])
    hit = _m.not_equal(flat, _m.zeros_like(flat))
    count = int(_r.sum(cast(hit, "int64")).numpy())
    n = flat.shape[0]
    # Non-zero element i goes to slot cumsum(hit)[i] - 1; the others to slot `count`,
    # which is dropped.
    place = _cumsum(cast(hit, "int64"), 0) - 1
    slot = where(hit, place, _m.zeros_like(place) + count)
    positions = apply(OPS["scatter_add"], [constant(np.arange(n, dtype=np.float64)), slot,
                                           constant(np.zeros(count + 1))], {"axis": 0})
    flat_index = cast(positions[:count], "int64")
    return tuple(cast(c, "int32") for c in unravel_index(flat_index, x.shape))


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

