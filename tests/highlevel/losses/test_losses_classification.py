"""Hinge, SquaredHinge, CategoricalHinge, BinaryFocalCrossentropy,
CategoricalFocalCrossentropy, Dice, Tversky (and their functions): values against Keras 3,
reductions and sample weights, names in compile, saving, gradients, configs, bad input."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import losses
from gradcheck import check_gradients

RNG = np.random.default_rng(16)
P = RNG.uniform(0.05, 0.95, (4, 3)).round(3).astype(np.float32)
T01 = (RNG.uniform(size=(4, 3)) > 0.5).astype(np.float32)
PM = RNG.normal(size=(4, 3)).round(3).astype(np.float32)
TPM = np.where(T01 > 0, 1.0, -1.0).astype(np.float32)
OH = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
W = np.array([1.0, 0.5, 2.0, 0.0], np.float32)

# What Keras 3.15.1 (JAX backend) gives for the same inputs (keras.losses.<name>(...), the
# calls of CASES below), printed rounded to 6 decimals.
KERAS = {
    "hinge01": [0.834333, 0.477667, 0.597333, 1.208333],
    "hinge_pm": [0.834333, 0.477667, 0.597333, 1.208333],
    "sq_hinge": [0.699979, 0.596452, 1.070421, 2.307673],
    "cat_hinge": [1.36, 3.186, 3.878, 0.0],
    "bfce": [0.672169, 0.162449, 1.470453, 0.779357],
    "bfce_args": [0.26515, 0.06751, 0.739355, 0.441383],
    "bfce_logits": [0.129788, 0.112236, 0.190274, 0.432761],
    "bfce_axis0": [0.705148, 0.606252, 1.001921],
    "cfce": [0.045059, 0.591499, 0.053347, 0.079391],
    "cfce_args": [0.238881, 0.878117, 1.353201, 0.088517],
    "dice": 0.680421,
    "dice_axis1": [0.634216, 0.360737, 0.93445, 0.837838],
    "tversky": 0.675764,
    "tversky_axis1": [0.588687, 0.268458, 0.940875, 0.85254],
    "Hinge_w": 0.566958,
    "SquaredHinge_sum": 4.674526,
    "CategoricalHinge_w": 2.67725,
    "BFCE_w": 0.443073,
    "CFCE_w": 0.151699,
    "Dice_w": 0.595369,
    "Dice_axis1_w": 0.670871,
    "Tversky_axis1": 0.643878,
}

CASES = {
    "hinge01": lambda: losses.hinge(T01, PM),
    "hinge_pm": lambda: losses.hinge(TPM, PM),
    "sq_hinge": lambda: losses.squared_hinge(T01, PM),
    "cat_hinge": lambda: losses.categorical_hinge(OH, PM),
    "bfce": lambda: losses.binary_focal_crossentropy(T01, P),
    "bfce_args": lambda: losses.binary_focal_crossentropy(
        T01, P, apply_class_balancing=True, alpha=0.3, gamma=1.5, label_smoothing=0.1),
    "bfce_logits": lambda: losses.binary_focal_crossentropy(T01, PM, from_logits=True),
    "bfce_axis0": lambda: losses.binary_focal_crossentropy(T01, P, axis=0),
    "cfce": lambda: losses.categorical_focal_crossentropy(OH, P),
    "cfce_args": lambda: losses.categorical_focal_crossentropy(
        OH, PM, alpha=0.5, gamma=3.0, from_logits=True, label_smoothing=0.2),
    "dice": lambda: losses.dice(T01, P),
    "dice_axis1": lambda: losses.dice(T01, P, axis=1),
    "tversky": lambda: losses.tversky(T01, P, alpha=0.3, beta=0.7),
    "tversky_axis1": lambda: losses.tversky(T01, P, alpha=0.3, beta=0.7, axis=1),
    "Hinge_w": lambda: losses.Hinge()(T01, PM, sample_weight=W),
    "SquaredHinge_sum": lambda: losses.SquaredHinge(reduction="sum")(T01, PM),
    "CategoricalHinge_w": lambda: losses.CategoricalHinge()(OH, PM, sample_weight=W),
    "BFCE_w": lambda: losses.BinaryFocalCrossentropy(apply_class_balancing=True)(
        T01, P, sample_weight=W),
    "CFCE_w": lambda: losses.CategoricalFocalCrossentropy(gamma=1.0)(OH, P, sample_weight=W),
    "Dice_w": lambda: losses.Dice()(T01, P, sample_weight=W),
    "Dice_axis1_w": lambda: losses.Dice(axis=1)(T01, P, sample_weight=W),
    "Tversky_axis1": lambda: losses.Tversky(alpha=0.2, beta=0.8, axis=1)(T01, P),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_values_match_keras(key):
    np.testing.assert_allclose(pd.eval(CASES[key]()), KERAS[key], rtol=2e-5, atol=2e-6)


def test_hinge_reads_binary_targets_from_the_whole_batch():
    # One target outside {0, 1} anywhere: no row is converted (Keras decides per batch).
    t = np.array([[0.0, 1.0], [-1.0, 1.0]], np.float32)
    p = np.array([[0.5, 0.5], [0.5, 0.5]], np.float32)
    np.testing.assert_allclose(pd.eval(losses.hinge(t, p)), [0.75, 1.0])
    np.testing.assert_allclose(pd.eval(losses.hinge(t[:1], p[:1])), [1.0])


CLASSES = [(losses.Hinge, losses.hinge, "hinge", T01, PM),
           (losses.SquaredHinge, losses.squared_hinge, "squared_hinge", T01, PM),
           (losses.CategoricalHinge, losses.categorical_hinge, "categorical_hinge", OH, PM),
           (losses.BinaryFocalCrossentropy, losses.binary_focal_crossentropy,
            "binary_focal_crossentropy", T01, P),
           (losses.CategoricalFocalCrossentropy, losses.categorical_focal_crossentropy,
            "categorical_focal_crossentropy", OH, P),
           (losses.Dice, losses.dice, "dice", T01, P),
           (losses.Tversky, losses.tversky, "tversky", T01, P)]


@pytest.mark.parametrize("cls, fn, name, t, p", CLASSES, ids=[c[2] for c in CLASSES])
def test_names_reductions_and_configs(cls, fn, name, t, p):
    per_example = pd.eval(fn(t, p))
    assert np.allclose(pd.eval(cls(reduction="none")(t, p)), per_example)
    assert np.allclose(pd.eval(cls()(t, p)), np.mean(per_example))
    assert np.allclose(pd.eval(cls(reduction="sum")(t, p)), np.sum(per_example))
    assert cls().name == name
    assert type(losses.get(name)) is cls and type(losses.get(cls.__name__)) is cls
    assert type(losses.get(fn)) is cls
    assert getattr(pd.losses, name) is fn and getattr(pd.losses, cls.__name__) is cls
    config = cls().get_config()
    assert cls.from_config(config).get_config() == config
    again = losses.get(losses.serialize(cls()))
    assert type(again) is cls and again.get_config() == config


def test_configs_keep_the_arguments():
    loss = losses.BinaryFocalCrossentropy(True, 0.4, 1.0, True, 0.1, 0, reduction="sum",
                                          name="bf")
    assert loss.get_config() == {"name": "bf", "reduction": "sum", "apply_class_balancing": True,
                                 "alpha": 0.4, "gamma": 1.0, "from_logits": True,
                                 "label_smoothing": 0.1, "axis": 0}
    loss = losses.Tversky(0.2, 0.8, axis=(1, 2))
    assert losses.Tversky.from_config(loss.get_config()).axis == (1, 2)
    assert losses.get(losses.serialize(losses.CategoricalFocalCrossentropy(gamma=3.0))).gamma == 3.0


GRADIENT_CASES = {
    "hinge": lambda p: losses.hinge(pd.constant(TPM[:2]), p),
    "squared_hinge": lambda p: losses.squared_hinge(pd.constant(T01[:2]), p),
    "categorical_hinge": lambda p: losses.categorical_hinge(pd.constant(OH[:2]), p),
    "binary_focal": lambda p: losses.binary_focal_crossentropy(
        pd.constant(T01[:2]), p, apply_class_balancing=True, gamma=1.5),
    "binary_focal_logits": lambda p: losses.binary_focal_crossentropy(
        pd.constant(T01[:2]), p, from_logits=True),
    "categorical_focal": lambda p: losses.categorical_focal_crossentropy(
        pd.constant(OH[:2]), p, label_smoothing=0.1),
    "categorical_focal_logits": lambda p: losses.categorical_focal_crossentropy(
        pd.constant(OH[:2]), p, from_logits=True),
    "dice": lambda p: losses.dice(pd.constant(T01[:2]), p, axis=1),
    "tversky": lambda p: losses.tversky(pd.constant(T01[:2]), p, 0.3, 0.7),
}


@pytest.mark.parametrize("key", sorted(GRADIENT_CASES))
def test_gradients(key):
    # Scores away from the hinge's kink at margin 1 (max(1 - t * p, 0) has no derivative
    # there); probabilities inside (eps, 1 - eps) where clipping does not cut the gradient.
    values = PM[:2].astype(np.float64) if "hinge" in key or "logits" in key else \
        P[:2].astype(np.float64)
    check_gradients(GRADIENT_CASES[key], [values])


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "binary_focal_crossentropy",
                                  losses.Dice(), losses.Tversky(alpha=0.3, beta=0.7)])
def test_training_with_compile_names_and_saving(loss, tmp_path):
    pd.seed(3)
    x = RNG.normal(size=(64, 4)).astype(np.float32)
    y = (x[:, :1] + x[:, 1:2] > 0).astype(np.float32)
    out = "linear" if "hinge" in str(loss) else "sigmoid"
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1, activation=out)])
    model.compile(optimizer=pd.optimizers.Adam(0.05), loss=loss,
                  metrics=["hinge", "binary_crossentropy"])
    history = model.fit(x, y, epochs=15, batch_size=16, verbose=0).history
    assert history["loss"][-1] < 0.7 * history["loss"][0]
    assert {"hinge", "binary_crossentropy"} <= set(history)
    for suffix in (".h5", ".keras"):
        model.save(tmp_path / f"m{suffix}")
        loaded = pd.load_model(tmp_path / f"m{suffix}")
        np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0),
                                   model.evaluate(x, y, verbose=0), rtol=1e-5)


def test_categorical_focal_trains_a_classifier():
    pd.seed(4)
    x = RNG.normal(size=(90, 2)).astype(np.float32)
    labels = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0).astype(int)
    y = np.eye(3, dtype=np.float32)[labels]
    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(8, activation="relu"),
                           pd.layers.Dense(3)])
    model.compile(optimizer=pd.optimizers.Adam(0.05),
                  loss=losses.CategoricalFocalCrossentropy(from_logits=True),
                  metrics=["categorical_accuracy", "categorical_hinge"])
    history = model.fit(x, y, epochs=20, batch_size=30, verbose=0).history
    assert history["categorical_accuracy"][-1] > 0.8


def test_bad_arguments_name_the_class_the_argument_and_the_value():
    with pytest.raises(ValueError, match=r"BinaryFocalCrossentropy: expected gamma as a "
                                         r"number in \[0.0, inf\], received -1"):
        losses.BinaryFocalCrossentropy(gamma=-1)
    with pytest.raises(ValueError, match=r"CategoricalFocalCrossentropy: expected alpha .* "
                                         r"received 1.5"):
        losses.CategoricalFocalCrossentropy(alpha=1.5)
    with pytest.raises(ValueError, match="BinaryFocalCrossentropy: expected label_smoothing"):
        losses.BinaryFocalCrossentropy(label_smoothing="0.1")
    with pytest.raises(ValueError, match="CategoricalFocalCrossentropy: expected axis as an "
                                         "integer axis, received True"):
        losses.CategoricalFocalCrossentropy(axis=True)
    with pytest.raises(ValueError, match="Dice: expected axis as an integer axis, a tuple of "
                                         "them or None, received 'all'"):
        losses.Dice(axis="all")
    with pytest.raises(ValueError, match="Tversky: expected beta .* received -0.5"):
        losses.Tversky(beta=-0.5)
    with pytest.raises(ValueError, match="Hinge: expected reduction"):
        losses.Hinge(reduction="mean")
    with pytest.raises(ValueError, match=r"dice: axis 3 is outside the 2 axes of the "
                                         r"predictions \(4, 3\)"):
        losses.dice(T01, P, axis=3)
    with pytest.raises(pd.ShapeError, match="categorical_hinge: expected targets shaped like "
                                            "the predictions"):
        losses.categorical_hinge(np.ones((4, 2)), P)
    with pytest.raises(TypeError, match="hinge: expected float predictions, received int64"):
        losses.hinge(T01, np.ones((4, 3), np.int64))


# ---- CategoricalGeneralizedCrossEntropy and deserialize -----------------------------------

Z = np.random.default_rng(19).uniform(0.05, 1.0, (5, 4)).astype(np.float32)
PROBS = (Z / Z.sum(-1, keepdims=True)).round(4).astype(np.float32)
LABELS = np.array([0, 3, 1, 2, 3])


def test_generalized_cross_entropy_matches_keras():
    # keras.losses.categorical_generalized_cross_entropy(LABELS, PROBS, q=...) and
    # keras.losses.CategoricalGeneralizedCrossEntropy(q=0.7)(..., sample_weight=...),
    # Keras 3.15.1 on JAX
    np.testing.assert_allclose(
        pd.eval(losses.categorical_generalized_cross_entropy(LABELS, PROBS, q=0.5)),
        [0.9996, 1.038543, 0.824075, 0.907297, 0.789546], rtol=2e-5)
    np.testing.assert_allclose(
        pd.eval(losses.categorical_generalized_cross_entropy(LABELS[:, None], PROBS, q=0.2)),
        [1.210102, 1.269818, 0.956943, 1.073923, 0.909868], rtol=2e-5)
    loss = losses.CategoricalGeneralizedCrossEntropy(q=0.7)
    weights = np.array([1.0, 0.5, 0.0, 2.0, 1.0], np.float32)
    np.testing.assert_allclose(pd.eval(loss(LABELS, PROBS, sample_weight=weights)), 0.739554,
                               rtol=2e-5)
    assert type(losses.get("categorical_generalized_cross_entropy")) is \
        losses.CategoricalGeneralizedCrossEntropy
    assert losses.get(losses.categorical_generalized_cross_entropy).q == 0.5
    assert losses.get(losses.serialize(loss)).q == 0.7
    check_gradients(lambda p: losses.categorical_generalized_cross_entropy(
        pd.constant(LABELS), p, q=0.4), [PROBS.astype(np.float64)])


def test_generalized_cross_entropy_trains_with_integer_labels():
    pd.seed(5)
    x = RNG.normal(size=(60, 2)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)
    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(3, activation="softmax")])
    model.compile(optimizer=pd.optimizers.Adam(0.1), loss="categorical_generalized_cross_entropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, epochs=20, batch_size=20, verbose=0).history
    assert history["loss"][-1] < 0.7 * history["loss"][0]
    with pytest.raises(ValueError, match="categorical_generalized_cross_entropy: expected class "
                                         r"indices as targets, received [012]\.5"):
        model.fit(x, y + 0.5, epochs=1, verbose=0)


def test_deserialize_with_custom_objects():
    assert type(losses.deserialize("squared_hinge")) is losses.SquaredHinge
    # Keras 3's serialized form carries module and registered_name: they are ignored
    keras_form = {"module": "keras.losses", "class_name": "Dice", "registered_name": None,
                  "config": {"name": "dice", "reduction": "sum", "axis": [1]}}
    dice = losses.deserialize(keras_form)
    assert type(dice) is losses.Dice and dice.axis == (1,) and dice.reduction == "sum"

    class Twice(losses.Loss):
        def call(self, y_true, y_pred):
            return pd.mean(pd.abs(y_pred - y_true), axis=-1) * 2.0
    got = losses.deserialize({"class_name": "Twice", "config": {"name": "twice"}},
                             custom_objects={"Twice": Twice})
    assert type(got) is Twice and got.name == "twice"
    assert losses.deserialize("my_l1", custom_objects={"my_l1": Twice}).name == "twice"
    assert pd.metrics.deserialize({"class_name": "R2Score",
                                   "config": {"name": "r2", "num_regressors": 2}}).num_regressors == 2
    with pytest.raises(ValueError, match="Unknown loss class 'Nope'"):
        losses.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="losses.deserialize: expected a 'class_name' key"):
        losses.deserialize({"config": {}})
    with pytest.raises(TypeError, match="metrics.deserialize: expected a name"):
        pd.metrics.deserialize(3)
    with pytest.raises(ValueError, match=r"CategoricalGeneralizedCrossEntropy: expected q in the "
                                         r"open interval \(0, 1\), received 1"):
        losses.CategoricalGeneralizedCrossEntropy(q=1)
    with pytest.raises(ValueError, match="categorical_generalized_cross_entropy: expected class "
                                         "ids shaped like the predictions"):
        losses.categorical_generalized_cross_entropy(np.zeros((5, 4)), PROBS, 0.5)
