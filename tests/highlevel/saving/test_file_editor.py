"""pd.saving.KerasFileEditor: Keras 3.15.1's editor (its weights dict, summary, comparison,
edits and errors) over paddle's hardened reader. KERAS_TRANSCRIPT is what Keras's editor
printed for the file `_saved` writes; the live tests (skipped without a Keras venv) run
Keras's editor on paddle's file and paddle's on Keras's."""
import os
import subprocess
import textwrap

import h5py
import numpy as np
import pytest

import paddle as pd

KERAS_PYTHON = os.environ.get("PADDLE_KERAS_PYTHON", "/work/kvenv/bin/python")

# Keras 3.15.1's editor on _saved(...)'s .keras file: summary(), then compare() with the
# same model compiled with Adam and built, then with a model of other shapes (rich's line
# wrapping undone, the date line left out).
KERAS_TRANSCRIPT = """\
Weights structure
  > layers
  │   ├─ dense
  │   │   ├─ 0: shape=(3, 2), dtype=float32
  │   │   └─ 1: shape=(2,), dtype=float32
  │   └─ dense_1
  │       ├─ 0: shape=(2, 1), dtype=float32
  │       └─ 1: shape=(1,), dtype=float32
  └─ optimizer
      ├─ 0: shape=(), dtype=int64
      ├─ 1: shape=(), dtype=float32
      ├─ 2: shape=(3, 2), dtype=float32
      ├─ 3: shape=(3, 2), dtype=float32
      ├─ 4: shape=(2,), dtype=float32
      ├─ 5: shape=(2,), dtype=float32
      ├─ 6: shape=(2, 1), dtype=float32
      ├─ 7: shape=(2, 1), dtype=float32
      ├─ 8: shape=(1,), dtype=float32
      └─ 9: shape=(1,), dtype=float32
Running comparison
─────────────────────
Comparison successful: saved file is compatible with the reference model
    Found 22 matching weights
{'status': 'success', 'error_count': 0, 'match_count': 22}
Running comparison
...Weight shape mismatch for /layers/dense/0
    In reference model: shape=(3, 4)
    In saved file: shape=(3, 2)
...Weight shape mismatch for /layers/dense/1
    In reference model: shape=(4,)
    In saved file: shape=(2,)
...Weight shape mismatch for /layers/dense_1/0
    In reference model: shape=(4, 1)
    In saved file: shape=(2, 1)
...Object /layers/dense_2 present in reference model, missing from saved file
    In reference model, /layers/dense_2 contains the following keys: ['0', '1']
...Object /optimizer present in saved file, missing from reference model
    In saved file, /optimizer contains the following keys: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']
─────────────────────
Found 7 errors: saved file is not compatible with the reference model
{'status': 'error', 'error_count': 7, 'match_count': 1}
"""


def _model(units=2, extra=False):
    layers = [pd.Input((3,)), pd.layers.Dense(units), pd.layers.Dense(1)]
    return pd.Sequential(layers + ([pd.layers.Dense(1)] if extra else []))


def _saved(folder, name="m.keras"):
    model = _model()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((2, 3), "float32"), np.ones((2, 1), "float32"), verbose=0)
    path = os.path.join(str(folder), name)
    model.save(path) if name.endswith(".keras") else model.save_weights(path)
    return model, path


def test_summary_and_compare_print_what_keras_prints(tmp_path, capsys):
    model, path = _saved(tmp_path)
    editor = pd.saving.KerasFileEditor(path)
    opening = capsys.readouterr().out.splitlines()
    assert opening[0] == f"Keras model file '{path}'"
    assert opening[1].startswith("Saved with Keras 3.15.1 - date: ")
    editor.summary()
    print(editor.compare(model))
    print(editor.compare(_model(units=4, extra=True)))
    assert capsys.readouterr().out == KERAS_TRANSCRIPT
    assert editor.config["class_name"] == "Sequential"
    assert editor.metadata["keras_version"] == "3.15.1"


