"""Fusion: a pass over a program's node list that merges nodes into fused kernels.

It runs when the executor specializes a plan to concrete shapes (executor.Program), after
shape inference: what may fuse depends on the shapes (a bias that broadcasts along the last
axis may, other broadcasts may not). The graph is never changed: gradients, export, saving
and `pd.profiler`'s layer names see the ops the user wrote; a fused node stands in the node
list for the last node it replaces (`FusedNode.root`), carries that node's location and
layer, and is named after what it runs ("fused_elementwise[add+relu]").

Before it, when a plan is built for inference, fold_batch_norm.py folds a batch_norm with
moving statistics into the convolution before it (the plan's graph-level pass: its nodes
are the plan's; like a fused node, the folded one computes the value at the batch norm's
key, `Node.keys`).

Pattern families, one module each, run in this order:
    layer_norm.py: layer normalization's forward (mean, sub, square, mean, add, sqrt, div,
        mul, add), one pass per row, writing only the values the plan reads.
    norm.py: batch_norm followed by relu (one kernel with relu as its epilogue), and
        relu_grad followed by batch_norm_grad (relu's mask folded into the gradient).
    softmax.py: softmax's gradient, y * (g - sum(g * y)), one pass per row.
    conv.py: conv2d followed by relu (relu applied to each block of output rows in cache).
    matmul.py: matmul followed by a bias add, and relu if it follows (a Dense layer: both
        applied to each thread's part of the product in cache); backward, a matmul whose
        output relu_grad masks (the mask applied there too).
    pool.py: max_pool2d_grad followed by relu_grad (relu's mask applied to each image's
        input gradient in cache).
    pad.py: a zero pad folded into the valid convolution (or, in inference, max pooling
        of a relu's output) that reads it, as explicit padding: no padded copy.
    elementwise.py: chains and trees of unary, binary, compare and where ops, run by one
        kernel as a small program over registers, in one pass over memory.

The switch: `PADDLE_FUSION=0` in the environment (read once, at the first program built)
turns fusion off; `set_enabled(False)` / `set_enabled(True)` switch it for the programs
built from then on, `set_enabled(None)` goes back to the environment's word (the executor
keys its programs by it, so a plan keeps one program of each kind).

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 3])
    >>> y = pd.relu(x * 2.0 + 1.0)
    >>> pd.eval(y, {x: np.array([[-1.0, 0.0, 1.0]])}).tolist()
    [[0.0, 1.0, 3.0]]
"""
import os

from paddle.lowlevel.fusion.conv import fuse_conv_relu
from paddle.lowlevel.fusion.elementwise import fuse_elementwise
from paddle.lowlevel.fusion.layer_norm import fuse_layer_norm
from paddle.lowlevel.fusion.matmul import fuse_matmul_bias_relu
from paddle.lowlevel.fusion.norm import fuse_batch_norm_relu
from paddle.lowlevel.fusion.node import FusedNode, FusedOp  # noqa: F401
from paddle.lowlevel.fusion.pad import fold_pads
from paddle.lowlevel.fusion.pool import fuse_max_pool_grad_relu_grad
from paddle.lowlevel.fusion.softmax import fuse_softmax_grad


# Whether programs built now fuse; None until the environment is first read. The executor
# asks at every run (it keys its programs by the answer): a global, not os.environ.
_enabled = None


def enabled():
    """Whether programs built now fuse: as `set_enabled` last said, else True unless the
    environment says PADDLE_FUSION=0 (read at the first call).

    Example:
        >>> from paddle.lowlevel import fusion
        >>> isinstance(fusion.enabled(), bool)
        True
    """
    global _enabled
    if _enabled is None:
        _enabled = os.environ.get("PADDLE_FUSION", "1").strip().lower() not in \
            ("0", "false", "off")
    return _enabled


def set_enabled(flag):
    """Fuse (True) or not (False) in the programs built from now on; None: as the
    environment's PADDLE_FUSION says, read again at the next `enabled()`.

    Args:
        flag: True, False or None.

    Raises:
        TypeError: flag is not a bool or None.

    Example:
        >>> from paddle.lowlevel import fusion
        >>> fusion.set_enabled(False); fusion.enabled()
        False
        >>> fusion.set_enabled(None)
    """
    global _enabled
    if flag is not None and not isinstance(flag, bool):
        raise TypeError(f"fusion.set_enabled: expected True, False or None, received {flag!r}")
    _enabled = flag


def fuse(nodes, known, kept, late, kernels):
    """The node list with fusable groups replaced by fused nodes.

    Args:
        nodes: the plan's nodes in run order.
        known: (shape, dtype) at concrete shapes of every value, keyed as the executor's
            `_key` does: (id(node), output index) for an op's output, id(leaf) for a leaf.
        kept: keys (id(node), output index) that must stay materialized (the targets).
        late: ids of the nodes of the update phase (never fused).
        kernels: the backend's kernel table; a pattern fuses only where the backend has its
            kernel and that kernel's `fusable` says it stands in for the members' kernels
            (a member whose kernel was replaced runs as itself).

    Returns:
        A new list; `nodes` itself is left as it was.

    Example:
        >>> from paddle.lowlevel import fusion
        >>> fusion.fuse([], {}, set(), set(), {})
        []
    """
    nodes = fuse_layer_norm(list(nodes), known, kept, late, kernels)
    nodes = fuse_batch_norm_relu(nodes, known, kept, late, kernels)
    nodes = fuse_softmax_grad(nodes, known, kept, late, kernels)
    nodes = fuse_conv_relu(nodes, known, kept, late, kernels)
    nodes = fuse_matmul_bias_relu(nodes, known, kept, late, kernels)
    nodes = fuse_max_pool_grad_relu_grad(nodes, known, kept, late, kernels)
    nodes = fold_pads(nodes, known, kept, late, kernels)
    return fuse_elementwise(nodes, known, kept, late, kernels)
