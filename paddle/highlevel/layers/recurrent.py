"""Recurrent layers: SimpleRNN, LSTM, GRU (batch-major sequences) and Bidirectional.

LSTM and GRU are the fused low-level ops `pd.lstm` / `pd.gru` on Keras-layout weights;
SimpleRNN is unrolled from matmul and its activation over a known number of steps (with
tanh and an unknown number, it runs as the gru op with its gates held open).
A layer called with `initial_state=[...]` takes the states as extra inputs, so a functional
model that holds it can be called again on new Variables.

Example:
    >>> import paddle as pd
    >>> x = pd.layers.Input(shape=(5, 3))
    >>> pd.layers.SimpleRNN(4, return_sequences=True)(x).shape
    (None, 5, 4)
"""
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.graph import Variable, constant
from paddle.lowlevel.ops.math import cast, zeros_like
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.recurrent import gru, lstm
from paddle.lowlevel.ops.shape import concat, expand_dims, reverse, stack
from paddle.lowlevel.ops.state import assign
from paddle.random import keep_mask
from paddle.highlevel.layers import state_updates
from paddle.lowlevel import eager
from paddle.highlevel.layers.base import Layer, check_flag
from paddle.highlevel.layers.conv import check_positive
from paddle.highlevel.layers.core import get_activation, serialize_activation
from paddle.highlevel.layers.regularization import seeds
from paddle.highlevel.saving.serialization import keras_layer_config


# ---- the base of the recurrent layers -------------------------------------------------

