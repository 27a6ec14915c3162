"""The graph's own ops as ONNX nodes: what a model computes outside the layers that have a
mapping of their own.

A layer class with a mapping (`@maps`, the family modules) is converted as a whole, which
gives ONNX's better nodes (Conv, LSTM, ...). Everything else is converted op by op from
the graph the layer call built: a user's own subclassed layer (a token-and-position
embedding, a scale layer), a layer class without a mapping, and plain ops written between
layers (`x + 3.0` in a functional model). Each op below maps to ONNX nodes on tensors in
the channels-last layout (`KERAS`) the op computes in; parameters and constants become
initializers. An op without a mapping is an `ExportError` naming it, the layer that built
it and the user's line.

Example:
    >>> import numpy as np, onnxruntime, paddle as pd
    >>> class Scale(pd.layers.Layer):           # a user's layer: no mapping of its own
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
    ...     def call(self, x):
    ...         return pd.ops.tanh(x * self.w + 1.0)
    >>> inputs = pd.Input(shape=(3,), name="x")
    >>> model = pd.Model(inputs, Scale()(inputs))
    >>> model.export("scale.onnx", format="onnx")
    >>> x = np.random.rand(2, 3).astype(np.float32)
    >>> (y,) = onnxruntime.InferenceSession("scale.onnx").run(None, {"x": x})
    >>> bool(np.allclose(y, model.predict(x, verbose=0), atol=1e-6))
    True
"""
import numpy as np

from paddle.export.onnx.converter import KERAS

OP_MAPPERS = {}  # op name -> fn(c, node, inputs (ONNX names), hint) -> [output names]

# ONNX TensorProto element types of paddle's dtypes.
ELEMENT = {"float32": 1, "int32": 6, "int64": 7, "bool": 9, "float64": 11}


def maps_op(*names):
    """Registers the decorated function as the ONNX mapping of these ops."""
    def register(fn):
        for name in names:
            OP_MAPPERS[name] = fn
        return fn
    return register


def convert_op_output(c, var, through_layer):
    """Converts the op that makes `var` and, first, the ops it reads: parameters and
    constants become initializers; a value some layer call made is converted by
    `through_layer(x)` (which returns False for values no such call made)."""
    stack = [var]
    while stack:  # depth first without recursion: a model may hold thousands of ops
        v = stack[-1]
        if id(v) in c.values:
            stack.pop()
            continue
        pending = []
        for x in v.node.inputs:
            if id(x) in c.values:
                continue
            if x.kind in ("param", "const"):
                c.set(x, c.const(x.val(), _hint(x)))
            elif x.kind == "op" and not through_layer(x):
                pending.append(x)
            elif x.kind not in ("param", "const", "op"):
                c.fail(f"its graph reads {x.name!r}, which is not one of its inputs")
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        _convert_node(c, v.node)


def _hint(var):
    return var.name.replace(":", "_")


def _convert_node(c, node):
    outs = [o for o in node.outputs if o is not None]
    if all(id(o) in c.values for o in outs):
        return
    mapping = OP_MAPPERS.get(node.op.name)
    if mapping is None:
        where = f" (built at {node.location})" if node.location else ""
        scope = f" in layer {node.scope!r}" if getattr(node, "scope", None) else ""
        c.fail(f"the op {node.op.name!r}{scope}{where} has no ONNX mapping; ops with one: "
               f"{', '.join(sorted(OP_MAPPERS))}")
    hint = (outs[0].name if outs else node.op.name).replace(":", "_")
    names = mapping(c, node, [c.get(v, KERAS) for v in node.inputs], hint)
    for out, name in zip(node.outputs, names):
        if out is not None:
            c.set(out, name)


# ---- elementwise ------------------------------------------------------------------------

_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow",
           "maximum": "Max", "minimum": "Min", "equal": "Equal", "greater": "Greater",
           "less": "Less", "greater_equal": "GreaterOrEqual", "less_equal": "LessOrEqual"}
