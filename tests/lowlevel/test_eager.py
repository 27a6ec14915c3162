"""Eager execution (spec §1b): ops and layer calls on concrete inputs run at once and give
EagerTensors; symbolic inputs and traced steps build graphs; state (parameters) stays live;
the two forms of pd.Variable. Reference numbers from Keras 3.15 (JAX backend) where noted."""
import gc
import operator
import tracemalloc

import numpy as np
import pytest

import paddle as pd
from paddle import ops
from paddle.errors import FeedError, ShapeError
from paddle.lowlevel import eager
from paddle.lowlevel.eager import EagerTensor, tracing


def _numpy_error(fn, array):
    with pytest.raises(Exception) as info:
        fn(array)
    return info.type, str(info.value)


# ---- all concrete: the op runs at once ------------------------------------------------------

def test_sum_of_an_array_is_a_value():
    t = ops.sum(np.ones(3))
    assert isinstance(t, EagerTensor) and isinstance(t, pd.Variable)
    assert float(t) == 3.0 and int(t) == 3 and bool(t) is True
    # np.ones is float64, which pd.ops keeps (as Keras on TensorFlow; Keras on JAX computes
    # in 32 bits): the dtype rule of pd.ops (docs/lowlevel.md), merged after this test
    assert t.shape == () and t.dtype == "float64"
    assert "3." in repr(t) and str(t) == "3.0"
    assert f"{t:.2f}" == "3.00"


def test_tensor_acts_like_an_array():
    t = ops.convert_to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(t.numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(t), np.arange(6).reshape(2, 3))
    assert len(t) == 2 and t.ndim == 2 and t.size == 6
    rows = list(t)
    assert all(isinstance(r, EagerTensor) for r in rows) and rows[1].tolist() == [3, 4, 5]
    assert t[1, 2].item() == 5.0 and t[:, 1:].tolist() == [[1, 2], [4, 5]]
    assert (t * 2 + np.ones(3, np.float32)).tolist() == [[1, 3, 5], [7, 9, 11]]
    assert (np.ones(3, np.float32) - t).tolist() == [[1, 0, -1], [-2, -3, -4]]
    assert (10 / (t + 1))[0, 0].item() == 10.0
    assert (t @ np.ones((3, 1), np.float32)).tolist() == [[3], [12]]
    assert (t > 2).tolist() == [[False, False, False], [True, True, True]]
    assert (t == 4).tolist() == [[False, False, False], [False, True, False]]
    assert (t != 4).dtype == "bool"
    assert bool(np.all(t == t)) and not bool(ops.max(t) < 5)
    assert operator.index(ops.sum(np.array([1, 2]))) == 3
    assert [0, 1, 2, 3][ops.convert_to_tensor(np.array(2))] == 2


@pytest.mark.parametrize("value", [np.ones(3), np.ones((1,)), np.ones(0), np.ones((2, 2))])
def test_conversions_of_non_scalars_raise_what_numpy_raises(value):
    t = ops.convert_to_tensor(value)
    for convert in (float, int, bool):
        try:
            expected = convert(value)
        except Exception as e:
            with pytest.raises(type(e)) as info:
                convert(t)
            assert str(info.value) == str(e)
        else:
            assert convert(t) == expected


def test_scalar_conversions_and_len_of_scalars():
    t = ops.sum(np.array([1.5, 1.0]))
    assert float(t) == 2.5 and int(t) == 2
    with pytest.raises(TypeError, match="len"):
        len(t)
    with pytest.raises(TypeError, match="iteration over a 0-d"):
        iter(t)
    with pytest.raises(TypeError, match="integer scalar arrays"):
        operator.index(t)


def test_results_feed_later_ops_and_are_read_only():
    a = ops.ones((2, 2))
    b = ops.matmul(a, a) - 1
    c = ops.mean(b)
    assert isinstance(b, EagerTensor) and float(c) == 1.0
    with pytest.raises(ValueError):
        np.asarray(b)[0, 0] = 5.0
    assert b.numpy() is not b.numpy()  # .numpy() is a copy the caller may write
    b.numpy()[0, 0] = 7.0
    assert float(b[0, 0]) == 1.0


