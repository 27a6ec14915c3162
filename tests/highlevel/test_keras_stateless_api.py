"""Keras 3's stateless, state-tree, introspection, rematerialization and Operation API
(Model.get_state_tree / set_state_tree / stateless_compute_loss / compute_loss_and_updates,
Layer.compute_output_spec / symbolic_call / call_signature_parameters / metrics /
rematerialized_call, pd.remat, pd.RematScope, pd.StatelessScope, pd.SymbolicScope,
pd.Operation, pd.Function) against Keras 3.15.1's values (KERAS_STATELESS, printed by
make_keras_stateless_reference.py; test_reference_is_keras_output re-runs it where a Keras
venv is found and is skipped otherwise)."""
import json
import os
import subprocess

import numpy as np
import pytest

import paddle as pd

HERE = os.path.dirname(os.path.abspath(__file__))
KERAS_PYTHON = os.environ.get("PADDLE_KERAS_PYTHON", "/work/kvenv/bin/python")

KERAS_STATELESS = {'bad_format': "Invalid `value_format` argument. Expected one of {'numpy_array', "
               "'backend_tensor'}. Received: value_format=torch",
 'bad_key': 'Unknown variable name: weights',
 'bad_mode': "Invalid mode 'half'. Supported modes are: 'full', 'activations', "
             "'larger_than', 'list_of_layers', or  None.",
 'clu_False': {'loss': 0.7561160326004028,
               'ntv': [[0.20000000298023224], [2.0]],
               'y_pred': [[0.48127591609954834],
                          [0.5626667737960815],
                          [-0.0877595841884613]]},
 'clu_True': {'loss': 1.817246675491333,
              'ntv': [[0.20450861752033234], [1.9816752672195435]],
              'y_pred': [[0.5601123571395874],
                         [0.8405708074569702],
                         [-1.4006831645965576]]},
 'function': [[9.0, 36.0], [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]],
 'larger_than': [False, True],
 'list_of_layers': [False, True],
 'op_config': {'factor': 3.0, 'name': 'sc'},
 'op_name': 'Argument `name` must be a string and cannot contain character `/`. Received: '
            "name=a/b (of type <class 'str'>)",
 'scl': 0.7291666865348816,
 'sig': ['inputs', 'training', 'mask', 'scale'],
 'stateless': [[3.0, 3.0], [0.0, 0.0], [3.0, 3.0]],
 'stateless_shape': 'Invalid variable value in StatelessScope: all values in argument '
                    '`mapping` must ',
 'tree_keys': ['metrics_variables',
               'non_trainable_variables',
               'optimizer_variables',
               'trainable_variables'],
 'tree_nontrainable': ['moving_mean', 'moving_variance'],
 'tree_trainable': [['bias', 'kernel'], ['beta', 'gamma']]}

TV = [np.array([[2.0], [-1.0]], "float32"), np.array([0.5], "float32"), np.ones(1, "float32"),
      np.zeros(1, "float32")]
NTV = [np.array([0.2], "float32"), np.array([2.0], "float32")]
X = np.array([[1.0, 0.5], [2.0, -1.0], [0.0, 3.0]], "float32")
Y = np.array([[0.0], [1.0], [0.5]], "float32")


