"""Recurrent cells and the generic `RNN` layer that runs any cell over time, as Keras's.

A cell is a layer with a `state_size` (an int, or a list of ints for several states) whose
`call(inputs, states)` maps one step's (batch, features) input and the list of states to
`(output, new_states)`. `SimpleRNNCell`, `LSTMCell` and `GRUCell` hold their weights in
Keras's layout (kernel, recurrent_kernel, bias; gates i, f, c, o and z, r, h), so their
numbers match Keras's; `StackedRNNCells` chains cells. `RNN(cell)` unrolls the cell over
the timesteps (which must be known when the layer is built), from matmul and activations.

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.RNN(pd.layers.LSTMCell(4), return_sequences=True)
    >>> layer(np.ones((2, 5, 3), np.float32)).shape
    (2, 5, 4)
"""
import numbers


from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.graph import Variable
from paddle.lowlevel.ops.matmul import matmul
from paddle.random import keep_mask
from paddle.highlevel.layers.base import Layer, check_flag, passthrough
from paddle.highlevel.layers.core import get_activation, serialize_activation
from paddle.highlevel.layers.recurrent import _ForgetBias, check_implementation, gru_step, \
    lstm_step, reverse_time, set_recurrent_arguments, set_sequence_arguments, unroll, \
    with_states, zero_states
from paddle.highlevel.saving.serialization import deserialize_layer, serialize_keras_object


# ---- cells ----------------------------------------------------------------------------

_WEIGHT_ARGUMENTS = ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
                     "kernel_constraint", "recurrent_constraint", "bias_constraint")


def _weight_arguments(arguments):
    """The regularizer and constraint arguments, for the base Layer to apply."""
    return {key: arguments[key] for key in _WEIGHT_ARGUMENTS}


class _Cell(Layer):
    """What the built-in cells share: Keras's arguments, weights, dropout masks, config.

    Dropout masks are drawn once per sequence (the `RNN` resets them before each call),
    as Keras's cells draw them, and only in training runs.
    """

    gates = 1
    weight_regularizers = {"kernel_regularizer": "kernel",
                           "recurrent_regularizer": "recurrent_kernel",
                           "bias_regularizer": "bias"}
    weight_constraints = {"kernel_constraint": "kernel",
                          "recurrent_constraint": "recurrent_kernel",
                          "bias_constraint": "bias"}

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs, **_weight_arguments(locals()))
        set_recurrent_arguments(self, units, activation, use_bias, kernel_initializer,
                                recurrent_initializer, bias_initializer, dropout,
                                recurrent_dropout, seed)
        self.reset_dropout_mask()

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def build(self, input_shape):
        if len(input_shape) != 2 or input_shape[-1] is None:
            raise ShapeError(at_user(f"{self.name}: expected one step's input of shape "
                                     f"(batch, features), received {input_shape}"))
        g, u = self.gates, self.units
        self.kernel = self.add_weight("kernel", (input_shape[-1], g * u),
                                      self.kernel_initializer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", (u, g * u),
                                                self.recurrent_initializer)
        self.bias = self.add_weight("bias", self.bias_shape(), self.bias_init()) \
            if self.use_bias else None

    def bias_shape(self):
        return (self.gates * self.units,)

    def bias_init(self):
        return self.bias_initializer

    def reset_dropout_mask(self):
        """Forget this sequence's masks: the next step draws new ones."""
        self._masks = {}

    def _dropped(self, x, rate, key):
        """x times the sequence's dropout mask for `key` (drawn at the first step)."""
        if not rate:
            return x
        if key not in self._masks:
            self._masks[key] = keep_mask(x, rate, (None, x.shape[-1]), self._seed_fn,
                                         training_only=True)
        return x * self._masks[key]

    def _states(self, states, count):
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        if len(states) != count:
            raise ValueError(at_user(f"{self.name}: expected {count} state(s), received "
                                     f"{len(states)}"))
        return states

    def _act(self, z):
        return self.activation(z) if self.activation is not None else z

    def get_config(self):
        config = {**super().get_config(), "units": self.units,
                  "activation": self._activation_name, "use_bias": self.use_bias,
                  "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
                  "seed": self.seed}
        for key in ("kernel_initializer", "recurrent_initializer", "bias_initializer"):
            config[key] = initializers.serialize(getattr(self, key))
        return config


