"""The graph: Variables, data, parameters and initializers, constants, operators, names,
namespaces and reuse, get_variable, seeding, shape inference on construction, ShapeError."""
import numpy as np
import pytest

import paddle as pd


def feed_eval(target, **arrays):
    """Evaluate with feeds given by input name."""
    return pd.eval(target, dict(arrays))


# ---- Variable and data ------------------------------------------------------------------

def test_data_attributes():
    x = pd.data("x", shape=[None, 784])
    y = pd.data("y", shape=[None], dtype="int64")
    assert (x.shape, x.dtype, x.name) == ((None, 784), "float32", "x")
    assert (y.shape, y.dtype) == ((None,), "int64")
    assert x.trainable is False
    assert isinstance(x, pd.Variable)


def test_data_rejects_bad_arguments():
    with pytest.raises(ValueError, match="received"):
        pd.data("x", shape=[-1, 3])
    with pytest.raises(ValueError, match="uint16"):
        pd.data("x", shape=[3], dtype="uint16")
    assert pd.data("z", shape=[3], dtype="complex64").dtype == "complex64"  # a dtype now
    with pytest.raises(ValueError):
        pd.data("", shape=[3])
    with pytest.raises(ValueError):
        pd.data("x", shape="abc")


def test_parameter_attributes_and_value():
    w = pd.Variable("w", shape=[3, 2], initializer="ones")
    assert (w.shape, w.dtype, w.trainable) == ((3, 2), "float32", True)
    v = w.val()
    np.testing.assert_array_equal(v, np.ones((3, 2), np.float32))
    v[0, 0] = 5.0                                       # val() is a copy
    assert w.val()[0, 0] == 1.0
    frozen = pd.Variable("frozen", shape=[2], trainable=False)
    assert frozen.trainable is False


def test_set_value_and_eval():
    w = pd.Variable("w", shape=[2, 3], initializer="zeros")
    new = np.arange(6, dtype=np.float64).reshape(2, 3)
    w.set_value(new)
    np.testing.assert_array_equal(w.val(), new.astype(np.float32))
    assert w.val().dtype == np.float32
    np.testing.assert_array_equal(w.eval(), new)
    np.testing.assert_array_equal(pd.eval(w * 2.0), new * 2)


def test_set_value_wrong_shape_raises_and_keeps_value():
    w = pd.Variable("w", shape=[2, 3], initializer="ones")
    with pytest.raises(pd.ShapeError, match=r"\(2, 3\).*\(3, 2\)"):
        w.set_value(np.zeros((3, 2)))
    np.testing.assert_array_equal(w.val(), np.ones((2, 3)))


def test_set_value_only_on_parameters():
    x = pd.data("x", shape=[2])
    with pytest.raises(ValueError, match="'x'"):
        x.set_value(np.zeros(2))
    with pytest.raises(ValueError, match="no stored value"):
        x.val()


def test_variable_eval_with_feeds():
    x = pd.data("x", shape=[None, 2])
    y = x * 3.0
    np.testing.assert_allclose(y.eval({x: np.ones((4, 2))}), np.full((4, 2), 3.0))


def test_parameter_needs_known_shape():
    with pytest.raises(pd.ShapeError, match="fully known"):
        pd.Variable("w", shape=[None, 3])


def test_rank0_parameter_and_constant_keep_their_shape():
    s = pd.Variable("s", shape=[], initializer="ones")
    assert s.shape == () and s.val().shape == ()
    c = pd.constant(2.0)
    assert c.shape == () and c.val().shape == ()
    out = pd.eval(c * 3.0)
    assert out.shape == () and float(out) == 6.0


# ---- initializers -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["zeros", "ones", "glorot_uniform", "glorot_normal",
                                  "he_normal", "he_uniform", "lecun_normal", "lecun_uniform"])
def test_every_initializer_name(name):
    w = pd.Variable("w", shape=[20, 30], initializer=name, dtype="float64")
    v = w.val()
    assert v.shape == (20, 30) and v.dtype == np.float64 and np.isfinite(v).all()
    if name == "zeros":
        assert (v == 0).all()
    elif name == "ones":
        assert (v == 1).all()
    else:
        assert v.std() > 0


