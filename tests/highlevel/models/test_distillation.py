"""pd.distillation (paddle/highlevel/distillation.py): Distiller's losses and metrics over
three epochs of each case of distillation_cases.py against Keras 3.15.1's (stored in
distillation_keras.json by make_distillation_reference.py) and against Keras itself where
installed; the losses on their own; the checks of bad arguments."""
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import paddle as pd
from distillation_cases import CASES, EPOCHS, X, Y, models, run

KERAS = json.loads((Path(__file__).parent / "distillation_keras.json").read_text())


def _close(got, want, case):
    assert sorted(got["history"]) == sorted(want["history"]), case
    for name, values in want["history"].items():
        np.testing.assert_allclose(got["history"][name], values, rtol=2e-6, atol=1e-6,
                                   err_msg=f"{case}: {name}")
    for name, value in want["evaluate"].items():
        np.testing.assert_allclose(got["evaluate"][name], value, rtol=2e-6, atol=1e-6,
                                   err_msg=f"{case}: evaluate {name}")
    for a, b in zip(got["student"], want["student"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"{case}: weights")


@pytest.mark.parametrize("case", sorted(CASES))
def test_losses_of_each_epoch_match_keras(case):
    _close(run(pd, case), KERAS["cases"][case], case)


def test_against_keras_itself_where_installed():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    pytest.importorskip("jax")
    keras = pytest.importorskip("keras")
    for case in CASES:
        with warnings.catch_warnings():  # Keras's and JAX's deprecation warnings
            warnings.simplefilter("ignore")
            want = run(keras, case)
        _close(run(pd, case), want, case)


def test_the_teacher_is_frozen_and_the_student_trained():
    teacher, student = models(pd)
    before = [w.copy() for w in teacher.get_weights()]
    d = pd.distillation.Distiller(teacher, student, pd.distillation.LogitsDistillation())
    assert not teacher.trainable
    assert [w.name for w in d.trainable_weights] == [w.name for w in student.trainable_weights]
    d.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    d.fit(X, Y, epochs=EPOCHS, verbose=0)
    for a, b in zip(teacher.get_weights(), before):
        np.testing.assert_array_equal(a, b)
    assert not np.allclose(student.get_weights()[0], models(pd)[1].get_weights()[0])
    np.testing.assert_allclose(d.predict(X, verbose=0), student.predict(X, verbose=0))


def test_logits_distillation_kl_instance_uses_softmax_and_temperature_squared():
    t = np.array([[2.0, 0.0, -1.0]], "float32")
    s = np.array([[0.5, 0.5, 0.0]], "float32")
    loss = pd.distillation.LogitsDistillation(temperature=2.0, loss=pd.losses.KLDivergence())
    p, q = np.exp(t / 2.0), np.exp(s / 2.0)
    p, q = p / p.sum(), q / q.sum()
    want = float(np.sum(p * np.log(p / q))) * 4.0
    got = float(pd.eval(loss.compute_loss(pd.constant(t), pd.constant(s))))
    assert abs(got - want) < 1e-6


def test_feature_distillation_structures_skip_none():
    loss = pd.distillation.FeatureDistillation(loss=["mse", None])
    a, b = pd.constant([[1.0, 2.0]]), pd.constant([[0.0, 0.0]])
    assert float(pd.eval(loss.compute_loss([a, a], [b, a]))) == 2.5
    with pytest.raises(ValueError, match="do not match the structure"):
        loss.validate_outputs([a, a, a], [b, b, b])


def test_configs_round_trip():
    for loss in (pd.distillation.LogitsDistillation(temperature=4.0, loss="kl_divergence"),
                 pd.distillation.FeatureDistillation(loss="mae", teacher_layer_name="a",
                                                     student_layer_name="b")):
        again = type(loss).from_config(loss.get_config())
        assert again.get_config() == loss.get_config()


@pytest.mark.parametrize("make, match", [
    (lambda t, s: pd.distillation.Distiller(t, "s", pd.distillation.LogitsDistillation()),
     "expected the student to be a pd.Model"),
    (lambda t, s: pd.distillation.Distiller(t, s, None), "cannot be None"),
    (lambda t, s: pd.distillation.Distiller(t, s, [pd.distillation.LogitsDistillation()],
                                            distillation_loss_weights=[1.0, 2.0]),
     "2 distillation_loss_weights for 1"),
    (lambda t, s: pd.distillation.Distiller(t, s, pd.distillation.LogitsDistillation(),
                                            student_loss_weight=1.5), r"in \[0, 1\]"),
    (lambda t, s: pd.distillation.Distiller(t, s, ["mse"]), "DistillationLoss objects"),
    (lambda t, s: pd.distillation.Distiller(t, s, pd.distillation.FeatureDistillation(
        teacher_layer_name="nope")), "in the teacher model"),
    (lambda t, s: pd.distillation.Distiller(
        t, pd.Sequential([pd.Input((5,)), pd.layers.Dense(3)]),
        pd.distillation.LogitsDistillation()), "input shapes are incompatible"),
    (lambda t, s: pd.distillation.LogitsDistillation(temperature=0), "temperature > 0"),
    (lambda t, s: pd.distillation.LogitsDistillation(temperature="3"), "to be a number"),
    (lambda t, s: pd.distillation.LogitsDistillation(loss=[None]), "at least one loss"),
    (lambda t, s: pd.distillation.FeatureDistillation(loss="nope"), "unknown loss 'nope'"),
    (lambda t, s: pd.distillation.Distiller(t, s, pd.distillation.LogitsDistillation())
     .compile(optimizer="sgd"), "expected the student's loss"),
])
def test_bad_arguments_say_what_was_expected(make, match):
    teacher, student = models(pd)
    with pytest.raises(ValueError, match=match):
        make(teacher, student)


def test_a_saved_distiller_loads_with_its_losses_and_weights(tmp_path):
    teacher, student = models(pd)
    losses, kwargs, compiled = CASES["logits_and_features"](pd)
    d = pd.distillation.Distiller(teacher, student, losses, **kwargs)
    d.compile(optimizer=pd.optimizers.SGD(0.1), **compiled)
    d.fit(X, Y, epochs=1, verbose=0)
    config = d.get_config()
    # Keras's entries: loss functions (what a name became) as function entries
    assert config["distillation_losses"][1]["config"]["loss"] == {
        "module": "builtins", "class_name": "function", "config": "mean_squared_error",
        "registered_name": "function"}
    d.save(tmp_path / "d.keras")
    loaded = pd.saving.load_model(tmp_path / "d.keras", compile=False)
    assert type(loaded) is pd.distillation.Distiller
    assert [type(x).__name__ for x in loaded.distillation_losses] == [
        "LogitsDistillation", "FeatureDistillation"]
    assert loaded.distillation_loss_weights == [1.0, 0.5] and loaded.student_loss_weight == 0.3
    assert loaded.get_config()["distillation_losses"] == config["distillation_losses"]
    np.testing.assert_allclose(loaded.predict(X, verbose=0), d.predict(X, verbose=0),
                               rtol=1e-6)
    assert not loaded.teacher.trainable


def test_keras_reads_a_saved_distiller_and_paddle_reads_kerass(tmp_path):
    os.environ.setdefault("KERAS_BACKEND", "jax")
    pytest.importorskip("jax")
    keras = pytest.importorskip("keras")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        teacher, student = models(keras)
        k = keras.distillation.Distiller(teacher, student,
                                         keras.distillation.LogitsDistillation())
        k.compile(optimizer="sgd", loss="mse")
        k.save(tmp_path / "k.keras")
        want = k.predict(X, verbose=0)
    mine = pd.saving.load_model(tmp_path / "k.keras", compile=False)
    np.testing.assert_allclose(mine.predict(X, verbose=0), want, rtol=1e-5, atol=1e-7)
    mine.save(tmp_path / "p.keras")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = keras.saving.load_model(tmp_path / "p.keras", compile=False)
        np.testing.assert_allclose(again.predict(X, verbose=0), want, rtol=1e-5, atol=1e-7)
        assert type(again.distillation_losses[0]).__name__ == "LogitsDistillation"