def test_edits_and_save_load_into_a_model(tmp_path, capsys):
    model, path = _saved(tmp_path, "w.weights.h5")
    editor = pd.saving.KerasFileEditor(path)
    assert editor.config is None and editor.metadata is None
    kernel = editor.weights_dict["layers"]["dense"]["0"]
    assert np.array_equal(kernel, model.layers[0].kernel.numpy())
    editor.delete_object("optimizer")
    editor.rename_object("dense_1", "spare")
    editor.add_object("layers/dense_1", {"0": np.full((2, 1), 3.0), "1": np.ones(1)})
    editor.delete_weight("layers/spare", "1")
    editor.add_weights("spare", {"extra": np.zeros(2)})
    assert sorted(editor.weights_dict["layers"]) == ["dense", "dense_1", "spare"]
    assert sorted(editor.weights_dict["layers"]["spare"]) == ["0", "extra"]
    editor.delete_object("layers/spare")
    out = str(tmp_path / "edited.weights.h5")
    editor.resave_weights(out)
    with h5py.File(out, "r") as f:  # Keras's layout: <object>/vars/<weight>
        assert sorted(f["layers/dense_1/vars"]) == ["0", "1"]
        assert "optimizer" not in f
    fresh = _model()
    fresh.load_weights(out)
    assert np.array_equal(fresh.layers[0].kernel.numpy(), kernel)
    assert fresh.layers[1].kernel.numpy().ravel().tolist() == [3.0, 3.0]
    reopened = pd.saving.KerasFileEditor(out)
    assert reopened.compare(_model())["status"] == "success"


