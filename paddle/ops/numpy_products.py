"""Keras's products and diagonals of `keras.ops.numpy`: tensordot, einsum, dot, inner,
outer, vdot, kron, cross, diag, diagflat, diagonal, trace (`pd.ops.matmul` is `pd.matmul`).

Contractions go through the one matrix product (pd.matmul: GEMM on the CPU, cuBLAS on the
GPU) after a transpose and a reshape, never a loop of their own. The product is a float
op: integer operands are multiplied in float64 and cast back (exact below 2**53).

Example:
    >>> import numpy as np, paddle as pd
    >>> a = pd.constant(np.arange(6.0).reshape(2, 3))
    >>> pd.eval(pd.ops.einsum("ij,kj->ik", a, a)).tolist()
    [[5.0, 14.0], [14.0, 50.0]]
    >>> pd.eval(pd.ops.trace(a)).tolist()
    4.0
"""
import string

import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, constant
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import reduce as _r
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.matmul import matmul as _matmul
from paddle.ops._arrays import axis_of, fail, known, promoted, tensor

__all__ = ["cross", "diag", "diagflat", "diagonal", "dot", "einsum", "inner", "kron", "outer",
           "tensordot", "trace", "vdot"]


def _operands(x1, x2, where_):
    a, b = tensor(x1, where_), tensor(x2, where_)
    dtype = promoted(a, b)
    if dtype == "bool":
        dtype = "int32"
    compute = dtype if dtype in FLOATS else "float64"
    return cast(a, compute), cast(b, compute), dtype


def _reshaped(x, sizes):
    """x reshaped to `sizes` (None: unknown, at most one), or x itself if that is its shape."""
    if list(x.shape) == list(sizes):
        return x
    if sum(1 for d in sizes if d is None) > 1:
        fail(ShapeError, f"tensordot/einsum: cannot merge several axes of unknown size "
                         f"(shape {x.shape} to {tuple(sizes)})")
    return _s.reshape(x, [-1 if d is None else d for d in sizes])


def _prod(sizes):
    return None if None in sizes else int(np.prod(sizes, dtype=np.int64))


def _contract(a, b, axes_a, axes_b, batch_a=(), batch_b=()):
    """sum over axes_a/axes_b of a*b, batch axes kept in front: a matmul after transposes."""
    free_a = [i for i in range(a.ndim) if i not in axes_a and i not in batch_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b and i not in batch_b]
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] is not None and b.shape[j] is not None and a.shape[i] != b.shape[j]:
            fail(ShapeError, f"tensordot: contracted sizes differ: axis {i} of shape {a.shape} "
                             f"and axis {j} of shape {b.shape}")
    at = _transposed(a, list(batch_a) + free_a + list(axes_a))
    bt = _transposed(b, list(batch_b) + list(axes_b) + free_b)
    batch = [a.shape[i] for i in batch_a]
    sa, sb = [a.shape[i] for i in free_a], [b.shape[i] for i in free_b]
    k = _prod([a.shape[i] if a.shape[i] is not None else b.shape[j]
               for i, j in zip(axes_a, axes_b)])
    if k is None:
        fail(ShapeError, f"tensordot: the contracted sizes must be known, received shapes "
                         f"{a.shape} and {b.shape}")
    a2 = _reshaped(at, batch + [_prod(sa), k])
    b2 = _reshaped(bt, [b.shape[i] for i in batch_b] + [k, _prod(sb)])
    out = _matmul(a2, b2)
    return _reshaped(out, list(out.shape[:len(batch)]) + sa + sb)


def _transposed(x, perm):
    return x if perm == list(range(x.ndim)) else _s.transpose(x, perm)


def tensordot(x1, x2, axes=2):
    """The sum of products over the last `axes` axes of x1 and the first of x2 (an int), or
    over the given pairs of axes ((axes of x1), (axes of x2)).

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = pd.constant(np.ones((2, 3, 4), np.float32))
        >>> pd.ops.tensordot(a, pd.constant(np.ones((3, 4, 5), np.float32))).shape
        (2, 5)
    """
    a, b, dtype = _operands(x1, x2, "tensordot")
    if isinstance(axes, (int, np.integer)):
        if axes < 0 or axes > min(a.ndim, b.ndim):
            fail(ValueError, f"tensordot: expected 0 <= axes <= {min(a.ndim, b.ndim)}, "
                             f"received {axes}")
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(int(axes)))
    else:
        try:
            first, second = axes
        except (TypeError, ValueError):
            fail(ValueError, f"tensordot: expected an int or two sequences of axes, received "
                             f"{axes!r}")
        first = [first] if isinstance(first, (int, np.integer)) else list(first)
        second = [second] if isinstance(second, (int, np.integer)) else list(second)
        if len(first) != len(second):
            fail(ValueError, f"tensordot: expected as many axes of x1 as of x2, received "
                             f"{axes!r}")
        axes_a = [axis_of(a, i, "tensordot") for i in first]
        axes_b = [axis_of(b, i, "tensordot") for i in second]
    return cast(_contract(a, b, axes_a, axes_b), dtype)


