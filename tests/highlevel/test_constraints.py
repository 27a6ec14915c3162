"""pd.constraints: the projections, get/serialize/deserialize, the layers' *_constraint
arguments, and the optimizer applying them after each update (as Keras 3 does)."""
import numpy as np
import pytest

import paddle as pd
from paddle.devices import cuda

C = pd.constraints

X = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
Y = np.stack([X.sum(1) * 3, -X[:, 0] * 5], 1).astype("float32")
K0 = np.array([[0.5, -0.2], [0.3, 0.8], [-0.6, 0.1]], np.float32)
B0 = np.array([0.1, -0.3], np.float32)

# Keras 3.15.1 (JAX backend): Dense(2, kernel_constraint=kc, bias_constraint=bc) from K0,
# B0, compiled with SGD(0.1) and "mse", fit(X, Y, batch_size=4, epochs=2, shuffle=False);
# the kernel and bias after training (4 updates, each followed by the constraints).
KERAS_RUNS = [
    ((C.MaxNorm(0.5), C.NonNeg()),
     [[0.302894, -0.386701], [0.302213, -0.099543], [0.258694, -0.300921]],
     [0.427108, 0.068956]),
    ((C.UnitNorm(axis=1), None),
     [[0.882564, -0.470191], [0.99769, 0.067932], [-0.204102, -0.97895]],
     [0.154452, -0.034284]),
    ((C.MinMaxNorm(0.4, 0.6, rate=0.7), C.MaxNorm(0.1, axis=0)),
     [[0.521525, -0.551274], [0.49515, -0.033876], [0.336725, -0.381946]],
     [0.093626, -0.03513]),
]


def _trained(kernel_constraint, bias_constraint):
    dense = pd.layers.Dense(2, kernel_constraint=kernel_constraint,
                            bias_constraint=bias_constraint)
    model = pd.Sequential([pd.Input(shape=(3,)), dense])
    model.compile(pd.optimizers.SGD(0.1), "mse")
    dense.set_weights([K0, B0])
    model.fit(X, Y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    return dense


@pytest.mark.parametrize("constraints, kernel, bias", KERAS_RUNS)
def test_fit_applies_constraints_after_each_update_as_keras(constraints, kernel, bias):
    dense = _trained(*constraints)
    np.testing.assert_allclose(dense.kernel.val(), kernel, atol=2e-5)
    np.testing.assert_allclose(dense.bias.val(), bias, atol=2e-5)


@pytest.mark.parametrize("constraints, kernel, bias", KERAS_RUNS[:2])
def test_constraints_run_on_the_cuda_backend(constraints, kernel, bias):
    with cuda.simulated():
        pd.set_device("gpu")
        dense = _trained(*constraints)
        np.testing.assert_allclose(dense.kernel.val(), kernel, atol=2e-5)
        np.testing.assert_allclose(dense.bias.val(), bias, atol=2e-5)


@pytest.mark.parametrize("cls, kwargs, expected", [
    # NumPy versions of Keras 3's formulas (keras/src/constraints/constraints.py).
    (C.MaxNorm, {"max_value": 2.0, "axis": 0},
     lambda w, n: w * np.clip(n, 0, 2.0) / (1e-7 + n)),
    (C.UnitNorm, {"axis": 1}, lambda w, n: w / (1e-7 + n)),
    (C.MinMaxNorm, {"min_value": 1.0, "max_value": 2.0, "rate": 0.5, "axis": 0},
     lambda w, n: w * (0.5 * np.clip(n, 1.0, 2.0) + 0.5 * n) / (1e-7 + n)),
])
def test_projections_match_keras_formulas(cls, kwargs, expected):
    w = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32) * 2
    norms = np.sqrt((w ** 2).sum(axis=kwargs["axis"], keepdims=True))
    got = pd.eval(cls(**kwargs)(pd.constant(w)))
    np.testing.assert_allclose(got, expected(w, norms), rtol=1e-5)


