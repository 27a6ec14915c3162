"""keras-io `guides/serialization_and_saving.py` ("Save, serialize, and export models",
Neel Kovelamudi, Francois Chollet), in its Keras 3 text (`guides/keras_core/...`),
ported by renaming `keras` to `pd` (`from paddle import ops`).

Nothing else changes: the guide's data are random arrays already. Files are written in a
temporary folder. Each section of the guide is a test; what it shows (reloaded models
predict the same, configs rebuild the same objects) is asserted, and what it prints is
compared with Keras 3.15.1's output (JAX backend) where paddle's is the same.
"""
import gc
import json
import zipfile

import numpy as np
import pytest

import paddle as pd
from paddle import ops


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gc.collect()
    pd.utils.set_random_seed(0)
    registered = dict(pd.saving.get_custom_objects())
    yield
    # The guide clears the registry and registers its own classes: put back what other
    # test modules registered, and only that.
    pd.saving.get_custom_objects().clear()
    pd.saving.get_custom_objects().update(registered)


def test_saving_a_model_as_one_keras_file():
    def get_model():
        # Create a simple model.
        inputs = pd.Input(shape=(32,))
        outputs = pd.layers.Dense(1)(inputs)
        model = pd.Model(inputs, outputs)
        model.compile(optimizer=pd.optimizers.Adam(), loss="mean_squared_error")
        return model

    model = get_model()

    # Train the model.
    test_input = np.random.random((128, 32))
    test_target = np.random.random((128, 1))
    model.fit(test_input, test_target, verbose=0)

    # Calling `save('my_model.keras')` creates a zip archive `my_model.keras`.
    model.save("my_model.keras")

    # It can be used to reconstruct the model identically.
    reconstructed_model = pd.models.load_model("my_model.keras")

    # Let's check:
    np.testing.assert_allclose(
        model.predict(test_input, verbose=0), reconstructed_model.predict(test_input, verbose=0)
    )

    # The archive holds what the guide lists: config.json, metadata.json, model.weights.h5.
    with zipfile.ZipFile("my_model.keras") as archive:
        assert {"config.json", "metadata.json", "model.weights.h5"} <= set(archive.namelist())
        config = json.loads(archive.read("config.json"))
    assert config["class_name"] == "Functional" and config["compile_config"] is not None
    # The optimizer state came back too: training goes on from where it stopped.
    assert reconstructed_model.optimizer.iterations == model.optimizer.iterations == 4


# Upon registration, you can optionally specify a package or a name.
# If left blank, the package defaults to `Custom` and the name defaults to
# the class name.
def define_custom_objects():
    # Clear all previously registered custom objects
    pd.saving.get_custom_objects().clear()

    @pd.saving.register_keras_serializable(package="MyLayers")
    class CustomLayer(pd.layers.Layer):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {"factor": self.factor}

    @pd.saving.register_keras_serializable(package="my_package", name="custom_fn")
    def custom_fn(x):
        return x**2

    return CustomLayer, custom_fn


def custom_model_helpers(CustomLayer, custom_fn):
    # Create the model.
    def get_model():
        inputs = pd.Input(shape=(4,))
        mid = CustomLayer(0.5)(inputs)
        outputs = pd.layers.Dense(1, activation=custom_fn)(mid)
        model = pd.Model(inputs, outputs)
        model.compile(optimizer="rmsprop", loss="mean_squared_error")
        return model

    # Train the model.
    def train_model(model):
        input = np.random.random((4, 4))
        target = np.random.random((4, 1))
        model.fit(input, target, verbose=0)
        return model

    return get_model, train_model


