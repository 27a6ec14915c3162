"""MeanAbsolutePercentageError, MeanSquaredLogarithmicError, KLDivergence, Poisson, LogCosh,
CosineSimilarity: NumPy references of Keras 3's formulas, reductions and sample weights,
names in compile, gradients, config round trips, bad input."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import losses
from gradcheck import check_gradients

RNG = np.random.default_rng(31)
EPS = 1e-7
T = RNG.uniform(0.1, 2.0, size=(6, 4))
P = RNG.uniform(0.1, 2.0, size=(6, 4))


def np_mape(t, p):
    return 100 * np.mean(np.abs(t - p) / np.maximum(np.abs(t), EPS), axis=-1)


def np_msle(t, p):
    return np.mean((np.log1p(np.maximum(p, EPS)) - np.log1p(np.maximum(t, EPS))) ** 2, -1)


def np_kld(t, p):
    t, p = np.clip(t, EPS, 1), np.clip(p, EPS, 1)
    return np.sum(t * np.log(t / p), axis=-1)


def np_poisson(t, p):
    return np.mean(p - t * np.log(p + EPS), axis=-1)


def np_log_cosh(t, p):
    return np.mean(np.log(np.cosh(p - t)), axis=-1)


def np_cosine(t, p):
    def norm(v):
        return v / np.sqrt(np.maximum(np.sum(v * v, -1, keepdims=True), 1e-12))
    return -np.sum(norm(t) * norm(p), axis=-1)


CASES = [
    (losses.MeanAbsolutePercentageError, losses.mean_absolute_percentage_error, np_mape,
     "mape"),
    (losses.MeanSquaredLogarithmicError, losses.mean_squared_logarithmic_error, np_msle,
     "msle"),
    (losses.KLDivergence, losses.kl_divergence, np_kld, "kld"),
    (losses.Poisson, losses.poisson, np_poisson, "poisson"),
    (losses.LogCosh, losses.log_cosh, np_log_cosh, "log_cosh"),
    (losses.CosineSimilarity, losses.cosine_similarity, np_cosine, "cosine_similarity"),
]
IDS = [c[3] for c in CASES]


@pytest.mark.parametrize("cls, fn, ref, name", CASES, ids=IDS)
def test_values_reductions_and_weights(cls, fn, ref, name):
    t, p = T.copy(), P.copy()
    if name == "kld":  # probabilities
        t, p = t / t.sum(-1, keepdims=True), p / p.sum(-1, keepdims=True)
    expected = ref(t, p)
    np.testing.assert_allclose(pd.eval(fn(t, p)), expected, rtol=1e-6)
    np.testing.assert_allclose(pd.eval(cls()(t, p)), expected.mean(), rtol=1e-6)
    np.testing.assert_allclose(pd.eval(cls(reduction="sum")(t, p)), expected.sum(), rtol=1e-6)
    w = RNG.uniform(size=6)
    np.testing.assert_allclose(pd.eval(cls()(t, p, sample_weight=w)), np.mean(expected * w),
                               rtol=1e-6)
    np.testing.assert_allclose(pd.eval(cls(reduction="none")(t, p)), expected, rtol=1e-6)
    assert losses.get(name).__class__ is cls
    assert losses.get(fn).__class__ is cls
    again = cls.from_config(cls().get_config())
    assert again.get_config() == cls().get_config()
    assert losses.get(losses.serialize(cls())).__class__ is cls


@pytest.mark.parametrize("cls, fn, ref, name", CASES, ids=IDS)
def test_gradients(cls, fn, ref, name):
    t = T[:3] / (T[:3].sum(-1, keepdims=True) if name == "kld" else 1)
    check_gradients(lambda p: fn(pd.constant(t), p), [P[:3] / 4 if name == "kld" else P[:3]])


def test_keras_names_and_default_names():
    for alias, cls in [("mean_absolute_percentage_error", losses.MeanAbsolutePercentageError),
                       ("kl_divergence", losses.KLDivergence),
                       ("kullback_leibler_divergence", losses.KLDivergence),
                       ("logcosh", losses.LogCosh),
                       ("mean_squared_logarithmic_error", losses.MeanSquaredLogarithmicError)]:
        assert type(losses.get(alias)) is cls
    assert [c().name for c, *_ in CASES] == [
        "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "kl_divergence",
        "poisson", "log_cosh", "cosine_similarity"]


def test_cosine_similarity_axis_and_training():
    t, p = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 3, 4))
    got = pd.eval(losses.CosineSimilarity(axis=1, reduction="none")(t, p))
    norm = np.linalg.norm
    np.testing.assert_allclose(got, -np.sum(t * p, 1) / norm(t, axis=1) / norm(p, axis=1),
                               rtol=1e-5)
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    model.compile(optimizer=pd.optimizers.Adam(0.05), loss="poisson",
                  metrics=["mape", "logcosh"])
    x = RNG.uniform(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0, 0.5], [0.2, 0.3], [0.4, 1.0]], np.float32) + 1.0)
    model.compile(optimizer=pd.optimizers.Adam(0.05), loss="log_cosh",
                  metrics=["mape", "logcosh", "cosine_similarity"])
    history = model.fit(x, y, epochs=30, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 5
    assert set(history.history) >= {"mape", "logcosh", "cosine_similarity"}


def test_bad_input():
    with pytest.raises(ValueError, match="CosineSimilarity: expected an integer axis"):
        losses.CosineSimilarity(axis="last")
    with pytest.raises(pd.ShapeError, match="poisson: expected targets shaped like the "
                                            "predictions"):
        losses.poisson(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="KLDivergence: expected reduction"):
        losses.KLDivergence(reduction="mean")
