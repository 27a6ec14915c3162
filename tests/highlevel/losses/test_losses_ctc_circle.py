"""The CTC and Circle losses (`pd.losses.ctc`/`CTC`, `circle`/`Circle`): values against
Keras 3.15.1 (JAX backend; the constants are what it printed for the same inputs), the
masked reduction of Circle, names and configs, training, Circle's gradient and bad input."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(0)
EMB = RNG.normal(size=(6, 4)).astype(np.float32)
EMB /= np.linalg.norm(EMB, axis=1, keepdims=True)
LABELS = np.array([0, 1, 0, 2, 1, 0])
LOGITS = RNG.normal(size=(3, 6, 5)).astype(np.float32)
TARGETS = np.array([[1, 2, 2, 0], [3, 0, 0, 0], [4, 1, 3, 2]])


def values(v):
    return np.asarray(pd.eval(v), dtype=np.float64)


@pytest.mark.parametrize("kwargs, expected", [
    ({}, [207.0979, 18.1245, 182.19, 0.0, 0.0002, 170.131]),
    ({"remove_diagonal": False, "gamma": 10, "margin": 0.25},
     [27.8873, 4.7085, 24.818, 2.7158, 2.127, 24.2872]),
    ({"ref_labels": np.array([1, 2, 0]), "ref_embeddings": EMB[:3]},
     [189.0596, 61.6002, 0.0, 127.8811, 49.7044, 164.8238]),
])
def test_circle_matches_keras(kwargs, expected):
    np.testing.assert_allclose(values(pd.losses.circle(LABELS, EMB, **kwargs)), expected,
                               atol=2e-3, rtol=1e-4)


def test_circle_class_masks_zero_losses_as_keras():
    e = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]], np.float32)
    # per example [~0, 6.4017, 0]: the exact zero is masked out, the mean is over two
    assert float(values(pd.losses.Circle()(np.array([0, 0, 1]), e))) == \
        pytest.approx(3.2008317, rel=1e-5)
    assert float(values(pd.losses.Circle(gamma=30)(LABELS[:, None], EMB))) == \
        pytest.approx(43.4558525, rel=1e-5)
    weights = np.arange(6.0).astype(np.float32)
    assert float(values(pd.losses.Circle()(LABELS, EMB, sample_weight=weights))) == \
        pytest.approx(246.632065, rel=1e-5)
    assert float(values(pd.losses.Circle(reduction="sum")(LABELS, EMB))) == \
        pytest.approx(577.54358, rel=1e-5)


def test_ctc_matches_keras():
    np.testing.assert_allclose(values(pd.losses.ctc(TARGETS, LOGITS)),
                               [6.9916, 3.7114, 6.8055], atol=2e-4)
    np.testing.assert_allclose(
        values(pd.losses.ctc(np.array([[1, 2], [2, 0]]), np.zeros((2, 4, 3), np.float32))),
        [1.6864, 2.0919], atol=2e-4)
    assert float(values(pd.losses.CTC()(TARGETS, LOGITS))) == pytest.approx(5.8361783, 1e-5)


def test_names_and_configs():
    for name, cls in (("ctc", pd.losses.CTC), ("circle", pd.losses.Circle)):
        assert type(pd.losses.get(name)) is cls
        assert type(pd.losses.get(getattr(pd.losses, name))) is cls
    circle = pd.losses.Circle(gamma=64.0, margin=0.25, remove_diagonal=False)
    assert circle.get_config() == {"name": "circle", "reduction": "sum_over_batch_size",
                                   "gamma": 64.0, "margin": 0.25, "remove_diagonal": False}
    again = pd.losses.deserialize(pd.losses.serialize(circle))
    assert (again.gamma, again.margin, again.remove_diagonal) == (64.0, 0.25, False)
    assert pd.losses.CTC().get_config() == {"name": "ctc", "reduction": "sum_over_batch_size"}


def test_circle_gradient():
    labels = np.array([0, 1, 0, 1, 2])
    e = RNG.normal(size=(5, 3))
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    check_gradients(lambda x: pd.losses.circle(labels, x, gamma=4.0), [e])
    check_gradients(lambda x: pd.losses.Circle(gamma=4.0)(labels, x), [e], unknown_batch=True)


def test_models_train_with_them():
    pd.seed(0)
    inp = pd.layers.Input(shape=(4,))
    model = pd.Model(inp, pd.layers.UnitNormalization()(pd.layers.Dense(3)(inp)))
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss=pd.losses.Circle(gamma=8.0))
    x = RNG.normal(size=(12, 4)).astype(np.float32)
    history = model.fit(x, np.arange(12) % 3, batch_size=6, epochs=3, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))

    inp = pd.layers.Input(shape=(6, 2))
    model = pd.Model(inp, pd.layers.Dense(5)(inp))
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="ctc")
    x = RNG.normal(size=(3, 6, 2)).astype(np.float32)
    losses = model.fit(x, TARGETS.astype(np.float32), epochs=5, verbose=0).history["loss"]
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("call, error, message", [
    (lambda: pd.losses.ctc(np.array([1, 2]), LOGITS), ValueError, "shape \\(batch_size, max"),
    (lambda: pd.losses.ctc(TARGETS, LOGITS[0]), ValueError, "num_classes"),
    (lambda: pd.losses.circle(np.zeros((6, 2)), EMB), ValueError, "labels of shape"),
    (lambda: pd.losses.circle(LABELS, EMB[:, :, None]), ValueError, "embeddings of shape"),
    (lambda: pd.losses.Circle(gamma="big"), TypeError, "gamma as a number"),
    (lambda: pd.losses.Circle(remove_diagonal=1), TypeError, "remove_diagonal"),
    (lambda: pd.losses.CTC(reduction="avg"), ValueError, "reduction"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