class SimpleRNNCell(_Cell):
    """One step of SimpleRNN: `h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)`;
    output and new state are h.

    Args:
        units: the size of the state.
        activation: name or callable (default "tanh").
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer: as SimpleRNN.
        dropout, recurrent_dropout: rates of the input / state masks (one per sequence,
            training only).
        seed: an int for the cell's own sequence of masks, or None.

    Example:
        >>> import paddle as pd
        >>> cell = pd.layers.SimpleRNNCell(3)
        >>> h = pd.layers.Input(shape=(3,))
        >>> out, states = cell(pd.layers.Input(shape=(5,)), [h])
        >>> out.shape, [w.shape for w in cell.weights]
        ((None, 3), [(5, 3), (3, 3), (3,)])
    """

    def call(self, inputs, states, training=False):
        h, = self._states(states, 1)
        z = matmul(self._dropped(inputs, self.dropout, "input"), self.kernel)
        if self.bias is not None:
            z = z + self.bias
        z = z + matmul(self._dropped(h, self.recurrent_dropout, "state"),
                       self.recurrent_kernel)
        out = self._act(z)
        return out, [out]


class LSTMCell(_Cell):
    """One step of LSTM, Keras's equations and gate order (i, f, c, o):
    `z = x @ kernel + h @ recurrent_kernel + bias`, `c = f * c_prev + i * tanh(z_c)`,
    `h = o * tanh(c)`; states [h, c].

    Args:
        units: the size of the states.
        activation, recurrent_activation: names or callables (default "tanh", "sigmoid").
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer: as LSTM.
        unit_forget_bias: initialize the forget gate's bias to ones (as Keras).
        dropout, recurrent_dropout: rates of the input / state masks (one per sequence).
        seed: an int for the cell's own sequence of masks, or None.

    Example:
        >>> import paddle as pd
        >>> cell = pd.layers.LSTMCell(4)
        >>> cell.state_size, pd.layers.RNN(cell)(pd.layers.Input(shape=(6, 2))).shape
        ([4, 4], (None, 4))
    """

    gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, implementation=2, **kwargs):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs,
                         **_weight_arguments(locals()))
        self.recurrent_activation = get_activation(recurrent_activation)
        self._recurrent_activation_name = serialize_activation(recurrent_activation)
        self.unit_forget_bias = check_flag(unit_forget_bias, "unit_forget_bias",
                                           type(self).__name__)
        self.implementation = check_implementation(implementation, type(self).__name__)

    @property
    def state_size(self):
        return [self.units, self.units]

    def bias_init(self):
        return _ForgetBias(self.bias_initializer, self.units) if self.unit_forget_bias \
            else self.bias_initializer

    def call(self, inputs, states, training=False):
        h, c = self._states(states, 2)
        h, c = lstm_step(self._dropped(inputs, self.dropout, "input"),
                         self._dropped(h, self.recurrent_dropout, "state"), c, self.kernel,
                         self.recurrent_kernel, self.bias, self.units, self.activation,
                         self.recurrent_activation)
        return h, [h, c]

    def get_config(self):
        return {**super().get_config(),
                "recurrent_activation": self._recurrent_activation_name,
                "unit_forget_bias": self.unit_forget_bias}


class GRUCell(_Cell):
    """One step of GRU, Keras's equations and gate order (z, r, h). With reset_after=True
    (the default) the bias is (2, 3 * units), input and recurrent, and the reset gate
    multiplies the recurrent candidate after its product; else the bias is (3 * units,)
    and the reset gate multiplies the state before it. `h = z * h_prev + (1 - z) * hh`.

    Args:
        units: the size of the state.
        activation, recurrent_activation: names or callables (default "tanh", "sigmoid").
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer: as GRU.
        reset_after: see above.
        dropout, recurrent_dropout: rates of the input / state masks (one per sequence).
        seed: an int for the cell's own sequence of masks, or None.

    Example:
        >>> import paddle as pd
        >>> cell = pd.layers.GRUCell(4)
        >>> _ = pd.layers.RNN(cell)(pd.layers.Input(shape=(6, 2)))
        >>> [w.shape for w in cell.weights]
        [(2, 12), (4, 12), (2, 12)]
    """

    gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 reset_after=True, seed=None, implementation=2, **kwargs):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs,
                         **_weight_arguments(locals()))
        self.recurrent_activation = get_activation(recurrent_activation)
        self._recurrent_activation_name = serialize_activation(recurrent_activation)
        self.reset_after = check_flag(reset_after, "reset_after", type(self).__name__)
        self.implementation = check_implementation(implementation, type(self).__name__)

    def bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def call(self, inputs, states, training=False):
        h, = self._states(states, 1)
        h = gru_step(self._dropped(inputs, self.dropout, "input"), h,
                     self._dropped(h, self.recurrent_dropout, "state"), self.kernel,
                     self.recurrent_kernel, self.bias, self.units, self.activation,
                     self.recurrent_activation, self.reset_after)
        return h, [h]

    def get_config(self):
        return {**super().get_config(),
                "recurrent_activation": self._recurrent_activation_name,
                "reset_after": self.reset_after}


