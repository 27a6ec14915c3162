"""Eager execution: an op whose inputs are all concrete runs at once (Keras 3 semantics).

`graph.apply` builds every op node. When every input is concrete (a constant made from
NumPy arrays or Python numbers, or the result of an earlier eager op) and no graph is
being traced, it hands the op to `run` here instead: the op runs through the same kernels
as a graph would (one prepared one-node program, cached per op, attributes, input specs,
run mode and device), and the result is an `EagerTensor`, a constant Variable that acts
like an array. A concrete value entering a graph is then simply a constant.

What counts as concrete and when nothing runs eagerly:
- parameters (kind "param") are state: with otherwise concrete inputs an op on them
  builds a graph node, so a loss term on weights stays live across training steps;
  converting that node to a value evaluates it with the current values. Inside a layer
  call on concrete inputs (`eager_call`) parameters are read at once instead, as Keras
  reads a variable's current value;
- inside `tracing()` (a traced train / test / predict step, a layer call on symbolic
  inputs) nothing runs eagerly: random ops and assignments stay graph nodes, drawn and
  run on every step.

Example:
    >>> import numpy as np, paddle as pd
    >>> t = pd.ops.sum(np.ones(3))     # NumPy's float64 kept, as Keras on TensorFlow
    >>> float(t), t.shape, t.dtype
    (3.0, (), 'float64')
    >>> (pd.ops.ones((2,)) * 2 + np.array([1.0, 2.0], np.float32)).numpy().tolist()
    [3.0, 4.0]
"""
import contextlib
import operator
import threading
import weakref

import numpy as np

from paddle import devices
from paddle.devices import mirrors
from paddle.devices.mirrors import _MIRRORS
from paddle.lowlevel import graph
from paddle.lowlevel.eager_programs import one_node_program
from paddle.lowlevel.executor import eval as run_graph
from paddle.devices.default import _DEVICE
from paddle.devices.runner import RECORDERS
from paddle.errors import ShapeError, user_location
from paddle.lowlevel.graph import EAGER_FAST, FLOATS, NUMBERS, Node, Variable, attrs_key
from paddle.lowlevel.ops.math import equal, not_equal

# How many one-node programs are kept (per op, attributes, input specs, mode and device):
# enough for the ops of a model's eager calls; the oldest go first.
MAX_PROGRAMS = 4096

_PROGRAMS = {}
_CACHE_LOCK = threading.Lock()
_TRACING = graph.EAGER_STATE  # [tracing depth, eager layer-call depth]


@contextlib.contextmanager
def tracing():
    """Nothing runs eagerly inside: every op builds a graph node (a traced step, a layer
    call on symbolic inputs). Random ops and assignments are then drawn and run on each
    run of the graph.

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.eager import tracing
        >>> with tracing():
        ...     noise = pd.random.normal((2,))
        >>> type(noise).__name__, noise.kind
        ('Variable', 'op')
    """
    outermost = _TRACING[0] == 0
    if outermost:  # a trace of its own: reads follow its assignments (graph.ASSIGNED)
        graph.ASSIGNED.append({})
    _TRACING[0] += 1
    try:
        yield
    finally:
        _TRACING[0] -= 1
        if outermost:
            graph.ASSIGNED.pop()


class eager_call:  # noqa: N801 (a context manager named as the function it was)
    """Inside a layer call on concrete inputs: parameters count as concrete (their current
    values are read at once), so the call runs op by op, its assignments included, in the
    order written. A `tracing()` inside it wins. (A class, not a generator: it is entered
    on every eager layer call.)"""

    __slots__ = ("saved",)

    def __enter__(self):
        self.saved = _TRACING[0]
        _TRACING[0] = 0
        _TRACING[1] += 1

    def __exit__(self, *exc):
        _TRACING[1] -= 1
        _TRACING[0] = self.saved


@contextlib.contextmanager
def graph_state():
    """Parameters are state again inside (an op on them builds a graph node), even within
    an eager layer call: how a layer built by its first eager call keeps its weight
    penalties live."""
    saved = _TRACING[1]
    _TRACING[1] = 0
    try:
        yield
    finally:
        _TRACING[1] = saved


