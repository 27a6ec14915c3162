"""add_loss, layer.losses / model.losses, weight and activity regularizers (pd.regularizers),
and add_weight with Keras's keywords."""
import numpy as np
import pytest

import paddle as pd


def data(n=8, d=3, out=2, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)).astype(np.float32), rng.normal(size=(n, out)).astype(np.float32)


# ---- pd.regularizers -----------------------------------------------------------------------

def test_regularizer_values_match_keras_formulas():
    w = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    v = pd.constant(w)
    assert float(pd.eval(pd.regularizers.L1(0.1)(v))) == pytest.approx(0.1 * np.abs(w).sum())
    assert float(pd.eval(pd.regularizers.L2(0.2)(v))) == pytest.approx(0.2 * (w ** 2).sum())
    both = pd.regularizers.L1L2(l1=0.1, l2=0.2)(v)
    assert float(pd.eval(both)) == pytest.approx(0.1 * np.abs(w).sum() + 0.2 * (w ** 2).sum())
    assert float(pd.eval(pd.regularizers.L1L2()(v))) == 0.0
    assert pd.regularizers.l1 is pd.regularizers.L1 and pd.regularizers.l2 is pd.regularizers.L2
    assert pd.regularizers.l1_l2 is pd.regularizers.L1L2
    assert pd.regularizers.L1().l1 == 0.01 and pd.regularizers.L2().l2 == 0.01


@pytest.mark.parametrize("spec, cls, config", [
    ("l1", "L1", {"l1": 0.01}), ("l2", "L2", {"l2": 0.01}), ("L1L2", "L1L2", {"l1": 0.0, "l2": 0.0}),
    ({"class_name": "L2", "config": {"l2": 0.3}}, "L2", {"l2": 0.3}),
])
def test_get_and_serialize_round_trip(spec, cls, config):
    reg = pd.regularizers.get(spec)
    assert type(reg).__name__ == cls and reg.get_config() == config
    again = pd.regularizers.deserialize(pd.regularizers.serialize(reg))
    assert type(again) is type(reg) and again.get_config() == config


def test_get_passes_callables_and_none_through():
    fn = lambda w: pd.sum(w)  # noqa: E731
    assert pd.regularizers.get(fn) is fn and pd.regularizers.get(None) is None


@pytest.mark.parametrize("bad, error, match", [
    ("l3", ValueError, "unknown name 'l3'"), (3, TypeError, "expected a name"),
])
def test_get_refuses_unknown_identifiers(bad, error, match):
    with pytest.raises(error, match=match):
        pd.regularizers.get(bad)


@pytest.mark.parametrize("bad", [-0.1, float("nan"), "a", True])
def test_negative_or_non_numeric_factors_are_refused(bad):
    with pytest.raises(ValueError, match=r"L2: expected l2 to be a number >= 0"):
        pd.regularizers.L2(bad)


# ---- weight and activity regularizers on layers ----------------------------------------------

def test_dense_penalties_join_the_loss_of_fit_and_evaluate():
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(
        2, kernel_regularizer=pd.regularizers.l2(0.5), bias_regularizer="l1",
        activity_regularizer=pd.regularizers.L1(0.01))])
    assert len(model.losses) == 3
    model.compile(optimizer="sgd", loss="mse")
    x, y = data()
    kernel, bias = model.get_weights()
    out = x @ kernel + bias
    # Keras 3 divides an activity penalty by the batch size
    expected = np.mean((out - y) ** 2) + 0.5 * (kernel ** 2).sum() + 0.01 * np.abs(bias).sum() \
        + 0.01 * np.abs(out).sum() / len(x)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-5)
    assert model.train_on_batch(x, y) == pytest.approx(expected, rel=1e-5)


