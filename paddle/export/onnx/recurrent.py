"""LSTM, GRU and SimpleRNN as ONNX's LSTM, GRU and RNN ops.

ONNX runs time-major sequences (steps, batch, features) with weights (gates * units,
features) per direction; Keras keeps them batch-major with kernels (features, gates *
units). LSTM gates are reordered from Keras's i, f, c, o to ONNX's i, o, f, c; GRU's z, r, h
order is the same in both, and Keras's reset_after is ONNX's linear_before_reset. Keras
puts one bias on the input side (GRU with reset_after: one per side); ONNX's B holds the
input and recurrent biases, so the missing one is zeros.
"""
import numpy as np

from paddle.highlevel.layers.recurrent import GRU, LSTM, Bidirectional, SimpleRNN
from paddle.export.onnx.activations import activation_name
from paddle.export.onnx.converter import KERAS, MAPPERS, maps

LSTM_TO_ONNX = (0, 3, 1, 2)  # Keras i, f, c, o -> ONNX i, o, f, c


def _gates(array, order, axis=-1):
    parts = np.split(array, len(order), axis=axis)
    return np.concatenate([parts[i] for i in order], axis=axis)


def _inputs(c, layer, ins):
    """The time-major input and the initial states (1, batch, units) as ONNX names."""
    x = c.get(ins[0], KERAS)
    if layer.go_backwards:  # Keras runs the reversed sequence forwards
        x = c.node("Slice", [x, c.ints([-1], "start"), c.ints([-(2 ** 62)], "end"),
                             c.ints([1], "axis"), c.ints([-1], "step")], layer.name)
    x = c.node("Transpose", [x], layer.name, perm=[1, 0, 2])
    states = [c.node("Unsqueeze", [c.get(s, KERAS), c.ints([0], "axis0")], layer.name)
              for s in ins[1:]]
    return x, states


def _outputs(c, layer, outs, y, finals):
    """Keras's outputs from ONNX's Y (steps, 1, batch, units) and final states."""
    axis0, axis1 = c.ints([0], "axis0"), c.ints([1], "axis1")
    last = [c.node("Squeeze", [s, axis0], layer.name) for s in finals]
    if layer.return_sequences:
        seq = c.node("Squeeze", [y, axis1], layer.name)
        c.set(outs[0], c.node("Transpose", [seq], layer.name, perm=[1, 0, 2]))
    else:
        c.set(outs[0], c.node("Identity", [last[0]], layer.name))
    if layer.return_state:
        for out, state in zip(outs[1:], last):
            c.set(out, state)


def _optional(states):
    """sequence_lens (left out: "") then the initial states, when there are any."""
    return [""] + states if states else []


def _weights(c, layer, order=None):
    kernel, recurrent = layer.kernel.val(), layer.recurrent_kernel.val()
    if order is not None:
        kernel, recurrent = _gates(kernel, order), _gates(recurrent, order)
    return (c.const(kernel.T[None], f"{layer.name}/W"),
            c.const(recurrent.T[None], f"{layer.name}/R"))


def _bias(c, layer, input_bias, recurrent_bias=None):
    recurrent_bias = np.zeros_like(input_bias) if recurrent_bias is None else recurrent_bias
    return c.const(np.concatenate([input_bias, recurrent_bias])[None], f"{layer.name}/B")


@maps(LSTM)
def lstm(c, layer, ins, outs, kwargs):
    x, states = _inputs(c, layer, ins)
    w, r = _weights(c, layer, LSTM_TO_ONNX)
    bias = layer.bias.val() if layer.bias is not None else \
        np.zeros(4 * layer.units, layer.dtype)
    args = [x, w, r, _bias(c, layer, _gates(bias, LSTM_TO_ONNX))] + _optional(states)
    y, h, cell = c.node("LSTM", args, layer.name, outputs=3, hidden_size=layer.units)
    _outputs(c, layer, outs, y, [h, cell])


@maps(GRU)
def gru(c, layer, ins, outs, kwargs):
    x, states = _inputs(c, layer, ins)
    w, r = _weights(c, layer)
    bias = layer.bias.val() if layer.bias is not None else \
        np.zeros(layer.bias_shape(), layer.dtype)
    b = _bias(c, layer, *bias) if layer.reset_after else _bias(c, layer, bias)
    args = [x, w, r, b] + _optional(states)
    y, h = c.node("GRU", args, layer.name, outputs=2, hidden_size=layer.units,
                  linear_before_reset=int(layer.reset_after))
    _outputs(c, layer, outs, y, [h])


ONNX_RNN_ACTIVATIONS = {"tanh": "Tanh", "relu": "Relu", "sigmoid": "Sigmoid"}


@maps(SimpleRNN)
def simple_rnn(c, layer, ins, outs, kwargs):
    try:
        name = activation_name(layer)
    except LookupError as e:
        c.fail(str(e))
    if name not in ONNX_RNN_ACTIVATIONS:
        c.fail(f"layer {layer.name!r}: ONNX's RNN op has no {name or 'linear'!r} activation "
               f"(it has {', '.join(ONNX_RNN_ACTIVATIONS)})")
    x, states = _inputs(c, layer, ins)
    w, r = _weights(c, layer)
    bias = layer.bias.val() if layer.bias is not None else np.zeros(layer.units, layer.dtype)
    args = [x, w, r, _bias(c, layer, bias)] + _optional(states)
    y, h = c.node("RNN", args, layer.name, outputs=2, hidden_size=layer.units,
                  activations=[ONNX_RNN_ACTIVATIONS[name]])
    _outputs(c, layer, outs, y, [h])


class _Part:
    """A stand-in for a Variable inside a layer (Bidirectional's two copies' outputs):
    what a mapping reads of its outputs is their rank."""

    def __init__(self, rank, name):
        self.shape, self.name = (None,) * rank, name


@maps(Bidirectional)
def bidirectional(c, layer, ins, outs, kwargs):
    """The two copies, each as its own recurrent op (the backward one over the reversed
    sequence, as the layer runs it), then the merge."""
    parts = []
    for inner in (layer.forward_layer, layer.backward_layer):
        n = 1 + (inner.num_states if layer.return_state else 0)
        made = [_Part(3 if layer.return_sequences and k == 0 else 2, f"{inner.name}:{k}")
                for k in range(n)]
        MAPPERS[type(inner)](c, inner, ins[:1], made, {})
        parts.append([c.get(v, KERAS) for v in made])
    (fw, *fw_states), (bw, *bw_states) = parts
    if layer.return_sequences:  # the backward copy outputs its steps last-first
        bw = c.node("Slice", [bw, c.ints([-1], "start"), c.ints([-(2 ** 62)], "end"),
                              c.ints([1], "axis"), c.ints([-1], "step")], layer.name)
    mode = layer.merge_mode
    if mode is None:
        merged = [fw, bw]
    elif mode == "concat":
        merged = [c.node("Concat", [fw, bw], layer.name, axis=-1)]
    elif mode == "sum":
        merged = [c.node("Add", [fw, bw], layer.name)]
    elif mode == "mul":
        merged = [c.node("Mul", [fw, bw], layer.name)]
    else:  # "ave"
        half = c.const(np.asarray([0.5], c.dtype), f"{layer.name}/half")
        merged = [c.node("Mul", [c.node("Add", [fw, bw], layer.name), half], layer.name)]
    for out, name in zip(outs, merged + fw_states + bw_states):
        c.set(out, name)
