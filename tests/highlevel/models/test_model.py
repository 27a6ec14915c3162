"""Models: Sequential, functional and subclassed; nesting (functional replay); calling on
NumPy arrays; summary; weights; freezing."""
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel.eager import EagerTensor


def relu(a):
    return np.maximum(a, 0.0)


def dense_np(layer, x, act=None):
    kernel, bias = layer.get_weights()
    out = x @ kernel + bias
    return act(out) if act else out


@pytest.fixture
def x4():
    return np.random.default_rng(0).random((6, 4)).astype(np.float32)


def summary_lines(model):
    lines = []
    model.summary(print_fn=lines.append)
    return lines


def summary_row(lines, layer):
    return next(line.split() for line in lines if line.startswith(f"{layer.name} ("))


# ---- Sequential ---------------------------------------------------------------------------

def test_sequential_with_input_computes_the_stack(x4):
    d1 = pd.layers.Dense(8, activation="relu")
    d2 = pd.layers.Dense(3)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), d1, d2])
    assert model.layers == [d1, d2]
    assert model.inputs[0].shape == (None, 4) and model.outputs[0].shape == (None, 3)
    out = model(x4)
    assert isinstance(out, EagerTensor) and out.shape == (6, 3)  # spec 1b: a tensor
    np.testing.assert_allclose(out, dense_np(d2, dense_np(d1, x4, relu)), rtol=1e-5, atol=1e-6)


def test_sequential_with_input_shape_on_the_first_layer(x4):
    model = pd.Sequential([pd.layers.Dense(5, input_shape=(4,)), pd.layers.Dense(2)])
    assert model.inputs is not None and model.inputs[0].shape == (None, 4)
    assert model.outputs[0].shape == (None, 2)
    assert [w.shape for w in model.weights] == [(4, 5), (5,), (5, 2), (2,)]
    assert model(x4).shape == (6, 2)


def test_sequential_built_lazily_from_data(x4):
    d1, d2 = pd.layers.Dense(5), pd.layers.Dense(2)
    model = pd.Sequential([d1, d2])
    assert model.inputs is None and not d1.built
    with pytest.raises(ValueError, match="no input shape yet"):
        model.graph()
    out = model(x4)
    assert out.shape == (6, 2) and d1.built and d1.kernel.shape == (4, 5)
    np.testing.assert_allclose(out, dense_np(d2, dense_np(d1, x4)), rtol=1e-5, atol=1e-6)


def test_sequential_built_lazily_by_fit(x4):
    model = pd.Sequential([pd.layers.Dense(3), pd.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x4, np.zeros((6, 1), np.float32), epochs=1, verbose=0)
    assert model.inputs[0].shape == (None, 4)
    assert model.count_params() == 4 * 3 + 3 + 3 + 1


def test_sequential_add_and_pop(x4):
    model = pd.Sequential()
    model.add(pd.layers.Input(shape=(4,)))
    model.add(pd.layers.Dense(5))
    assert model(x4).shape == (6, 5)
    last = pd.layers.Dense(3)
    model.add(last)
    assert model.layers[-1] is last and model(x4).shape == (6, 3)  # not the step of (6, 5)
    assert model.pop() is last
    assert model(x4).shape == (6, 5) and len(model.layers) == 1
    model.pop()
    with pytest.raises(ValueError, match="no layer to pop"):
        model.pop()
    with pytest.raises(TypeError, match="expected a Layer"):
        model.add("dense")


def test_sequential_add_after_compile_trains_the_new_graph(x4):
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(5)])
    model.compile("sgd", "mse")
    model.fit(x4, np.zeros((6, 5), np.float32), verbose=0)
    model.add(pd.layers.Dense(1))
    model.compile("sgd", "mse")
    history = model.fit(x4, np.zeros((6, 1), np.float32), verbose=0)
    assert len(history.history["loss"]) == 1
    assert model.predict(x4).shape == (6, 1)


# ---- functional ---------------------------------------------------------------------------