def test_shape_errors_name_the_users_line():
    with pytest.raises(ShapeError, match=r"\(at test_eager.py:\d+\)"):
        ops.add(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="expected a Variable or numbers"):
        ops.sum(np.array(["a"]))


def test_random_ops_draw_at_once_outside_a_trace():
    a, b = pd.random.normal((4,)), pd.random.normal((4,))
    assert isinstance(a, EagerTensor) and not np.array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(pd.random.uniform((3,), seed=3).numpy(),
                                  pd.random.uniform((3,), seed=3).numpy())


# ---- symbolic inputs and tracing: graph nodes ---------------------------------------------

def test_symbolic_inputs_build_the_graph_and_concrete_values_become_constants():
    x = pd.data("x", shape=[None, 3])
    c = ops.ones((3,)) * 2  # eager
    y = x * c
    assert not isinstance(y, EagerTensor) and y.kind == "op" and y.shape == (None, 3)
    assert pd.eval(y, {x: np.ones((2, 3), np.float32)}).tolist() == [[2, 2, 2]] * 2
    with pytest.raises(FeedError, match="'x'"):
        float(pd.sum(y))
    with pytest.raises(TypeError, match="no truth value"):
        bool(pd.sum(y) > 0)


def test_tracing_builds_random_ops_that_draw_on_every_run():
    with tracing():
        noise = pd.random.normal((3,))
        twice = ops.ones((2,)) * 2
    assert noise.kind == "op" and twice.kind == "op"
    assert not np.array_equal(pd.eval(noise), pd.eval(noise))


def test_random_op_in_a_layer_is_fresh_on_every_predict_step():
    class Noisy(pd.layers.Layer):
        def call(self, x):
            return x + pd.random.normal((1, 2))
    model = pd.Sequential([pd.Input((2,)), Noisy()])
    x = np.zeros((1, 2), np.float32)
    first, second = model.predict(x, verbose=0), model.predict(x, verbose=0)
    assert not np.array_equal(first, second)


# ---- state: parameters stay live ----------------------------------------------------------

def test_ops_on_parameters_are_graph_nodes_that_convert_with_current_values():
    w = pd.Variable("eager_w", shape=[2, 2], initializer="ones")
    penalty = 1e-1 * pd.sum(pd.square(w))
    assert penalty.kind == "op" and not isinstance(penalty, EagerTensor)
    assert float(penalty) == pytest.approx(0.4)
    w.set_value(np.full((2, 2), 2.0, np.float32))
    assert float(penalty) == pytest.approx(1.6)  # the same node, the new value
    np.testing.assert_allclose(np.asarray(pd.square(w)), np.full((2, 2), 4.0))
    assert bool(pd.sum(w) > 1)


def test_compute_sum_updates_in_program_order_as_keras():
    class ComputeSum(pd.layers.Layer):
        def __init__(self, input_dim):
            super().__init__()
            self.total = self.add_weight(initializer="zeros", shape=(input_dim,),
                                         trainable=False)

        def call(self, inputs):
            self.total.assign_add(ops.sum(inputs, axis=0))
            return self.total

    x = ops.ones((2, 2))
    my_sum = ComputeSum(2)
    y = my_sum(x)
    assert isinstance(y, EagerTensor) and y.tolist() == [2.0, 2.0]  # Keras: [2, 2]
    assert my_sum(x).tolist() == [4.0, 4.0]                         # Keras: [4, 4]
    assert my_sum.total.numpy().tolist() == [4.0, 4.0]


def test_batch_norm_training_call_updates_moving_statistics_as_keras():
    bn = pd.layers.BatchNormalization()
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    y = bn(x, training=True)
    np.testing.assert_allclose(y.numpy()[:, 0], [-1.2245153, 0.0, 1.2245153], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.02, 0.03], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), [1.0166667] * 2, rtol=1e-5)
    bn(x, training=True)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.0398, 0.0597], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), [1.0331666] * 2, rtol=1e-5)
    before = bn.moving_mean.numpy()
    bn(x)  # inference: the statistics stay
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)


