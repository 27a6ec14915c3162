"""A zero padding folded into the convolution or max pooling that reads it: Keras's
ZeroPadding2D before a valid Conv2D (ResNet-50's stem) or MaxPooling2D (its pool1). The
kernels clip their windows to the input and treat what lies outside as the padding, so the
padded copy (a pass that reads the input and writes a larger one) is never made: the
reader's node runs on the unpadded input with the pads as explicit `padding`
((top, bottom), (left, right)), computing the same values.

A `pad` of constant 0 on the two spatial axes of a 4-D (NHWC) value folds when its output
has exactly one reader, which is not a target, and that reader is
- a conv2d with "valid" padding reading it as its input (or such a conv2d already fused
  with what follows it: fused_conv), whose values are then those of the padded convolution
  bit for bit (the same zeros enter the same products); or
- a max_pool2d with "valid" padding whose arg-max output nobody reads (an inference plan)
  and whose input is a relu's output, with pads narrower than its windows (every window
  keeps an input element): its windows' values are then never below the pads' zeros, so
  the clipped window's maximum is the padded window's (up to the sign of a zero).
In a training plan the padded value is read by the gradients too: nothing folds.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = pd.data("x", shape=[None, 4, 4, 1])
    >>> w = np.ones((3, 3, 1, 1), "float32")
    >>> y = pd.conv2d(pd.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)]), w)
    >>> pd.eval(y, {x: np.ones((1, 4, 4, 1), "float32")})[0, :, :, 0].tolist()[0]
    [4.0, 6.0, 6.0, 4.0]
"""
from paddle.lowlevel.fusion.node import FusedNode, FusedOp, key, one_reader, readers_of


def fold_pads(nodes, known, kept, late, kernels):
    """`nodes` with every foldable pad merged into the convolution or max pooling reading
    it (the reader's kernel, with explicit padding)."""
    readers = readers_of(nodes)
    at, dropped = {}, set()
    for n in nodes:
        if n.op.name != "pad" or id(n) in late or (id(n), 0) in kept:
            continue
        pads = _spatial_pads(n, known)
        reader = one_reader(readers, (id(n), 0))
        if pads is None or reader is None or readers[(id(n), 0)][1] or id(reader) in late \
                or id(reader) in at or key(reader.inputs[0]) != (id(n), 0) \
                or any(key(v) == (id(n), 0) for v in reader.inputs[1:]) \
                or reader.attrs.get("padding") != "valid":
            continue
        if not _folds_into(reader, n, pads, readers, kept, kernels):
            continue
        dropped.add(id(n))
        at[id(reader)] = _folded(reader, n, pads)
    if not at:
        return nodes
    return [at.get(id(n), n) for n in nodes if id(n) not in dropped]


def _spatial_pads(n, known):
    """((top, bottom), (left, right)) of a zero pad of a 4-D value on axes 1 and 2 only."""
    paddings = n.attrs["paddings"]
    if len(known[key(n.inputs[0])][0]) != 4 or n.attrs.get("constant_values", 0.0) != 0.0 \
            or tuple(paddings[0]) != (0, 0) or tuple(paddings[3]) != (0, 0):
        return None
    return tuple(paddings[1]), tuple(paddings[2])


def _folds_into(reader, pad, pads, readers, kept, kernels):
    op = reader.op
    kernel = getattr(op, "kernel", op.name)
    if kernel not in kernels:
        return False
    if kernel in ("conv2d", "fused_conv"):
        return op.name == "conv2d" or op.members[0] == "conv2d"
    if op.name != "max_pool2d" or (id(reader), 1) in kept or readers.get((id(reader), 1)):
        return False  # the arg-max is read (a gradient): its positions would differ
    if any(p >= k for pair, k in zip(pads, reader.attrs["pool_size"]) for p in pair):
        return False  # a window of padding alone (the kernel wants one input element)
    source = pad.inputs[0].node
    return source is not None and source.op.name == "relu"


def _folded(reader, pad, pads):
    """The reader, on the pad's input, with the pads as its padding."""
    attrs = dict(reader.attrs, padding=pads)
    inputs = [pad.inputs[0], *reader.inputs[1:]]
    if isinstance(reader, FusedNode):
        op = FusedOp(reader.op.kernel, ["pad", *reader.op.members], reader.op.writes_inputs)
        return FusedNode(op, inputs, attrs, reader.root, [pad, *reader.members],
                         keys=reader.keys, mode_of=reader)
    # (a convolution folded with its batch norm has keys: the batch norm's output's)
    keys = reader.keys if reader.keys is not None else \
        [(id(reader), k) for k in range(len(reader.outputs_ref))]
    return FusedNode(FusedOp(reader.op.name, ["pad", reader.op.name]), inputs, attrs, reader,
                     [pad, reader], keys=keys, mode_of=reader)