def test_l2_alone_shrinks_weights_in_fit():
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Dense(
        2, kernel_initializer="ones", kernel_regularizer=pd.regularizers.L2(0.25))])
    model.compile(optimizer=pd.optimizers.SGD(learning_rate=0.1), loss="mse")
    x = np.zeros((4, 3), np.float32)           # the data loss gives the kernel no gradient
    model.fit(x, np.zeros((4, 2), np.float32), epochs=1, batch_size=4, verbose=0)
    # One SGD step on 0.25 * sum(k^2): k -= 0.1 * 0.5 * k
    np.testing.assert_allclose(model.layers[0].kernel.val(), np.full((3, 2), 0.95), rtol=1e-6)


def test_conv_and_embedding_take_regularizers():
    conv = pd.layers.Conv2D(2, 3, kernel_regularizer="l2", bias_regularizer="l1")
    depthwise = pd.layers.DepthwiseConv2D(3, depthwise_regularizer="l2")
    emb = pd.layers.Embedding(10, 4, embeddings_regularizer=pd.regularizers.L1(0.1))
    conv(pd.Input(shape=(5, 5, 1)))
    depthwise(pd.Input(shape=(5, 5, 2)))
    emb(pd.Input(shape=(3,), dtype="int64"))
    assert (len(conv.losses), len(depthwise.losses), len(emb.losses)) == (2, 1, 1)
    assert float(pd.eval(emb.losses[0])) == pytest.approx(0.1 * np.abs(emb.embeddings.val()).sum())
    assert depthwise.get_config()["depthwise_regularizer"] == {"class_name": "L2",
                                                               "config": {"l2": 0.01}}


def test_regularizers_round_trip_through_configs():
    layer = pd.layers.Dense(2, kernel_regularizer=pd.regularizers.L1L2(0.1, 0.2),
                            activity_regularizer="l2")
    config = layer.get_config()
    assert config["kernel_regularizer"] == {"class_name": "L1L2", "config": {"l1": 0.1, "l2": 0.2}}
    assert config["bias_regularizer"] is None  # listed unset, as Keras's configs list it
    again = pd.layers.Dense.from_config({**config, "name": "dense_again"})
    assert again.kernel_regularizer.get_config() == {"l1": 0.1, "l2": 0.2}
    assert again.activity_regularizer.get_config() == {"l2": 0.01}


def test_a_custom_callable_regularizer():
    layer = pd.layers.Dense(2, kernel_initializer="ones",
                            kernel_regularizer=lambda w: 2.0 * pd.sum(w))
    layer(pd.Input(shape=(3,)))
    assert float(pd.eval(layer.losses[0])) == 12.0


def test_a_regularizer_returning_garbage_names_layer_and_argument():
    with pytest.raises(TypeError, match=r"bad_reg: kernel regularizer: expected the regularizer "
                                        r"to return a float Variable, received 'oops'"):
        pd.layers.Dense(2, kernel_regularizer=lambda w: "oops", name="bad_reg")(
            pd.Input(shape=(3,)))


def test_frozen_weights_do_not_count():
    layer = pd.layers.Dense(2, kernel_regularizer="l2")
    layer(pd.Input(shape=(3,)))
    layer.trainable = False
    assert layer.losses == []


# ---- add_loss -------------------------------------------------------------------------------

class ActivityPenalty(pd.layers.Layer):
    def __init__(self, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * pd.mean(pd.square(inputs)))
        return inputs


def test_add_loss_in_call_is_added_to_the_training_loss():
    inp = pd.Input(shape=(3,))
    dense = pd.layers.Dense(2)
    model = pd.Model(inp, ActivityPenalty(0.5)(dense(inp)))
    model.compile(optimizer="sgd", loss="mse")
    assert len(model.losses) == 1
    x, y = data()
    out = x @ dense.kernel.val() + dense.bias.val()
    expected = np.mean((out - y) ** 2) + 0.5 * np.mean(out ** 2)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-5)