class BaseRNN(Layer):
    """Shared by SimpleRNN, LSTM and GRU: arguments, input checks, state inputs, outputs.

    Arguments every recurrent layer takes besides its own (as Keras):
        dropout: fraction of the input features dropped in training, one mask per
            sequence (the same features at every step).
        recurrent_dropout: fraction of the previous state dropped in the recurrent product
            in training, one mask per sequence.
        seed: makes the dropout masks reproducible (else `pd.seed` does).
        unroll: accepted for Keras compatibility and changes nothing: LSTM and GRU run
            as one fused C++ kernel over the sequence, SimpleRNN is always unrolled.
        zero_output_for_mask: with return_sequences, output zeros at masked steps instead
            of repeating the last output (Bidirectional sets it, as Keras does).

    A mask (batch, timesteps), from `Embedding(mask_zero=True)`, `Masking` or `mask=`,
    makes masked steps keep (and output) the previous state, so padding before or after a
    sequence changes nothing; the timesteps may be unknown (`Input(shape=(None, f))`),
    go_backwards and Bidirectional included (SimpleRNN too, with its default tanh).

    Subclasses define `num_states`, `create_weights(features)` and
    `run(x, states, return_sequences)` -> (output, [final states]).
    """

    num_states = 1
    initializer_keys = ("kernel_initializer", "recurrent_initializer", "bias_initializer")
    supports_masking = True
    weight_constraints = {"kernel_constraint": "kernel",  # keyword arguments (base Layer)
                          "recurrent_constraint": "recurrent_kernel",
                          "bias_constraint": "bias"}
    weight_regularizers = {"kernel_regularizer": "kernel",  # keyword arguments (base Layer)
                           "recurrent_regularizer": "recurrent_kernel",
                           "bias_regularizer": "bias"}

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", return_sequences=False, return_state=False,
                 go_backwards=False, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 unroll=False, zero_output_for_mask=False, stateful=False, **kwargs):
        super().__init__(**kwargs)
        self.stateful = check_flag(stateful, "stateful", type(self).__name__)
        self.states = None
        set_recurrent_arguments(self, units, activation, use_bias, kernel_initializer,
                                recurrent_initializer, bias_initializer, dropout,
                                recurrent_dropout, seed)
        # paddle's fused kernels run the whole sequence in C++ either way: unroll changes
        # nothing but is accepted (and saved) as Keras's argument (as RNN's).
        set_sequence_arguments(self, return_sequences, return_state, go_backwards, unroll,
                               zero_output_for_mask)

    def __call__(self, inputs, training=None, initial_state=None, **kwargs):
        return super().__call__(with_states(inputs, initial_state), training=training,
                                **kwargs)

    def _split(self, inputs):
        """(x, states or None) from what the base passes on."""
        if not isinstance(inputs, (list, tuple)):
            return inputs, None
        x, states = inputs[0], list(inputs[1:])
        if len(states) != self.num_states:
            raise ValueError(at_user(f"{self.name}: expected {self.num_states} initial "
                                     f"state(s), received {len(states)}"))
        want = self.state_shape(x.shape)
        for s in states:
            if tuple(s.shape[1:]) != want:
                raise ShapeError(at_user(f"{self.name}: expected initial states of shape "
                                         f"(batch, {', '.join(map(str, want))}), received "
                                         f"{s.shape}"))
        return x, states

    def state_shape(self, input_shape):
        """A state's shape without its batch axis."""
        return (self.units,)

    def build(self, input_shape):
        shape = input_shape[0] if isinstance(input_shape, list) else input_shape
        self.check_sequence(shape)
        self.create_weights(shape[-1])
        if self.stateful:
            self.create_states(shape)

    def create_states(self, shape):
        """The states kept between batches (stateful=True): Variables of the batch size,
        zeros until the first batch, not weights (not trained, not saved), as Keras's."""
        if shape[0] is None:
            raise ValueError(at_user(
                f"{self.name}: when using `stateful=True` in a RNN, the batch size must be "
                f"static. Found dynamic batch size: sequence.shape={tuple(shape)} (give the "
                f"input a batch size: pd.Input(batch_shape=...) or batch_size=)"))
        self.states = []
        for i in range(self.num_states):
            state = Variable(f"{self.name}/rnn_state_{i}", (shape[0],) + self.state_shape(shape),
                             self.dtype, "zeros", trainable=False)
            state._layer_state = True
            self.states.append(state)

    def reset_states(self):
        """Zero the states a stateful layer keeps between batches (Keras's alias of
        `reset_state`)."""
        self.reset_state()

    def reset_state(self):
        """Zero the states a stateful layer keeps between batches."""
        for state in self.states or []:
            state.set_value(np.zeros(state.shape, state.dtype))

    def _stateful_start(self, x):
        """The kept states as the initial states of this call, once its batch fits them."""
        expected = self.states[0].shape[0]
        if x.shape[0] is not None and x.shape[0] != expected:
            raise ValueError(at_user(
                f"{self.name}: if an RNN is stateful, the batch size of the input sequences "
                f"must be the same as the batch size of the initial state. Expected batch "
                f"size: {expected}, received batch size: {x.shape[0]}"))
        return list(self.states)

    def check_sequence(self, shape):
        """The input contract, checked on every call. (Not an InputSpec: the base would
        hold the states of a call with initial_state to it as well.)"""
        features = self.kernel.shape[0] if self.built else None
        if len(shape) != 3 or shape[-1] is None or (features and shape[-1] != features):
            want = "features" if features is None else features
            raise ShapeError(at_user(f"{self.name}: expected an input of shape (batch, "
                                     f"timesteps, {want}), received {shape}"))

    def call(self, inputs, training=None, mask=None):
        x, states = self._split(inputs)
        self.check_sequence(x.shape)
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        if mask is not None:
            mask = self.check_mask(mask, x)
        if self.go_backwards:
            x = reverse_time(x, self.name)
            mask = None if mask is None else reverse_time(mask, self.name)
        if self.dropout:  # one mask per sequence, the same at every step (as Keras)
            x = x * keep_mask(x, self.dropout, (None, 1) + (None,) * (x.ndim - 2),
                              self._seed_fn, training_only=True)
        rdrop = None
        if self.recurrent_dropout:
            rdrop = keep_mask(x[:, 0], self.recurrent_dropout,
                              (None,) + self.state_shape(x.shape), self._seed_fn,
                              training_only=True)
        if self.stateful and states is None:
            states = self._stateful_start(x)
        output, final = self.run(x, states, self.return_sequences, mask, rdrop)
        if mask is not None and self.return_sequences and self.zero_output_for_mask:
            keep = cast(mask, output.dtype)
            for _ in range(output.ndim - 2):
                keep = expand_dims(keep, -1)
            output = output * keep
        if self.stateful:  # the next batch starts where this one ended (Keras's assign)
            if all(eager.is_concrete(f) for f in final):  # an eager call: written now
                for state, value in zip(self.states, final):
                    state.assign(value)
            else:  # a graph: written by whatever computes the outputs
                state_updates.attach([output] + final,
                                     [assign(s, f) for s, f in zip(self.states, final)])
        return [output] + final if self.return_state else output

    def check_mask(self, mask, x):
        if not isinstance(mask, Variable):
            mask = constant(np.asarray(mask))
        if len(mask.shape) != 2 or any(a is not None and b is not None and a != b
                                       for a, b in zip(mask.shape, x.shape[:2])):
            raise ShapeError(at_user(f"{self.name}: expected a mask of shape (batch, "
                                     f"timesteps) = {x.shape[:2]}, received {mask.shape}"))
        return mask

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        output = mask if self.return_sequences else None
        return [output] + [None] * self.num_states if self.return_state else output

    def get_config(self):
        config = {**super().get_config(), "units": self.units,
                  "activation": self._activation_name, "use_bias": self.use_bias,
                  "return_sequences": self.return_sequences, "return_state": self.return_state,
                  "go_backwards": self.go_backwards, "dropout": self.dropout,
                  "recurrent_dropout": self.recurrent_dropout, "seed": self.seed,
                  "stateful": self.stateful, "unroll": self.unroll}
        for key in self.initializer_keys:
            config[key] = initializers.serialize(getattr(self, key))
        return config