def is_tracing():
    """Whether ops build graph nodes whatever their inputs (inside `tracing()`)."""
    return _TRACING[0] > 0


def in_eager_call():
    """Whether a layer call on concrete inputs is running (parameters read at once)."""
    return _TRACING[1] > 0 and _TRACING[0] == 0


def is_concrete(x):
    """Whether `x` holds a value now: an array, a number, a constant or an eager result
    (and, inside an eager layer call, a parameter)."""
    if isinstance(x, Variable):
        return x.kind == "const" or (x.kind == "param" and in_eager_call())
    return isinstance(x, NUMBERS)


def _is_bool_mask(key):
    """Whether an index is a boolean array (NumPy's or a concrete tensor's)."""
    if isinstance(key, EagerTensor):
        return key.dtype == "bool" and key.ndim > 0
    return isinstance(key, np.ndarray) and key.dtype == bool and key.ndim > 0


class EagerTensor(Variable):
    """The result of an op run at once: a constant Variable holding its array, that acts
    like one (Keras 3's tensors, TensorFlow 2's `tf.Tensor`).

    `.numpy()` and `np.asarray(t)` give the values; `float(t)`, `int(t)`, `bool(t)` and
    `operator.index(t)` convert a single value and raise NumPy's error for others; `len`,
    iteration and indexing go along axis 0; operators run the ops at once (with arrays,
    numbers and other tensors; with a symbolic Variable they build a graph node, in which
    the tensor is a constant). `==` and `!=` are elementwise, with NumPy's truth value.

    Example:
        >>> import numpy as np, paddle as pd
        >>> t = pd.ops.convert_to_tensor([1.0, 2.0, 3.0]) * 2
        >>> t
        Tensor([2. 4. 6.], shape=(3,), dtype=float32)
        >>> len(t), float(t[1]), [float(v) for v in t], bool(pd.ops.min(t) > 1)
        (3, 4.0, [2.0, 4.0, 6.0], True)
        >>> float(t)
        Traceback (most recent call last):
        ...
        TypeError: only 0-dimensional arrays can be converted to Python scalars
    """

    # What every tensor shares, as class attributes: `tensor()` sets only its own values.
    kind = "const"
    node = None
    index = 0
    trainable = False
    location = ""
    # Class defaults of what code reads with getattr(v, name, default): they must not reach
    # __getattr__ below (an AttributeError raised there costs microseconds).
    _weak = False
    _keras_mask = None

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)  # not Variable.__new__: that makes a parameter

    def __init__(self, *args, **kwargs):
        pass  # made by `tensor(array)` (or Variable._make, for pd.constant)

    @property
    def name(self):
        """`tensor_<id>` unless made with a name (pd.constant's `const_<n>`)."""
        return self.__dict__.get("_name") or f"tensor_{id(self):x}"

    @name.setter
    def name(self, value):
        self.__dict__["_name"] = value

    def numpy(self):
        """A NumPy copy of the values."""
        return mirrors.on_host(self._value).copy()

    # A few of NumPy's (and JAX arrays') own conveniences.
    def tolist(self):
        """The values as nested Python lists (a number for a scalar)."""
        return mirrors.on_host(self._value).tolist()

    def item(self, *args):
        """One value as a Python number (NumPy's `item`)."""
        return mirrors.on_host(self._value).item(*args)

    @property
    def size(self):
        """The number of values."""
        return mirrors.on_host(self._value).size

    def __getitem__(self, key):
        """Indexing and slicing are the slice op; a boolean mask (`t[t > 0]`, a result whose
        size depends on the values, as with JAX's concrete arrays and NumPy) selects on
        the values and gives a new tensor."""
        keys = key if isinstance(key, tuple) else (key,)
        if any(_is_bool_mask(k) for k in keys):
            host = tuple(np.asarray(k) if _is_bool_mask(k) else k for k in keys)
            return tensor(np.asarray(mirrors.on_host(self._value)[host if isinstance(
                key, tuple) else host[0]]))
        return Variable.__getitem__(self, key)

    def __getattr__(self, attr):
        # Reached only for names a Variable lacks: NumPy's array methods and properties
        # (`t.mean()`, `t.all()`, `t.T`, `t.astype(...)`), on the values, with NumPy's
        # results: what Keras users do with JAX and TensorFlow tensors alike.
        if attr.startswith("_") or not hasattr(np.ndarray, attr):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")
        return getattr(mirrors.on_host(self.__dict__["_value"]), attr)

    def __array__(self, dtype=None, copy=None):
        array = mirrors.on_host(self._value)
        if dtype is not None and np.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    # Conversions are NumPy's, errors included (float() of a non-scalar is a TypeError,
    # bool() of several values a ValueError).
    def __float__(self):
        return float(mirrors.on_host(self._value))

    def __int__(self):
        return int(mirrors.on_host(self._value))

    def __index__(self):
        return operator.index(mirrors.on_host(self._value))

    def __bool__(self):
        return bool(mirrors.on_host(self._value))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        if not isinstance(other, (Variable,) + NUMBERS):
            return NotImplemented
        return _OPS["equal"](self, other)

    def __ne__(self, other):
        if not isinstance(other, (Variable,) + NUMBERS):
            return NotImplemented
        return _OPS["not_equal"](self, other)

    def __repr__(self):
        text = np.array2string(mirrors.on_host(self._value), separator=" ",
                               prefix="Tensor(")
        return f"Tensor({text}, shape={self.shape}, dtype={self.dtype})"

    def __str__(self):
        return str(mirrors.on_host(self._value))

    def __format__(self, spec):
        array = mirrors.on_host(self._value)
        return format(array[()] if array.ndim == 0 else array, spec) if spec else str(self)


