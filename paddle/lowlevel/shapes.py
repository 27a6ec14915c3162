"""Shape arithmetic shared by the shape rules: broadcasting, axes, sizes (None = unknown)."""
import contextlib
import math
import os
import threading

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


def is_int(value):
    """A Python or NumPy integer, not a bool (True is no size, axis or count)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def real_number(value, what, where):
    """`value` as a float if it is a real number (not a bool); TypeError naming `where`."""
    if not isinstance(value, (int, float, np.integer, np.floating)) or \
            isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: expected {what} as a number, received {value!r}")
    return float(value)


def int_list(values, what, where, allow_none=False):
    """`values` as a tuple of ints (None too if allow_none); ShapeError naming `where` and
    `what` for anything else (floats are never truncated, strings never iterated). Outside
    a shape rule, call it inside `located()` for the user's file:line."""
    try:
        items = tuple(values) if not isinstance(values, (str, bytes)) else None
    except TypeError:
        items = None
    if items is None or not all(is_int(v) or (allow_none and v is None) for v in items):
        raise ShapeError(f"{where}: expected {what} as a list of integers"
                         f"{' (or None)' if allow_none else ''}, received {values!r}")
    return tuple(None if v is None else int(v) for v in items)


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


def around(shape, axis):
    """(outer, size, inner): the elements before axis `axis`, its size, and the elements
    after it, as a kernel walks a C-ordered array along one axis.

    Example:
        >>> around((2, 3, 4, 5), 1)
        (2, 3, 20)
    """
    return size(shape[:axis]), shape[axis], size(shape[axis + 1:])


def sizes_from(shape, like_shape):
    """`shape` with its None sizes read from `like_shape`: axis by axis when the ranks are
    equal; when only axis 0 is None (a batch of anything), from `like_shape`'s axis 0 at
    any rank. None when `like_shape` cannot give them."""
    if None not in shape:
        return tuple(shape)
    if len(like_shape) == len(shape):
        return tuple(like_shape[i] if d is None else d for i, d in enumerate(shape))
    if len(like_shape) >= 1 and [i for i, d in enumerate(shape) if d is None] == [0]:
        return (like_shape[0],) + tuple(shape[1:])
    return None


# ---- windows (convolutions and pooling) ------------------------------------------------

def same_pads(size, k, stride, dilation):
    """TensorFlow's 'same' padding: (before, after), the odd one after."""
    eff = (k - 1) * dilation + 1
    total = max((-(-size // stride) - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def axis_pads(padding, axis, size, k, stride, dilation):
    """(before, after) padding of one spatial axis (0: height, 1: width) of known size."""
    if padding == "valid":
        return 0, 0
    if padding == "same":
        return same_pads(size, k, stride, dilation)
    return padding[axis]


# ---- memory ---------------------------------------------------------------------------

def memory_bytes():
    """This machine's memory, RAM and swap, in bytes, or the process's address-space
    limit (RLIMIT_AS) when that is lower (None if neither can be told)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        total = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("SwapTotal:") and total is not None:
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    limit = _address_space_limit()
    if limit is not None and (total is None or limit < total):
        return limit
    return total


def _address_space_limit():
    try:
        import resource  # Unix only
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else soft


_BUDGET = threading.local()


@contextlib.contextmanager
def memory_budget():
    """Within the block, check_fits also adds up the arrays it passes, and refuses one
    that would take their total past this machine's memory: a loaded config's weights may
    each fit and all of them not (loaders build models inside one)."""
    saved = getattr(_BUDGET, "total", None)
    _BUDGET.total = 0
    try:
        yield
    finally:
        _BUDGET.total = saved


def _human(nbytes):
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.1f} {unit}" if unit != "bytes" else f"{nbytes} bytes"
        nbytes /= 1024
    return f"{nbytes:.1f} EiB"


def _needs(shape, dtype, where):
    return f"{where}: an array of shape {tuple(shape)} ({np.dtype(dtype).name}) needs " \
           f"{_human(math.prod(shape) * np.dtype(dtype).itemsize)}"


def check_fits(shape, dtype, where):
    """MemoryError naming `where` when an array of `shape` would not fit in this machine's
    memory: NumPy's own error names nothing, and an allocation the system grants lazily
    gets the process killed when it is filled."""
    limit = memory_bytes()
    need = math.prod(shape) * np.dtype(dtype).itemsize
    if limit is not None and need > limit:
        raise MemoryError(f"{_needs(shape, dtype, where)}, more than this machine's "
                          f"{_human(limit)} of memory")
    total = getattr(_BUDGET, "total", None)
    if total is not None:
        if limit is not None and total + need > limit:
            raise MemoryError(f"{_needs(shape, dtype, where)}, on top of {_human(total)} "
                              f"for the arrays before it: more than this machine's "
                              f"{_human(limit)} of memory")
        _BUDGET.total = total + need


def check_fits_device(shape, dtype, where, device, capacity):
    """MemoryError naming `where` when an array of `shape` is larger than the whole memory
    (`capacity` bytes) of `device`, before the device's allocator is asked."""
    if math.prod(shape) * np.dtype(dtype).itemsize > capacity:
        raise MemoryError(f"{_needs(shape, dtype, where)}, more than device {device}'s "
                          f"{_human(capacity)} of memory")


def allocate(shape, dtype, where):
    """np.empty(shape, dtype), with check_fits's error when it cannot be."""
    check_fits(shape, dtype, where)
    try:
        return np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError) as e:  # ValueError: beyond what NumPy can index
        raise MemoryError(f"{_needs(shape, dtype, where)}, which cannot be allocated "
                          f"({e})") from None
