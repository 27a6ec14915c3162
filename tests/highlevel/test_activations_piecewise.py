"""celu, glu, hard_shrink, hard_silu / hard_swish, hard_tanh, log_sigmoid, soft_shrink,
sparse_plus, sparse_sigmoid, sparsemax, squareplus, tanh_shrink, threshold: values and
kink derivatives against Keras 3, numerical gradient checks, names in layers and saved
models, bad arguments."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import activations as A
from gradcheck import check_gradients

X = np.array([-30.0, -3.0, -1.5, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 3.0,
              30.0], np.float32)

# keras.activations.<name>(...) of Keras 3.15.1 (JAX backend) on X (the kinks included),
# rounded to 6 decimals.
KERAS = {
    "celu": [-1.0, -0.950213, -0.77687, -0.632121, -0.527633, -0.393469, -0.221199, 0.0, 0.25,
             0.5, 0.75, 1.0, 1.5, 3.0, 30.0],
    "celu_a": [-0.5, -0.498761, -0.475106, -0.432332, -0.388435, -0.31606, -0.196735, 0.0,
               0.25, 0.5, 0.75, 1.0, 1.5, 3.0, 30.0],
    "hard_shrink": [-30.0, -3.0, -1.5, -1.0, -0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75, 1.0, 1.5, 3.0,
                    30.0],
    "hard_shrink_t": [-30.0, -3.0, -1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5, 3.0,
                      30.0],
    "soft_shrink": [-29.5, -2.5, -1.0, -0.5, -0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 1.0, 2.5,
                    29.5],
    "soft_shrink_t": [-29.0, -2.0, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 2.0,
                      29.0],
    "hard_silu": [-0.0, -0.0, -0.375, -0.333333, -0.28125, -0.208333, -0.114583, 0.0, 0.135417,
                  0.291667, 0.46875, 0.666667, 1.125, 3.0, 30.0],
    "hard_tanh": [-1.0, -1.0, -1.0, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0,
                  1.0, 1.0],
    "log_sigmoid": [-30.0, -3.048587, -1.701413, -1.313262, -1.136871, -0.974077, -0.825939,
                    -0.693147, -0.575939, -0.474077, -0.386871, -0.313262, -0.201413,
                    -0.048587, -0.0],
    "sparse_plus": [0.0, 0.0, 0.0, 0.0, 0.015625, 0.0625, 0.140625, 0.25, 0.390625, 0.5625,
                    0.765625, 1.0, 1.5, 3.0, 30.0],
    "sparse_sigmoid": [0.0, 0.0, 0.0, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0,
                       1.0, 1.0, 1.0],
    "squareplus": [0.033297, 0.302776, 0.5, 0.618034, 0.693, 0.780776, 0.882782, 1.0, 1.132782,
                   1.280776, 1.443, 1.618034, 2.0, 3.302776, 30.033297],
    "squareplus_b": [0.004166, 0.041103, 0.079156, 0.112372, 0.140388, 0.183013, 0.25,
                     0.353553, 0.5, 0.683013, 0.890388, 1.112372, 1.579156, 3.041103,
                     30.004166],
    "tanh_shrink": [-29.0, -2.004945, -0.594852, -0.238406, -0.114851, -0.037883, -0.005081,
                    0.0, 0.005081, 0.037883, 0.114851, 0.238406, 0.594852, 2.004945, 29.0],
    "threshold": [-2.0, -2.0, -2.0, -2.0, -2.0, -2.0, -2.0, -2.0, -2.0, -2.0, 0.75, 1.0, 1.5,
                  3.0, 30.0],
    "glu": [[-0.806824, -0.481232], [-0.25, -0.140544], [0.365529, 0.613181]],
    "glu_axis0": [[-1.5, -0.843265, -0.622459, -0.509384, -0.365529, -0.204394]],
    # one entry kept per row: where Keras's sparsemax is the projection (see below)
    "sparsemax_one": [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
}

CASES = {
    "celu": lambda: A.celu(X), "celu_a": lambda: A.celu(X, alpha=0.5),
    "hard_shrink": lambda: A.hard_shrink(X), "hard_shrink_t": lambda: A.hard_shrink(X, 1.0),
    "soft_shrink": lambda: A.soft_shrink(X), "soft_shrink_t": lambda: A.soft_shrink(X, 1.0),
    "hard_silu": lambda: A.hard_silu(X), "hard_tanh": lambda: A.hard_tanh(X),
    "log_sigmoid": lambda: A.log_sigmoid(X), "sparse_plus": lambda: A.sparse_plus(X),
    "sparse_sigmoid": lambda: A.sparse_sigmoid(X), "squareplus": lambda: A.squareplus(X),
    "squareplus_b": lambda: A.squareplus(X, b=0.5), "tanh_shrink": lambda: A.tanh_shrink(X),
    "threshold": lambda: A.threshold(X, 0.5, -2.0),
    "glu": lambda: A.glu(X[1:13].reshape(3, 4)),
    "glu_axis0": lambda: A.glu(X[1:13].reshape(2, 6), axis=0),
    "sparsemax_one": lambda: A.sparsemax(np.array([[0.3, -1.0, 2.0], [5.0, 0.0, 1.0]],
                                                  np.float32)),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_values_match_keras(key):
    np.testing.assert_allclose(pd.eval(CASES[key]()), KERAS[key], rtol=1e-5, atol=1e-6)


# jax.vmap(jax.grad(keras.activations.<name>)) at these points (kinks included), Keras
# 3.15.1 on JAX, rounded to 6 decimals.
KINKS = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0], np.float32)
KERAS_DERIVATIVES = {
    "celu": [0.049787, 0.367879, 0.606531, 1.0, 1.0, 1.0, 1.0],
    "hard_shrink": [1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0],
    "soft_shrink": [1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0],
    "hard_silu": [0.0, 0.166667, 0.333333, 0.5, 0.666667, 0.833333, 1.0],
    "hard_tanh": [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
    "log_sigmoid": [0.952574, 0.731059, 0.622459, 0.5, 0.377541, 0.268941, 0.047426],
    "sparse_plus": [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0],
    # JAX gives 0.25 at x = -1 and 1 (it splits the tie of its clip); paddle 0.5
    "sparse_sigmoid": [0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0],
    "squareplus": [0.083975, 0.276393, 0.378732, 0.5, 0.621268, 0.723607, 0.916025],
    "tanh_shrink": [0.990134, 0.580026, 0.213552, 0.0, 0.213552, 0.580026, 0.990134],
}


@pytest.mark.parametrize("name", sorted(KERAS_DERIVATIVES))
def test_derivatives_at_the_kinks(name):
    x = pd.data("x", np.shape(KINKS))  # a graph input: gradients need a graph
    grad = pd.gradients(pd.sum(getattr(A, name)(x)), [x])[0]
    np.testing.assert_allclose(pd.eval(grad, {x: KINKS}), KERAS_DERIVATIVES[name], rtol=1e-5,
                               atol=1e-6)


# Points away from every kink (central differences across a kink are meaningless).
SMOOTH = np.array([[-3.7, -1.3, -0.8, -0.3, 0.2, 0.6, 0.9, 1.4, 2.2, 4.1]])


@pytest.mark.parametrize("fn", [
    A.celu, lambda x: A.celu(x, 0.4), A.hard_shrink, A.soft_shrink, A.hard_silu, A.hard_tanh,
    A.log_sigmoid, A.sparse_plus, A.sparse_sigmoid, A.squareplus,
    lambda x: A.squareplus(x, b=0.3), A.tanh_shrink, lambda x: A.threshold(x, 0.1, 2.0),
    A.glu, lambda x: A.sparsemax(pd.reshape(x, (2, 5))), A.sparsemax,
], ids=["celu", "celu_a", "hard_shrink", "soft_shrink", "hard_silu", "hard_tanh",
        "log_sigmoid", "sparse_plus", "sparse_sigmoid", "squareplus", "squareplus_b",
        "tanh_shrink", "threshold", "glu", "sparsemax_rows", "sparsemax"])
def test_gradients(fn):
    check_gradients(fn, [SMOOTH.copy()], order=1)


def np_sparsemax(z):
    """The projection onto the simplex by sorting (Martins & Astudillo, 2016, Alg. 1)."""
    out = np.zeros_like(z)
    for i, row in enumerate(z):
        s = np.sort(row)[::-1]
        k = np.arange(1, len(s) + 1)
        kept = 1 + k * s > np.cumsum(s)
        tau = (np.cumsum(s)[kept][-1] - 1) / k[kept][-1]
        out[i] = np.maximum(row - tau, 0)
    return out


def test_sparsemax_is_the_projection_onto_the_simplex():
    z = np.random.default_rng(5).normal(size=(6, 7)) * 2
    z[0, :3] = 1.5  # ties
    got = pd.eval(A.sparsemax(z))
    np.testing.assert_allclose(got, np_sparsemax(z), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-6)
    assert (got == 0).any()
    np.testing.assert_allclose(pd.eval(A.sparsemax(z.T, axis=0)), np_sparsemax(z).T,
                               rtol=1e-6, atol=1e-7)
    # Keras 3.15.1 gives [[0.25, 0.0, 0.0]] for this row (its tau sums the cumulative sums)
    np.testing.assert_allclose(pd.eval(A.sparsemax([[1.0, 0.5, 0.0]])), [[0.75, 0.25, 0.0]])


NAMES = ["celu", "glu", "hard_shrink", "hard_silu", "hard_swish", "hard_tanh", "log_sigmoid",
         "soft_shrink", "sparse_plus", "sparse_sigmoid", "sparsemax", "squareplus",
         "tanh_shrink"]


@pytest.mark.parametrize("name", NAMES)
def test_names_in_layers_configs_and_saved_models(name, tmp_path):
    fn = A.get(name)
    assert fn is getattr(pd.activations, name)
    assert A.get(A.serialize(fn)) is fn
    pd.seed(2)
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(4, activation=name),
                           pd.layers.Activation(name)])
    x = np.random.default_rng(3).normal(size=(5, 3)).astype(np.float32)
    want = model.predict(x, verbose=0)
    dense = model.layers[0]
    again = pd.layers.Dense.from_config(dense.get_config())
    assert again.activation is fn
    model.save(tmp_path / "m.keras")
    np.testing.assert_allclose(pd.load_model(tmp_path / "m.keras").predict(x, verbose=0), want,
                               rtol=1e-6)


def test_hard_swish_is_hard_silu_and_threshold_needs_its_arguments():
    assert A.hard_swish is A.hard_silu and A.get("hard_swish") is A.hard_silu
    assert A.get("threshold") is A.threshold  # as Keras: the function, called with arguments
    with pytest.raises(TypeError, match="default_value"):
        A.threshold(X, 0.5)


def test_a_model_trains_through_them():
    pd.seed(9)
    x = np.random.default_rng(4).normal(size=(64, 4)).astype(np.float32)
    y = (np.abs(x[:, :1]) - x[:, 1:2]).astype(np.float32)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(16, activation="celu"),
                           pd.layers.Dense(16, activation="glu"),
                           pd.layers.Dense(8, activation="squareplus"),
                           pd.layers.Dense(6, activation="sparsemax"), pd.layers.Dense(1)])
    model.compile(optimizer=pd.optimizers.Adam(0.02), loss="mse")
    history = model.fit(x, y, epochs=20, batch_size=16, verbose=0).history
    assert history["loss"][-1] < 0.5 * history["loss"][0]


def test_bad_arguments_name_the_function_the_argument_and_the_value():
    with pytest.raises(ValueError, match="activations.celu: expected alpha as a number > 0, "
                                         "received 0"):
        A.celu(X, alpha=0)
    with pytest.raises(ValueError, match="activations.hard_shrink: expected threshold as a "
                                         "number >= 0, received -1"):
        A.hard_shrink(X, threshold=-1)
    with pytest.raises(ValueError, match="activations.soft_shrink: expected threshold"):
        A.soft_shrink(X, threshold="0.5")
    with pytest.raises(ValueError, match="activations.squareplus: expected b as a number >= 0"):
        A.squareplus(X, b=-4)
    with pytest.raises(ValueError, match="activations.threshold: expected default_value as a "
                                         "number, received None"):
        A.threshold(X, 0.5, None)
    with pytest.raises(ValueError, match=r"activations.glu: expected an even, known size along "
                                         r"axis 0, received an input of shape \(15,\)"):
        A.glu(X)
    with pytest.raises(ValueError, match=r"activations.sparsemax: expected axis as an integer "
                                         r"in \[-1, 1\) for an input of shape \(15,\), "
                                         r"received 1"):
        A.sparsemax(X, axis=1)
    with pytest.raises(TypeError, match="activations.sparse_plus: expected a float input, "
                                        "received int64"):
        A.sparse_plus(np.arange(3))
    with pytest.raises(ValueError, match="activation: unknown 'hard_sillu'"):
        pd.layers.Dense(2, activation="hard_sillu")
