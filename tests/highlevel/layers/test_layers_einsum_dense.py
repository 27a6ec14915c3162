"""EinsumDense: outputs against Keras 3.15.1 (JAX backend; first outputs, sum and sum of
squares it printed for the same inputs and weights), weight shapes, the one-call layer test,
saving and the equations it refuses."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import layers
from layer_test import check_figures, run_layer_test, set_sine_weights

RNG = np.random.default_rng(4)
X3 = RNG.normal(size=(2, 5, 6)).astype(np.float32)
X4 = RNG.normal(size=(2, 5, 3, 4)).astype(np.float32)
X2 = X3[:, 0]


KERAS = {  # name: (layer, input, weight shapes, output shape, first four, sum, squares)
    "dense": (lambda: layers.EinsumDense("ab,bc->ac", output_shape=4, bias_axes="c",
                                         activation="relu"), X2, [(6, 4), (4,)], (2, 4),
              [0.27608, 0.00384, 0.0, 0.0], 0.3979, 0.0902),
    "sequence": (lambda: layers.EinsumDense("abc,cd->abd", output_shape=(None, 3),
                                            bias_axes="d"), X3, [(6, 3), (3,)], (2, 5, 3),
                 [-0.06091, 0.73797, 1.08921, 0.92465], 26.4593, 43.1057),
    "heads": (lambda: layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 4),
                                         bias_axes="de"), X3, [(6, 2, 4), (2, 4)],
              (2, 5, 2, 4), [0.34518, 0.41366, 0.23122, -0.09147], 0.5263, 26.8761),
    "merge_heads": (lambda: layers.EinsumDense("abcd,cde->abe", output_shape=(None, 6),
                                               bias_axes="e"), X4, [(3, 4, 6), (6,)],
                    (2, 5, 6), [0.04784, -0.70388, -1.02863, -0.72943], -1.3757, 92.5782),
    "permuted": (lambda: layers.EinsumDense("abc,cd->adb", output_shape=(3, 5),
                                            bias_axes="d"), X3, [(6, 3), (3, 1)], (2, 3, 5),
                 [-0.06091, 0.92465, 2.10219, 0.17991], 26.4593, 43.1057),
}


@pytest.mark.parametrize("name", KERAS)
def test_matches_keras(name):
    make, x, weights, shape, first, total, squares = KERAS[name]
    layer = make()
    layer(layers.Input(shape=x.shape[1:]))
    assert [w.shape for w in layer.weights] == weights
    set_sine_weights(layer, 0.8)
    check_figures(layer(x), shape, first, total, squares, squares_abs=1e-3)


@pytest.mark.parametrize("kwargs, shape, out, trainable", [
    ({"equation": "abc,cde->abde", "output_shape": (None, 2, 4), "bias_axes": "de"},
     (2, 5, 6), (None, 5, 2, 4), 2),
    ({"equation": "ab,bc->ac", "output_shape": 3}, (2, 4), (None, 3), 1),
])
def test_layer(kwargs, shape, out, trainable):
    run_layer_test(layers.EinsumDense, kwargs, shape, out, trainable)


def test_saving(tmp_path):
    model = pd.Sequential([layers.Input(shape=(5, 6)),
                           layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="e"),
                           layers.EinsumDense("abcd,cde->abe", (None, 4))])
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(pd.load_model(tmp_path / "m.keras").predict(X3, verbose=0),
                                  model.predict(X3, verbose=0))


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.EinsumDense("...b,bc->...c", 3), ValueError, "no '...'"),
    (lambda: layers.EinsumDense("abc,acd->abd", (None, 3)), ValueError,
     "kernel axis 'a' .* is both contracted and kept"),
    (lambda: layers.EinsumDense("abc,cd->ad", 3), ValueError, "input axis 'b' .* summed"),
    (lambda: layers.EinsumDense("ab,bc->ac", (3, 4)), ValueError,
     "EinsumDense: expected output_shape with 1 sizes"),
    (lambda: layers.EinsumDense("ab,bc->ac", 3, bias_axes="x"), ValueError,
     "expected bias_axes as letters of the output"),
    (lambda: layers.EinsumDense("ab,bc->ac", 3)(layers.Input(shape=(2, 4))), pd.ShapeError,
     "expected an input of rank 2"),
    (lambda: layers.EinsumDense("abc,cd->abd", (None, 3))(layers.Input(shape=(None, 4))),
     pd.ShapeError, "at most one of them may be unknown"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()
