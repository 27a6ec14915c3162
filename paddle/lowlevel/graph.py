"""The graph: Variables, the nodes (op applications) that produce them, names and namespaces.

A graph is nothing but what Variables reach: every Variable made by an op holds its node,
and a node holds its input Variables. Nodes refer to their outputs weakly, so there are no
reference cycles and a graph is freed the moment the user drops its last Variable.

Example:
    >>> import paddle as pd
    >>> x = pd.data("x", shape=[None, 3])
    >>> y = x * 2.0 + 1.0
    >>> y.shape, y.dtype
    ((None, 3), 'float32')
"""
import contextlib
import itertools
import weakref

import numpy as np

from paddle.devices import half, mirrors
from paddle.errors import ShapeError, at_user, user_location
from paddle.lowlevel import initializers, stored_state
from paddle.lowlevel.op import OPS
from paddle.lowlevel.shapes import check_fits

DTYPES = ("float32", "float64", "int64", "int32", "bool", "float16", "bfloat16", "int8",
          "uint8", "complex64", "complex128")
# float16 and bfloat16 (paddle/devices/half.py) are storage and compute dtypes of the
# mixed-precision policies; a kernel without a half version runs them in float32.
FLOATS = ("float32", "float64", "float16", "bfloat16")
# int8 and uint8 are storage dtypes only (quantized weights, paddle/highlevel/quantizers.py):
# Variables and parameters hold them, and `cast` alone reads or makes them (its kernels
# convert to and from every dtype); any other op refuses them where it is built.
STORAGE_DTYPES = ("int8", "uint8")
# complex64 and complex128 are NumPy's layout (interleaved float32/float64 pairs). Only the
# ops whose class says `takes_complex` read or make them: the views, `bitcast` (a complex
# value seen as its float pairs: paddle/ops/complex.py computes real, imag, conj, abs,
# angle and polar on those) and `linalg_eig`; any other op refuses them where it is built,
# so no kernel ever receives a complex buffer it would read as floats.
COMPLEX_DTYPES = ("complex64", "complex128")


def check_complex(op, inputs, specs=(), location=None):
    """TypeError, at `location`, when an op that does not take complex values reads complex
    inputs or (`specs`, its inferred outputs) would make them. Run before the shape rule
    too, so that a rule's own dtype message never stands in for this one."""
    if op.takes_complex:
        return
    found = [v.dtype for v in inputs if v.dtype in COMPLEX_DTYPES]
    found += [d for _, d in (specs if isinstance(specs, list) else [specs] if specs else [])
              if d in COMPLEX_DTYPES]
    if found:
        location = location or user_location()
        raise TypeError(f"{op.name}: received or would make {found[0]} values, which this "
                        f"op does not compute on; expected a float, int or bool tensor "
                        f"(paddle's complex values go through pd.ops.real, imag, conj, "
                        f"abs, angle, view_as_real and linalg.eig)"
                        + (f" (at {location})" if location else ""))


def check_storage(op, inputs, specs, location):
    """TypeError, at `location`, when an op other than cast reads or makes int8/uint8, or an
    op that does not take complex values makes complex64/complex128."""
    check_complex(op, (), specs, location)
    if op.name == "cast":
        return
    found = [v.dtype for v in inputs if v.dtype in STORAGE_DTYPES]
    found += [d for _, d in (specs if isinstance(specs, list) else [specs])
              if d in STORAGE_DTYPES]
    if found:
        location = location or user_location()
        raise TypeError(f"{op.name}: received or would make {found[0]} values; int8 and "
                        f"uint8 are storage dtypes (quantized weights) that only cast reads "
                        f"and makes: expected cast(x, 'float32') first"
                        + (f" (at {location})" if location else ""))


def as_dtype(dtype, where="dtype"):
    """The canonical dtype name ('float32', ...) of a dtype-like value; ValueError if unsupported."""
    if isinstance(dtype, str) and dtype in half.HALF:
        half.check_available(dtype, where)
    try:
        # np.dtype(None) is float64: a None here is a mistake, not a choice of float64
        name = np.dtype(dtype).name if dtype is not None else None
    except TypeError:
        name = None
    if name not in DTYPES:
        raise ValueError(f"{where}: expected one of {', '.join(DTYPES)}, received {dtype!r}")
    return name


def converted(array, dtype, where, error=ValueError):
    """`array` as `dtype` (a new array), refusing what the cast would change silently:
    integers outside the target's range (they would wrap around) and finite floats beyond
    it (float64 1e300 would become float32 inf). `error` is raised, naming `where`."""
    dtype = np.dtype(dtype)
    if array.dtype.kind in "iu" and dtype.kind in "iu" and array.size:
        info = np.iinfo(dtype)
        low, high = array.min(), array.max()
        if low < info.min or high > info.max:
            raise error(f"{where}: value {low if low < info.min else high} is outside the "
                        f"{dtype.name} range [{info.min}, {info.max}]")
    with np.errstate(over="ignore"):  # the overflow is reported below, naming `where`
        out = array.astype(dtype)
    if array.dtype.kind == "f" and dtype.kind == "f" and dtype.itemsize < array.dtype.itemsize \
            and not np.isfinite(out).all():
        overflowed = np.isinf(out) & np.isfinite(array)
        if overflowed.any():
            value = float(array[overflowed][0])
            raise error(f"{where}: value {value!r} is outside the {dtype.name} range "
                        f"(magnitude at most {np.finfo(dtype).max:.4g}); it would become inf")
    return out


