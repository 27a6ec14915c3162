"""Every built-in activation as ONNX nodes (`Activation` layers and layers' `activation=`)."""
import math

from paddle.lowlevel.layers import ACTIVATIONS
from paddle.highlevel.layers.core import Activation
from paddle.export.onnx.converter import cf_axis, maps


def _gelu(c, x, hint, axis):
    # x * 0.5 * (1 + erf(x / sqrt(2))): the exact form paddle computes (ONNX's Gelu op
    # needs opset 20)
    scaled = c.node("Mul", [x, c.const([1.0 / math.sqrt(2.0)], hint + "/inv_sqrt2",
                                       c.dtype)], hint)
    one = c.const([1.0], hint + "/one", c.dtype)
    half = c.const([0.5], hint + "/half", c.dtype)
    erf = c.node("Add", [c.node("Erf", [scaled], hint), one], hint)
    return c.node("Mul", [c.node("Mul", [x, half], hint), erf], hint)


def _silu(c, x, hint, axis):
    return c.node("Mul", [x, c.node("Sigmoid", [x], hint)], hint)


ONNX_ACTIVATIONS = {
    "relu": lambda c, x, hint, axis: c.node("Relu", [x], hint),
    "sigmoid": lambda c, x, hint, axis: c.node("Sigmoid", [x], hint),
    "tanh": lambda c, x, hint, axis: c.node("Tanh", [x], hint),
    "softmax": lambda c, x, hint, axis: c.node("Softmax", [x], hint, axis=axis),
    "log_softmax": lambda c, x, hint, axis: c.node("LogSoftmax", [x], hint, axis=axis),
    "leaky_relu": lambda c, x, hint, axis: c.node("LeakyRelu", [x], hint, alpha=0.2),
    "elu": lambda c, x, hint, axis: c.node("Elu", [x], hint, alpha=1.0),
    "gelu": _gelu,
    "softplus": lambda c, x, hint, axis: c.node("Softplus", [x], hint),
    "silu": _silu,
    "swish": _silu,
}


def activation_name(layer):
    """The built-in name of a layer's activation, None for linear; LookupError (which the
    mappings report as an ExportError) for a function that is not a built-in."""
    fn = getattr(layer, "activation", None)
    if fn is None:
        return None
    name = getattr(layer, "_activation_name", None)
    if isinstance(name, str) and ACTIVATIONS.get(name.lower()) is fn:
        return name.lower()
    for key, builtin in ACTIVATIONS.items():
        if builtin is fn:
            return key
    raise LookupError(f"{layer.name}: its activation {name or fn!r} is not a built-in "
                      "activation; ONNX export maps only the built-in ones "
                      f"({', '.join(sorted(ONNX_ACTIVATIONS))})")


def apply_activation(c, layer, x, layout_rank=None):
    """The layer's activation applied to ONNX value `x`. `layout_rank`: the rank when `x`
    holds a channels-last value in channels-first form (softmax's axis moves)."""
    try:
        name = activation_name(layer)
    except LookupError as e:
        c.fail(str(e))
    if name is None:
        return x
    mapping = ONNX_ACTIVATIONS.get(name)
    if mapping is None:
        c.fail(f"layer {layer.name!r}: activation {name!r} has no ONNX mapping")
    axis = -1 if layout_rank is None else cf_axis(-1, layout_rank)
    return mapping(c, x, f"{layer.name}/{name}", axis)


@maps(Activation)
def activation(c, layer, ins, outs, kwargs):
    t = c.tensor(ins[0])
    rank = t.rank if t.layout == "cf" and t.rank >= 3 else None
    c.set(outs[0], apply_activation(c, layer, t.name, rank), t.layout)
