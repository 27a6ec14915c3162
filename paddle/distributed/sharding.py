"""The update split between the ranks of one machine: each rank updates its share of the
parameters, then the ranks pass their shares to each other through shared memory.

Where every rank runs on one machine, gradients are averaged through a shared window
(`mpi.SharedMean`), and each rank sums only its 1/size share of them. On the CPU, the
update op's kernel (paddle/devices/cpu/optim.py) then updates only those elements: every
optimizer of paddle updates an element from that element alone (its parameter, mean
gradient and slots, and scalars every rank shares), so a share's update gives the bits the
whole update gives. A step is then

    barrier · sum my share of the gradients · update my share of the parameters ·
    write it into the shared parameters · barrier · copy the other shares into mine

instead of: barrier · sum my share · barrier · update every parameter. Each rank passes
over 1/size of the optimizer's state instead of all of it, and the ranks keep one copy of
the slots between them. On the benchmark's MLP at 2 ranks this saves about 0.2 ms of a
9 ms step: the exchange's two copies cost almost what the halved update saves
(docs/distributed.md, "Speed").

Parameters stay each rank's own arrays. The optimizer's slots (moments, velocities,
accumulators) would be current only in the share each rank updates, so when a node is
first sharded they are moved into shared memory (`optimizer.slots(var)` then returns
views of it, which every later update of them must also update by shares): between steps
every rank reads all of them current, and rank 0's checkpoints hold the slots every rank
updated.

Not sharded (the whole update runs on every rank, as before): ranks on several machines
(the gradients come from an allreduce), GPUs, updates whose gradients are averaged before
clipping (`average_over_ranks`), slots that a GPU plan also holds, optimizers without
slots (plain SGD: no state to split, and its update is cheaper than the exchange), and
when /dev/shm has no room. `ENABLED = False` turns it off (benchmarks compare both).
"""
import weakref

import numpy as np

from paddle.devices import mirrors
from paddle.distributed import mpi
from paddle.distributed.errors import DistributedError

ENABLED = True
_SHARDS = weakref.WeakKeyDictionary()      # update node -> Shards, or None when not sharded
_SHARED_SLOTS = weakref.WeakValueDictionary()  # id(slot array) -> the array, in shared memory


def shards(node, layout, comm, device):
    """The Shards of an update node whose gradients `layout` (a FlatGradients) averages,
    made the first time one of its plans is prepared (collective: every rank decides
    alike), or None when its update runs whole on every rank."""
    if node in _SHARDS:
        return _SHARDS[node]
    slots = _slot_arrays(node)
    fits = ENABLED and getattr(device, "name", None) == "cpu" and \
        bool(node.attrs["optimizer"].slot_names) and all(
        isinstance(mean, mpi.SharedMean) for mean, _, _ in layout.buffers)
    if fits:  # every rank must agree: a slot held by a GPU plan is known only to its rank
        held = np.array([any(mirrors.has_copy(a) for a in slots)], np.int64)
        comm.allreduce_(held, "sharding the update (slots on a GPU)", op="max")
        fits = not held[0]
    if fits:
        copies = 1 + len(node.attrs["optimizer"].all_slot_names())  # parameters and each slot
        nbytes = sum(copies * mean.output.nbytes for mean, _, _ in layout.buffers)
        fits = comm.shared_room(nbytes, "sharding the update (room in /dev/shm)")
    _SHARDS[node] = Shards(node, layout, comm) if fits else None
    return _SHARDS[node]


def check_private_slots(node):
    """Raise when an update that runs whole on every rank would write slots that ranks
    share (moved into shared memory by a sharded update of the same optimizer): the ranks
    would write the same memory at once."""
    shared = [a for a in _slot_arrays(node) if _SHARED_SLOTS.get(id(a)) is a]
    if shared:
        raise DistributedError(
            f"updating with the optimizer {node.attrs['optimizer'].name!r}: expected all its "
            f"updates on the CPU (one there split its slots between the ranks: "
            f"{len(shared)} slot array(s) in shared memory), received an update that every "
            f"rank runs whole (on a GPU); use one optimizer per device")


