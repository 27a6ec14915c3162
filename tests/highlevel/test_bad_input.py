"""Bad input to layers, models and the training loop, found by tools/fuzz_inputs.py: each
case is a clear Python exception naming the layer or argument (or a correct result), never
a crash or silent garbage."""
import numpy as np
import pytest

import paddle as pd


# ---- layer constructors -------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: pd.layers.Dense(True), r"Dense: expected a positive integer units, received True"),
    (lambda: pd.layers.Conv2D(None, 3), r"Conv2D: expected a positive integer filters, "
                                        r"received None"),
    (lambda: pd.layers.Reshape((2.5,)), r"Reshape: expected target_shape as a tuple of sizes "
                                        r">= 1 \(one of them may be -1\), received \(2.5,\)"),
    (lambda: pd.layers.Reshape(None), r"Reshape: expected target_shape .* received None"),
    (lambda: pd.layers.Reshape((-1, -1)), r"Reshape: expected target_shape .* \(-1, -1\)"),
    (lambda: pd.layers.Reshape((0, 3)), r"Reshape: expected target_shape .* \(0, 3\)"),
    (lambda: pd.layers.Permute(None), r"Permute: dims must be a permutation"),
    (lambda: pd.layers.Permute((1.0, 2)), r"Permute: dims must be a permutation"),
])
def test_layer_constructor_arguments_are_checked(make, message):
    # Dense(True) made one unit and Permute((1.0, 2)) was accepted; Conv2D(None, 3) failed in
    # build inside int(), Reshape(None) / Reshape((2.5,)) in tuple() or at the first call.
    with pytest.raises(ValueError, match=rf"^{message}"):
        make()


def test_reshape_layer_keeps_examples_apart():
    # (None, 7) reshaped to (3, 2) per example cannot work, but the op only saw a multiple
    # of 7 values: a batch of 6 came out as 7 "examples" made of pieces of the 6.
    layer = pd.layers.Reshape((3, 2), name="per_example")
    with pytest.raises(pd.ShapeError, match=r"^per_example: cannot reshape each example of shape "
                                            r"\(7,\) \(7 values\) to \(3, 2\) \(6 values\)"):
        layer(pd.layers.Input(shape=(7,)))
    assert layer(np.arange(12, dtype=np.float32).reshape(2, 6)).shape == (2, 3, 2)


# ---- models and the training loop ---------------------------------------------------------

def _regression(name):
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3), pd.layers.Dense(1)],
                          name=name)
    model.compile("sgd", "mse")
    rng = np.random.default_rng(0)
    return model, rng.random((16, 4)).astype(np.float32), rng.random((16, 1)).astype(np.float32)


@pytest.mark.parametrize("call", ["fit", "evaluate", "train_on_batch"])
def test_targets_that_do_not_broadcast_are_refused(call):
    # (16, 3) targets for a (16, 1) output broadcast to a loss over every pair, as Keras 3
    # computes it (issue #31: tests/highlevel/losses/test_loss_target_shapes.py); (16, 2)
    # targets for a (16, 3) output cannot, and Keras refuses them too.
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)],
                          name="wide_targets")
    model.compile("sgd", "mse")
    x, y = np.zeros((16, 4), np.float32), np.zeros((16, 2), np.float32)
    kw = {} if call == "train_on_batch" else {"verbose": 0}
    with pytest.raises(pd.ShapeError, match=r"^mean_squared_error: expected targets shaped "
                                            r"like the predictions \(None, 3\) or broadcasting "
                                            r"against them, received \(None, 2\)"):
        getattr(model, call)(x, y, **kw)


def test_rank_one_targets_still_meet_a_one_unit_output():
    model, x, y = _regression("flat_targets")
    flat = model.evaluate(x, y[:, 0], verbose=0)
    assert flat == pytest.approx(model.evaluate(x, y, verbose=0))


# ---- reader decorators --------------------------------------------------------------------

def _samples():
    return iter(range(10))