@pytest.mark.parametrize("name,expected_std,uniform", [
    ("glorot_uniform", np.sqrt(2.0 / (200 + 300)), True),
    ("glorot_normal", np.sqrt(2.0 / (200 + 300)), False),
    ("he_normal", np.sqrt(2.0 / 200), False),
    ("he_uniform", np.sqrt(2.0 / 200), True),
    ("lecun_normal", np.sqrt(1.0 / 200), False),
])
def test_variance_scaling_statistics(name, expected_std, uniform):
    pd.seed(1)
    v = pd.Variable("w", shape=[200, 300], initializer=name).val().astype(np.float64)
    assert abs(v.mean()) < 0.01 * expected_std * 10
    assert v.std() == pytest.approx(expected_std, rel=0.05)
    if uniform:
        limit = np.sqrt(3.0) * expected_std
        assert np.abs(v).max() <= limit * (1 + 1e-6)
        assert np.abs(v).max() > 0.95 * limit
    else:  # truncated at two standard deviations of the underlying normal
        assert np.abs(v).max() <= 2 * expected_std / 0.8796 * (1 + 1e-6)


def test_fans_of_convolution_kernels_include_the_receptive_field():
    pd.seed(2)
    v = pd.Variable("k", shape=[3, 3, 16, 32], initializer="he_normal").val()
    assert v.std() == pytest.approx(np.sqrt(2.0 / (3 * 3 * 16)), rel=0.07)


def test_initializer_objects():
    pd.seed(3)
    n = pd.Variable("n", shape=[100, 100],
                    initializer=pd.initializers.Normal(mean=1.0, stddev=0.5)).val()
    assert n.mean() == pytest.approx(1.0, abs=0.02)
    assert n.std() == pytest.approx(0.5, rel=0.03)
    u = pd.Variable("u", shape=[100, 100], initializer=pd.initializers.Uniform(2.0, 3.0)).val()
    assert u.min() >= 2.0 and u.max() <= 3.0
    assert u.mean() == pytest.approx(2.5, abs=0.02)
    c = pd.Variable("c", shape=[2, 5], initializer=pd.initializers.Constant(7)).val()
    np.testing.assert_array_equal(c, np.full((2, 5), 7.0))


def test_default_initializers():
    pd.seed(4)
    w = pd.Variable("w", shape=[50, 60]).val()
    limit = np.sqrt(6.0 / (50 + 60))
    assert w.std() > 0 and np.abs(w).max() <= limit * (1 + 1e-6)
    assert w.std() == pytest.approx(limit / np.sqrt(3), rel=0.1)
    b = pd.Variable("b", shape=[7]).val()
    np.testing.assert_array_equal(b, np.zeros(7))
    s = pd.Variable("s", shape=[]).val()
    assert s.shape == () and float(s) == 0.0


def test_unknown_initializer():
    with pytest.raises(ValueError, match="bogus"):
        pd.Variable("w", shape=[2, 2], initializer="bogus")
    with pytest.raises(TypeError):
        pd.Variable("w", shape=[2, 2], initializer=3)


def test_seed_makes_initialization_reproducible():
    def make():
        x = pd.data("x", shape=[None, 5])
        pd.fc(x, size=4)
        return [pd.Variable("w", shape=[5, 5], initializer=n).val()
                for n in ("glorot_uniform", "he_normal")]
    pd.seed(42)
    a = make()
    pd.seed(42)
    b = make()
    pd.seed(43)
    c = make()
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


def test_seed_rejects_bad_values():
    for bad in (-1, 1.5, "1", True):
        with pytest.raises(ValueError):
            pd.seed(bad)


# ---- constants --------------------------------------------------------------------------

def test_constant():
    c = pd.constant([[1.0, 2.0]])
    assert (c.shape, c.dtype, c.kind) == ((1, 2), "float32", "const")
    np.testing.assert_array_equal(c.val(), [[1.0, 2.0]])
    np.testing.assert_array_equal(pd.eval(c), [[1.0, 2.0]])
    assert pd.constant([1, 2]).dtype == "int64"
    assert pd.constant(np.ones(2), dtype="float32").dtype == "float32"
    assert pd.constant(np.array([True])).dtype == "bool"


