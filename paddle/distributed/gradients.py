"""Gradients averaged across ranks between the backward pass and the update.

This module sets the kernels' collectives (`KernelContext.collectives`,
paddle/devices/context.py) when imported: the update op of `Optimizer.minimize`
(`apply_updates`) asks `ctx.collectives.averaging(node, grads, ctx.device)` when its kernel
is prepared, on the CPU or a GPU alike (`device`: the backend whose arrays hold the
gradients; `communicator` picks MPI or NCCL from it). In a world of one process it gets
None and the kernel runs as before, without a single extra call.
Otherwise:

- the first time the op is prepared (its first plan), every rank checks that it built the
  same parameters (shapes and dtypes, named on a mismatch), then rank 0's parameters —
  every one the gradients reach, frozen ones and batch-norm statistics included — and the
  optimizer's state (slots, step count) are broadcast, so the ranks start identical;
- each run copies the gradients into one flat buffer per dtype and averages each buffer
  over the ranks at once (`comm.mean_buffer`: through shared memory when the ranks share
  one machine, else one allreduce), and hands the update views of the mean: a few large
  buffers per step, not one per parameter. The update then runs identically
  on every rank, so parameters never drift apart;
- or, on the CPU with every rank on one machine, the kernel first asks for `shards(node,
  ctx.device)`: each rank then averages and updates only its share of the variables and
  passes the result to the others (paddle/distributed/sharding.py).

Layouts are kept per update op (not per feed shape), so a smaller last batch reuses them.

An optimizer that clips gradients must clip the averaged ones (as one process with the
global batch would): when distributed, `apply_gradients` then puts an
`average_over_ranks` op between the gradients and the clipping ops, and marks its update
op `averaged`, whose kernel then only does the first broadcast.
"""
import weakref

import numpy as np

from paddle.devices import mirrors
from paddle.devices.context import KernelContext
from paddle.devices.default import parse_device
from paddle.distributed import sharding
from paddle.distributed import world as _world
from paddle.distributed.errors import DistributedError
from paddle.lowlevel.executor import memory_span, topological_nodes

_LAYOUTS = weakref.WeakKeyDictionary()  # update or average node -> FlatGradients
_AVERAGED_BEFORE = object()  # layout of an update op whose gradients come averaged


def average_kernel(node, ins, outs, device):
    """The run of an average_over_ranks node on `device` (a backend): the inputs
    averaged into the outputs."""
    comm = communicator(device)
    layout = _LAYOUTS.get(node)
    if layout is None:
        layout = _LAYOUTS[node] = FlatGradients(node.inputs, comm)
    reduce = layout.bind(ins, comm)
    pairs = list(zip(layout.views, outs))
    copyto = device.xp.copyto

    def run():
        reduce()
        for view, out in pairs:
            copyto(out, view)
    return run


def averaging(node, grads, device):
    """(reduce, grads) for an update op's kernel: `reduce()` averages the current
    gradients over the ranks into the returned arrays, which the update must read instead
    of `grads`. None when this process is alone."""
    if not _world.active():
        return None
    comm = communicator(device)
    layout = _update_layout(node, comm)
    if layout is _AVERAGED_BEFORE:
        return None
    sharding.check_private_slots(node)
    return layout.bind(grads, comm), layout.views


def shards(node, device):
    """The Shards of an update op (paddle/distributed/sharding.py) when each rank updates
    only its share of the variables, or None (alone, or the update runs whole on every
    rank: then `averaging` gives its gradients). Asked before the kernel reads the
    optimizer's slots: the first call may move them into shared memory."""
    if not _world.active() or node.attrs.get("averaged"):
        return None
    comm = communicator(device)
    return sharding.shards(node, _update_layout(node, comm), comm, device)


def input_buffers(node, device):
    """{input index: array} where an update op's gradients may be computed: their places in
    the flat buffer that `averaging` sums over the ranks, so that the step copies nothing
    before averaging. None when this process is alone (the executor then allocates as
    usual). A gradient the executor cannot place is copied in by `averaging`'s reduce."""
    if not _world.active() or node.attrs.get("averaged"):
        return None  # averaged gradients come from an average_over_ranks op
    layout = _update_layout(node, communicator(device))
    n = node.attrs["n"]
    return {n + i: view for i, view in enumerate(layout.inputs)}


def _update_layout(node, comm):
    """The update op's FlatGradients, made (after synchronizing the ranks' parameters) the
    first time one of its programs is prepared; every rank makes them in the same order."""
    layout = _LAYOUTS.get(node)
    if layout is None:
        synchronize(node, comm)
        layout = _LAYOUTS[node] = _AVERAGED_BEFORE if node.attrs.get("averaged") else \
            FlatGradients(node.inputs[:node.attrs["n"]], comm)
    return layout


def communicator(device):
    """The communicator that averages gradients held by `device`: a backend (a kernel's
    `ctx.device`), or a device name.

    NumPy arrays (the CPU's, and those of the CUDA backend simulated on NumPy in tests and
    CI) are averaged over MPI (`paddle.distributed.mpi`). CuPy arrays on a GPU (`gpu:<n>`)
    over NCCL through CuPy (`paddle.distributed.nccl`: one communicator per rank, on the
    GPU of its gradients, its unique id broadcast over MPI), which has the same
    `mean_buffer(count, dtype)` method (a buffer with `.input` and `.output` arrays and a
    call that averages one into the other): the update kernels of both backends call
    `averaging(node, grads, ctx.device)` with the same code.
    """
    name = getattr(device, "name", device)
    if name == "cpu" or getattr(device, "simulated", False):
        return _world.world().grads
    if isinstance(name, str) and (name == "gpu" or name.startswith("gpu:")):
        return _world.world().gpu_grads(parse_device(name)[1])
    raise ValueError(f"averaging gradients: expected device 'cpu' or 'gpu', received "
                     f"{name!r}")