def test_functional_with_several_inputs_and_outputs():
    a = pd.Input(shape=(3,), name="fa")
    b = pd.Input(shape=(2,), name="fb")
    da = pd.layers.Dense(4, activation="relu")
    concat = pd.layers.Concatenate()
    reg, cls = pd.layers.Dense(1), pd.layers.Dense(3, activation="softmax")
    h = concat([da(a), b])
    model = pd.Model(inputs=[a, b], outputs=[reg(h), cls(h)])
    assert model.layers == [da, concat, reg, cls]
    rng = np.random.default_rng(1)
    xa, xb = rng.random((5, 3)).astype(np.float32), rng.random((5, 2)).astype(np.float32)
    out_reg, out_cls = model([xa, xb])
    h_np = np.concatenate([dense_np(da, xa, relu), xb], axis=1)
    np.testing.assert_allclose(out_reg, dense_np(reg, h_np), rtol=1e-5, atol=1e-6)
    logits = dense_np(cls, h_np)
    softmax = np.exp(logits - logits.max(1, keepdims=True))
    np.testing.assert_allclose(out_cls, softmax / softmax.sum(1, keepdims=True), rtol=1e-5,
                               atol=1e-6)
    predicted = model.predict([xa, xb], batch_size=2)
    assert isinstance(predicted, list) and [p.shape for p in predicted] == [(5, 1), (5, 3)]
    np.testing.assert_allclose(predicted[1], out_cls, rtol=1e-6)


def test_functional_mixes_layers_and_low_level_ops(x4):
    inp = pd.Input(shape=(4,))
    dense = pd.layers.Dense(3)
    out = pd.tanh(dense(inp * 2.0)) + 1.0
    model = pd.Model(inp, out)
    np.testing.assert_allclose(model(x4), np.tanh(dense_np(dense, 2 * x4)) + 1, rtol=1e-5,
                               atol=1e-6)


def test_model_needs_inputs_and_outputs():
    inp = pd.Input(shape=(2,))
    with pytest.raises(ValueError, match="both inputs and outputs"):
        pd.Model(inputs=inp)
    with pytest.raises(ValueError, match="not a graph input"):
        pd.Model(inputs=pd.layers.Dense(2)(inp), outputs=inp)
    with pytest.raises(TypeError, match="must be Variables"):
        pd.Model(inputs=inp, outputs=np.zeros(2))


def test_get_layer():
    inp = pd.Input(shape=(2,))
    first = pd.layers.Dense(2, name="first_dense")
    model = pd.Model(inp, pd.layers.Dense(1)(first(inp)))
    assert model.get_layer("first_dense") is first and model.get_layer(index=0) is first
    with pytest.raises(ValueError, match="no layer named 'nope'.*first_dense"):
        model.get_layer("nope")


# ---- subclassed ---------------------------------------------------------------------------

class ScaledNet(pd.Model):
    """Layers and a bare pd.Variable, joined by low-level ops."""

    def __init__(self):
        super().__init__()
        self.hidden = pd.layers.Dense(8)
        self.head = pd.layers.Dense(2)
        self.scale = pd.Variable("scaled_net_scale", shape=[2], initializer="ones")
        self.modes = set()

    def call(self, x, training=False):
        self.modes.add(training)
        return self.head(pd.tanh(self.hidden(x))) * self.scale


