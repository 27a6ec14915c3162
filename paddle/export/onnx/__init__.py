"""ONNX export: a model's layers as an ONNX graph built with the `onnx` package's helpers,
checked by `onnx.checker`, with a dynamic batch axis.

`model.export("model.onnx", format="onnx")` (as Keras 3 names it) calls `export_onnx`.
Each layer family has a module here mapping its layers to ONNX nodes (`core`,
`activations`, `conv`, `pooling`, `normalization`, `recurrent`, `merge`); `converter` walks
the model. Install the extra with `pip install "paddle-graph[onnx]"` (onnx, and
onnxruntime to run the file).
"""
import numpy as np

from paddle._atomic import write_bytes
from paddle.lowlevel.graph import FLOATS
from paddle.highlevel.layers.base import tensor_arguments
from paddle.highlevel.models.layer_graph import model_io, producer, producers
from paddle.highlevel.models.model import EXPORTERS, Model
from paddle.export.onnx.converter import KERAS, MAPPERS, Converter, ExportError  # noqa: F401
# The family modules register their layers' mappings in MAPPERS when imported.
from paddle.export.onnx import (  # noqa: F401
    activations, conv, core, merge, normalization, ops, pooling, recurrent)

OPTIONAL_REQUIREMENTS = ("onnx", "onnxruntime")  # docstring examples need both
OPSET = 17  # LayerNormalization's first opset; ONNX Runtime 1.16 and later run it


def _onnx():
    try:
        import onnx  # an optional dependency (the "onnx" extra)
    except ImportError:
        raise ImportError("export: the 'onnx' package is not installed; install it with "
                          "pip install 'paddle-graph[onnx]' (or pip install onnx)") from None
    return onnx


def export_onnx(model, filepath, opset_version=OPSET):
    """Writes the model as an ONNX file that ONNX Runtime runs like `model.predict`.

    The file is checked with `onnx.checker` before it is written, to a temporary name
    beside `filepath` that is then renamed: a failure leaves no file under that name.

    Args:
        model: a built pd.Model (Sequential with an input shape, functional, or subclassed
            and called on data) made of layers with an ONNX mapping.
        filepath: the .onnx file to write.
        opset_version: the ONNX opset (17 or later).

    Returns:
        The onnx.ModelProto written.

    Raises:
        ExportError (a ValueError): the model is not built, holds a layer with no mapping,
            or computes ops outside its layers; the message names the model and the layer.
        ImportError: the onnx package is missing.

    Example:
        >>> import numpy as np, onnxruntime, paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(3,), name="x"),
        ...                        pd.layers.Dense(2, activation="softmax")])
        >>> model.export("model.onnx", format="onnx")
        >>> session = onnxruntime.InferenceSession("model.onnx")
        >>> x = np.random.rand(5, 3).astype(np.float32)
        >>> (probs,) = session.run(None, {"x": x})
        >>> bool(np.allclose(probs, model.predict(x), atol=1e-6))
        True
    """
    proto = onnx_model(model, opset_version)
    write_bytes(filepath, proto.SerializeToString(), "export")
    return proto


def onnx_model(model, opset_version=OPSET):
    """The checked onnx.ModelProto of `model` that `export_onnx` writes (what
    `pd.export.ExportArchive` stores per endpoint); the same arguments and errors."""
    if not isinstance(model, Model):
        raise TypeError(f"export: expected a pd.Model, received {type(model).__name__}")
    if not isinstance(opset_version, int) or isinstance(opset_version, bool) or \
            opset_version < OPSET:
        raise ValueError(f"export: expected opset_version >= {OPSET}, received "
                         f"{opset_version!r}")
    onnx = _onnx()
    try:
        inputs, outputs = model_io(model, "export")
    except ValueError as e:
        raise ExportError(str(e)) from None
    c = Converter(onnx.helper, onnx.numpy_helper, model)
    in_names = _io_names(getattr(model, "input_names", None), inputs, "input")
    out_names = _io_names(getattr(model, "output_names", None), outputs, "output")
    for var, name in zip(inputs, in_names):
        c._names.add(name)
        c.set(var, name)
    c._names.update(out_names)
    produced = producers(model)
    for var in outputs:
        _convert(c, model, var, produced)
    for var, name in zip(outputs, out_names):
        c.nodes.append(onnx.helper.make_node("Identity", [c.get(var, KERAS)], [name],
                                             name=c.fresh(f"{name}/Identity")))
    graph = onnx.helper.make_graph(
        c.nodes, model.name,
        [_value_info(onnx, v, n) for v, n in zip(inputs, in_names)],
        [_value_info(onnx, v, n) for v, n in zip(outputs, out_names)],
        initializer=c.initializers)
    proto = onnx.helper.make_model(graph, producer_name="paddle",
                                   opset_imports=[onnx.helper.make_opsetid("", opset_version)])
    try:
        onnx.checker.check_model(proto, full_check=True)
    except onnx.checker.ValidationError as e:
        raise ExportError(f"export: {model.name}: the ONNX graph does not pass "
                          f"onnx.checker: {e}") from e
    return proto


def _io_names(names, variables, kind):
    names = list(names or [])
    if len(names) != len(variables) or len(set(names)) != len(names):
        names = [f"{kind}_{i}" for i in range(len(variables))]
    return names


def _value_info(onnx, var, name):
    """The ONNX type of a graph input or output: axis 0 is the dynamic 'batch'."""
    dims = ["batch" if i == 0 else (f"{name}_dim{i}" if d is None else int(d))
            for i, d in enumerate(var.shape)]
    elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(var.dtype))
    return onnx.helper.make_tensor_value_info(name, elem, dims)


