"""`compute_loss` overridden in a Model subclass is what `fit` and `evaluate` minimize and
report, also when `compile()` was given no loss (Keras 3's knowledge distillation example,
whose Distiller overrides compute_loss without the `training` argument).

The expected numbers were computed once with real Keras 3.15.1 (JAX backend, CPU) running
the same program (same weights, data, SGD(0.1), batch_size=8, shuffle=False).
"""
import numpy as np
import pytest

import paddle as pd


class Distiller(pd.Model):
    def __init__(self, student, teacher):
        super().__init__()
        self.teacher = teacher
        self.student = student

    def compile(self, optimizer, metrics, student_loss_fn, distillation_loss_fn, alpha=0.1,
                temperature=3):
        super().compile(optimizer=optimizer, metrics=metrics)
        self.student_loss_fn = student_loss_fn
        self.distillation_loss_fn = distillation_loss_fn
        self.alpha = alpha
        self.temperature = temperature

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, allow_empty=False):
        teacher_pred = self.teacher(x, training=False)
        student_loss = self.student_loss_fn(y, y_pred)
        distillation_loss = self.distillation_loss_fn(
            pd.ops.softmax(teacher_pred / self.temperature, axis=1),
            pd.ops.softmax(y_pred / self.temperature, axis=1)) * (self.temperature ** 2)
        return self.alpha * student_loss + (1 - self.alpha) * distillation_loss

    def call(self, x):
        return self.student(x)


def _distiller():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 4)).astype("float32")
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    wt = rng.normal(size=(4, 3)).astype("float32")
    ws = rng.normal(size=(4, 3)).astype("float32") * 0.5
    teacher = pd.Sequential([pd.Input((4,)), pd.layers.Dense(3)])
    teacher.set_weights([wt, np.zeros(3, "float32")])
    teacher.trainable = False
    student = pd.Sequential([pd.Input((4,)), pd.layers.Dense(3)])
    student.set_weights([ws, np.zeros(3, "float32")])
    d = Distiller(student, teacher)
    d.compile(optimizer=pd.optimizers.SGD(0.1),
              metrics=[pd.metrics.SparseCategoricalAccuracy()],
              student_loss_fn=pd.losses.SparseCategoricalCrossentropy(from_logits=True),
              distillation_loss_fn=pd.losses.KLDivergence(), alpha=0.1, temperature=10)
    return d, student, teacher, wt, x, y


def test_overridden_compute_loss_is_evaluated_without_a_compiled_loss():
    d, _, _, _, x, y = _distiller()
    got = d.evaluate(x, y, verbose=0, return_dict=True)
    assert got["loss"] == pytest.approx(1.4335949420928955, rel=1e-5)         # Keras 3.15
    assert got["sparse_categorical_accuracy"] == pytest.approx(0.25)


def test_overridden_compute_loss_is_minimized_by_fit():
    d, student, teacher, wt, x, y = _distiller()
    h = d.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [1.4335949420928955, 1.3285810947418213],
                               rtol=1e-5)                                     # Keras 3.15
    assert h.history["sparse_categorical_accuracy"] == pytest.approx([0.25, 0.25])
    np.testing.assert_allclose(student.get_weights()[0], [
        [0.124562, -0.092523, 0.672237], [0.986332, 0.896301, 0.655866],
        [0.174801, -0.49399, -0.108507], [0.324419, -0.582994, 0.140192]], atol=2e-5)
    np.testing.assert_array_equal(teacher.get_weights()[0], wt)     # frozen, as in Keras


def test_compute_loss_override_taking_training_receives_it():
    seen = []

    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                         training=True):
            seen.append(training)
            return pd.ops.mean(pd.ops.square(y - y_pred))

    net = Net()
    net.compile(optimizer="sgd")
    x, y = np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32)
    net.fit(x, y, epochs=1, verbose=0)
    net.evaluate(x, y, verbose=0)
    assert seen == [True, False]      # traced once per step kind
