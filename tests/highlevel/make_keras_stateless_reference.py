"""Prints, as JSON, what Keras 3 (JAX backend) gives for the cases of
test_keras_stateless_api.py (KERAS_STATELESS there holds its output for Keras 3.15.1).
Run with Keras:
    KERAS_BACKEND=jax <keras venv>/bin/python make_keras_stateless_reference.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402
import numpy as np  # noqa: E402

out = {}
m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid", kernel_regularizer=keras.regularizers.L2(0.1), name="sd"),
                      keras.layers.BatchNormalization(name="bn")], name="seq")
m.compile(optimizer="adam", loss="mse")
tv = [np.array([[2.0], [-1.0]], "float32"), np.array([0.5], "float32"), np.ones(1, "float32"), np.zeros(1, "float32")]
ntv = [np.array([0.2], "float32"), np.array([2.0], "float32")]
x = np.array([[1.0, 0.5], [2.0, -1.0], [0.0, 3.0]], "float32"); y = np.array([[0.0], [1.0], [0.5]], "float32")
m.optimizer.build(m.trainable_variables)
for training in (False, True):
    loss, (unscaled, y_pred, new_ntv, mv) = m.compute_loss_and_updates(tv, ntv, [v.numpy() for v in m.metrics_variables], x, y, None, training=training, optimizer_variables=[v.numpy() for v in m.optimizer.variables])
    out[f"clu_{training}"] = {"loss": float(loss), "y_pred": np.asarray(y_pred).tolist(), "ntv": [np.asarray(v).tolist() for v in new_ntv]}
loss, (t2, n2, m2) = m.stateless_compute_loss(tv, ntv, [v.numpy() for v in m.metrics_variables], y=y, y_pred=np.full((3, 1), 0.25, "float32"))
out["scl"] = float(loss)
tree = m.get_state_tree()
out["tree_keys"] = sorted(tree)
out["tree_trainable"] = sorted(tree["trainable_variables"]["seq"]["sd"]), sorted(tree["trainable_variables"]["seq"]["bn"])
out["tree_nontrainable"] = sorted(tree["non_trainable_variables"]["seq"]["bn"])
try:
    m.get_state_tree("torch")
except ValueError as e:
    out["bad_format"] = str(e)
try:
    m.set_state_tree({"weights": {}})
except ValueError as e:
    out["bad_key"] = str(e)
try:
    keras.RematScope(mode="half")
except ValueError as e:
    out["bad_mode"] = str(e)
class L(keras.layers.Layer):
    def call(self, inputs, training=None, mask=None, *, scale=1.0):
        return inputs
out["sig"] = L().call_signature_parameters
with keras.RematScope(mode="larger_than", output_size_threshold=5):
    a = keras.layers.Dense(4); b = keras.layers.Dense(2)
xs = np.ones((2, 3), "float32"); a(xs); b(xs)
ks = keras.KerasTensor((2, 3))
out["larger_than"] = [a.rematerialized_call(a.call, ks) == a.call, b.rematerialized_call(b.call, ks) == b.call]
with keras.RematScope(mode="list_of_layers", layer_names=["r1"]):
    r1 = keras.layers.Dense(2, name="r1"); r2 = keras.layers.Dense(2, name="r2")
out["list_of_layers"] = [r1.rematerialized_call(r1.call, xs) == r1.call, r2.rematerialized_call(r2.call, xs) == r2.call]
v = keras.Variable(np.zeros(2, "float32"))
with keras.StatelessScope([(v, np.ones(2, "float32"))]) as scope:
    v.assign(v * 3)
    inside = np.asarray(v.value).tolist()
out["stateless"] = [np.asarray(scope.get_current_value(v)).tolist(), v.numpy().tolist(), inside]
try:
    keras.StatelessScope([(v, np.ones(3, "float32"))])
except ValueError as e:
    out["stateless_shape"] = str(e)[:80]
try:
    keras.Operation(name="a/b")
except ValueError as e:
    out["op_name"] = str(e)
class Sc(keras.Operation):
    def __init__(self, factor=2.0, name=None):
        super().__init__(name=name); self.factor = factor
    def call(self, x): return x * self.factor
out["op_config"] = Sc(3.0, name="sc").get_config()
i = keras.Input((3,)); f = keras.Function(i, [keras.ops.sum(Sc(3.0)(i), axis=1), i * 2])
r = f(np.arange(6, dtype="float32").reshape(2, 3))
out["function"] = [np.asarray(t).tolist() for t in r]
print(json.dumps(out))