def _convert(c, model, var, produced):
    """Converts what `var` needs: the layer call that made it (by the layer's mapping, or
    op by op), or the plain op that made it outside any layer."""
    if id(var) in c.values:
        return
    if _through_layer(c, model, var, produced):
        return
    if var.kind == "data":
        c.fail(f"its graph reads {var.name!r}, which is not one of its inputs")
    if var.node is None:
        c.set(var, c.const(var.val(), var.name.replace(":", "_")))  # a parameter or constant
        return
    ops.convert_op_output(c, var, lambda x: _through_layer(c, model, x, produced))


def _through_layer(c, model, var, produced, inside=None):
    """Converts `var` through the layer call that made it, when one did (a call of the
    model's layers, or of a layer with a mapping or a nested model inside a layer being
    converted op by op, other than `inside`); False when an op outside layers made it."""
    history = producer(var, model, produced) or getattr(var, "_history", None)
    if history is not None and history[0] is inside and isinstance(inside, Model):
        # `inside` returned its sublayer's output as it is (a Sequential's last layer)
        history = producers(inside).get(id(var))
    if history is None or history[0] is model or history[0] is inside:
        return False
    layer, call, _ = history
    if produced.get(id(var)) is None and not (
            (MAPPERS.get(type(layer)) or isinstance(layer, Model)) and
            call < len(layer._inbound) and any(o is var for o in layer._inbound[call][1]) and
            not any(i is var for i in layer._inbound[call][0])):
        return False  # inside a layer converted op by op: only mapped sublayers' calls
    _convert_call(c, model, layer, call, produced)
    return True


def _convert_call(c, model, layer, call, produced):
    """Converts one layer call: its inputs first, then the layer's mapping, the nested
    model, or (a layer class without a mapping: a user's own layer) its ops one by one."""
    ins, outs, kwargs = layer._inbound[call]
    if all(id(o) in c.values for o in outs):
        return
    # Tensors given as keyword arguments (a subclassed model's call(self, x, y)): its graph
    # was traced on them as they are, and reads them.
    extra = tensor_arguments(kwargs) if isinstance(layer, Model) else []
    for v in list(ins) + extra:
        _convert(c, model, v, produced)
    if isinstance(layer, Model) and _has_own_graph(layer):
        _convert_nested(c, layer, ins, outs, extra)
    elif MAPPERS.get(type(layer)) is not None:
        MAPPERS[type(layer)](c, layer, _cast_integer_inputs(c, layer, ins), outs, kwargs)
    else:
        for out in outs:
            if id(out) in c.values:
                continue
            if out.kind != "op" or out.node is None:
                _convert(c, model, out, produced)
                continue
            through = (lambda x, inside=layer: _through_layer(c, model, x, produced, inside))
            if not through(out):  # a sublayer's output that the layer returns as it is
                ops.convert_op_output(c, out, through)
    missing = [o.name for o in outs if id(o) not in c.values]
    if missing:
        c.fail(f"layer {layer.name!r} ({type(layer).__name__}): its ONNX mapping left "
               f"outputs {missing} unset")


class _Cast:
    """A layer's input after its implicit cast (Variable-like: shape, dtype, name)."""

    def __init__(self, var, dtype):
        self.shape, self.dtype, self.name = var.shape, dtype, var.name


def _cast_integer_inputs(c, layer, ins):
    """Integer inputs cast to the layer's float dtype, as the layer does when it is called
    (`Layer._cast_integer_inputs`: Keras's implicit cast)."""
    weights = getattr(layer, "_weights", [])
    if not getattr(layer, "casts_integer_inputs", False) or \
            not any(w.dtype in FLOATS for w in weights):
        return ins
    cast = []
    for v in ins:
        if v.dtype in FLOATS:
            cast.append(v)
            continue
        t, proxy = c.tensor(v), _Cast(v, layer.dtype)
        to = c.helper.np_dtype_to_tensor_dtype(np.dtype(layer.dtype))
        c.set(proxy, c.node("Cast", [t.name], layer.name, to=to), t.layout)
        cast.append(proxy)
    return cast


def _has_own_graph(model):
    """Whether a nested model has inputs and outputs of its own (a Sequential started by
    its first call on another model's tensor has none: its call is converted op by op,
    through its layers' calls)."""
    try:
        model_io(model, "export")
    except ValueError:
        return False
    return True


def _convert_nested(c, inner, ins, outs, extra=()):
    """A nested model's call: its own graph converted on the call's inputs (and on the
    tensors of its keyword arguments, `extra`, which that graph reads as they are)."""
    try:
        inner_ins, inner_outs = model_io(inner, "export")
    except ValueError as e:
        raise ExportError(str(e)) from None
    outer_values, outer_model, outer_scope = c.values, c.model, c.scope
    c.values = {id(v): outer_values[id(x)] for v, x in zip(inner_ins, ins)}
    c.values.update((id(v), outer_values[id(v)]) for v in extra)
    c.keep.extend(inner_ins)
    c.model, c.scope = inner, f"{outer_scope}{inner.name}/"
    try:
        produced = producers(inner)
        for v in inner_outs:
            _convert(c, inner, v, produced)
        results = [c.values[id(v)] for v in inner_outs]
    finally:
        c.values, c.model, c.scope = outer_values, outer_model, outer_scope
    for out, tensor in zip(outs, results):
        c.values[id(out)] = tensor
        c.keep.append(out)


EXPORTERS["onnx"] = export_onnx  # what model.export(path, format="onnx") calls