def test_metric_update_state_runs_at_once():
    class TruePositives(pd.metrics.Metric):
        def __init__(self):
            super().__init__(name="tp")
            self.count = self.add_variable(shape=(), initializer="zeros", name="count")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.count.assign_add(ops.sum(ops.cast(y_true, "float32") *
                                          ops.cast(y_pred, "float32")))

        def result(self):
            return self.count

    m = TruePositives()
    m.update_state(np.array([1, 1, 0]), np.array([1, 0, 0]))
    m.update_state(np.array([1, 1, 0]), np.array([1, 1, 0]))
    assert float(m.result()) == 3.0


# ---- layers and models on concrete inputs -------------------------------------------------

def test_layer_and_model_calls_on_tensors_give_tensors():
    model = pd.Sequential([pd.Input((3,)), pd.layers.Dense(2, kernel_initializer="ones")])
    x = ops.ones((3, 3))
    y = model(x)
    z = model(np.ones((3, 3), np.float32))
    assert isinstance(y, EagerTensor) and y.tolist() == [[3.0, 3.0]] * 3
    if np.all(y == z) and ops.max(y) > 2:  # values: Python control flow works on them
        pass
    else:
        pytest.fail("y and z differ")
    dense = model.layers[-1]
    assert dense(x).tolist() == y.tolist()
    assert model.predict_step(x).tolist() == y.tolist()
    assert len(dense._inbound) == 1  # eager calls leave no graph history


def test_compute_mask_of_an_array_is_a_tensor():
    embedding = pd.layers.Embedding(5, 2, mask_zero=True)
    mask = embedding.compute_mask(np.array([[3, 1, 0, 0]]))
    assert isinstance(mask, EagerTensor) and mask.tolist() == [[True, True, False, False]]
    out = embedding(np.array([[3, 1, 0, 0]]))
    assert out._keras_mask.tolist() == [[True, True, False, False]]


def test_layer_built_by_an_eager_call_keeps_weight_penalties_live():
    dense = pd.layers.Dense(2, kernel_regularizer=pd.regularizers.L2(0.5),
                            kernel_initializer="ones")
    dense(np.ones((1, 3), np.float32))
    penalty = dense.losses[0] if dense.losses else None
    assert penalty is not None and penalty.kind == "op"
    assert float(penalty) == pytest.approx(3.0)
    dense.kernel.set_value(np.zeros((3, 2), np.float32))
    assert float(penalty) == 0.0


# ---- pd.Variable: both forms --------------------------------------------------------------

def test_keras_form_of_variable():
    v = pd.Variable(np.random.random((3,)), name="v", dtype="float32")  # the call
    assert v.kind == "param" and v.shape == (3,) and v.dtype == "float32" and v.trainable
    assert pd.Variable(3).dtype == "int32" and pd.Variable([1.0, 2.0]).dtype == "float32"
    z = pd.Variable("zeros", shape=(2,))
    assert z.numpy().tolist() == [0.0, 0.0] and z.name.startswith("variable")
    o = pd.Variable(pd.initializers.Ones(), shape=(2,), dtype="float64", trainable=False)
    assert o.dtype == "float64" and o.numpy().tolist() == [1.0, 1.0] and not o.trainable
    f = pd.Variable(lambda shape, dtype: np.full(shape, 7.0), shape=(1, 2))
    assert f.numpy().tolist() == [[7.0, 7.0]]
    assert v.assign(np.ones(3)) is v and v.assign_add(np.ones(3)) is v
    assert v.assign_sub(ops.ones((3,)) * 0.5).numpy().tolist() == [1.5, 1.5, 1.5]
    assert v.value.tolist() == [1.5] * 3 and v.val().tolist() == [1.5] * 3
    assert (v * 2).kind == "op" and float(pd.sum(v * 2)) == 9.0
    assert v.aggregation == "none" and v.synchronization == "auto" and v.autocast