def test_errors_are_kerass(tmp_path):
    _, path = _saved(tmp_path, "e.weights.h5")
    editor = pd.saving.KerasFileEditor(path)
    cases = [
        (lambda: pd.saving.KerasFileEditor(str(tmp_path / "m.h5")),
         f"Invalid filename: expected a `.keras` `.weights.h5` extension. Received: "
         f"filepath={tmp_path / 'm.h5'}"),
        (lambda: editor.rename_object("dense", "a/b"),
         "Argument `target_name` should be a leaf name, not a full path name. Received: "
         "target_name='a/b'"),
        (lambda: editor.delete_object("layers/conv"), "Path 'layers/conv' not found in model."),
        (lambda: editor.delete_object("conv"),
         "Source name 'conv' does not appear in the model. Use `editor.weights_summary()` "
         "to list all objects."),
        (lambda: editor.delete_object("0"),
         "Name '0' occurs more than once in the model; try passing a complete path"),
        (lambda: editor.add_object("stuff/dense_9", {}), "Path 'stuff' not found in model."),
        (lambda: editor.add_object("layers/dense_9", [np.ones(2)]),
         "Argument `weights` should be a dict where keys are weight names (usually '0', "
         "'1', etc.) and values are NumPy arrays. Received: type(weights)=<class 'list'>"),
        (lambda: editor.delete_weight("layers/dense", "7"),
         "Weight 7 not found in object layers/dense. Weights found: ['0', '1']"),
        (lambda: editor.save(str(tmp_path / "out.h5")),
         f"Invalid `filepath` argument: expected a `.weights.h5` extension. Received: "
         f"filepath={tmp_path / 'out.h5'}"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as error:
            call()
        assert str(error.value) == message
    with pytest.raises(FileNotFoundError):  # paddle.errors.CheckpointNotFoundError
        pd.saving.KerasFileEditor(str(tmp_path / "missing.weights.h5"))


def _hostile(tmp_path, craft):
    _, path = _saved(tmp_path, "h.weights.h5")
    secret = tmp_path / "secret.bin"
    secret.write_bytes(np.arange(6, dtype="float32").tobytes())
    other = str(tmp_path / "other.h5")
    with h5py.File(other, "w") as f:
        f["data"] = np.ones((3, 2), "float32")
    with h5py.File(path, "r+") as f:
        group = f["layers/dense/vars"]
        del group["0"]
        craft(group, str(secret), other)
    return path


@pytest.mark.parametrize("craft, words", [
    (lambda g, secret, other: g.__setitem__("0", h5py.ExternalLink(other, "/data")),
     "external link"),
    (lambda g, secret, other: (g.create_dataset("hidden", data=np.ones((3, 2))),
                               g.__setitem__("0", h5py.SoftLink(g.name + "/hidden"))),
     "soft link"),
    (lambda g, secret, other: g.create_dataset("0", shape=(3, 2), dtype="float32",
                                               external=[(secret, 0, 24)]),
     "external files"),
    (lambda g, secret, other: g.create_virtual_dataset("0", _layout(other)), "virtual"),
    (lambda g, secret, other: g.create_dataset("0", data=np.array(["a", "b"], "S1")),
     "not plain numbers"),
])
def test_untrusted_files_are_read_as_paddle_reads_checkpoints(tmp_path, craft, words):
    path = _hostile(tmp_path, craft)
    with pytest.raises(pd.CheckpointError, match=words) as error:
        pd.saving.KerasFileEditor(path)
    assert isinstance(error.value, ValueError)


def _layout(other):
    layout = h5py.VirtualLayout(shape=(3, 2), dtype="float32")
    layout[:] = h5py.VirtualSource(other, "data", shape=(3, 2))
    return layout


def test_a_dataset_claiming_more_than_memory_is_refused(tmp_path):
    _, path = _saved(tmp_path, "big.weights.h5")
    with h5py.File(path, "r+") as f:
        del f["layers/dense/vars/0"]
        f["layers/dense/vars"].create_dataset("0", shape=(1 << 40,), dtype="float64",
                                              chunks=(1 << 16,), compression="gzip")
    with pytest.raises(pd.CheckpointError):
        pd.saving.KerasFileEditor(path)


def _keras(code, cwd):
    if not os.path.exists(KERAS_PYTHON):
        pytest.skip(f"no Keras venv at {KERAS_PYTHON} (set PADDLE_KERAS_PYTHON)")
    env = dict(os.environ, KERAS_BACKEND="jax")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([KERAS_PYTHON, "-c", textwrap.dedent(code)], cwd=str(cwd), env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_keras_editor_prints_the_transcript_on_paddles_file(tmp_path):
    _, path = _saved(tmp_path)
    out = _keras(f"""
        import functools, keras, rich.console
        rich.console.Console = functools.partial(rich.console.Console, width=1000)
        e = keras.saving.KerasFileEditor({path!r})
        e.summary()
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dense(1)])
        m.compile(optimizer="adam", loss="mse")
        m.optimizer.build(m.trainable_variables)
        print(e.compare(m))
        print(e.compare(keras.Sequential([keras.Input((3,)), keras.layers.Dense(4),
                                          keras.layers.Dense(1), keras.layers.Dense(1)])))
        """, tmp_path)
    assert out.split("\n", 2)[2] == KERAS_TRANSCRIPT


def test_paddle_editor_reads_and_edits_a_keras_file(tmp_path):
    _keras("""
        import keras, numpy as np
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dense(1)])
        m.layers[0].kernel.assign(np.arange(6, dtype="float32").reshape(3, 2))
        m.save_weights("k.weights.h5")
        """, tmp_path)
    editor = pd.saving.KerasFileEditor(str(tmp_path / "k.weights.h5"))
    assert editor.weights_dict["layers"]["dense"]["0"].tolist() == [[0, 1], [2, 3], [4, 5]]
    assert editor.compare(_model())["status"] == "success"
    editor.rename_object("dense_1", "dense_2")
    editor.save(str(tmp_path / "e.weights.h5"))
    out = _keras("""
        import keras
        e = keras.saving.KerasFileEditor("e.weights.h5")
        print(sorted(e.weights_dict["layers"]))
        """, tmp_path)
    assert out.strip().splitlines()[-1] == "['dense', 'dense_2']"