def dot(x1, x2):
    """np.dot: products of scalars, the inner product of vectors, else the sum over the last
    axis of x1 and the second-to-last of x2 (the last when x2 is 1-D).

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.dot(pd.constant([1.0, 2.0]), pd.constant([3.0, 4.0]))))
        11.0
    """
    a, b, dtype = _operands(x1, x2, "dot")
    if a.ndim == 0 or b.ndim == 0:
        return cast(a * b, dtype)
    return cast(_contract(a, b, [a.ndim - 1], [max(b.ndim - 2, 0)]), dtype)


def inner(x1, x2):
    """The sum of products over the last axes of x1 and x2 (scalars: their product).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.inner(pd.constant([[1.0, 2.0]]), pd.constant([[3.0, 4.0]]))).tolist()
        [[11.0]]
    """
    a, b, dtype = _operands(x1, x2, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return cast(a * b, dtype)
    return cast(_contract(a, b, [a.ndim - 1], [b.ndim - 1]), dtype)


def outer(x1, x2):
    """The product of every element of x1 (flattened) with every element of x2.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.outer(pd.constant([1, 2]), pd.constant([3, 4]))).tolist()
        [[3, 4], [6, 8]]
    """
    a, b, dtype = _operands(x1, x2, "outer")
    return cast(_s.reshape(a, [-1, 1]) * _s.reshape(b, [1, -1]), dtype)


def vdot(x1, x2):
    """The inner product of x1 and x2, both flattened.

    Example:
        >>> import paddle as pd
        >>> float(pd.eval(pd.ops.vdot(pd.constant([[1.0, 2.0]]), pd.constant([3.0, 4.0]))))
        11.0
    """
    a, b, dtype = _operands(x1, x2, "vdot")
    return cast(_contract(_s.reshape(a, [-1]), _s.reshape(b, [-1]), [0], [0]), dtype)


def kron(x1, x2):
    """The Kronecker product: blocks of x2 scaled by each element of x1.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.kron(pd.constant([1, 2]), pd.constant([1, 10]))).tolist()
        [1, 10, 2, 20]
    """
    a, b, dtype = _operands(x1, x2, "kron")
    rank = max(a.ndim, b.ndim)
    sa = [1] * (rank - a.ndim) + known(a, range(a.ndim), "kron")
    sb = [1] * (rank - b.ndim) + known(b, range(b.ndim), "kron")
    wide_a = _s.reshape(a, [v for d in sa for v in (d, 1)] or [1])
    wide_b = _s.reshape(b, [v for d in sb for v in (1, d)] or [1])
    return cast(_s.reshape(wide_a * wide_b, [p * q for p, q in zip(sa, sb)]), dtype)


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of vectors of 3 (or 2) components along axisa of x1 and axisb of
    x2, put along axisc (`axis` sets all three); two 2-vectors give a scalar.

    Example:
        >>> import paddle as pd
        >>> x, y = pd.constant([1.0, 0.0, 0.0]), pd.constant([0.0, 1.0, 0.0])
        >>> pd.eval(pd.ops.cross(x, y)).tolist()
        [0.0, 0.0, 1.0]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = tensor(x1, "cross"), tensor(x2, "cross")
    dtype = promoted(a, b)
    a, b = cast(a, dtype), cast(b, dtype)
    a = _last(a, axis_of(a, axisa, "cross"))
    b = _last(b, axis_of(b, axisb, "cross"))
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        fail(ValueError, f"cross: expected vectors of 2 or 3 components, received {na} and "
                         f"{nb}")
    ca = [a[..., i] for i in range(na)]
    cb = [b[..., i] for i in range(nb)]
    if na == 2 and nb == 2:
        return ca[0] * cb[1] - ca[1] * cb[0]
    zero = _m.zeros_like(ca[0] * cb[0])
    ca += [zero] * (3 - na)
    cb += [zero] * (3 - nb)
    parts = [ca[1] * cb[2] - ca[2] * cb[1], ca[2] * cb[0] - ca[0] * cb[2],
             ca[0] * cb[1] - ca[1] * cb[0]]
    out = _s.stack(parts, axis=-1)
    c = axis_of(out, axisc, "cross")
    return out if c == out.ndim - 1 else _moved(out, out.ndim - 1, c)


def _last(x, a):
    return x if a == x.ndim - 1 else _moved(x, a, x.ndim - 1)


def _moved(x, src, dst):
    order = [i for i in range(x.ndim) if i != src]
    order.insert(dst, src)
    return _s.transpose(x, order)


# ---- diagonals --------------------------------------------------------------------------

def _diagonal_positions(n, m, offset):
    rows = np.arange(max(0, -offset), min(n, m - offset)) if offset < m and -offset < n \
        else np.arange(0)
    return (rows * m + rows + offset).astype(np.int64)


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The diagonal `offset` of the planes of axes (axis1, axis2), put on a last axis.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.eval(pd.ops.diagonal(pd.constant(np.arange(9).reshape(3, 3)), 1)).tolist()
        [1, 5]
    """
    x = tensor(x, "diagonal")
    if x.ndim < 2:
        fail(ShapeError, f"diagonal: expected a tensor of rank >= 2, received shape {x.shape}")
    a, b = axis_of(x, axis1, "diagonal"), axis_of(x, axis2, "diagonal")
    if a == b:
        fail(ValueError, f"diagonal: expected two different axes, received {axis1} and "
                         f"{axis2}")
    if not isinstance(offset, (int, np.integer)):
        fail(TypeError, f"diagonal: expected an integer offset, received {offset!r}")
    n, m = known(x, [a, b], "diagonal")
    rest = [i for i in range(x.ndim) if i not in (a, b)]
    plane = _transposed(x, rest + [a, b])
    flat = _reshaped(plane, [x.shape[i] for i in rest] + [n * m])
    return _s.gather(flat, constant(_diagonal_positions(n, m, int(offset))), axis=-1 % flat.ndim)


def trace(x, offset=0, axis1=0, axis2=1):
    """The sum of diagonal `offset` of the planes of axes (axis1, axis2); bool counts as
    int32.

    Example:
        >>> import numpy as np, paddle as pd
        >>> int(pd.eval(pd.ops.trace(pd.constant(np.arange(9).reshape(3, 3)))))
        12
    """
    x = tensor(x, "trace")
    if x.dtype == "bool":
        x = cast(x, "int32")
    return _r.sum(diagonal(x, offset, axis1, axis2), axis=-1)


def diag(x, k=0):
    """A 1-D x: the square matrix with x on diagonal k; a 2-D x: its diagonal k.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.diag(pd.constant([1, 2]))).tolist()
        [[1, 0], [0, 2]]
    """
    x = tensor(x, "diag")
    if not isinstance(k, (int, np.integer)):
        fail(TypeError, f"diag: expected an integer k, received {k!r}")
    if x.ndim == 2:
        return diagonal(x, int(k))
    if x.ndim != 1:
        fail(ShapeError, f"diag: expected a 1-D or 2-D tensor, received shape {x.shape}")
    n = known(x, [0], "diag")[0]
    size = n + abs(int(k))
    index = np.full((size, size), n, np.int64)  # position n: the zero appended below
    rows = np.arange(n) + max(0, -int(k))
    index[rows, rows + int(k)] = np.arange(n)
    padded = _s.pad(x, [(0, 1)])
    return _s.gather(padded, constant(index))


def diagflat(x, k=0):
    """The square matrix with the flattened x on diagonal k.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.diagflat(pd.constant([[1, 2]]))).tolist()
        [[1, 0], [0, 2]]
    """
    return diag(_s.reshape(tensor(x, "diagflat"), [-1]), k)


# ---- einsum -----------------------------------------------------------------------------

def _parse(subscripts, operands):
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        fail(ValueError, f"einsum: {subscripts!r} names {len(terms)} operands, received "
                         f"{len(operands)}")
    used = set(spec) - set(".,->")
    if any(c not in string.ascii_letters for c in used):
        fail(ValueError, f"einsum: expected letters, '...', ',' and '->' in {subscripts!r}")
    spare = [c for c in string.ascii_letters if c not in used]
    ell = max((x.ndim - (len(t) - 3) for t, x in zip(terms, operands) if "..." in t),
              default=0)
    ell_letters = "".join(spare[:ell])
    labels = []
    for t, x in zip(terms, operands):
        if "..." in t:
            k = x.ndim - (len(t) - 3)
            t = t.replace("...", ell_letters[ell - k:] if k else "")
        if len(t) != x.ndim:
            fail(ValueError, f"einsum: term {t!r} of {subscripts!r} has {len(t)} letters for "
                             f"an operand of rank {x.ndim}")
        labels.append(t)
    if arrow:
        out = output.replace("...", ell_letters)
    else:
        counts = {c: "".join(labels).count(c) for c in set("".join(labels))}
        out = ell_letters + "".join(sorted(c for c, n in counts.items()
                                           if n == 1 and c not in ell_letters))
    if any(c not in "".join(labels) for c in out) or len(set(out)) != len(out):
        fail(ValueError, f"einsum: the output of {subscripts!r} names letters that no input "
                         f"has, or one twice")
    return labels, out


def _own_axes(x, labels, keep):
    """x with repeated letters taken along their diagonal and letters no one else needs
    summed out."""
    while len(set(labels)) != len(labels):
        c = next(c for c in labels if labels.count(c) > 1)
        i = labels.index(c)
        j = labels.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        labels = [v for k, v in enumerate(labels) if k not in (i, j)] + [c]
    gone = [i for i, c in enumerate(labels) if c not in keep]
    if gone:
        x = _r.sum(x, axis=gone)
        labels = [c for i, c in enumerate(labels) if i not in gone]
    return x, labels


def einsum(subscripts, *operands, **kwargs):
    """Sums of products named by Einstein notation ('ij,jk->ik', '...', implicit output),
    contracted pairwise, left to right, through matrix products.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.ones((2, 3, 4), np.float32))
        >>> pd.ops.einsum("bij,bjk->bik", x, pd.constant(np.ones((2, 4, 5), np.float32))).shape
        (2, 3, 5)
    """
    if kwargs:
        fail(TypeError, f"einsum: unexpected arguments {sorted(kwargs)}")
    if not isinstance(subscripts, str):
        fail(TypeError, f"einsum: expected the subscripts as a string, received {subscripts!r}")
    if not operands:
        fail(ValueError, "einsum: expected at least one operand")
    xs = [tensor(x, "einsum") for x in operands]
    dtype = promoted(*xs)
    dtype = "int32" if dtype == "bool" else dtype
    compute = dtype if dtype in FLOATS else "float64"
    xs = [cast(x, compute) for x in xs]
    labels, out = _parse(subscripts, xs)
    sizes = {}
    for x, t in zip(xs, labels):
        for c, d in zip(t, x.shape):
            if d not in (None, 1) and sizes.get(c) not in (None, 1, d):
                fail(ShapeError, f"einsum: letter {c!r} of {subscripts!r} has sizes "
                                 f"{sizes[c]} and {d}")
            if d is not None and sizes.get(c) in (None, 1):
                sizes[c] = d
    pending = [list(t) for t in labels]
    acc, acc_labels = _own_axes(xs[0], pending[0], set(out).union(*pending[1:]))
    for i in range(1, len(xs)):
        later = set(out).union(*pending[i + 1:])
        b, b_labels = _own_axes(xs[i], pending[i], later | set(acc_labels))
        acc_keep = later | set(b_labels)
        acc, acc_labels = _own_axes(acc, acc_labels, acc_keep)
        shared = [c for c in acc_labels if c in b_labels]
        batch = [c for c in shared if c in later]
        summed = [c for c in shared if c not in later]
        acc = _contract(acc, b, [acc_labels.index(c) for c in summed],
                        [b_labels.index(c) for c in summed],
                        [acc_labels.index(c) for c in batch], [b_labels.index(c) for c in batch])
        acc_labels = batch + [c for c in acc_labels if c not in shared] + \
            [c for c in b_labels if c not in shared]
    acc, acc_labels = _own_axes(acc, acc_labels, set(out))
    acc = _transposed(acc, [acc_labels.index(c) for c in out])
    return cast(acc, dtype)
