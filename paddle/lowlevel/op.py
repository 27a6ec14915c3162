"""How an op is defined: a shape rule, a gradient rule and a kernel name, in one class.

Each op is a subclass of `Op` registered once. `infer` maps input (shape, dtype) pairs to
the output's (None dims allowed) and raises ShapeError quoting the operands; `grad` builds
the input gradients from other ops, so gradients of gradients come free; the kernel that
runs it lives in the backend under the op's name (paddle/devices/cpu/).

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


class Op:
    """Base class of every op.

    Class attributes:
        name: the op's name, also the name of its kernel in every backend.
        view: the output is the input's buffer under another shape (no kernel runs).
        stateful: the op changes Variables in place (optimizer updates); it runs after
            every other op of a plan and is never cached away.
    """

    name = None
    view = False
    stateful = False

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