_UNARY = {"neg": "Neg", "abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "erf": "Erf", "sign": "Sign"}


def _binary(onnx_type):
    def convert(c, node, ins, hint):
        return [c.node(onnx_type, ins, hint)]
    return convert


def _unary(onnx_type):
    def convert(c, node, ins, hint):
        return [c.node(onnx_type, ins, hint)]
    return convert


for _name, _type in _BINARY.items():
    maps_op(_name)(_binary(_type))
for _name, _type in _UNARY.items():
    maps_op(_name)(_unary(_type))


@maps_op("not_equal")
def not_equal(c, node, ins, hint):
    return [c.node("Not", [c.node("Equal", ins, hint)], hint)]


@maps_op("square")
def square(c, node, ins, hint):
    return [c.node("Mul", [ins[0], ins[0]], hint)]


@maps_op("log1p")
def log1p(c, node, ins, hint):
    one = c.const(np.ones((), node.inputs[0].dtype), f"{hint}/one")
    return [c.node("Log", [c.node("Add", [ins[0], one], hint)], hint)]


@maps_op("cast")
def cast(c, node, ins, hint):
    return [c.node("Cast", ins, hint, to=ELEMENT[node.attrs["dtype"]])]


@maps_op("where")
def where(c, node, ins, hint):
    return [c.node("Where", ins, hint)]


@maps_op("dropout", "match_shape")
def identity(c, node, ins, hint):  # dropout is the identity at inference; match_shape checks
    return [c.node("Identity", ins[:1], hint)]


@maps_op("softmax")
def softmax(c, node, ins, hint):
    return [c.node("Softmax", ins, hint, axis=-1)]


@maps_op("log_softmax")
def log_softmax(c, node, ins, hint):
    return [c.node("LogSoftmax", ins, hint, axis=-1)]


@maps_op("batch_norm")
def batch_norm(c, node, ins, hint):
    """Inference: (x - moving mean) / sqrt(moving variance + epsilon) * scale + offset,
    on the op's axis (a per-channel constant broadcast over the others)."""
    x, scale, offset, mean, variance = node.inputs[:5]
    rank, axis = len(x.shape), node.attrs["axis"] % len(x.shape)
    shape = [1] * rank
    shape[axis] = -1
    values = [v.val() if v.kind in ("param", "const") else None for v in (scale, offset, mean,
                                                                          variance)]
    if any(v is None for v in values):
        c.fail(f"batch norm {hint!r}: its statistics must be parameters to be exported")
    scale_v, offset_v, mean_v, var_v = values
    factor = scale_v / np.sqrt(var_v + node.attrs["epsilon"])
    shift = offset_v - mean_v * factor
    y = c.node("Mul", [ins[0], c.const(factor.reshape(shape), f"{hint}/factor")], hint)
    return [c.node("Add", [y, c.const(shift.reshape(shape), f"{hint}/shift")], hint)]


# ---- products and reductions ------------------------------------------------------------

def _swap_last(c, name, rank, hint):
    perm = list(range(rank))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return c.node("Transpose", [name], hint, perm=perm)


@maps_op("matmul")
def matmul(c, node, ins, hint):
    a, b = ins
    if node.attrs.get("transpose_a"):
        a = _swap_last(c, a, len(node.inputs[0].shape), hint)
    if node.attrs.get("transpose_b"):
        b = _swap_last(c, b, len(node.inputs[1].shape), hint)
    return [c.node("MatMul", [a, b], hint)]


@maps_op("sum", "max", "min")
def reduce(c, node, ins, hint):
    rank = len(node.inputs[0].shape)
    axis = node.attrs.get("axis")
    axes = list(range(rank)) if axis is None else \
        [a % rank for a in ((axis,) if isinstance(axis, int) else axis)]
    keep = int(bool(node.attrs.get("keepdims")))
    if node.op.name == "sum":
        kind = "ReduceMean" if node.attrs.get("mean") else "ReduceSum"
    else:
        kind = "ReduceMax" if node.op.name == "max" else "ReduceMin"
    if kind == "ReduceSum":  # opset 13 and later: the axes are an input
        return [c.node(kind, [ins[0], c.ints(axes, f"{hint}/axes")], hint, keepdims=keep)]
    return [c.node(kind, ins, hint, axes=axes, keepdims=keep)]


# ---- shapes -----------------------------------------------------------------------------

@maps_op("reshape")
def reshape(c, node, ins, hint):
    out = node.outputs[0].shape if node.outputs[0] is not None else None
    target = [-1 if d is None else int(d) for d in (out or node.attrs["shape"])]
    if target.count(-1) > 1:  # unknown sizes besides the batch: take them from the input
        target = [-1 if d is None else int(d) for d in node.attrs["shape"]]
        if target.count(-1) > 1:
            c.fail(f"reshape {hint!r}: more than one unknown size ({tuple(out)})")
    return [c.node("Reshape", [ins[0], c.ints(target, f"{hint}/shape")], hint)]


@maps_op("reshape_like")
def reshape_like(c, node, ins, hint):
    return [c.node("Reshape", [ins[0], c.node("Shape", [ins[1]], hint)], hint)]


@maps_op("broadcast_to")
def broadcast_to(c, node, ins, hint):
    return [c.node("Expand", [ins[0], c.node("Shape", [ins[1]], hint)], hint)]


@maps_op("flatten")
def flatten(c, node, ins, hint):
    return [c.node("Flatten", ins, hint, axis=1)]


@maps_op("transpose")
def transpose(c, node, ins, hint):
    return [c.node("Transpose", ins, hint, perm=list(node.attrs["perm"]))]


@maps_op("concat")
def concat(c, node, ins, hint):
    rank = len(node.inputs[0].shape)
    return [c.node("Concat", ins, hint, axis=node.attrs.get("axis", 0) % rank)]


@maps_op("expand_dims")
def expand_dims(c, node, ins, hint):
    rank = len(node.inputs[0].shape) + 1
    return [c.node("Unsqueeze", [ins[0], c.ints([node.attrs["axis"] % rank], f"{hint}/axes")],
                   hint)]


@maps_op("squeeze")
def squeeze(c, node, ins, hint):
    shape = node.inputs[0].shape
    axis = node.attrs.get("axis")
    axes = [i for i, d in enumerate(shape) if d == 1] if axis is None else \
        [a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)]
    return [c.node("Squeeze", [ins[0], c.ints(axes, f"{hint}/axes")], hint)]


