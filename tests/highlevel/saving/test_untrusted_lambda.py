"""Untrusted files, part 1: a Lambda's bytecode is refused by default (safe_mode), and
damaged or crafted bytecode is a CheckpointError even with safe_mode=False, never a crash.

Every crafted file is built here; every load of one runs in a fresh interpreter, so a
crash shows as a signal instead of taking the test run down."""
import base64
import dis
import marshal
import os
import types

import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.layers import bytecode
from untrusted import edit_model_config, layer_entries, run_probe


def make_touch(marker):
    def touch(x):
        open(marker, "w").close()
        return x * 2.0
    return touch


def lambda_file(tmp_path, function=lambda x: x * 2.0):
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Lambda(function, name="double")])
    path = tmp_path / "lambda.h5"
    model.save(path)
    return path


def set_function(path, change):
    """change(function config dict) edits the Lambda's function in the saved config."""
    def edit(config):
        for entry in layer_entries(config):
            if entry["class_name"] == "Lambda":
                change(entry["config"]["function"]["config"])
    edit_model_config(path, edit)


def set_code(path, raw):
    set_function(path, lambda c: c.update(code=base64.b64encode(raw).decode("ascii")))


def patched(code, opname, value):
    """`code` with the operand byte of its first `opname` instruction set to `value`."""
    raw = bytearray(code.co_code)
    ins = next(i for i in dis.get_instructions(code) if i.opname == opname)
    raw[ins.offset + 1] = value
    return code.replace(co_code=bytes(raw))


def load_in_fresh_interpreter(path, safe_mode=False):
    return run_probe(f"""
        expect_checkpoint_error(lambda: pd.load_model({str(path)!r}, compile=False,
                                                      safe_mode={safe_mode}))
    """)


# ---- safe mode --------------------------------------------------------------------------

def test_safe_mode_refuses_a_lambda_and_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    path = lambda_file(tmp_path, make_touch(str(marker)))
    os.remove(marker)  # saving traced the function once
    out = load_in_fresh_interpreter(path, safe_mode=True)
    assert "CheckpointError" in out and "Lambda layer 'double'" in out, out
    assert "safe_mode=False" in out and "trust" in out, out
    assert not marker.exists()
    with pytest.raises(pd.CheckpointError, match=r"Lambda layer 'double'.*safe_mode=False"):
        pd.load_model(path)


def test_safe_mode_false_loads_a_trusted_lambda(tmp_path):
    marker = tmp_path / "ran"
    path = lambda_file(tmp_path, make_touch(str(marker)))
    os.remove(marker)
    loaded = pd.load_model(path, safe_mode=False)
    assert marker.exists()  # the user trusted the file: its function ran
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), x * 2.0)


def test_model_from_config_is_safe_by_default(tmp_path):
    from paddle.highlevel.saving import architecture
    model = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Lambda(lambda x: x + 1.0)])
    spec = architecture.model_config(model)
    with pytest.raises(pd.CheckpointError, match="safe_mode=False"):
        architecture.model_from_config(spec)
    rebuilt = architecture.model_from_config(spec, safe_mode=False)
    assert rebuilt.outputs[0].shape == (None, 3)


def test_nested_models_keep_the_callers_safe_mode(tmp_path):
    inner = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Lambda(lambda x: x + 1.0)])
    outer = pd.Sequential([pd.Input(shape=(3,)), inner, pd.layers.Dense(2)])
    outer.save(tmp_path / "nested.h5")
    with pytest.raises(pd.CheckpointError, match="safe_mode=False"):
        pd.load_model(tmp_path / "nested.h5")
    x = np.ones((1, 3), np.float32)
    np.testing.assert_array_equal(
        pd.load_model(tmp_path / "nested.h5", safe_mode=False).predict(x, verbose=0),
        outer.predict(x, verbose=0))


def test_safe_mode_must_be_a_bool(tmp_path):
    path = lambda_file(tmp_path)
    with pytest.raises(TypeError, match="safe_mode must be True or False"):
        pd.load_model(path, safe_mode="no")


# ---- damaged or crafted bytecode, loaded with safe_mode=False ---------------------------

def _const_index():
    return marshal.dumps(patched((lambda x: x * 2.0).__code__, "LOAD_CONST", 0xFF))


def _name_index():
    return marshal.dumps(patched((lambda x: pd.square(x)).__code__, "LOAD_GLOBAL", 0xFF))


def _local_index():
    return marshal.dumps(patched((lambda x: x * 2.0).__code__, "LOAD_FAST", 0xC8))