def test_low_level_form_of_variable_and_the_ambiguous_case():
    w = pd.Variable("eager_low_w", [2, 3])
    assert w.name == "eager_low_w" and w.shape == (2, 3) and w.dtype == "float32"
    b = pd.Variable("eager_low_b", shape=[3], dtype="float64", initializer="ones",
                    trainable=False)
    assert b.numpy().tolist() == [1.0] * 3 and not b.trainable
    # a string first that names an initializer is Keras's form; with initializer= it is a name
    named = pd.Variable("zeros", [2], initializer="ones")
    assert named.name.startswith("zeros") and named.numpy().tolist() == [1.0, 1.0]
    with pd.namespace("eager_net"):
        first = pd.Variable("w", [2])
    with pd.namespace("eager_net", reuse=True):
        assert pd.Variable("w", [2]) is first
    assert pd.get_variable("eager_net/w") is first


def test_variable_bad_arguments():
    with pytest.raises(ValueError, match="needs a shape"):
        pd.Variable("zeros")
    with pytest.raises(ShapeError, match="expected an initial value of shape"):
        pd.Variable(np.ones(3), shape=(4,))
    with pytest.raises(ValueError, match="aggregation"):
        pd.Variable(np.ones(3), aggregation="max")
    with pytest.raises(TypeError, match="multiple values"):
        pd.Variable(np.ones(3), (3,), shape=(3,))
    with pytest.raises(TypeError, match="unexpected keyword"):
        pd.Variable("w_bad", [2], autocast=False)
    with pytest.raises(TypeError, match="expected a shape"):
        pd.Variable("w_bad")


# ---- devices, memory ----------------------------------------------------------------------

@pytest.mark.parametrize("device", ["cpu", "simulated_gpu"], indirect=True)
def test_eager_ops_and_layer_calls_run_on_the_current_device(device):
    a = np.arange(8, dtype=np.float32)
    assert (ops.convert_to_tensor(a) + a).tolist() == (a + a).tolist()
    m = ops.matmul(ops.ones((4, 4)), np.eye(4, dtype=np.float32) * 2)
    assert m.tolist() == (np.ones((4, 4)) * 2).tolist()
    assert float(ops.sum(a)) == 28.0
    dense = pd.layers.Dense(3, kernel_initializer="ones", bias_initializer="ones")
    assert dense(np.ones((2, 4), np.float32)).tolist() == [[5.0] * 3] * 2
    bn = pd.layers.BatchNormalization()
    bn(np.arange(6.0, dtype=np.float32).reshape(3, 2), training=True)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.02, 0.03], rtol=1e-5)


def test_a_loop_of_eager_ops_keeps_memory_bounded():
    x = ops.zeros((8,))
    for _ in range(200):
        x = x + 1.0
    gc.collect()
    programs = len(eager._PROGRAMS)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(20_000):
            x = x + 1.0
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert len(eager._PROGRAMS) == programs
    assert float(x[0]) == 20_200.0
    assert grown < 200_000, grown


def test_training_true_on_a_model_call_reaches_the_layers_inside():
    model = pd.Sequential([pd.Input((1000,)), pd.layers.Activation("relu"),
                           pd.layers.Dropout(0.5)])
    x = np.ones((2, 1000), np.float32)
    assert (model(x).numpy() == 1).all()
    dropped = model(x, training=True).numpy()
    assert 0.3 < (dropped == 0).mean() < 0.7 and set(np.unique(dropped)) == {0.0, 2.0}


def test_a_boolean_mask_selects_on_the_values():
    t = ops.convert_to_tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert t[t > 2].numpy().tolist() == [3.0, 4.0, 5.0]          # as NumPy and JAX arrays
    assert t[np.array([False, True])].numpy().tolist() == [[3.0, 4.0, 5.0]]
    assert t[..., 0][np.array([True, False])].numpy().tolist() == [0.0]
    assert isinstance(t[t > 2], EagerTensor) and t[:, 1].numpy().tolist() == [1.0, 4.0]