def test_add_loss_on_a_functional_model():
    inp = pd.Input(shape=(3,))
    h = pd.layers.Dense(4)(inp)
    out = pd.layers.Dense(2)(h)
    model = pd.Model(inp, out)
    model.add_loss(0.01 * pd.sum(pd.abs(h)))
    model.compile(optimizer="sgd", loss="mse")
    x, y = data()
    without = np.mean((model.predict(x, verbose=0) - y) ** 2)
    h_np = x @ model.layers[0].kernel.val() + model.layers[0].bias.val()
    assert model.evaluate(x, y, verbose=0) == pytest.approx(without + 0.01 * np.abs(h_np).sum(),
                                                            rel=1e-5)


def test_subclassed_model_losses_come_from_the_graph_being_run():
    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(2, kernel_regularizer=pd.regularizers.L2(0.1))
            self.penalty = ActivityPenalty(1.0)

        def call(self, inputs):
            return self.penalty(self.dense(inputs))

    net = Net()
    net.compile(optimizer="sgd", loss="mse")
    x, y = data()
    history = net.fit(x, y, epochs=2, verbose=0)        # traces the training graph
    loss = net.evaluate(x, y, verbose=0)                # another graph: its own add_loss
    k, b = net.dense.kernel.val(), net.dense.bias.val()
    out = x @ k + b
    expected = np.mean((out - y) ** 2) + np.mean(out ** 2) + 0.1 * (k ** 2).sum()
    assert loss == pytest.approx(expected, rel=1e-5)
    assert len(history.history["loss"]) == 2


def test_nested_layers_losses_are_collected():
    class Block(pd.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = pd.layers.Dense(2, kernel_regularizer="l1")

        def call(self, inputs):
            return self.inner(inputs)

    block = Block()
    block(pd.Input(shape=(3,)))
    assert len(block.losses) == 1


def test_add_loss_refuses_non_variables():
    with pytest.raises(TypeError, match=r"penalty_probe: add_loss expected a float Variable, "
                                        r"received 1.0"):
        ActivityPenalty(name="penalty_probe").add_loss(1.0)


# ---- add_weight ------------------------------------------------------------------------------

class Linear(pd.layers.Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):       # keras-io's making_new_layers guide, verbatim
        self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                 initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=True)
        self.total = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, inputs):
        return pd.matmul(inputs, self.w) + self.b


def test_add_weight_with_keras_keywords_and_no_name():
    layer = Linear()
    assert layer(np.ones((2, 3), np.float32)).shape == (2, 2)
    assert [w.shape for w in layer.weights] == [(3, 2), (2,), ()]
    assert [w.shape for w in layer.trainable_weights] == [(3, 2), (2,)]
    assert [w.shape for w in layer.non_trainable_weights] == [()]
    names = [w.name.rsplit("/", 1)[-1] for w in layer.weights]
    assert len(set(names)) == 3 and names[0] == "variable"


