"""pd.ops against real Keras (JAX backend), where Keras is installed; skipped otherwise.

Values are compared on float32, int32 and bool inputs, with dtypes: Keras on JAX reports
64-bit results as 32-bit, which paddle keeps (see paddle/ops/numpy_math.py), so 64-bit
inputs are compared by value only (test_numpy_math.py holds Keras's 64-bit dtype rules).

Run where Keras is importable, for instance:
    KERAS_BACKEND=jax PYTHONPATH=$PWD:<paddle's site-packages> <keras venv>/bin/python \\
        -m pytest tests/ops/test_keras_compare.py
"""
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)

import paddle as pd  # noqa: E402
from paddle.ops import nn as pd_nn  # noqa: E402
from paddle.ops import numpy_math  # noqa: E402

DOMAINS = {"tan": (-1.2, 1.2), "arcsin": (-0.9, 0.9), "arccos": (-0.9, 0.9), "arctanh": (-0.9, 0.9),
           "erfinv": (-0.9, 0.9), "arccosh": (1.1, 4.0), "log": (0.1, 4.0), "log2": (0.1, 4.0),
           "log10": (0.1, 4.0), "log1p": (0.1, 4.0), "sqrt": (0.1, 4.0), "rsqrt": (0.1, 4.0),
           "reciprocal": (0.5, 4.0)}
UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh",
         "arccosh", "arctanh", "exp2", "expm1", "log2", "log10", "floor", "ceil", "round",
         "trunc", "fabs", "reciprocal", "rsqrt", "cbrt", "erfc", "erfinv", "i0", "sinc",
         "deg2rad", "rad2deg", "copy", "isnan", "isinf", "isfinite", "isneginf", "isposinf",
         "signbit", "real", "imag", "conj", "angle", "nan_to_num", "logical_not", "exp", "log",
         "sqrt", "log1p", "tanh", "square"]
BINARY = ["arctan2", "logaddexp", "logaddexp2", "hypot", "heaviside", "fmod", "mod",
          "floor_divide", "divide", "true_divide", "divide_no_nan", "fmax", "fmin", "isclose",
          "nextafter", "logical_and", "logical_or", "logical_xor", "add", "subtract",
          "multiply", "maximum", "minimum", "equal", "less", "greater_equal"]
INT_BINARY = ["gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
              "right_shift", "fmod", "mod", "floor_divide", "add", "maximum"]


def inputs(name, dtype, shape=(3, 4)):
    low, high = DOMAINS.get(name, (-3.0, 3.0))
    rng = np.random.default_rng(sum(map(ord, name + dtype)) + len(shape))  # order-independent
    x = rng.uniform(low, high, shape)
    if dtype == "bool":
        return x > 0
    if dtype.startswith("int"):
        return np.round(x * (1 if name in DOMAINS else 3)).astype(dtype)
    return x.astype(dtype)


def compare(got, expected, dtype_too, rtol):
    got, expected = np.asarray(got), np.asarray(expected)
    if dtype_too:
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if got.dtype.kind == "f" or expected.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_keras(name, dtype):
    if name in ("erfinv", "rsqrt") and dtype == "int32":
        pytest.skip("Keras refuses (rsqrt) or keeps integers; paddle computes float32")
    x = inputs(name, dtype)
    got = getattr(pd.ops, name)(x).numpy()
    expected = getattr(keras.ops, name)(x)
    compare(got, expected, dtype != "float64", 1e-5 if dtype != "float64" else 1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_match_keras(name, dtype):
    a, b = inputs(name, dtype), inputs(name, dtype, (4,))
    if name in ("fmod", "mod", "floor_divide", "divide", "divide_no_nan"):
        b = np.where(np.abs(b) < 0.3, 0.7, b).astype(dtype)
    got = getattr(pd.ops, name)(a, b).numpy()
    expected = getattr(keras.ops, name)(a, b)
    compare(got, expected, dtype == "float32", 1e-5 if dtype == "float32" else 1e-6)


@pytest.mark.parametrize("name", INT_BINARY)
def test_integer_functions_match_keras(name):
    a = np.array([[-7, 12, 9, 0], [5, -18, 3, 7]], np.int32)
    b = np.array([2, 8, 3, 5], np.int32)
    compare(getattr(pd.ops, name)(a, b).numpy(), getattr(keras.ops, name)(a, b), True, 0)


def test_mixed_dtypes_match_keras():
    i, f = inputs("add", "int32"), inputs("add", "float32", (4,))
    for name in ("add", "multiply", "divide", "arctan2", "maximum", "hypot", "mod"):
        compare(getattr(pd.ops, name)(i, f).numpy(), getattr(keras.ops, name)(i, f), True, 1e-5)


NN = ["celu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_tanh", "log_sigmoid", "relu6",
      "selu", "softsign", "sparse_plus", "sparse_sigmoid", "squareplus", "tanh_shrink", "silu",
      "gelu", "soft_shrink", "elu", "leaky_relu", "softplus", "relu", "sigmoid", "softmax",
      "log_softmax", "glu"]


@pytest.mark.parametrize("name", NN)
def test_nn_activations_match_keras(name):
    x = inputs(name, "float32")
    compare(getattr(pd_nn, name)(x).numpy(), getattr(keras.ops.nn, name)(x), True, 1e-5)


def test_nn_functions_match_keras():
    x = inputs("x", "float32", (2, 3, 4))
    for name, kwargs in [("normalize", {}), ("rms_normalization", {}),
                         ("layer_normalization", {}), ("logsumexp", {"axis": 1})]:
        module = keras.ops if name == "logsumexp" else keras.ops.nn
        compare(getattr(pd.ops, name)(x, **kwargs).numpy(), getattr(module, name)(x, **kwargs),
                True, 1e-5)
    labels = np.array([[0, 2], [1, 1]])
    compare(pd_nn.multi_hot(labels, 3).numpy(), keras.ops.nn.multi_hot(labels, 3), True, 0)
    compare(pd_nn.one_hot(labels, 3, axis=1).numpy(), keras.ops.nn.one_hot(labels, 3, axis=1),
            True, 0)


def test_keras_names_are_present():
    for name in UNARY + BINARY + INT_BINARY + numpy_math.__all__:
        assert hasattr(keras.ops, name) and hasattr(pd.ops, name), name
