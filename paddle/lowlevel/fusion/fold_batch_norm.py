"""A planner pass: batch normalization with moving statistics folded into the convolution
before it, for inference plans.

In inference a batch_norm is an affine map per channel, `y = x * k + (offset - mean * k)`
with `k = scale / sqrt(moving_variance + epsilon)`; after a conv2d (NHWC, channels last,
filters HWIO) that map folds into the filters and the bias:

    w' = w * k        b' = (b - moving_mean) * k + offset     (b = 0 without a bias)

so one convolution writes the normalized output and no pass over it remains. The folded
filters and bias are computed by a few small nodes that read the stored values (pure
arithmetic), which the program keeps between runs until a stored value is written
(paddle/lowlevel/kept_values.py), so that they follow every change of the weights or the
statistics (a training step, `set_value`, `load_weights`); on ResNet-50 that is one pass
over its 94 MB of filters after each change instead of one per run (docs/performance.md).

The graph is left as the user built it (export, saving and gradients see conv2d and
batch_norm); only the plan's list of nodes changes. The pass folds a pair only when that
is exact: the batch_norm runs on moving statistics (its node's mode, else the plan's, is
inference), normalizes the convolution's channel axis, reads a convolution whose output
nothing else reads, and nothing reads its saved statistics (outputs 1 and 2).

The folded convolution's node computes the batch_norm's output 0 (its `keys` are that
output's key, as a fused node's): the value that the nodes after it go on reading. The pass's nodes are of the graph's Node class but
belong to the plan only. (This module imports no graph module: the executor imports it,
and the graph imports the executor.)

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 4, 4, 2])
    >>> w = pd.Variable("w", shape=[3, 3, 2, 5], initializer="ones")
    >>> mm = pd.Variable("mm", shape=[5], initializer="zeros", trainable=False)
    >>> mv = pd.Variable("mv", shape=[5], initializer="ones", trainable=False)
    >>> y = pd.batch_norm(pd.conv2d(x, w), None, None, mm, mv)
    >>> from paddle.lowlevel.executor import topological_nodes
    >>> [n.op.name for n in fold(topological_nodes([y]), training=False, keep=[y])]
    ['add', 'sqrt', 'div', 'mul', 'mul', 'sub', 'conv2d']
"""
import numpy as np

from paddle.lowlevel.op import OPS


def fold(nodes, training, keep=()):
    """The plan's nodes with every foldable conv2d -> batch_norm pair replaced by one
    convolution on folded filters and bias (and the small nodes that fold them).

    Args:
        nodes: a plan's nodes in topological order (executor.topological_nodes).
        training: the plan's mode; a node's own `mode`, when set, overrides it.
        keep: Variables whose values the plan must produce (its targets): a convolution
            output among them is not folded away.

    Returns:
        The new list of nodes (`nodes` itself when nothing folds).
    """
    reads = {}
    for n in nodes:
        for v in n.inputs:
            if v.node is not None:
                reads[(id(v.node), v.index)] = reads.get((id(v.node), v.index), 0) + 1
    for v in keep:
        if getattr(v, "node", None) is not None:
            reads[(id(v.node), v.index)] = reads.get((id(v.node), v.index), 0) + 1
    replaced, folded = set(), {}
    for n in nodes:
        conv = _foldable(n, training, reads)
        if conv is not None:
            replaced.add(id(conv))
            folded[id(n)] = _folded_conv(conv, n)
    if not folded:
        return nodes
    out = []
    for n in nodes:
        if id(n) in replaced:
            continue
        out.extend(folded.get(id(n), [n]))
    return out


def _foldable(bn, training, reads):
    """The conv2d node that `bn` (a node) folds into, or None."""
    if bn.op.name != "batch_norm" or (training if bn.mode is None else bn.mode):
        return None
    x = bn.inputs[0]
    conv = x.node
    if conv is None or conv.op.name != "conv2d" or len(x.shape) != 4 or \
            bn.attrs["axis"] != 3 or reads.get((id(conv), 0), 0) != 1:
        return None
    if reads.get((id(bn), 1)) or reads.get((id(bn), 2)) or bn.outputs[0] is None:
        return None  # the saved statistics are read (or y is not)
    if any(v.dtype != x.dtype for v in bn.inputs[1:]):
        return None
    return conv


def _folded_conv(conv, bn):
    """The nodes that compute k, w' and b' from the stored values, then conv2d(x, w', b')
    standing for bn's output 0."""
    x, w = conv.inputs[:2]
    bias = conv.inputs[2] if len(conv.inputs) > 2 else None
    scale, offset, mean, var = bn.inputs[1:]
    dtype = x.dtype
    node_class, variable_class = type(bn), type(bn.outputs[0])
    made = []

    def node(op, inputs, shape, attrs=None):
        n = node_class(OPS[op], inputs, attrs or {}, conv.location)
        n.mode, n.scope = None, conv.scope
        v = variable_class._make(f"folded_{op}", tuple(shape), dtype, "op", n, 0,
                                 location=conv.location)
        n.outputs_ref = (_Ref(v),)
        made.append(n)
        return v

    c = (var.shape[0],)
    eps = variable_class._make("folded_epsilon", (), dtype, "const",
                         value=np.array(bn.attrs["epsilon"], dtype), location=conv.location)
    k = node("div", [scale, node("sqrt", [node("add", [var, eps], c)], c)], c)
    w2 = node("mul", [w, k], w.shape)
    shift = node("mul", [node("sub", [bias, mean], c) if bias is not None else mean, k], c)
    b2 = node("sub", [offset, shift], c) if bias is None else node("add", [shift, offset], c)
    out = bn.outputs[0]
    node("conv2d", [x, w2, b2], out.shape, dict(conv.attrs))
    made[-1].keys = [(id(out.node), out.index)]
    return made


class _Ref:
    """A strong stand-in for the weak reference a Node keeps to each output: the pass's
    output Variables have no other owner."""

    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __call__(self):
        return self.v