@pytest.mark.parametrize("value, dtype", [
    (np.ones(2), "float64"),                    # a NumPy array keeps its float dtype (tf)
    (np.ones(2, np.float32), "float32"), (np.float64(1.5), "float64"),
    (np.ones(2, np.float16), "float32"),        # no float16 kernels: computed in float32
    (1.5, "float32"), ([1.0, 2.0], "float32"),  # Python floats and lists: float32
    ([[np.float64(1.0)]], "float32"), (3, "int64"), (np.arange(3, dtype=np.int32), "int64"),
])
def test_constant_dtype_follows_tensorflow(value, dtype):
    c = pd.constant(value)
    assert c.dtype == dtype and c.val().dtype == np.dtype(dtype)
    np.testing.assert_allclose(c.val(), np.asarray(value, np.float64))


def test_ops_on_float64_arrays_still_compute_in_float32():
    # Operands given as arrays are converted like the other operand (or float32 alone).
    assert pd.exp(np.ones(2)).dtype == "float32"
    assert (pd.data("x64", shape=[2], dtype="float64") + np.ones(2)).dtype == "float64"


def test_constant_copies_the_callers_array():
    a = np.ones(3, np.float32)
    c = pd.constant(a)
    a[0] = 5.0                                           # still writable, and not shared
    np.testing.assert_array_equal(pd.eval(c), np.ones(3))
    with pytest.raises(ValueError):
        c.set_value(np.zeros(3))