def _sizes(cell):
    """A cell's state sizes as a flat list of ints; ValueError naming the cell otherwise."""
    size = getattr(cell, "state_size", None)
    sizes = size if isinstance(size, (list, tuple)) else [size]
    flat = []
    for s in sizes:
        flat.extend(s if isinstance(s, (list, tuple)) else [s])
    if not flat or any(not isinstance(s, numbers.Integral) or isinstance(s, bool) or s < 1
                       for s in flat):
        raise ValueError(f"RNN: expected the cell's state_size to be an int >= 1 or a list "
                         f"of them, received {size!r} from {getattr(cell, 'name', cell)!r}")
    return [int(s) for s in flat]


class StackedRNNCells(Layer):
    """Cells run one after another at each step, the output of one the input of the next:
    a deep RNN as one cell. Its states are those of its cells, in order (flat).

    Args:
        cells: a list of cells.

    Example:
        >>> import paddle as pd
        >>> cells = pd.layers.StackedRNNCells([pd.layers.LSTMCell(4), pd.layers.GRUCell(2)])
        >>> cells.state_size, pd.layers.RNN(cells)(pd.layers.Input(shape=(5, 3))).shape
        ([4, 4, 2], (None, 2))
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(cells, (list, tuple)) or not cells:
            raise ValueError(f"StackedRNNCells: expected a non-empty list of cells, received "
                             f"{cells!r}")
        cells = [_deserialize_cell(c) if isinstance(c, dict) else c for c in cells]
        for c in cells:
            _check_cell(c, "StackedRNNCells")
        self.cells = list(cells)

    @property
    def state_size(self):
        return [s for c in self.cells for s in _sizes(c)]

    @property
    def output_size(self):
        last = self.cells[-1]
        return getattr(last, "output_size", _sizes(last)[0])

    def reset_dropout_mask(self):
        for c in self.cells:
            if hasattr(c, "reset_dropout_mask"):
                c.reset_dropout_mask()

    def call(self, inputs, states, training=None):
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        new_states, start = [], 0
        for c in self.cells:
            n = len(_sizes(c))
            own = states[start:start + n]
            start += n
            inputs, own = c(inputs, own)
            new_states.extend(own if isinstance(own, (list, tuple)) else [own])
        return inputs, new_states

    def get_config(self):
        return {**super().get_config(),
                "cells": [serialize_keras_object(c) for c in self.cells]}


def _deserialize_cell(config):
    """A cell from its saved entry (paddle's or Keras 3's), custom cells found in the open
    custom_object_scope (load_model opens one with its custom_objects)."""
    return deserialize_layer(config, None)


def _check_cell(cell, where):
    if not isinstance(cell, Layer) or not hasattr(cell, "state_size"):
        raise TypeError(f"{where}: expected a cell (a layer with state_size and call(inputs, "
                        f"states)), received {cell!r}")
    _sizes(cell)


# ---- the generic recurrent layer -------------------------------------------------------

class RNN(Layer):
    """Runs a cell over the timesteps of a (batch, timesteps, features) input, Keras's
    `RNN(cell)`: any cell with `state_size` and `call(inputs, states) -> (output,
    new_states)`, a built-in cell, a user-defined one, or a list of cells (stacked).

    The loop is unrolled from the cell's ops, so the number of timesteps must be known
    when the layer is built. States start at zeros, or at `initial_state=[...]` given to
    the call. A mask (Embedding(mask_zero=True), Masking or `mask=`) makes masked steps
    keep the previous states and output, as Keras.

    Args:
        cell: a cell, or a list of cells (run as StackedRNNCells).
        return_sequences: output every step (batch, timesteps, output), not only the last.
        return_state: also return the final states: [output, *states] (the states of
            stacked cells flat, in order).
        go_backwards: process the sequence in reverse (the outputs come reversed too).
        stateful: False only (paddle keeps no state between batches).
        unroll: accepted for Keras compatibility (the loop is always unrolled).
        zero_output_for_mask: with return_sequences, zeros at masked steps instead of the
            previous output.

    Example:
        >>> import numpy as np, paddle as pd
        >>> class MinimalRNNCell(pd.layers.Layer):
        ...     def __init__(self, units, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.units = self.state_size = units
        ...     def build(self, input_shape):
        ...         self.kernel = self.add_weight(shape=(input_shape[-1], self.units))
        ...         self.recurrent = self.add_weight(shape=(self.units, self.units))
        ...     def call(self, inputs, states):
        ...         h = pd.matmul(inputs, self.kernel) + pd.matmul(states[0], self.recurrent)
        ...         return h, [h]
        >>> layer = pd.layers.RNN(MinimalRNNCell(3), return_state=True)
        >>> out, h = layer(np.ones((2, 4, 5), np.float32))
        >>> out.shape, bool(np.array_equal(out, h))
        ((2, 3), True)
    """

    supports_masking = True

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, dict):
            cell = _deserialize_cell(cell)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(list(cell))
        _check_cell(cell, "RNN")
        self.cell = cell
        set_sequence_arguments(self, return_sequences, return_state, go_backwards, unroll,
                               zero_output_for_mask)
        if check_flag(stateful, "stateful", "RNN"):
            raise ValueError("RNN: stateful=True is not supported (paddle keeps no state "
                             "between batches)")
        self.stateful = False

    @property
    def state_size(self):
        return self.cell.state_size

    def __call__(self, inputs, training=None, initial_state=None, **kwargs):
        return super().__call__(with_states(inputs, initial_state), training=training,
                                **kwargs)

    def build(self, input_shape):
        shape = input_shape[0] if isinstance(input_shape, list) else input_shape
        self._check_sequence(shape)

    def _check_sequence(self, shape):
        if len(shape) != 3 or shape[-1] is None:
            raise ShapeError(at_user(f"{self.name}: expected an input of shape (batch, "
                                     f"timesteps, features), received {shape}"))
        if shape[1] is None or shape[1] == 0:
            raise ShapeError(at_user(f"{self.name}: RNN is unrolled and needs a known number "
                                     f"of timesteps (>= 1), received shape {shape}"))

    def _initial_states(self, x, given):
        sizes = _sizes(self.cell)
        if given is None:
            return zero_states(x, sizes)
        if len(given) != len(sizes):
            raise ValueError(at_user(f"{self.name}: expected {len(sizes)} initial state(s), "
                                     f"received {len(given)}"))
        for s, size in zip(given, sizes):
            if tuple(s.shape[1:]) != (size,):
                raise ShapeError(at_user(f"{self.name}: expected initial states of shape "
                                         f"(batch, {size}), received {s.shape}"))
        return list(given)

    def _step(self, x_t, states):
        """The cell's (output, flat states) for one step."""
        out, new = self.cell(x_t, list(states))  # a list, whatever the state_size (Keras)
        new = list(new) if isinstance(new, (list, tuple)) else [new]
        if len(new) != len(states) or not all(isinstance(s, Variable) for s in new):
            raise ValueError(at_user(f"{self.name}: the cell {self.cell.name!r} returned "
                                     f"{len(new)} state(s) for a state_size of "
                                     f"{self.cell.state_size}; expected (output, "
                                     f"[{len(states)} states])"))
        return out, new

    def call(self, inputs, training=None, mask=None):
        x, given = (inputs[0], list(inputs[1:])) if isinstance(inputs, (list, tuple)) \
            else (inputs, None)
        self._check_sequence(x.shape)
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        if self.go_backwards:
            x = reverse_time(x)
            mask = None if mask is None else reverse_time(mask)
        states = self._initial_states(x, given or None)
        if hasattr(self.cell, "reset_dropout_mask"):
            self.cell.reset_dropout_mask()  # a new mask for each sequence, as Keras
        output, states = unroll(self._step, x, states, mask, self.return_sequences,
                                self.zero_output_for_mask)
        if not self.return_state:
            return output
        # A cell's output is often its state (h): each output of a layer is its own Variable.
        results = []
        for v in [output] + states:
            results.append(passthrough(v) if any(v is r for r in results) else v)
        return results

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        output = mask if self.return_sequences else None
        if self.return_state:
            return [output] + [None] * len(_sizes(self.cell))
        return output

    def get_config(self):
        return {**super().get_config(), "return_sequences": self.return_sequences,
                "return_state": self.return_state, "go_backwards": self.go_backwards,
                "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask,
                "cell": serialize_keras_object(self.cell)}
