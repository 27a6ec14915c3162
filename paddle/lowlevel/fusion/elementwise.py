"""Elementwise fusion: chains and trees of unary, binary, compare, predicate (signbit) and
where ops become one node that runs a small program over registers (csrc/elementwise.cpp
`fused_elementwise` on the CPU, one generated ElementwiseKernel on CUDA).

A group grows back from a root (taken from the end of the run order) through the producers
of its operands, as long as a producer:
    - is an elementwise op the backend's kernel can fuse, of the group's compute dtype or
      of bool values (a comparison of bools, a where choosing between bools: logical_and,
      logical_or, logical_not and logical_xor are such ops), which run in any group,
    - has the group's output shape (every intermediate is full-size),
    - is read once, by the group, and is not a target (its value is never needed outside),
    - reads no parameter that an op of the plan writes in place (it would run later, at the
      root's place, and could read the value written in between);
and every operand from outside is full-size, a vector along the last axis (a bias), or a
scalar. Other broadcasts do not fuse. A group of one node stays as it was, and so does a
group of bool values only (it has no compute dtype to run in).

A full-size operand that is a slice x[..., c] (or x[..., c:c + 1]) of the last axis of x,
every other axis whole, is read in place (STRIDED: element i at c + i * x.shape[-1]; the
kernel gathers it block by block) instead of a copy made first, when the group is the
slice's one reader: the slice is then not computed.

Example:
    >>> import numpy as np
    >>> from paddle.lowlevel.fusion.elementwise import operand_shape
    >>> operand_shape((4,), (2, 4)), operand_shape((), (2, 4)), operand_shape((2, 1), (2, 4))
    (1, 2, None)
"""
from collections import namedtuple

import numpy as np

from paddle.lowlevel.fusion.node import FusedNode, FusedOp, prepare_of

KERNEL = "fused_elementwise"

# Instruction kinds and input shapes, as csrc/elementwise.cpp's FusedKind and FusedShape.
UNARY, BINARY, COMPARE, WHERE, PREDICATE = range(5)
FULL, LAST_AXIS, SCALAR, STRIDED = range(4)
KINDS = {"unary": UNARY, "binary": BINARY, "compare": COMPARE, "predicate": PREDICATE}
# The kinds whose result is bool computed from values of the compute dtype.
_FROM_VALUES = (COMPARE, PREDICATE)
COMPUTE_DTYPES = ("float32", "float64", "int32", "int64")

# One instruction: `dst` and `sources` are register numbers (inputs first, then temporaries;
# OUT is the output register, numbered when the program is done); `name` is the op's.
Instruction = namedtuple("Instruction", "kind code name dst sources")
OUT = -1


def operand_shape(shape, out):
    """How an operand of shape `shape` reaches an output of shape `out`: FULL, LAST_AXIS (a
    vector along the last axis), SCALAR, or None (another broadcast: no fusion)."""
    shape, out = tuple(shape), tuple(out)
    if shape == out:
        return FULL
    size = int(np.prod(shape, dtype=np.int64))
    if size == 1:
        return SCALAR
    if shape and out and len(shape) <= len(out) and shape[-1] == out[-1] and size == out[-1]:
        return LAST_AXIS
    return None


def _kind(node):
    if node.op.name == "where":
        return WHERE
    return KINDS.get(getattr(node.op, "family", None))


def _compute_dtype(node, known):
    """The dtype the node computes in: its operands' (a comparison's or a predicate's are
    not its output's); "bool" for a comparison of bools or a where between bools."""
    if _kind(node) in _FROM_VALUES:
        return known[_key(node.inputs[0])][1]
    return known[(id(node), 0)][1]


def _is_bool(node, known):
    """Whether the node's output is bool (a comparison, a predicate, or a where between
    bools)."""
    return known[(id(node), 0)][1] == "bool"


