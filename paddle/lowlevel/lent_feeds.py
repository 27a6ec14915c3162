"""Lent feeds: a CPU program reads a large fed NumPy array where it lies, without a copy.

A program's prepared calls read each feed from a buffer of its own, into which a run
copies the fed array (paddle/lowlevel/executor.py, `Program.run`). For a large feed that
copy is a pass over memory that the kernels then make again (the input of a predict batch:
3.2 MB, 0.3 ms of a 5 ms MLP batch). Where every call that reads the feed's buffer holds
it as an argument of its `functools.partial` (the usual form of a prepared CPU call), the
run instead calls copies of those partials whose argument is a read-only view of the
caller's array: the array is lent for the run, and nothing is copied.

- A kernel only reads through a lent view: it is read-only, so a kernel that took it as an
  output would raise (pybind11's `mutable_data`) rather than write into the caller's array.
- The lent partials hold the view, and the view the array, until the run returns; the
  program keeps no reference after it.
- A feed is copied as before when it is small (below `MIN_BYTES` the copy costs less than
  rebuilding the calls), not C-contiguous or not aligned for its dtype, or when some call
  or result reads its buffer in a form that cannot be redirected (a closure, a strided
  view, a list of arrays, a result that is the feed itself).

Example:
    >>> import math
    >>> import numpy as np
    >>> from functools import partial
    >>> feed = np.zeros((2, 3))
    >>> step = partial(math.fsum, feed.reshape(6))  # a prepared call reading the feed
    >>> found = lendable(feed, [step], [[feed]], [])
    >>> found
    [(0, [('arg', 0, (6,))])]
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> lent([step], found, x)[0]()
    15.0
"""
from functools import partial
from types import BuiltinFunctionType, ModuleType

import numpy as np

# Feeds below this size are copied: the copy (about 10 GB/s) then takes less than the
# microsecond or two of making the lent calls.
MIN_BYTES = 1 << 16


def lendable(feed, steps, step_ins, results):
    """How to lend an array in place of the buffer `feed`: [(step index, slots)] for the
    calls of `steps` that read it (slots: ("arg", position, shape) or ("kw", name, shape)
    of each argument that is a full view of the buffer), or None where some call or
    result reads the buffer in a form a lent array cannot replace. `step_ins[i]`: the
    arrays call i reads (its node's inputs, those read for their shape only left out: a
    call may keep those on the feed's buffer, whose shape is the lent array's)."""
    if any(r is not None and np.may_share_memory(r, feed) for r in results):
        return None  # a result is the feed (or a view of it): the runner copies it out
    found = []
    for i, (step, ins) in enumerate(zip(steps, step_ins)):
        if not any(np.may_share_memory(a, feed) for a in ins):
            continue  # (a prepare function sees no buffer but its node's)
        slots = _slots(step, feed)
        if not slots:
            return None
        found.append((i, slots))
    return found


def _slots(step, feed):
    """The arguments of the prepared call `step` that are full views of `feed`; None unless
    it is a partial of a module's built-in (pybind11) function whose other arguments are
    plain settings (`plain_setting`): an object, a strided view or a list of views may
    hold the feed's memory in a form a lent array does not replace."""
    if not isinstance(step, partial) or not _module_function(step.func):
        return None
    slots = []
    for kind, at, value in [*(("arg", i, v) for i, v in enumerate(step.args)),
                            *(("kw", k, v) for k, v in step.keywords.items())]:
        if isinstance(value, np.ndarray) and _full_view(value, feed):
            slots.append((kind, at, value.shape))
        elif not plain_setting(value, [feed]):
            return None
    return slots


def _module_function(func):
    """Whether `func` is a module's built-in function (a pybind11 function's `__self__` is
    its function record; a bound method's, the object it is bound to)."""
    if not isinstance(func, BuiltinFunctionType):
        return False
    owner = func.__self__
    return isinstance(owner, (ModuleType, type(None))) or \
        type(owner).__name__.startswith("pybind11_detail_function_record")


def plain_setting(value, buffers):
    """Whether a prepared call's argument other than its buffers is a plain setting the
    call only reads: a number, a string, None, an array sharing no memory with `buffers`,
    or a list or tuple of those. Anything else (an object that may hold a buffer, a list
    of buffers) keeps the program on its own buffers."""
    if value is None or isinstance(value, (bool, int, float, str, np.generic)):
        return True
    if isinstance(value, np.ndarray):
        return not any(np.shares_memory(value, b) for b in buffers)
    if isinstance(value, (list, tuple)):
        return all(plain_setting(v, buffers) for v in value)
    return False


def _full_view(view, feed):
    """Whether `view` is all of `feed`'s memory, C-contiguous, in its dtype."""
    return (view.flags.c_contiguous and view.dtype == feed.dtype and view.nbytes == feed.nbytes
            and view.__array_interface__["data"][0] == feed.__array_interface__["data"][0])


def can_lend(array):
    """Whether a fed host array (already of the feed's dtype and shape) is lent rather than
    copied: large, C-contiguous and aligned."""
    return array.nbytes >= MIN_BYTES and array.flags.c_contiguous and array.flags.aligned


def lent(steps, found, array):
    """`steps` (a copy of the list) with the calls of `found` (`lendable`'s) reading a
    read-only view of `array` in place of the feed's buffer."""
    steps = list(steps)
    view = array.view()
    view.flags.writeable = False
    for i, slots in found:
        step = steps[i]
        args, kwargs = list(step.args), dict(step.keywords)
        for kind, at, shape in slots:
            if kind == "arg":
                args[at] = view.reshape(shape)
            else:
                kwargs[at] = view.reshape(shape)
        steps[i] = partial(step.func, *args, **kwargs)
    return steps