def set_recurrent_arguments(layer, units, activation, use_bias, kernel_initializer,
                            recurrent_initializer, bias_initializer, dropout,
                            recurrent_dropout, seed):
    """The arguments that the recurrent layers and their cells share, checked and set on
    `layer` (Keras's names; the activation a function or None)."""
    cls = type(layer).__name__
    layer.units = check_positive(units, "units", cls)
    layer.activation = get_activation(activation)
    layer._activation_name = serialize_activation(activation)
    layer.use_bias = check_flag(use_bias, "use_bias", cls)
    layer.kernel_initializer = initializers.get(kernel_initializer)
    layer.recurrent_initializer = initializers.get(recurrent_initializer)
    layer.bias_initializer = initializers.get(bias_initializer)
    layer.dropout = _rate(dropout, "dropout", cls)
    layer.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout", cls)
    layer.seed, layer._seed_fn = seeds(seed, cls)


def set_sequence_arguments(layer, return_sequences, return_state, go_backwards, unroll,
                           zero_output_for_mask):
    """The flags that the recurrent layers and RNN share, checked and set on `layer`."""
    cls = type(layer).__name__
    layer.return_sequences = check_flag(return_sequences, "return_sequences", cls)
    layer.return_state = check_flag(return_state, "return_state", cls)
    layer.go_backwards = check_flag(go_backwards, "go_backwards", cls)
    layer.unroll = check_flag(unroll, "unroll", cls)
    layer.zero_output_for_mask = check_flag(zero_output_for_mask, "zero_output_for_mask",
                                            cls)


def with_states(inputs, initial_state):
    """A recurrent layer's inputs with its initial states as extra inputs ([x, *states]):
    the base Layer records inputs for functional-model replay, while Variables in keyword
    arguments would be replayed as they were."""
    if initial_state is None:
        return inputs
    states = list(initial_state) if isinstance(initial_state, (list, tuple)) \
        else [initial_state]
    return [inputs] + states


def _rate(value, name, cls):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0 <= value < 1:
        raise ValueError(f"{cls}: expected {name} as a rate in [0, 1), received {value!r}")
    return float(value)


