"""Matrix product: batched, leading dims broadcast as NumPy, optional transposes."""
from paddle.lowlevel.graph import CONSTANT_CLASS, EAGER_FAST, FLOATS, Variable, apply, attrs_key
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import _pair, sum_to
from paddle.lowlevel.ops.shape import expand_dims, reshape, reshape_like
from paddle.lowlevel.shapes import broadcast


@register
class MatMul(Op):
    name = "matmul"

    def infer(self, a, b, transpose_a=False, transpose_b=False):
        (sa, da), (sb, db) = a, b
        if da != db or da not in FLOATS:
            self.fail(f"expected two float inputs of one dtype, received {da} and {db}",
                      ("x", sa), ("y", sb))
        if len(sa) < 1 or len(sb) < 1:
            self.fail("scalars cannot be multiplied as matrices", ("x", sa), ("y", sb))
        # Vectors act as a row (x) or a column (y) and lose that axis again in the result.
        ma = (1,) + sa if len(sa) == 1 else sa
        mb = sb + (1,) if len(sb) == 1 else sb
        m, ka = (ma[-1], ma[-2]) if transpose_a else (ma[-2], ma[-1])
        kb, n = (mb[-1], mb[-2]) if transpose_b else (mb[-2], mb[-1])
        if ka is not None and kb is not None and ka != kb:
            self.fail("inner dimensions differ", ("x", sa), ("y", sb))
        batch = broadcast(self, ma[:-2], mb[:-2], labels=["x batch", "y batch"])
        out = batch + (() if len(sa) == 1 else (m,)) + (() if len(sb) == 1 else (n,))
        return out, da

    def grad(self, node, g):
        x, y = node.inputs
        g = g[0]
        ta, tb = node.attrs.get("transpose_a", False), node.attrs.get("transpose_b", False)
        # A vector operand is the row (1, k) / the column (k, 1) that infer made of it:
        # put the axes it lost back into g, take the matrix gradients, reshape back.
        a = expand_dims(x, 0) if x.ndim == 1 else x
        b = expand_dims(y, -1) if y.ndim == 1 else y
        if y.ndim == 1:
            g = expand_dims(g, -1)
        if x.ndim == 1:
            g = expand_dims(g, -2)
        # d(A B) = dA B + A dB, with the transposes carried through.
        if ta:
            ga = matmul(b, g, transpose_a=tb, transpose_b=True)
        else:
            ga = matmul(g, b, transpose_b=not tb)
        if b.ndim == 2 and a.ndim > 2 and not ta and a.shape[-1] is not None \
                and g.shape[-1] is not None:
            # A matrix applied to every row of a batch (a Dense layer on a sequence): its
            # gradient sums over the batch, so the batch's rows make one long product (no
            # batch of products and no sum_to over their full-size result).
            a2, g2 = reshape(a, (-1, a.shape[-1])), reshape(g, (-1, g.shape[-1]))
            gb = matmul(g2, a2, transpose_a=True) if tb else matmul(a2, g2, transpose_a=True)
        elif tb:
            gb = matmul(g, a, transpose_a=True, transpose_b=ta)
        else:
            gb = matmul(a, g, transpose_a=not ta)
        return [reshape_like(sum_to(ga, a), x), reshape_like(sum_to(gb, b), y)]


def matmul(x, y, transpose_a=False, transpose_b=False):
    """Matrix product of the last two axes, broadcasting the leading ones (NumPy rules).

    Args:
        x, y: float Variables (or arrays) of rank >= 1.
        transpose_a, transpose_b: use the transpose of the last two axes of x / y (a
            vector operand is left as it is).

    Raises:
        ShapeError: the inner dimensions differ, or the batch dims do not broadcast.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.data("x", shape=[None, 3])
        >>> w = pd.Variable("w", shape=[3, 2], initializer="ones")
        >>> (x @ w).shape
        (None, 2)
    """
    op = OPS["matmul"]
    if x.__class__ is CONSTANT_CLASS[0] and y.__class__ is CONSTANT_CLASS[0] and \
            transpose_a is False and transpose_b is False:  # eager tensors: seen before?
        fast = EAGER_FAST.get((op, _PLAIN, x.shape, x.dtype, y.shape, y.dtype))
        if fast is not None:
            out = fast(x, y)
            if out is not None:
                return out
    x, y = _pair(x, y, "matmul")
    # A vector has nothing to transpose (as in NumPy): the flags apply to matrices only.
    return apply(op, [x, y], {"transpose_a": bool(transpose_a) and x.ndim > 1,
                              "transpose_b": bool(transpose_b) and y.ndim > 1})


# The attributes of a product without transposes, as graph.EAGER_FAST keys hold them.
_PLAIN = attrs_key({"transpose_a": False, "transpose_b": False})


Variable.__matmul__ = matmul
Variable.__rmatmul__ = lambda a, b: matmul(b, a)
