"""Layer.stateless_call / Model.stateless_call: a call with given weight values, the layer's
own untouched (reference values from Keras 3.15 on the same model and data)."""
import numpy as np
import pytest

import paddle as pd

X = np.random.default_rng(0).random((4, 3)).astype(np.float32)
KERAS_TRAINING_OUT = [-0.34448790550231934, 0.7155613899230957, 0.8985471725463867,
                      0.7303798198699951]
KERAS_MOVING = [[0.012904620729386806] * 2, [0.9903413653373718] * 2]
KERAS_LOSS = 0.03398861363530159
KERAS_INFERENCE_OUT = [0.986687183380127, 1.185295820236206, 1.2195796966552734,
                       1.1880722045898438]


def _model():
    return pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(2, activity_regularizer="l2"),
                          pd.layers.BatchNormalization()])


def test_stateless_call_matches_keras_and_leaves_the_model_alone():
    model = _model()
    own = [v.val().copy() for v in model.weights]
    trainable = [np.full(v.shape, 0.5, np.float32) for v in model.trainable_variables]
    frozen = [v.val() for v in model.non_trainable_variables]
    out, moved, losses = model.stateless_call(trainable, frozen, X, training=True,
                                              return_losses=True)
    np.testing.assert_allclose(out[:, 0], KERAS_TRAINING_OUT, rtol=1e-5)
    np.testing.assert_allclose(moved, KERAS_MOVING, rtol=1e-5)
    assert [float(v) for v in losses] == pytest.approx([KERAS_LOSS], rel=1e-5)
    out, _ = model.stateless_call(trainable, frozen, X)
    np.testing.assert_allclose(out[:, 0], KERAS_INFERENCE_OUT, rtol=1e-5)
    for var, before in zip(model.weights, own):
        np.testing.assert_array_equal(var.val(), before)


def test_a_functional_loop_over_stateless_calls():
    """The values returned feed the next call, as a JAX-style training loop does."""
    model = _model()
    trainable = [v.val() for v in model.trainable_variables]
    frozen = [v.val() for v in model.non_trainable_variables]
    for _ in range(3):
        _, frozen = model.stateless_call(trainable, frozen, X, training=True)
    assert not np.allclose(frozen[0], 0.0)
    np.testing.assert_array_equal(model.non_trainable_variables[0].val(), 0.0)


def test_bad_input_says_what_was_expected():
    dense = pd.layers.Dense(2)
    dense(X)
    with pytest.raises(ValueError, match="expected 2 trainable values"):
        dense.stateless_call([np.ones((3, 2))], [], X)
    with pytest.raises(ValueError, match=r"expected a value of shape \(3, 2\)"):
        dense.stateless_call([np.ones((2, 2)), np.ones(2)], [], X)
    with pytest.raises(TypeError, match="expected NumPy inputs"):
        dense.stateless_call([np.ones((3, 2)), np.ones(2)], [], pd.Input(shape=(3,)))
