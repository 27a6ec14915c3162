"""keras-io `guides/functional_api.py` ("The Functional API", fchollet), in its Keras 3
text (`guides/keras_core/functional_api.py`: `from keras import layers, ops`), ported by
renaming `keras` to `pd` (`from paddle import layers`, `pd.ops`).

Other changes, all to the data and to what cannot run offline:
- `keras.datasets.mnist` / `cifar10` download; `mnist_like` gives scikit-learn's digits at
  MNIST's shape and learnable CIFAR-shaped images instead (see mnist_like.py), with fewer
  samples.
- `keras.applications.VGG19()` downloads ImageNet weights: the feature-extraction snippet
  builds `pd.applications.VGG19(weights=None)` (random weights, the same network).
- `keras.utils.plot_model` needs pydot and Graphviz: those lines run where pydot is
  installed (CI's `test` extra), and are skipped with a reason otherwise.
- Model names Keras prints (`conv2d_4`...) depend on what a process built before; the
  tests compare layer types, output shapes and parameter counts, which do not.

Every section of the guide is one test; the numbers asserted come from running the same
snippets under Keras 3.15.1 with the JAX backend.
"""
import gc

import numpy as np
import pytest

import paddle as pd
from paddle import layers
from paddle import ops

from keras_ports.mnist_like import cifar10, mnist


def structure(model):
    """(type, output shape, parameter count) of each layer, as Keras's summary lists them
    (Keras lists the InputLayer too; paddle's `model.layers` has no InputLayer, so those
    rows are left out of the Keras numbers below)."""
    return [(type(layer).__name__, layer.output.shape, layer.count_params())
            for layer in model.layers]


def summary_text(model):
    printed = []
    model.summary(print_fn=printed.append)
    return "\n".join(printed)


@pytest.fixture(autouse=True)
def fresh_names():
    gc.collect()  # layer names are global and held weakly: free those of earlier tests
    pd.utils.set_random_seed(1337)


def first_model():
    inputs = pd.Input(shape=(784,))
    dense = layers.Dense(64, activation="relu")
    x = dense(inputs)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    return pd.Model(inputs=inputs, outputs=outputs, name="mnist_model")


# Keras 3.15.1: mnist_model has 55,050 parameters in Dense layers of 50,240, 4,160 and 650.
MNIST_MODEL = [("Dense", (None, 64), 50240), ("Dense", (None, 64), 4160),
               ("Dense", (None, 10), 650)]


def test_introduction_builds_and_summarizes_the_first_model():
    inputs = pd.Input(shape=(784,))
    # Just for demonstration purposes.
    img_inputs = pd.Input(shape=(32, 32, 3))
    assert inputs.shape == (None, 784) and inputs.dtype == "float32"  # as Keras prints
    assert img_inputs.shape == (None, 32, 32, 3)

    dense = layers.Dense(64, activation="relu")
    x = dense(inputs)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    model = pd.Model(inputs=inputs, outputs=outputs, name="mnist_model")
    text = summary_text(model)

    assert structure(model) == MNIST_MODEL and model.count_params() == 55050
    assert 'Model: "mnist_model"' in text and "Total params: 55,050" in text


def test_plot_model(tmp_path):
    pytest.importorskip("pydot", reason="pd.utils.plot_model needs the plot extra (pydot)")
    model = first_model()
    pd.utils.plot_model(model, str(tmp_path / "my_first_model.png"))
    pd.utils.plot_model(model, str(tmp_path / "my_first_model_with_shape_info.png"),
                        show_shapes=True)
    for name in ("my_first_model.png", "my_first_model_with_shape_info.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_training_evaluation_inference_and_save(tmp_path, monkeypatch):
    model = first_model()
    (x_train, y_train), (x_test, y_test) = mnist.load_data()

    x_train = x_train.reshape(len(x_train), 784).astype("float32") / 255  # 60000 in keras-io
    x_test = x_test.reshape(len(x_test), 784).astype("float32") / 255

    model.compile(
        loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer=pd.optimizers.RMSprop(),
        metrics=["accuracy"],
    )

    history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.2,
                        verbose=0)

    test_scores = model.evaluate(x_test, y_test, verbose=0)
    print("Test loss:", test_scores[0])
    print("Test accuracy:", test_scores[1])

    loss = history.history["loss"]
    assert loss[1] < loss[0] and history.history["val_accuracy"][-1] > 0.8, history.history
    assert test_scores[1] > 0.8  # chance: 0.1

    # ---- Save and serialize ----
    monkeypatch.chdir(tmp_path)
    expected = model.predict(x_test, verbose=0)
    model.save("my_model.keras")
    del model
    # Recreate the exact same model purely from the file:
    model = pd.models.load_model("my_model.keras")
    np.testing.assert_allclose(model.predict(x_test, verbose=0), expected, rtol=1e-5,
                               atol=1e-6)
    assert model.evaluate(x_test, y_test, verbose=0)[1] == pytest.approx(test_scores[1])


