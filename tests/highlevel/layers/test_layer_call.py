"""Layer.__call__ as Keras's: `training` and `mask` reach `call` only when it names them, an
explicit `training=` fixes the mode of the ops it builds, and positional arguments after
the inputs bind to `call`'s own parameters."""
import numpy as np
import pytest

import paddle as pd


class Double(pd.layers.Layer):
    def call(self, inputs):               # the Keras idiom: no training, no mask
        return inputs * 2.0


class Scale(pd.layers.Layer):
    def call(self, inputs, factor=1.0):
        return inputs * factor


class Seen(pd.layers.Layer):
    """Records the training and mask values its call received."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, inputs, training=None, mask=None):
        self.seen.append((training, mask))
        return inputs


def ones(n=4, d=3):
    return np.ones((n, d), np.float32)


def test_call_without_training_works_in_every_kind_of_model():
    seq = pd.Sequential([pd.layers.Input(shape=(3,)), Double(), pd.layers.Dense(1)])
    seq.compile(optimizer="sgd", loss="mse")
    seq.fit(ones(), np.zeros((4, 1), np.float32), verbose=0)

    inp = pd.Input(shape=(3,))
    functional = pd.Model(inp, Double()(inp))
    np.testing.assert_allclose(functional.predict(ones(), verbose=0), 2 * ones())

    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.double, self.dense = Double(), pd.layers.Dense(1)

        def call(self, inputs):
            return self.dense(self.double(inputs))

    net = Net()
    net.compile(optimizer="sgd", loss="mse")
    history = net.fit(ones(), np.zeros((4, 1), np.float32), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


def test_a_second_positional_argument_binds_to_call_not_to_training():
    x = pd.Input(shape=(3,))
    layer = Scale()
    y = layer(x, 3.0)                     # factor, not training
    model = pd.Model(x, y)
    np.testing.assert_allclose(model.predict(ones(), verbose=0), 3 * ones())
    assert layer(ones(), 0.5).tolist() == (0.5 * ones()).tolist()


def test_too_many_positional_arguments_name_the_layer_and_the_signature():
    layer = Scale(name="scaler")
    with pytest.raises(TypeError, match=r"scaler: Scale.call takes 2 positional.*inputs, "
                                        r"factor.*received 3"):
        layer(pd.Input(shape=(3,)), 2.0, 5.0)
    with pytest.raises(TypeError, match="both by position and by keyword"):
        layer(pd.Input(shape=(3,)), 2.0, factor=5.0)


def test_inputs_may_be_given_by_keyword():
    assert Double()(inputs=ones()).tolist() == (2 * ones()).tolist()


def test_training_and_mask_reach_call_only_when_named():
    seen = Seen()
    x = pd.Input(shape=(3,))
    seen(x)
    seen(x, training=True)
    seen(x, mask=None)
    assert seen.seen == [(None, None), (True, None), (None, None)]
    # Double names neither: passing them is allowed and they are dropped, as in Keras.
    assert Double()(x, training=True, mask=None).shape == (None, 3)


def test_the_enclosing_calls_training_value_is_inherited():
    inner = Seen()

    class Outer(pd.layers.Layer):
        def call(self, inputs, training=None):
            return inner(inputs)

    Outer()(pd.Input(shape=(3,)), training=False)
    assert inner.seen[-1][0] is False


def test_subclassed_model_hears_the_mode_of_the_graph_being_traced():
    modes = []

    class Net(pd.Model):
        def __init__(self):
            super().__init__()
            self.dense = pd.layers.Dense(1)

        def call(self, inputs, training=None):
            modes.append(training)
            return self.dense(inputs) * (2.0 if training else 1.0)

    net = Net()
    net.compile(optimizer="sgd", loss="mse")
    net.fit(ones(), np.zeros((4, 1), np.float32), verbose=0)
    net.predict(ones(), verbose=0)
    assert True in modes and False in modes


def test_explicit_training_true_drops_in_predict():
    pd.seed(1)
    x = pd.Input(shape=(1000,))
    model = pd.Model(x, pd.layers.Dropout(0.5)(x, training=True))   # Monte-Carlo dropout
    out = model.predict(np.ones((2, 1000), np.float32), verbose=0)
    assert 0.3 < (out == 0).mean() < 0.7
    assert set(np.unique(out).tolist()) == {0.0, 2.0}
    plain = pd.Model(x, pd.layers.Dropout(0.5)(x))
    assert (plain.predict(np.ones((2, 1000), np.float32), verbose=0) == 1).all()


def test_explicit_training_on_numpy_input():
    pd.seed(2)
    drop = pd.layers.Dropout(0.5)
    assert (drop(np.ones((2, 500), np.float32)) == 1).all()
    assert (drop(np.ones((2, 500), np.float32), training=True) == 0).any()


def test_explicit_training_false_keeps_dropout_and_batchnorm_off_in_fit():
    inp = pd.Input(shape=(3,))
    bn = pd.layers.BatchNormalization()
    h = bn(inp, training=False)                        # frozen statistics while fitting
    out = pd.layers.Dense(1)(pd.layers.Dropout(0.9)(h, training=False))
    model = pd.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    before = bn.moving_mean.val()
    x = np.random.default_rng(0).normal(5.0, 1.0, (16, 3)).astype(np.float32)
    model.fit(x, np.zeros((16, 1), np.float32), epochs=2, verbose=0)
    np.testing.assert_array_equal(bn.moving_mean.val(), before)
    # No dropout either: two training steps' losses equal the inference loss of the weights.
    y = np.zeros((16, 1), np.float32)
    train_loss = model.test_on_batch(x, y)
    assert model.train_on_batch(x, y) == pytest.approx(train_loss, rel=1e-5)


def test_explicit_training_survives_functional_replay():
    pd.seed(3)
    x = pd.Input(shape=(400,))
    inner = pd.Model(x, pd.layers.Dropout(0.5)(x, training=True))
    outer_in = pd.Input(shape=(400,))
    outer = pd.Model(outer_in, inner(outer_in))
    assert (outer.predict(np.ones((1, 400), np.float32), verbose=0) == 0).any()


def test_gradients_of_a_forced_op_follow_its_mode():
    x = pd.constant(np.ones((1, 200), np.float32))
    w = pd.Variable("forced_w", shape=[1, 200], initializer="ones")
    from paddle.lowlevel.graph import forced_mode
    with forced_mode(True):
        y = pd.sum(pd.dropout(x * w, 0.5))
    g, = pd.gradients(y, [w])
    value = pd.eval(g)                                    # an inference run
    assert set(np.unique(value).tolist()) <= {0.0, 2.0} and (value == 0).any()


@pytest.mark.parametrize("bad", ["yes", 2, 0.5])
def test_bad_training_value_names_the_layer(bad):
    with pytest.raises(ValueError, match=r"double_probe: expected training to be True, False or "
                                         r"None, received"):
        Double(name="double_probe")(pd.Input(shape=(3,)), training=bad)


def test_forced_mode_refuses_a_non_bool():
    from paddle.lowlevel.graph import forced_mode
    with pytest.raises(TypeError, match="forced_mode: expected True, False or None"):
        with forced_mode("train"):
            pass


def test_a_second_tensor_argument_feeds_the_layer_like_an_input():
    class Endpoint(pd.layers.Layer):  # keras-io's LogisticEndpoint: call(targets, logits)
        def call(self, targets, logits, sample_weights=None):
            self.add_loss(pd.mean(pd.square(targets - logits)))
            return pd.softmax(logits)

    inputs = pd.Input(shape=(3,), name="inputs")
    targets = pd.Input(shape=(2,), name="targets")
    dense = pd.layers.Dense(2)
    model = pd.Model([inputs, targets], Endpoint(name="endpoint")(targets, dense(inputs)))
    assert model.layers[0] is dense and len(model.trainable_weights) == 2
    model.compile(optimizer="sgd")
    x = {"inputs": np.ones((4, 3), np.float32), "targets": np.zeros((4, 2), np.float32)}
    before = dense.kernel.numpy()
    model.fit(x, verbose=0)
    assert not np.array_equal(before, dense.kernel.numpy())  # the upstream layer trains
    i2, t2 = pd.Input(shape=(3,)), pd.Input(shape=(2,))
    replayed = model([i2, t2])  # functional replay rebuilds the tensor argument too
    assert replayed.shape == (None, 2)
    arrays = [x["inputs"], x["targets"]]
    np.testing.assert_allclose(model.predict(arrays, verbose=0),
                               pd.Model([i2, t2], replayed).predict(arrays, verbose=0),
                               rtol=1e-6)


def test_a_layer_class_defined_in_a_function_does_not_outlive_it():
    import gc
    import weakref

    def build():
        inner = pd.Sequential([pd.Input((2,)), pd.layers.Dense(1, name="closed_over_dense")])

        class Wrapper(pd.layers.Layer):  # closes over `inner`, as keras-io's CustomRNN
            def call(self, inputs):
                return inner(inputs)

        Wrapper()(pd.Input((2,)))
        return weakref.ref(inner)

    ref = build()
    gc.collect()
    assert ref() is None  # nothing global (the call-signature cache) keeps it alive


def test_input_spec_takes_keras_arguments_and_checks_shape_and_max_ndim():
    spec = pd.InputSpec(shape=(None, 3), dtype="float32", name="x")
    assert (spec.ndim, spec.shape, spec.dtype, spec.name) == (2, (None, 3), "float32", "x")
    assert pd.InputSpec.from_config(spec.get_config()).shape == (None, 3)
    layer = pd.layers.Dense(2)
    layer.build((None, 3))
    layer.input_spec = pd.InputSpec(shape=(None, 3))
    with pytest.raises(pd.errors.ShapeError, match=r"expected an input of shape \(None, 3\), "
                                                   r"received shape \(None, 4\)"):
        layer(pd.Input((4,)))
    layer.input_spec = pd.InputSpec(max_ndim=2)
    with pytest.raises(pd.errors.ShapeError, match="rank <= 2"):
        layer(pd.Input((2, 3)))
    with pytest.raises(TypeError, match="InputSpec: expected shape to be a tuple"):
        pd.InputSpec(shape=(None, "3"))
