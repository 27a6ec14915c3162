"""The node that stands for a fused group in a program's node list (never in the graph).

Example:
    >>> from paddle.lowlevel.fusion.node import FusedOp
    >>> FusedOp("fused_elementwise", ["add", "relu"]).name
    'fused_elementwise[add+relu]'
"""


def key(v):
    """The executor's key of a Variable's value: (id(node), output index), or id(leaf)."""
    return (id(v.node), v.index) if v.node is not None else id(v)


def reads_of(nodes):
    """{value key: [(reader node, input index)]}: every read of every value, in run order
    (a pass that matches a pattern by operand position asks which input reads it)."""
    out = {}
    for n in nodes:
        for i, v in enumerate(n.inputs):
            out.setdefault(key(v), []).append((n, i))
    return out


def readers_of(nodes):
    """{value key: (the nodes reading its values, whether any node reads only its shape,
    `Op.shape_only`)}, from `reads_of`. A value read only for its shape needs a buffer of
    that shape, not its values: a fused node may list it among its outputs and never write
    it (the executor keeps no buffer live for a shape-only read)."""
    out = {}
    for k, reads in reads_of(nodes).items():
        out[k] = (tuple(n for n, i in reads if i not in n.op.shape_only),
                  any(i in n.op.shape_only for n, i in reads))
    return out


def one_reader(readers, k):
    """The node that reads the values at key `k` if exactly one does, else None."""
    values = readers.get(k, ((), False))[0]
    return values[0] if len(values) == 1 else None


def computes_exactly(dtype):
    """Whether a product fused with its epilogue (conv.py, matmul.py, pool.py) gives the
    unfused ops' values bit for bit in `dtype`: float32 and float64. In float16 and
    bfloat16 the unfused ops round the product before the bias is added; fused, it would
    not be rounded."""
    return str(dtype) in ("float32", "float64")


def prepare_of(kernels, name):
    """The prepare function a backend's kernel table holds for op `name`, as registered (a
    table that wraps its functions, for half dtypes, keeps the original as `__wrapped__`):
    what a fused kernel's `fusable` compares with its own module's functions."""
    prepare = kernels.get(name)
    return getattr(prepare, "__wrapped__", prepare)


class FusedOp:
    """The op of a fused node: `kernel` is the backend's kernel name, `name` says what it
    runs (profiles and error messages show it); `writes_inputs` as any member's op."""

    view = False
    stateful = False
    family = None
    runs_programs = False
    shape_only = ()  # every input's values are read

    def __init__(self, kernel, members, writes_inputs=False):
        self.kernel = kernel
        self.members = tuple(members)
        self.name = f"{kernel}[{'+'.join(members)}]"
        self.writes_inputs = writes_inputs

    def aliases(self, inputs, outputs):
        return False

    def __repr__(self):
        return f"<FusedOp {self.name}>"


class FusedNode:
    """A fused group: its inputs (the Variables read from outside the group), its attributes
    (what its kernel runs), `keys`, the executor's keys of the outputs it computes
    ((id(member), output index): consumers and targets find them there; the one mechanism
    of a pass's nodes, `Node.keys` of the graph's class), and `root`, the
    group's last node, whose location and layer it takes. `members` are the graph nodes it
    replaces, in run order; `mode` (the run mode its kernel sees) is `mode_of`'s."""

    __slots__ = ("op", "inputs", "attrs", "root", "members", "keys", "mode")

    def __init__(self, op, inputs, attrs, root, members, keys=None, mode_of=None):
        self.op = op
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.root = root
        self.members = tuple(members)
        self.keys = keys if keys is not None else \
            [(id(root), k) for k in range(len(root.outputs_ref))]
        self.mode = (mode_of or root).mode

    @property
    def location(self):
        return self.root.location

    @property
    def scope(self):
        return self.root.scope

    def __repr__(self):
        return f"<FusedNode {self.op.name} at {self.location or '?'}>"