class _Candidates:
    """Which nodes of a program may join a group, with the facts the rules need."""

    def __init__(self, nodes, known, kept, late, kernels):
        self.known, self.late, self.kernels = known, late, kernels
        self.kernel = kernels.get(KERNEL)
        self.position = {id(n): k for k, n in enumerate(nodes)}  # (the nodes still listed)
        self.readers = {}
        for n in nodes:
            for v in n.inputs:
                key = _key(v)
                self.readers[key] = self.readers.get(key, 0) + 1
        self.kept = set(kept)
        # Parameters some op writes in place while the plan runs (batch norm's statistics).
        self.written = {id(v) for n in nodes if n.op.writes_inputs
                        for v in n.inputs if v.node is None}

    def spec(self, v):
        return self.known[_key(v)]

    def eligible(self, node, out_shape, dtype):
        """Whether `node` computes an elementwise op the kernel fuses, into `out_shape`, in
        `dtype` (None: a group of bools so far, which any compute dtype may join) or on
        bools, from operands of shapes the kernel reads."""
        kind = _kind(node)
        if kind is None or id(node) in self.late or (id(node), 0) not in self.known:
            return False
        shape = self.known[(id(node), 0)][0]
        own = _compute_dtype(node, self.known)
        if tuple(shape) != tuple(out_shape) or (dtype is not None and own not in (dtype, "bool")):
            return False
        if own not in COMPUTE_DTYPES + ("bool",) or \
                (own == "bool" and kind in (UNARY, BINARY, PREDICATE)):
            return False
        # The backend says which of its kernels the fused one stands in for: an op whose
        # kernel was replaced (a test's stand-in, a kernel that wants its inputs placed, see
        # executor.Program._placed) runs as itself.
        if not self.kernel.fusable(node.op.name, own, prepare_of(self.kernels, node.op.name)):
            return False
        for k, v in enumerate(node.inputs):
            vshape, vdtype = self.spec(v)
            want = "bool" if kind == WHERE and k == 0 else own
            if vdtype != want or operand_shape(vshape, out_shape) is None:
                return False
            if kind in (UNARY, PREDICATE) and operand_shape(vshape, out_shape) != FULL:
                return False
        return True

    def absorbable(self, v, group_shape, dtype):
        """Whether the producer of operand `v` can run inside the group that reads it."""
        p = v.node
        if p is None or (id(p), v.index) in self.kept or self.readers.get(_key(v)) != 1:
            return False
        if id(p) not in self.position:  # computed inside a node fused by another pattern
            return False
        if any(i.node is None and id(i) in self.written for i in p.inputs):
            return False
        return self.eligible(p, group_shape, dtype)


def _key(v):
    return (id(v.node), v.index) if v.node is not None else id(v)


def _strided_source(v, c):
    """(x, offset, step) where operand `v` is a slice of one position c of x's last axis
    (x[..., c] or x[..., c:c + 1], every other axis whole), else None."""
    p = v.node
    if p is None or p.op.name != "slice" or id(p) not in c.position or id(p) in c.late:
        return None
    # Read once, by this group: each group reading x in place reads all of x's channels
    # (the cache lines hold them), so a slice with several readers stays a copy.
    if c.readers.get(_key(v)) != 1 or _key(v) in c.kept:
        return None
    x = p.inputs[0]
    if x.node is None and id(x) in c.written:
        return None
    shape = tuple(c.spec(x)[0])
    index = tuple(p.attrs["index"])
    if not shape or len(index) != len(shape) or shape[-1] < 2:
        return None
    for n, ix in zip(shape[:-1], index[:-1]):
        if isinstance(ix, int) or slice(*ix).indices(n) != (0, n, 1):
            return None
    ix = index[-1]
    if isinstance(ix, int):
        offset = ix % shape[-1]
    else:
        start, stop, step = slice(*ix).indices(shape[-1])
        if len(range(start, stop, step)) != 1:
            return None
        offset = start
    return x, offset, shape[-1]


