"""pd.ops.nn (paddle/ops/nn.py): values against numbers computed once with real Keras
(keras_nn_reference.json, written by make_keras_nn_reference.py) and against NumPy,
gradients by central differences, dtypes and bad input. Every test runs on each device."""
import json
import math
import os

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

nn = pd.ops.nn
RNG = np.random.default_rng(0)
with open(os.path.join(os.path.dirname(__file__), "keras_nn_reference.json")) as f:
    KERAS = json.load(f)

X = np.linspace(-3.0, 3.0, 7)
Z = np.array([[1.0, 0.5, -1.0, 2.2], [0.1, 0.2, 0.3, 0.15], [-3.0, 4.0, 0.0, 3.9]])


def close(got, name, rtol=1e-12, atol=1e-13):
    np.testing.assert_allclose(np.asarray(got), np.asarray(KERAS[name]), rtol=rtol, atol=atol,
                               err_msg=name)


ACTIVATIONS = ["celu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_tanh", "log_sigmoid",
               "relu6", "selu", "softsign", "sparse_plus", "sparse_sigmoid", "squareplus",
               "tanh_shrink", "silu", "gelu", "soft_shrink", "elu", "leaky_relu", "softplus"]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activations_match_keras(name):
    x = pd.data("x", shape=[None], dtype="float64")
    out = getattr(nn, name)(x)
    assert out.dtype == "float64" and out.shape == (None,)
    close(pd.eval(out, {x: X}), name)
    assert getattr(nn, name)(pd.data("y", shape=[3], dtype="float32")).dtype == "float32"


def test_gelu_defaults_to_the_tanh_form_as_keras():
    close(pd.ops.gelu(X).numpy(), "gelu")
    close(nn.gelu(X, approximate=False).numpy(), "gelu_exact")
    close(nn.threshold(X, 0.5, -2.0).numpy(), "threshold")
    assert nn.swish is nn.silu and nn.hard_swish is nn.hard_silu


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradients(name):
    x = np.array([-2.7, -1.3, -0.2, 0.35, 0.8, 2.1, 4.0])  # away from every kink
    check_gradients(getattr(nn, name), [x])


def sparsemax_reference(z):
    # Martins and Astudillo (2016), Algorithm 1, on the last axis.
    s = -np.sort(-z, axis=-1)
    cumsum = np.cumsum(s, axis=-1)
    r = np.arange(1, z.shape[-1] + 1)
    k = np.sum(1 + r * s > cumsum, axis=-1, keepdims=True)
    tau = (np.take_along_axis(cumsum, k - 1, axis=-1) - 1) / k
    return np.maximum(z - tau, 0)


def test_sparsemax_glu_log_softmax():
    got = nn.sparsemax(Z).numpy()
    np.testing.assert_allclose(got, sparsemax_reference(Z), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(nn.sparsemax(Z, axis=0).numpy(), sparsemax_reference(Z.T).T,
                               rtol=1e-12, atol=1e-15)
    assert np.allclose(got.sum(-1), 1.0)
    # Keras 3.15.1 on JAX agrees where one class is kept (row 0); with more, its threshold
    # sums the cumulative sums over the support and its rows no longer sum to 1.
    np.testing.assert_allclose(got[0], KERAS["sparsemax"][0], rtol=1e-12)
    close(nn.glu(Z).numpy(), "glu")
    close(nn.log_softmax(Z, axis=(0, 1)).numpy(), "log_softmax_tuple")
    np.testing.assert_allclose(nn.softmax(Z, axis=None).numpy().sum(), 1.0, rtol=1e-14)
    check_gradients(nn.sparsemax, [np.array([[1.0, 0.5, -1.0, 2.2], [0.1, 0.25, 0.3, 0.15]])])
    check_gradients(nn.glu, [Z])
    check_gradients(lambda v: nn.log_softmax(v, axis=(0, 1)), [Z])


def test_normalizations_match_keras():
    # Keras's norm for orders other than 2 came back at float32 precision.
    close(nn.normalize(Z, order=1).numpy(), "normalize1", rtol=1e-7)
    close(nn.normalize(Z, axis=0).numpy(), "normalize2")
    close(nn.normalize(Z, order=3).numpy(), "normalize3", rtol=1e-7)
    gamma, beta = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, 0.0, 0.0, -1.0])
    # Keras on JAX computes these two (and attention's softmax) in float32 at best.
    close(nn.layer_normalization(Z, gamma=gamma, beta=beta).numpy(), "layer_norm", rtol=1e-6)
    close(nn.rms_normalization(Z, scale=gamma).numpy(), "rms_norm", rtol=1e-6)
    mean, variance = nn.moments(Z, axes=[1])
    np.testing.assert_allclose(mean.numpy(), KERAS["moments"][0], rtol=1e-12)
    np.testing.assert_allclose(variance.numpy(), KERAS["moments"][1], rtol=1e-12)
    m, v = nn.moments(Z, axes=1, keepdims=True)
    assert m.shape == (3, 1) and v.shape == (3, 1)
    close(nn.batch_normalization(Z, np.array([0.1, 0.2, 0.3, 0.4]), np.array([1.0, 2, 3, 4]),
                                 axis=-1, offset=np.array([1.0, 0, 0, 0]),
                                 scale=np.array([2.0, 2, 2, 2])).numpy(), "batch_norm")
    np.testing.assert_allclose(float(nn.psnr(Z, Z * 1.1, 4.0).numpy()), KERAS["psnr"],
                               rtol=1e-12)


