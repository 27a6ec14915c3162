"""Untrusted files, part 3: what loading a crafted file can cost. Config values that
would allocate more than they show, zip members that lie about their sizes, configs
nested deep enough to exhaust the stack or to make loading exponential, damaged training
state in a .keras file, and Lambda bytecode reached through a wrapper's from_config.

Every crafted file is built here; loads that crashed, filled the memory or ran for
minutes before run in a fresh interpreter under an address-space limit (untrusted.py)."""
import json

import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.serialization import deserialize_keras_object
from untrusted import edit_model_config, layer_entries, run_probe

GIB = 1 << 30


# ---- config values decoded to arrays (#25 item 6) -----------------------------------------

def constant_model_file(tmp_path):
    """A functional model adding a constant, saved as .h5: its config holds a __constant__."""
    inp = pd.Input(shape=(3,))
    out = pd.layers.Dense(3)(inp) + pd.constant(np.array([1.0, 2.0, 3.0], np.float32))
    path = tmp_path / "constant.h5"
    pd.Model(inp, out).save(path)
    return path


def set_constant_dtype(path, dtype):
    def edit(config):
        for entry in layer_entries(config):
            for node in entry.get("inbound_nodes", []):
                for ref in node["args"][0] if isinstance(node["args"][0], list) else []:
                    if ref.get("class_name") == "__constant__":
                        ref["config"]["dtype"] = dtype
    edit_model_config(path, edit)


@pytest.mark.parametrize("dtype", ["(10000,10000)f4", "O", "f4,f4", "U10"])
def test_a_config_constant_of_a_dtype_that_is_no_plain_number_is_refused(tmp_path, dtype):
    """"(10000,10000)f4" made each of the three values a 400 MB block (1.2 GB, over the
    probe's 1 GiB limit) before constant() looked at the dtype."""
    path = constant_model_file(tmp_path)
    set_constant_dtype(path, dtype)
    output = run_probe(f"""
        expect_checkpoint_error(lambda: pd.load_model({str(path)!r}, compile=False))
    """, limit=GIB)
    assert "CheckpointError:" in output and "constant: expected a dtype of plain numbers" in output \
        and repr(dtype) in output, output


def test_a_config_constant_of_a_plain_dtype_still_loads(tmp_path):
    path = constant_model_file(tmp_path)
    model = pd.load_model(path)
    x = np.ones((2, 3), np.float32)
    assert model.predict(x, verbose=0).shape == (2, 3)


@pytest.mark.parametrize("dtype", ["(10000,10000)f4", "O", "object", "f4,f4", "V8", [["a", "f4"]]])
def test_a_numpy_config_of_a_dtype_that_is_no_plain_number_is_refused(dtype):
    with pytest.raises(ValueError, match="__numpy__ array: expected a dtype"):
        deserialize_keras_object({"class_name": "__numpy__",
                                  "config": {"value": [1, 2], "dtype": dtype}})


def test_a_numpy_config_of_plain_numbers_round_trips():
    for value in (np.arange(6, dtype=np.int32).reshape(2, 3), np.array([1 + 2j]), np.array([True])):
        back = deserialize_keras_object({"class_name": "__numpy__",
                                         "config": {"value": value.tolist(), "dtype": value.dtype.name}})
        assert back.dtype == value.dtype and np.array_equal(back, value)