def reverse_time(x, where=None):
    """x with its time axis (1) reversed, for any number of timesteps (known or not)."""
    return reverse(x, axis=1)


def check_implementation(value, cls):
    """Keras's `implementation` of LSTM and GRU (1: many small products, 2: fewer larger
    ones): the same numbers either way; paddle's fused kernel or op-composed cell runs
    both, so it is kept for the config and changes nothing."""
    if isinstance(value, bool) or value not in (1, 2):
        raise ValueError(f"{cls}: expected implementation 1 or 2, received {value!r}")
    return value


def zero_states(x, sizes):
    """Zero states (batch, size) for the batch of the sequence x, one per size."""
    zero = zeros_like(x[:, 0, :1])                                        # (batch, 1)
    return [zero * constant(np.zeros((1, s)), dtype=x.dtype) for s in sizes]


def unroll(step, x, states, mask=None, return_sequences=False, zero_output=False):
    """Run `step(x_t, states) -> (output, new_states)` over the (known) timesteps of x from
    ops: the loop of `RNN` and of the op-composed LSTM and GRU. A step whose mask is 0
    keeps the states and repeats the previous output (zeros before the first), or, with
    `zero_output`, outputs zeros in the sequence. Returns (output, final states)."""
    keep = None if mask is None else cast(mask, x.dtype)
    outputs, last = [], None
    for t in range(x.shape[1]):
        out, new = step(x[:, t], states)
        if keep is not None:
            k = _per_example(keep[:, t], out.ndim)
            new = [n * k + s * (1.0 - k) for n, s in zip(new, states)]
            previous = zeros_like(out) if last is None else last
            out = out * k + previous * (1.0 - k)
        states, last = new, out
        outputs.append(out * _per_example(keep[:, t], out.ndim)
                       if keep is not None and zero_output else out)
    return (stack(outputs, axis=1) if return_sequences else last), states


def _per_example(k, ndim):
    """A (batch,) step mask shaped to multiply a (batch, ...) value of rank ndim."""
    for _ in range(ndim - 1):
        k = expand_dims(k, -1)
    return k


def _apply(fn, z):
    return fn(z) if fn is not None else z


def lstm_step(x, h_in, c, kernel, recurrent_kernel, bias, units, activation, gate):
    """One LSTM step from ops, Keras's equations and gate order (i, f, c, o): x and h_in
    are the step's input and previous state as the products see them (dropped), c the
    previous cell state; activation / gate are functions or None (linear). -> (h, c)."""
    z = matmul(x, kernel) + matmul(h_in, recurrent_kernel)
    if bias is not None:
        z = z + bias
    u = units
    i, f = _apply(gate, z[:, :u]), _apply(gate, z[:, u:2 * u])
    c = f * c + i * _apply(activation, z[:, 2 * u:3 * u])
    return _apply(gate, z[:, 3 * u:]) * _apply(activation, c), c


def gru_step(x, h, h_in, kernel, recurrent_kernel, bias, units, activation, gate,
             reset_after):
    """One GRU step from ops, Keras's equations and gate order (z, r, h): h the previous
    state, h_in that state as the recurrent products see it (dropped). -> h."""
    u = units
    x = matmul(x, kernel)
    if reset_after:
        inner = matmul(h_in, recurrent_kernel)
        if bias is not None:
            x, inner = x + bias[0], inner + bias[1]
        z = _apply(gate, x[:, :u] + inner[:, :u])
        r = _apply(gate, x[:, u:2 * u] + inner[:, u:2 * u])
        hh = _apply(activation, x[:, 2 * u:] + r * inner[:, 2 * u:])
    else:
        if bias is not None:
            x = x + bias
        zr = matmul(h_in, recurrent_kernel[:, :2 * u])
        z = _apply(gate, x[:, :u] + zr[:, :u])
        r = _apply(gate, x[:, u:2 * u] + zr[:, u:])
        hh = _apply(activation, x[:, 2 * u:] + matmul(r * h_in, recurrent_kernel[:, 2 * u:]))
    return z * h + (1.0 - z) * hh