class FlatGradients:
    """One flat buffer per dtype, averaged over the ranks by the communicator, and for each
    variable a view of the mean shaped like it (what the update reads)."""

    def __init__(self, variables, comm):
        by_dtype = {}
        for i, v in enumerate(variables):
            by_dtype.setdefault(np.dtype(v.dtype), []).append(i)
        sizes = {i: int(np.prod(v.shape)) for i, v in enumerate(variables)}
        buffers = [(dtype, members, sum(sizes[i] for i in members))
                   for dtype, members in by_dtype.items()]
        _world.check_same(comm, "averaging gradients (the buffers each rank built)",
                          [len(buffers)], lambda row: f"{row[0]} dtype(s)")
        _world.check_same(comm, "averaging gradients (the buffers each rank built)",
                          [n for dtype, _, count in buffers for n in (ord(dtype.kind),
                                                                      dtype.itemsize, count)],
                          _describe_buffers)
        self.buffers = []
        self.views = [None] * len(variables)
        self.inputs = inputs = [None] * len(variables)
        self.places = [None] * len(variables)  # (buffer index, offset, size) of each
        for dtype, members, count in buffers:
            mean = comm.mean_buffer(count, dtype)
            offset = 0
            for i in members:
                shape, end = variables[i].shape, offset + sizes[i]
                self.views[i] = mean.output[offset:end].reshape(shape)
                inputs[i] = mean.input[offset:end].reshape(shape)
                self.places[i] = (len(self.buffers), offset, sizes[i])
                offset = end
            self.buffers.append((mean, members, [inputs[i] for i in members]))

    def bind(self, grads, comm, share_only=False):
        """A callable averaging these gradient arrays (a program's buffers) into the views
        (with `share_only`, only this rank's share of each: `SharedMean.mean_share`)."""
        plan = []
        for mean, members, inputs in self.buffers:
            sources = [grads[i] for i in members]
            pairs = [(view, g) for view, g in zip(inputs, sources) if not _same(view, g)]
            if not pairs:  # every gradient was computed in place (Program._placed)
                plan.append((mean, None, []))
            elif len(pairs) == len(sources) and all(g.flags.c_contiguous for g in sources):
                plan.append((mean, [g.reshape(-1) for g in sources], None))
            else:
                plan.append((mean, None, pairs))

        def reduce():
            for mean, flat_sources, pairs in plan:
                if flat_sources is not None:
                    np.concatenate(flat_sources, out=mean.input)
                else:
                    for view, g in pairs:
                        np.copyto(view, g)
                (mean.mean_share if share_only else mean)("averaging gradients")
        return reduce


def _same(a, b):
    """Whether two arrays (NumPy or CuPy) are the same memory seen the same way."""
    return memory_span(a) == memory_span(b) and a.shape == b.shape and \
        a.strides == b.strides and a.dtype == b.dtype


def _describe_buffers(row):
    return ", ".join(f"{count} x {np.dtype(chr(kind) + str(size)).name}"
                     for kind, size, count in row.reshape(-1, 3).tolist())


def synchronize(node, comm):
    """Check that every rank built the same parameters, then give every rank rank 0's
    parameters and optimizer state."""
    optimizer, n = node.attrs["optimizer"], node.attrs["n"]
    params, seen = [], set()
    for v in [*node.inputs[:n], *(i for m in topological_nodes(node.inputs) for i in m.inputs)]:
        if v.kind == "param" and id(v) not in seen:
            seen.add(id(v))
            params.append(v)
    arrays = [v.value for v in params]
    names = [v.name for v in params]
    for v in node.inputs[:n]:
        for slot, array in optimizer.slots(v).items():
            arrays.append(array)
            names.append(f"{optimizer.name}/{v.name}/{slot}")
    step = np.array([optimizer.iterations], np.int64)
    _world.check_same_arrays(comm, "the first step of training (parameters built on each "
                             "rank)", arrays + [step], names + ["iterations"])
    for array in arrays:
        _broadcast_into(comm, array)
    comm.broadcast_(step, 0, "broadcasting the optimizer's step count")
    optimizer.iterations = int(step[0])


def _broadcast_into(comm, array):
    """Rank 0's values in the host array `array`; its device copies (a GPU plan's) are
    then stale, so the plans upload it again before their next run."""
    buffer = array if array.flags.c_contiguous else np.ascontiguousarray(array)
    comm.broadcast_(buffer, 0, "broadcasting parameters from rank 0")
    if buffer is not array:
        np.copyto(array, buffer)
    mirrors.host_written(array)


class RankCollectives:
    """The kernels' collectives (`ctx.collectives`) once paddle.distributed is imported:
    this module's functions, which answer as `Alone` does until `init()` joins a world of
    several processes."""

    def active(self):
        return _world.active()

    def averaging(self, node, grads, device):
        return averaging(node, grads, device)

    def shards(self, node, device):
        return shards(node, device)

    def input_buffers(self, node, device):
        return input_buffers(node, device)

    def average_kernel(self, node, ins, outs, device):
        return average_kernel(node, ins, outs, device)


KernelContext.collectives = RankCollectives()

__all__ = ["averaging", "communicator", "shards", "DistributedError"]
