"""Every built-in activation as ONNX nodes (`Activation` layers and layers' `activation=`).

The built-ins are `pd.activations`' functions (the names layers take) and the low-level
ones (`pd.relu` passed as a callable); anything else is the user's own function, which
ONNX export cannot read.
"""
import math

import numpy as np

from paddle.highlevel import activations as highlevel_activations
from paddle.lowlevel.layer_functions import ACTIVATIONS as LOWLEVEL
from paddle.highlevel.layers.activations import ReLU
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


def _mish(c, x, hint, axis):
    # x * tanh(softplus(x)) (ONNX's Mish op needs opset 18)
    return c.node("Mul", [x, c.node("Tanh", [c.node("Softplus", [x], hint)], hint)], hint)


def _relu6(c, x, hint, axis):
    return _clip(c, x, hint, 0.0, 6.0)


def _clip(c, x, hint, low, high):
    low, high = (c.const(np.asarray(v, c.dtype), f"{hint}/{n}") for v, n in
                 ((low, "min"), (high, "max")))
    return c.node("Clip", [x, low, high], hint)


def _scalar(c, value, hint):
    return c.const([value], hint, c.dtype)


def _sparse_plus(c, x, hint, axis):
    # (clip(x, -1, 1) + 1) ** 2 / 4 + relu(x - 1), as paddle computes it
    inner = c.node("Add", [_clip(c, x, hint, -1.0, 1.0), _scalar(c, 1.0, hint + "/one")], hint)
    square = c.node("Mul", [c.node("Mul", [inner, inner], hint), _scalar(c, 0.25, hint + "/q")],
                    hint)
    rest = c.node("Relu", [c.node("Sub", [x, _scalar(c, 1.0, hint + "/one")], hint)], hint)
    return c.node("Add", [square, rest], hint)


def _sparse_sigmoid(c, x, hint, axis):
    shifted = c.node("Add", [x, _scalar(c, 1.0, hint + "/one")], hint)
    return c.node("Mul", [_clip(c, shifted, hint, 0.0, 2.0), _scalar(c, 0.5, hint + "/half")],
                  hint)


def _squareplus(c, x, hint, axis):
    # (x + sqrt(x ** 2 + b)) / 2 with Keras's default b = 4 (the name takes no arguments)
    root = c.node("Sqrt", [c.node("Add", [c.node("Mul", [x, x], hint),
                                          _scalar(c, 4.0, hint + "/b")], hint)], hint)
    return c.node("Mul", [c.node("Add", [x, root], hint), _scalar(c, 0.5, hint + "/half")],
                  hint)


# glu and sparsemax have no mapping: export names them in its error.
ONNX_ACTIVATIONS = {
    "celu": lambda c, x, hint, axis: c.node("Celu", [x], hint, alpha=1.0),
    "hard_shrink": lambda c, x, hint, axis: c.node("Shrink", [x], hint, bias=0.0, lambd=0.5),
    "soft_shrink": lambda c, x, hint, axis: c.node("Shrink", [x], hint, bias=0.5, lambd=0.5),
    "hard_silu": lambda c, x, hint, axis: c.node("HardSwish", [x], hint),
    "hard_swish": lambda c, x, hint, axis: c.node("HardSwish", [x], hint),
    "hard_tanh": lambda c, x, hint, axis: _clip(c, x, hint, -1.0, 1.0),
    "log_sigmoid": lambda c, x, hint, axis: c.node(
        "Neg", [c.node("Softplus", [c.node("Neg", [x], hint)], hint)], hint),
    "sparse_plus": _sparse_plus,
    "sparse_sigmoid": _sparse_sigmoid,
    "squareplus": _squareplus,
    "tanh_shrink": lambda c, x, hint, axis: c.node("Sub", [x, c.node("Tanh", [x], hint)], hint),
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
    "selu": lambda c, x, hint, axis: c.node("Selu", [x], hint, alpha=1.67326324,
                                            gamma=1.05070098),
    "softsign": lambda c, x, hint, axis: c.node("Softsign", [x], hint),
    "hard_sigmoid": lambda c, x, hint, axis: c.node("HardSigmoid", [x], hint, alpha=1.0 / 6,
                                                    beta=0.5),
    "exponential": lambda c, x, hint, axis: c.node("Exp", [x], hint),
    "mish": _mish,
    "relu6": _relu6,
    "linear": lambda c, x, hint, axis: x,
}


def _builtins():
    """{function: name} of every built-in activation function."""
    found = {fn: name for name, fn in LOWLEVEL.items() if fn is not None}
    found.update({fn: name for name, fn in highlevel_activations.ALL.items()
                  if name != "swish"})
    return found


def activation_name(layer):
    """The built-in name of a layer's activation, None for linear; LookupError (which the
    mappings report as an ExportError) for a function that is not a built-in."""
    fn = getattr(layer, "activation", None)
    if fn is None:
        return None
    name = _builtins().get(fn)
    if name is not None:
        return name
    name = getattr(layer, "_activation_name", None)
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


@maps(ReLU)
def relu(c, layer, ins, outs, kwargs):
    """Relu; with max_value alone, Clip (ReLU6); with a negative slope or a threshold,
    Keras's rule: x where x >= threshold, else slope * (x - threshold), then at most
    max_value."""
    t = c.tensor(ins[0])
    dtype = getattr(ins[0], "dtype", "float32")

    def scalar(value, what):
        return c.const(np.asarray(value, dtype), f"{layer.name}/{what}")

    if layer.negative_slope or layer.threshold:
        threshold = scalar(layer.threshold, "threshold")
        below = c.node("Mul", [scalar(layer.negative_slope, "slope"),
                               c.node("Sub", [t.name, threshold], layer.name)], layer.name)
        y = c.node("Where", [c.node("GreaterOrEqual", [t.name, threshold], layer.name),
                             t.name, below], layer.name)
        if layer.max_value is not None:
            y = c.node("Min", [y, scalar(layer.max_value, "max")], layer.name)
    elif layer.max_value is not None:
        y = c.node("Clip", [t.name, scalar(0, "min"), scalar(layer.max_value, "max")],
                   layer.name)
    else:
        y = c.node("Relu", [t.name], layer.name)
    c.set(outs[0], y, t.layout)
