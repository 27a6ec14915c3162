"""GroupQueryAttention: Keras's weights, outputs and scores (reference values from Keras
3.15 with the same weights and data, written here), masks, a gradient check, a config round
trip and one training step."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(0)
Q = RNG.normal(size=(2, 3, 6)).astype("float32")
V = RNG.normal(size=(2, 5, 4)).astype("float32")
KERAS_OUT_0 = [
    [-0.6287620067596436, 0.4243679940700531, -1.5786529779434204, 0.7653480172157288,
     -0.5176069736480713, -1.132743000984192],
    [-0.36837899684906006, -0.1421090066432953, -1.5969549417495728, 0.4981650114059448,
     -0.13717399537563324, -0.7418860197067261],
    [-0.37258198857307434, 0.07970599830150604, -1.7531540393829346, 0.7385879755020142,
     -0.21407100558280945, -1.187790036201477]]
KERAS_SCORES_1_3 = [[1.0, 0.0, 0.0, 0.0, 0.0],
                    [0.6441789865493774, 0.35582101345062256, 0.0, 0.0, 0.0],
                    [0.4367560148239136, 0.2880699932575226, 0.27517399191856384, 0.0, 0.0]]
KERAS_CAUSAL_1_2 = [-0.477524995803833, 0.48478901386260986, -0.5872470140457153,
                    0.4048460125923157, -0.26777899265289307, 0.21970200538635254]


def _layer():
    layer = pd.layers.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2)
    layer(Q, V)
    r = np.random.default_rng(1)
    layer.set_weights([r.normal(size=w.shape).astype("float32") * 0.3 for w in layer.weights])
    return layer


def test_weights_and_values_are_kerass():
    layer = _layer()
    assert [tuple(w.shape) for w in layer.weights] == [
        (6, 4, 4), (4, 4), (4, 2, 4), (2, 4), (4, 2, 4), (2, 4), (4, 4, 6), (6,)]
    assert layer.name.startswith("grouped_query_attention")
    mask = np.tril(np.ones((2, 3, 5))).astype(bool)
    out, scores = layer(Q, V, return_attention_scores=True, attention_mask=mask)
    np.testing.assert_allclose(out[0], KERAS_OUT_0, atol=1e-5)
    np.testing.assert_allclose(scores[1, 3], KERAS_SCORES_1_3, atol=1e-5)
    np.testing.assert_allclose(layer(Q, V, use_causal_mask=True)[1, 2], KERAS_CAUSAL_1_2,
                               atol=1e-5)


def test_symbolic_shapes_config_and_training():
    q, v = pd.Input(shape=(None, 6)), pd.Input(shape=(None, 4))
    layer = pd.layers.GroupQueryAttention(head_dim=2, num_query_heads=6, num_key_value_heads=3)
    out = layer(q, v)
    assert out.shape == (None, None, 6)
    config = layer.get_config()
    assert {"head_dim": 2, "num_query_heads": 6, "num_key_value_heads": 3}.items() <= \
        config.items()
    again = pd.layers.GroupQueryAttention.from_config(config)
    assert again.num_key_value_heads == 3
    model = pd.Model([q, v], out)
    model.compile("adam", "mse")
    before = [w.copy() for w in model.get_weights()]
    model.fit([Q, V], np.zeros((2, 3, 6), np.float32), epochs=1, verbose=0)
    assert all(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))


def test_gradient_through_the_repeated_heads():
    layer = pd.layers.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=2,
                                          dtype="float64")
    layer(Q[:1, :2].astype(np.float64), V[:1, :3].astype(np.float64))
    check_gradients(lambda q, v: layer(q, v), [Q[:1, :2], V[:1, :3]])


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="multiple of num_key_value_heads"):
        pd.layers.GroupQueryAttention(head_dim=4, num_query_heads=3, num_key_value_heads=2)
    with pytest.raises(ValueError, match="no flash-attention kernel"):
        pd.layers.GroupQueryAttention(4, 2, 1, flash_attention=True)
    with pytest.raises(ValueError, match="positive integer num_key_value_heads"):
        pd.layers.GroupQueryAttention(4, 2, 0)
