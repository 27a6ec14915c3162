"""Every built-in activation as ONNX nodes (`Activation` layers and layers' `activation=`).

The built-ins are `pd.activations`' functions (the names layers take) and the low-level
ones (`pd.relu` passed as a callable); anything else is the user's own function, which
ONNX export cannot read.
"""
import math

import numpy as np

from paddle.highlevel import activations as highlevel_activations
from paddle.lowlevel.layers import ACTIVATIONS as LOWLEVEL
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
    low, high = (c.const(np.asarray(v, c.dtype), f"{hint}/{n}") for v, n in
                 ((0.0, "min"), (6.0, "max")))
    return c.node("Clip", [x, low, high], hint)


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
