"""dropout and embedding.

Dropout draws its mask in C++ from a seed taken from paddle's random state on every
training run (so `pd.seed` makes runs reproducible) and outputs the mask too: the
gradient multiplies by that same mask. Outside training it is the identity.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 4])
    >>> y = pd.dropout(x, 0.5)
    >>> pd.eval(y, {x: np.ones((2, 4))}).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    >>> ran = pd.eval(y, {x: np.ones((2, 4))}, training=True)
    >>> sorted(set(ran.ravel().tolist())) in ([0.0, 2.0], [0.0], [2.0])
    True
"""
import numbers

from paddle.lowlevel.graph import FLOATS, apply, as_variable
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.norm import keep_siblings


@register
class Dropout(Op):
    """y = x * mask and the mask (0 or 1 / (1 - rate)); the mask is all ones at inference."""

    name = "dropout"

    def infer(self, x, rate):
        if x[1] not in FLOATS:
            raise TypeError(f"dropout: expected a float input, received {x[1]}")
        return [x, x]

    def grad(self, node, g):
        return [None if g[0] is None else g[0] * node.outputs[1]]


def dropout(x, rate):
    """Inverted dropout: in training runs, zero each element with probability `rate` and
    scale the others by 1 / (1 - rate); the identity otherwise.

    Args:
        x: float Variable.
        rate: probability of dropping an element, in [0, 1).

    Returns:
        Variable shaped like x.

    Raises:
        ValueError: rate outside [0, 1).

    Example:
        >>> import paddle as pd
        >>> pd.dropout(pd.data("x", shape=[None, 128]), 0.5).shape
        (None, 128)
    """
    if not isinstance(rate, numbers.Real) or isinstance(rate, bool) or not 0 <= rate < 1:
        raise ValueError(f"dropout: expected a rate in [0, 1), received {rate!r}")
    x = as_variable(x, where="dropout")
    if rate == 0:
        return x
    return keep_siblings(apply(OPS["dropout"], [x], {"rate": float(rate)}))


@register
class Embedding(Op):
    name = "embedding"

    def infer(self, ids, table):
        if ids[1] != "int64":
            raise TypeError(f"embedding: expected integer ids, received {ids[1]}")
        if len(table[0]) != 2 or table[1] not in FLOATS:
            self.fail(f"expected a 2-D float table (rows, dim), received {table[1]}",
                      ("ids", ids[0]), ("table", table[0]))
        return ids[0] + (table[0][1],), table[1]

    def grad(self, node, g):
        ids, table = node.inputs
        return [None, apply(OPS["scatter_add"], [g[0], ids, table], {"axis": 0})]


def embedding(ids, table):
    """Rows of `table` at integer `ids`; the gradient adds into the rows (repeated ids
    accumulate).

    Args:
        ids: int64 or int32 Variable of any shape.
        table: float Variable (rows, dim).

    Returns:
        Variable ids.shape + (dim,).

    Raises:
        ShapeError: table is not 2-D.
        IndexError (at eval): an id outside [0, rows), named with its position.

    Example:
        >>> import numpy as np, paddle as pd
        >>> table = pd.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
        >>> pd.eval(pd.embedding(pd.constant(np.array([[2, 0]])), table)).tolist()
        [[[4.0, 5.0], [0.0, 1.0]]]
    """
    ids = as_variable(ids, where="embedding")
    table = as_variable(table, where="embedding")
    if ids.dtype == "int32":
        ids = cast(ids, "int64")
    return apply(OPS["embedding"], [ids, table])