def _jump_target():
    return marshal.dumps(patched((lambda x: x if x is not None else -x).__code__,
                                 next(i.opname for i in dis.get_instructions(
                                     (lambda x: x if x is not None else -x).__code__)
                                      if i.opcode in dis.hasjrel + dis.hasjabs), 0xFF))


def _stack_size():
    def deep(x):
        return (x, x, x, x, x, x, x, x, x, x, x, x)[0]
    return marshal.dumps(deep.__code__.replace(co_stacksize=1))


def _nested_const_index():
    def outer(x):
        return (lambda y: y * 3.0)(x)
    code = outer.__code__
    consts = tuple(patched(c, "LOAD_CONST", 0xFF) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return marshal.dumps(code.replace(co_consts=consts))


def _unknown_opcode():
    code = (lambda x: x * 2.0).__code__
    raw = bytearray(code.co_code)
    ins = next(i for i in dis.get_instructions(code) if i.opname == "LOAD_FAST")
    raw[ins.offset] = next(op for op in range(255, 0, -1) if dis.opname[op].startswith("<"))
    return marshal.dumps(code.replace(co_code=bytes(raw)))


def _list_constant():
    code = (lambda x: x * 2.0).__code__
    return marshal.dumps(code.replace(co_consts=code.co_consts + ([1, 2],)))


CRAFTED = {
    "const-index-past-co_consts": (_const_index, "indexes past its table"),
    "name-index-past-co_names": (_name_index, "indexes past its table"),
    "local-index-past-co_varnames": (_local_index, "indexes past its table"),
    "jump-past-the-end": (_jump_target, "starts no instruction"),
    "stack-deeper-than-co_stacksize": (_stack_size, "co_stacksize=1"),
    "nested-code-const-index": (_nested_const_index, "indexes past its table"),
    "unknown-opcode": (_unknown_opcode, "unknown opcode"),
    "list-constant": (_list_constant, "constant of type list"),
    "short-marshal-data": (lambda: marshal.dumps((lambda x: x).__code__)[:20], "EOFError"),
    "not-a-code-object": (lambda: marshal.dumps(42), "expected a code object"),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_bytecode_is_a_checkpoint_error_not_a_crash(tmp_path, name):
    make, message = CRAFTED[name]
    path = lambda_file(tmp_path)
    set_code(path, make())
    out = load_in_fresh_interpreter(path)
    assert "CheckpointError" in out and "Lambda layer 'double'" in out, out
    assert message in out, out


@pytest.mark.parametrize("change, message", [
    (lambda c: c.update(code="!!not base64!!"), "damaged"),
    (lambda c: c.update(code=12), "expected the function"),
    (lambda c: c.update(python="2.7"), "saved by Python 2.7"),
    (lambda c: c.update(closure=[1, 2, 3]), "closure"),
    (lambda c: c.update(defaults="abc"), "must be lists"),
], ids=["base64", "code-type", "python-version", "closure-length", "defaults-type"])
def test_damaged_function_fields_are_checkpoint_errors(tmp_path, change, message):
    path = lambda_file(tmp_path)
    set_function(path, change)
    with pytest.raises(pd.CheckpointError, match=message):
        pd.load_model(path, compile=False, safe_mode=False)


def test_the_checks_accept_real_functions():
    """No false alarms: every function of a few large modules passes the checks."""
    import inspect
    import json
    import numpy
    from paddle.highlevel.saving import architecture
    count = 0
    for module in (inspect, json.decoder, numpy.lib.npyio, architecture, bytecode):
        for value in vars(module).values():
            if isinstance(value, types.FunctionType):
                bytecode.checked_code(marshal.loads(marshal.dumps(value.__code__)), "probe")
                count += 1
    assert count > 50


def test_model_from_config_refuses_bytecode_unless_trusted():
    """As Keras 3: Model/Sequential.from_config are safe by default; a Lambda built
    directly from its own config is not a file and loads."""
    from paddle.highlevel.saving.serialization import safe_mode_scope
    inp = pd.Input(shape=(3,))
    functional = pd.Model(inp, pd.layers.Lambda(lambda x: x + 1.0)(inp))
    sequential = pd.Sequential([pd.Input(shape=(3,)), pd.layers.Lambda(lambda x: x + 1.0)])
    for cls, model in ((pd.Model, functional), (pd.Sequential, sequential)):
        with pytest.raises(ValueError, match="safe_mode=False"):
            cls.from_config(model.get_config())
        with safe_mode_scope(False):
            assert cls.from_config(model.get_config()).outputs[0].shape == (None, 3)
    lam = pd.layers.Lambda(lambda x: x * 3.0)
    assert isinstance(pd.layers.Lambda.from_config(lam.get_config()), pd.layers.Lambda)
