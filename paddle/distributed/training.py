"""The training loop in a world of several processes: data shards and one voice.

`Model.fit` (and so `Trainer.train`) calls in here only after `pd.distributed.init()` joined
a world of more than one process; alone, the loop runs as it always did.

Data. Arrays: at each epoch rank 0 draws the shuffled order (from paddle's random state,
so `pd.seed` makes it reproducible) and broadcasts it; rank r takes positions r, r + size,
r + 2 size, ... of it. For training the order is first cut to a multiple of `size`
(the n % size samples left over change from epoch to epoch when shuffling), so every rank
holds n // size samples and runs the same number of steps; with `batch_size` B per rank,
step k of every rank together sees exactly the samples of step k of one process with
batch size B * size. Validation keeps every sample (shards differ by at most one) and its
results are averaged weighted by the samples each rank evaluated. Readers and iterables of
batches go through `pd.reader.shard` (batch i to rank i % size, the last incomplete round
dropped).

Agreement before the first step. When `fit` starts, the ranks tell each other what an
epoch will be on each (the kind of data, its number of samples or batches, the batch size,
the steps per epoch): one small message from every rank to every other, waited for
`first_step_timeout` seconds (pd.distributed.init). Ranks that disagree raise
DistributedError on every rank, saying what each has; a rank that does not arrive (stopped,
stuck, or not calling fit) is named in the CollectiveTimeout of the others. Without this,
ranks running different numbers of steps met only at the collective timeout, 5 minutes
later, with a message that named no one.

One voice. After every training batch the running logs are averaged over the ranks
(one small allreduce), and after the callbacks ran, `stop_training` is agreed (any rank
stopping stops all), so every rank's callbacks see the same numbers, take the same
decisions, and the ranks leave the loop together.
"""
import numpy as np

from paddle.distributed import world as _world
from paddle.lowlevel.random_state import generator


def for_fit(train, val):
    """fit's training and validation sources, sharded for this rank, once every rank has
    arrived and agreed on what an epoch is (`agree_on_epochs`)."""
    w = _world.world()
    agree_on_epochs(train, w)
    return train.for_rank(w, "fit", True, agreed=True), None if val is None else \
        val.for_rank(w, "fit: validation data", False)


SOURCES = ("arrays", "a PyDataset", "a reader or an iterable of batches")


def agree_on_epochs(train, w):
    """Before the first step: every rank arrives within `w.first_step_timeout` seconds
    (CollectiveTimeout naming those that do not) and has the same `epoch_plan`
    (DistributedError on every rank, saying what each has, otherwise)."""
    table = w.control.roll_call(train.epoch_plan(w.size),
                                "fit: the ranks agreeing on the steps of an epoch",
                                w.first_step_timeout)
    count = "samples" if table[0, 0] == 0 else "batches"
    checks = (  # the kind first: the other columns mean the same on every rank after it
        (0, "the kind of training data", lambda v: SOURCES[v]),
        (1, f"the number of {count}", lambda v: f"{v} {count}"),
        (2, "the batch size (every rank trains on batch_size samples a step)",
         lambda v: f"batch_size={v}"),
        (3, "the steps per epoch", lambda v: f"{v} steps"))
    for column, what, describe in checks:
        _world.check_table(table[:, [column]], f"fit: {what} on each rank",
                           lambda row, describe=describe: describe(int(row[0])))


# A training source (the high level's data adapter) tells what an epoch is on each rank
# (`source.epoch_plan(size)`: [kind of source (an index in SOURCES), its samples (arrays) or
# batches (a PyDataset), the batch size, the steps per epoch on each of `size` ranks], -1
# where it does not tell) and gives this rank's part of itself (`source.for_rank(w, what,
# training, agreed)`: an ArrayShard, an IndexShard inside, or the reader's own shard).