def test_custom_objects_registered():
    CustomLayer, custom_fn = define_custom_objects()
    get_model, train_model = custom_model_helpers(CustomLayer, custom_fn)

    test_input = np.random.random((4, 4))
    test_target = np.random.random((4, 1))

    model = get_model()
    model = train_model(model)
    model.save("custom_model.keras")

    # Now, we can simply load without worrying about our custom objects.
    reconstructed_model = pd.models.load_model("custom_model.keras")

    # Let's check:
    np.testing.assert_allclose(
        model.predict(test_input, verbose=0), reconstructed_model.predict(test_input, verbose=0)
    )
    assert type(reconstructed_model.layers[0]) is CustomLayer
    assert reconstructed_model.layers[0].factor == 0.5
    assert pd.saving.get_registered_name(CustomLayer) == "MyLayers>CustomLayer"
    assert pd.saving.get_registered_name(custom_fn) == "my_package>custom_fn"
    assert test_target.shape == (4, 1)


def test_custom_objects_passed_to_load_model():
    CustomLayer, custom_fn = define_custom_objects()
    get_model, train_model = custom_model_helpers(CustomLayer, custom_fn)
    test_input = np.random.random((4, 4))

    model = get_model()
    model = train_model(model)

    # Calling `save('my_model.keras')` creates a zip archive `my_model.keras`.
    model.save("custom_model.keras")

    # Upon loading, pass a dict containing the custom objects used in the
    # `custom_objects` argument of `keras.models.load_model()`.
    reconstructed_model = pd.models.load_model(
        "custom_model.keras",
        custom_objects={"CustomLayer": CustomLayer, "custom_fn": custom_fn},
    )

    # Let's check:
    np.testing.assert_allclose(
        model.predict(test_input, verbose=0), reconstructed_model.predict(test_input, verbose=0)
    )


def test_custom_object_scope():
    CustomLayer, custom_fn = define_custom_objects()
    get_model, train_model = custom_model_helpers(CustomLayer, custom_fn)
    test_input = np.random.random((4, 4))

    model = get_model()
    model = train_model(model)
    model.save("custom_model.keras")

    # Pass the custom objects dictionary to a custom object scope and place
    # the `keras.models.load_model()` call within the scope.
    custom_objects = {"CustomLayer": CustomLayer, "custom_fn": custom_fn}

    with pd.saving.custom_object_scope(custom_objects):
        reconstructed_model = pd.models.load_model("custom_model.keras")

    # Let's check:
    np.testing.assert_allclose(
        model.predict(test_input, verbose=0), reconstructed_model.predict(test_input, verbose=0)
    )

    # In-memory model cloning: the same architecture, freshly initialized.
    new_model = pd.models.clone_model(model)
    assert [type(layer) for layer in new_model.layers] == [CustomLayer, pd.layers.Dense]
    assert new_model.count_params() == model.count_params() == 5
    assert not np.array_equal(new_model.get_weights()[0], model.get_weights()[0])


def test_get_config_and_from_config():
    layer = pd.layers.Dense(3, activation="relu")
    layer_config = layer.get_config()
    print(layer_config)

    new_layer = pd.layers.Dense.from_config(layer_config)

    # Keras 3.15.1 prints units 3, activation 'relu', use_bias True, no regularizers.
    assert layer_config["units"] == 3 and layer_config["activation"] == "relu"
    assert layer_config["use_bias"] is True and layer_config["kernel_regularizer"] is None
    assert new_layer.units == 3 and new_layer.get_config() == layer_config

    model = pd.Sequential([pd.Input((32,)), pd.layers.Dense(1)])
    config = model.get_config()
    new_model = pd.Sequential.from_config(config)
    assert new_model.count_params() == 33 and new_model.outputs[0].shape == (None, 1)

    inputs = pd.Input((32,))
    outputs = pd.layers.Dense(1)(inputs)
    model = pd.Model(inputs, outputs)
    config = model.get_config()
    new_model = pd.Model.from_config(config)
    assert new_model.count_params() == 33 and new_model.inputs[0].shape == (None, 32)


def test_to_json_and_model_from_json():
    model = pd.Sequential([pd.Input((32,)), pd.layers.Dense(1)])
    json_config = model.to_json()
    new_model = pd.models.model_from_json(json_config)

    assert json.loads(json_config)["class_name"] == "Sequential"
    assert [type(layer) for layer in new_model.layers] == [pd.layers.Dense]
    assert new_model.count_params() == 33


