"""Shape ops: reshape and its relatives (views, no copy), transpose, concat, split, stack,
slice, gather, one_hot, pad.

View ops (reshape, flatten, squeeze, expand_dims) share their input's buffer in a plan;
their gradient is the gradient reshaped back, whatever the view was.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 2, 3])
    >>> pd.flatten(x).shape, pd.transpose(x, [0, 2, 1]).shape, x[:, 1].shape
    ((None, 6), (None, 3, 2), (None, 3))
"""
import builtins
import math
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import Variable, apply, as_dtype, as_variable
from paddle.lowlevel.op import OPS, Op, fmt_shape, register
from paddle.lowlevel.ops.math import cast, zeros_like
from paddle.lowlevel.shapes import int_list, is_int, located, normalize_axis, size


# ---- views ------------------------------------------------------------------------------

class View(Op):
    """An op whose output is its input's buffer under another shape."""

    view = True
    takes_complex = True  # a view moves no values: complex ones keep their pairs

    def grad(self, node, g):
        return [reshape_like(g[0], node.inputs[0])] + [None] * (len(node.inputs) - 1)


@register
class Reshape(View):
    name = "reshape"

    def infer(self, x, shape):
        target = [-1 if d is None else d for d in shape]
        if builtins.sum(1 for d in target if d == -1) > 1:
            raise ShapeError(f"reshape: at most one unknown (-1 or None) size, received {shape}")
        if any(d < -1 for d in target):
            raise ShapeError(f"reshape: sizes must be >= -1, received {shape}")
        known = math.prod(d for d in target if d != -1)  # exact: np.prod wraps at 2**63
        total = size(x[0])
        if -1 in target:
            if total is None:
                fill = None
            elif known == 0 or total % known:
                self.fail(f"cannot reshape to {tuple(shape)}", ("x", x[0]))
            else:
                fill = total // known
            out = tuple(fill if d == -1 else d for d in target)
        else:
            out = tuple(target)
            if total is not None and total != known:
                self.fail(f"cannot reshape {total} elements to {tuple(shape)}", ("x", x[0]))
            # With unknown sizes, x holds a multiple of its known sizes' product.
            partial = math.prod(d for d in x[0] if d is not None)
            if total is None and partial and known % partial:
                self.fail(f"cannot reshape a multiple of {partial} elements to "
                          f"{tuple(shape)}", ("x", x[0]))
        return out, x[1]


@register
class ReshapeLike(View):
    """x reshaped to the shape of `like` (its values are not read)."""

    name = "reshape_like"
    shape_only = (1,)

    def infer(self, x, like):
        if size(x[0]) is not None and size(like[0]) is not None and size(x[0]) != size(like[0]):
            self.fail("sizes differ", ("x", x[0]), ("like", like[0]))
        return like[0], x[1]


@register
class Flatten(View):
    name = "flatten"

    def infer(self, x):
        if len(x[0]) < 1:
            self.fail("expected rank >= 1", ("x", x[0]))
        return (x[0][0], size(x[0][1:])), x[1]


@register
class ExpandDims(View):
    name = "expand_dims"

    def infer(self, x, axis):
        a = normalize_axis(self, axis, len(x[0]) + 1)
        return x[0][:a] + (1,) + x[0][a:], x[1]


@register
class Squeeze(View):
    name = "squeeze"

    def infer(self, x, axis=None):
        if axis is None:
            if None in x[0]:
                self.fail("axis=None needs a fully known shape", ("x", x[0]))
            return tuple(d for d in x[0] if d != 1), x[1]
        axes = {normalize_axis(self, a, len(x[0]), x[0])
                for a in ((axis,) if is_int(axis) else int_list(axis, "axes", "squeeze"))}
        for a in axes:
            if x[0][a] not in (1, None):
                self.fail(f"cannot squeeze axis {a} of size {x[0][a]}", ("x", x[0]))
        return tuple(d for i, d in enumerate(x[0]) if i not in axes), x[1]


# A complex dtype and the float dtype of its two parts: between these, a bitcast is a linear
# isomorphism (re, im pairs), and its gradient is the bitcast back.
COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}


