"""CPU kernels of lstm and gru and their gradients (csrc/nn/recurrent.cpp)."""
from functools import partial

import numpy as np

from paddle import _C
from paddle.backend.cpu import kernel

LSTM, GRU, GRU_CLASSIC = 0, 1, 2


def _kind(node):
    if node.op.name.startswith("lstm"):
        return LSTM
    return GRU if node.attrs["reset_after"] else GRU_CLASSIC


def _zero_state(x, units):
    """The zero initial state when none was given (made once per plan, never written)."""
    return np.zeros((x.shape[0], units), dtype=x.dtype)


@kernel("lstm", "gru")
def _rnn(node, ins, outs, ctx):
    x, w, r, b = ins[:4]
    kind, units = _kind(node), r.shape[0]
    states = ins[4:] if node.attrs["has_state"] else \
        [_zero_state(x, units)] * (2 if kind == LSTM else 1)
    none = np.empty(0, dtype=x.dtype)
    if kind == LSTM:
        hs, cs, gates = outs
        h0, c0 = states
    else:
        (hs, gates), cs, (h0,), c0 = outs, none, states, none
    return partial(_C.rnn_forward, kind, x, w, r, b, h0, c0, hs, cs, gates)


@kernel("lstm_grad", "gru_grad")
def _rnn_grad(node, ins, outs, ctx):
    kind = _kind(node)
    none = np.empty(0, dtype=ins[0].dtype)
    if kind == LSTM:
        x, w, r, hs, cs, gates, dhs, dcs = ins[:8]
        states = ins[8:]
        dx, dw, dr, db, dh0, dc0 = outs
    else:
        x, w, r, hs, gates, dhs = ins[:6]
        states = ins[6:]
        dx, dw, dr, db, dh0 = outs
        cs = dcs = dc0 = none
    units = r.shape[0]
    if not node.attrs["has_state"]:
        states = [_zero_state(x, units)] * (2 if kind == LSTM else 1)
    h0, c0 = (states[0], states[1]) if kind == LSTM else (states[0], none)
    return partial(_C.rnn_backward, kind, x, w, r, h0, c0, hs, cs, gates, dhs, dcs, dx, dw, dr,
                   db, dh0, dc0)