# ---- operators --------------------------------------------------------------------------

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3))
B = RNG.standard_normal((3,))
POS = RNG.uniform(0.5, 2.0, (4, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("build,ref", [
    (lambda x, y: x + y, lambda a, b: a + b),
    (lambda x, y: x - y, lambda a, b: a - b),
    (lambda x, y: x * y, lambda a, b: a * b),
    (lambda x, y: x / y, lambda a, b: a / b),
    (lambda x, y: x + 2.0, lambda a, b: a + 2.0),
    (lambda x, y: 2.0 + x, lambda a, b: 2.0 + a),
    (lambda x, y: 1.5 - x, lambda a, b: 1.5 - a),
    (lambda x, y: 3 * x, lambda a, b: 3 * a),
    (lambda x, y: 1.0 / (x * x + 1.0), lambda a, b: 1.0 / (a * a + 1.0)),
    (lambda x, y: -x, lambda a, b: -a),
    (lambda x, y: x - y * 2 + (-y), lambda a, b: a - b * 2 - b),
], ids=["add", "sub", "mul", "div", "add_num", "radd", "rsub", "rmul", "rdiv", "neg", "mixed"])
def test_operators_broadcast_like_numpy(build, ref, dtype):
    x = pd.data("x", shape=[None, 3], dtype=dtype)
    y = pd.data("y", shape=[3], dtype=dtype)
    out = build(x, y)
    got = pd.eval(out, {x: A.astype(dtype), y: B.astype(dtype)})
    assert got.dtype == dtype and out.dtype == dtype
    np.testing.assert_allclose(got, ref(A.astype(dtype), B.astype(dtype)), rtol=1e-5)


def test_power_operators():
    x = pd.data("x", shape=[4, 3], dtype="float64")
    got = pd.eval([x ** 2.0, x ** 0.5, 2.0 ** x, x ** x], {x: POS})
    for g, r in zip(got, [POS ** 2, POS ** 0.5, 2.0 ** POS, POS ** POS]):
        np.testing.assert_allclose(g, r, rtol=1e-12)


def test_numpy_arrays_on_either_side():
    x = pd.data("x", shape=[None, 3], dtype="float64")
    row = np.array([1.0, 2.0, 3.0])
    left, right, sub, div = row + x, x + row, row - x, row / (x + 10.0)
    for v in (left, right, sub, div):
        assert isinstance(v, pd.Variable) and v.shape == (None, 3)
    got = pd.eval([left, right, sub, div], {x: A})
    np.testing.assert_allclose(got[0], row + A)
    np.testing.assert_allclose(got[1], A + row)
    np.testing.assert_allclose(got[2], row - A)
    np.testing.assert_allclose(got[3], row / (A + 10.0))


def test_numpy_scalars_on_either_side_keep_the_variables_dtype():
    x = pd.data("x", shape=[2], dtype="float32")
    outs = [np.float64(2.0) * x, np.float32(2.0) + x, x * np.float64(3.0), np.int64(2) * x]
    assert all(isinstance(o, pd.Variable) and o.dtype == "float32" for o in outs)
    got = pd.eval(outs, {x: np.ones(2)})
    for g, r in zip(got, [2.0, 3.0, 3.0, 2.0]):
        np.testing.assert_array_equal(g, [r, r])


def test_matmul_operator_both_ways():
    x = pd.data("x", shape=[None, 3], dtype="float64")
    w = np.arange(6.0).reshape(3, 2)
    m = np.arange(8.0).reshape(2, 4)
    a = x @ w
    assert a.shape == (None, 2)
    y = pd.data("y", shape=[4, None], dtype="float64")
    r = m @ y
    assert r.shape == (2, None)
    got = pd.eval([a, r], {x: A, y: np.ones((4, 5))})
    np.testing.assert_allclose(got[0], A @ w)
    np.testing.assert_allclose(got[1], m @ np.ones((4, 5)))


def test_python_int_takes_the_variables_dtype():
    i = pd.data("i", shape=[3], dtype="int64")
    out = i * 2 + 1
    assert out.dtype == "int64"
    np.testing.assert_array_equal(pd.eval(out, {i: np.array([1, 2, 3])}), [3, 5, 7])


def test_mixing_int_and_float_is_an_error():
    i = pd.data("i", shape=[3], dtype="int64")
    with pytest.raises(pd.ShapeError, match="dtypes differ"):
        i * 2.5
    x = pd.data("x", shape=[3], dtype="float32")
    with pytest.raises(pd.ShapeError, match="float64"):
        x + pd.data("z", shape=[3], dtype="float64")


def test_variable_has_no_truth_value():
    x = pd.data("x", shape=[3])
    with pytest.raises(TypeError, match="truth value"):
        bool(x > 0.0)


def test_operator_with_a_non_number():
    x = pd.data("x", shape=[3])
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x * object()


# ---- names and namespaces ---------------------------------------------------------------

def test_names_are_unique_with_a_numeric_suffix():
    # A name no other test keeps alive: names are freed with their Variables.
    w = pd.Variable("kernel", shape=[2])
    w1 = pd.Variable("kernel", shape=[2])
    w2 = pd.Variable("kernel", shape=[2])
    assert (w.name, w1.name, w2.name) == ("kernel", "kernel_1", "kernel_2")


def test_a_dropped_parameter_frees_its_name():
    w = pd.Variable("dropped", shape=[2])
    assert w.name == "dropped"
    del w
    assert pd.Variable("dropped", shape=[2]).name == "dropped"


def test_namespaces_prefix_and_nest():
    x = pd.data("x", shape=[None, 4])
    with pd.namespace("outer"):
        d = pd.data("inp", shape=[2])
        v = pd.Variable("v", shape=[2])
        with pd.namespace("inner"):
            u = pd.Variable("u", shape=[2])
            h = pd.fc(x, size=3)
        h2 = pd.fc(x, size=3)
    assert d.name == "outer/inp"
    assert v.name == "outer/v"
    assert u.name == "outer/inner/u"
    assert pd.get_variable("outer/inner/fc_0/w").shape == (4, 3)
    assert pd.get_variable("outer/fc_0/b").shape == (3,)
    assert h.shape == h2.shape == (None, 3)
    assert pd.Variable("v", shape=[2]).name == "v"        # prefix popped again


def test_namespace_rejects_bad_names():
    for bad in ("", "a/b", 3):
        with pytest.raises(ValueError):
            with pd.namespace(bad):
                pass


def test_fc_creates_numbered_scopes():
    x = pd.data("x", shape=[None, 784])
    with pd.namespace("mlp"):
        h = pd.fc(x, size=128, act="relu")
        logits = pd.fc(h, size=10)
    assert h.shape == (None, 128) and logits.shape == (None, 10)
    assert pd.get_variable("mlp/fc_0/w").shape == (784, 128)
    assert pd.get_variable("mlp/fc_0/b").shape == (128,)
    assert pd.get_variable("mlp/fc_1/w").shape == (128, 10)
    np.testing.assert_array_equal(pd.get_variable("mlp/fc_0/b").val(), np.zeros(128))


def test_reuse_shares_parameters():
    x = pd.data("x", shape=[None, 4])
    with pd.namespace("net"):
        a = pd.fc(pd.fc(x, size=5, act="tanh"), size=2)
    before = dict(pd.lowlevel.graph.NAMES.params)
    with pd.namespace("net", reuse=True):
        b = pd.fc(pd.fc(x, size=5, act="tanh"), size=2)
    after = dict(pd.lowlevel.graph.NAMES.params)
    assert sorted(before) == sorted(after)                # no new parameter
    assert all(before[k] is after[k] for k in before)
    xv = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    ra, rb = pd.eval([a, b], {x: xv})
    np.testing.assert_array_equal(ra, rb)
    # Sharing means one update changes both.
    w = pd.get_variable("net/fc_0/w")
    w.set_value(w.val() * 2.0)
    ra2, rb2 = pd.eval([a, b], {x: xv})
    np.testing.assert_array_equal(ra2, rb2)
    assert not np.array_equal(ra, ra2)


def test_reuse_nested_and_without_reuse_makes_new_parameters():
    x = pd.data("x", shape=[None, 4])
    with pd.namespace("g"):
        with pd.namespace("body"):
            first = pd.fc(x, size=2)                     # keeps its parameters alive
    with pd.namespace("g", reuse=True):
        with pd.namespace("body"):                       # reuse is inherited
            y = pd.fc(x, size=2)
    names = [n for n in pd.lowlevel.graph.NAMES.params.keys() if n.startswith("g/")]
    assert sorted(names) == ["g/body/fc_0/b", "g/body/fc_0/w"]
    with pd.namespace("g"):
        with pd.namespace("body"):
            third = pd.fc(x, size=2)
    assert pd.get_variable("g/body/fc_1/w").shape == (4, 2)
    assert first.shape == y.shape == third.shape == (None, 2)


def test_reuse_errors():
    x = pd.data("x", shape=[None, 4])
    with pd.namespace("r"):
        kept = pd.fc(x, size=2)
    with pytest.raises(pd.ShapeError, match="r/fc_0/w"):
        with pd.namespace("r", reuse=True):
            pd.fc(x, size=3)
    with pytest.raises(ValueError, match="nothing/fc_0/w"):
        with pd.namespace("nothing", reuse=True):
            pd.fc(x, size=3)
    assert kept.shape == (None, 2)


def test_get_variable():
    with pd.namespace("gv"):
        w = pd.Variable("w", shape=[2, 2])
    assert pd.get_variable("gv/w") is w
    with pytest.raises(KeyError, match="gv/missing"):
        pd.get_variable("gv/missing")
    with pytest.raises(KeyError):
        pd.get_variable("nowhere/w")


# ---- shape inference on construction ----------------------------------------------------

def test_shapes_are_known_when_the_op_is_built():
    x = pd.data("x", shape=[None, 784])
    w = pd.Variable("w", shape=[784, 10])
    z = x @ w + 1.0
    assert z.shape == (None, 10) and z.dtype == "float32"
    assert pd.sum(z, axis=0).shape == (10,)
    assert pd.mean(z, axis=1, keepdims=True).shape == (None, 1)
    assert pd.reshape(z, [-1, 5, 2]).shape == (None, 5, 2)
    assert pd.transpose(z).shape == (10, None)
    assert pd.concat([z, z], axis=1).shape == (None, 20)
    assert pd.concat([z, z], axis=0).shape == (None, 10)
    assert pd.argmax(z).shape == (None,) and pd.argmax(z).dtype == "int64"
    assert pd.softmax(z).shape == (None, 10)
    assert (pd.data("c", shape=[None, 1]) + pd.data("r", shape=[3])).shape == (None, 3)
    assert (pd.data("p", shape=[None, 3]) + pd.data("q", shape=[5, 1, 1])).shape == (5, None, 3)
    assert pd.one_hot(pd.data("l", shape=[None], dtype="int64"), 4).shape == (None, 4)
    assert pd.cast(z, "float64").dtype == "float64"
    assert (z > 0.0).dtype == "bool"


def test_shape_error_names_op_shapes_and_user_line():
    x = pd.data("x", shape=[None, 784])
    with pytest.raises(pd.ShapeError) as info:
        pd.matmul(x, pd.Variable("bad", shape=[10, 3]))
    msg = str(info.value)
    assert msg.startswith("matmul")
    assert "(None, 784)" in msg and "(10, 3)" in msg
    assert "test_graph.py:" in msg
    assert isinstance(info.value, ValueError) and isinstance(info.value, pd.PaddleError)


def test_shape_error_of_operators_names_the_line():
    a = pd.data("a", shape=[None, 3])
    b = pd.data("b", shape=[4])
    with pytest.raises(pd.ShapeError) as info:
        a + b
    msg = str(info.value)
    assert "add" in msg and "(None, 3)" in msg and "(4,)" in msg and "test_graph.py:" in msg


@pytest.mark.parametrize("build", [
    lambda x: pd.reshape(x, [4, 4]),
    lambda x: pd.sum(x, axis=3),
    lambda x: pd.transpose(x, [0, 0]),
    lambda x: pd.concat([x, pd.data("z", shape=[None, 5])], axis=0),
    lambda x: pd.squeeze(x, 1),
    lambda x: pd.softmax(x, axis=2),
    lambda x: pd.split(x, 2, axis=1),
    lambda x: x[:, 7],
    lambda x: pd.pad(x, [(1, 1)]),
    lambda x: pd.matmul(x, pd.data("v", shape=[4, 2])),
    lambda x: pd.stack([x, x], axis=4),
    lambda x: pd.slice(x, [0], [1]),
    lambda x: pd.softmax_cross_entropy(x, pd.data("l", shape=[None, 2], dtype="int64")),
])
def test_shape_errors_at_construction(build):
    x = pd.data("x", shape=[None, 3])
    with pytest.raises(pd.ShapeError) as info:
        build(x)
    assert "test_graph.py:" in str(info.value)


def test_float_mixed_dtype_matmul_is_a_shape_error():
    with pytest.raises(pd.ShapeError, match="float64"):
        pd.data("a", shape=[2, 3]) @ pd.data("b", shape=[3, 2], dtype="float64")


def test_dtype_errors_name_the_line_too():
    i = pd.data("i", shape=[3], dtype="int64")
    with pytest.raises(TypeError) as info:
        pd.exp(i)
    assert "exp" in str(info.value) and "int64" in str(info.value)
    assert "test_graph.py:" in str(info.value)


def test_reshape_of_unknown_batch_checks_what_it_can():
    x = pd.data("x", shape=[None, 3])
    assert pd.reshape(x, [2, 6]).shape == (2, 6)        # 12 is a multiple of 3: may fit
    with pytest.raises(pd.ShapeError, match="multiple of 3"):
        pd.reshape(x, [4, 4])


@pytest.mark.parametrize("init", [
    pd.initializers.Uniform(-0.1, 0.2), pd.initializers.Normal(0.5, 2.0),
    pd.initializers.Constant(3.0), pd.initializers.Orthogonal(2.0), "glorot_uniform", "uniform"])
def test_initializers_serialize_with_keras_class_names(init):
    from paddle.lowlevel import initializers
    made = initializers.get(init)
    config = initializers.serialize(made)
    if isinstance(config, dict):
        assert config["class_name"] in ("RandomUniform", "RandomNormal", "Constant", "Orthogonal")
    again = initializers.get(config)
    assert type(again) is type(made) and again.get_config() == made.get_config()


@pytest.mark.parametrize("name, scale, mode, distribution", [
    ("GlorotUniform", 1.0, "fan_avg", "uniform"), ("GlorotNormal", 1.0, "fan_avg",
                                                   "truncated_normal"),
    ("HeNormal", 2.0, "fan_in", "truncated_normal"), ("HeUniform", 2.0, "fan_in", "uniform"),
    ("LecunNormal", 1.0, "fan_in", "truncated_normal"), ("LecunUniform", 1.0, "fan_in",
                                                         "uniform")])
def test_kerass_initializer_classes(name, scale, mode, distribution):
    from paddle.lowlevel import initializers
    cls = getattr(pd.initializers, name)
    init = cls()
    assert (init.scale, init.mode, init.distribution, init.seed) == (scale, mode, distribution,
                                                                     None)
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    assert getattr(pd.initializers, snake) is cls              # keras.initializers.he_normal
    assert initializers.serialize(init) == snake               # saved as Keras's name
    pd.seed(3)
    a = init((40, 50), "float32")
    pd.seed(3)
    b = initializers.get(snake)((40, 50), "float32")
    assert np.array_equal(a, b)                                # the named initializer's draws
    seeded = cls(seed=7)
    assert np.array_equal(seeded((4, 5), "float32"), seeded((4, 5), "float32"))
    config = initializers.serialize(seeded)
    assert config == {"class_name": name, "config": {"seed": 7}}
    again = initializers.get(config)
    assert type(again) is cls and np.array_equal(again((4, 5), "float32"),
                                                 seeded((4, 5), "float32"))


def test_kerass_other_initializers():
    from paddle.lowlevel import initializers
    assert pd.initializers.RandomNormal is pd.initializers.Normal
    assert pd.initializers.RandomUniform is pd.initializers.Uniform
    assert pd.initializers.Zeros()((2, 3), "float32").tolist() == [[0.0] * 3] * 2
    assert pd.initializers.ones()((2,), "float64").tolist() == [1.0, 1.0]
    assert initializers.serialize(pd.initializers.Zeros()) == "zeros"
    assert type(initializers.get({"class_name": "Ones", "config": {}})) is pd.initializers.Ones
    t = pd.initializers.TruncatedNormal(mean=1.0, stddev=0.5, seed=2)((2000,), "float64")
    assert t.min() >= 0.0 and t.max() <= 2.0 and abs(t.mean() - 1.0) < 0.05
    assert np.array_equal(t, pd.initializers.TruncatedNormal(1.0, 0.5, 2)((2000,), "float64"))
    n = pd.initializers.RandomNormal(0.0, 1.0, seed=5)
    assert np.array_equal(n((3,), "float32"), n((3,), "float32"))
    assert initializers.serialize(n) == {"class_name": "RandomNormal",
                                         "config": {"mean": 0.0, "stddev": 1.0, "seed": 5}}
    layer = pd.layers.Dense(3, kernel_initializer=pd.initializers.GlorotUniform())
    assert layer.get_config()["kernel_initializer"] == "glorot_uniform"
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="HeNormal: expected seed as None or an int"):
            pd.initializers.HeNormal(seed=bad)


def test_layer_function_scopes_are_claimed_by_their_weights():
    x = pd.data("scope_x", shape=[None, 2])
    with pd.namespace("claims"):
        a = pd.fc(x, 2)
        pd.fc(x, 2)  # fc_1, dropped at once
    import gc
    gc.collect()
    with pd.namespace("claims"):
        b = pd.fc(x, 2)  # fc_0 is still held by a's weight, fc_1 is free again
    names = sorted(n for n in pd.lowlevel.graph.NAMES.params.keys() if n.startswith("claims/"))
    assert "claims/fc_0/w" in names and "claims/fc_1/w" in names
    assert a.shape == b.shape == (None, 2)
    assert not any(n.startswith("claims/fc_2") for n in names)


def test_numpy_gives_values_as_keras_variables_do():
    w = pd.Variable("numpy_probe_w", shape=[2], initializer="ones")
    got = w.numpy()
    got[0] = 5.0  # a copy: the parameter keeps its value
    assert w.val().tolist() == [1.0, 1.0]
    assert pd.constant(np.array([1.5], np.float32)).numpy().tolist() == [1.5]
    assert (w * 2 + pd.constant([1.0, 0.0])).numpy().tolist() == [3.0, 2.0]
    x = pd.data("numpy_probe_x", shape=[None, 2])
    with pytest.raises(ValueError, match="'numpy_probe_x' is a data Variable"):
        x.numpy()
    with pytest.raises(pd.FeedError, match="numpy_probe_x"):
        (x * w).numpy()


@pytest.mark.parametrize("name", sorted(pd.activations.ALL))
def test_fc_takes_every_activation_name_dense_takes(name):
    # pd.fc(act="relu6") was refused though Dense(activation="relu6") accepted it.
    x = pd.data("fc_act_x", shape=[None, 4])
    xs = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    with pd.namespace(f"fc_act_{name}"):
        y = pd.fc(x, size=4, act=name)
    w, b = (pd.get_variable(f"fc_act_{name}/fc_0/{p}").val() for p in ("w", "b"))
    want = pd.eval(pd.activations.get(name)(pd.constant(xs @ w + b)))  # Dense's function
    np.testing.assert_allclose(pd.eval(y, {x: xs}), want, rtol=1e-5, atol=1e-6)