def as_shape(shape, where="shape"):
    """A shape as a tuple of ints >= 0 and None; ValueError for anything else."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise ValueError(f"{where}: expected a list of sizes, received {shape!r}") from None
    out = []
    for d in dims:
        if d is None:
            out.append(None)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
            out.append(int(d))
        else:
            raise ValueError(f"{where}: expected sizes >= 0 or None, received {shape!r}")
    return tuple(out)


# ---- names and namespaces ---------------------------------------------------------------

class _Names:
    """Live names of parameters and layer scopes, held weakly so dropped graphs free them."""

    def __init__(self):
        self.prefix = []           # stack of namespace names
        self.reuse = []            # stack of (reuse flag, per-block scope counters)
        self.taken = weakref.WeakValueDictionary()    # full name -> owner
        self.params = weakref.WeakValueDictionary()   # full name -> parameter Variable
        self.data = weakref.WeakValueDictionary()     # full name -> a live pd.data input
        self.op_counter = itertools.count()

    def full(self, name):
        return "/".join(self.prefix + [name])

    def reusing(self):
        return bool(self.reuse) and self.reuse[-1][0]

    def unique(self, base, owner, numbered=False):
        """Claims the first free `base`, `base_1`, ... (or `base_0`, `base_1`, ... if numbered)."""
        candidates = (f"{base}_{k}" for k in itertools.count()) if numbered else \
            itertools.chain([base], (f"{base}_{k}" for k in itertools.count(1)))
        for name in candidates:
            full = self.full(name)
            if full not in self.taken:
                self.taken[full] = owner
                return full

    def claim(self, full, owner):
        """`full`, or `full_1`, `full_2`, ... if a live owner has it (no namespace added)."""
        name, k = full, 0
        while name in self.taken:
            k += 1
            name = f"{full}_{k}"
        self.taken[name] = owner
        return name

    def scope(self, base, owner=None):
        """A numbered scope for a layer function (`fc_0`): the first one not claimed by a
        live owner, or under `reuse=True` the one the same call made the first time. The
        caller claims it (`taken[scope] = owner`) once it has made the owner."""
        if self.reusing():
            counters = self.reuse[-1][1]
            k = counters.get(base, 0)
            counters[base] = k + 1
            return self.full(f"{base}_{k}")
        for k in itertools.count():
            full = self.full(f"{base}_{k}")
            if full not in self.taken:
                if owner is not None:
                    self.taken[full] = owner
                return full


NAMES = _Names()


@contextlib.contextmanager
def namespace(name, reuse=False):
    """Prefix every name created inside with `name/`; with reuse=True, layer functions
    fetch the existing parameters of the same names instead of creating new ones.

    Args:
        name: the namespace's name (no '/').
        reuse: share the parameters created by an earlier block of the same name.

    Example:
        >>> import paddle as pd
        >>> x = pd.data("x", shape=[None, 4])
        >>> with pd.namespace("net"):
        ...     a = pd.fc(x, size=2)
        >>> with pd.namespace("net", reuse=True):
        ...     b = pd.fc(x, size=2)            # same net/fc_0/w and net/fc_0/b
        >>> pd.get_variable("net/fc_0/w").shape
        (4, 2)
    """
    if not isinstance(name, str) or not name or "/" in name:
        raise ValueError(f"namespace: expected a non-empty name without '/', received {name!r}")
    NAMES.prefix.append(name)
    NAMES.reuse.append((bool(reuse) or NAMES.reusing(), {}))
    try:
        yield
    finally:
        NAMES.prefix.pop()
        NAMES.reuse.pop()


@contextlib.contextmanager
def fresh_names():
    """Build inside with an empty name registry, so layer functions number their scopes
    from 0 again (`fc_0`, ...) even while another graph with those names is alive: a
    network function called twice gets the same parameter names. Names made inside are
    added to the registry afterwards where they do not clash."""
    saved = NAMES.taken, NAMES.params
    NAMES.taken, NAMES.params = weakref.WeakValueDictionary(), weakref.WeakValueDictionary()
    try:
        yield
    finally:
        made_taken, made_params = NAMES.taken, NAMES.params
        NAMES.taken, NAMES.params = saved
        for name, owner in list(made_taken.items()):
            NAMES.taken.setdefault(name, owner)
        for name, var in list(made_params.items()):
            NAMES.params.setdefault(name, var)


# The inputs of the layer calls under way (innermost last): pd.random, pd.ones and the
# like take a size known only at run time (a None of `ops.shape(x)`) from the input of the
# call they are built in; a custom train_step / test_step counts as a call on its data.
_CALL_INPUTS = []


def current_call_inputs():
    """The input Variables of the innermost layer call being built ([] outside calls)."""
    return list(_CALL_INPUTS[-1]) if _CALL_INPUTS else []


def in_call():
    """Whether a layer call (or a traced train_step / test_step) is being built."""
    return bool(_CALL_INPUTS)


class call_inputs:  # noqa: N801 (a context manager named as the function it was)
    """Code run inside sees `variables` as the inputs of the call under way (how a layer's
    call, or a traced train_step, lets `pd.random.normal((ops.shape(x)[0], 2))` find its
    batch size). A class, not a generator: it is entered on every layer call, eager ones
    included, where a generator's context costs microseconds."""

    __slots__ = ("variables",)

    def __init__(self, variables):
        self.variables = list(variables)

    def __enter__(self):
        _CALL_INPUTS.append(self.variables)

    def __exit__(self, *exc):
        _CALL_INPUTS.pop()