class SimpleRNN(BaseRNN):
    """Fully connected recurrence `h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel
    + bias)`.

    Built from matmul and the activation, unrolled over the timesteps; with an unknown
    number of timesteps (`Input(shape=(None, features))`) the default tanh recurrence runs
    as the fused `gru` op with its gates held open (`run_as_gru`), the same numbers.

    Args:
        units: size of the state and output.
        activation: name or callable (default "tanh").
        use_bias: add a bias.
        kernel_initializer, recurrent_initializer, bias_initializer: names or objects
            (Keras defaults: "glorot_uniform", "orthogonal", "zeros").
        return_sequences: output every step (batch, timesteps, units), not only the last.
        return_state: also return the final state: [output, h].
        go_backwards: process the sequence in reverse.
        stateful: keep the final states of each batch as the initial states of the next
            (sample i of a batch continues sample i of the previous one); the batch size
            must be fixed (`pd.Input(batch_shape=...)`); `reset_states()` zeros them.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.SimpleRNN(3)(np.ones((2, 4, 5), np.float32)).shape
        (2, 3)
    """

    def create_weights(self, features):
        self.kernel = self.add_weight("kernel", (features, self.units), self.kernel_initializer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", (self.units, self.units),
                                                self.recurrent_initializer)
        self.bias = self.add_weight("bias", (self.units,), self.bias_initializer) \
            if self.use_bias else None

    def run(self, x, states, return_sequences, mask=None, rdrop=None):
        steps = x.shape[1]
        if steps is None and self.activation is get_activation("tanh"):
            return self.run_as_gru(x, states, return_sequences, mask, rdrop)
        if steps is None:
            raise ShapeError(at_user(
                f"{self.name}: SimpleRNN with activation {self._activation_name!r} is "
                f"unrolled and needs a known number of timesteps (with 'tanh' any number "
                f"works), received shape {x.shape}"))
        if steps == 0:
            raise ShapeError(at_user(f"{self.name}: expected at least one timestep, received "
                                     f"shape {x.shape}"))
        # The input projection of every step in one product; only h @ U is sequential.
        projected = matmul(x, self.kernel)
        if self.bias is not None:
            projected = projected + self.bias
        h = states[0] if states else None
        if h is None and mask is not None:  # masked first steps keep the zero state
            h = zeros_like(projected[:, 0])
        keep = None if mask is None else cast(mask, projected.dtype)
        outputs = []
        for t in range(steps):
            z = projected[:, t]
            if h is not None:  # a zero initial state contributes nothing: skip its product
                z = z + matmul(h if rdrop is None else h * rdrop, self.recurrent_kernel)
            new = self.activation(z) if self.activation is not None else z
            if keep is not None:  # a masked step keeps (and outputs) the previous state
                k = expand_dims(keep[:, t], -1)
                new = new * k + h * (1.0 - k)
            h = new
            outputs.append(h)
        output = stack(outputs, axis=1) if return_sequences else h
        return output, [h]


    def run_as_gru(self, x, states, return_sequences, mask=None, rdrop=None):
        """The tanh recurrence over any number of timesteps, exactly, by the fused `gru`
        op (a loop in its kernel, where unrolling needs the count): its update gate held
        at 0 and its reset gate at 1 by saturating biases (sigmoid(-1e4) is 0 and
        sigmoid(1e4) is 1 in float32 and float64, and their derivatives 0), its candidate
        `tanh(x @ kernel + bias + h @ recurrent_kernel)` being SimpleRNN's step; the gate
        columns of its weights are zeros. It costs three products where one would do."""
        u, dtype = self.units, self.kernel.dtype

        def zeros(*shape):
            return constant(np.zeros(shape), dtype=dtype)
        kernel = concat([zeros(self.kernel.shape[0], 2 * u), self.kernel], axis=1)
        recurrent = concat([zeros(u, 2 * u), self.recurrent_kernel], axis=1)
        gates = constant(np.concatenate([np.full(u, -_SATURATED), np.full(u, _SATURATED)]),
                         dtype=dtype)
        bias_in = concat([gates, self.bias if self.bias is not None else zeros(u)], axis=0)
        bias = stack([bias_in, zeros(3 * u)], axis=0)
        out, h = gru(x, kernel, recurrent, bias, initial_state=states or None,
                     return_sequences=return_sequences, return_state=True, reset_after=True,
                     mask=mask, recurrent_dropout_mask=rdrop)
        return out, [h]