def fuse_elementwise(nodes, known, kept, late, kernels):
    """`nodes` with each group of two or more fusable elementwise nodes replaced by one
    FusedNode at its root's place (see the module's docstring for the rules). `kernels`:
    the backend's table, whose "fused_elementwise" kernel says what it runs (`fusable`)."""
    if not hasattr(kernels.get(KERNEL), "fusable"):
        return nodes
    c = _Candidates(nodes, known, kept, late, kernels)
    taken, fused = set(), {}
    for root in reversed(nodes):
        if id(root) in taken or _kind(root) is None or (id(root), 0) not in known:
            continue
        shape = known[(id(root), 0)][0]
        dtype = _compute_dtype(root, known)
        dtype = None if dtype == "bool" else dtype  # fixed by the first member not on bools
        if not c.eligible(root, shape, dtype):
            continue
        members, stack = [root], [root]
        while stack:
            for v in stack.pop().inputs:
                if id(v.node) not in taken and c.absorbable(v, shape, dtype) \
                        and v.node not in members:
                    members.append(v.node)
                    stack.append(v.node)
                    own = _compute_dtype(v.node, known)
                    dtype = dtype if own == "bool" else own
        if len(members) < 2 or dtype is None:
            continue
        members.sort(key=lambda n: c.position[id(n)])
        taken.update(id(n) for n in members)
        fused[id(root)] = _fused_node(members, c, shape, dtype)
    if not fused:
        return nodes
    out = [fused.get(id(n), n) for n in nodes if id(n) not in taken or id(n) in fused]
    # Slices that the groups read in place (STRIDED) and nothing else reads are not run.
    read = {_key(v) for n in out for v in n.inputs}
    return [n for n in out if n.op.name != "slice" or (id(n), 0) in read
            or (id(n), 0) in c.kept]


def _fused_node(members, c, shape, dtype):
    """The FusedNode running `members` (in run order; the last is the root)."""
    inside = {id(n) for n in members}
    inputs, register, reads = [], {}, []  # outside operands, in first use; key -> register
    for n in members:
        for v in n.inputs:
            if (v.node is None or id(v.node) not in inside) and _key(v) not in register:
                register[_key(v)] = len(inputs)
                kind = operand_shape(c.spec(v)[0], shape)
                strided = _strided_source(v, c) if kind == FULL else None
                if strided is not None:
                    v, offset, step = strided
                    reads.append((STRIDED, offset, step))
                else:
                    reads.append((kind, 0, 1))
                inputs.append(v)
    # Temporaries are reused once read, by a result of the same width only: a where that
    # wrote its T result over its bool condition would overwrite conditions not yet read.
    temps, free, program = 0, {True: [], False: []}, []
    for n in members:
        sources = [register[_key(v)] for v in n.inputs]
        for v in n.inputs:  # an intermediate's one read is this one: its register is free
            if v.node is not None and id(v.node) in inside:
                free[_is_bool(v.node, c.known)].append(register.pop(_key(v)))
        is_bool = _is_bool(n, c.known)
        if n is members[-1]:
            dst = OUT
        elif free[is_bool]:
            dst = free[is_bool].pop()
        else:
            dst, temps = len(inputs) + temps, temps + 1
        register[(id(n), 0)] = dst
        kind = _kind(n)
        program.append(Instruction(kind, getattr(n.op, "code", 0) or 0, n.op.name, dst,
                                   tuple(sources)))
    out = len(inputs) + temps
    program = [i._replace(dst=out if i.dst == OUT else i.dst) for i in program]
    attrs = {"program": tuple(program), "array": program_array(program),
             "shapes": np.array([r[0] for r in reads], dtype=np.int64),
             # (kind, offset, step) per input, as csrc's `shapes` in three values
             "reads": np.array(reads, dtype=np.int64).reshape(-1), "temps": temps,
             "dtype": dtype, "registers": out + 1}
    op = FusedOp(KERNEL, [n.op.name for n in members])
    return FusedNode(op, inputs, attrs, members[-1], members)


def program_array(program):
    """The program as csrc's int64 array: (kind, code, dst, a, b, c) per instruction."""
    rows = [(i.kind, i.code, i.dst, *i.sources, *([0] * (3 - len(i.sources))))
            for i in program]
    return np.array(rows, dtype=np.int64).reshape(-1)