def call_input_like(shape):
    """The input of the layer call (or custom train_step / test_step) under way that the
    None sizes of `shape` are read from at run time: the first of the same rank with those
    axes unknown or, when only axis 0 (the batch) is None, the first whose axis 0 is
    unknown. None when there is none."""
    inputs = [v for v in current_call_inputs() if isinstance(v, Variable)]
    for v in inputs:
        if v.ndim == len(shape) and all(
                v.shape[i] is None for i, d in enumerate(shape) if d is None):
            return v
    if [i for i, d in enumerate(shape) if d is None] == [0]:
        return next((v for v in inputs if v.ndim >= 1 and v.shape[0] is None), None)
    return None


def initial_value(init, shape, dtype, where):
    """A parameter's first value: `init(shape, dtype)` as a C-contiguous array (rank 0 kept);
    MemoryError naming `where` for a shape beyond this machine's memory (NumPy's error
    names no parameter)."""
    check_fits(shape, dtype, where)
    try:
        return np.array(init(shape, dtype), dtype=dtype, order="C")
    except MemoryError as e:
        raise MemoryError(f"{where}: cannot allocate its initial value of shape {shape} "
                          f"({e})") from None


def reused_parameter(full_name, shape):
    """Under namespace(reuse=True): the existing parameter `full_name`, which must have
    `shape` (ValueError if there is none, ShapeError if its shape differs)."""
    var = NAMES.params.get(full_name)
    if var is None:
        raise ValueError(at_user(f"reuse: no parameter named {full_name!r} to reuse; "
                                 "create it first without reuse=True"))
    if var.shape != shape:
        raise ShapeError(at_user(f"reuse: {full_name!r} has shape {var.shape}, this call "
                                 f"needs {shape}"))
    return var


def get_variable(name):
    """The live parameter with this full name (`"mlp/fc_0/w"`).

    Raises:
        KeyError: no such parameter; the message lists the live ones that share its namespace.
    """
    var = NAMES.params.get(name)
    if var is None:
        scope = name.rsplit("/", 1)[0] if "/" in name else ""
        near = sorted(n for n in NAMES.params.keys() if n.startswith(scope))[:10]
        raise KeyError(f"get_variable: no parameter named {name!r}; "
                       f"parameters near it: {near or 'none'}")
    return var


# ---- Variables and nodes ----------------------------------------------------------------

# Lists receiving every update op (optimizer steps, assignments) built while they are
# active: how a traced train_step's updates are found (optimizers.collect_updates).
UPDATE_COLLECTORS = []

# Program order of state inside a traced step: one dict per trace being built (pushed by
# paddle/lowlevel/eager.py `tracing`), {id(parameter): the value last assigned to it in
# that trace} (filled by ops/state.py `assign`). An op built later in the trace reads that
# value instead of the parameter, so a read that follows an assignment sees it, as
# tf.function's automatic control dependencies order them; the assign op itself still runs
# in the update phase. Outside a trace (TF1-style graphs, pd.eval) nothing is recorded.
ASSIGNED = []

# Keras's AutocastScope: inside a layer call under a mixed policy ("mixed_float16"), the
# dtype its float parameters are read in. An op built there that reads a float parameter
# of another dtype reads it through one cast node per parameter and call (the parameter
# itself stays float32, the one copy the optimizer updates); stateful ops, ops that write
# their inputs, and parameters marked `autocast = False` read the parameter itself.
# Entries: (dtype, {id(parameter): its cast}), or None outside any such call.
_AUTOCAST = [None]


class autocast:  # noqa: N801 (a class: a generator context costs ~1 us a layer call)
    """Read float parameters as `dtype` in the ops built inside the block (None: as they
    are). Layers enter it around `call` when their compute dtype is not their variables'.

    Example:
        >>> import paddle as pd
        >>> w = pd.Variable("autocast_example_w", shape=[2], initializer="ones")
        >>> with pd.lowlevel.graph.autocast("float16"):
        ...     y = w * 2.0
        >>> w.dtype, y.dtype
        ('float32', 'float16')
    """

    __slots__ = ("entry",)

    def __init__(self, dtype):
        self.entry = None if dtype is None else (dtype, {})

    def __enter__(self):
        _AUTOCAST.append(self.entry)

    def __exit__(self, *exc):
        _AUTOCAST.pop()


def _autocast(v):
    """Whether the parameter-or-not `v` is read through a cast in the current scope."""
    return _AUTOCAST[-1] is not None and v.kind == "param" and v.dtype in FLOATS and \
        v.dtype != _AUTOCAST[-1][0] and getattr(v, "autocast", True)


def _read_dtype(v):
    """The dtype an op built now reads `v` in (its autocast dtype, else its own)."""
    return _AUTOCAST[-1][0] if _autocast(v) else v.dtype


def _autocast_reads(op, inputs):
    dtype, casts = _AUTOCAST[-1]
    out = []
    for v in inputs:
        if _autocast(v):
            if id(v) not in casts:
                casts[id(v)] = (v, apply(OPS["cast"], [v], {"dtype": dtype}))
            v = casts[id(v)][1]
        out.append(v)
    return out


# The run mode that ops built inside `forced_mode(True / False)` keep whatever the plan's mode:
# a layer called with an explicit training= (Dropout(...)(x, training=True) drops in predict).
_MODE = [None]


# The layer calls (or other named scopes) being built: "model/block/dense", None outside.
_SCOPE = [None]


