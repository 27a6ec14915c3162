"""Eager layer calls seen before: what a layer call on a concrete input works out once per
(layer, input shape and dtype), kept and reused.

A layer called on an EagerTensor or a NumPy array (Keras 3's eager style: `dense(x)`,
`model(x)`) runs `Layer.__call__`'s checks (build, input_spec, integer casts, autocast,
masks) and then its `call`, op by op. The checks depend only on the layer and the input's
shape and dtype, so a call whose signature was seen before, on the same layer in the same
state (`Layer._eager_state`: built, input_spec, dtype policy, autocast, weights,
activity regularizer), skips them: `lookup` finds its `Entry`.

A layer whose call is a pure function of its input and a few attributes
(`Layer._eager_program_reads` says which; Dense, Activation, Flatten, and models made of
such layers) goes further: its call is traced once per signature into one program of the
same ops and kernels (`LayerProgram`: the plan a graph of that call would run, unfused, so
the values are those of the op-by-op call to the last bit), which later calls run on their
input: one run instead of one eager dispatch per op. The program reads the layer's weights
where they live, so assignments and optimizer updates are seen; changing an attribute the
call reads (`layer.activation = ...`, a new kernel) makes the next call trace again.

Example:
    >>> import numpy as np, paddle as pd
    >>> dense = pd.layers.Dense(3, activation="relu")
    >>> x = pd.ops.ones((2, 4))
    >>> y = dense(x)                      # every check, then the program is traced and run
    >>> bool(pd.ops.all(dense(x) == y))   # seen before: the program alone
    True
    >>> _ = dense.kernel.assign(np.zeros((4, 3), np.float32))
    >>> dense(x).numpy().tolist()         # the weights as they are now
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
"""
import itertools
import threading
import weakref
from types import FunctionType

import numpy as np

from paddle import devices
from paddle.devices import mirrors
from paddle.devices.default import get_device
from paddle.devices.runner import RECORDERS
from paddle.lowlevel import eager
from paddle.lowlevel.eager import EagerTensor
from paddle.lowlevel.executor import Plan, Program, topological_nodes
from paddle.lowlevel.graph import EAGER_STATE, Variable, as_dtype, constant

# Signatures kept per layer (the oldest go first): a layer is usually called on one or two.
MAX_SIGNATURES = 8
# Ops a program of an eager call must not hold: they draw, write state or run programs of
# their own, which an eager call does at once, in order, where a program would not.
_NOT_PURE = ("random", "random_gamma")

_SEEN = {}  # id(layer) -> _Signatures (dropped with the layer)

# Changes whenever an attribute of any layer is set (Layer.__setattr__, `touched`): an
# entry checked under the current value needs no check of its layer's state again. (A
# count, never repeating; a change in place, `layer.input_spec.axes[...] = ...`, is not
# seen: assign the attribute.)
VERSION = [0]
_TICKS = itertools.count(1)


def touched():
    """Note that a layer's attribute changed (entries check their layer on the next call)."""
    VERSION[0] = next(_TICKS)


class _Signatures:
    __slots__ = ("entries", "ref", "layers")

    def __init__(self, layer):
        key = id(layer)
        self.entries = {}  # (shape, dtype, weak) -> Entry
        self.layers = None  # a model's (graph token, weak references to its layers)
        self.ref = weakref.ref(layer, _dropper(key))


def _dropper(key):
    """The callback that drops a dead layer's signatures. It holds the key alone: holding
    the signatures would make a cycle (signatures, reference, callback) that keeps them,
    and the weights their programs read (with their names), until the next collection."""
    def drop(ref):
        signatures = _SEEN.get(key)
        if signatures is not None and signatures.ref is ref:
            del _SEEN[key]
    return drop


