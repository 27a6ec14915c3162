"""Masks (Embedding(mask_zero=True), Masking) through recurrent layers, losses and
metrics; variable-length go_backwards / Bidirectional; recurrent dropout and unroll."""
import numpy as np
import pytest

import paddle as pd

RNG = np.random.default_rng(0)
L = pd.layers


def ids_model(recurrent, mask_zero=True):
    ids = pd.Input(shape=(None,), dtype="int64")
    return pd.Model(ids, recurrent(L.Embedding(9, 3, mask_zero=mask_zero)(ids)))


@pytest.mark.parametrize("make", [lambda: L.LSTM(4), lambda: L.GRU(4),
                                  lambda: L.GRU(4, reset_after=False),
                                  lambda: L.LSTM(4, go_backwards=True),
                                  lambda: L.Bidirectional(L.LSTM(3)),
                                  lambda: L.Bidirectional(L.GRU(3), merge_mode="sum")],
                         ids=["lstm", "gru", "gru_classic", "lstm_backwards", "bi_lstm",
                              "bi_gru"])
def test_padding_changes_nothing(make):
    """Masked steps carry the state: a padded sequence gives the unpadded result, whether
    the padding comes after or before the ids."""
    pd.seed(0)
    model = ids_model(make())
    seq = np.array([[3, 1, 4]])
    want = model.predict(seq)
    post = model.predict(np.array([[3, 1, 4, 0, 0]]))
    pre = model.predict(np.array([[0, 0, 3, 1, 4]]))
    np.testing.assert_allclose(post, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(pre, want, rtol=1e-5, atol=1e-7)
    unmasked = ids_model(make(), mask_zero=False)
    unmasked.set_weights(model.get_weights())
    assert not np.allclose(unmasked.predict(np.array([[3, 1, 4, 0, 0]])), want, atol=1e-6)


def test_sequences_at_masked_steps_repeat_the_last_output():
    pd.seed(0)
    model = ids_model(L.LSTM(3, return_sequences=True))
    out = model.predict(np.array([[5, 2, 0, 0]]))
    np.testing.assert_array_equal(out[0, 2], out[0, 1])
    np.testing.assert_array_equal(out[0, 3], out[0, 1])
    bi = ids_model(L.Bidirectional(L.LSTM(3, return_sequences=True)))
    out = bi.predict(np.array([[5, 2, 0, 0]]))  # inside Bidirectional: zeros (as Keras)
    np.testing.assert_array_equal(out[0, 2:], 0.0)
    assert np.abs(out[0, :2]).min() > 0


def test_masking_layer_and_simple_rnn():
    pd.seed(0)
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    x[0, 3:] = 0.0
    model = pd.Sequential([L.Input(shape=(5, 3)), L.Masking(0.0), L.SimpleRNN(4)])
    short = pd.Sequential([L.Input(shape=(3, 3)), L.SimpleRNN(4)])
    short.set_weights(model.get_weights())
    np.testing.assert_allclose(model.predict(x)[0], short.predict(x[:1, :3])[0], rtol=1e-5,
                               atol=1e-7)
    with pytest.raises(ValueError, match="Masking: expected a number as mask_value"):
        L.Masking("pad")


def test_losses_and_metrics_leave_masked_steps_out():
    pd.seed(0)
    ids = pd.Input(shape=(None,), dtype="int64")
    h = L.LSTM(4, return_sequences=True)(L.Embedding(10, 3, mask_zero=True)(ids))
    model = pd.Model(ids, L.Dense(3)(h))
    model.compile("adam", pd.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0], [4, 5, 6, 7]])
    y = np.array([[0, 1, 2, 2], [1, 1, 1, 1], [2, 0, 1, 2]])
    logs = model.evaluate(x, y, return_dict=True, verbose=0)
    p = model.predict(x)
    z = p - p.max(-1, keepdims=True)
    ce = -np.take_along_axis(z - np.log(np.exp(z).sum(-1, keepdims=True)), y[..., None],
                             -1)[..., 0]
    valid = x != 0
    assert logs["loss"] == pytest.approx(ce[valid].mean(), rel=1e-5)
    assert logs["accuracy"] == pytest.approx((p.argmax(-1) == y)[valid].mean())
    # With sample weights: sum(w * loss) over the valid steps / the number of valid steps.
    sw = np.array([1.0, 3.0, 0.5], np.float32)
    weighted = model.evaluate(x, y, sample_weight=sw, return_dict=True, verbose=0)["loss"]
    assert weighted == pytest.approx((ce * sw[:, None])[valid].sum() / valid.sum(), rel=1e-5)
    before = model.evaluate(x, y, verbose=0)[0]
    model.fit(x, y, epochs=40, verbose=0)
    assert model.evaluate(x, y, verbose=0)[0] < before