def building_scope(name, absolute=False):
    """Nodes built inside record `scope`: the enclosing scopes' path joined with `name`
    (or `name` itself with absolute=True, as gradients do to file a node's gradient under
    it). What a profile shows as the layer an op belongs to; it changes no computation.

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.graph import building_scope
        >>> x = pd.data("x", shape=[None, 2])
        >>> with building_scope("block"), building_scope("dense"):
        ...     y = pd.relu(x)
        >>> y.node.scope
        'block/dense'
    """
    return _Pushed(_SCOPE, name if absolute or _SCOPE[-1] is None or name is None
                   else f"{_SCOPE[-1]}/{name}")


def forced_mode(training):
    """Ops built inside run in training mode (True), inference mode (False) or, with None,
    in the mode of the plan that runs them (`pd.eval(..., training=...)`), the default.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.lowlevel.graph import forced_mode
        >>> x = pd.constant(np.ones((1, 1000), np.float32))
        >>> with forced_mode(True):
        ...     y = pd.dropout(x, 0.5)
        >>> bool((pd.eval(y) == 0).any())   # an inference run, yet it drops
        True
    """
    if training is not None and not isinstance(training, bool):
        raise TypeError(f"forced_mode: expected True, False or None, received {training!r}")
    return _Pushed(_MODE, training)


class _Pushed:
    """The context of `building_scope` and `forced_mode`: `value` on top of `stack` inside
    (a class, not a generator: both are entered on every layer call, eager ones included)."""

    __slots__ = ("stack", "value")

    def __init__(self, stack, value):
        self.stack, self.value = stack, value

    def __enter__(self):
        self.stack.append(self.value)

    def __exit__(self, *exc):
        self.stack.pop()


class Node:
    """One application of an op: the op, its input Variables, its attributes, and the run
    mode it keeps (`mode`: None = the plan's, see `forced_mode`). A node that a planner pass
    made for a plan (never part of the graph) computes values the graph's nodes would have:
    its output k is the value at the executor's key `keys[k]` ((id(node), index) of the
    graph node whose output it computes; paddle/lowlevel/fusion/node.py's FusedNode has
    the same attribute). None for the graph's nodes: their outputs' own keys."""

    __slots__ = ("op", "inputs", "attrs", "outputs_ref", "location", "mode", "scope",
                 "keys", "__weakref__")

    def __init__(self, op, inputs, attrs, location):
        self.op = op
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.outputs_ref = ()
        self.location = location
        self.mode = _MODE[-1]
        self.scope = _SCOPE[-1]  # the layer (path) whose call built it, for profiles
        self.keys = None

    @property
    def outputs(self):
        """The output Variables still alive (None for a dropped one)."""
        return [ref() for ref in self.outputs_ref]