def encoder_layers(encoder_input):
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    return layers.GlobalMaxPooling2D()(x)


# Keras 3.15.1: encoder 18,672 parameters, decoder 9,569, autoencoder 28,241.
ENCODER = [("Conv2D", (None, 26, 26, 16), 160), ("Conv2D", (None, 24, 24, 32), 4640),
           ("MaxPooling2D", (None, 8, 8, 32), 0), ("Conv2D", (None, 6, 6, 32), 9248),
           ("Conv2D", (None, 4, 4, 16), 4624), ("GlobalMaxPooling2D", (None, 16), 0)]
DECODER = [("Reshape", (None, 4, 4, 1), 0), ("Conv2DTranspose", (None, 6, 6, 16), 160),
           ("Conv2DTranspose", (None, 8, 8, 32), 4640),
           ("UpSampling2D", (None, 24, 24, 32), 0),
           ("Conv2DTranspose", (None, 26, 26, 16), 4624),
           ("Conv2DTranspose", (None, 28, 28, 1), 145)]


def test_one_graph_of_layers_defines_two_models():
    encoder_input = pd.Input(shape=(28, 28, 1), name="img")
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)

    encoder = pd.Model(encoder_input, encoder_output, name="encoder")
    encoder_text = summary_text(encoder)

    x = layers.Reshape((4, 4, 1))(encoder_output)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)

    autoencoder = pd.Model(encoder_input, decoder_output, name="autoencoder")
    autoencoder_text = summary_text(autoencoder)

    assert structure(encoder) == ENCODER and "Total params: 18,672" in encoder_text
    assert structure(autoencoder) == ENCODER + DECODER
    assert "Total params: 28,241" in autoencoder_text
    images = np.random.default_rng(0).random((2, 28, 28, 1)).astype("float32")
    assert autoencoder.predict(images, verbose=0).shape == (2, 28, 28, 1)
    # the two models share the encoder's layers, hence its weights
    np.testing.assert_array_equal(encoder.get_weights()[0], autoencoder.get_weights()[0])


