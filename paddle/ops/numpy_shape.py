"""Keras's shape manipulation of `keras.ops.numpy`: transpose, broadcast_to, expand_dims,
reshape, stack, moveaxis, swapaxes, ravel, flip*, roll, rot90, tile, repeat, the splits
(at indices, as np.split), the stacks, append, unstack, meshgrid, pad (constant, reflect,
symmetric).

Each is a composition of paddle's shape ops (reshape, transpose, concat, split, slice,
reverse, gather, pad), so it has their kernels and gradients; sizes that decide the
composition (tile's, roll's, pad's reflected axes) must be known when the graph is built.

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
from paddle.lowlevel.graph import Variable, apply, constant
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops.math import cast
from paddle.ops._arrays import axes_of, axis_of, fail, known, promoted, tensor

__all__ = [
    "append", "array_split", "broadcast_to", "dsplit", "dstack", "expand_dims", "flip",
    "fliplr", "flipud", "hsplit", "hstack", "meshgrid", "moveaxis", "pad", "ravel", "repeat",
    "reshape", "roll", "rot90", "split", "stack", "swapaxes", "tile", "transpose", "unstack",
    "vsplit", "vstack"]


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


# Up to this many repeats of a single axis, tile is a concat of x with itself.
_TILE_BY_CONCAT = 16


def tile(x, repeats):
    """x repeated `repeats` times along each axis (np.tile): a concat when one axis repeats a
    few times, else by broadcasting and a reshape.

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
    repeated = [a for a, r in enumerate(reps) if r != 1]
    if len(repeated) == 1 and 1 < reps[repeated[0]] <= _TILE_BY_CONCAT:
        # One axis repeated a few times: one concat, a strided copy of x per repeat that
        # writes the result once (the broadcast below also fills its shape's zeros).
        return _s.concat([x] * reps[repeated[0]], axis=repeated[0])
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
    dtype = promoted(*xs)
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
    if not isinstance(xs, (list, tuple)):
        return _hstack_rows(tensor(xs, "hstack"))
    xs = _joined(xs, "hstack")
    return _s.concat(xs, axis=0 if xs[0].ndim <= 1 else 1)


def _hstack_rows(x):
    """hstack of one tensor, as NumPy's (and Keras's) of the list of its rows x[0], x[1],
    ...: the elements of a 1-D x (x itself), a 2-D x's rows one after another (x
    flattened), a higher x's slices joined along their axis 1 (x's axes 0 and 2 merged)."""
    if x.ndim == 0:
        fail(ShapeError, "hstack: expected a sequence of tensors or a tensor of rank >= 1, "
                         "received a scalar")
    if x.ndim == 1:
        return x
    if x.ndim == 2:
        return _s.reshape(x, [-1])
    k, n, *rest = known(x, [0] + list(range(2, x.ndim)), "hstack")
    moved = _s.transpose(x, [1, 0] + list(range(2, x.ndim)))  # (a, k, n, ...)
    return _s.reshape(moved, [-1, k * n] + rest)


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