class Variable:
    """A value in the graph: graph input, parameter, constant or op output. Its operators
    build ops; as in Keras 3, `a == b` and `a != b` are elementwise (`pd.equal`,
    `pd.not_equal`), with identity as their truth value (`v in a_list` works).

    As a constructor it makes a parameter, initialized at once, in either of two forms; the
    first argument tells them apart:

    - Keras 3's `pd.Variable(initializer, shape=None, dtype=None, trainable=True,
      autocast=True, aggregation="none", synchronization="auto", name=None)`: the first
      argument is the initial value (an array, a number, an EagerTensor), a callable
      `init(shape, dtype)` / initializer object, or an initializer's name ("zeros"); with
      a value the shape is the value's, dtype defaults to float32 for floats (int32 for
      integers, as Keras); with an initializer `shape` is required; the name defaults to
      "variable".
    - the low level's `pd.Variable(name, shape, dtype="float32", initializer=None,
      trainable=True)`: the first argument is a string that is not an initializer's name,
      or any string when `initializer=` is also given (`pd.Variable("zeros", [2],
      initializer="ones")` is a parameter named "zeros"). Without an initializer it uses
      `"glorot_uniform"` (`"zeros"` for rank < 2). Inside `pd.namespace(..., reuse=True)`
      it returns the existing parameter of that name instead (parameter sharing, as layer
      functions do). Keywords alone (`name=`, `shape=`, ...) are this form unless
      `initializer=` is an array, a number, or no `name` is given.

    Both forms make the same kind of Variable: `.assign()`, `.assign_add()`,
    `.assign_sub()` (at once outside a traced step; they return the Variable), `.numpy()`,
    `.value`, `.val()`, operators. An op on parameters and concrete values builds a graph
    node (a loss term on weights stays live across training steps); converting it to a
    value (`float`, `int`, `np.asarray`, `.numpy()`) evaluates it with the current values.

    Attributes:
        name: unique full name (namespace prefix included).
        shape: tuple of sizes, None where unknown until a feed arrives.
        dtype: 'float32', 'float64', 'int64', 'int32' or 'bool'.
        trainable: whether `minimize(var_list=None)` updates it (parameters only).

    Operators: `+ - * / ** @`, `-x`, `abs(x)`, `x[...]` and `< <= > >=` build ops. `a == b`
    is the elementwise bool Variable `pd.equal(a, b)`, `a != b` is `pd.not_equal(a, b)`
    (operands broadcast; a number or an array takes the Variable's dtype; no gradient flows
    through them). Two things keep Variables usable as list members, dict keys and set
    members: the op is built when the result is first used (by an op, `pd.eval`,
    `.shape`...), so the comparisons Python makes itself (`v in a_list`, `index`, `remove`)
    build nothing; and the truth value of `a == b` is identity (of `a != b`, its negation):
    a Variable's values exist only when the graph runs, so `if a == b:` asks "the same
    Variable?" (compute values with `pd.eval`). Any other Variable's truth value is a
    TypeError. Hashing is identity; `v == None`, and comparisons with objects that are not
    numbers or arrays, are Python's identity test (False).

    Example:
        >>> import numpy as np, paddle as pd
        >>> w = pd.Variable("w", shape=[2, 3], initializer="ones")
        >>> float(w.val().sum())
        6.0
        >>> w.set_value(np.zeros((2, 3), np.float32)); float(w.val().sum())
        0.0
        >>> labels = pd.data("labels", shape=[None], dtype="int32")
        >>> hits = labels == 3                  # elementwise, as pd.equal(labels, 3)
        >>> hits.shape, hits.dtype
        ((None,), 'bool')
        >>> pd.eval(hits, {labels: np.array([3, 1, 3], np.int32)}).tolist()
        [True, False, True]
        >>> w in [labels, w], [labels, w].index(w), bool(w != labels)
        (True, 1, True)
        >>> v = pd.Variable(np.array([1.0, 2.0]), name="v")      # Keras 3's form
        >>> v.assign_add(np.ones(2)).numpy().tolist(), float(pd.sum(v * 2))
        ([2.0, 3.0], 10.0)
    """

    __array_priority__ = 100  # NumPy defers `array + Variable` to Variable.__radd__
    _weak = False  # a float constant made without a dtype sets it (see `constant`)

    def __new__(cls, *args, **kwargs):
        form = _variable_form(args, kwargs)
        if form["lowlevel"] and NAMES.reusing():
            name = form["name"]
            return reused_parameter(NAMES.full(name), as_shape(form["shape"],
                                                               f"Variable {name!r}"))
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        if "kind" in self.__dict__:  # an existing parameter that __new__ fetched under reuse
            return
        form = _variable_form(args, kwargs)
        name = form["name"]
        where = f"Variable {name!r}"
        if form["lowlevel"]:
            shape = as_shape(form["shape"], where)
            if None in shape:
                raise ShapeError(at_user(f"{where}: a parameter needs a fully known "
                                         f"shape, received {shape}"))
            dtype = as_dtype(form["dtype"], where)
            init = initializers.get(form["initializer"] if form["initializer"] is not None
                                    else ("glorot_uniform" if len(shape) >= 2 else "zeros"))
            value = initial_value(init, shape, dtype, where)
        else:
            shape, dtype, value = _keras_initial_value(form, where)
        self._setup(name, shape, dtype, "param", value=value)
        self.trainable = bool(form["trainable"])
        for key in ("autocast", "aggregation", "synchronization"):
            if key in form:
                setattr(self, key, form[key])
        self.name = NAMES.unique(name, self)
        NAMES.params[self.name] = self

    def _setup(self, name, shape, dtype, kind, node=None, index=0, value=None, location=None):
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.kind = kind          # "data", "param", "const" or "op"
        self.node = node
        self.index = index
        self._value = value       # the array of a parameter or constant (updated in place)
        self.trainable = False
        self.location = location if location is not None else user_location()

    @classmethod
    def _make(cls, name, shape, dtype, kind, node=None, index=0, value=None, location=None):
        var = object.__new__(cls)  # not cls.__new__: that makes (or reuses) a parameter
        var._setup(name, shape, dtype, kind, node, index, value, location)
        return var

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def value(self):
        """The host array of a parameter or constant (None for data and op outputs), current
        even when a GPU plan updated its device copy last (it is downloaded then)."""
        return mirrors.on_host(self._value)

    @value.setter
    def value(self, array):
        # Compiled plans hold this array: rebinding the attribute to another one left them
        # computing with the old values, silently. Assigning copies into it, as set_value.
        self.set_value(array)

    def __repr__(self):
        return f"<Variable {self.name!r} shape={self.shape} dtype={self.dtype}>"

    def __hash__(self):  # identity: Variables are dict keys (feeds) and set members
        return id(self)

    def __bool__(self):
        if self.kind != "data" and not _reads_data(self):
            return bool(self.numpy())  # state only: evaluated with the current values
        raise TypeError(f"Variable {self.name!r} has no truth value while the graph is "
                        "built; evaluate it with pd.eval first")

    # A parameter, or an op reading only parameters and constants, converts to its current
    # value (evaluated); a Variable reading pd.data raises, naming the input it waits for.
    def __float__(self):
        return float(self.numpy())

    def __int__(self):
        return int(self.numpy())

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def val(self):
        """A NumPy copy of the current value of a parameter or constant; runs nothing."""
        if self._value is None:
            raise ValueError(f"val: {self.name!r} is a {self.kind} Variable and has no stored "
                             "value; use pd.eval(var, feeds) to compute it")
        with stored_state.LOCK:  # never half-updated by a run in another thread
            return mirrors.on_host(self._value).copy()

    def set_value(self, array):
        """Overwrite a parameter's value in place (same shape; cast to its dtype)."""
        self.assign_checked(self.checked_value(array))

    def checked_value(self, array):
        """`array` as set_value would store it (this parameter's shape, cast to its dtype);
        errors as set_value's. Check several values with it before assigning any."""
        if self.kind != "param":
            raise ValueError(f"set_value: {self.name!r} is a {self.kind} Variable; only "
                             "parameters can be assigned")
        array = np.asarray(array)
        if array.shape != self.shape:
            raise ShapeError(at_user(f"set_value: {self.name!r} has shape {self.shape}, "
                                     f"received an array of shape {array.shape}"))
        if not np.can_cast(array.dtype, self.dtype, "same_kind") and array.dtype != bool:
            raise ValueError(f"set_value: {self.name!r} is {self.dtype}, received "
                             f"{array.dtype}")
        return converted(array, self.dtype, f"set_value: {self.name!r}")

    def assign_checked(self, value):
        """Store a value `checked_value` returned."""
        with stored_state.LOCK:  # never between two kernels of a run in another thread
            np.copyto(self._value, value)
            mirrors.host_written(self._value)  # device copies are uploaded again before use

    def eval(self, feeds=None, training=False):
        """Compute this Variable: shorthand for `pd.eval(self, feeds, training)`."""
        from paddle.lowlevel.executor import eval as run  # the executor imports this module
        return run(self, feeds, training=training)

    def numpy(self):
        """The value as a NumPy array, as Keras's `variable.numpy()`: a parameter's or a
        constant's current value (a copy), or an op output computed from them. A Variable
        that reads a `pd.data` input needs feeds: use `eval(feeds)`.

        Example:
            >>> import paddle as pd
            >>> (pd.constant([1.0, 2.0]) * 3).numpy().tolist()
            [3.0, 6.0]
        """
        if self._value is not None:
            return self.val()
        if self.kind == "data":
            raise ValueError(f"numpy: {self.name!r} is a data Variable: its value is fed; "
                             "use eval(feeds) on what reads it")
        return self.eval()

    # Operators build ops (defined in paddle.lowlevel.ops.math, bound there).