def test_normalization_gradients():
    gamma = np.array([1.0, 2.0, 3.0, 4.0])
    check_gradients(lambda v, g: nn.layer_normalization(v, gamma=g), [Z, gamma])
    check_gradients(lambda v, g: nn.rms_normalization(v, scale=g), [Z, gamma])
    check_gradients(nn.normalize, [Z])
    check_gradients(lambda v: nn.normalize(v, order=3), [Z])
    check_gradients(lambda v: nn.moments(v, axes=[0, 1]), [Z])
    check_gradients(lambda v, m, s: nn.batch_normalization(v, m, s, axis=1),
                    [Z, np.array([0.1, 0.2, 0.3, 0.4]), np.array([1.0, 2.0, 3.0, 4.0])])


def test_layer_normalization_over_leading_axes():
    x = RNG.standard_normal((2, 3, 4))
    gamma = RNG.standard_normal((2, 3))
    got = nn.layer_normalization(x, gamma=gamma, axis=(0, 1), epsilon=1e-3).numpy()
    mean = x.mean(axis=(0, 1), keepdims=True)
    var = x.var(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(var + 1e-3) * gamma[:, :, None],
                               rtol=1e-12)


def test_losses_match_keras():
    p = np.abs(Z) / np.abs(Z).sum(-1, keepdims=True)
    t = np.eye(4)[[3, 0, 1]]
    close(nn.categorical_crossentropy(t, p).numpy(), "cce")
    close(nn.categorical_crossentropy(t, Z, from_logits=True).numpy(), "cce_logits")
    close(nn.sparse_categorical_crossentropy(np.array([3, 0, 1]), p).numpy(), "scce")
    close(nn.sparse_categorical_crossentropy(np.array([[3], [0], [1]]), Z,
                                             from_logits=True).numpy(), "scce_logits")
    bt = np.array([[0.0, 1.0, 0.3, 1.0]] * 3)
    close(nn.binary_crossentropy(bt, 1 / (1 + np.exp(-Z))).numpy(), "bce", rtol=1e-10)
    close(nn.binary_crossentropy(bt, Z, from_logits=True).numpy(), "bce_logits", rtol=1e-10)
    check_gradients(lambda v: nn.categorical_crossentropy(t, v, from_logits=True), [Z])
    check_gradients(lambda v: nn.sparse_categorical_crossentropy(np.array([3, 0, 1]), v), [p])
    check_gradients(lambda v: nn.binary_crossentropy(bt, v, from_logits=True), [Z])


def test_one_hot_and_multi_hot_match_keras():
    close(nn.multi_hot(np.array([[0, 2], [1, 1]]), num_classes=4).numpy(), "multi_hot")
    close(nn.one_hot(np.array([2, 5, 0]), 3, axis=0).numpy(), "one_hot_axis0")
    assert pd.ops.one_hot is nn.one_hot
    assert nn.multi_hot(np.array([1]), num_tokens=3, dtype="int32").numpy().tolist() == [0, 1, 0]


def attention_inputs():
    rng = np.random.default_rng(3)  # make_keras_nn_reference.py draws the same inputs
    q, k, v = (rng.standard_normal(s) for s in ((2, 3, 4, 5), (2, 6, 2, 5), (2, 6, 2, 5)))
    bias, mask = rng.standard_normal((1, 4, 3, 6)), rng.random((2, 1, 3, 6)) > 0.3
    k4, v4 = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 4, 5))
    return q, k, v, bias, mask, k4, v4


def test_dot_product_attention_matches_keras():
    q, k, v, bias, mask, k4, v4 = attention_inputs()
    close(nn.dot_product_attention(q, k, v, bias=bias, mask=mask).numpy(), "attn_gqa",
          rtol=1e-6, atol=1e-6)
    close(nn.dot_product_attention(q, k4, v4, is_causal=True, scale=0.3).numpy(),
          "attn_causal", rtol=1e-6, atol=1e-6)


def test_dot_product_attention_gradients_and_unknown_batch():
    q, k, v, bias, mask, k4, v4 = attention_inputs()
    check_gradients(lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True),
                    [q[:1], k4[:1], v4[:1]])
    check_gradients(lambda a, b, c: nn.dot_product_attention(a, b, c, mask=mask[:1]),
                    [q[:1], k[:1], v[:1]], unknown_batch=True)
    qd, kd, vd = (pd.data(n, shape=[None, 3, 4, 5], dtype="float64") for n in "qkv")
    out = nn.dot_product_attention(qd, kd, vd, is_causal=True)
    assert out.shape == (None, 3, 4, 5)
    np.testing.assert_allclose(pd.eval(out, {qd: q, kd: k4, vd: v4}),
                               nn.dot_product_attention(q, k4, v4, is_causal=True).numpy())