_SATURATED = 1e4  # exp(1e4) overflows to inf in float32 and float64: the gates are exact


class _ForgetBias:
    """Keras's unit_forget_bias: the LSTM bias initializer with ones for the forget gate
    (gates i, f, c, o: the second quarter)."""

    def __init__(self, initializer, units):
        self.initializer, self.units = initializer, units

    def __call__(self, shape, dtype):
        u = self.units
        return np.concatenate([self.initializer((u,), dtype), np.ones(u, dtype),
                               self.initializer((2 * u,), dtype)])


class _GatedRNN(BaseRNN):
    """LSTM and GRU: the fused ops with Keras's default activations (tanh and sigmoid, the
    fused kernels' own); with any other activation or recurrent_activation, the same
    equations composed from ops (`lstm_step` / `gru_step`) and unrolled, which needs a
    known number of timesteps."""

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 implementation=2, **kwargs):
        super().__init__(units, activation=activation, **kwargs)
        cls = type(self).__name__
        self.recurrent_activation = get_activation(recurrent_activation)
        self._recurrent_activation_name = serialize_activation(recurrent_activation)
        self.implementation = check_implementation(implementation, cls)
        self.fused = self.activation is get_activation("tanh") and \
            self.recurrent_activation is get_activation("sigmoid")

    def run(self, x, states, return_sequences, mask=None, rdrop=None):
        if self.fused:
            return self.run_fused(x, states, return_sequences, mask, rdrop)
        if x.shape[1] is None or x.shape[1] == 0:
            raise ShapeError(at_user(
                f"{self.name}: {type(self).__name__} with activation "
                f"{self._activation_name!r} and recurrent_activation "
                f"{self._recurrent_activation_name!r} runs op by op (the fused kernel has "
                f"tanh and sigmoid only) over a known number of timesteps (>= 1), "
                f"received shape {x.shape}"))
        if not states:
            states = zero_states(x, [self.units] * self.num_states)
        return unroll(lambda x_t, s: self.step(x_t, s, rdrop), x, states, mask,
                      return_sequences)

    def create_weights(self, features):
        g, u = self.gates, self.units
        self.kernel = self.add_weight("kernel", (features, g * u), self.kernel_initializer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", (u, g * u),
                                                self.recurrent_initializer)
        self.bias = self.add_weight("bias", self.bias_shape(), self.bias_initializer_for_build())\
            if self.use_bias else None

    def bias_initializer_for_build(self):
        return self.bias_initializer

    def op_bias(self):
        """The bias the op reads: the weight, or zeros when use_bias=False."""
        if self.bias is not None:
            return self.bias
        return constant(np.zeros(self.bias_shape()), dtype=self.dtype)

    def get_config(self):
        return {**super().get_config(),
                "recurrent_activation": self._recurrent_activation_name}


