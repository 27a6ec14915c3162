"""Eager layer calls seen before (paddle/highlevel/layers/eager_calls.py): the checks of a
call kept per (layer, input shape and dtype), and pure layers and models run as one program
of the same ops. What is kept must give the values of the op-by-op call to the last bit and
be dropped whenever what it depends on changes: the layer rebuilt, its dtype policy, an
attribute its call reads, its weights (read where they live), the training flag, a mask,
the input's shape or dtype, a model's layers."""
import gc
import threading
import weakref

import numpy as np
import pytest

import paddle as pd
from paddle import ops
from paddle.errors import ShapeError
from paddle.highlevel.layers import eager_calls
from paddle.lowlevel.eager import EagerTensor

L = pd.layers


def _entry(layer, x):
    """The entry kept for `layer`'s eager calls on tensors like `x` (None if none)."""
    signatures = eager_calls._SEEN.get(id(layer))
    return None if signatures is None else signatures.entries.get((x.shape, x.dtype, x._weak))


def _by_ops(x, kernel, bias, activation):
    """Dense's computation written out op by op (each op run at once)."""
    y = ops.matmul(x, kernel) + bias
    return activation(y) if activation is not None else y


def _x(shape=(8, 4), dtype=np.float32, seed=0):
    return ops.convert_to_tensor(np.random.default_rng(seed).normal(size=shape).astype(dtype))


# ---- the values: those of the op-by-op call -------------------------------------------