class Entry:
    """What an eager call of one signature found: the layer's state then (`state`), the
    dtype its parameters are read in and the dtype its outputs are cast back to (autocast),
    what the call reads when it is pure (`reads`, None otherwise) and its program once
    traced. `version`: the value of VERSION when all that was last found current."""

    __slots__ = ("state", "compute", "back", "reads", "program", "traced", "version")

    def __init__(self, state, compute, back, reads, version):
        self.state, self.compute, self.back = state, compute, back
        self.reads, self.version = reads, version
        self.program, self.traced = None, False

    def current(self, layer, version):
        """Whether the entry still describes `layer` (VERSION now being `version`); a pure
        call whose reads changed is traced again on its next call."""
        if self.version == version:  # no layer attribute was set since it was checked
            return True
        if not _same(self.state, layer._eager_state()):
            return False
        reads = layer._eager_program_reads()
        if not _same(self.reads, reads):
            self.reads, self.program, self.traced = reads, None, False
        self.version = version
        return True

    def program_for(self, layer, x):
        """The program of `layer`'s call on `x` (traced on the first call that asks), or
        None where the call cannot run as one (not pure, autocast, another device)."""
        if self.reads is None or get_device() != "cpu" or \
                (x._weak and not layer._eager_program_takes_weak(x.dtype)):
            return None  # (a weak float takes its dtype from the ops it meets, op by op)
        if not self.traced:
            self.traced = True
            if self.compute is None and self.back is None and \
                    layer.activity_regularizer is None:
                try:
                    traced = layer._eager_program_graph(x)
                    self.program = LayerProgram.make(*traced) if traced else None
                except Exception:  # the call op by op raises it again, at the user's line
                    self.program = None
        return self.program


def _same(kept, now):
    """Whether two `_eager_state`s or `_eager_program_reads` are the same objects, item by
    item (identity: an attribute may hold a tensor, whose == is elementwise)."""
    if kept is now:
        return True
    if type(kept) is not tuple or type(now) is not tuple or len(kept) != len(now):
        return False
    for a, b in zip(kept, now):
        if a is not b and not _same(a, b):
            return False
    return True


def lookup(layer, args, kwargs):
    """(entry, input tensor, training) for an eager call of one input (an EagerTensor
    without a mask, or a NumPy array of numbers; `training` None, True or False the only
    keyword) whose signature was seen on this layer in its current state; None otherwise
    (the full call runs). Runs on every layer call: each test is the cheapest that decides."""
    if len(args) != 1 or EAGER_STATE[0]:
        return None
    training = None
    if kwargs:
        if len(kwargs) != 1 or "training" not in kwargs:
            return None
        training = kwargs["training"]
        if not (training is None or training is True or training is False):
            return None
    signatures = _SEEN.get(id(layer))
    if signatures is None:
        return None
    x = args[0]
    if type(x) is EagerTensor:
        if x._keras_mask is not None:
            return None
        key = (x.shape, x.dtype, x._weak)
    elif type(x) is np.ndarray and x.dtype.kind in "fiub":
        key = (x.shape, _tensor_dtype(x, layer.dtype), False)
    else:
        return None
    entry = signatures.entries.get(key)
    if entry is None:
        return None
    if not entry.current(layer, VERSION[0]):  # the layer changed: check it all again
        signatures.entries.pop(key, None)
        return None
    if type(x) is np.ndarray:
        x = as_tensor(x, layer.dtype)
    return entry, x, training


def remember(layer, given, inputs, kwargs, compute, back):
    """The entry of an eager call whose checks just passed, kept for the next call of its
    signature: a call on one tensor without a mask or keyword arguments (besides training)
    that was not cast (`inputs` is `given`, the input as a tensor). None for other calls."""
    if kwargs or inputs is not given or type(given) is not EagerTensor or \
            given._keras_mask is not None:
        return None
    version = VERSION[0]  # (read first: a change while the state is read is seen next call)
    signatures = _SEEN.get(id(layer))
    if signatures is None:
        signatures = _SEEN[id(layer)] = _Signatures(layer)
    entries = signatures.entries
    key = (given.shape, given.dtype, given._weak)
    if key not in entries and len(entries) >= MAX_SIGNATURES:
        entries.pop(next(iter(entries)), None)
    entry = entries[key] = Entry(layer._eager_state(), compute, back,
                                 layer._eager_program_reads(), version)
    return entry


