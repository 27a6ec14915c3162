"""pd.legacy.saving / pd.utils.legacy: Keras 2's {"class_name", "config"} object configs."""
import pytest

import paddle as pd

# keras.legacy.saving.serialize_keras_object(keras.layers.Dense(2, kernel_regularizer="l2"))
# in Keras 3.15 (nested entries in Keras 3's form, as Keras writes them).
KERAS_DENSE = {"class_name": "Dense", "config": {
    "name": "dense", "trainable": True,
    "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
              "registered_name": None},
    "units": 2, "activation": "linear", "use_bias": True,
    "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform",
                           "config": {"seed": None}, "registered_name": None},
    "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {},
                         "registered_name": None},
    "kernel_regularizer": {"module": "keras.regularizers", "class_name": "L2",
                           "config": {"l2": 0.01}, "registered_name": None},
    "bias_regularizer": None, "kernel_constraint": None, "bias_constraint": None}}


def test_round_trip_of_layers_optimizers_and_regularizers():
    for obj in (pd.layers.Dense(3, kernel_regularizer="l2", name="legacy_d"),
                pd.optimizers.Adam(learning_rate=0.1), pd.regularizers.L1L2(0.1, 0.2)):
        entry = pd.legacy.saving.serialize_keras_object(obj)
        assert set(entry) == {"class_name", "config"}
        assert entry["class_name"] == type(obj).__name__
        back = pd.utils.legacy.deserialize_keras_object(entry)
        assert type(back) is type(obj) and back.get_config() == obj.get_config()


def test_reads_kerass_legacy_entry():
    dense = pd.legacy.saving.deserialize_keras_object(KERAS_DENSE)
    assert isinstance(dense, pd.layers.Dense) and dense.units == 2
    assert dense.kernel_regularizer.get_config() == {"l2": 0.01}


def test_names_and_lookups():
    relu = pd.legacy.saving.deserialize_keras_object(
        "relu", module_objects={"relu": pd.activations.relu})
    assert relu is pd.activations.relu
    made = pd.legacy.saving.deserialize_keras_object(
        "Zeros", custom_objects={"Zeros": pd.initializers.Zeros})
    assert isinstance(made, pd.initializers.Zeros)  # a class is instantiated
    assert pd.legacy.saving.deserialize_keras_object(None) is None
    assert pd.legacy.saving.serialize_keras_object(None) is None


def test_bad_input_says_what_was_expected():
    with pytest.raises(ValueError, match="unknown layer: 'NoSuchThing'"):
        pd.legacy.saving.deserialize_keras_object("NoSuchThing",
                                                  printable_module_name="layer")
    with pytest.raises(ValueError, match="expected a config with 'class_name'"):
        pd.legacy.saving.deserialize_keras_object({"config": {}})
    with pytest.raises(ValueError, match="doesn't implement `get_config"):
        pd.legacy.saving.serialize_keras_object(pd.activations.relu)