def test_nonneg_and_multi_axis_norms():
    w = np.array([[-1.0, 2.0], [3.0, -0.5]], np.float32)
    assert pd.eval(C.NonNeg()(pd.constant(w))).tolist() == [[0.0, 2.0], [3.0, 0.0]]
    conv = np.random.default_rng(1).normal(size=(3, 3, 2, 4)).astype(np.float32)
    got = pd.eval(C.UnitNorm(axis=[0, 1, 2])(pd.constant(conv)))
    np.testing.assert_allclose(np.sqrt((got ** 2).sum(axis=(0, 1, 2))), np.ones(4), rtol=1e-5)
    assert pd.eval(C.Constraint()(pd.constant(w))).tolist() == w.tolist()


def test_get_serialize_deserialize():
    assert isinstance(C.get("max_norm"), C.MaxNorm) and isinstance(C.get("MaxNorm"), C.MaxNorm)
    assert isinstance(C.get(C.NonNeg), C.NonNeg)
    assert C.get(None) is None
    fn = lambda w: w  # noqa: E731
    assert C.get(fn) is fn
    assert C.max_norm is C.MaxNorm and C.min_max_norm is C.MinMaxNorm
    assert C.non_neg is C.NonNeg and C.unit_norm is C.UnitNorm
    config = C.serialize(C.MinMaxNorm(0.5, 2.0, rate=0.5, axis=1))
    # Keras 3.15.1: keras.constraints.serialize(keras.constraints.MaxNorm(3)) is
    # {'module': 'keras.constraints', 'class_name': 'MaxNorm', 'config': {...},
    #  'registered_name': None}
    assert config == {"module": "keras.constraints", "class_name": "MinMaxNorm",
                      "config": {"min_value": 0.5, "max_value": 2.0, "rate": 0.5, "axis": 1},
                      "registered_name": None}
    back = C.deserialize(config)
    assert isinstance(back, C.MinMaxNorm) and back.get_config() == config["config"]
    assert C.get(config).get_config() == config["config"]
    assert C.serialize(None) is None


def test_custom_constraint_round_trips_through_custom_objects():
    @pd.saving.register_keras_serializable(package="test_constraints")
    class Clip(C.Constraint):
        def __init__(self, bound=1.0):
            self.bound = bound

        def __call__(self, w):
            return pd.clip(w, -self.bound, self.bound)

        def get_config(self):
            return {"bound": self.bound}

    back = C.deserialize(C.serialize(Clip(0.25)))
    assert isinstance(back, Clip) and back.bound == 0.25


@pytest.mark.parametrize("bad, message", [
    ("foo", "could not interpret the identifier 'foo'"),
    (3, "could not interpret the identifier 3"),
])
def test_get_refuses_unknown_identifiers(bad, message):
    with pytest.raises(ValueError, match=message):
        C.get(bad)


@pytest.mark.parametrize("make, message", [
    (lambda: C.MaxNorm(max_value=-1), "MaxNorm: expected max_value to be a finite number >= 0"),
    (lambda: C.MaxNorm(max_value="2"), "MaxNorm: expected max_value"),
    (lambda: C.MaxNorm(axis=1.5), "MaxNorm: expected axis to be an int or a list"),
    (lambda: C.UnitNorm(axis=[0, 0]), "UnitNorm: expected axis"),
    (lambda: C.MinMaxNorm(2.0, 1.0), "MinMaxNorm: expected min_value <= max_value"),
    (lambda: C.MinMaxNorm(rate=1.5), "MinMaxNorm: expected rate in \\[0, 1\\]"),
    (lambda: C.deserialize(42), "constraint: expected a config dict"),
    (lambda: pd.layers.Dense(2, kernel_constraint="nope"),
     "Dense: kernel_constraint: constraint: could not interpret the identifier 'nope'"),
])
def test_bad_arguments_are_refused_with_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_axis_outside_the_weight_is_refused():
    with pytest.raises(ValueError, match="MaxNorm: axis 2 is outside a weight of shape"):
        C.MaxNorm(axis=2)(pd.constant(np.ones((2, 2), np.float32)))