class LSTM(_GatedRNN):
    """Long short-term memory (`pd.lstm`), Keras's equations, weights and gate order.

    Weights: kernel (features, 4 * units), recurrent_kernel (units, 4 * units), bias
    (4 * units,), gates in the order i, f, c, o.

    Args:
        units: size of the state and output.
        activation, recurrent_activation: names or callables (default "tanh" and
            "sigmoid": the fused kernel; any other runs the op-composed cell, unrolled
            over a known number of timesteps).
        use_bias: learn a bias (else zeros).
        kernel_initializer, recurrent_initializer, bias_initializer: names or objects
            (Keras defaults: "glorot_uniform", "orthogonal", "zeros").
        unit_forget_bias: initialize the forget gate's bias to ones (as Keras).
        return_sequences: output every step (batch, timesteps, units), not only the last.
        return_state: also return the final states: [output, h, c].
        go_backwards: process the sequence in reverse.

    Called with `initial_state=[h, c]` to start from given states.

    Example:
        >>> import numpy as np, paddle as pd
        >>> out, h, c = pd.layers.LSTM(4, return_state=True)(np.ones((2, 3, 5), np.float32))
        >>> out.shape, h.shape, c.shape
        ((2, 4), (2, 4), (2, 4))
    """

    gates, num_states = 4, 2

    def __init__(self, units, unit_forget_bias=True, **kwargs):
        super().__init__(units, **kwargs)
        self.unit_forget_bias = check_flag(unit_forget_bias, "unit_forget_bias", "LSTM")

    def bias_shape(self):
        return (4 * self.units,)

    def bias_initializer_for_build(self):
        if self.unit_forget_bias:
            return _ForgetBias(self.bias_initializer, self.units)
        return self.bias_initializer

    def step(self, x, states, rdrop=None):
        h, c = states
        h, c = lstm_step(x, h if rdrop is None else h * rdrop, c, self.kernel,
                         self.recurrent_kernel, self.bias, self.units, self.activation,
                         self.recurrent_activation)
        return h, [h, c]

    def run_fused(self, x, states, return_sequences, mask=None, rdrop=None):
        out, h, c = lstm(x, self.kernel, self.recurrent_kernel, self.op_bias(),
                         initial_state=states, return_sequences=return_sequences,
                         return_state=True, mask=mask, recurrent_dropout_mask=rdrop)
        return out, [h, c]

    def get_config(self):
        return {**super().get_config(), "unit_forget_bias": self.unit_forget_bias}


class GRU(_GatedRNN):
    """Gated recurrent unit (`pd.gru`), Keras's equations, weights and gate order (z, r, h).

    Weights: kernel (features, 3 * units), recurrent_kernel (units, 3 * units), bias
    (2, 3 * units) (input and recurrent biases) when reset_after, else (3 * units,).

    Args:
        units: size of the state and output.
        activation, recurrent_activation: as LSTM.
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
            return_sequences, go_backwards: as LSTM.
        return_state: also return the final state: [output, h].
        reset_after: apply the reset gate after the recurrent product (Keras's default).

    Called with `initial_state=h` (or [h]) to start from a given state.

    Example:
        >>> import paddle as pd
        >>> x = pd.layers.Input(shape=(7, 4))
        >>> gru = pd.layers.GRU(6, return_sequences=True)
        >>> gru(x).shape, gru.bias.shape
        ((None, 7, 6), (2, 18))
    """

    gates, num_states = 3, 1

    def __init__(self, units, reset_after=True, **kwargs):
        super().__init__(units, **kwargs)
        self.reset_after = check_flag(reset_after, "reset_after", "GRU")

    def bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def step(self, x, states, rdrop=None):
        h, = states
        h = gru_step(x, h, h if rdrop is None else h * rdrop, self.kernel,
                     self.recurrent_kernel, self.bias, self.units, self.activation,
                     self.recurrent_activation, self.reset_after)
        return h, [h]

    def run_fused(self, x, states, return_sequences, mask=None, rdrop=None):
        out, h = gru(x, self.kernel, self.recurrent_kernel, self.op_bias(),
                     initial_state=states, return_sequences=return_sequences,
                     return_state=True, reset_after=self.reset_after, mask=mask,
                     recurrent_dropout_mask=rdrop)
        return out, [h]

    def get_config(self):
        return {**super().get_config(), "reset_after": self.reset_after}


# ---- Bidirectional ----------------------------------------------------------------------

MERGE_MODES = ("concat", "sum", "mul", "ave", None)