def test_subclassed_model_with_low_level_ops_and_a_variable(x4, free_names):
    net = ScaledNet()
    out = net(x4)
    assert isinstance(out, EagerTensor) and out.shape == (6, 2)  # spec 1b: a tensor
    expected = dense_np(net.head, np.tanh(dense_np(net.hidden, x4))) * net.scale.val()
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert net.layers == [net.hidden, net.head]
    names = [w.name for w in net.trainable_weights]
    assert names[-1] == "scaled_net_scale" and len(names) == 5
    net.compile("adam", pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    before = net.scale.val().copy()
    net.fit(x4, np.array([0, 1, 0, 1, 0, 1]), epochs=2, verbose=0)
    assert not np.array_equal(before, net.scale.val())  # the bare Variable is trained too
    assert net.modes == {False, True}  # predict traced call with training=False, fit with True


def test_subclassed_model_called_on_a_variable():
    net = ScaledNet()
    out = net(pd.Input(shape=(4,)))
    assert isinstance(out, pd.Variable) and out.shape == (None, 2)


def test_subclassed_model_without_call():
    class Empty(pd.Model):
        pass

    with pytest.raises(NotImplementedError, match="must implement call"):
        Empty()(np.zeros((1, 2), np.float32))


# ---- nesting (functional replay) ----------------------------------------------------------

def test_model_called_on_a_variable_inside_another_model(x4):
    i_in = pd.Input(shape=(4,))
    inner_hidden, inner_out = pd.layers.Dense(5, activation="relu"), pd.layers.Dense(3)
    inner = pd.Model(i_in, inner_out(inner_hidden(i_in)), name="replayed_inner")
    o_in = pd.Input(shape=(4,))
    head = pd.layers.Dense(1)
    outer = pd.Model(o_in, head(inner(o_in)))
    assert outer.layers == [inner, head]  # the nested model is one layer
    assert len(outer.weights) == 6 and outer.count_params() == 25 + 18 + 4
    np.testing.assert_allclose(outer(x4), dense_np(head, inner(x4)), rtol=1e-5, atol=1e-6)
    # The layers are shared: changing the inner model's weights changes the outer one.
    inner.set_weights([w * 0.0 for w in inner.get_weights()])
    np.testing.assert_allclose(outer(x4), np.broadcast_to(head.get_weights()[1], (6, 1)),
                               atol=1e-7)
    # Training the outer model trains the inner layers.
    outer.compile("sgd", "mse")
    inner.set_weights([np.full_like(w, 0.1) for w in inner.get_weights()])
    before = inner_hidden.kernel.val().copy()
    outer.fit(x4, np.ones((6, 1), np.float32), verbose=0)
    assert not np.array_equal(before, inner_hidden.kernel.val())


def test_subclassed_and_sequential_models_nest(x4):
    net = ScaledNet()
    inp = pd.Input(shape=(4,))
    top = pd.layers.Dense(1)
    outer = pd.Model(inp, top(net(inp)))
    assert outer.layers == [net, top]
    lines = summary_lines(outer)
    assert summary_row(lines, net)[-1] == f"{net.count_params():,}"
    assert f"Total params: {net.count_params() + 3:,}" in lines
    stacked = pd.Sequential([pd.layers.Input(shape=(4,)), outer, pd.layers.Dense(2)])
    assert stacked(x4).shape == (6, 2)
    np.testing.assert_allclose(stacked(x4), dense_np(stacked.layers[-1], outer(x4)),
                               rtol=1e-5, atol=1e-6)


def test_replay_checks_the_input_shape():
    i_in = pd.Input(shape=(4,))
    inner = pd.Model(i_in, pd.layers.Dense(2)(i_in), name="shape_checked")
    with pytest.raises(pd.ShapeError, match=r"shape_checked: input .*axis 1 should be 4, "
                                            r"received 3"):
        inner(pd.Input(shape=(3,)))
    with pytest.raises(ValueError, match="expected 1 inputs, received 2"):
        inner([pd.Input(shape=(4,)), pd.Input(shape=(4,))])


# ---- summary ------------------------------------------------------------------------------

def test_summary_lists_layers_shapes_and_counts():
    d1 = pd.layers.Dense(8, activation="relu")
    d2 = pd.layers.Dense(1)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), d1, pd.layers.Flatten(), d2],
                          name="summarized")
    lines = summary_lines(model)
    assert lines[0] == 'Model: "summarized"'
    assert lines[2].split() == ["Layer", "(type)", "Output", "Shape", "Param", "#"]
    assert summary_row(lines, d1) == [d1.name, "(Dense)", "(None,", "8)", "40"]
    assert summary_row(lines, d2) == [d2.name, "(Dense)", "(None,", "1)", "9"]
    assert summary_row(lines, model.layers[1])[-1] == "0"
    assert lines[-3:] == ["Total params: 49", "Trainable params: 49", "Non-trainable params: 0"]
    d1.trainable = False
    lines = summary_lines(model)
    assert lines[-3:] == ["Total params: 49", "Trainable params: 9", "Non-trainable params: 40"]


def test_a_functional_summary_lists_its_inputs_as_keras_does():
    # keras-io's bidirectional_lstm_imdb: Keras's summary starts with
    # "input_layer (InputLayer)  (None, None)  0"; a Sequential's does not list its Input.
    a, b = pd.layers.Input(shape=(None,), dtype="int32"), pd.layers.Input(shape=(3,))
    emb = pd.layers.GlobalAveragePooling1D()(pd.layers.Embedding(10, 3)(a))
    model = pd.Model([a, b], pd.layers.Concatenate()([emb, b]))
    lines = summary_lines(model)
    rows = [line.split() for line in lines if "(InputLayer)" in line]
    assert rows == [[a.name, "(InputLayer)", "(None,", "None)", "0"],
                    [b.name, "(InputLayer)", "(None,", "3)", "0"]]
    assert lines.index(next(line for line in lines if "(InputLayer)" in line)) == 4  # first row
    seq = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(2)])
    assert not any("InputLayer" in line for line in summary_lines(seq))


