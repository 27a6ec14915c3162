"""Keras's `keras.ops.core` control flow in `pd.ops`: `cond`, `switch`, `while_loop`,
`fori_loop`, `scan`, `map`, `associative_scan`, `vectorized_map`, `stop_gradient`,
`custom_gradient`, with Keras's signatures and nested structures (lists, tuples, dicts of
tensors) as loop variables and carries.

The primitives are the graph ops of paddle/lowlevel/ops/control_flow.py (a switch, a
while loop, a scan, each running traced subgraphs); the rest are built from them:
`fori_loop` with Python int bounds is a scan over the indices (so it has a gradient), with
tensor bounds a while loop; `map` and `vectorized_map` are scans without a carry;
`associative_scan` is a scan whose carry is the running combination.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.constant(np.array([1.0, 2.0, 3.0], np.float32))
    >>> total = pd.ops.fori_loop(0, 3, lambda i, acc: acc + pd.gather(x, i), pd.constant(0.0))
    >>> total.numpy().item()
    6.0
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import as_variable, constant
from paddle.lowlevel.ops.control_flow import (
    cond, custom_gradient, scan, stop_gradient, switch, while_loop)
from paddle.lowlevel.ops.math import cast, less
from paddle.lowlevel.ops.shape import concat, expand_dims, transpose
from paddle.lowlevel.subgraph import flatten, tensors, unflatten

__all__ = ["associative_scan", "cond", "custom_gradient", "fori_loop", "map", "scan",
           "stop_gradient", "switch", "vectorized_map", "while_loop"]


def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for i in [lower, upper) (Keras's `ops.fori_loop`). With
    Python int bounds it is a scan over the indices, through which gradients flow; with
    tensor bounds a while loop (no gradient, as in JAX).

    Example:
        >>> import paddle as pd
        >>> pd.ops.fori_loop(0, 4, lambda i, v: v * 2.0, pd.constant(1.0)).numpy().item()
        16.0
    """
    if not callable(body_fun):
        raise TypeError(at_user(f"fori_loop: expected a callable body_fun, received "
                                f"{type(body_fun).__name__}"))
    if _is_int(lower) and _is_int(upper):
        steps = max(int(upper) - int(lower), 0)
        indices = constant(np.arange(int(lower), int(lower) + steps), dtype="int32")
        carry, _ = scan(lambda val, i: (body_fun(i, val), None), init_val, indices,
                        length=steps)
        return carry
    lower, upper = (as_variable(b, where="fori_loop") for b in (lower, upper))
    for name, b in (("lower", lower), ("upper", upper)):
        if b.shape != () or b.dtype not in ("int32", "int64"):
            raise TypeError(at_user(f"fori_loop: expected {name} to be a scalar integer, "
                                    f"received shape {b.shape} and dtype {b.dtype}"))
    dtype = "int64" if "int64" in (lower.dtype, upper.dtype) else "int32"
    lower, upper = cast(lower, dtype), cast(upper, dtype)
    _, val = while_loop(lambda i, val: less(i, upper),
                        lambda i, val: (i + 1, body_fun(i, val)), (lower, init_val))
    return val


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def map(f, xs):  # noqa: A001
    """`f` applied to each slice of `xs` along axis 0, the results stacked (Keras's
    `ops.map`); `xs` may be a nested structure of tensors with the same leading size.

    Example:
        >>> import numpy as np, paddle as pd
        >>> xs = pd.constant(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
        >>> pd.ops.map(lambda row: row * row, xs).numpy().tolist()
        [[1.0, 4.0], [9.0, 16.0]]
    """
    if not callable(f):
        raise TypeError(at_user(f"map: expected a callable f, received {type(f).__name__}"))
    _, ys = scan(lambda carry, x: (carry, f(x)), (), xs)
    return ys


def vectorized_map(function, elements):
    """`function` applied to each slice of `elements` along axis 0, results stacked
    (Keras's `ops.vectorized_map`): the same values as `map`, computed as one scan op.

    Example:
        >>> import numpy as np, paddle as pd
        >>> xs = pd.constant(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
        >>> pd.ops.vectorized_map(lambda row: pd.sum(row), xs).numpy().tolist()
        [3.0, 7.0]
    """
    if not callable(function):
        raise TypeError(at_user(f"vectorized_map: expected a callable function, received "
                                f"{type(function).__name__}"))
    _, ys = scan(lambda carry, x: (carry, function(x)), (), elements)
    return ys


def associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of `elems` along `axis` under the associative `f` (Keras's
    `ops.associative_scan`): out[i] = f(out[i - 1], elems[i]), out[0] = elems[0]
    (with `reverse`, from the end: out[i] = f(out[i + 1], elems[i])). `elems` may be a
    nested structure of tensors of one size along `axis`; `f` takes and returns that
    structure. Computed as one sequential scan (exact for any associative `f`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
        >>> pd.ops.associative_scan(lambda a, b: a + b, x).numpy().tolist()
        [1.0, 3.0, 6.0, 10.0]
    """
    if not callable(f):
        raise TypeError(at_user(f"associative_scan: expected a callable f, received "
                                f"{type(f).__name__}"))
    leaves, definition = tensors(elems, "associative_scan")
    if not leaves:
        raise ValueError(at_user("associative_scan: expected at least one tensor in elems"))
    if not _is_int(axis) or not all(-x.ndim <= axis < x.ndim for x in leaves):
        raise ValueError(at_user(f"associative_scan: axis {axis!r} is outside the ranks "
                                 f"{[x.ndim for x in leaves]} of elems"))
    sizes = {x.shape[axis % x.ndim] for x in leaves}
    if len(sizes) != 1 or None in sizes:
        raise ShapeError(at_user(f"associative_scan: expected every tensor of elems to have "
                                 f"one known size along axis {axis}, received the shapes "
                                 f"{[x.shape for x in leaves]}"))
    n = sizes.pop()
    if n == 0:
        return elems
    perms = [_front(x.ndim, axis % x.ndim) for x in leaves]
    moved = [transpose(x, p) if p is not None else x for x, p in zip(leaves, perms)]
    first = n - 1 if reverse else 0
    init = unflatten(definition, [x[first] for x in moved])
    rest = unflatten(definition, [x[:-1] if reverse else x[1:] for x in moved])

    def step(carry, x):
        out = f(carry, x)
        return out, out
    _, ys = scan(step, init, rest, reverse=reverse) if n > 1 else (None, None)
    ends = [expand_dims(x[first], 0) for x in moved]
    if n > 1:
        ys, _ = flatten(ys)
        ys = [concat([y, e]) if reverse else concat([e, y]) for y, e in zip(ys, ends)]
    else:
        ys = ends
    out = [transpose(y, _inverse(p)) if p is not None else y for y, p in zip(ys, perms)]
    return unflatten(definition, out)


def _front(rank, axis):
    """The permutation bringing `axis` to the front (None when it is there already)."""
    return None if axis == 0 else [axis] + [i for i in range(rank) if i != axis]


def _inverse(perm):
    return [perm.index(i) for i in range(len(perm))]




