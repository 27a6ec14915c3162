"""Writes keras_nn_reference.json: keras.ops.nn's outputs on fixed inputs, computed once with
real Keras 3.15.1 (JAX backend, float64), which tests/ops/test_nn.py compares paddle with.

    KERAS_BACKEND=jax JAX_ENABLE_X64=1 python tests/ops/make_keras_nn_reference.py
"""
import json
import os

import keras
import numpy as np
from keras import ops

nn = ops.nn
x = np.linspace(-3.0, 3.0, 7)
out = {}
for n in ["celu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_tanh", "log_sigmoid",
          "relu6", "selu", "softsign", "sparse_plus", "sparse_sigmoid", "squareplus",
          "tanh_shrink", "silu", "gelu", "soft_shrink", "elu", "leaky_relu", "softplus"]:
    out[n] = np.asarray(getattr(nn, n)(x)).tolist()
out["gelu_exact"] = np.asarray(nn.gelu(x, approximate=False)).tolist()
out["threshold"] = np.asarray(nn.threshold(x, 0.5, -2.0)).tolist()
z = np.array([[1.0, 0.5, -1.0, 2.2], [0.1, 0.2, 0.3, 0.15], [-3.0, 4.0, 0.0, 3.9]])
out["sparsemax"] = np.asarray(nn.sparsemax(z)).tolist()
out["sparsemax0"] = np.asarray(nn.sparsemax(z, axis=0)).tolist()
out["glu"] = np.asarray(nn.glu(z)).tolist()
out["log_softmax_tuple"] = np.asarray(nn.log_softmax(z, axis=(0, 1))).tolist()
out["normalize1"] = np.asarray(nn.normalize(z, order=1)).tolist()
out["normalize2"] = np.asarray(nn.normalize(z, axis=0)).tolist()
out["normalize3"] = np.asarray(nn.normalize(z, order=3)).tolist()
out["layer_norm"] = np.asarray(nn.layer_normalization(z, gamma=np.array([1., 2., 3., 4.]), beta=np.array([0.5, 0., 0., -1.]))).tolist()
out["rms_norm"] = np.asarray(nn.rms_normalization(z, scale=np.array([1., 2., 3., 4.]))).tolist()
m, v = nn.moments(z, axes=[1])
out["moments"] = [np.asarray(m).tolist(), np.asarray(v).tolist()]
out["batch_norm"] = np.asarray(nn.batch_normalization(z, np.array([0.1, 0.2, 0.3, 0.4]), np.array([1., 2., 3., 4.]), axis=-1, offset=np.array([1., 0, 0, 0]), scale=np.array([2., 2, 2, 2]))).tolist()
out["psnr"] = float(nn.psnr(z, z * 1.1, 4.0))
p = np.abs(z) / np.abs(z).sum(-1, keepdims=True)
t = np.eye(4)[[3, 0, 1]]
out["cce"] = np.asarray(nn.categorical_crossentropy(t, p)).tolist()
out["cce_logits"] = np.asarray(nn.categorical_crossentropy(t, z, from_logits=True)).tolist()
out["scce"] = np.asarray(nn.sparse_categorical_crossentropy(np.array([3, 0, 1]), p)).tolist()
out["scce_logits"] = np.asarray(nn.sparse_categorical_crossentropy(np.array([[3], [0], [1]]), z, from_logits=True)).tolist()
bt = np.array([[0.0, 1.0, 0.3, 1.0]] * 3)
sig = 1 / (1 + np.exp(-z))
out["bce"] = np.asarray(nn.binary_crossentropy(bt, sig)).tolist()
out["bce_logits"] = np.asarray(nn.binary_crossentropy(bt, z, from_logits=True)).tolist()
out["multi_hot"] = np.asarray(nn.multi_hot(np.array([[0, 2], [1, 1]]), num_classes=4)).tolist()
out["one_hot_axis0"] = np.asarray(nn.one_hot(np.array([2, 5, 0]), 3, axis=0)).tolist()
rng = np.random.default_rng(3)
q = rng.standard_normal((2, 3, 4, 5)); k = rng.standard_normal((2, 6, 2, 5)); v = rng.standard_normal((2, 6, 2, 5))
bias = rng.standard_normal((1, 4, 3, 6)); mask = rng.random((2, 1, 3, 6)) > 0.3
out["attn_gqa"] = np.asarray(nn.dot_product_attention(q, k, v, bias=bias, mask=mask)).tolist()
k4 = rng.standard_normal((2, 3, 4, 5)); v4 = rng.standard_normal((2, 3, 4, 5))
out["attn_causal"] = np.asarray(nn.dot_product_attention(q, k4, v4, is_causal=True, scale=0.3)).tolist()
img = np.arange(2 * 4 * 6 * 8, dtype="float64").reshape(2, 4, 6, 8)
out["depth_to_space"] = np.asarray(nn.depth_to_space(img, 2)).tolist()
out["depth_to_space_cf"] = np.asarray(nn.depth_to_space(img, 2, data_format="channels_first")).tolist()
out["space_to_depth"] = np.asarray(nn.space_to_depth(img, 2)).tolist()
out["space_to_depth_cf"] = np.asarray(nn.space_to_depth(img, 2, data_format="channels_first")).tolist()
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_nn_reference.json"), "w") as f:
    json.dump(out, f)
