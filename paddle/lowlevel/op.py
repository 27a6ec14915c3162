"""How an op is defined: a shape rule, a gradient rule and a kernel name, in one class.

Each op is a subclass of `Op` registered once. `infer` maps input (shape, dtype) pairs to
the output's (None dims allowed) and raises ShapeError quoting the operands; `grad` builds
the input gradients from other ops, so gradients of gradients come free; the kernel that
runs it lives in the backend under the op's name, or under its `family` (paddle/devices/cpu/).
Kernels know ops by these names and by the vocabulary below (`FAMILIES`, `RANDOM_KINDS`),
never by importing op classes: this module and paddle/lowlevel/shapes.py lie below both.

Example (what paddle.lowlevel.ops.math does for `neg`):
    >>> from paddle.lowlevel.op import Op, register
    >>> @register
    ... class Twice(Op):
    ...     name = "twice_example"
    ...     def infer(self, x):
    ...         return x
    ...     def grad(self, node, g):
    ...         return [g[0] * 2.0]
"""
from paddle.errors import ShapeError

OPS = {}

# The kernel families: every op of a family runs on the same kernel of a backend, which reads
# the op's `code` (the C++ loop; the elementwise ops of paddle/lowlevel/ops/math.py, and the
# predicates of paddle/lowlevel/ops/special.py: bool y = p(x), as signbit).
FAMILIES = ("unary", "binary", "compare", "predicate")

# The draws of the random op (paddle/lowlevel/ops/sampling.py), in the order of the kernels'
# codes. keep_mask: b with probability 1 - a, else 0 (dropout's mask, a = rate,
# b = 1 / (1 - rate)); permutation: 0..n-1 in a random order (1-D integers).
RANDOM_KINDS = ("uniform", "normal", "truncated_normal", "randint", "keep_mask", "permutation",
                "gamma")


class Op:
    """Base class of every op.

    Class attributes:
        name: the op's name, also the name of its kernel in every backend.
        family: one of FAMILIES when the op runs on its family's kernel (a backend may
            still give it a kernel of its own name); None: a kernel of its own.
        view: the output is the input's buffer under another shape (no kernel runs).
        takes_complex: the op reads or makes complex64/complex128 values (every other op
            refuses them where it is built: graph.check_complex).
        stateful: the op changes Variables in place (optimizer updates); it runs after
            every other op of a plan and is never cached away.
        writes_inputs: the kernel may write a parameter input in place (batch norm's
            moving statistics in training): run eagerly, it runs on the parameter itself.
        reads_assigned: a parameter input assigned earlier in the trace being built is
            read as the value assigned to it (graph.ASSIGNED: program order in traced
            steps); stateful and writes_inputs ops always receive the parameter itself.
    """

    name = None
    family = None
    view = False
    stateful = False
    writes_inputs = False
    runs_programs = False  # its kernel runs other plans' programs (control flow)
    # Indices of the inputs whose values the kernels never read, only their (plan-time)
    # shape: the planner does not keep their buffers alive for this op (a gradient's
    # sum_to(g, like=x) kept every residual block's x until the backward reached it).
    shape_only = ()
    reads_assigned = True
    # Whether the op reads or makes complex64/complex128 values (graph.check_complex refuses
    # them for every other op): views, bitcast and eig.
    takes_complex = False

    def infer(self, *inputs, **attrs):
        """(shape, dtype) of each input -> (shape, dtype) of the output, or a list of them."""
        raise NotImplementedError

    def aliases(self, inputs, outputs):
        """Whether, at these concrete specs, the output is input 0's buffer unchanged (the
        plan then runs no kernel for it). Views always are; see SumTo for a conditional one."""
        return False

    def grad(self, node, grads):
        """Gradients of the inputs (Variables or None), given the outputs' gradients
        (`grads[i]` is None when output i does not reach the loss)."""
        raise ShapeError(f"{self.name}: this op has no gradient")

    def fail(self, message, *operands):
        """Raise ShapeError '<op>: <message>: x is (2, 3), y is (4,)'."""
        shapes = ", ".join(f"{label} is {fmt_shape(shape)}" for label, shape in operands)
        raise ShapeError(f"{self.name}: {message}" + (f": {shapes}" if shapes else ""))


def register(cls):
    """Register an op class (once per name) and return it."""
    if cls.name in OPS:
        raise ValueError(f"op {cls.name!r} is defined twice")
    OPS[cls.name] = cls()
    return cls


def fmt_shape(shape):
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(d) for d in shape) + ")"