class Shards:
    """This rank's share of an update node's variables, and the shared memory the ranks
    pass parameters (and keep slots) in.

    `pieces`: (variable index, start, stop) of the flat elements this rank updates, in
    buffer order; `take(arrays)` gives those elements of arrays aligned with the variables.
    """

    def __init__(self, node, layout, comm):
        variables, opt = node.inputs[:node.attrs["n"]], node.attrs["optimizer"]
        self.comm, self.layout = comm, layout
        self.pieces, self.writes, self.reads, self.windows = [], [], [], []
        for mean, members, _ in layout.buffers:
            params = comm.shared_array(mean.output.size, mean.output.dtype)
            self.windows += [mean.window, params.window]
            own = []
            for i in members:
                _, offset, size = layout.places[i]
                for start, stop in _split(offset, offset + size, mean.lo, mean.hi):
                    where = params.array[start:stop]
                    (own if mean.lo <= start < mean.hi else self.reads).append(
                        (i, start - offset, stop - offset, where))
            self.pieces += [(i, a, z) for i, a, z, _ in own]
            self.writes.append(([(i, a, z) for i, a, z, _ in own],
                                params.array[mean.lo:mean.hi]))
            for slot in opt.all_slot_names():
                self._share_slot(opt, slot, [variables[i] for i in members], mean, comm)

    def _share_slot(self, opt, slot, variables, mean, comm):
        """Move one slot of these variables (one dtype buffer's) into shared memory: rank
        0's values (every rank holds them since `synchronize`), then views on every rank."""
        arrays = [opt.slots(v)[slot] for v in variables]
        if all(_SHARED_SLOTS.get(id(a)) is a for a in arrays):
            return  # shared by an earlier update of the same variables
        memory = comm.shared_array(mean.output.size, mean.output.dtype)
        self.windows.append(memory.window)
        offset, views = 0, []
        for v, a in zip(variables, arrays):
            views.append(memory.array[offset:offset + a.size].reshape(a.shape))
            if comm.rank == 0:
                np.copyto(views[-1], a)
            offset += a.size
        memory.barrier(f"sharing the slot {slot!r} of {opt.name}")
        for v, a, view in zip(variables, arrays, views):
            if _SHARED_SLOTS.get(id(a)) is not a:
                opt.slots(v)[slot] = view
                _SHARED_SLOTS[id(view)] = view

    def take(self, arrays, where=None):
        """This rank's elements of `arrays` (one per variable, or an empty list): flat views,
        only of the variables `where` marks when given."""
        if not arrays:
            return []
        return [arrays[i].reshape(-1)[a:z] for i, a, z in self.pieces
                if where is None or where[i]]

    def bind(self, params, grads):
        """(reduce, exchange, means) for a plan: `reduce()` averages this rank's share of
        `grads` into `means` (what the update reads); after the update, `exchange()` gives
        every rank the others' shares of `params`."""
        reduce = self.layout.bind(grads, self.comm, share_only=True)
        means = self.take(self.layout.views)
        writes = [([params[i].reshape(-1)[a:z] for i, a, z in own], window)
                  for own, window in self.writes]
        reads = [(params[i].reshape(-1)[a:z], window) for i, a, z, window in self.reads]
        windows, comm = self.windows, self.comm

        def exchange():
            for pieces, window in writes:
                if pieces:
                    np.concatenate(pieces, out=window)
            mpi.shared_barrier(comm, windows, "passing updated parameters")
            for mine, window in reads:
                np.copyto(mine, window)
        return reduce, exchange, means


def _split(start, stop, lo, hi):
    """[start, stop) cut at lo and hi: the non-empty ranges inside and outside [lo, hi)."""
    cuts = sorted({start, stop, *(c for c in (lo, hi) if start < c < stop)})
    return list(zip(cuts, cuts[1:]))


def _slot_arrays(node):
    opt = node.attrs["optimizer"]
    return [a for v in node.inputs[:node.attrs["n"]] for a in opt._slots.get(v, {}).values()]
