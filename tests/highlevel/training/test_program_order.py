"""State updates in a traced step run in the order written: a read that follows an
assignment in the same trace sees the value assigned (Keras 3.15.1 on JAX gives the
numbers below; see docs/keras.md). Graphs built with pd.assign + pd.eval keep the update
phase (tests/lowlevel/test_optimizers.py and the state tests)."""
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel import fusion

ops = pd.ops


class ComputeSum(pd.layers.Layer):  # the subclassing guide's layer
    def __init__(self, input_dim):
        super().__init__()
        self.total = self.add_weight(initializer="zeros", shape=(input_dim,), trainable=False)

    def call(self, inputs):
        self.total.assign_add(ops.sum(inputs, axis=0))
        return self.total


class Accumulate(pd.layers.Layer):  # reads its accumulator after updating it
    def build(self, shape):
        self.total = self.add_weight(initializer="zeros", shape=(shape[-1],), trainable=False)

    def call(self, inputs):
        self.total.assign_add(ops.sum(inputs, axis=0))
        return inputs + self.total


class MeanNorm(pd.layers.Layer):  # BatchNorm-like: normalizes with its updated statistic
    def build(self, shape):
        self.mean = self.add_weight(initializer="zeros", shape=(shape[-1],), trainable=False)

    def call(self, x, training=False):
        if training:
            self.mean.assign(0.5 * self.mean + 0.5 * ops.mean(x, axis=0))
        return x - self.mean


class Counting(pd.Model):  # a custom train_step that assigns, then reads
    def __init__(self):
        super().__init__()
        self.dense = pd.layers.Dense(1, kernel_initializer="ones")
        self.summer = ComputeSum(1)
        self.count = self.add_weight(initializer="zeros", shape=(), trainable=False)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        self.count.assign_add(1.0)
        twice = self.count * 2.0
        total = self.summer(y)
        y_pred = self(x)
        return {"count": self.count, "twice": twice, "total": ops.sum(total),
                "loss": ops.mean((y_pred - y) ** 2)}


def _accumulating_model(kind):
    if kind == "sequential":
        return pd.Sequential([pd.Input((2,)), pd.layers.Dense(2, kernel_initializer="ones"),
                              Accumulate(), pd.layers.Dense(1, kernel_initializer="ones")])

    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.d1 = pd.layers.Dense(2, kernel_initializer="ones")
            self.acc = Accumulate()
            self.d2 = pd.layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            return self.d2(self.acc(self.d1(x)))
    return Net()


@pytest.mark.parametrize("kind", ["sequential", "subclassed"])
def test_fit_reads_accumulator_after_its_update(kind):
    x = np.arange(8, dtype=np.float32).reshape(4, 2) / 8
    y = np.ones((4, 1), np.float32)
    model = _accumulating_model(kind)
    model.compile(optimizer=pd.optimizers.SGD(0.01), loss="mse")
    history = model.fit(x, y, batch_size=2, epochs=1, verbose=0, shuffle=False)
    acc = next(layer for layer in model.layers if isinstance(layer, Accumulate))
    np.testing.assert_allclose(history.history["loss"], [31.943912506103516], rtol=1e-5)
    np.testing.assert_allclose(acc.total.numpy(), [3.3067186, 3.3067186], rtol=1e-5)
    np.testing.assert_allclose(model.predict(x, verbose=0).ravel(),
                               [1.3170491, 1.4815414, 1.6460336, 1.8105257], rtol=1e-5)


def test_compute_sum_in_predict_returns_the_new_total():
    # the guide's numbers for two calls (Keras on JAX cannot trace a layer returning its
    # variable inside a Sequential; its eager calls give 2 then 4)
    model = pd.Sequential([pd.Input((2,)), ComputeSum(2)])
    out = model.predict_on_batch(np.ones((2, 2), np.float32))
    np.testing.assert_allclose(np.ravel(out), [2.0, 2.0])
    out = model.predict_on_batch(np.ones((2, 2), np.float32))
    np.testing.assert_allclose(np.ravel(out), [4.0, 4.0])