def test_depth_to_space_and_back_match_keras():
    img = np.arange(2 * 4 * 6 * 8, dtype="float64").reshape(2, 4, 6, 8)
    for fmt, suffix in (("channels_last", ""), ("channels_first", "_cf")):
        close(nn.depth_to_space(img, 2, data_format=fmt).numpy(), "depth_to_space" + suffix)
        close(nn.space_to_depth(img, 2, data_format=fmt).numpy(), "space_to_depth" + suffix)
        round_trip = nn.depth_to_space(nn.space_to_depth(img, 2, fmt), 2, fmt).numpy()
        np.testing.assert_array_equal(round_trip, img)
    x = pd.data("x", shape=[None, 4, 6, 8], dtype="float64")
    assert nn.depth_to_space(x, 2).shape == (None, 8, 12, 2)
    check_gradients(lambda v: nn.space_to_depth(v, 2), [RNG.standard_normal((1, 4, 2, 3))])
    with pytest.raises(ValueError, match=r"depth_to_space: expected channels divisible by "
                                         r"block_size\*\*2 = 9.*test_nn.py"):
        nn.depth_to_space(img, 3)
    with pytest.raises(ValueError, match=r"space_to_depth: expected `block_size` as an integer"):
        nn.space_to_depth(img, 0)


def test_bad_input_names_the_users_line():
    f = pd.data("f", shape=[2, 3])
    with pytest.raises(ValueError, match=r"glu: expected an even size along axis -1, received "
                                         r"shape \(2, 3\) \(at test_nn.py:\d+\)"):
        nn.glu(f)
    with pytest.raises(ValueError, match=r"dot_product_attention: expected 4-D.*test_nn.py"):
        nn.dot_product_attention(f, f, f)
    q = pd.data("q", shape=[1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"heads divisible.*test_nn.py"):
        nn.dot_product_attention(q, pd.data("k", shape=[1, 2, 2, 4]),
                                 pd.data("v", shape=[1, 2, 2, 4]))
    with pytest.raises(ValueError, match="flash_attention=True"):
        nn.dot_product_attention(q, q, q, flash_attention=True)
    with pytest.raises(ValueError, match=r"categorical_crossentropy: expected target and output "
                                         r"of one shape.*test_nn.py"):
        nn.categorical_crossentropy(pd.data("t", shape=[2, 4]), f)
    with pytest.raises(ValueError, match=r"sparse_categorical_crossentropy: expected target of "
                                         r"shape \(2,\)"):
        nn.sparse_categorical_crossentropy(np.array([1, 2, 0]), f)
    with pytest.raises(ValueError, match=r"batch_normalization: expected `mean` of shape \(3,\)"):
        nn.batch_normalization(f, np.zeros(2), np.ones(3), axis=-1)
    with pytest.raises(ValueError, match=r"normalize: expected `order` as an int >= 1"):
        nn.normalize(f, order=0)
    with pytest.raises(ValueError, match=r"one_hot: expected `num_classes`"):
        nn.one_hot(np.array([1]), 0)
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        nn.softmax(f, axis=(2,))
    with pytest.raises(TypeError, match=r"celu: expected alpha as a number"):
        nn.celu(f, alpha="one")
    with pytest.raises(ValueError, match=r"psnr: expected x1 and x2 of one shape"):
        nn.psnr(f, pd.data("g", shape=[3, 2]), 1.0)
    with pytest.raises(NotImplementedError, match="synchronized=True"):
        nn.moments(f, axes=[0], synchronized=True)


def test_integer_inputs_compute_as_float32():
    i = np.array([-2, 0, 3], np.int32)
    assert nn.relu(i).dtype == "int32" and nn.relu(i).numpy().tolist() == [0, 0, 3]
    out = nn.hard_sigmoid(i)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [1 / 6, 0.5, 1.0], rtol=1e-7)
    assert math.isclose(float(nn.softsign(np.array(1, np.int64)).numpy()), 0.5)


def test_every_keras_nn_name_but_the_convolution_family_is_present():
    # keras.ops.nn's names (Keras 3.15.1), less those of paddle/ops/convolutions.py's family
    # (conv*, *_pool, ctc_*, fold, unfold); polar is in paddle/ops/complex.py.
    names = ["batch_normalization", "binary_crossentropy", "categorical_crossentropy", "celu",
             "dot_product_attention", "elu", "gelu", "glu", "hard_shrink", "hard_sigmoid",
             "hard_silu", "hard_swish", "hard_tanh", "layer_normalization", "leaky_relu",
             "log_sigmoid", "log_softmax", "moments", "multi_hot", "normalize", "one_hot",
             "psnr", "relu", "relu6", "rms_normalization", "selu", "sigmoid", "silu",
             "soft_shrink", "softmax", "softplus", "softsign", "sparse_categorical_crossentropy",
             "sparse_plus", "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh_shrink",
             "threshold", "depth_to_space", "space_to_depth", "polar"]
    for name in names:
        assert callable(getattr(nn, name)) and name in nn.__all__, name
        assert getattr(pd.ops, name) is getattr(nn, name), name
