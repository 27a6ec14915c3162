"""Loss target and sample-weight shapes as Keras 3.15 reduces and broadcasts them: a table
of losses x shape pairs, each with Keras's value or Keras's refusal.

Expected values were computed once with real Keras 3.15.1 (JAX backend, CPU):
`getattr(keras.losses, name)(**kwargs)(y_true, y_pred, sample_weight=sw)` on the same
arrays, drawn here in the same order from NumPy's default_rng(7) (and default_rng(0) for
the broadcasting table).
"""
import numpy as np
import pytest

import paddle as pd

N = 4
_rng = np.random.default_rng(7)


def f(*shape):
    return _rng.uniform(0.1, 0.9, size=shape).astype("float32")


def lab(*shape):
    return _rng.integers(0, 3, size=shape)


BIN = np.array([0, 1, 1, 0.0])
# (loss, kwargs, y_true, y_pred, sample_weight, Keras's value or None where Keras refuses)
CASES = [
    ("MeanSquaredError", {}, f(N), f(N, 1), None, 0.168788),
    ("MeanSquaredError", {}, f(N, 1), f(N), None, 0.065724),
    ("MeanSquaredError", {}, f(N, 3), f(N, 1), None, 0.085328),
    ("MeanSquaredError", {}, f(N, 1), f(N, 3), None, 0.093795),
    ("MeanSquaredError", {}, f(N, 2), f(N, 3), None, None),
    ("MeanSquaredError", {}, f(N), f(N, 1), f(N), 0.063758),
    ("MeanSquaredError", {}, f(N, 1), f(N, 1), f(N, 1), 0.041554),
    ("MeanSquaredError", {}, f(N, 5, 2), f(N, 5, 2), f(N, 5), 0.044984),
    ("MeanSquaredError", {}, f(N, 5, 2), f(N, 5, 2), f(N), "paddle weighs rows"),
    ("MeanAbsoluteError", {}, f(N), f(N, 1), None, 0.390647),
    ("BinaryCrossentropy", {}, BIN, f(N, 1), None, 1.128499),
    ("BinaryCrossentropy", {}, BIN[:, None], f(N), None, 0.82301),
    ("BinaryCrossentropy", {"from_logits": True}, BIN, f(N, 1) - 0.5, None, 0.744315),
    ("BinaryCrossentropy", {}, BIN, f(N, 1), np.array([1, 2, 0.5, 1.0]), 0.77959),
    ("CategoricalCrossentropy", {}, np.eye(3)[[0, 2, 1, 0]], f(N, 3), None, 0.981339),
    ("SparseCategoricalCrossentropy", {}, lab(N, 1), f(N, 3), None, 1.40249),
    ("SparseCategoricalCrossentropy", {}, lab(N), f(N, 3), None, 1.317939),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, lab(N, 1), f(N, 3), f(N),
     0.45185),
    ("SparseCategoricalCrossentropy", {}, lab(N, 5), f(N, 5, 3), None, 1.437604),
    ("SparseCategoricalCrossentropy", {}, lab(N, 5, 1), f(N, 5, 3), f(N, 5), 0.503305),
    ("SparseCategoricalCrossentropy", {}, lab(N, 2), f(N, 3), None, None),
    ("Huber", {}, f(N), f(N, 1), None, 0.065551),
    ("Hinge", {}, np.array([-1, 1, 1, -1.0]), f(N, 1), None, 0.889359),
    ("KLDivergence", {}, f(N, 3), f(N, 3), f(N, 1), 0.092498),
    ("Poisson", {}, f(N, 1), f(N), None, 0.817321),
    ("LogCosh", {}, f(N), f(N, 1), None, 0.111018),
    ("CosineSimilarity", {}, f(N, 3), f(N, 3), None, -0.88772),
    ("MeanSquaredError", {}, f(N, 3), f(N, 3), f(N, 3), None),
    ("MeanSquaredError", {}, f(N), f(N, 1), f(N, 2), None),
]


