"""Bad input to layers, models and the training loop, found by tools/fuzz_inputs.py: each
case is a clear Python exception naming the layer or argument (or a correct result), never
a crash or silent garbage."""
import numpy as np
import pytest

import paddle as pd


# ---- layer constructors -------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: pd.layers.Dense(True), r"Dense: expected a positive integer units, received True"),
    (lambda: pd.layers.Conv2D(None, 3), r"Conv2D: expected a positive integer filters, "
                                        r"received None"),
    (lambda: pd.layers.Reshape((2.5,)), r"Reshape: expected target_shape as a tuple of sizes "
                                        r">= 1 \(one of them may be -1\), received \(2.5,\)"),
    (lambda: pd.layers.Reshape(None), r"Reshape: expected target_shape .* received None"),
    (lambda: pd.layers.Reshape((-1, -1)), r"Reshape: expected target_shape .* \(-1, -1\)"),
    (lambda: pd.layers.Reshape((0, 3)), r"Reshape: expected target_shape .* \(0, 3\)"),
    (lambda: pd.layers.Permute(None), r"Permute: dims must be a permutation"),
    (lambda: pd.layers.Permute((1.0, 2)), r"Permute: dims must be a permutation"),
])
def test_layer_constructor_arguments_are_checked(make, message):
    # Dense(True) made one unit and Permute((1.0, 2)) was accepted; Conv2D(None, 3) failed in
    # build inside int(), Reshape(None) / Reshape((2.5,)) in tuple() or at the first call.
    with pytest.raises(ValueError, match=rf"^{message}"):
        make()


def test_reshape_layer_keeps_examples_apart():
    # (None, 7) reshaped to (3, 2) per example cannot work, but the op only saw a multiple
    # of 7 values: a batch of 6 came out as 7 "examples" made of pieces of the 6.
    layer = pd.layers.Reshape((3, 2), name="per_example")
    with pytest.raises(pd.ShapeError, match=r"^per_example: cannot reshape each example of shape "
                                            r"\(7,\) \(7 values\) to \(3, 2\) \(6 values\)"):
        layer(pd.layers.Input(shape=(7,)))
    assert layer(np.arange(12, dtype=np.float32).reshape(2, 6)).shape == (2, 3, 2)
