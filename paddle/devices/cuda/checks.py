"""Index checks on the device, without a host sync: the kernel records whether an index
is outside its range (and the first such one) in device buffers; after the run the
executor reads the flag and raises the same error as the CPU kernel, naming the op.

Between the compute ops and the updates, the runner folds the flags into the updates' gate
(`ctx.proceed()`, paddle/devices/runner.py `Hooks.gate`): the update kernels and assign
write under it, so a run whose check failed raises with its parameters and slots as they
were. Where the indices are fed (labels, token ids: the index buffer holds the feed's
values, through reshapes and casts), the program also checks the host array before
uploading it (`ctx.check_indices`), and a bad fed index stops the step before it runs.

The op's own computation never reads outside its operand meanwhile: NumPy's take runs
with mode='clip' and CuPy's take wraps indices."""


def index_check(ctx, idx, limit, error, start=0):
    """A capturable callable that checks idx (int32 or int64, any shape) against
    [start, limit); after a run in which one is outside, `error(value, position)` is raised.
    (A fed idx is checked on the host before the run too, where start is 0: the executor's
    check knows [0, limit) only.)"""
    xp = ctx.xp
    flat = idx.reshape(-1)
    low = ctx.empty(flat.shape, bool)
    high = ctx.empty(flat.shape, bool)
    flag = ctx.empty((), bool)
    first = ctx.empty((), "int64")
    value = ctx.empty((), flat.dtype)

    def run():
        xp.less(flat, start, out=low)
        xp.greater_equal(flat, limit, out=high)
        xp.logical_or(low, high, out=low)
        xp.any(low, out=flag)
        if flat.size:
            xp.argmax(low, out=first)
            xp.take(flat, first, out=value)

    dev = ctx.device  # (not ctx, which holds the hooks that hold `raised`: no cycle)

    def raised():
        return error(int(dev.download(value)), int(dev.download(first)))
    ctx.check(flag, raised)
    if start == 0:
        ctx.check_indices(idx, limit, error)
    return run


def outside(op, limit, start=0):
    """The CPU's IndexError for an index outside [start, limit) (csrc/copy.cpp, sort.cpp)."""
    return lambda v, i: IndexError(f"{op}: index {v} at position {i} is outside [{start}, "
                                   f"{limit})")


def label_outside(op, classes):
    """The CPU's ValueError for a class label outside [0, classes) (csrc/softmax.cpp)."""
    return lambda v, i: ValueError(f"{op}: label {v} at position {i} is outside the {classes} "
                                   f"classes [0, {classes})")


def take(xp, x, idx, axis, out):
    """out = x taken at idx along axis, never reading outside x."""
    if xp.__name__ == "numpy":
        return xp.take(x, idx, axis=axis, out=out, mode="clip")
    return xp.take(x, idx, axis=axis, out=out)