def steps_of(samples, batch_size, max_steps):
    """Batches of `batch_size` in `samples`, at most `max_steps` (None: no limit)."""
    full = -(-samples // batch_size)
    return full if max_steps is None else min(max_steps, full)


class IndexShard:
    """This rank's batches of a PyDataset (indexed batches, `n` of them): batch i of the
    shard is batch i * size + rank of the source, the last incomplete round dropped (as
    pd.reader.shard), read by index so that no rank loads the others' batches."""

    def __init__(self, source, n, w, what, agreed=False):
        if not agreed:  # (fit's training data was: agree_on_epochs)
            _world.check_same(w.control, f"{what}: the number of batches on each rank", [n],
                              lambda row: f"{row[0]} batches")
        if 0 < n < w.size:
            raise ValueError(f"{what}: {n} batch(es) cannot be shared among {w.size} ranks: "
                             f"every rank needs at least one")
        self.source, self.rank, self.size, self.n = source, w.rank, w.size, n // w.size

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return self.source[index * self.size + self.rank]

    def __getattr__(self, name):  # workers, max_queue_size, on_epoch_begin/end
        return getattr(self.source, name)


class ArrayShard:
    """This rank's batches of an ArrayData (see the module docstring for the rule)."""

    def __init__(self, data, w, what, training, agreed=False):
        n, size = data.n, w.size
        if not agreed:  # (fit's training data was: agree_on_epochs)
            _world.check_same(w.control, f"{what}: the number of samples on each rank", [n],
                              lambda row: f"{row[0]} samples")
        if n < size:
            raise ValueError(f"{what}: {n} sample(s) cannot be shared among {size} ranks: "
                             f"every rank needs at least one (use fewer processes or more "
                             f"data)")
        self.data, self.world = data, w
        self.used = n - n % size if training else n
        self.local = len(range(w.rank, self.used, size))
        self.steps = steps_of(self.local, data.batch_size, data.max_steps)

    def epoch(self):
        d, w = self.data, self.world
        if d.shuffle:
            order = generator().permutation(d.n).astype(np.int64) if w.rank == 0 else \
                np.empty(d.n, np.int64)
            w.control.broadcast_(order, 0, "sharing the epoch's shuffled order")
        else:
            order = np.arange(d.n)
        mine = order[w.rank:self.used:w.size]
        size = d.batch_size
        for step in range(self.steps):
            pick = mine[step * size:(step + 1) * size]
            yield ([a[pick] for a in d.x], [a[pick] for a in d.y],
                   None if d.sw is None else d.sw[pick])


class Agreement:
    """The exchanges that keep every rank's loop and callbacks in step."""

    def __init__(self):
        w = _world.world()
        self.comm, self.size = w.control, w.size

    def batch(self, logs, last):
        """The running logs averaged over ranks, and the batch's own values (a custom
        train_step's, which the Trainer's EndStepEvent reports) averaged alike."""
        keys = list(logs)
        own = [float(v) for v in last.values()] if hasattr(last, "values") else []
        values = np.array([float(logs[k]) for k in keys] + own)
        if values.size:
            self.comm.allreduce_(values, "averaging the logs of a batch")
            values /= self.size
        averaged = dict(zip(keys, values[:len(keys)].tolist()))
        if own:
            last = AveragedBatch(values[len(keys):].tolist())
        return averaged, last

    def weighted(self, logs, count):
        """Logs averaged over ranks, each rank weighted by `count` (its samples)."""
        keys = list(logs)
        values = np.array([float(logs[k]) * count for k in keys] + [float(count)])
        self.comm.allreduce_(values, "averaging the validation results")
        total = float(values[-1])
        return {k: v / total for k, v in zip(keys, values[:-1].tolist())}

    def any(self, flag):
        """True on every rank when `flag` is true on any (stop_training)."""
        value = np.array([1 if flag else 0], np.int64)
        self.comm.allreduce_(value, "agreeing on stop_training", op="max")
        return bool(value[0])


class AveragedBatch:
    """A batch's own values averaged over the ranks (what `values()` of the loop's batch
    result gives)."""

    def __init__(self, values):
        self._values = values

    def values(self):
        return list(self._values)


def chief_decides(flag):
    """Rank 0's `flag` on every rank (alone: `flag`)."""
    if not _world.active():
        return flag
    value = np.array([1 if flag else 0], np.int64)
    _world.world().control.broadcast_(value, 0, "sharing rank 0's decision")
    return bool(value[0])
