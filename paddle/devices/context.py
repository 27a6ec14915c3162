"""The kernel context: what a prepare function may ask about the run it prepares (`ctx`).

The executor (paddle/lowlevel/executor.py) makes one per node when it prepares a plan;
its hooks (paddle/devices/runner.py, `Hooks`) carry what the kernels asked for to the
runner. Its `collectives` are how kernels reach the other ranks of a distributed run:
paddle.distributed sets them when imported, and until then a process is `Alone`.
"""
import numpy as np

from paddle.devices import mirrors


class Alone:
    """The collectives of a process alone: nothing to average, so the update kernels run
    as they would without a world (each question answers None)."""

    def active(self):
        """Whether the gradients of a step are averaged over several ranks."""
        return False

    def averaging(self, node, grads, device):
        """(reduce, averaged grads) for an update op's kernel, or None: average nothing."""
        return None

    def shards(self, node, device):
        """The share of the update this rank runs, or None: all of it."""
        return None

    def input_buffers(self, node, device):
        """{input index: buffer} an update op's gradients are computed into, or None."""
        return None

    def average_kernel(self, node, ins, outs, device):
        """The run of an average_over_ranks node: the mean over one rank is the input."""
        copyto, pairs = device.xp.copyto, list(zip(outs, ins))

        def run():
            for out, x in pairs:
                copyto(out, x)
        return run


class KernelContext:
    """What a prepare function may ask about the run it prepares (`ctx`).

    Attributes:
        xp: the array module of the buffers (numpy, or cupy on a GPU).
        training: whether the node runs in training mode.
        device: the backend (`device.name` is 'cpu' or 'gpu:N').
        node: the node being prepared.
        collectives: what averages over the ranks of a distributed run (`Alone` until
            paddle.distributed installs its own, paddle/distributed/gradients.py): the
            update kernels ask it, so that no kernel imports paddle.distributed.
    """

    collectives = Alone()

    def __init__(self, device, training, node, hooks, index, workspace=None):
        self.device, self.xp, self.training, self.node = device, device.xp, training, node
        self._hooks, self._index = hooks, index
        self._workspace = workspace

    def workspace(self, count, dtype):
        """A scratch buffer of `count` elements that the kernel uses during its call only:
        a part of the plan's arena, shared with the buffers of values not live then, when
        the prepare function's `workspace(node, in_specs, out_specs)` asked the planner
        for at least as many bytes; else one made now."""
        dtype = np.dtype(dtype)
        space = self._workspace
        if space is None or space.nbytes < count * dtype.itemsize:
            return self.empty((count,), dtype)
        return space[:count * dtype.itemsize].view(dtype)

    def empty(self, shape, dtype):
        """A scratch buffer on the device, made now (MemoryError naming the op)."""
        where = f"{self.node.op.name} (built at {self.node.location or '?'})"
        return self.device.empty(tuple(shape), np.dtype(dtype), where)

    def state(self, host, name="state"):
        """The device copy of a host array the kernel updates in place across runs (an
        optimizer slot): current on the device before each run, and marked as written by
        the device after it (the host reads it back on demand)."""
        self._hooks.state.append(host)
        return mirrors.on_device(host, self.device, f"{self.node.op.name} {name}")

    def before_run(self, fn):
        """Call `fn()` on the host before each run (outside any CUDA graph): per-step host
        values (a learning rate) are written into device buffers here."""
        self._hooks.before.append(fn)

    def after_run(self, fn):
        """Call `fn()` on the host after each run (an iteration counter)."""
        self._hooks.after.append(fn)

    def check(self, flag, error):
        """After each run, raise `error()` (attributed to this op) if the one-element device
        buffer `flag` holds a non-zero value: a kernel's input check without a host sync."""
        self._hooks.checks.append((self._index, flag, error))

    def check_indices(self, idx, limit, error):
        """Where the index buffer `idx` (one of the node's inputs, or a view of all of it)
        holds a feed's values (the feed, through views and casts), check the fed host array
        against [0, limit) before the run, so that a bad index raises `error(value,
        position)` before anything runs (the updates included); a kernel also checks `idx`
        on the device (`check`) for indices computed there."""
        self._hooks.fed_checks.append((self._index, idx, limit, error))

    def proceed(self):
        """The device bool (shape ()) that an update kernel (a stateful op) writes under: it is
        False in a run where a deferred check (`check`) of a compute op failed, so that run
        raises with its parameters and slots unchanged, as on the CPU, whose kernels raise
        before the updates run. One per program."""
        if self._hooks.proceed is None:
            self._hooks.proceed = self.empty((), bool)
            self._hooks.proceed.fill(True)  # open until the runner's gate sets it
        return self._hooks.proceed

    def not_capturable(self, reason):
        """This op cannot run inside a CUDA graph (say why): its plan runs op by op."""
        self._hooks.uncapturable.append((self._index, reason))


def gradient_buffers(node, device):
    """An update kernel's `input_buffers(node, device)`: {input index: buffer} where the
    collectives want its gradients computed (the buffer they average), None alone."""
    return KernelContext.collectives.input_buffers(node, device)