def test_summary_counts_thousands_and_prints_by_default(capsys):
    model = pd.Sequential([pd.layers.Input(shape=(100,)), pd.layers.Dense(100)])
    model.summary()
    out = capsys.readouterr().out
    assert "Total params: 10,100" in out and "(None, 100)" in out


def test_summary_of_a_subclassed_model_counts_bare_variables(x4):
    net = ScaledNet()
    net(x4)
    lines = summary_lines(net)
    assert any(line.startswith("(parameters outside layers)") and line.split()[-1] == "2"
               for line in lines)
    assert f"Total params: {4 * 8 + 8 + 8 * 2 + 2 + 2}" in lines


# ---- weights ------------------------------------------------------------------------------

def test_get_and_set_weights_round_trip(x4):
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3),
                           pd.layers.Dense(2)])
    weights = model.get_weights()
    assert [w.shape for w in weights] == [(4, 3), (3,), (3, 2), (2,)]
    before = model(x4)
    model.set_weights([np.zeros_like(w) for w in weights])
    np.testing.assert_array_equal(model(x4), np.zeros((6, 2), np.float32))
    model.set_weights(weights)
    np.testing.assert_array_equal(model(x4), before)
    weights[0][:] = 7.0  # get_weights returns copies
    np.testing.assert_array_equal(model(x4), before)
    with pytest.raises(ValueError, match="expected 4 arrays, received 3"):
        model.set_weights(weights[:3])
    with pytest.raises(pd.ShapeError, match=r"has shape \(4, 3\), received \(3, 4\)"):
        model.set_weights([weights[0].T] + weights[1:])


def test_trainable_false_freezes_a_layer_in_the_next_compile_and_fit(x4):
    frozen, free = pd.layers.Dense(4, activation="relu"), pd.layers.Dense(1)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), frozen, free])
    y = np.ones((6, 1), np.float32)
    model.compile("sgd", "mse")
    model.fit(x4, y, verbose=0)
    frozen.trainable = False
    assert model.trainable_weights == free.weights
    assert model.non_trainable_weights == frozen.weights
    model.compile("sgd", "mse")
    frozen_before, free_before = frozen.get_weights(), free.get_weights()
    model.fit(x4, y, epochs=2, verbose=0)
    for a, b in zip(frozen_before, frozen.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(free_before[0], free.get_weights()[0])
    frozen.trainable = True
    model.compile("sgd", "mse")
    model.fit(x4, y, verbose=0)
    assert not np.array_equal(frozen_before[0], frozen.get_weights()[0])


def test_a_frozen_model_fits_without_updating(x4):
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
    model.trainable = False
    model.compile("sgd", "mse")
    before = model.get_weights()
    history = model.fit(x4, np.ones((6, 1), np.float32), verbose=0)
    assert np.isfinite(history.history["loss"][0])
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_given_layer_names_are_kept_and_must_be_unique_in_a_model():
    first = pd.layers.Dense(2, name="w_reg")
    second = pd.layers.Dense(2, name="w_reg")  # another model's layer may share the name
    assert first.name == second.name == "w_reg"
    inp = pd.Input(shape=(3,))
    a = first(inp)
    b = second(inp)
    assert first.kernel.name != second.kernel.name  # parameter names stay unique
    with pytest.raises(ValueError, match="unique"):
        pd.Model(inputs=inp, outputs=[a, b])


def test_logs_carry_epoch_and_batch():
    seen = {"batch": [], "epoch": []}
    record = pd.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen["batch"].append(logs["batch"]),
        on_epoch_end=lambda epoch, logs: seen["epoch"].append(logs["epoch"]))
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((8, 3), np.float32), np.zeros((8, 1), np.float32)
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, callbacks=[record])
    assert seen == {"batch": [0, 1, 0, 1], "epoch": [0, 1]}
    assert all(isinstance(v, int) for v in seen["batch"] + seen["epoch"])
    assert "epoch" not in history.history and "batch" not in history.history


# ---- layer.input / layer.output (Keras's graph accessors) ---------------------------------

def test_layer_input_and_output_are_those_of_the_first_call():
    inp = pd.Input(shape=(4,))
    dense = pd.layers.Dense(3)
    out = dense(inp)
    dense(pd.Input(shape=(4,)))  # a second call does not move them
    assert dense.input is inp and dense.output is out
    merged = pd.layers.Concatenate()([inp, out])
    concat = merged._history[0]
    assert concat.input == [inp, out] and concat.output is merged