@pytest.mark.parametrize("decorate, func", [
    (lambda: pd.reader.batch([1, 2, 3], 2), "batch"),
    (lambda: pd.reader.shuffle(5, 3), "shuffle"),
    (lambda: pd.reader.firstn(None, 3), "firstn"),
    (lambda: pd.reader.cache([1, 2]), "cache"),
    (lambda: pd.reader.chain(_samples, None), "chain"),
    (lambda: pd.reader.compose(_samples, 5), "compose"),
    (lambda: pd.reader.map_readers(lambda v: v, 5), "map_readers"),
    (lambda: pd.reader.buffered(None, 2), "buffered"),
    (lambda: pd.reader.xmap_readers(lambda v: v, None, 2, 2), "xmap_readers"),
])
def test_decorators_refuse_what_is_not_a_reader_when_decorating(decorate, func):
    # These failed only when read, as "'list' object is not callable".
    with pytest.raises(TypeError, match=rf"^{func}: expected a reader creator \(a function "
                                        r"returning an iterator of samples\), received"):
        decorate()


def test_reader_functions_and_results_are_checked():
    with pytest.raises(TypeError, match=r"^map_readers: expected a function as func"):
        pd.reader.map_readers(None, _samples)
    with pytest.raises(TypeError, match=r"^map_readers: expected at least one reader"):
        pd.reader.map_readers(lambda v: v)  # failed when read: 'map() must have at least ...'
    with pytest.raises(TypeError, match=r"^xmap_readers: expected a function as mapper"):
        pd.reader.xmap_readers(None, _samples, 2, 2)
    # a creator returning something that is not an iterator: "'int' object is not iterable"
    with pytest.raises(TypeError, match=r"^reader: a reader creator must return an iterator "
                                        r"of samples, '<lambda>' returned int"):
        list(pd.reader.batch(lambda: 5, 2)())


def test_text_file_that_is_not_text_names_the_file(tmp_path):
    path = tmp_path / "binary.txt"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match=r"^text_file: '.*binary.txt' is not utf-8 text"):
        list(pd.reader.creator.text_file(str(path))())


@pytest.mark.parametrize("kw, error, message", [
    ({"batch_size": True}, ValueError, r"batch_size: expected a positive integer, received True"),
    # steps_per_epoch 0 or -1 made epochs of no batch (a history without a loss), 1.5 one step
    ({"steps_per_epoch": 0}, ValueError, r"steps: expected a positive integer, received 0"),
    ({"steps_per_epoch": -1}, ValueError, r"steps: expected a positive integer, received -1"),
    ({"steps_per_epoch": 1.5}, ValueError, r"steps: expected a positive integer, received 1.5"),
    ({"validation_freq": 0, "validation_split": 0.25}, ValueError,
     r"fit: validation_freq: expected a positive integer, received 0"),  # ZeroDivisionError
    ({"validation_split": "a"}, ValueError, r"validation_split: expected a fraction in \(0, 1\)"),
    ({"validation_data": "xy", "validation_batch_size": 0}, ValueError,
     r"batch_size: expected a positive integer, received 0"),  # 0 fell back to batch_size
    ({"sample_weight": np.array(["a"] * 16)}, TypeError,
     r"sample_weight: expected numbers \(one weight per sample\)"),
    ({"callbacks": 5}, TypeError, r"callbacks: expected a list of Callback objects, received int"),
])
def test_fit_arguments_are_checked(kw, error, message):
    model, x, y = _regression("fit_arguments")
    if kw.get("validation_data") == "xy":
        kw["validation_data"] = (x, y)
    with pytest.raises(error, match=rf"^{message}"):
        model.fit(x, y, verbose=0, **kw)


def test_class_weight_keys_must_be_class_indices():
    # {-1: 2.0} indexed the weight table from its end: the last class got weight 2.
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)], name="cw")
    model.compile("sgd", pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    x, y = np.ones((6, 4), np.float32), np.arange(6) % 3
    with pytest.raises(ValueError, match=r"^class_weight: expected \{class index >= 0: weight\}, "
                                         r"received the entry -1: 2.0"):
        model.fit(x, y, class_weight={-1: 2.0}, verbose=0)


def test_loss_weights_must_be_numbers_when_compiling():
    model, _, _ = _regression("loss_weights")
    # 'could not convert string to float' at the first batch
    with pytest.raises(ValueError, match=r"^compile: expected loss_weights as numbers"):
        model.compile("sgd", "mse", loss_weights=["a"])


def test_float_class_labels_must_be_whole_numbers():
    # The sparse loss casts float labels to int64: 1.5 trained as class 1, silently.
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)], name="labels")
    model.compile("adam", "sparse_categorical_crossentropy")
    x = np.ones((6, 4), np.float32)
    with pytest.raises(ValueError, match=r"^sparse_categorical_crossentropy: expected class "
                                         r"indices as targets, received 1.5 in target 0 \(a "
                                         r"float64 array\)"):
        model.fit(x, np.array([0, 1.5, 2, 0, 1, 2]), verbose=0)
    model.fit(x, np.array([0.0, 1.0, 2.0, 0.0, 1.0, 2.0]), verbose=0)  # whole floats are fine