_VARIABLE_KEYS = ("initializer", "shape", "dtype", "trainable", "autocast", "aggregation",
                  "synchronization", "name")
_LOWLEVEL_KEYS = ("name", "shape", "dtype", "initializer", "trainable")
_AGGREGATIONS = ("none", "mean", "sum", "only_first_replica")
_SYNCHRONIZATIONS = ("none", "on_read", "on_write", "auto")


def _variable_form(args, kwargs):
    """The arguments of `Variable(...)` by name, with "lowlevel": whether they are the low
    level's form (a name first) rather than Keras 3's (an initial value or initializer
    first). TypeError for arguments neither form takes."""
    init_kw = kwargs.get("initializer")
    if args:
        lowlevel = isinstance(args[0], str) and (
            "initializer" in kwargs or args[0].lower() not in initializers.NAMED)
    else:  # keywords alone: Keras's form when the initializer is a value or no name is given
        lowlevel = "name" in kwargs and not isinstance(init_kw, NUMBERS + (Variable,))
    keys = _LOWLEVEL_KEYS if lowlevel else _VARIABLE_KEYS
    if len(args) > len(keys):
        raise TypeError(f"Variable: expected at most {len(keys)} positional arguments, "
                        f"received {len(args)}")
    form = dict(zip(keys, args))
    for key, value in kwargs.items():
        if key not in keys:
            raise TypeError(f"Variable: unexpected keyword argument {key!r} (the "
                            f"{'low-level' if lowlevel else 'Keras'} form takes "
                            f"{', '.join(keys)})")
        if key in form:
            raise TypeError(f"Variable: got multiple values for argument {key!r}")
        form[key] = value
    if lowlevel:
        if "shape" not in form:
            raise TypeError(f"Variable {form['name']!r}: expected a shape (the low-level "
                            "form is Variable(name, shape, dtype, initializer, trainable))")
        form.setdefault("dtype", "float32")
        form.setdefault("initializer", None)
    else:
        if "initializer" not in form:
            raise TypeError("Variable: expected an initial value or an initializer as the "
                            "first argument")
        name = form.get("name")
        if name is None:
            name = "variable"
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"Variable: expected a name without '/', received {name!r}")
        form["name"] = name
        form.setdefault("shape", None)
        form.setdefault("dtype", None)
        for key, allowed, default in (("aggregation", _AGGREGATIONS, "none"),
                                      ("synchronization", _SYNCHRONIZATIONS, "auto")):
            value = form.setdefault(key, default)
            if value not in allowed:
                raise ValueError(f"Variable: expected {key} to be one of "
                                 f"{', '.join(allowed)}, received {value!r}")
        form["autocast"] = bool(form.get("autocast", True))
    form.setdefault("trainable", True)
    form["lowlevel"] = lowlevel
    return form


def _keras_initial_value(form, where):
    """(shape, dtype, value array) of Keras 3's form: from a value, or an initializer
    called on `shape`."""
    init, shape, dtype = form["initializer"], form["shape"], form["dtype"]
    if isinstance(init, Variable):
        init = init.numpy()
    if isinstance(init, NUMBERS):
        array = _numbers(init, where)
        if dtype is None:
            dtype = {"f": "float32", "b": "bool"}.get(array.dtype.kind, "int32")
        dtype = as_dtype(dtype, where)
        if shape is not None and as_shape(shape, where) != array.shape:
            raise ShapeError(at_user(f"{where}: expected an initial value of shape "
                                     f"{as_shape(shape, where)}, received shape {array.shape}"))
        return array.shape, dtype, np.array(converted(array, dtype, where), order="C")
    if shape is None:
        raise ValueError(at_user(f"{where}: an initializer ({init!r}) needs a shape; "
                                 "received shape=None"))
    shape = as_shape(shape, where)
    if None in shape:
        raise ShapeError(at_user(f"{where}: a parameter needs a fully known shape, "
                                 f"received {shape}"))
    dtype = as_dtype("float32" if dtype is None else dtype, where)
    if isinstance(init, str) or callable(init) or isinstance(init, dict):
        return shape, dtype, initial_value(initializers.get(init), shape, dtype, where)
    raise TypeError(at_user(f"{where}: expected an array, a number, a callable or an "
                            f"initializer name as the first argument, received "
                            f"{type(init).__name__}"))