def test_reference_is_keras_output():
    if not os.path.exists(KERAS_PYTHON):
        pytest.skip(f"no Keras venv at {KERAS_PYTHON} (set PADDLE_KERAS_PYTHON)")
    env = dict(os.environ, KERAS_BACKEND="jax")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([KERAS_PYTHON, "make_keras_stateless_reference.py"], cwd=HERE,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    live = json.loads(done.stdout.strip().splitlines()[-1])
    assert live.keys() == KERAS_STATELESS.keys()
    for key, value in KERAS_STATELESS.items():
        if key.startswith("clu_"):
            assert np.allclose(live[key]["loss"], value["loss"], atol=1e-5)
            assert np.allclose(live[key]["y_pred"], value["y_pred"], atol=1e-5)
        else:
            assert live[key] == value, key


def _model():
    model = pd.Sequential([pd.Input((2,)), pd.layers.Dense(
        1, activation="sigmoid", kernel_regularizer=pd.regularizers.L2(0.1), name="sd"),
        pd.layers.BatchNormalization(name="bn")], name="seq")
    model.compile(optimizer="adam", loss="mse")
    return model


@pytest.mark.parametrize("training", [False, True])
def test_compute_loss_and_updates_is_keras(training):
    model = _model()
    before = [w.val() for w in model.weights]
    loss, (unscaled, y_pred, ntv, metrics) = model.compute_loss_and_updates(
        TV, NTV, [v.val() for v in model.metrics_variables], X, Y, None, training=training)
    want = KERAS_STATELESS[f"clu_{training}"]
    assert np.allclose(loss, want["loss"], atol=1e-5) and np.allclose(unscaled, loss)
    assert np.allclose(y_pred, want["y_pred"], atol=1e-5)
    assert np.allclose(np.concatenate(ntv), np.ravel(want["ntv"]), atol=1e-5)
    for w, value in zip(model.weights, before):  # stateless: the model is untouched
        assert np.array_equal(w.val(), value), w.name


def test_stateless_compute_loss_is_keras():
    model = _model()
    kernel = model.get_layer("sd").kernel.val()
    loss, (tv, ntv, metrics) = model.stateless_compute_loss(
        TV, NTV, [], y=Y, y_pred=np.full((3, 1), 0.25, "float32"))
    assert np.isclose(loss, KERAS_STATELESS["scl"], atol=1e-6)  # mse + the L2 penalty of TV
    assert all(a is b for a, b in zip(tv, TV)) and metrics == []
    assert np.allclose(np.concatenate(ntv), [0.2, 2.0])  # the given values: nothing updates
    assert np.array_equal(model.get_layer("sd").kernel.val(), kernel)


def test_state_tree_round_trip_and_errors():
    model = _model()
    model.fit(X, Y, epochs=1, verbose=0)
    tree = model.get_state_tree()
    assert sorted(tree) == KERAS_STATELESS["tree_keys"]
    assert [sorted(tree["trainable_variables"]["seq"][n]) for n in ("sd", "bn")] == \
        KERAS_STATELESS["tree_trainable"]
    assert sorted(tree["non_trainable_variables"]["seq"]["bn"]) == \
        KERAS_STATELESS["tree_nontrainable"]
    adam = tree["optimizer_variables"]["adam"]
    assert adam["iteration"] == 1 and np.isclose(adam["learning_rate"], 0.001)
    assert adam["seq_sd_kernel_m"].shape == (2, 1)
    numpy_tree = model.get_state_tree("numpy_array")
    assert np.array_equal(numpy_tree["trainable_variables"]["seq"]["sd"]["kernel"],
                          tree["trainable_variables"]["seq"]["sd"]["kernel"])
    fresh = _model()
    fresh.fit(X, Y, epochs=1, verbose=0)
    fresh.set_state_tree(tree)
    for a, b in zip(model.weights, fresh.weights):
        assert np.array_equal(a.val(), b.val())
    assert fresh.optimizer.iterations == 1
    assert np.array_equal(fresh.optimizer.slots(fresh.get_layer("sd").kernel)["m"],
                          adam["seq_sd_kernel_m"])
    with pytest.raises(ValueError) as error:
        model.get_state_tree("torch")
    assert str(error.value) == KERAS_STATELESS["bad_format"]
    with pytest.raises(ValueError) as error:
        model.set_state_tree({"weights": {}})
    assert str(error.value) == KERAS_STATELESS["bad_key"]


def test_layer_introspection():
    class L(pd.layers.Layer):
        def call(self, inputs, training=None, mask=None, *, scale=1.0):
            return inputs
    assert L().call_signature_parameters == KERAS_STATELESS["sig"]
    dense = pd.layers.Dense(3)
    assert dense.supports_jit and pd.Sequential([dense]).supports_jit
    spec = dense.compute_output_spec(pd.Input((5,)))
    assert spec.shape == (None, 3) and spec.dtype == "float32" and dense.built
    assert dense.symbolic_call(np.zeros((4, 5), "float32")).shape == (4, 3)
    model = pd.Sequential([pd.Input((5,)), pd.layers.Dense(2)])
    assert model.compute_output_spec(pd.Input((5,))).shape == (None, 2)
    assert model.get_quantization_layer_structure("gptq") is None
    inp = pd.Input((3,))
    functional = pd.Model(inp, pd.layers.ReLU(name="ops_relu")(
        pd.layers.Dense(2, name="ops_dense")(inp) + 1.0))
    assert [op.name for op in functional.operations] == ["ops_dense", "ops_relu"]


def test_layer_metrics():
    class Tracked(pd.layers.Layer):
        def __init__(self):
            super().__init__()
            self.seen = pd.metrics.Mean(name="seen")
            self.inner = pd.layers.Dense(1)
            self.inner.counts = [pd.metrics.Sum(name="counts")]

        def call(self, x):
            return x
    assert [m.name for m in Tracked().metrics] == ["seen", "counts"]
    assert pd.layers.Dense(2).metrics == []


def test_remat_scope_and_rematerialized_call():
    with pytest.raises(ValueError) as error:
        pd.RematScope(mode="half")
    assert str(error.value) == KERAS_STATELESS["bad_mode"]
    with pd.RematScope(mode="larger_than", output_size_threshold=5):
        a, b = pd.layers.Dense(4), pd.layers.Dense(2)
    spec = pd.Input(batch_shape=(2, 3))
    assert [a.rematerialized_call(a.call, spec) == a.call,
            b.rematerialized_call(b.call, spec) == b.call] == KERAS_STATELESS["larger_than"]
    with pd.RematScope(mode="list_of_layers", layer_names=["r1"]):
        r1, r2 = pd.layers.Dense(2, name="r1"), pd.layers.Dense(2, name="r2")
    assert [r1.rematerialized_call(r1.call, spec) == r1.call,
            r2.rematerialized_call(r2.call, spec) == r2.call] == \
        KERAS_STATELESS["list_of_layers"]
    assert pd.layers.Dense(2)._remat_mode is None  # outside any scope
    with pd.RematScope(mode="activations"):
        act = pd.layers.Dense(2, activation="relu", kernel_initializer="ones")
    x = np.array([[1.0, -3.0]], "float32")
    _ = act(x)
    wrapped = act.rematerialized_call(act.call, x)
    assert wrapped != act.call and np.allclose(wrapped(x), act(x))
    with pytest.raises(TypeError, match="expected a callable"):
        pd.remat(3)


def test_remat_keeps_values_and_gradients():
    w = pd.Variable(np.array([1.5, -2.0], "float32"))

    def block(v):
        return pd.ops.sum(pd.ops.relu(v * w) ** 2)
    x = pd.data("remat_x", shape=[2])
    plain, again = block(x), pd.remat(block)(x)
    feeds = {x: np.array([2.0, -1.0], "float32")}
    assert np.allclose(pd.eval(plain, feeds), pd.eval(again, feeds))
    g1, = pd.gradients(plain, [w])
    g2, = pd.gradients(again, [w])
    assert np.allclose(pd.eval(g1, feeds), pd.eval(g2, feeds))


def test_stateless_scope_is_keras():
    v = pd.Variable(np.zeros(2, "float32"))
    with pd.StatelessScope([(v, np.ones(2, "float32"))]) as scope:
        _ = v.assign(v * 3)
        inside = v.numpy().tolist()
    assert [scope.get_current_value(v).tolist(), v.numpy().tolist(), inside] == \
        KERAS_STATELESS["stateless"]
    with pytest.raises(ValueError) as error:
        pd.StatelessScope([(v, np.ones(3, "float32"))])
    assert str(error.value).startswith(KERAS_STATELESS["stateless_shape"])
    with pytest.raises(ValueError, match="must be Variable instances"):
        pd.StatelessScope([(np.ones(2), np.ones(2))])
    other = pd.Variable(np.zeros(1, "float32"))
    assert scope.get_current_value(other) is None
    bn = pd.layers.BatchNormalization()
    _ = bn(np.ones((2, 3), "float32"))
    with pd.StatelessScope([(w, w.numpy()) for w in bn.weights]) as scope:
        bn(np.full((4, 3), 5.0, "float32"), training=True)
    assert np.allclose(bn.moving_mean.numpy(), 0.0)
    assert np.allclose(scope.get_current_value(bn.moving_mean), 0.05)


def test_symbolic_scope_builds_graph_nodes():
    with pd.SymbolicScope():
        y = pd.ops.add(np.ones(2, "float32"), 1.0)
    assert type(y) is pd.Variable and y.kind == "op"
    assert np.allclose(pd.eval(y), 2.0)
    eager = pd.ops.add(np.ones(2, "float32"), 1.0)
    assert type(eager) is not pd.Variable


def test_operation_and_function_are_keras():
    with pytest.raises(ValueError) as error:
        pd.Operation(name="a/b")
    assert str(error.value) == KERAS_STATELESS["op_name"]

    class Sc(pd.Operation):
        def __init__(self, factor=2.0, name=None):
            super().__init__(name=name)
            self.factor = factor

        def call(self, x):
            return x * self.factor
    op = Sc(3.0, name="sc")
    assert op.get_config() == KERAS_STATELESS["op_config"]
    assert Sc.from_config(op.get_config()).factor == 3.0
    assert op.compute_output_spec(np.zeros((4, 2), "float32")).shape == (4, 2)
    i = pd.Input((3,))
    fn = pd.Function(i, [pd.ops.sum(Sc(3.0)(i), axis=1), i * 2])
    out = fn(np.arange(6, dtype="float32").reshape(2, 3))
    assert [np.asarray(t).tolist() for t in out] == KERAS_STATELESS["function"]
    symbolic = fn(pd.Input((3,)))
    assert [t.shape for t in symbolic] == [(None,), (None, 3)]
    assert fn.name.startswith("function") and len(fn.inputs) == 1 and len(fn.outputs) == 2
    with pytest.raises(NotImplementedError, match="must write call"):
        pd.Operation()(np.ones(2))