class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy of it backwards, and merges the outputs.

    Both copies are made from the wrapped layer's config ("forward_<name>" and
    "backward_<name>", the latter with go_backwards flipped), so the wrapped layer itself
    stays unused, as in Keras. Weights: the forward layer's, then the backward layer's.

    Args:
        layer: a SimpleRNN, LSTM or GRU.
        merge_mode: "concat" (default), "sum", "mul", "ave", or None (a list of both).

    Example:
        >>> import paddle as pd
        >>> x = pd.layers.Input(shape=(6, 3))
        >>> pd.layers.Bidirectional(pd.layers.SimpleRNN(4, return_sequences=True))(x).shape
        (None, 6, 8)
    """

    def __init__(self, layer, merge_mode="concat", **kwargs):
        super().__init__(**kwargs)
        given = layer if isinstance(layer, dict) else None
        if isinstance(layer, dict):
            layer = _deserialize_rnn(layer)
        if not isinstance(layer, BaseRNN):
            raise TypeError(f"Bidirectional: expected a recurrent layer (SimpleRNN, LSTM, GRU), "
                            f"received {layer!r}")
        if merge_mode not in MERGE_MODES:
            raise ValueError(f"Bidirectional: expected merge_mode one of {MERGE_MODES}, "
                             f"received {merge_mode!r}")
        self.merge_mode = merge_mode
        config = layer.get_config()
        # Kept as given when rebuilt from a config: the layer made from it may have had to
        # take another name, and the config should round-trip unchanged.
        self._layer_config = given or {"class_name": type(layer).__name__, "config": config}
        cls, base_name = type(layer), layer.name
        self.forward_layer = cls.from_config({**config, "name": "forward_" + base_name})
        self.backward_layer = cls.from_config({**config, "name": "backward_" + base_name,
                                               "go_backwards": not layer.go_backwards})
        for inner in (self.forward_layer, self.backward_layer):  # as Keras 3
            inner.zero_output_for_mask = inner.return_sequences
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state

    def build(self, input_shape):
        for inner in (self.forward_layer, self.backward_layer):
            inner.build(input_shape)  # marks it built (and regularized), as any build

    supports_masking = True

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        output = mask if self.return_sequences else None
        outputs = [output, output] if self.merge_mode is None else [output]
        states = 2 * self.forward_layer.num_states if self.return_state else 0
        masks = outputs + [None] * states
        return masks if len(masks) > 1 else masks[0]

    def call(self, inputs, training=None, mask=None):
        # The copies' call() directly, not __call__: their outputs are parts of this layer,
        # not layer calls of a functional model of their own.
        fw = self.forward_layer.call(inputs, training=training, mask=mask)
        bw = self.backward_layer.call(inputs, training=training, mask=mask)
        fw, fw_states = (fw[0], fw[1:]) if self.return_state else (fw, [])
        bw, bw_states = (bw[0], bw[1:]) if self.return_state else (bw, [])
        if self.return_sequences:  # the backward copy outputs its steps last-first
            bw = reverse_time(bw, self.name)
        if self.merge_mode is None:
            merged = [fw, bw]
        elif self.merge_mode == "concat":
            merged = [concat([fw, bw], axis=-1)]
        elif self.merge_mode == "sum":
            merged = [fw + bw]
        elif self.merge_mode == "mul":
            merged = [fw * bw]
        else:
            merged = [(fw + bw) * 0.5]
        outputs = merged + fw_states + bw_states
        return outputs if len(outputs) > 1 else outputs[0]

    def get_config(self):
        return {**super().get_config(), "layer": self._layer_config,
                "merge_mode": self.merge_mode}


def _deserialize_rnn(config):
    classes = {cls.__name__: cls for cls in (SimpleRNN, LSTM, GRU)}
    name = config.get("class_name")
    if name not in classes:
        raise ValueError(f"Bidirectional: unknown recurrent layer class {name!r}; expected "
                         f"one of {sorted(classes)}")
    return classes[name].from_config(  # Keras 3's extra keys dropped
        keras_layer_config(classes[name], config["config"]))