def test_layer_output_before_any_call_names_the_layer():
    dense = pd.layers.Dense(3, name="never_called")
    with pytest.raises(AttributeError, match="never_called: the layer has never been called"):
        dense.output
    with pytest.raises(AttributeError, match="has no defined input"):
        dense.input


def test_model_input_and_output_build_a_feature_extractor(x4):
    inp = pd.Input(shape=(4,))
    h = pd.layers.Dense(5, activation="relu")(inp)
    model = pd.Model(inp, pd.layers.Dense(2)(h))
    assert model.input is inp and model.output is model.outputs[0]
    features = pd.Model(inputs=model.input, outputs=[layer.output for layer in model.layers])
    got = features(x4)
    assert [a.shape for a in got] == [(6, 5), (6, 2)]
    np.testing.assert_allclose(got[1], model(x4), rtol=1e-6)
    two = pd.Model([inp, pd.Input(shape=(1,))], {"a": h, "b": model.output})
    assert isinstance(two.input, list) and len(two.input) == 2
    assert set(two.output) == {"a", "b"} and two.output["a"] is h


def test_input_batch_shape_fixes_the_batch_axis():
    inp = pd.Input(batch_shape=(16, 10, 5))
    assert inp.shape == (16, 10, 5)
    assert pd.Input(shape=(3,), batch_size=4).shape == (4, 3)
    model = pd.Model(inp, pd.layers.Conv1D(2, 3)(inp))
    x = np.zeros((16, 10, 5), np.float32)
    assert model.predict(x, batch_size=16, verbose=0).shape == (16, 8, 2)


@pytest.mark.parametrize("kwargs, match", [
    (dict(shape=(3,), batch_shape=(2, 3)), "either batch_shape or shape"),
    (dict(batch_size=2, batch_shape=(2, 3)), "either batch_shape or shape"),
    (dict(batch_shape=()), "expected batch_shape as a non-empty tuple"),
    (dict(batch_shape=5), "expected batch_shape as a non-empty tuple"),
    (dict(), "expected a shape"),
])
def test_input_shape_arguments_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pd.Input(**kwargs)


def test_sequential_of_layers_taken_from_another_model_builds_at_once():
    inp = pd.Input(shape=(6,))
    d1, d2 = pd.layers.Dense(4), pd.layers.Dense(3)
    pd.Model(inp, d2(d1(inp)))
    model = pd.Sequential([d1, pd.layers.Dense(5)])  # Keras's transfer-learning recipe
    assert model.inputs[0].shape == (None, 6) and model.count_params() == 28 + 25
    assert model(np.zeros((2, 6), np.float32)).shape == (2, 5)


def test_weights_are_in_keras_3_order_whatever_is_frozen():
    bn, dense = pd.layers.BatchNormalization(), pd.layers.Dense(2)
    model = pd.Sequential([pd.Input((4,)), bn, dense])
    names = [w.name.rsplit("/", 1)[-1] for w in model.weights]
    assert names == ["gamma", "beta", "moving_mean", "moving_variance", "kernel", "bias"]
    before = [w.name for w in model.weights]
    bn.trainable = False
    assert [w.name for w in model.weights] == before
    assert model.trainable_weights == [dense.kernel, dense.bias]
    values = [np.full(w.shape, i, np.float32) for i, w in enumerate(model.weights)]
    model.set_weights(values)
    assert [float(v.flat[0]) for v in model.get_weights()] == [0, 1, 2, 3, 4, 5]


def test_sequential_and_compile_take_kerass_positional_order(x4):
    """Sequential(layers, trainable, name) and compile(optimizer, loss, loss_weights,
    metrics), as Keras 3 orders them."""
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(2)], False, "frozen")
    assert model.name == "frozen" and not model.trainable and not model.trainable_weights
    inp = pd.Input(shape=(4,))
    two = pd.Model(inp, [pd.layers.Dense(1, name="a")(inp), pd.layers.Dense(1, name="b")(inp)])
    two.compile("sgd", "mse", [1.0, 0.0], ["mae"])
    y = np.ones((len(x4), 1), np.float32)
    logs = two.evaluate(x4, [y, 2 * y], verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(logs["a_loss"])   # b's loss weighs 0
    assert "a_mae" in logs and "b_mae" in logs


def test_input_takes_kerass_positional_order():
    """keras.Input(shape, batch_size, dtype, ..., name)."""
    x = pd.Input((3,), 8, "int64", name="ids")
    assert x.shape == (8, 3) and x.dtype == "int64"
    assert pd.layers.Input is pd.Input