@pytest.mark.parametrize("activation", [None, "relu", "gelu", "softmax", "tanh", "silu"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_dense_call_seen_before_gives_the_op_by_op_values_exactly(activation, dtype):
    dense = L.Dense(5, activation=activation, bias_initializer="glorot_uniform", dtype=dtype)
    x = _x(dtype=dtype)
    first, again = dense(x), dense(x)
    expected = _by_ops(x, dense.kernel, dense.bias, dense.activation)
    assert isinstance(again, EagerTensor) and again.dtype == dtype
    np.testing.assert_array_equal(first.numpy(), expected.numpy())
    np.testing.assert_array_equal(again.numpy(), expected.numpy())


def test_pure_layers_and_models_run_one_program_and_others_keep_the_op_by_op_call(device):
    x = _x()
    dense, user = L.Dense(3, activation="relu"), _Double()
    model = pd.Sequential([L.Dense(8, activation="relu"), L.Dense(2)])
    for layer in (dense, user, model):
        layer(x)
        layer(x)
    on_cpu = device == "cpu"  # the programs are the CPU's; other devices run op by op
    assert (_entry(dense, x).program is not None) == on_cpu
    assert (_entry(model, x).program is not None) == on_cpu
    assert _entry(user, x).program is None  # a user's call: run as written, every time


def test_a_model_call_gives_what_its_layers_give_one_by_one():
    inp = pd.Input((4,))
    hidden = L.Dense(8, activation="relu")
    out = L.Dense(3, activation="softmax")
    functional = pd.Model(inp, out(L.Flatten()(hidden(inp))))
    sequential = pd.Sequential([hidden, out])
    x = _x()
    expected = out(hidden(x)).numpy()
    for model in (functional, sequential, functional, sequential):
        np.testing.assert_array_equal(model(x).numpy(), expected)
    np.testing.assert_array_equal(sequential(x.numpy()).numpy(), expected)  # a NumPy array


def test_a_model_with_several_outputs_and_a_dict_of_outputs():
    inp = pd.Input((4,))
    a, b = L.Dense(2)(inp), L.Dense(3, activation="relu")(inp)
    listed, named = pd.Model(inp, [a, b]), pd.Model(inp, {"a": a, "b": b})
    x = _x()
    for _ in range(2):
        first, second = listed(x)
        out = named(x)
        assert sorted(out) == ["a", "b"]
        np.testing.assert_array_equal(out["a"].numpy(), first.numpy())
        np.testing.assert_array_equal(out["b"].numpy(), second.numpy())


# ---- what invalidates what was kept -----------------------------------------------------

def test_assigned_weights_are_read_where_they_live():
    dense = L.Dense(2, kernel_initializer="ones")
    x = ops.ones((1, 3))
    assert dense(x).tolist() == [[3.0, 3.0]] and dense(x).tolist() == [[3.0, 3.0]]
    dense.kernel.assign(np.full((3, 2), 2.0, np.float32))
    assert dense(x).tolist() == [[6.0, 6.0]]
    dense.set_weights([np.zeros((3, 2), np.float32), np.ones(2, np.float32)])
    assert dense(x).tolist() == [[1.0, 1.0]]


def test_an_attribute_the_call_reads_changed_is_traced_again():
    dense = L.Dense(2, kernel_initializer="ones", bias_initializer=pd.initializers.Constant(-5))
    model = pd.Sequential([dense])
    x = ops.ones((1, 3))
    assert dense(x).tolist() == [[-2.0, -2.0]] and model(x).tolist() == [[-2.0, -2.0]]
    dense.activation = pd.activations.relu
    assert dense(x).tolist() == [[0.0, 0.0]]
    assert model(x).tolist() == [[0.0, 0.0]]  # the model's program reads its layers' state
    dense.kernel = pd.Variable(np.full((3, 2), 3.0, np.float32))
    assert dense(x).tolist() == [[4.0, 4.0]] and model(x).tolist() == [[4.0, 4.0]]


def test_a_rebuilt_layer_checks_its_input_again():
    dense = L.Dense(2)
    x4, x6 = ops.ones((2, 4)), ops.ones((2, 6))
    dense(x4)
    dense(x4)
    dense.built = False
    assert dense(x6).shape == (2, 2) and dense.kernel.shape == (6, 2)
    with pytest.raises(ShapeError, match="expected the last axis of the input to be 6"):
        dense(x4)


def test_a_new_dtype_policy_is_followed():
    dense = L.Dense(2, kernel_initializer="ones")
    x = ops.ones((1, 3))
    assert dense(x).dtype == "float32" and dense(x).dtype == "float32"
    dense.dtype_policy = pd.DTypePolicy("mixed_float16")
    for _ in range(2):
        y = dense(x)
        assert y.dtype == "float16" and y.numpy().tolist() == [[3.0, 3.0]]


class _Double(L.Layer):
    """Doubles its input in training, passes it on otherwise; counts its calls."""

    calls = 0

    def call(self, inputs, training=None):
        type(self).calls += 1
        return inputs * 2.0 if training else inputs + 0.0


def test_the_training_flag_is_read_on_every_call():
    layer, x = _Double(), ops.ones((1, 2))
    assert layer(x).tolist() == [[1.0, 1.0]] and layer(x).tolist() == [[1.0, 1.0]]
    assert layer(x, training=True).tolist() == [[2.0, 2.0]]
    assert layer(x, training=False).tolist() == [[1.0, 1.0]]
    assert layer(x, training=True).tolist() == [[2.0, 2.0]]
    model = pd.Sequential([pd.Input((2,)), _Double()])
    assert model(x).tolist() == [[1.0, 1.0]] and model(x, training=True).tolist() == [[2.0, 2.0]]


class _MaskSum(L.Layer):
    """Sums the timesteps its mask keeps (all of them without a mask)."""

    def call(self, inputs, mask=None):
        if mask is None:
            return ops.sum(inputs, axis=1)
        return ops.sum(inputs * ops.expand_dims(ops.cast(mask, inputs.dtype), -1), axis=1)


def test_a_mask_given_after_calls_without_one_is_used():
    layer = _MaskSum()
    x = ops.ones((1, 3, 2))
    assert layer(x).tolist() == [[3.0, 3.0]] and layer(x).tolist() == [[3.0, 3.0]]
    mask = ops.convert_to_tensor(np.array([[True, False, False]]))
    assert layer(x, mask=mask).tolist() == [[1.0, 1.0]]
    masked = L.Masking()(np.array([[[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]], np.float32))
    assert layer(masked).tolist() == [[2.0, 2.0]]  # the mask the input carries
    assert layer(masked).tolist() == [[2.0, 2.0]]
    assert layer(x).tolist() == [[3.0, 3.0]]


def test_other_shapes_and_dtypes_are_checked_and_cast_as_on_a_first_call():
    dense = L.Dense(2, kernel_initializer="ones")
    assert dense(ops.ones((1, 3))).tolist() == [[3.0, 3.0]]
    assert dense(np.ones((4, 3))).tolist() == [[3.0, 3.0]] * 4  # float64 array: float32
    assert dense(np.ones((4, 3))).dtype == "float32"
    assert dense(np.ones((2, 3), np.int64)).tolist() == [[3.0, 3.0]] * 2  # cast, as Keras
    assert dense(np.ones((2, 3), np.int64)).tolist() == [[3.0, 3.0]] * 2
    with pytest.raises(ShapeError, match="expected the last axis"):
        dense(np.ones((2, 5), np.float32))
    with pytest.raises(ShapeError, match="expected an input of rank >= 2"):
        dense(np.ones((3,), np.float32))


def test_a_layer_added_to_a_model_after_calls_is_called():
    model = pd.Sequential([pd.Input((3,)), L.Dense(2, kernel_initializer="ones")])
    x = ops.ones((1, 3))
    assert model(x).tolist() == [[3.0, 3.0]] and model(x).tolist() == [[3.0, 3.0]]
    model.add(L.Dense(1, kernel_initializer="ones"))
    assert model(x).tolist() == [[6.0]] and model(x).tolist() == [[6.0]]
    model.pop()
    assert model(x).tolist() == [[3.0, 3.0]]


def test_a_python_activation_runs_on_every_call():
    seen = []

    def noted(x):
        seen.append(1)
        return pd.activations.relu(x)
    dense = L.Dense(2, activation=noted)
    for _ in range(3):
        dense(ops.ones((1, 2)))
    assert len(seen) == 3


def test_losses_and_state_of_eager_calls_as_before():
    dense = L.Dense(2, activity_regularizer=pd.regularizers.L1(1.0),
                    kernel_initializer="ones")
    x = ops.ones((1, 3))
    for _ in range(3):  # an activity penalty per call: the layer's latest call's alone
        dense(x)
        assert [float(v) for v in dense.losses] == [6.0]
    plain = L.Dense(2)
    plain(x)
    plain.add_loss(ops.sum(x))
    assert len(plain.losses) == 1
    plain(x)  # an outermost call starts the list afresh, program or not
    assert plain.losses == []
    total = _Total()
    assert total(ops.ones((2, 2))).tolist() == [2.0, 2.0]
    assert total(ops.ones((2, 2))).tolist() == [4.0, 4.0]  # ComputeSum: state in order


class _Total(L.Layer):
    def build(self, input_shape):
        self.total = self.add_weight(shape=(input_shape[-1],), initializer="zeros",
                                     trainable=False)

    def call(self, inputs):
        self.total.assign_add(ops.sum(inputs, axis=0))
        return self.total


def test_a_profile_sees_the_programs_ops_under_the_layers_name(device):
    dense = L.Dense(2, activation="relu", name="profiled_dense")
    x = ops.ones((1, 3))
    dense(x)
    with pd.profiler.profile() as prof:
        y = dense(x)
    assert {"matmul", "add", "relu"} <= {e.op for e in prof.events}
    if device == "cpu":  # the layer's program (other devices' single ops keep no layer)
        assert {(e.op, e.layer) for e in prof.events} == {
            ("matmul", "profiled_dense"), ("add", "profiled_dense"), ("relu", "profiled_dense")}
    np.testing.assert_array_equal(y.numpy(), dense(x).numpy())


def test_threads_calling_one_layer_get_their_own_results():
    dense = L.Dense(3, activation="relu", bias_initializer="ones")
    inputs = [_x(seed=s) for s in range(4)]
    expected = [dense(x).numpy() for x in inputs]
    errors = []

    def work(k):
        try:
            for _ in range(300):
                np.testing.assert_array_equal(dense(inputs[k]).numpy(), expected[k])
        except Exception as e:  # reported by the main thread
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_what_is_kept_goes_with_the_layer_and_stays_bounded():
    dense = L.Dense(2)
    for n in range(1, 3 * eager_calls.MAX_SIGNATURES):
        dense(ops.ones((n, 3)))
    assert len(eager_calls._SEEN[id(dense)].entries) == eager_calls.MAX_SIGNATURES
    key, kernel = id(dense), weakref.ref(dense.kernel)
    gc.collect()
    gc.disable()
    try:  # at once, not at the next collection: the kernel's name is free for a new layer
        del dense
        assert key not in eager_calls._SEEN and kernel() is None
    finally:
        gc.enable()


def test_a_model_and_its_layers_are_collected_after_eager_calls():
    inner = pd.Sequential([pd.Input((4,)), L.Dense(3)])
    inp = pd.Input((4,))
    outer = pd.Model(inp, L.Dense(1)(inner(inp)))  # the inner model replayed in the outer
    for model in (inner, outer):
        model(_x())
        model(_x())
    refs = [weakref.ref(m) for m in (inner, outer, *inner.layers, *outer.layers)]
    del inner, outer, model, inp
    gc.collect()
    assert [r() for r in refs] == [None] * len(refs)


def test_a_model_call_inside_a_trace_builds_the_graph_as_before():
    model = pd.Sequential([pd.Input((3,)), L.Dense(2)])
    x = ops.ones((1, 3))
    model(x)
    model(x)
    inp = pd.Input((3,))
    y = model(inp)
    assert not isinstance(y, EagerTensor) and y.shape == (None, 2)
    assert len(model.layers[0]._inbound) == 2  # the construction and this symbolic call


def test_a_weak_float_input_keeps_the_op_by_op_dtypes(device):
    x64 = pd.constant(np.ones((2, 3)))  # float64, weak: it takes the dtype of what it meets
    x32 = ops.convert_to_tensor(np.ones((2, 3), np.float32))  # weak too
    relu, dense = L.Activation("relu"), L.Dense(2)
    for _ in range(2):
        for x in (x64, x32):
            y, z = relu(x), dense(x)
            assert (y.dtype, y._weak) == (x.dtype, True)
            assert (z.dtype, z._weak) == ("float32", False)
    on_cpu = device == "cpu"  # (the programs are the CPU's)
    assert x32._weak and (_entry(dense, x32).program is not None) == on_cpu  # as a strong one
    assert _entry(dense, x64).program is None and _entry(relu, x32).program is None