def test_models_are_callable_like_layers():
    encoder_input = pd.Input(shape=(28, 28, 1), name="original_img")
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)

    encoder = pd.Model(encoder_input, encoder_output, name="encoder")
    encoder.summary(print_fn=lambda line: None)

    decoder_input = pd.Input(shape=(16,), name="encoded_img")
    x = layers.Reshape((4, 4, 1))(decoder_input)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)

    decoder = pd.Model(decoder_input, decoder_output, name="decoder")
    decoder_text = summary_text(decoder)

    autoencoder_input = pd.Input(shape=(28, 28, 1), name="img")
    encoded_img = encoder(autoencoder_input)
    decoded_img = decoder(encoded_img)
    autoencoder = pd.Model(autoencoder_input, decoded_img, name="autoencoder")
    autoencoder_text = summary_text(autoencoder)

    assert structure(decoder) == DECODER and "Total params: 9,569" in decoder_text
    # Keras 3.15.1: the autoencoder lists its two sub-models, 18,672 + 9,569 = 28,241.
    assert structure(autoencoder) == [("Model", (None, 16), 18672),
                                      ("Model", (None, 28, 28, 1), 9569)]
    assert "Total params: 28,241" in autoencoder_text
    images = np.random.default_rng(0).random((3, 28, 28, 1)).astype("float32")
    np.testing.assert_allclose(autoencoder.predict(images, verbose=0),
                               decoder.predict(encoder.predict(images, verbose=0), verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_ensembling_averages_models():
    def get_model():
        inputs = pd.Input(shape=(128,))
        outputs = layers.Dense(1)(inputs)
        return pd.Model(inputs, outputs)

    model1 = get_model()
    model2 = get_model()
    model3 = get_model()

    inputs = pd.Input(shape=(128,))
    y1 = model1(inputs)
    y2 = model2(inputs)
    y3 = model3(inputs)
    outputs = layers.average([y1, y2, y3])
    ensemble_model = pd.Model(inputs=inputs, outputs=outputs)

    x = np.random.default_rng(0).random((4, 128)).astype("float32")
    mean = (model1.predict(x, verbose=0) + model2.predict(x, verbose=0)
            + model3.predict(x, verbose=0)) / 3
    np.testing.assert_allclose(ensemble_model.predict(x, verbose=0), mean, rtol=1e-5,
                               atol=1e-6)
    assert ensemble_model.count_params() == 3 * 129


def test_multiple_inputs_and_outputs(tmp_path):
    num_tags = 12  # Number of unique issue tags
    num_words = 10000  # Size of vocabulary obtained when preprocessing text data
    num_departments = 4  # Number of departments for predictions

    title_input = pd.Input(
        shape=(None,), name="title"
    )  # Variable-length sequence of ints
    body_input = pd.Input(shape=(None,), name="body")  # Variable-length sequence of ints
    tags_input = pd.Input(
        shape=(num_tags,), name="tags"
    )  # Binary vectors of size `num_tags`

    # Embed each word in the title into a 64-dimensional vector
    title_features = layers.Embedding(num_words, 64)(title_input)
    # Embed each word in the text into a 64-dimensional vector
    body_features = layers.Embedding(num_words, 64)(body_input)

    # Reduce sequence of embedded words in the title into a single 128-dimensional vector
    title_features = layers.LSTM(128)(title_features)
    # Reduce sequence of embedded words in the body into a single 32-dimensional vector
    body_features = layers.LSTM(32)(body_features)

    # Merge all available features into a single large vector via concatenation
    x = layers.concatenate([title_features, body_features, tags_input])

    # Stick a logistic regression for priority prediction on top of the features
    priority_pred = layers.Dense(1, name="priority")(x)
    # Stick a department classifier on top of the features
    department_pred = layers.Dense(num_departments, name="department")(x)

    # Instantiate an end-to-end model predicting both priority and department
    model = pd.Model(
        inputs=[title_input, body_input, tags_input],
        outputs={"priority": priority_pred, "department": department_pred},
    )

    if _has_pydot():
        pd.utils.plot_model(model, str(tmp_path / "multi_input_and_output_model.png"),
                            show_shapes=True)
        assert (tmp_path / "multi_input_and_output_model.png").stat().st_size > 0

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss=[
            pd.losses.BinaryCrossentropy(from_logits=True),
            pd.losses.CategoricalCrossentropy(from_logits=True),
        ],
        loss_weights=[1.0, 0.2],
    )

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss={
            "priority": pd.losses.BinaryCrossentropy(from_logits=True),
            "department": pd.losses.CategoricalCrossentropy(from_logits=True),
        },
        loss_weights={"priority": 1.0, "department": 0.2},
    )

    # Dummy input data (320 samples instead of keras-io's 1280, to run in seconds)
    title_data = np.random.randint(num_words, size=(320, 10))
    body_data = np.random.randint(num_words, size=(320, 100))
    tags_data = np.random.randint(2, size=(320, num_tags)).astype("float32")

    # Dummy target data
    priority_targets = np.random.random(size=(320, 1))
    dept_targets = np.random.randint(2, size=(320, num_departments))

    history = model.fit(
        {"title": title_data, "body": body_data, "tags": tags_data},
        {"priority": priority_targets, "department": dept_targets},
        epochs=2,
        batch_size=32,
        verbose=0,
    )

    # Keras 3.15.1: 1,392,097 parameters: Embedding 640,000 (x2), LSTM 98,816 and 12,416,
    # Concatenate (None, 172), Dense "priority" 173, "department" 692.
    assert model.count_params() == 1392097
    by_name = {layer.name: layer for layer in model.layers}
    assert by_name["priority"].count_params() == 173
    assert by_name["department"].count_params() == 692
    assert x.shape == (None, 172)
    assert sorted(model.output_names) == ["department", "priority"]
    # The targets are noise: the guide shows that training runs, with a loss per output.
    logs = history.history
    assert {"loss", "priority_loss", "department_loss"} <= set(logs), sorted(logs)
    assert all(np.isfinite(v).all() for v in logs.values())
    out = model.predict({"title": title_data[:5], "body": body_data[:5],
                         "tags": tags_data[:5]}, verbose=0)
    assert out["priority"].shape == (5, 1) and out["department"].shape == (5, 4)


def _has_pydot():
    try:
        import pydot  # noqa: F401
    except ImportError:
        return False
    return True