def test_add_weight_positional_forms():
    class Both(pd.layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight((2, 2), "ones")                 # Keras 3 order
            self.b = self.add_weight("b", (3,), "ones", False)       # paddle's order
            self.c = self.add_weight(4, name="c", dtype="float64")

        def call(self, inputs):
            return inputs

    layer = Both()
    layer(pd.Input(shape=(1,)))
    assert layer.a.val().tolist() == [[1.0, 1.0], [1.0, 1.0]] and not layer.b.trainable
    assert layer.c.shape == (4,) and layer.c.dtype == "float64"


@pytest.mark.parametrize("kwargs, match", [
    ({"shape": (2, -1)}, r"add_weight expected shape as ints >= 0, received \(2, -1\)"),
    ({"shape": "big"}, "add_weight expected shape as ints"),
    ({"shape": (2,), "name": ""}, "add_weight expected a non-empty name"),
    ({"shape": (2,), "trainable": "yes"}, "expected trainable"),
])
def test_add_weight_bad_arguments_name_the_layer(kwargs, match):
    layer = pd.layers.Layer(name="weights_probe")
    with pytest.raises(ValueError, match=match) as info:
        layer.add_weight(**kwargs)
    assert "weights_probe" in str(info.value)


def test_add_weight_refuses_too_many_positionals_and_doubled_arguments():
    layer = pd.layers.Layer(name="weights_probe2")
    with pytest.raises(TypeError, match="at most 4 positional"):
        layer.add_weight((2,), "zeros", "float32", True, "extra")
    with pytest.raises(TypeError, match="'shape' both by position and by keyword"):
        layer.add_weight((2,), shape=(3,))


@pytest.mark.parametrize("make, shape, count", [
    (lambda: pd.layers.LSTM(3, kernel_regularizer="l2", recurrent_regularizer="l1",
                            bias_regularizer="l2"), (4, 2), 3),
    (lambda: pd.layers.GRU(3, recurrent_regularizer="l2"), (4, 2), 1),
    (lambda: pd.layers.SimpleRNN(3, kernel_regularizer=pd.regularizers.L2(0.5)), (4, 2), 1),
    (lambda: pd.layers.Bidirectional(pd.layers.LSTM(3, kernel_regularizer="l2")), (4, 2), 2),
    (lambda: pd.layers.BatchNormalization(gamma_regularizer="l2", beta_regularizer="l1"),
     (3,), 2),
    (lambda: pd.layers.LayerNormalization(gamma_regularizer="l1"), (3,), 1),
])
def test_recurrent_and_normalization_layers_take_regularizers(make, shape, count):
    layer = make()
    layer(pd.Input(shape=shape))
    assert len(layer.losses) == count
    config = layer.get_config()
    again = type(layer).from_config({**config, "name": layer.name + "_again"}) \
        if not isinstance(layer, pd.layers.Bidirectional) else None
    if again is not None:
        again(pd.Input(shape=shape))
        assert len(again.losses) == count


def test_lstm_kernel_penalty_value():
    layer = pd.layers.LSTM(2, kernel_regularizer=pd.regularizers.L2(0.5))
    layer(pd.Input(shape=(3, 4)))
    assert float(pd.eval(layer.losses[0])) == pytest.approx(0.5 * (layer.kernel.val() ** 2).sum(),
                                                            rel=1e-5)


def test_an_unknown_regularizer_name_fails_in_the_constructor():
    with pytest.raises(ValueError, match="regularizer: unknown name 'l5'"):
        pd.layers.GRU(2, recurrent_regularizer="l5")


def test_losses_hold_the_latest_outermost_call_only():
    class Outer(pd.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = ActivityPenalty(0.5)

        def call(self, inputs):
            return self.inner(inputs)

    layer = Outer()
    assert layer.losses == []
    layer(pd.Input(shape=(3,)))
    first = layer.losses
    layer(pd.Input(shape=(3,)))  # Keras resets `losses` at each outermost call
    assert len(first) == 1 and len(layer.losses) == 1 and layer.losses[0] is not first[0]
    assert len(layer.inner.losses) == 1


def test_training_keeps_the_losses_of_earlier_calls():
    inp = pd.Input(shape=(3,))
    penalty = ActivityPenalty(0.5)
    model = pd.Model(inp, penalty(inp))
    penalty(pd.Input(shape=(3,)))  # another call: penalty.losses moves on, the model's graph
    model.compile(optimizer="sgd", loss="mse")  # still computes its own add_loss value
    x, y = data(out=3)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(
        np.mean((x - y) ** 2) + 0.5 * np.mean(x ** 2), rel=1e-5)


def test_compile_without_a_loss_trains_on_the_add_loss_values():
    inp = pd.Input(shape=(3,))
    dense = pd.layers.Dense(3)
    model = pd.Model(inp, ActivityPenalty(1.0)(dense(inp)))
    model.compile(optimizer="sgd")  # no loss: the add_loss values are the loss (Keras)
    x, _ = data(out=3)
    history = model.fit(x, epochs=3, verbose=0)      # no targets needed
    out = x @ dense.kernel.val() + dense.bias.val()
    assert model.evaluate(x, verbose=0) == pytest.approx(np.mean(out ** 2), rel=1e-5)
    assert history.history["loss"][-1] < history.history["loss"][0]
    model.fit(x, np.zeros((8, 3), np.float32), verbose=0)  # targets are ignored
