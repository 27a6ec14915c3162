"""One-call layer test, after Keras' `run_layer_test`.

`run_layer_test(layer_cls, init_kwargs, input_shape, expected_output_shape, ...)` builds the
layer on `pd.layers.Input`, checks the symbolic output shape and the weight counts, the
`from_config(get_config())` round trip, an eager call on NumPy data, and (optionally) one
training step of `pd.Model(inp, out)` compiled with SGD and MSE.

Example:
    >>> run_layer_test(pd.layers.Dense, {"units": 3}, (2, 4), (None, 3), 2)
"""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from paddle.lowlevel.eager import EagerTensor

def _as_list(x, is_list):
    return list(x) if is_list else [x]


def _random(rng, shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 4, size=shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def _with_batch(shape, batch):
    return tuple(batch if d is None else d for d in shape)


def run_layer_test(layer_cls, init_kwargs, input_shape, expected_output_shape,
                   expected_num_trainable_weights, expected_num_non_trainable_weights=0,
                   input_dtype="float32", input_data=None, run_training_step=True,
                   call_kwargs=None, batch_size=2):
    """Check a layer class end to end; returns the layer built on the symbolic inputs.

    Args:
        layer_cls: the layer class.
        init_kwargs: constructor arguments.
        input_shape: the full input shape with the batch axis (None or an int: the batch
            size of the symbolic Input is None either way), or a list of them.
        expected_output_shape: the symbolic output shape (batch None), or a list of them.
        expected_num_trainable_weights, expected_num_non_trainable_weights: weight counts.
        input_dtype: dtype of the inputs ('int64' for ids).
        input_data: NumPy input(s) for the eager call and the training step (random data
            of `input_shape` with `batch_size` rows when None).
        run_training_step: fit one batch and check the trainable weights moved.
        call_kwargs: extra keyword arguments of the call.
    """
    call_kwargs = call_kwargs or {}
    # Same weights and data whatever ran before: a test passes or fails alone as in a suite.
    pd.seed(1234)
    rng = np.random.default_rng(1234)
    multi_in = isinstance(input_shape, list)
    shapes = _as_list(input_shape, multi_in)
    dtypes = input_dtype if isinstance(input_dtype, list) else [input_dtype] * len(shapes)

    # Symbolic call: output shapes and weights.
    layer = layer_cls(**init_kwargs)
    inputs = [layers.Input(shape=tuple(s[1:]), dtype=d) for s, d in zip(shapes, dtypes)]
    out = layer(inputs if multi_in else inputs[0], **call_kwargs)
    multi_out = isinstance(out, (list, tuple))
    outs = _as_list(out, multi_out)
    expected = _as_list(expected_output_shape, multi_out)
    assert [o.shape for o in outs] == [tuple(e) for e in expected], \
        f"output shapes {[o.shape for o in outs]}, expected {expected}"
    assert len(layer.trainable_weights) == expected_num_trainable_weights, \
        f"{len(layer.trainable_weights)} trainable weights, expected " \
        f"{expected_num_trainable_weights}: {[w.name for w in layer.trainable_weights]}"
    assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights, \
        f"{len(layer.non_trainable_weights)} non-trainable weights, expected " \
        f"{expected_num_non_trainable_weights}"
    assert len(layer.weights) == len(layer.get_weights())

    # Config round trip: a layer made from the config has the same config (but its name).
    config = layer.get_config()
    clone = layer_cls.from_config(config)
    again = clone.get_config()
    config.pop("name"), again.pop("name")
    assert again == config, f"config round trip differs:\n{config}\n{again}"

    # Eager call on NumPy arrays.
    if input_data is None:
        arrays = [_random(rng, _with_batch(s, batch_size), d) for s, d in zip(shapes, dtypes)]
    else:
        arrays = _as_list(input_data, multi_in)
    eager = layer(arrays if multi_in else arrays[0], **call_kwargs)
    eager_outs = _as_list(eager, multi_out)
    batch = arrays[0].shape[0]
    for got, e in zip(eager_outs, expected):
        assert isinstance(got, EagerTensor)  # spec 1b: a concrete tensor, not a NumPy array
        assert got.shape == _with_batch(tuple(e), batch), f"eager shape {got.shape}, expected {e}"

    if run_training_step and expected_num_trainable_weights:
        _training_step(rng, inputs, outs, arrays, layer, multi_in, multi_out)
    return layer


def _training_step(rng, inputs, outs, arrays, layer, multi_in, multi_out):
    model = pd.Model(inputs if multi_in else inputs[0], outs if multi_out else outs[0])
    model.compile(optimizer="sgd", loss="mse")
    batch = arrays[0].shape[0]
    targets = [rng.normal(size=_with_batch(o.shape, batch)).astype(np.float32) for o in outs]
    before = [w.val() for w in layer.trainable_weights]
    loss = model.train_on_batch(arrays if multi_in else arrays[0],
                                targets if multi_out else targets[0])
    first = np.ravel(np.asarray(loss, dtype=np.float64))[0]
    assert np.isfinite(first), f"training loss is not finite: {loss}"
    for w, old in zip(layer.trainable_weights, before):
        assert not np.array_equal(w.val(), old), f"{w.name} did not change in a training step"


def train_through(layer, input_shape, batch_size=4):
    """One training step of Input -> Dense -> layer -> Flatten -> Dense: the gradient must
    pass through a weightless layer (the first Dense's kernel changes) and the loss be
    finite. `input_shape` excludes the batch axis; the first Dense keeps its last axis."""
    pd.seed(1234)
    rng = np.random.default_rng(1234)
    inp = layers.Input(shape=input_shape)
    first = layers.Dense(input_shape[-1])
    out = layers.Dense(1)(layers.Flatten()(layer(first(inp))))
    model = pd.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    before = first.kernel.val()
    loss = model.train_on_batch(rng.normal(size=(batch_size,) + tuple(input_shape))
                                .astype(np.float32),
                                rng.normal(size=(batch_size, 1)).astype(np.float32))
    assert np.isfinite(loss), f"training loss is not finite: {loss}"
    assert not np.array_equal(first.kernel.val(), before), \
        f"no gradient reached the Dense before {layer.name}"
    return model


def check_figures(y, shape, first, total, squares, atol=1e-4, total_abs=1e-3,
                  squares_rel=None, squares_abs=None):
    """An output against the figures Keras gave for it: its shape (unless None), its first
    len(first) values (within atol), its sum (within total_abs) and its sum of squares
    (pytest.approx with squares_rel and squares_abs)."""
    if shape is not None:
        assert y.shape == shape
    np.testing.assert_allclose(y.reshape(-1)[:len(first)], first, atol=atol)
    assert float(y.sum()) == pytest.approx(total, abs=total_abs)
    assert float((y ** 2).sum()) == pytest.approx(squares, rel=squares_rel, abs=squares_abs)


def set_sine_weights(layer, step):
    """Weight i of n values: sin(step * arange(n) + i) / 2 (the Keras scripts that gave the
    expected figures set the same)."""
    layer.set_weights([(np.sin(np.arange(v.size) * step + i) * 0.5).reshape(v.shape)
                       .astype(np.float32) for i, v in enumerate(layer.get_weights())])
