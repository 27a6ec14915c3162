"""Recurrent layers over whole sequences: lstm and gru (Keras weight layouts).

One op runs the whole sequence in C++ and outputs every hidden state (and, for the LSTM,
every cell state) plus the gate values the backward pass needs; one backward op computes
the gradients through time. Two optional inputs follow the initial states: a `mask`
(N, T) (a step whose mask is 0 keeps and outputs the previous state, as Keras's masked
recurrent layers) and a recurrent dropout multiplier (N, U) of the previous state in the
recurrent product. `return_sequences` and the final states are slices of those
outputs, so gradients reach the op through them. Second-order gradients through the
recurrence are not implemented.

Example:
    >>> import paddle as pd
    >>> x = pd.data("x", shape=[None, 20, 8])
    >>> k = pd.Variable("k", shape=[8, 64])
    >>> rk = pd.Variable("rk", shape=[16, 64])
    >>> b = pd.Variable("b", shape=[64])
    >>> pd.lstm(x, k, rk, b).shape, pd.lstm(x, k, rk, b, return_sequences=True).shape
    ((None, 16), (None, 20, 16))
"""
from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, apply, as_variable
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import cast, zeros_like
from paddle.lowlevel.ops.norm import keep_siblings
from paddle.lowlevel.shapes import located


def _same(a, b):
    return a is None or b is None or a == b


class RecurrentOp(Op):
    """Shape rule shared by lstm and gru: x (N, T, F) -> states (N, T, U)."""

    gates = None

    def split_extras(self, extras, has_state, has_mask, has_rdrop):
        """(states, mask, rdrop) from the inputs after the bias."""
        count = (2 if self.gates == 4 else 1) if has_state else 0
        states, rest = list(extras[:count]), list(extras[count:])
        mask = rest.pop(0) if has_mask else None
        rdrop = rest.pop(0) if has_rdrop else None
        return states, mask, rdrop

    def check_extras(self, x, mask, rdrop, u):
        for label, spec, want in (("mask", mask, (x[0][0], x[0][1])),
                                  ("recurrent dropout", rdrop, (x[0][0], u))):
            if spec is None:
                continue
            if spec[1] != x[1]:
                self.fail(f"expected the {label} as {x[1]}, received {spec[1]}", ("x", x[0]),
                          (label, spec[0]))
            if len(spec[0]) != 2 or not all(_same(a, b) for a, b in zip(spec[0], want)):
                self.fail(f"expected the {label} of shape {want}", ("x", x[0]),
                          (label, spec[0]))

    def check(self, x, kernel, recurrent, bias, states, bias_shape):
        operands = [("x", x[0]), ("kernel", kernel[0]), ("recurrent_kernel", recurrent[0]),
                    ("bias", bias[0])]
        for spec in (x, kernel, recurrent, bias, *states):
            if spec[1] not in FLOATS or spec[1] != x[1]:
                self.fail(f"expected float inputs of one dtype, received {spec[1]} and {x[1]}",
                          *operands)
        if len(x[0]) != 3:
            self.fail("expected a 3-D input (batch, time, features)", *operands)
        if x[0][1] == 0:
            self.fail("expected at least one time step", *operands)
        if len(recurrent[0]) != 2 or recurrent[0][0] is None:
            self.fail("expected a recurrent_kernel (units, gates * units)", *operands)
        u = recurrent[0][0]
        g = self.gates
        if recurrent[0] != (u, g * u):
            self.fail(f"expected recurrent_kernel of shape ({u}, {g * u})", *operands)
        if len(kernel[0]) != 2 or not _same(kernel[0][0], x[0][2]) or kernel[0][1] != g * u:
            self.fail(f"expected kernel of shape ({x[0][2]}, {g * u})", *operands)
        if bias[0] != bias_shape(u):
            self.fail(f"expected bias of shape {bias_shape(u)}", *operands)
        for k, (shape, _) in enumerate(states):
            if len(shape) != 2 or not _same(shape[0], x[0][0]) or shape[1] != u:
                self.fail(f"expected initial state {k} of shape ({x[0][0]}, {u})",
                          *operands, (f"initial_state[{k}]", shape))
        return x[0][0], x[0][1], u