def _reads_data(var):
    """Whether computing `var` needs a pd.data input."""
    stack, seen = [var], set()
    while stack:
        v = stack.pop()
        if v.kind == "data":
            return True
        if v.node is not None and id(v.node) not in seen:
            seen.add(id(v.node))
            stack.extend(v.node.inputs)
    return False


def data(name, shape, dtype="float32"):
    """A graph input, fed at `pd.eval` time; None marks sizes that vary between feeds.

    Data names are kept exactly (with the namespace prefix) so feeds can be given by name.

    Example:
        >>> import paddle as pd
        >>> img = pd.data("img", shape=[None, 28, 28, 1])
        >>> img.shape, img.dtype
        ((None, 28, 28, 1), 'float32')
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"data: expected a non-empty name, received {name!r}")
    # "string": text, read on the host by preprocessing layers (paddle/lowlevel/strings.py)
    dtype = "string" if dtype in ("string", str) else as_dtype(dtype, f"data {name!r}")
    var = Variable._make(NAMES.full(name), as_shape(shape, f"data {name!r}"), dtype, "data")
    NAMES.data[var.name] = var  # so that a feed key naming no input is caught (eval)
    return var


def constant(value, dtype=None, name="const"):
    """A constant Variable holding a copy of `value`, with TensorFlow's dtype rule: a NumPy
    array (or NumPy scalar) keeps its float dtype (float64 stays float64; float16 becomes
    float32, which paddle computes in), Python floats and lists of them become float32,
    integers become int64, unless `dtype` says otherwise.

    Where paddle differs from TensorFlow: a float constant whose dtype was not given meets
    an op's operand of the other float dtype in that dtype (as a Python number does), so
    `x_float32 + pd.constant(np.ones(3))` is float32 rather than an error.

    Example:
        >>> import numpy as np, paddle as pd
        >>> c = pd.constant([[1.0, 2.0]])
        >>> c.shape, c.dtype, c.val().tolist()
        ((1, 2), 'float32', [[1.0, 2.0]])
        >>> pd.constant(np.array([0.1, 0.2])).dtype
        'float64'
    """
    array = _numbers(value, "constant")
    weak = dtype is None and array.dtype.kind == "f"
    if dtype is None:
        numpy_float64 = isinstance(value, (np.ndarray, np.generic)) and array.dtype == np.float64
        dtype = ("float64" if numpy_float64 else "float32") if array.dtype.kind == "f" \
            else array.dtype
        dtype = "int64" if np.dtype(dtype).kind in "iu" else dtype
    dtype = as_dtype(dtype, "constant")
    if array.dtype.kind == "c" and dtype not in COMPLEX_DTYPES:
        raise TypeError(f"constant: received complex values {_short(value)}, which {dtype} "
                        f"cannot hold; expected dtype complex64 or complex128 (or pass "
                        f"pd.ops.real(x) for the real parts)")
    # A copy (the caller's array stays theirs and writable); np.array keeps rank 0, where
    # np.ascontiguousarray would make a scalar a (1,) array.
    array = np.array(converted(array, dtype, "constant"), order="C")
    array.flags.writeable = False
    var = CONSTANT_CLASS[0]._make(f"{NAMES.full(name)}_{next(NAMES.op_counter)}",
                                  array.shape, dtype, "const", value=array)
    if weak:
        var._weak = True
    return var


# What ops take besides Variables: numbers and arrays of them (as_variable makes constants).
NUMBERS = (bool, int, float, np.number, np.ndarray, list, tuple)


def as_variable(x, like=None, where="op"):
    """`x` if it is a Variable, else a constant of `like`'s dtype (scalars and arrays)."""
    if isinstance(x, Variable):
        if like is not None and x._weak:
            return _settle_weak([like, x])[1]
        return x
    if isinstance(x, NUMBERS):
        array = _numbers(x, where)
        dtype = _read_dtype(like) if like is not None and array.dtype.kind in "biuf" else None
        if array.dtype.kind == "f" and (dtype is None or dtype in ("int64", "int32")):
            # Operands of ops compute in float32 (never truncate a float silently: the op
            # reports an int/float mix); pd.constant(array) keeps float64 instead.
            dtype = "float32"
        return constant(array, dtype=dtype)
    raise TypeError(f"{where}: expected a Variable, a number or an array, received "
                    f"{type(x).__name__}")


def _numbers(x, where):
    """np.asarray(x) for numbers only; TypeError naming `where` for ragged nested lists,
    strings, objects or ints beyond int64 (complex numbers pass: COMPLEX_DTYPES)."""
    try:
        array = np.asarray(x)
    except ValueError:  # NumPy: 'setting an array element with a sequence ...'
        raise TypeError(f"{where}: expected a Variable, a number or an array, received nested "
                        f"lists of different lengths: {_short(x)}") from None
    if array.dtype.name == "bfloat16":  # ml_dtypes' (a NumPy "V" kind): exact in float32
        array = array.astype(np.float32)
    if array.dtype.kind not in "biufc":
        raise TypeError(f"{where}: expected a Variable or numbers, received {_short(x)} "
                        f"(an array of {array.dtype})")
    return array


