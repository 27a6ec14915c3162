"""`pd.ops.rearrange`: Keras's einops-style `keras.ops.rearrange`, a reshape, a transpose and
a reshape (so it has their kernels and gradients).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.zeros((2, 6, 4, 3), np.float32)
    >>> pd.ops.rearrange(x, "b (h1 h) w c -> (b h1) h w c", h1=2).shape
    (4, 3, 4, 3)
"""
import re

import numpy as np

from paddle.errors import ShapeError
from paddle.ops._arrays import fail
from paddle.ops._arrays import tensor as _tensor
from paddle.ops.numpy_shape import reshape, transpose

__all__ = ["rearrange"]

_TOKEN = re.compile(r"\(\s*[^()]*\)|[^\s()]+")


def _groups(side, pattern):
    """The axes of one side of the pattern: one list of names per axis (a "(a b)" group
    is one axis made of several)."""
    rest = _TOKEN.sub("", side)
    if rest.strip() or side.count("(") != side.count(")"):
        fail(ValueError, f"rearrange: unbalanced or nested parentheses in the pattern "
                         f"{pattern!r}")
    groups = []
    for token in _TOKEN.findall(side):
        names = token.strip("()").split() if token.startswith("(") else [token]
        for name in names:
            if not name.isidentifier():
                fail(ValueError, f"rearrange: expected axis names (identifiers) in the "
                                 f"pattern {pattern!r}, received {name!r} (paddle, as "
                                 "Keras, has no '...' or numbers in patterns)")
        groups.append(names)
    return groups


def _sizes(groups, shape, lengths, pattern):
    """{axis name: size} from the input's shape and the given lengths."""
    sizes = {}
    for names, dim in zip(groups, shape):
        unknown = [n for n in names if n not in lengths]
        if len(unknown) > 1:
            fail(ValueError, f"rearrange: the group ({' '.join(names)}) of the pattern "
                             f"{pattern!r} has {len(unknown)} axes of unknown length "
                             f"({', '.join(unknown)}); give all but one as keywords")
        known = int(np.prod([lengths[n] for n in names if n in lengths], dtype=np.int64))
        if dim is None and unknown and len(names) > 1:
            fail(ShapeError, f"rearrange: axis ({' '.join(names)}) of the pattern {pattern!r}"
                             f" needs its size when the graph is built, received shape "
                             f"{tuple(shape)}")
        if dim is not None and (known == 0 or dim % known or (not unknown and dim != known)):
            fail(ShapeError, f"rearrange: axis ({' '.join(names)}) of size {dim} does not "
                             f"split into the lengths "
                             f"{ {n: lengths[n] for n in names if n in lengths} } "
                             f"(pattern {pattern!r})")
        for n in names:
            sizes[n] = lengths[n] if n in lengths else (dim // known if dim is not None
                                                        else None)
    return sizes


def rearrange(tensor, pattern, **axes_lengths):
    """x's axes rearranged by an einops pattern, as `keras.ops.rearrange`: "in -> out"
    names each input axis (a "(h1 h)" group splits one axis into several) and says the
    order and grouping of the output's; every name appears once on each side.

    Args:
        tensor: the input tensor.
        pattern: e.g. "b h w c -> b (h w) c" or "b (h h1) (w w1) c -> b h w (c h1 w1)".
        **axes_lengths: the lengths of split axes (all but one per group).

    Returns:
        A tensor of x's dtype, of the output pattern's shape.

    Raises:
        ValueError: a malformed pattern, names that differ between the sides or repeat.
        ShapeError: an axis that does not split into the given lengths, a rank that is
            not the pattern's.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.arange(6.0).reshape(1, 2, 3)
        >>> pd.ops.rearrange(x, "b h w -> b (w h)").numpy().tolist()
        [[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]]
    """
    x = _tensor(tensor, "rearrange")
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        fail(ValueError, f"rearrange: expected a pattern 'in -> out' (one '->'), received "
                         f"{pattern!r}")
    for name, n in axes_lengths.items():
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n <= 0:
            fail(ValueError, f"rearrange: expected the length of axis {name!r} to be an "
                             f"int > 0, received {n!r}")
    left, right = pattern.split("->")
    ins, outs = _groups(left, pattern), _groups(right, pattern)
    flat_in = [n for g in ins for n in g]
    flat_out = [n for g in outs for n in g]
    for side, names in (("input", flat_in), ("output", flat_out)):
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            fail(ValueError, f"rearrange: the {side} side of {pattern!r} names "
                             f"{', '.join(repeated)} more than once")
    if set(flat_in) != set(flat_out):
        fail(ValueError, f"rearrange: both sides of {pattern!r} must name the same axes; "
                         f"only on the left: {sorted(set(flat_in) - set(flat_out))}, only on "
                         f"the right: {sorted(set(flat_out) - set(flat_in))}")
    extra = sorted(set(axes_lengths) - set(flat_in))
    if extra:
        fail(ValueError, f"rearrange: lengths given for axes not in the pattern {pattern!r}: "
                         f"{extra}")
    if len(ins) != x.ndim:
        fail(ShapeError, f"rearrange: the pattern {pattern!r} has {len(ins)} input axes, "
                         f"received a tensor of rank {x.ndim} (shape {x.shape})")
    sizes = _sizes(ins, x.shape, axes_lengths, pattern)
    split = [sizes[n] for n in flat_in]
    if any(len(g) != 1 for g in ins):
        x = reshape(x, [-1 if s is None else s for s in split])
    order = [flat_in.index(n) for n in flat_out]
    if order != list(range(len(order))):
        x = transpose(x, order)
    merged = []
    for g in outs:
        dims = [sizes[n] for n in g]
        merged.append(None if None in dims else int(np.prod(dims, dtype=np.int64)))
    if tuple(merged) != tuple(x.shape) and merged.count(None) <= 1:
        x = reshape(x, [-1 if s is None else s for s in merged])
    elif tuple(merged) != tuple(x.shape):
        fail(ShapeError, f"rearrange: the pattern {pattern!r} merges several axes of unknown "
                         f"size, received shape {x.shape}")
    return x