def layers_of(model):
    """`model.layers`, kept while its graph is the same (`model._graph_token`): a
    functional model finds them by walking its graph, too slow to repeat on every eager
    call. Kept weakly: what this module holds must not hold a layer (a layer's calls name
    the models they were made in, which would then live as long as the module)."""
    signatures = _SEEN.get(id(model))
    if signatures is None:
        return model.layers
    kept = signatures.layers
    if kept is None or kept[0] is not model._graph_token:
        kept = signatures.layers = (model._graph_token,
                                    [weakref.ref(layer) for layer in model.layers])
    layers = []
    for ref in kept[1]:
        layer = ref()
        if layer is None:  # (the model holds its layers: only while it is torn down)
            return model.layers
        layers.append(layer)
    return layers


def _tensor_dtype(array, float_dtype):
    """The dtype `as_tensor` gives an array of numbers."""
    kind = array.dtype.kind
    return "int64" if kind in "iu" else "bool" if kind == "b" else float_dtype


def as_tensor(x, float_dtype):
    """A concrete layer input as a tensor: arrays and numbers become constants, integers
    int64 (ids, labels), anything else the layer's float dtype; tensors stay as they are."""
    if isinstance(x, Variable):
        return x
    array = np.asarray(x)
    return constant(array, as_dtype(_tensor_dtype(array, float_dtype)))


def pure_activation(fn):
    """Whether an activation (None: linear) is one of paddle's own functions: ops of its
    input alone, the same in every mode (a user's callable may do anything in Python)."""
    return fn is None or (isinstance(fn, FunctionType) and
                          (fn.__module__ or "").startswith("paddle."))


class LayerProgram:
    """A traced eager call as one program: its input fed, its ops run in order, its outputs
    copied out. On the host with no hooks to honour, the prepared calls run directly
    (feed copied in, calls, results copied out); otherwise, and while a profile records,
    through `Program.run`. One caller at a time: the program's buffers are its own."""

    __slots__ = ("program", "single", "lock", "direct", "keep")

    def __init__(self, program, single, keep):
        self.program, self.single, self.keep = program, single, keep
        runner, hooks = program.runner, program.runner.hooks
        self.direct = program.device.is_host and not (
            hooks.before or hooks.after or hooks.checks or hooks.state or program.updates
            or program.fed_checks or runner.gate is not None)
        self.lock = threading.Lock()

    @classmethod
    def make(cls, x, outputs, single):
        """The program computing `outputs` (Variables traced from the data Variable `x`)
        from `x` alone, or None where they are not a pure function of it: other inputs to
        feed, ops that draw or write state, a fixed run mode, outputs with masks."""
        if not outputs or not all(isinstance(o, Variable) and o.kind == "op" and
                                  getattr(o, "_keras_mask", None) is None for o in outputs):
            return None
        for node in topological_nodes(outputs):
            op = node.op
            if op.stateful or op.writes_inputs or op.runs_programs or node.mode is not None \
                    or op.name in _NOT_PURE:
                return None
        plan = Plan(outputs, False, devices.CPU)
        if len(plan.data) != 1 or plan.data[0] is not x:
            return None
        return cls(Program(plan, [x.shape], fuses=False, share=False), single,
                   (x, outputs))

    def run(self, x):
        """The outputs for the input tensor `x` (of the traced shape and dtype), as tensors."""
        with self.lock:
            if self.direct and not RECORDERS and not mirrors.active():
                program = self.program
                try:
                    np.copyto(program.feeds[0], x._value)
                    for fn in program.compute:
                        fn()
                    results = [b.copy() for b in program.results]
                except Exception:  # again through the program: its error names the op
                    results = program.run([x._value])
            else:
                results = self.program.run([mirrors.on_host(x._value)])
        if self.single:
            return eager.tensor(results[0])
        return [eager.tensor(r) for r in results]
