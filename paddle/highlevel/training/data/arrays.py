"""In-memory arrays as batches (`ArrayData`), and the checks and conversions every source's
batches go through: dicts ordered by the model's names, arrays of numbers with a batch
axis, one weight per sample, the same number of samples everywhere.

Example:
    >>> import numpy as np
    >>> from paddle.highlevel.training.data.arrays import ArrayData
    >>> data = ArrayData(np.zeros((5, 2)), np.ones(5), batch_size=2)
    >>> [len(x[0]) for x, y, sw in data.epoch()]
    [2, 2, 1]
"""
import numpy as np

from paddle.distributed import training as distributed_training
from paddle.lowlevel.random_state import generator
from paddle.lowlevel.graph import Variable
from paddle.lowlevel.strings import as_strings


def as_list(x, names=None, what="x"):
    """Arrays of one model side as a list; a dict is ordered by `names` (the model's input
    or output names)."""
    if x is None:
        return []
    if isinstance(x, dict):
        return by_name(x, names, what, "inputs" if what.startswith("x") else "outputs")
    return list(x) if isinstance(x, (list, tuple)) else [x]


def by_name(values, names, what, side):
    """The values of a dict in the order of `names`; ValueError naming the missing and the
    unknown keys, TypeError when the model has no names to match (`names` is None)."""
    if not names:
        raise TypeError(f"{what}: a dict needs a model whose {side} have names (a functional "
                        f"model, built on pd.Input(name=...)); pass a list in the order of "
                        f"the model's {side}")
    missing = [n for n in names if n not in values]
    unknown = [k for k in values if k not in names]
    if missing or unknown:
        detail = "; ".join(part for part in (
            f"missing {missing}" if missing else "", f"unknown {unknown}" if unknown else "")
            if part)
        raise ValueError(f"{what}: the dict's keys {list(values)} do not match the model's "
                         f"{side} {list(names)} ({detail})")
    return [values[n] for n in names]


def as_arrays(values, what, strings=None):
    """`values` as arrays with a batch axis. Text (NumPy str_ / bytes_ arrays, object arrays
    of strings) is kept as object arrays of str where `strings` (default: for `what` "x", the
    inputs; never for targets); the model then checks it meets a string input."""
    strings = what == "x" if strings is None else strings
    out = []
    for i, v in enumerate(values):
        if isinstance(v, Variable):  # a tensor made by ops (Keras's ops.one_hot(y)): its
            try:                     # value, as Keras converts backend tensors
                v = v.numpy()
            except Exception as e:
                raise ValueError(f"{what}: item {i} is a Variable whose value cannot be "
                                 f"computed without feeds ({e})") from None
        try:
            a = np.asarray(v)
        except Exception as e:
            raise ValueError(f"{what}: cannot convert item {i} to an array ({e})") from None
        # Text for a string input (paddle/lowlevel/strings.py) comes as a NumPy array: a
        # Python list of strings is ambiguous (one input's samples, or several inputs?).
        if strings and isinstance(v, np.ndarray) and _is_text(a):
            a = as_strings(a, f"{what}: item {i}")
        elif a.dtype.kind not in "biuf":
            raise TypeError(f"{what}: expected numeric data, received an array of {a.dtype} "
                            f"(item {i})")
        if a.ndim == 0:
            raise ValueError(f"{what}: expected arrays with a batch axis, received a scalar")
        out.append(a)
    return out


def _is_text(a):
    if a.dtype.kind in "US":
        return True
    return a.dtype.kind == "O" and a.size > 0 and all(
        isinstance(item, (str, bytes, np.str_, np.bytes_)) for item in a.reshape(-1))