_OPS = {"equal": equal, "not_equal": not_equal}  # (pd.equal: elementwise, as NumPy's ==)


_DTYPE_NAMES = {np.dtype(d): d for d in graph.DTYPES}


def tensor(array, weak=False):
    """An EagerTensor holding `array` (made read-only, kept without a copy; a copy when it
    is not C-contiguous, as kernels read it)."""
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return _result(array, _DTYPE_NAMES[array.dtype], weak)


def _result(array, dtype, weak=False):
    """An EagerTensor of `array`, a C-contiguous array of the dtype named `dtype` that no
    one else holds (a kernel's fresh output), made read-only."""
    array.setflags(write=False)
    t = _new(EagerTensor)
    t.shape, t.dtype, t._value = array.shape, dtype, array
    if weak and dtype in graph.FLOATS:  # only floats adapt (an int64 cast stays int64)
        t._weak = True
    return t


_new = object.__new__


def run(op, inputs, attrs, location):
    """Run `op` at once on concrete `inputs`: the output EagerTensor, or a list of them.
    Errors are graph construction's (the shape rule's, located at the user's line). Ops
    that write a parameter input in place (batch normalization's statistics in training)
    run on the parameter itself.

    A call whose op, attributes, input shapes and dtypes, mode and device were seen before
    skips the shape rule (a pure function of those, which passed then) and runs the cached
    program's kernel on the inputs' own arrays; nothing is located (no frame is read)
    unless something fails."""
    mode = _MODE[-1]
    if mode is None and len(_MODE) > 1:
        mode = _enclosing_mode()
    device = devices.CPU if _DEVICE[0] == "cpu" else devices.backend_for(None)
    # The key: op, attributes, mode, device, then each input's shape and dtype (one flat
    # tuple; the usual arities spelled out, as a comprehension costs a call).
    attributes = attrs_key(attrs) if attrs else ()
    n = len(inputs)
    if n == 2:
        a, b = inputs
        key = (op, attributes, mode, device, a.shape, a.dtype, b.shape, b.dtype)
    elif n == 1:
        a = inputs[0]
        key = (op, attributes, mode, device, a.shape, a.dtype)
    else:
        key = (op, attributes, mode, device) + tuple([x for v in inputs
                                                      for x in (v.shape, v.dtype)])
    try:
        entry = _PROGRAMS.get(key)
    except TypeError:  # an attribute that cannot be hashed (a list): frozen
        key = _frozen_key(op, attrs, key[2:])
        entry = _PROGRAMS.get(key) if key is not None else None
    if entry is None:
        specs = _infer(op, inputs, attrs, location)
        if op.writes_inputs and any(v.kind == "param" for v in inputs):
            return _run_on_state(op, inputs, attrs, specs, mode)
        entry = one_node_program(op, inputs, attrs, specs, mode, device)
        if key is not None:
            with _CACHE_LOCK:  # evicting while another thread inserts is not atomic
                if len(_PROGRAMS) >= MAX_PROGRAMS:
                    _PROGRAMS.pop(next(iter(_PROGRAMS)), None)
                _PROGRAMS[key] = entry
    elif entry.writes_state and any(v.kind == "param" for v in inputs):
        return _run_on_state(op, inputs, attrs, entry.specs, mode)
    try:
        if _MIRRORS:
            results = entry.run([mirrors.on_host(v._value) for v in inputs])
        else:
            arrays = [a._value, b._value] if n == 2 else [v._value for v in inputs]
            if entry.fresh is not None and not RECORDERS:
                try:
                    results = [entry.fresh(*arrays)]
                except Exception:  # again through the program: its error names the op
                    results = entry.run(arrays)
                else:
                    if key is not None and key[1] is attributes and key[3] is devices.CPU:
                        _remember(key, mode, entry)  # (not a frozen key: lists in attrs)
            elif entry.rebound is not None and not RECORDERS:
                try:
                    # (under the program's lock: a kernel computes without the GIL, and a
                    # workspace argument is the program's, shared by every caller)
                    with entry.lock:
                        results = entry.rebound(arrays)
                except Exception:  # again through the program: its error names the op
                    results = entry.run(arrays)
            else:
                results = entry.run(arrays)
    except Exception as e:  # a kernel's error (the program names the op): add the user's line
        located = _located(e, location)
        if located is None:
            raise
        raise located from None
    if n == 2:  # a result is weak when every input is (a float constant made without dtype)
        weak = a._weak and b._weak
    else:
        weak = n > 0 and _all_weak(inputs)
    if entry.single:
        return _result(results[0], entry.out_dtypes[0], weak)
    return [_result(r, d, weak) for r, d in zip(results, entry.out_dtypes)]