@register
class Bitcast(View):
    """x's bytes read as another dtype (NumPy's and JAX's `view`): the last axis scales by
    the ratio of the item sizes. No values move (the plan aliases x's buffer).

    It has a gradient only between a complex dtype and the float dtype of its parts
    (complex64 and float32, complex128 and float64), where it is the bitcast back; any
    other bitcast passes none, as JAX's bitcast_convert_type."""

    name = "bitcast"

    def infer(self, x, dtype):
        shape, old = x
        if "bool" in (old, dtype):
            raise TypeError(f"bitcast: expected a numeric dtype, received {old} viewed as "
                            f"{dtype} (a bool holds 0 or 1, not any byte)")
        old_size, new_size = np.dtype(old).itemsize, np.dtype(dtype).itemsize
        if old_size == new_size:
            return shape, dtype
        if not shape:
            self.fail(f"cannot view a scalar of {old} as {dtype}: the item sizes differ "
                      f"({old_size} and {new_size} bytes)", ("x", shape))
        last = shape[-1]
        if last is not None:
            if (last * old_size) % new_size:
                self.fail(f"cannot view {old} as {dtype}: the last axis holds {last * old_size}"
                          f" bytes, not a multiple of {dtype}'s {new_size}", ("x", shape))
            last = last * old_size // new_size
        return shape[:-1] + (last,), dtype

    def grad(self, node, g):
        old, new = node.inputs[0].dtype, node.attrs["dtype"]
        if g[0] is None or COMPLEX_PARTS.get(old) != new and COMPLEX_PARTS.get(new) != old:
            return [None]
        return [bitcast(g[0], old)]


@register
class MatchShape(View):
    """x itself, once its shape is checked against `like`'s (without like's last axis when
    `class_axis`), at build and again with the fed sizes: the composite losses pair operands
    that NumPy broadcasting would otherwise match one label or target to every row. An axis
    of size 1 when the graph was built (`declared`) still broadcasts: that one is meant."""

    name = "match_shape"

    def infer(self, x, like, what, class_axis=False, declared=((), ())):
        want = like[0][:-1] if class_axis else like[0]
        fixed = [1 in pair for pair in zip(*declared)] or [False] * len(want)
        if len(x[0]) != len(want) or any(a is not None and b is not None and a != b and not f
                                         for a, b, f in zip(x[0], want, fixed)):
            if class_axis:
                raise ShapeError(f"{what}: labels must have the shape of the scores without "
                                 f"the class axis: scores is {fmt_shape(like[0])}, labels is "
                                 f"{fmt_shape(x[0])}")
            raise ShapeError(f"{what}: expected targets shaped like the predictions: "
                             f"predictions are {fmt_shape(like[0])}, targets are "
                             f"{fmt_shape(x[0])}")
        return x


def match_shape(x, like, what, class_axis=False):
    """x, checked to have like's shape (or like's without its class axis) with fed sizes."""
    declared = (x.shape, like.shape[:-1] if class_axis else like.shape)
    return apply(OPS["match_shape"], [x, like], {"what": what, "class_axis": class_axis,
                                                 "declared": declared})


def reshape(x, shape):
    """x with a new shape (one size may be -1 or None: inferred); no copy is made."""
    x = as_variable(x, where="reshape")
    with located():
        shape = int_list(shape, "the new shape", "reshape", allow_none=True)
    return apply(OPS["reshape"], [x], {"shape": shape})


def bitcast(x, dtype):
    """x's bytes read as `dtype` (no copy): the last axis scales by the item sizes' ratio,
    as NumPy's `ndarray.view`.

    Example:
        >>> import numpy as np
        >>> from paddle.lowlevel.ops.shape import bitcast
        >>> bitcast(np.array([1.0], np.float32), "int32").numpy().tolist()
        [1065353216]
    """
    x = as_variable(x, where="bitcast")
    try:
        dtype = as_dtype(dtype, "bitcast: dtype")
    except ValueError as e:
        raise ValueError(at_user(str(e))) from None
    if dtype == x.dtype:
        return x
    return apply(OPS["bitcast"], [x], {"dtype": dtype})


def reshape_like(x, like):
    if x.shape == like.shape and None not in x.shape:
        return x
    return apply(OPS["reshape_like"], [x, like])


def flatten(x):
    """Keep the first axis, merge the others: (N, a, b) -> (N, a*b); no copy is made."""
    x = as_variable(x, where="flatten")
    return apply(OPS["flatten"], [x])


def expand_dims(x, axis):
    """x with a new axis of size 1 at `axis`."""
    return apply(OPS["expand_dims"], [as_variable(x, where="expand_dims")], {"axis": axis})


def squeeze(x, axis=None):
    """x without the axes of size 1 (all of them, or those in `axis`)."""
    return apply(OPS["squeeze"], [as_variable(x, where="squeeze")], {"axis": axis})


# ---- copies -----------------------------------------------------------------------------