@register
class Lstm(RecurrentOp):
    name = "lstm"
    gates = 4

    def infer(self, x, kernel, recurrent, bias, *extras, has_state, has_mask=False,
              has_rdrop=False):
        states, mask, rdrop = self.split_extras(extras, has_state, has_mask, has_rdrop)
        n, t, u = self.check(x, kernel, recurrent, bias, states, lambda u: (4 * u,))
        self.check_extras(x, mask, rdrop, u)
        return [((n, t, u), x[1]), ((n, t, u), x[1]), ((n, t, 4 * u), x[1])]

    def grad(self, node, g):
        x, w, r = node.inputs[:3]
        hs, cs, gates = node.outputs
        dhs = g[0] if g[0] is not None else zeros_like(hs)
        # No gradient reaches the cell states (the usual case: only h is used): the kernel
        # then reads no dcs at all, rather than a zero array of (N, T, U).
        dcs = [] if g[1] is None else [g[1]]
        outs = apply(OPS["lstm_grad"], [x, w, r, hs, cs, gates, dhs, *dcs, *node.inputs[4:]],
                     dict(node.attrs, has_dcs=bool(dcs)))
        return _input_grads(node, outs)


@register
class Gru(RecurrentOp):
    name = "gru"
    gates = 3

    def infer(self, x, kernel, recurrent, bias, *extras, has_state, reset_after,
              has_mask=False, has_rdrop=False):
        states, mask, rdrop = self.split_extras(extras, has_state, has_mask, has_rdrop)
        n, t, u = self.check(x, kernel, recurrent, bias, states,
                             lambda u: (2, 3 * u) if reset_after else (3 * u,))
        self.check_extras(x, mask, rdrop, u)
        return [((n, t, u), x[1]), ((n, t, 4 * u), x[1])]

    def grad(self, node, g):
        x, w, r = node.inputs[:3]
        hs, gates = node.outputs
        dhs = g[0] if g[0] is not None else zeros_like(hs)
        outs = apply(OPS["gru_grad"], [x, w, r, hs, gates, dhs, *node.inputs[4:]],
                     dict(node.attrs))
        return _input_grads(node, outs)


def _input_grads(node, outs):
    """One gradient per input of lstm/gru: the weights', the initial states' when given,
    none for the mask and the recurrent dropout (data, not parameters)."""
    a = node.attrs
    extras = [None] * (int(a.get("has_mask", False)) + int(a.get("has_rdrop", False)))
    return outs[:4] + (outs[4:] if a["has_state"] else []) + extras


class RecurrentGrad(Op):
    def grad(self, node, g):
        raise NotImplementedError(f"{self.name[:-5]}: second-order gradients through the "
                                  "recurrence are not implemented")


@register
class LstmGrad(RecurrentGrad):
    """dx, dkernel, drecurrent, dbias, dh0, dc0 of lstm from its saved states and gates;
    the gradient of the cell states (dcs) is an input only when `has_dcs`."""

    name = "lstm_grad"

    def infer(self, x, w, r, hs, cs, gates, dhs, *extras, has_state, has_dcs=True,
              has_mask=False, has_rdrop=False):
        state = ((x[0][0], r[0][0]), x[1])
        return [x, w, r, ((w[0][1],), x[1]), state, state]


@register
class GruGrad(RecurrentGrad):
    """dx, dkernel, drecurrent, dbias, dh0 of gru from its saved states and gates."""

    name = "gru_grad"

    def infer(self, x, w, r, hs, gates, dhs, *extras, has_state, reset_after, has_mask=False,
              has_rdrop=False):
        bias = (2, w[0][1]) if reset_after else (w[0][1],)
        return [x, w, r, (bias, x[1]), ((x[0][0], r[0][0]), x[1])]


def _states(initial_state, count, op, like):
    if initial_state is None:
        return []
    states = [initial_state] if count == 1 and not isinstance(initial_state, (list, tuple)) \
        else list(initial_state)
    if len(states) != count:
        with located():
            raise ShapeError(f"{op}: expected {count} initial state tensor(s) "
                             f"({'[h, c]' if count == 2 else 'h'}), received {len(states)}")
    return [as_variable(s, like=like, where=op) for s in states]


def _extras(x, mask, rdrop, op):
    """The optional mask and recurrent dropout inputs, as x's float dtype, and their flags."""
    extras = []
    for value in (mask, rdrop):
        if value is not None:
            value = as_variable(value, where=op)
            extras.append(value if value.dtype == x.dtype else cast(value, x.dtype))
    return extras, {"has_mask": mask is not None, "has_rdrop": rdrop is not None}


