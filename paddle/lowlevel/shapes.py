"""Shape arithmetic shared by the shape rules: broadcasting, axes, sizes (None = unknown)."""
import numpy as np

from paddle.errors import ShapeError, at_user


class located:
    """`with located():` ShapeErrors raised inside get the user's file:line, as `apply`
    gives those of shape rules; for checks an op function makes before it builds its node.
    (A class, not contextlib: its frames must lie inside the package to be skipped.)"""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if kind is not None and issubclass(kind, ShapeError):
            raise ShapeError(at_user(str(error))) from None
        return False


def broadcast(op, *shapes, labels=None):
    """NumPy broadcasting of shapes that may hold None; ShapeError quoting all operands."""
    labels = labels or [chr(ord("a") + i) for i in range(len(shapes))]
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    out = []
    for dims in zip(*padded):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            op.fail("shapes cannot be broadcast together", *zip(labels, shapes))
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def normalize_axis(op, axis, rank, shape=None):
    """An axis in [0, rank); ShapeError if out of range."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise ShapeError(f"{op.name}: expected an integer axis, received {axis!r}")
    axis = int(axis)
    if not -rank <= axis < rank:
        msg = f"{op.name}: axis {axis} is out of range for rank {rank}"
        raise ShapeError(msg + (f" (shape {shape})" if shape is not None else ""))
    return axis % rank


def normalize_axes(op, axis, rank, shape=None):
    """A sorted tuple of distinct axes; None means all."""
    if axis is None:
        return tuple(range(rank))
    try:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    except TypeError:
        raise ShapeError(f"{op.name}: expected an integer axis, a tuple of them or None, "
                         f"received {axis!r}") from None
    out = sorted({normalize_axis(op, a, rank, shape) for a in axes})
    if len(out) != len(axes):
        raise ShapeError(f"{op.name}: repeated axis in {axis!r}")
    return tuple(out)


def size(shape):
    """Number of elements, or None if a dim is unknown."""
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n