def test_batchnorm_like_layer_reads_its_updated_statistic():
    x = np.arange(12, dtype=np.float32).reshape(6, 2) / 6
    y = np.ones((6, 1), np.float32)
    model = pd.Sequential([pd.Input((2,)), pd.layers.Dense(2, kernel_initializer="ones"),
                           MeanNorm(), pd.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer=pd.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, batch_size=3, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [1.88583, 2.04928], rtol=1e-4)
    np.testing.assert_allclose(model.layers[1].mean.numpy(), [1.81765, 1.81765], rtol=1e-4)
    np.testing.assert_allclose(
        model.predict(x, verbose=0).ravel(),
        [-1.93037, -1.22575, -0.52113, 0.18349, 0.8881, 1.59272], rtol=1e-4, atol=1e-4)


def test_custom_train_step_assigns_then_reads():
    x = np.arange(12, dtype=np.float32).reshape(6, 2) / 6
    y = np.ones((6, 1), np.float32)
    seen = []

    class Log(pd.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append((float(logs["count"]), float(logs["twice"]), float(logs["total"])))

    model = Counting()
    model.compile(optimizer="sgd")
    model.fit(x, y, batch_size=2, epochs=2, verbose=0, shuffle=False, callbacks=[Log()])
    # Keras counts 1, 2, 3 per batch (numbers assigned in a trace run on every step) and
    # the guide's ComputeSum gives 2, 4, 6; paddle's logs are running means per epoch.
    assert float(model.count.numpy()) == 6.0
    assert model.summer.total.numpy().tolist() == [12.0]
    assert seen[:3] == [(1.0, 2.0, 2.0), (1.5, 3.0, 3.0), (2.0, 4.0, 4.0)]


class Fill(pd.layers.Layer):  # two assignments in a row, each reading the one before
    def build(self, shape):
        self.v = self.add_weight(initializer="zeros", shape=(3,), trainable=False)

    def call(self, x):
        self.v.assign_add(1.0)
        self.v.assign(self.v * 2.0)
        return x + self.v


def test_assignments_chain_in_evaluate_and_predict():
    model = pd.Sequential([pd.Input((3,)), Fill()])
    model.compile(loss="mse")
    loss = model.evaluate(np.zeros((4, 3)), np.zeros((4, 3)), batch_size=2, verbose=0)
    assert loss == pytest.approx(20.0)  # Keras: v is 2 then 6, the mse 4 then 36
    np.testing.assert_allclose(model.layers[0].v.numpy(), [6.0, 6.0, 6.0])
    np.testing.assert_allclose(model.predict(np.zeros((2, 3)), verbose=0), np.full((2, 3), 14.0))
    np.testing.assert_allclose(model.layers[0].v.numpy(), [14.0, 14.0, 14.0])


def test_tf1_graph_keeps_the_update_phase():
    total = pd.Variable("order_tf1_total", shape=[], initializer="zeros", trainable=False)
    x = pd.data("order_tf1_x", shape=[None])
    step = pd.assign(total, total + pd.sum(x))
    read = total * 1.0  # built after the assign, outside a trace: reads the old value
    assert pd.eval([read, step], {x: np.array([1.0, 2.0])})[0] == 0.0
    assert float(total.val()) == 3.0


def test_dense_train_step_plans_as_before(monkeypatch):
    """A step without reads after assignments builds exactly the nodes it did before
    (the count measured on main before this change: see the commit message). The calls
    are counted unfused (fusion off): the fusion pass merges some of them."""
    pd.seed(0)
    model = pd.Sequential([pd.Input((4,)), pd.layers.Dense(3)])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    fusion.set_enabled(False)
    try:
        model.fit(np.ones((8, 4), np.float32), np.ones((8, 3), np.float32), batch_size=4,
                  verbose=0)
    finally:
        fusion.set_enabled(None)
    step = next(iter(model._steps.values()))[0]
    program = next(iter(step.plan.specialized.values()))
    assert (len(step.plan.nodes), len(program.compute), len(program.updates)) == COUNTS


COUNTS = (35, 27, 1)  # nodes, compute calls, update calls; the same on main before