def test_get_layer_index_out_of_range_names_the_model():
    model, _, _ = _regression("two_layers")
    with pytest.raises(ValueError, match=r"^get_layer: index 10 is out of range for the 2 "
                                         r"layers of two_layers"):
        model.get_layer(index=10)  # 'IndexError: list index out of range'
    assert model.get_layer(index=-1) is model.layers[-1]


def test_on_batch_methods_check_sample_counts_and_weights():
    model, x, y = _regression("on_batch")
    # 10 inputs against 16 targets failed inside the loss: 'sub: shapes cannot be broadcast'
    with pytest.raises(ValueError, match=r"^x and y must have the same number of samples: x "
                                         r"has 10, y has 16"):
        model.train_on_batch(x[:10], y)
    # one weight broadcast over the whole batch, silently
    with pytest.raises(ValueError, match=r"^sample_weight: expected shape \(16,\), received "
                                         r"\(1,\)"):
        model.train_on_batch(x, y, sample_weight=[2.0])
    a, b = pd.layers.Input(shape=(4,)), pd.layers.Input(shape=(2,))
    two = pd.Model([a, b], pd.layers.Concatenate()([a, b]))
    with pytest.raises(ValueError, match=r"^the inputs must have the same number of samples: "
                                         r"x\[0\] has 3, x\[1\] has 5"):
        two.predict_on_batch([x[:3], x[:5, :2]])  # was 'concat: shapes differ outside axis 1'


def test_a_string_is_not_a_source_of_batches():
    model, x, y = _regression("string_x")
    # iterated as batches of characters: 'an iterable of batches yields (x, y) itself'
    with pytest.raises(TypeError, match=r"^x: expected NumPy arrays, .* received the str "
                                        r"'data.csv'"):
        model.fit("data.csv", y, verbose=0)


@pytest.mark.parametrize("make, message", [
    (lambda: pd.layers.LSTM(4, return_sequences="no"), r"LSTM: expected return_sequences"),
    (lambda: pd.layers.GRU(4, reset_after="x"), r"GRU: expected reset_after"),
    (lambda: pd.layers.Dense(3, use_bias="x"), r"Dense: expected use_bias"),
    (lambda: pd.layers.GlobalAveragePooling2D(keepdims="yes"),
     r"GlobalAveragePooling2D: expected keepdims"),
    (lambda: pd.layers.LayerNormalization(center=None), r"LayerNormalization: expected center"),
    (lambda: pd.reader.batch(_samples, 2, drop_last="x"), r"batch: expected drop_last"),
])
def test_boolean_flags_must_be_booleans(make, message):
    # bool('no') is True: return_sequences='no' silently returned the sequences
    with pytest.raises(ValueError, match=rf"^{message} to be True or False, received"):
        make()
    assert pd.layers.LSTM(4, return_sequences=1).return_sequences is True  # 0 / 1 still work


def test_float_target_losses_check_the_fed_batch_too():
    # One fed target row broadcast against every prediction: 4 losses from 1 target.
    from paddle.highlevel import losses
    t, p = pd.data("t", [None, 3]), pd.data("p", [None, 3])
    with pytest.raises(pd.ShapeError, match=r"^categorical_crossentropy: expected targets shaped "
                                            r"like the predictions: predictions are \(4, 3\), "
                                            r"targets are \(1, 3\) \(with the fed shapes"):
        pd.eval(losses.categorical_crossentropy(t, p), {t: np.eye(3)[:1], p: np.full((4, 3), 0.3)})


def test_saving_names_itself_for_a_non_path_or_a_folder(tmp_path):
    model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    with pytest.raises(TypeError, match="^save: expected a file path"):
        model.save(5)
    with pytest.raises(TypeError, match="^load_model: expected a file path"):
        pd.load_model(None)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        model.save(tmp_path)


def test_inputs_of_different_lengths_without_targets_are_named_as_inputs():
    inp_a, inp_b = pd.Input(shape=(2,)), pd.Input(shape=(2,))
    model = pd.Model([inp_a, inp_b], pd.layers.Add()([inp_a, inp_b]))
    with pytest.raises(ValueError, match="^the inputs must have the same number of samples"):
        model.predict([np.ones((6, 2), np.float32), np.ones((2, 2), np.float32)])