def positive_int(value, what, allow_none=True):
    """`value` as an int >= 1 (or None when allowed); ValueError naming `what` (a bool is no
    count, and steps=0 would silently make an epoch of no batches)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) \
            or value < 1:
        raise ValueError(f"{what}: expected a positive integer, received {value!r}")
    return int(value)


def sample_weights(sample_weight, what="sample_weight"):
    """sample_weight as a float32 array of one weight per sample ((n, 1) becomes (n,)),
    None stays None; TypeError naming it otherwise."""
    if sample_weight is None:
        return None
    try:
        sw = np.asarray(sample_weight, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: expected numbers (one weight per sample), received "
                        f"{type(sample_weight).__name__} ({e})") from None
    # A column of weights, (n, 1), is one weight per sample too: Keras squeezes it to the
    # per-sample losses' shape (keras-io's custom_train_step guide passes one).
    return sw[:, 0] if sw.ndim == 2 and sw.shape[1] == 1 else sw


def check_samples(x, y):
    """Every array of x and y must hold the same number of samples; ValueError naming the
    arrays that differ (x[1] when there are several)."""
    named = [(f"x[{i}]" if len(x) > 1 else "x", a) for i, a in enumerate(x)] + \
        [(f"y[{i}]" if len(y) > 1 else "y", a) for i, a in enumerate(y)]
    first, n = named[0][0], len(named[0][1])
    for name, a in named[1:]:
        if len(a) != n:
            which = "x and y" if y else "the inputs"
            raise ValueError(f"{which} must have the same number of samples: {first} has {n}, "
                             f"{name} has {len(a)}")


def class_weights_for(y, class_weight):
    """Per-sample weights from a {class: weight} dict and the labels of a batch."""
    if not isinstance(class_weight, dict):
        raise TypeError(f"class_weight: expected a dict {{class index: weight}}, received "
                        f"{type(class_weight).__name__}")
    for k, w in class_weight.items():
        # A negative key would index the table from its end: {-1: 2.0} weighted the last class.
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0 or \
                not isinstance(w, (int, float, np.integer, np.floating)) or isinstance(w, bool):
            raise ValueError(f"class_weight: expected {{class index >= 0: weight}}, received "
                             f"the entry {k!r}: {w!r}")
    labels = np.asarray(y)
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(axis=-1)
    labels = labels.reshape(len(labels), -1)[:, 0].astype(np.int64)
    table = np.ones(max(int(labels.max(initial=0)) + 1, max(class_weight, default=0) + 1),
                    np.float32)
    for k, w in class_weight.items():
        table[int(k)] = float(w)
    return table[labels]


class ArrayData:
    """Batches sliced from in-memory arrays."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=32, shuffle=False, steps=None,
                 names=(None, None)):
        self.x = as_arrays(as_list(x, names[0], "x"), "x")
        self.y = as_arrays(as_list(y, names[1], "y"), "y")
        if not self.x:
            raise ValueError("no input data (x is empty)")
        self.sw = sample_weights(sample_weight)
        n = len(self.x[0])
        if n == 0:
            raise ValueError(f"x has no samples: its first (batch) axis is 0 in {self.x[0].shape}")
        check_samples(self.x, self.y)
        if self.sw is not None and (self.sw.ndim != 1 or len(self.sw) != n):
            raise ValueError(f"sample_weight: expected shape ({n},), received {self.sw.shape}")
        batch_size = 32 if batch_size is None else positive_int(batch_size, "batch_size")
        self.n, self.batch_size, self.shuffle = n, batch_size, shuffle
        self.max_steps = positive_int(steps, "steps")
        self.steps = distributed_training.steps_of(n, self.batch_size, self.max_steps)

    def split(self, fraction):
        """(training part, validation part): the last `fraction` of samples, as Keras."""
        if not isinstance(fraction, (int, float, np.integer, np.floating)) or \
                isinstance(fraction, bool) or not 0 < fraction < 1:
            raise ValueError(f"validation_split: expected a fraction in (0, 1), received "
                             f"{fraction}")
        cut = int(self.n * (1 - fraction))
        if cut == 0 or cut == self.n:
            raise ValueError(f"validation_split={fraction} leaves no samples on one side "
                             f"({self.n} samples)")
        head = ArrayData([a[:cut] for a in self.x], [a[:cut] for a in self.y] or None,
                         None if self.sw is None else self.sw[:cut], self.batch_size, self.shuffle)
        tail = ArrayData([a[cut:] for a in self.x], [a[cut:] for a in self.y] or None,
                         None if self.sw is None else self.sw[cut:], self.batch_size, False)
        return head, tail

    def epoch_plan(self, size):
        """What distributed training agrees on (see paddle/distributed/training.py): arrays,
        their samples, the batch size and the steps of an epoch on each of `size` ranks."""
        return [0, self.n, self.batch_size,
                distributed_training.steps_of(self.n // size, self.batch_size, self.max_steps)]

    def for_rank(self, w, what, training, agreed=False):
        """This rank's share of the samples in a world `w` of several processes."""
        return distributed_training.ArrayShard(self, w, what, training, agreed)

    def epoch(self):
        order = generator().permutation(self.n) if self.shuffle else None
        for step in range(self.steps):
            lo, hi = step * self.batch_size, min((step + 1) * self.batch_size, self.n)
            pick = slice(lo, hi) if order is None else order[lo:hi]
            yield ([a[pick] for a in self.x], [a[pick] for a in self.y],
                   None if self.sw is None else self.sw[pick])