@maps_op("slice")
def slice_(c, node, ins, hint):
    """x[index]: ONNX Slice over the sliced axes, then Squeeze of the integer-indexed ones."""
    starts, ends, axes, steps, squeezed = [], [], [], [], []
    for axis, ix in enumerate(node.attrs["index"]):
        if isinstance(ix, int):  # ONNX counts negative starts from the end, as Python
            starts.append(ix)
            ends.append(ix + 1 if ix != -1 else np.iinfo(np.int64).max)
            axes.append(axis)
            steps.append(1)
            squeezed.append(axis)
            continue
        start, stop, step = ix
        if (start, stop, step) == (0, None, 1) or (start, stop, step) == (None, None, 1):
            continue
        starts.append(0 if start is None else start)
        ends.append(np.iinfo(np.int64).max if stop is None else stop)
        axes.append(axis)
        steps.append(step)
    y = ins[0]
    if axes:
        y = c.node("Slice", [y, c.ints(starts, f"{hint}/starts"), c.ints(ends, f"{hint}/ends"),
                             c.ints(axes, f"{hint}/axes"), c.ints(steps, f"{hint}/steps")],
                   hint)
    if squeezed:
        y = c.node("Squeeze", [y, c.ints(squeezed, f"{hint}/squeezed")], hint)
    elif not axes:
        y = c.node("Identity", [y], hint)
    return [y]


@maps_op("pad")
def pad(c, node, ins, hint):
    pairs = node.attrs["paddings"]
    pads = [b for b, _ in pairs] + [a for _, a in pairs]
    value = c.const(np.asarray(node.attrs.get("constant_values", 0.0),
                               node.inputs[0].dtype), f"{hint}/value")
    return [c.node("Pad", [ins[0], c.ints(pads, f"{hint}/pads"), value], hint, mode="constant")]


@maps_op("gather")
def gather(c, node, ins, hint):
    return [c.node("Gather", ins, hint, axis=node.attrs.get("axis", 0))]


@maps_op("embedding")
def embedding(c, node, ins, hint):
    ids, table = ins
    if node.inputs[0].dtype != "int64":
        ids = c.node("Cast", [ids], hint, to=ELEMENT["int64"])
    return [c.node("Gather", [table, ids], hint, axis=0)]


@maps_op("full_like")
def full_like(c, node, ins, hint):
    dtype = node.attrs.get("dtype") or node.inputs[0].dtype
    value = c.numpy_helper.from_array(np.asarray([node.attrs["value"]], dtype), "value")
    shape = node.attrs.get("shape")
    shape = c.node("Shape", ins[:1], hint) if shape is None else c.ints(shape, f"{hint}/shape")
    return [c.node("ConstantOfShape", [shape], hint, value=value)]