def test_variable_length_go_backwards_and_bidirectional():
    pd.seed(0)
    x = pd.Input(shape=(None, 3))
    back = L.GRU(4, go_backwards=True, return_sequences=True)
    model = pd.Model(x, [back(x), L.Bidirectional(L.LSTM(2, return_sequences=True))(x)])
    for steps in (2, 5):
        a = RNG.standard_normal((3, steps, 3)).astype(np.float32)
        out, bi = model.predict(a)
        assert out.shape == (3, steps, 4) and bi.shape == (3, steps, 4)
        fixed = pd.Sequential([L.Input(shape=(steps, 3)),
                               L.GRU(4, go_backwards=True, return_sequences=True)])
        fixed.set_weights(back.get_weights())
        np.testing.assert_allclose(out, fixed.predict(a), rtol=1e-5, atol=1e-7)


def test_dropout_and_recurrent_dropout():
    pd.seed(0)
    x = RNG.standard_normal((4, 6, 3)).astype(np.float32)
    for cls in (L.LSTM, L.GRU, L.SimpleRNN):
        plain = cls(5)
        dropped = cls(5, dropout=0.3, recurrent_dropout=0.4, seed=7, unroll=True)
        inp = pd.Input(shape=(6, 3))
        plain_model, dropped_model = pd.Model(inp, plain(inp)), pd.Model(inp, dropped(inp))
        dropped.set_weights(plain.get_weights())
        # Inference: no dropout at all.
        np.testing.assert_allclose(dropped_model.predict(x), plain_model.predict(x), rtol=1e-6)
        # Training runs drop: the outputs differ, from run to run too.
        a = dropped(x, training=True)
        b = dropped(x, training=True)
        assert not np.allclose(a, plain_model.predict(x)) and not np.allclose(a, b)
        config = dropped.get_config()
        assert (config["dropout"], config["recurrent_dropout"], config["seed"],
                config["unroll"]) == (0.3, 0.4, 7, True)
        assert cls.from_config(config).recurrent_dropout == 0.4
    model = pd.Sequential([L.Input(shape=(6, 3)), L.LSTM(4, dropout=0.2, recurrent_dropout=0.2),
                           L.Dense(1)])
    model.compile("adam", "mse")
    y = np.ones((4, 1), np.float32)
    first = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=30, verbose=0)
    assert model.evaluate(x, y, verbose=0) < first


@pytest.mark.parametrize("kwargs, match", [
    ({"dropout": 1.0}, r"LSTM: expected dropout as a rate in \[0, 1\), received 1.0"),
    ({"recurrent_dropout": -0.1}, "expected recurrent_dropout as a rate"),
    ({"dropout": "0.1"}, "expected dropout as a rate"),
    ({"seed": 1.5}, "expected an integer seed"),
    ({"unroll": "yes"}, "expected unroll to be True or False"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        L.LSTM(3, **kwargs)


def test_bad_masks():
    x = pd.Input(shape=(4, 3))
    with pytest.raises(pd.ShapeError, match=r"expected a mask of shape \(batch, timesteps\)"):
        L.LSTM(2)(x, mask=pd.Input(shape=(5,), dtype="bool"))
    with pytest.raises(ValueError, match="Embedding: expected mask_zero to be True or False"):
        L.Embedding(3, 2, mask_zero="yes")