def _outputs(hs, finals, return_sequences, return_state):
    out = hs if return_sequences else hs[:, -1]
    return [out, *finals] if return_state else out


def lstm(x, kernel, recurrent_kernel, bias, initial_state=None, return_sequences=False,
         return_state=False, mask=None, recurrent_dropout_mask=None):
    """Long short-term memory over batch-major sequences, as Keras's LSTM (activations
    tanh and sigmoid, gates in the order i, f, c, o).

    Args:
        x: float Variable (N, T, F).
        kernel: (F, 4U); recurrent_kernel: (U, 4U); bias: (4U,).
        initial_state: None (zeros) or [h0, c0], each (N, U).
        return_sequences: return every step's output (N, T, U), else the last (N, U).
        return_state: also return the final h and c.
        mask: None, or (N, T) of 0 / 1 (bool or float): a step whose mask is 0 keeps the
            previous h and c and outputs the previous h (as Keras's masked LSTM).
        recurrent_dropout_mask: None, or (N, U) multiplying the previous h in the
            recurrent product only (Keras's recurrent_dropout).

    Returns:
        The output, or [output, h, c] with return_state.

    Raises:
        ShapeError: x is not 3-D, or weights/states that do not fit the layouts above.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.ones((2, 5, 3), np.float32))
        >>> k, rk, b = (pd.constant(np.zeros(s, np.float32)) for s in [(3, 8), (2, 8), (8,)])
        >>> out, h, c = pd.lstm(x, k, rk, b, return_state=True)
        >>> pd.eval(c).round(3).tolist()
        [[0.0, 0.0], [0.0, 0.0]]
    """
    x = as_variable(x, where="lstm")
    states = _states(initial_state, 2, "lstm", x)
    inputs = [x] + [as_variable(v, like=x, where="lstm")
                    for v in (kernel, recurrent_kernel, bias)] + states
    extras, attrs = _extras(x, mask, recurrent_dropout_mask, "lstm")
    hs, cs, gates = apply(OPS["lstm"], inputs + extras, dict(attrs, has_state=bool(states)))
    keep_siblings([hs, cs, gates])
    return _outputs(hs, [hs[:, -1], cs[:, -1]], return_sequences, return_state)


def gru(x, kernel, recurrent_kernel, bias, initial_state=None, return_sequences=False,
        return_state=False, reset_after=True, mask=None, recurrent_dropout_mask=None):
    """Gated recurrent unit over batch-major sequences, as Keras's GRU (gates z, r, h;
    h = z * h_prev + (1 - z) * h~).

    Args:
        x: float Variable (N, T, F).
        kernel: (F, 3U); recurrent_kernel: (U, 3U).
        bias: (2, 3U) (input and recurrent biases) when reset_after, else (3U,).
        initial_state: None (zeros) or h0 (N, U) (or [h0]).
        return_sequences: return every step's output (N, T, U), else the last (N, U).
        return_state: also return the final h.
        reset_after: apply the reset gate after the recurrent product (Keras's default and
            cuDNN's form) or before it.
        mask, recurrent_dropout_mask: as lstm's.

    Returns:
        The output, or [output, h] with return_state.

    Raises:
        ShapeError: x is not 3-D, or weights/states that do not fit the layouts above.

    Example:
        >>> import paddle as pd
        >>> x = pd.data("x", shape=[None, 7, 4])
        >>> k, rk = pd.Variable("gk", shape=[4, 30]), pd.Variable("grk", shape=[10, 30])
        >>> out = pd.gru(x, k, rk, pd.Variable("gb", shape=[2, 30]), return_sequences=True)
        >>> out.shape
        (None, 7, 10)
    """
    x = as_variable(x, where="gru")
    states = _states(initial_state, 1, "gru", x)
    inputs = [x] + [as_variable(v, like=x, where="gru")
                    for v in (kernel, recurrent_kernel, bias)] + states
    extras, attrs = _extras(x, mask, recurrent_dropout_mask, "gru")
    hs, gates = apply(OPS["gru"], inputs + extras, dict(attrs, has_state=bool(states),
                                                        reset_after=bool(reset_after)))
    keep_siblings([hs, gates])
    return _outputs(hs, [hs[:, -1]], return_sequences, return_state)