_MODE = graph._MODE  # (the list itself: forced_mode pushes onto it)


def _enclosing_mode():
    """The run mode of the innermost enclosing call that fixed one (None: the plan's)."""
    return next((m for m in reversed(_MODE) if m is not None), None)


def _remember(key, mode, entry):
    """Add the call of `key` (run's key, its kernel making its output: entry.fresh) in run
    mode `mode` to graph.EAGER_FAST, where the op functions find it first."""
    fast_key = key[:2] + key[4:]  # without the mode and the device (the CPU's)
    fast = EAGER_FAST.get(fast_key)
    if fast is not None and mode in fast.calls:
        return
    with _CACHE_LOCK:
        fast = EAGER_FAST.get(fast_key)
        if fast is None:
            if len(EAGER_FAST) >= MAX_PROGRAMS:
                EAGER_FAST.pop(next(iter(EAGER_FAST)), None)
            fast = EAGER_FAST[fast_key] = _fast_call(len(key) // 2 - 2)
        fast.calls[mode] = (entry.fresh, entry.outs[0].shape, entry.out_dtypes[0])


def _fast_call(n):
    """The EAGER_FAST function of a call on `n` tensors: its result tensor, or None where
    the call must take the full path (the checks of run and graph.apply that are not in
    the key: tracing, device copies newer than the host's, a profile, the device, the run
    mode, weak floats that meet a float of another dtype). `fast.calls`: {run mode: (the
    kernel making the output, the output's shape, its dtype)}, filled by `_remember`.

    What is not checked here needs no check: the key holds the op, the attributes and
    every input's shape and dtype, all the shape rule reads, and the rule passed for them
    (an error is never cached); the inputs are EagerTensors (what the op functions look up
    here), never parameters, so autocasts and assignments in a trace do not concern them;
    a kernel that fails at run time returns None, and the full path raises its error,
    located at the user's line."""
    calls = {}

    def _found():
        if _TRACING[0] or _MIRRORS or RECORDERS or _DEVICE[0] != "cpu":
            return None
        mode = _MODE[-1]
        if mode is None and len(_MODE) > 1:
            mode = _enclosing_mode()
        return calls.get(mode)

    # (_found is spelled out in the two usual arities: a call costs a tenth of their time)
    if n == 1:
        def fast(x):
            if _TRACING[0] or _MIRRORS or RECORDERS or _DEVICE[0] != "cpu":
                return None
            mode = _MODE[-1]
            found = calls.get(_enclosing_mode() if mode is None and len(_MODE) > 1 else mode)
            if found is None:
                return None
            kernel, shape, dtype = found
            try:
                value = kernel(x._value)
            except Exception:  # the full path raises it, naming the op and the line
                return None
            t = _new(EagerTensor)
            t.shape, t.dtype, t._value = shape, dtype, value
            if x._weak and dtype in FLOATS:
                t._weak = True
            return t
    elif n == 2:
        def fast(a, b):
            if a._weak is not b._weak and a.dtype != b.dtype:
                return None  # graph.apply makes the weak one the other's dtype
            if _TRACING[0] or _MIRRORS or RECORDERS or _DEVICE[0] != "cpu":
                return None
            mode = _MODE[-1]
            found = calls.get(_enclosing_mode() if mode is None and len(_MODE) > 1 else mode)
            if found is None:
                return None
            kernel, shape, dtype = found
            try:
                value = kernel(a._value, b._value)
            except Exception:  # the full path raises it, naming the op and the line
                return None
            t = _new(EagerTensor)
            t.shape, t.dtype, t._value = shape, dtype, value
            if a._weak and b._weak and dtype in FLOATS:
                t._weak = True
            return t
    else:
        def fast(*inputs):
            weak = {v._weak for v in inputs}
            found = _found() if len(weak) == 1 else None
            if found is None:
                return None
            kernel, shape, dtype = found
            try:
                value = kernel(*[v._value for v in inputs])
            except Exception:  # the full path raises it, naming the op and the line
                return None
            t = _new(EagerTensor)
            t.shape, t.dtype, t._value = shape, dtype, value
            if True in weak and dtype in FLOATS:
                t._weak = True
            return t
    fast.calls = calls
    return fast


def _all_weak(inputs):
    for v in inputs:
        if not v._weak:
            return False
    return True


def _located(error, location):
    """`error` again with the user's line added, or None when it cannot be remade."""
    location = location or user_location()
    if not location:
        return None
    try:
        return type(error)(f"{error} (at {location})")
    except Exception:
        return None


def _infer(op, inputs, attrs, location):
    """The op's shape rule on the inputs, its errors located as graph.apply locates them."""
    graph.check_complex(op, inputs, location=location)
    try:
        specs = op.infer(*[(v.shape, v.dtype) for v in inputs], **attrs)
    except (ShapeError, TypeError) as e:
        location = location or user_location()
        raise type(e)(f"{e} (at {location})" if location else str(e)) from None
    graph.check_storage(op, inputs, specs, location)
    return specs


def _run_on_state(op, inputs, attrs, specs, mode):
    node = Node(op, inputs, attrs, "")
    outs = [Variable._make("eager", tuple(s), d, "op", node, i, location="")
            for i, (s, d) in enumerate(specs if isinstance(specs, list) else [specs])]
    node.outputs_ref = tuple(weakref.ref(v) for v in outs)
    results = run_graph(outs, training=bool(mode))
    tensors = [tensor(r) for r in results]
    return tensors if isinstance(specs, list) else tensors[0]


def _frozen_key(op, attrs, rest):
    """The cache key with unhashable attributes frozen (lists as tuples, arrays as bytes);
    None when one still cannot be hashed."""
    key = (op, tuple((k, _freeze(v)) for k, v in attrs.items())) + rest
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _freeze(v)) for k, v in sorted(value.items()))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    return (type(value).__name__, value)


def install():
    """Hand `run` to graph.apply (graph.py cannot import this module: it lies below it)."""
    graph.EAGER_RUN[0] = run
    graph.CONSTANT_CLASS[0] = EagerTensor


install()