def _ids(case):
    name, kwargs, yt, yp, sw, _ = case
    weight = "" if sw is None else f"-w{np.shape(sw)}"
    return f"{name}{kwargs or ''}-{np.shape(yt)}-{np.shape(yp)}{weight}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_loss_shapes_as_keras(case):
    name, kwargs, y_true, y_pred, sample_weight, expected = case
    loss = getattr(pd.losses, name)(**kwargs)
    if expected is None:  # Keras refuses: so does paddle, naming the shapes
        with pytest.raises(pd.ShapeError, match=r"\(4, \d\)"):
            pd.eval(loss(y_true, y_pred, sample_weight=sample_weight))
        return
    value = float(pd.eval(loss(y_true, y_pred, sample_weight=sample_weight)))
    if isinstance(expected, str):
        # Keras 3.15 refuses (N,) weights on a (N, T) per-step loss ("Incompatible shapes
        # for broadcasting: shapes=[(4, 5), (4,)]"); paddle weighs each example's row, the
        # rule fit applies to every sequence output (documented in docs/keras.md).
        per_step = np.mean((y_true - y_pred) ** 2, axis=-1)
        assert value == pytest.approx(float(np.mean(per_step * sample_weight[:, None])),
                                      rel=1e-5)
        return
    assert value == pytest.approx(expected, abs=2e-6)


_b = np.random.default_rng(0)
WIDE = _b.uniform(0.1, 0.9, (4, 3)).astype("float32")
ONE = _b.uniform(0.1, 0.9, (4, 1)).astype("float32")
# Keras 3.15 broadcasts these losses' targets against the predictions both ways:
# [loss((4, 3) targets, (4, 1) predictions), loss((4, 1) targets, (4, 3) predictions)].
BROADCASTING = {
    "MeanSquaredError": [0.187082, 0.187082], "MeanAbsoluteError": [0.345476, 0.345476],
    "MeanAbsolutePercentageError": [97.437927, 148.446655],
    "MeanSquaredLogarithmicError": [0.087109, 0.087109], "Huber": [0.093541, 0.093541],
    "LogCosh": [0.088304, 0.088304], "KLDivergence": [0.954904, 0.441726],
    "Poisson": [1.031327, 0.932307], "Hinge": [0.775878, 0.775878],
    "SquaredHinge": [0.627566, 0.627566], "CategoricalHinge": [0.659637, 0.760822],
    "CosineSimilarity": [-1.55949, -1.55949], "Dice": [0.335605, 0.335605],
    "Tversky": [0.542999, 0.542999]}


@pytest.mark.parametrize("name", sorted(BROADCASTING))
def test_targets_broadcast_as_keras(name):
    loss = getattr(pd.losses, name)()
    got = [float(pd.eval(loss(WIDE, ONE))), float(pd.eval(loss(ONE, WIDE)))]
    np.testing.assert_allclose(got, BROADCASTING[name], rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["BinaryCrossentropy", "BinaryFocalCrossentropy",
                                  "CategoricalCrossentropy"])
def test_cross_entropies_want_the_predictions_shape_as_keras(name):
    # Keras: "Arguments `target` and `output` must have the same shape."
    loss = getattr(pd.losses, name)()
    for y_true, y_pred in ((WIDE, ONE), (ONE, WIDE)):
        with pytest.raises(pd.ShapeError, match="expected targets shaped like the predictions"):
            loss(y_true, y_pred)


def test_fit_with_targets_wider_than_the_output_broadcasts_as_keras():
    # Keras 3.15: Sequential([Input((3,)), Dense(1)]) compiled with "mse" evaluates (4, 3)
    # targets against its (4, 1) output as the mean over every pair.
    model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(1)])
    model.compile("sgd", "mse")
    out = model.predict(WIDE, verbose=0)
    assert model.evaluate(WIDE, WIDE, verbose=0) == pytest.approx(
        float(np.mean((WIDE - out) ** 2)), rel=1e-5)