def test_toy_resnet(tmp_path):
    inputs = pd.Input(shape=(32, 32, 3), name="img")
    x = layers.Conv2D(32, 3, activation="relu")(inputs)
    x = layers.Conv2D(64, 3, activation="relu")(x)
    block_1_output = layers.MaxPooling2D(3)(x)

    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_1_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_2_output = layers.add([x, block_1_output])

    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_2_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_3_output = layers.add([x, block_2_output])

    x = layers.Conv2D(64, 3, activation="relu")(block_3_output)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(256, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(10)(x)

    model = pd.Model(inputs, outputs, name="toy_resnet")
    text = summary_text(model)

    if _has_pydot():
        pd.utils.plot_model(model, str(tmp_path / "mini_resnet.png"), show_shapes=True)
        assert (tmp_path / "mini_resnet.png").stat().st_size > 0

    (x_train, y_train), (x_test, y_test) = cifar10.load_data(n_train=320)

    x_train = x_train.astype("float32") / 255.0
    x_test = x_test.astype("float32") / 255.0
    y_train = pd.utils.to_categorical(y_train, 10)
    y_test = pd.utils.to_categorical(y_test, 10)

    model.compile(
        optimizer=pd.optimizers.RMSprop(1e-3),
        loss=pd.losses.CategoricalCrossentropy(from_logits=True),
        metrics=["acc"],
    )
    # We restrict the data to the first 1000 samples so as to limit execution time
    # on Colab. Try to train on the entire dataset until convergence!
    history = model.fit(
        x_train[:1000],
        y_train[:1000],
        batch_size=64,
        epochs=1,
        validation_split=0.2,
        verbose=0,
    )

    # Keras 3.15.1: toy_resnet has 223,242 parameters.
    assert structure(model) == [
        ("Conv2D", (None, 30, 30, 32), 896), ("Conv2D", (None, 28, 28, 64), 18496),
        ("MaxPooling2D", (None, 9, 9, 64), 0), ("Conv2D", (None, 9, 9, 64), 36928),
        ("Conv2D", (None, 9, 9, 64), 36928), ("Add", (None, 9, 9, 64), 0),
        ("Conv2D", (None, 9, 9, 64), 36928), ("Conv2D", (None, 9, 9, 64), 36928),
        ("Add", (None, 9, 9, 64), 0), ("Conv2D", (None, 7, 7, 64), 36928),
        ("GlobalAveragePooling2D", (None, 64), 0), ("Dense", (None, 256), 16640),
        ("Dropout", (None, 256), 0), ("Dense", (None, 10), 2570)]
    assert "Total params: 223,242" in text
    assert set(history.history) == {"loss", "acc", "val_loss", "val_acc"}
    assert y_test.shape == (200, 10) and np.isfinite(history.history["loss"][0])


def test_shared_layers():
    # Embedding for 1000 unique words mapped to 128-dimensional vectors
    shared_embedding = layers.Embedding(1000, 128)

    # Variable-length sequence of integers
    text_input_a = pd.Input(shape=(None,), dtype="int32")

    # Variable-length sequence of integers
    text_input_b = pd.Input(shape=(None,), dtype="int32")

    # Reuse the same layer to encode both inputs
    encoded_input_a = shared_embedding(text_input_a)
    encoded_input_b = shared_embedding(text_input_b)

    assert encoded_input_a.shape == encoded_input_b.shape == (None, None, 128)
    both = pd.Model([text_input_a, text_input_b], [encoded_input_a, encoded_input_b])
    assert both.count_params() == 128000  # one table, used twice
    ids = np.array([[3, 7, 1]], np.int32)
    a, b = both.predict([ids, ids], verbose=0)
    np.testing.assert_array_equal(a, b)


@pytest.mark.slow
def test_extract_and_reuse_nodes():
    # keras.applications.VGG19() downloads ImageNet weights (its default weights="imagenet");
    # offline, paddle's VGG19 refuses to download, so the guide's model is built with
    # random weights: the same network, layers and outputs. Building its 144M weights and
    # running one 224x224 image takes a few seconds on 2 cores.
    vgg19 = pd.applications.VGG19(weights=None)

    features_list = [layer.output for layer in vgg19.layers]

    feat_extraction_model = pd.Model(inputs=vgg19.input, outputs=features_list)

    img = np.random.random((1, 224, 224, 3)).astype("float32")
    extracted_features = feat_extraction_model(img)

    # Keras 3.15.1: VGG19(weights=None) has these 25 layers after its InputLayer (the
    # guide's features_list has an entry for the InputLayer too: paddle's model.layers has
    # no InputLayer, so that entry, the image itself, is absent here), 143,667,240 weights.
    blocks = [(1, 2, 64, 224), (2, 2, 128, 112), (3, 4, 256, 56), (4, 4, 512, 28),
              (5, 4, 512, 14)]
    expected = []
    for block, convs, filters, side in blocks:
        expected += [(f"block{block}_conv{i}", (1, side, side, filters))
                     for i in range(1, convs + 1)]
        expected.append((f"block{block}_pool", (1, side // 2, side // 2, filters)))
    expected += [("flatten", (1, 25088)), ("fc1", (1, 4096)), ("fc2", (1, 4096)),
                 ("predictions", (1, 1000))]
    assert [(layer.name, f.shape) for layer, f in zip(vgg19.layers, extracted_features)] == \
        expected
    assert vgg19.count_params() == 143_667_240
    np.testing.assert_allclose(extracted_features[-1], vgg19(img), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.sum(extracted_features[-1]), 1.0, rtol=1e-5)  # softmax


def test_extend_the_api_using_custom_layers():
    class CustomDense(layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units),
                initializer="random_normal",
                trainable=True,
            )
            self.b = self.add_weight(
                shape=(self.units,), initializer="random_normal", trainable=True
            )

        def call(self, inputs):
            return ops.matmul(inputs, self.w) + self.b

    inputs = pd.Input((4,))
    outputs = CustomDense(10)(inputs)

    model = pd.Model(inputs, outputs)
    assert model.count_params() == 50 and outputs.shape == (None, 10)

    class CustomDense(layers.Layer):  # noqa: F811  (the guide redefines it)
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units),
                initializer="random_normal",
                trainable=True,
            )
            self.b = self.add_weight(
                shape=(self.units,), initializer="random_normal", trainable=True
            )

        def call(self, inputs):
            return ops.matmul(inputs, self.w) + self.b

        def get_config(self):
            return {"units": self.units}

    inputs = pd.Input((4,))
    outputs = CustomDense(10)(inputs)

    model = pd.Model(inputs, outputs)
    config = model.get_config()

    new_model = pd.Model.from_config(config, custom_objects={"CustomDense": CustomDense})

    # A new model of the same architecture, with new weights.
    layer = new_model.layers[-1]
    assert isinstance(layer, CustomDense) and layer.units == 10
    assert new_model.count_params() == 50
    x = np.ones((2, 4), np.float32)
    assert new_model.predict(x, verbose=0).shape == (2, 10)
    new_model.set_weights(model.get_weights())
    np.testing.assert_allclose(new_model.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_mix_and_match_api_styles(capsys):
    units = 32
    timesteps = 10
    input_dim = 5

    # Define a Functional model
    inputs = pd.Input((None, units))
    x = layers.GlobalAveragePooling1D()(inputs)
    outputs = layers.Dense(1)(x)
    model = pd.Model(inputs, outputs)

    class CustomRNN(layers.Layer):
        def __init__(self):
            super().__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            # Our previously-defined Functional model
            self.classifier = model

        def call(self, inputs):
            outputs = []
            state = ops.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = ops.stack(outputs, axis=1)
            print(features.shape)
            return self.classifier(features)

    rnn_model = CustomRNN()
    out = rnn_model(ops.zeros((1, timesteps, input_dim)))
    assert capsys.readouterr().out.strip() == "(1, 10, 32)"  # what Keras prints
    assert tuple(ops.convert_to_numpy(out).shape) == (1, 1)

    units = 32
    timesteps = 10
    input_dim = 5
    batch_size = 16

    class CustomRNN(layers.Layer):  # noqa: F811  (the guide redefines it)
        def __init__(self):
            super().__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = layers.Dense(1)

        def call(self, inputs):
            outputs = []
            state = ops.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = ops.stack(outputs, axis=1)
            return self.classifier(features)

    # Note that you specify a static batch size for the inputs with the `batch_shape`
    # arg, because the inner computation of `CustomRNN` requires a static batch size
    # (when you create the `state` zeros tensor).
    inputs = pd.Input(batch_shape=(batch_size, timesteps, input_dim))
    x = layers.Conv1D(32, 3)(inputs)
    outputs = CustomRNN()(x)

    model = pd.Model(inputs, outputs)

    rnn_model = CustomRNN()
    _ = rnn_model(ops.zeros((1, 10, 5)))

    # Keras 3.15.1: the functional model maps (16, 10, 5) to (16, 8, 1).
    assert inputs.shape == (16, 10, 5) and outputs.shape == (16, 8, 1)
    data = np.random.default_rng(0).random((16, 10, 5)).astype("float32")
    assert model.predict(data, batch_size=16, verbose=0).shape == (16, 8, 1)