def test_arbitrary_object_serialization():
    my_reg = pd.regularizers.L1(0.005)
    config = pd.saving.serialize_keras_object(my_reg)
    print(config)

    new_reg = pd.saving.deserialize_keras_object(config)

    # Keras 3.15.1 prints {'module': 'keras.regularizers', 'class_name': 'L1',
    # 'config': {'l1': 0.004999999888241291}, 'registered_name': None} (the factor read
    # back from float32); paddle keeps the Python float.
    assert config["module"] == "keras.regularizers" and config["class_name"] == "L1"
    assert config["registered_name"] is None
    assert config["config"]["l1"] == pytest.approx(0.005)
    assert isinstance(new_reg, pd.regularizers.L1)
    assert new_reg.get_config()["l1"] == pytest.approx(0.005)


def test_weight_transfer_in_memory():
    def create_layer():
        layer = pd.layers.Dense(64, activation="relu", name="dense_2")
        layer.build((None, 784))
        return layer

    layer_1 = create_layer()
    layer_2 = create_layer()

    # Copy weights from layer 1 to layer 2
    layer_2.set_weights(layer_1.get_weights())
    for a, b in zip(layer_1.get_weights(), layer_2.get_weights()):
        np.testing.assert_array_equal(a, b)

    # Create a simple functional model
    inputs = pd.Input(shape=(784,), name="digits")
    x = pd.layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = pd.layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = pd.layers.Dense(10, name="predictions")(x)
    functional_model = pd.Model(inputs=inputs, outputs=outputs, name="3_layer_mlp")

    # Define a subclassed model with the same architecture
    class SubclassedModel(pd.Model):
        def __init__(self, output_dim, name=None):
            super().__init__(name=name)
            self.output_dim = output_dim
            self.dense_1 = pd.layers.Dense(64, activation="relu", name="dense_1")
            self.dense_2 = pd.layers.Dense(64, activation="relu", name="dense_2")
            self.dense_3 = pd.layers.Dense(output_dim, name="predictions")

        def call(self, inputs):
            x = self.dense_1(inputs)
            x = self.dense_2(x)
            x = self.dense_3(x)
            return x

        def get_config(self):
            return {"output_dim": self.output_dim, "name": self.name}

    subclassed_model = SubclassedModel(10)
    # Call the subclassed model once to create the weights.
    subclassed_model(np.ones((1, 784)))

    # Copy weights from functional_model to subclassed_model.
    subclassed_model.set_weights(functional_model.get_weights())

    assert len(functional_model.weights) == len(subclassed_model.weights)
    for a, b in zip(functional_model.weights, subclassed_model.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy())

    x = np.random.random((3, 784)).astype("float32")
    np.testing.assert_allclose(subclassed_model.predict(x, verbose=0),
                               functional_model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)

    # The case of stateless layers
    inputs = pd.Input(shape=(784,), name="digits")
    x = pd.layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = pd.layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = pd.layers.Dense(10, name="predictions")(x)
    functional_model = pd.Model(inputs=inputs, outputs=outputs, name="3_layer_mlp")

    inputs = pd.Input(shape=(784,), name="digits")
    x = pd.layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = pd.layers.Dense(64, activation="relu", name="dense_2")(x)

    # Add a dropout layer, which does not contain any weights.
    x = pd.layers.Dropout(0.5)(x)
    outputs = pd.layers.Dense(10, name="predictions")(x)
    functional_model_with_dropout = pd.Model(
        inputs=inputs, outputs=outputs, name="3_layer_mlp"
    )

    functional_model_with_dropout.set_weights(functional_model.get_weights())

    x = np.random.random((3, 784)).astype("float32")
    np.testing.assert_allclose(functional_model_with_dropout.predict(x, verbose=0),
                               functional_model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_saving_weights_to_disk():
    # Runnable example
    sequential_model = pd.Sequential(
        [
            pd.Input(shape=(784,), name="digits"),
            pd.layers.Dense(64, activation="relu", name="dense_1"),
            pd.layers.Dense(64, activation="relu", name="dense_2"),
            pd.layers.Dense(10, name="predictions"),
        ]
    )
    sequential_model.save_weights("my_model.weights.h5")
    saved = sequential_model.get_weights()
    sequential_model.set_weights([np.zeros_like(w) for w in saved])
    sequential_model.load_weights("my_model.weights.h5")
    for a, b in zip(sequential_model.get_weights(), saved):
        np.testing.assert_array_equal(a, b)


def test_weight_order_of_nested_layers(capsys):
    class NestedDenseLayer(pd.layers.Layer):
        def __init__(self, units, name=None):
            super().__init__(name=name)
            self.dense_1 = pd.layers.Dense(units, name="dense_1")
            self.dense_2 = pd.layers.Dense(units, name="dense_2")

        def call(self, inputs):
            return self.dense_2(self.dense_1(inputs))

    nested_model = pd.Sequential([pd.Input((784,)), NestedDenseLayer(10, "nested")])
    variable_names = [v.name for v in nested_model.weights]
    print("variables: {}".format(variable_names))

    print("\nChanging trainable status of one of the nested layers...")
    nested_model.get_layer("nested").dense_1.trainable = False

    variable_names_2 = [v.name for v in nested_model.weights]
    print("\nvariables: {}".format(variable_names_2))
    print("variable ordering changed:", variable_names != variable_names_2)

    # Keras 3.15.1 prints "variable ordering changed: False" (its weights stay in layer
    # order; the trainable ones first was tf.keras's order).
    assert capsys.readouterr().out.splitlines()[-1] == "variable ordering changed: False"
    assert [n.rsplit("/", 2)[-2:] for n in variable_names] == [
        ["dense_1", "kernel"], ["dense_1", "bias"], ["dense_2", "kernel"], ["dense_2", "bias"]]
    assert len(nested_model.trainable_weights) == 2


def test_transfer_learning():
    def create_functional_model():
        inputs = pd.Input(shape=(784,), name="digits")
        x = pd.layers.Dense(64, activation="relu", name="dense_1")(inputs)
        x = pd.layers.Dense(64, activation="relu", name="dense_2")(x)
        outputs = pd.layers.Dense(10, name="predictions")(x)
        return pd.Model(inputs=inputs, outputs=outputs, name="3_layer_mlp")

    functional_model = create_functional_model()
    functional_model.save_weights("pretrained.weights.h5")

    # In a separate program:
    pretrained_model = create_functional_model()
    pretrained_model.load_weights("pretrained.weights.h5")

    # Create a new model by extracting layers from the original model:
    extracted_layers = pretrained_model.layers[:-1]
    extracted_layers.append(pd.layers.Dense(5, name="dense_3"))
    model = pd.Sequential(extracted_layers)
    printed = []
    model.summary(print_fn=printed.append)

    # Keras 3.15.1: dense_1 (None, 64) 50,240; dense_2 (None, 64) 4,160; dense_3 (None, 5)
    # 325; Total params: 54,725.
    assert [(layer.name, layer.count_params()) for layer in model.layers] == [
        ("dense_1", 50240), ("dense_2", 4160), ("dense_3", 325)]
    assert "Total params: 54,725" in printed
    for a, b in zip(model.get_weights()[:4], functional_model.get_weights()[:4]):
        np.testing.assert_array_equal(a, b)  # the pretrained weights came along
    assert model.predict(np.zeros((2, 784), np.float32), verbose=0).shape == (2, 5)


def test_defining_the_config_methods():
    @pd.saving.register_keras_serializable(package="MyLayers", name="KernelMult")
    class MyDense(pd.layers.Layer):
        def __init__(
            self,
            units,
            *,
            kernel_regularizer=None,
            kernel_initializer=None,
            nested_model=None,
            **kwargs
        ):
            super().__init__(**kwargs)
            self.hidden_units = units
            self.kernel_regularizer = kernel_regularizer
            self.kernel_initializer = kernel_initializer
            self.nested_model = nested_model

        def get_config(self):
            config = super().get_config()
            # Update the config with the custom layer's parameters
            config.update(
                {
                    "units": self.hidden_units,
                    "kernel_regularizer": self.kernel_regularizer,
                    "kernel_initializer": self.kernel_initializer,
                    "nested_model": self.nested_model,
                }
            )
            return config

        def build(self, input_shape):
            input_units = input_shape[-1]
            self.kernel = self.add_weight(
                name="kernel",
                shape=(input_units, self.hidden_units),
                regularizer=self.kernel_regularizer,
                initializer=self.kernel_initializer,
            )

        def call(self, inputs):
            return ops.matmul(inputs, self.kernel)

    layer = MyDense(units=16, kernel_regularizer="l1", kernel_initializer="ones")
    layer3 = MyDense(units=64, nested_model=layer)

    config = pd.layers.serialize(layer3)

    print(config)

    new_layer = pd.layers.deserialize(config)

    print(new_layer)

    # Keras 3.15.1: class_name 'MyDense', registered_name 'MyLayers>KernelMult', the nested
    # layer serialized inside the config.
    assert config["class_name"] == "MyDense"
    assert config["registered_name"] == "MyLayers>KernelMult"
    inner = config["config"]["nested_model"]
    assert inner["registered_name"] == "MyLayers>KernelMult"
    assert inner["config"]["units"] == 16 and inner["config"]["kernel_regularizer"] == "l1"
    assert type(new_layer) is MyDense and new_layer.hidden_units == 64

    @pd.saving.register_keras_serializable(package="ComplexModels")
    class CustomModel(pd.layers.Layer):
        def __init__(self, first_layer, second_layer=None, **kwargs):
            super().__init__(**kwargs)
            self.first_layer = first_layer
            if second_layer is not None:
                self.second_layer = second_layer
            else:
                self.second_layer = pd.layers.Dense(8)

        def get_config(self):
            config = super().get_config()
            config.update(
                {
                    "first_layer": self.first_layer,
                    "second_layer": self.second_layer,
                }
            )
            return config

        @classmethod
        def from_config(cls, config):
            # Note that you can also use `keras.saving.deserialize_keras_object` here
            config["first_layer"] = pd.layers.deserialize(config["first_layer"])
            config["second_layer"] = pd.layers.deserialize(config["second_layer"])
            return cls(**config)

        def call(self, inputs):
            return self.first_layer(self.second_layer(inputs))

    # Let's make our first layer the custom layer from the previous example (MyDense)
    inputs = pd.Input((32,))
    outputs = CustomModel(first_layer=layer)(inputs)
    model = pd.Model(inputs, outputs)

    config = model.get_config()
    new_model = pd.Model.from_config(config)

    rebuilt = new_model.layers[-1]
    assert type(rebuilt) is CustomModel and type(rebuilt.first_layer) is MyDense
    assert new_model.outputs[0].shape == (None, 16)
    assert new_model.count_params() == model.count_params() == 32 * 8 + 8 + 8 * 16

    layer = MyDense(
        units=16,
        kernel_regularizer=pd.regularizers.L1L2(l1=1e-5, l2=1e-4),
        kernel_initializer="ones",
    )
    config = pd.layers.serialize(layer)
    print(config)

    # Keras 3.15.1: the regularizer nested as {'module': 'keras.regularizers',
    # 'class_name': 'L1L2', 'config': {'l1': 1e-05, 'l2': 0.0001}, 'registered_name': None}.
    reg = config["config"]["kernel_regularizer"]
    assert reg["module"] == "keras.regularizers" and reg["class_name"] == "L1L2"
    assert reg["config"] == pytest.approx({"l1": 1e-05, "l2": 0.0001})
    assert config["registered_name"] == "MyLayers>KernelMult"