@register
class Transpose(Op):
    name = "transpose"

    def infer(self, x, perm):
        if sorted(perm) != list(range(len(x[0]))):
            self.fail(f"perm {list(perm)} is not a permutation of the axes", ("x", x[0]))
        return tuple(x[0][p] for p in perm), x[1]

    def grad(self, node, g):
        perm = node.attrs["perm"]
        return [transpose(g[0], [int(i) for i in np.argsort(perm)])]


def transpose(x, perm=None):
    """x with its axes permuted (reversed when perm is None)."""
    x = as_variable(x, where="transpose")
    with located():
        perm = tuple(range(x.ndim))[::-1] if perm is None else int_list(perm, "perm", "transpose")
    return apply(OPS["transpose"], [x], {"perm": perm})


@register
class Concat(Op):
    name = "concat"

    def infer(self, *xs, axis=0):
        first = xs[0][0]
        a = normalize_axis(self, axis, len(first), first)
        for i, (s, d) in enumerate(xs):
            if d != xs[0][1]:
                raise ShapeError(f"concat: dtypes differ ({xs[0][1]} and {d})")
            if len(s) != len(first) or any(p is not None and q is not None and p != q
                                           for j, (p, q) in enumerate(zip(s, first)) if j != a):
                self.fail(f"shapes differ outside axis {a}", ("x0", first), (f"x{i}", s))
        dims = [s[a] for s, _ in xs]
        total = None if None in dims else builtins.sum(dims)
        return first[:a] + (total,) + first[a + 1:], xs[0][1]

    def grad(self, node, g):
        a = normalize_axis(self, node.attrs["axis"], node.inputs[0].ndim)
        return split_like(g[0], node.inputs, a)


def concat(values, axis=0):
    """Join Variables along an existing axis."""
    values = [as_variable(v, where="concat") for v in values]
    if not values:
        raise ValueError("concat: expected at least one input")
    return values[0] if len(values) == 1 else apply(OPS["concat"], values, {"axis": axis})


def stack(values, axis=0):
    """Join Variables of one shape along a new axis."""
    values = [as_variable(v, where="stack") for v in values]
    if not values:
        raise ValueError("stack: expected at least one input")
    with located():
        a = normalize_axis(OPS["expand_dims"], axis, values[0].ndim + 1)
    return concat([expand_dims(v, a) for v in values], axis=a)


@register
class Split(Op):
    """Pieces of x along an axis: sizes given, or taken from the `likes` Variables."""

    name = "split"

    def infer(self, x, *likes, axis=0, sizes=None):
        a = normalize_axis(self, axis, len(x[0]), x[0])
        dims = list(sizes) if sizes is not None else [s[a] for s, _ in likes]
        if x[0][a] is not None and None not in dims and builtins.sum(dims) != x[0][a]:
            self.fail(f"sizes {dims} do not add up to axis {a}", ("x", x[0]))
        return [(x[0][:a] + (d,) + x[0][a + 1:], x[1]) for d in dims]

    def grad(self, node, g):
        likes = node.outputs if node.attrs.get("sizes") is not None else node.inputs[1:]
        if any(like is None for like in likes):  # a piece nobody kept: split again for its shape
            likes = apply(OPS["split"], list(node.inputs), dict(node.attrs))
        pieces = [gi if gi is not None else zeros_like(like) for gi, like in zip(g, likes)]
        return [concat(pieces, node.attrs["axis"])] + [None] * (len(node.inputs) - 1)


