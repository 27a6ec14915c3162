"""The distillation cases test_distillation.py runs in paddle and
make_distillation_reference.py in Keras 3: built from either namespace (`k` is `keras` or
`paddle`, which spell these the same), on fixed weights, fitted on one full batch."""
import numpy as np

EPOCHS = 3
RNG = np.random.default_rng(7)
X = RNG.standard_normal((8, 4)).astype("float32")
Y = np.array([0, 1, 2, 0, 1, 2, 0, 1], "int32")
TEACHER = [RNG.standard_normal(s).astype("float32") * 0.5 for s in [(4, 5), (5,), (5, 3), (3,)]]
STUDENT = [RNG.standard_normal(s).astype("float32") * 0.5 for s in [(4, 5), (5,), (5, 3), (3,)]]


def models(k):
    teacher = k.Sequential([k.Input((4,)), k.layers.Dense(5, name="t_hidden"),
                            k.layers.Dense(3, name="t_out")])
    student = k.Sequential([k.Input((4,)), k.layers.Dense(5, name="s_hidden"),
                            k.layers.Dense(3, name="s_out")])
    teacher.set_weights(TEACHER)
    student.set_weights(STUDENT)
    return teacher, student


CASES = {
    # Keras's default loss name: kl_divergence on the scaled logits themselves
    "logits_and_features": lambda k: (
        [k.distillation.LogitsDistillation(temperature=2.0),
         k.distillation.FeatureDistillation(loss="mse", teacher_layer_name="t_hidden",
                                            student_layer_name="s_hidden")],
        {"distillation_loss_weights": [1.0, 0.5], "student_loss_weight": 0.3},
        {"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}),
    # a KLDivergence instance: softmax of both, times temperature ** 2
    "kl_instance": lambda k: (
        k.distillation.LogitsDistillation(temperature=3.0, loss=k.losses.KLDivergence()), {},
        {"loss": k.losses.SparseCategoricalCrossentropy(from_logits=True)}),
    "features_only": lambda k: (
        k.distillation.FeatureDistillation(loss="mae"), {"student_loss_weight": 0.0},
        {"loss": "sparse_categorical_crossentropy"}),
    "labels_only": lambda k: (
        k.distillation.LogitsDistillation(loss="categorical_crossentropy"),
        {"student_loss_weight": 1.0},
        {"loss": k.losses.SparseCategoricalCrossentropy(from_logits=True)}),
}


def run(k, case):
    """{metric: [value per epoch]} of fit, then evaluate's, and the student's weights."""
    teacher, student = models(k)
    losses, kwargs, compiled = CASES[case](k)
    distiller = k.distillation.Distiller(teacher, student, losses, **kwargs)
    distiller.compile(optimizer=k.optimizers.SGD(0.1), **compiled)
    history = distiller.fit(X, Y, epochs=EPOCHS, batch_size=8, verbose=0, shuffle=False)
    evaluated = distiller.evaluate(X, Y, verbose=0, return_dict=True)
    return {"history": {n: [float(v) for v in vs] for n, vs in history.history.items()},
            "evaluate": {n: float(v) for n, v in evaluated.items()},
            "student": [np.asarray(w).tolist() for w in student.get_weights()]}