def _short(x):
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _settle_weak(inputs):
    """Float constants made without a dtype take the float dtype of the op's other float
    operands (when those agree on one): pd.constant(np.ones(3)) is float64 alone and
    float32 beside a float32 input."""
    strong = {v.dtype for v in inputs if v.dtype in FLOATS and not v._weak}
    if len(strong) != 1:
        return inputs
    dtype = strong.pop()
    settled = []
    for v in inputs:
        if v._weak and v.dtype != dtype:
            cache = v.__dict__.setdefault("_as_dtype", {})
            if dtype not in cache:
                cache[dtype] = constant(v.value, dtype=dtype, name=v.name.rsplit("_", 1)[0])
            v = cache[dtype]
        settled.append(v)
    return settled


# Eager execution (paddle/lowlevel/eager.py, which lies above this module): EAGER_RUN[0]
# runs an op on concrete inputs at once; EAGER_STATE is [tracing depth, eager layer-call
# depth]: while tracing nothing runs eagerly, inside an eager layer call parameters count
# as concrete.
EAGER_RUN = [None]
EAGER_STATE = [0, 0]
# The class of constants: eager.py's EagerTensor (a Variable that acts like an array).
CONSTANT_CLASS = [Variable]
# The eager fast path: {key: function of the input tensors giving the result tensor, or
# None when this call must take the full path (in a trace, under a profile, on another
# device, in a run mode not yet seen)}. The key is (op, attrs_key(attrs), then each
# input's shape and dtype); eager.py adds an entry once a call of that key has passed its
# checks and run. The functions of the usual ops (operators, pd.add, pd.matmul,
# pd.ops.sum) look their call up here first when every input is an EagerTensor
# (CONSTANT_CLASS[0]): a call seen before skips _pair, apply and eager.run.
EAGER_FAST = {}


def attrs_key(attrs):
    """An op's attributes in a cache key, typed (1, 1.0 and True differ, inside tuples
    too): a tuple of (name, typed value). It hashes only when every value does (a list
    does not: eager.py freezes those).

    Example:
        >>> from paddle.lowlevel.graph import attrs_key
        >>> attrs_key({"axis": (0,), "keepdims": False})
        (('axis', (<class 'int'>,), (0,)), ('keepdims', <class 'bool'>, False))
    """
    return tuple([(k, _typed(v), v) if v.__class__ is tuple else (k, v.__class__, v)
                  for k, v in attrs.items()])


def _typed(values):
    """The types in a tuple (nested tuples by their own types)."""
    return tuple([_typed(v) if v.__class__ is tuple else v.__class__ for v in values])


def assigned_value(value):
    """`value` itself, or, for a parameter assigned earlier in the trace being built, the
    value assigned to it last (what a read of it at this point of the trace gives). For
    what a layer call or a traced step returns without an op on it (`return self.total`)."""
    if ASSIGNED and isinstance(value, Variable) and value.kind == "param":
        return ASSIGNED[-1].get(id(value), value)
    return value


def current_mode():
    """The run mode ops built now keep (see `forced_mode`): True, False or None."""
    return _MODE[-1]


def apply(op, inputs, attrs=None, location=None):
    """Build a node of `op` on `inputs`: infer output shapes now, return the output
    Variable (or a list when the op has several outputs). `location` ('file.py:line')
    names the user's line that asked for it, when that is not the current one.

    On concrete inputs outside a trace (paddle/lowlevel/eager.py) the op runs at once
    instead and its output is an EagerTensor holding the values."""
    attrs = attrs or {}
    if _AUTOCAST[-1] is not None and not (op.stateful or op.writes_inputs) and \
            op.name != "cast":  # before weak numbers take the dtype of the others
        inputs = _autocast_reads(op, inputs)
    if len(inputs) > 1:
        for v in inputs:  # (a loop: any() of a generator costs more, on every eager call)
            if v._weak:
                inputs = _settle_weak(inputs)
                break
    if ASSIGNED and ASSIGNED[-1] and op.reads_assigned and not (op.stateful or
                                                                op.writes_inputs):
        inputs = [ASSIGNED[-1].get(id(v), v) if v.kind == "param" else v for v in inputs]
    if not (op.stateful or EAGER_STATE[0]) and EAGER_RUN[0] is not None:
        params = EAGER_STATE[1] > 0  # (_concrete, inline: this runs on every eager call)
        for v in inputs:
            kind = v.kind
            if kind != "const" and not (params and kind == "param"):
                break
        else:
            return EAGER_RUN[0](op, inputs, attrs, location)
    location = location or user_location()
    for v in inputs:
        if v.dtype == "string":
            raise TypeError(f"{op.name}: received the string input {v.name!r}; strings stay "
                            "on the host: call a preprocessing layer (StringLookup, "
                            "TextVectorization, Hashing) on the input first, which gives "
                            f"numbers" + (f" (at {location})" if location else ""))
    check_complex(op, inputs, location=location)
    try:
        specs = op.infer(*[(v.shape, v.dtype) for v in inputs], **attrs)
    except (ShapeError, TypeError) as e:  # dtype rules raise TypeError: locate those too
        raise type(e)(f"{e} (at {location})" if location else str(e)) from None
    check_storage(op, inputs, specs, location)
    single = not isinstance(specs, list)
    specs = [specs] if single else specs
    node = Node(op, inputs, attrs, location)
    prefix = NAMES.full(op.name)
    outs = [Variable._make(f"{prefix}_{next(NAMES.op_counter)}", tuple(shape), dtype, "op",
                           node, i, location=location) for i, (shape, dtype) in enumerate(specs)]
    node.outputs_ref = tuple(weakref.ref(v) for v in outs)
    return outs[0] if single else outs
