"""CPU kernels of lstm and gru and their gradients (csrc/nn/recurrent.cpp)."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.devices.cpu.table import kernel

LSTM, GRU, GRU_CLASSIC = 0, 1, 2


def cell_kind(node):
    """The C++ cell of an lstm or gru node (LSTM, GRU or GRU_CLASSIC; the CUDA kernels too)."""
    if node.op.name.startswith("lstm"):
        return LSTM
    return GRU if node.attrs["reset_after"] else GRU_CLASSIC


def _zero_state(x, units):
    """The zero initial state when none was given (made once per plan, never written)."""
    return np.zeros((x.shape[0], units), dtype=x.dtype)


def _extras(node, rest, x, units, kind):
    """(the initial states or zeros, the mask or an empty array, the recurrent dropout or
    an empty array) from the inputs after the weights (or, for the gradients, after the
    saved outputs and their gradients)."""
    count = 2 if kind == LSTM else 1
    rest = list(rest)
    none = np.empty(0, dtype=x.dtype)
    states = [rest.pop(0) for _ in range(count)] if node.attrs["has_state"] else \
        [_zero_state(x, units)] * count
    mask = rest.pop(0) if node.attrs.get("has_mask") else none
    rdrop = rest.pop(0) if node.attrs.get("has_rdrop") else none
    return states, mask, rdrop


@kernel("lstm", "gru")
def _rnn(node, ins, outs, ctx):
    x, w, r, b = ins[:4]
    kind, units = cell_kind(node), r.shape[0]
    states, mask, rdrop = _extras(node, ins[4:], x, units, kind)
    none = np.empty(0, dtype=x.dtype)
    if kind == LSTM:
        hs, cs, gates = outs
        h0, c0 = states
    else:
        (hs, gates), cs, (h0,), c0 = outs, none, states, none
    return partial(_C.rnn_forward, kind, x, w, r, b, h0, c0, hs, cs, gates, mask, rdrop)


@kernel("lstm_grad", "gru_grad")
def _rnn_grad(node, ins, outs, ctx):
    kind = cell_kind(node)
    none = np.empty(0, dtype=ins[0].dtype)
    if kind == LSTM:
        # dcs (an input only when a gradient reaches the cell states) or an empty array.
        x, w, r, hs, cs, gates, dhs = ins[:7]
        has_dcs = node.attrs.get("has_dcs", True)
        dcs = ins[7] if has_dcs else none
        rest = ins[8:] if has_dcs else ins[7:]
        dx, dw, dr, db, dh0, dc0 = outs
    else:
        x, w, r, hs, gates, dhs = ins[:6]
        rest = ins[6:]
        dx, dw, dr, db, dh0 = outs
        cs = dcs = dc0 = none
    states, mask, rdrop = _extras(node, rest, x, r.shape[0], kind)
    h0, c0 = (states[0], states[1]) if kind == LSTM else (states[0], none)
    return partial(_C.rnn_backward, kind, x, w, r, h0, c0, hs, cs, gates, dhs, dcs, dx, dw, dr,
                   db, dh0, dc0, mask, rdrop)