def test_constraint_returning_a_wrong_shape_names_the_weight():
    dense = pd.layers.Dense(2, kernel_constraint=lambda w: pd.sum(w))
    model = pd.Sequential([pd.Input(shape=(3,)), dense])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="kernel'.*expected a Variable of shape \\(3, 2\\)"):
        model.train_on_batch(X, Y)


def test_layers_take_keras_constraint_arguments_and_keep_them_in_configs():
    x2 = pd.Input(shape=(6, 6, 3))
    seq = pd.Input(shape=(5, 4))
    cases = [
        (pd.layers.Embedding(10, 3, embeddings_constraint="unit_norm"), pd.Input(shape=(4,)),
         {"embeddings_constraint": "embeddings"}),
        (pd.layers.Conv2D(2, 3, kernel_constraint="max_norm", bias_constraint="non_neg"), x2,
         {"kernel_constraint": "kernel", "bias_constraint": "bias"}),
        (pd.layers.DepthwiseConv2D(3, depthwise_constraint="non_neg"), x2,
         {"depthwise_constraint": "kernel"}),
        (pd.layers.BatchNormalization(beta_constraint="non_neg", gamma_constraint="max_norm"),
         x2, {"beta_constraint": "beta", "gamma_constraint": "gamma"}),
        (pd.layers.LayerNormalization(gamma_constraint="unit_norm"), seq,
         {"gamma_constraint": "gamma"}),
        (pd.layers.LSTM(3, kernel_constraint="max_norm", recurrent_constraint="unit_norm",
                        bias_constraint="non_neg"), seq,
         {"kernel_constraint": "kernel", "recurrent_constraint": "recurrent_kernel",
          "bias_constraint": "bias"}),
        (pd.layers.PReLU(alpha_constraint="non_neg"), seq, {"alpha_constraint": "alpha"}),
    ]
    for layer, x, keys in cases:
        layer(x)
        config = layer.get_config()
        clone = type(layer).from_config(config)
        for key, attr in keys.items():
            assert getattr(layer, attr).constraint is getattr(layer, key), (layer, key)
            assert config[key]["module"] == "keras.constraints"
            assert type(getattr(clone, key)) is type(getattr(layer, key))


def test_model_save_and_load_keep_constraints(tmp_path):
    dense = pd.layers.Dense(2, kernel_constraint=C.MaxNorm(0.5, axis=0))
    model = pd.Sequential([pd.Input(shape=(3,)), dense])
    for path in (tmp_path / "m.keras", tmp_path / "m.h5"):
        model.save(str(path))
        loaded = pd.models.load_model(str(path))
        kept = loaded.layers[-1].kernel_constraint
        assert isinstance(kept, C.MaxNorm) and kept.get_config() == {"max_value": 0.5, "axis": 0}
        assert loaded.layers[-1].kernel.constraint is kept
    json_clone = pd.models.model_from_json(model.to_json())
    assert isinstance(json_clone.layers[-1].kernel_constraint, C.MaxNorm)


def test_add_weight_constraint_and_optimizer_apply():
    class Scale(pd.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones",
                                     constraint="non_neg")

        def call(self, inputs):
            return inputs * self.w

    layer = Scale()
    out = layer(pd.Input(shape=(2,)))
    assert isinstance(layer.w.constraint, C.NonNeg)
    loss = pd.sum(out)
    opt = pd.optimizers.SGD(learning_rate=10.0)
    step = opt.apply(pd.gradients(loss, [layer.w]), [layer.w])
    pd.eval(step, {out.node.inputs[0]: np.ones((1, 2), np.float32)})
    assert layer.w.val().tolist() == [0.0, 0.0]  # 1 - 10 = -9, then projected to 0


def test_a_run_returns_the_weight_from_before_its_update_and_constraint():
    w = pd.Variable("constraints_before_w", shape=[2], initializer="ones")
    w.constraint = C.MaxNorm(0.1)
    step = pd.optimizers.SGD(0.0).minimize(pd.sum(w * w))
    before, _ = pd.eval([w * 1.0, step])
    assert before.tolist() == [1.0, 1.0]
    np.testing.assert_allclose(np.linalg.norm(w.val()), 0.1, rtol=1e-5)