def split(x, num_or_size_splits, axis=0):
    """Cut x along `axis` into equal pieces (an int) or pieces of the given sizes."""
    x = as_variable(x, where="split")
    with located():
        a = normalize_axis(OPS["split"], axis, x.ndim, x.shape)
    n = x.shape[a]
    if is_int(num_or_size_splits):
        k = int(num_or_size_splits)
        if k <= 0 or n is None or n % k:
            raise ShapeError(at_user(f"split: cannot cut axis {a} of shape {x.shape} into {k} "
                                     "equal pieces"))
        sizes = [n // k] * k
    else:
        with located():
            sizes = int_list(num_or_size_splits, "num_or_size_splits (a count or sizes)",
                             "split")
        if any(s < 0 for s in sizes):
            raise ShapeError(at_user(f"split: sizes must be >= 0, received {list(sizes)}"))
    return apply(OPS["split"], [x], {"axis": a, "sizes": tuple(sizes)})


def split_like(x, likes, axis):
    return apply(OPS["split"], [x, *likes], {"axis": axis, "sizes": None})


@register
class Slice(Op):
    """x[index]: per axis an int (the axis goes) or (start, stop, step) as Python slices."""

    name = "slice"

    def infer(self, x, index, within=False):
        if len(index) > len(x[0]):
            self.fail(f"{len(index)} indices for rank {len(x[0])}", ("x", x[0]))
        out = []
        for d, ix in zip(x[0], index):
            if isinstance(ix, int):
                if d is not None and not -d <= ix < d:
                    self.fail(f"index {ix} is out of range", ("x", x[0]))
                continue
            if not isinstance(ix[2], int) or ix[2] <= 0:
                raise ShapeError(f"slice: expected a positive step, received {ix[2]!r}")
            # pd.slice's blocks must lie inside x (tf.slice's rule), fed sizes included;
            # x[a:b] clips as Python does.
            if within and d is not None and (ix[0] > d or (ix[1] is not None and ix[1] > d)):
                self.fail(f"the block [{ix[0]}:{'' if ix[1] is None else ix[1]}] does not fit "
                          f"in an axis of size {d}", ("x", x[0]))
            out.append(None if d is None else len(range(*builtins.slice(*ix).indices(d))))
        return tuple(out) + tuple(x[0][len(index):]), x[1]

    def grad(self, node, g):
        return [apply(OPS["slice_grad"], [g[0], node.inputs[0]], node.attrs)]


@register
class SliceGrad(Op):
    """Zeros shaped like `like` with g written where the slice came from."""

    name = "slice_grad"

    def infer(self, g, like, index, within=False):
        return like[0], g[1]

    def grad(self, node, g):
        return [apply(OPS["slice"], [g[0]], node.attrs), None]


def _index_spec(key, rank):
    key = key if isinstance(key, tuple) else (key,)
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
        raise TypeError(f"slice: an index can hold one Ellipsis (...), received {key!r}")
    spec = []
    for k in key:
        if isinstance(k, builtins.slice):
            if not all(v is None or is_int(v) for v in (k.start, k.stop, k.step)):
                raise TypeError(f"slice: expected integers or None in a slice, received {k!r}")
            spec.append(tuple(None if v is None else int(v) for v in (k.start, k.stop)) +
                        (1 if k.step is None else int(k.step),))
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            spec.append(int(k))
        elif k is Ellipsis:
            rest = rank - (len(key) - 1)
            spec.extend([(None, None, 1)] * rest)
        else:
            raise TypeError(f"slice: expected ints and slices, received {k!r}")
    return tuple(spec)


def slice(x, begin, size):  # noqa: A001
    """The block of x starting at `begin` with `size` (-1: to the end) per axis, as tf.slice."""
    x = as_variable(x, where="slice")
    with located():
        begin, size = int_list(begin, "begin", "slice"), int_list(size, "size", "slice")
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ShapeError(at_user(f"slice: expected begin and size of length {x.ndim}, "
                                 f"received {list(begin)} and {list(size)}"))
    for d, b, s in zip(x.shape, begin, size):  # tf.slice's rule: the block lies inside x
        if b < 0 or s < -1 or (d is not None and (b > d or (s != -1 and b + s > d))):
            raise ShapeError(at_user(f"slice: begin {list(begin)} and size {list(size)} do "
                                     f"not fit in shape {x.shape}"))
    spec = tuple((b, None if s == -1 else b + s, 1) for b, s in zip(begin, size))
    return apply(OPS["slice"], [x], {"index": spec, "within": True})


def _getitem(x, key):
    return apply(OPS["slice"], [x], {"index": _index_spec(key, x.ndim)})


Variable.__getitem__ = _getitem


@register
class Gather(Op):
    name = "gather"

    def infer(self, x, indices, axis=0):
        if indices[1] not in ("int64", "int32"):
            raise TypeError(f"gather: expected integer indices, received {indices[1]}")
        a = normalize_axis(self, axis, len(x[0]), x[0])
        return x[0][:a] + indices[0] + x[0][a + 1:], x[1]

    def grad(self, node, g):
        x, idx = node.inputs
        return [apply(OPS["scatter_add"], [g[0], idx, x], node.attrs), None]


@register
class Reverse(Op):
    """x with the order of `axis` reversed; the size of that axis may be unknown until the
    graph runs (variable-length sequences)."""

    name = "reverse"

    def infer(self, x, axis):
        normalize_axis(self, axis, len(x[0]), x[0])
        return x

    def grad(self, node, g):
        return [apply(OPS["reverse"], [g[0]], dict(node.attrs))]


def reverse(x, axis):
    """x reversed along `axis` (of any size, known or not when the graph is built).

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.lowlevel.ops.shape import reverse
        >>> pd.eval(reverse(pd.constant([[1.0, 2.0, 3.0]]), axis=1)).tolist()
        [[3.0, 2.0, 1.0]]
    """
    x = as_variable(x, where="reverse")
    if not is_int(axis):
        raise TypeError(f"reverse: expected an integer axis, received {axis!r}")
    return apply(OPS["reverse"], [x], {"axis": int(axis)})


@register
class ScatterAdd(Op):
    """Zeros shaped like `like`, with the rows of g added at `indices` (gather's adjoint)."""

    name = "scatter_add"

    def infer(self, g, indices, like, axis=0):
        return like[0], g[1]

    def grad(self, node, g):
        return [gather(g[0], node.inputs[1], node.attrs["axis"]), None, None]


def gather(x, indices, axis=0):
    """Slices of x along `axis` at integer `indices`; out of range indices raise at eval."""
    x = as_variable(x, where="gather")
    indices = as_variable(indices, where="gather")
    if indices.dtype == "int32":
        indices = cast(indices, "int64")
    return apply(OPS["gather"], [x, indices], {"axis": axis})


@register
class OneHot(Op):
    name = "one_hot"

    def infer(self, indices, depth, dtype="float32", labels_of=None):
        # labels_of: the loss whose class labels these are, for the error an index outside
        # [0, depth) raises at eval
        if indices[1] not in ("int64", "int32"):
            raise TypeError(f"one_hot: expected integer indices, received {indices[1]}")
        return indices[0] + (depth,), dtype

    def grad(self, node, g):
        return [None]


def one_hot(indices, depth=None, dtype="float32", *, num_classes=None):
    """Rows of zeros with a one at each index; an index outside [0, depth) raises at eval.

    `num_classes` is Keras's name for `depth`. The indices must be integers here;
    `pd.ops.one_hot` (Keras's `keras.ops.one_hot`) also takes float class ids.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.one_hot(np.array([1, 3]), num_classes=4).numpy().tolist()
        [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    """
    if num_classes is not None:
        if depth is not None:
            raise TypeError(f"one_hot: give depth or num_classes (Keras's name for it), "
                            f"received both: {depth!r} and {num_classes!r}")
        depth = num_classes
    if dtype is None:  # Keras's default
        dtype = "float32"
    if not is_int(depth) or depth <= 0:
        raise ValueError(f"one_hot: expected a positive integer depth, received {depth!r}")
    dtype = as_dtype(dtype, "one_hot")
    if dtype == "bool":  # the kernel writes numbers
        raise TypeError(at_user("one_hot: expected a numeric dtype, received bool"))
    indices = as_variable(indices, where="one_hot")
    if indices.dtype == "int32":
        indices = cast(indices, "int64")
    return apply(OPS["one_hot"], [indices], {"depth": int(depth),
                                             "dtype": as_dtype(dtype, "one_hot")})


@register
class Pad(Op):
    name = "pad"

    def infer(self, x, paddings, constant_values=0.0):
        if len(paddings) != len(x[0]):
            self.fail(f"expected {len(x[0])} (before, after) pairs, received {len(paddings)}",
                      ("x", x[0]))
        out = []
        for d, (b, a) in zip(x[0], paddings):
            if b < 0 or a < 0:
                raise ShapeError(f"pad: paddings must be >= 0, received {paddings}")
            out.append(None if d is None else d + b + a)
        return tuple(out), x[1]

    def grad(self, node, g):
        index = tuple((b, -a if a else None, 1) for b, a in node.attrs["paddings"])
        return [apply(OPS["slice"], [g[0]], {"index": index})]


def pad(x, paddings, constant_values=0.0):
    """x with `paddings[i] = (before, after)` elements of `constant_values` around axis i."""
    x = as_variable(x, where="pad")
    try:
        pairs = tuple(int_list(pair, "a (before, after) pair", "pad") for pair in paddings)
    except (TypeError, ShapeError):
        pairs = None
    if pairs is None or any(len(p) != 2 for p in pairs):
        raise ValueError(f"pad: expected (before, after) pairs of integers, received "
                         f"{paddings!r}")
    if not isinstance(constant_values, numbers.Real):
        raise TypeError(f"pad: expected a number as constant_values, received "
                        f"{constant_values!r}")
    return apply(OPS["pad"], [x], {"paddings": pairs, "constant_values": float(constant_values)})
