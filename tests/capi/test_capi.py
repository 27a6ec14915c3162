"""The C API from C: real C99 programs (tests/capi/c/) compiled with the system compiler
against the header and library of the paddle under test, run with no PYTHONPATH or
PYTHONHOME from another working directory, and checked against Python on the same models.

(a) predictions equal Python's bit for bit, (b) train_on_batch from C trains as from
Python, (c) forward_backward + an SGD written in C matches SGD in Python, (d) every bad
input returns its code and the program keeps working, (e) two C threads predict at once.
"""
import os
import stat
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import paddle as pd
import paddle.capi
from paddle.capi import calls

pytestmark = pytest.mark.skipif(
    not sysconfig.get_config_var("Py_ENABLE_SHARED"),
    reason="this Python has no shared libpython: libpaddle_c is not built (docs/c_api.md)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = ["predict_convnet", "train_steps", "hand_sgd", "bad_input", "threads"]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """Every test program (and examples/c/predict.c), compiled as the issue asks."""
    out = tmp_path_factory.mktemp("bin")
    cc = os.environ.get("CC", "cc")
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pthread",
             paddle.capi.cflags()]
    libs = paddle.capi.libs().split()
    sources = {name: os.path.join(HERE, "c", f"{name}.c") for name in PROGRAMS}
    sources["example_predict"] = os.path.join(ROOT, "examples", "c", "predict.c")
    built = {}
    for name, source in sources.items():
        exe = str(out / name)
        done = subprocess.run([cc, *flags, "-o", exe, source, *libs], capture_output=True,
                              text=True)
        assert done.returncode == 0, f"{name}.c does not compile:\n{done.stderr}"
        built[name] = exe
    return built


def run(exe, *args, cwd, threads=None):
    """Runs a test program as a user would: no PYTHONPATH/PYTHONHOME, another folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    done = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)
    assert done.returncode == 0, \
        f"{os.path.basename(exe)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def convnet():
    return pd.Sequential([
        pd.layers.Input(shape=(8, 8, 1)),
        pd.layers.Conv2D(8, 3, padding="same", activation="relu"),
        pd.layers.MaxPooling2D(2),
        pd.layers.Conv2D(8, 3, activation="relu"),
        pd.layers.Flatten(),
        pd.layers.Dense(10, activation="softmax"),
    ])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Models saved from Python and the data the programs read, as raw files."""
    d = tmp_path_factory.mktemp("capi")
    pd.seed(3)
    rng = np.random.default_rng(3)
    x = rng.random((96, 8, 8, 1), dtype=np.float32)
    y = rng.integers(0, 10, 96).astype(np.int64)
    x.tofile(d / "x.f32")
    y.tofile(d / "y.i64")
    model = convnet()
    model.save(d / "uncompiled.h5")
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x[:32], y[:32], batch_size=16, epochs=1, verbose=0)  # optimizer state saved
    model.save(d / "convnet.h5")
    model.save_weights(d / "weights.h5")
    bn = pd.Sequential([
        pd.layers.Input(shape=(8, 8, 1)),
        pd.layers.Conv2D(4, 3),
        pd.layers.BatchNormalization(),
        pd.layers.Activation("relu"),
        pd.layers.Flatten(),
        pd.layers.Dense(10, activation="softmax"),
    ])
    bn.compile(optimizer=pd.optimizers.SGD(learning_rate=0.05),
               loss="sparse_categorical_crossentropy")
    bn.save(d / "bn_sgd.h5")
    (d / "foreign.txt").write_text("not a model\n")
    (d / "folder").mkdir()
    return d


def python(*args, cwd):
    """`python -m ...` / `python -c ...` in another folder: from the repository's root they
    would import the source tree (uncompiled) instead of the package under test."""
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)


def test_flags_from_the_command_line(tmp_path):
    for option, start in (("--cflags", "-I"), ("--libs", "-L")):
        done = python("-m", "paddle.capi", option, cwd=tmp_path)
        assert done.returncode == 0 and done.stdout.startswith(start), done.stderr
    both = python("-m", "paddle.capi", "--cflags", "--libs", cwd=tmp_path).stdout.split()
    assert both[0] == paddle.capi.cflags() and both[-1] == "-lpaddle_c"
    assert os.path.isfile(paddle.capi.library_path())
    usage = python("-m", "paddle.capi", cwd=tmp_path)
    assert usage.returncode == 2 and "usage" in usage.stderr


def test_error_codes_by_exception_class():
    assert calls.code_of(pd.ShapeError("s")) == calls.SHAPE_ERROR
    assert calls.code_of(pd.CheckpointError("c")) == calls.CHECKPOINT_ERROR
    assert calls.code_of(KeyError("k")) == calls.NOT_FOUND
    assert calls.code_of(TypeError("t")) == calls.INVALID_ARGUMENT
    assert calls.code_of(MemoryError()) == calls.OUT_OF_MEMORY
    assert calls.code_of(PermissionError("p")) == calls.CHECKPOINT_ERROR
    assert calls.code_of(RuntimeError("r")) == calls.INTERNAL
    assert calls.describe(KeyError("no parameter named 'w'")) == \
        "KeyError: no parameter named 'w'"


def test_a_predictions_equal_python_bitwise(programs, files, tmp_path):
    x = np.fromfile(files / "x.f32", np.float32).reshape(-1, 8, 8, 1)
    run(programs["predict_convnet"], files / "convnet.h5", files / "x.f32",
        tmp_path / "out.f32", cwd=tmp_path)
    from_c = np.fromfile(tmp_path / "out.f32", np.float32).reshape(-1, 10)
    from_python = pd.load_model(files / "convnet.h5").predict(x, batch_size=len(x))
    np.testing.assert_array_equal(from_c, from_python)


def test_example_predicts_what_python_predicts(programs, files, tmp_path):
    out = run(programs["example_predict"], files / "convnet.h5", files / "x.f32", 8, 8, 1,
              cwd=tmp_path)
    classes = [int(line.split("class ")[1].split()[0]) for line in out.splitlines()]
    x = np.fromfile(files / "x.f32", np.float32).reshape(-1, 8, 8, 1)
    probs = pd.load_model(files / "convnet.h5").predict(x, batch_size=len(x))
    assert classes == probs.argmax(axis=1).tolist()


# 10 train_on_batch calls in Python, in a process of its own: the filter gradient of
# conv2d sums its blocks in the order threads finish them, so training is bitwise
# reproducible on one thread only (both sides run on one).
TRAIN_IN_PYTHON = """
import sys, numpy as np, paddle as pd
model_path, x_path, y_path, steps, batch, out = sys.argv[1:]
steps, batch = int(steps), int(batch)
x = np.fromfile(x_path, np.float32).reshape(-1, 8, 8, 1)
y = np.fromfile(y_path, np.int64)
model = pd.load_model(model_path)
losses = [model.train_on_batch(x[s * batch:(s + 1) * batch], y[s * batch:(s + 1) * batch])[0]
          for s in range(steps)]
np.savez(out, losses=np.array(losses), *[w.val() for w in model.weights])
"""


def test_b_train_on_batch_from_c_trains_as_python(programs, files, tmp_path):
    steps, batch = 10, 8
    out = run(programs["train_steps"], files / "convnet.h5", files / "x.f32",
              files / "y.i64", steps, batch, tmp_path, tmp_path / "trained.h5", cwd=tmp_path,
              threads=1)
    done = subprocess.run([sys.executable, "-c", TRAIN_IN_PYTHON, files / "convnet.h5",
                           files / "x.f32", files / "y.i64", str(steps), str(batch),
                           tmp_path / "python.npz"], capture_output=True, text=True,
                          cwd=tmp_path, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert done.returncode == 0, done.stderr
    python = np.load(tmp_path / "python.npz")
    np.testing.assert_array_equal(np.fromfile(tmp_path / "losses.f64"), python["losses"])
    model = pd.load_model(files / "convnet.h5")
    assert out.split() == [f"{layer.name}/{weight}" for layer in model.layers if layer.weights
                           for weight in ("kernel", "bias")]
    for i, w in enumerate(model.trainable_weights):
        from_c = np.fromfile(tmp_path / f"{i}.f32", np.float32).reshape(w.shape)
        np.testing.assert_array_equal(from_c, python[f"arr_{i}"], err_msg=w.name)
        assert not np.array_equal(from_c, w.val()), f"{w.name} did not train"
    # pd_model_save wrote the trained model, optimizer state included.
    saved = pd.load_model(tmp_path / "trained.h5")
    for i, w in enumerate(saved.weights):
        np.testing.assert_array_equal(w.val(), python[f"arr_{i}"], err_msg=w.name)
    assert saved.optimizer.iterations == model.optimizer.iterations + steps


def test_c_forward_backward_and_hand_sgd_match_python_sgd(programs, files, tmp_path):
    steps, batch, lr = 5, 16, 0.05
    # Loaded as the C API loads (parameters named as in a fresh process, as C sees them).
    original = calls.load(str(files / "bn_sgd.h5")).model
    stats = [w.name for w in original.non_trainable_weights]
    assert any("moving_mean" in s for s in stats)
    run(programs["hand_sgd"], files / "bn_sgd.h5", files / "x.f32", files / "y.i64", steps,
        batch, lr, tmp_path, *stats, cwd=tmp_path)
    x = np.fromfile(files / "x.f32", np.float32).reshape(-1, 8, 8, 1)
    y = np.fromfile(files / "y.i64", np.int64)
    model = calls.load(str(files / "bn_sgd.h5")).model
    losses = [model.train_on_batch(x[s * batch:(s + 1) * batch], y[s * batch:(s + 1) * batch])
              for s in range(steps)]
    from_c = np.fromfile(tmp_path / "losses.f64")
    assert from_c[0] == losses[0]  # the same start: the same loss, bit for bit
    np.testing.assert_allclose(from_c, losses, rtol=1e-6)

    def from_file(w):
        return np.fromfile(tmp_path / (w.name.replace("/", "_") + ".f32"),
                           np.float32).reshape(w.shape)

    for w, w0 in zip(model.trainable_weights, original.trainable_weights):
        np.testing.assert_allclose(from_file(w), w.val(), rtol=1e-5, atol=1e-6,
                                   err_msg=w.name)
        assert not np.array_equal(from_file(w), w0.val()), f"{w.name} did not move"
    # forward_backward updated no moving statistic; Python's training steps did.
    for w, w0 in zip(model.non_trainable_weights, original.non_trainable_weights):
        np.testing.assert_array_equal(from_file(w), w0.val(), err_msg=w.name)
        assert not np.array_equal(w.val(), w0.val())


def test_d_bad_input_returns_codes_and_the_library_keeps_working(programs, files, tmp_path):
    gpu_code = calls.OK if pd.devices.cuda.available else calls.NOT_FOUND
    os.mkfifo(tmp_path / "pipe.h5")  # a save onto it is refused (issue 25, item 4)
    out = run(programs["bad_input"], files / "convnet.h5", files / "uncompiled.h5",
              files / "foreign.txt", files / "weights.h5", files / "folder", gpu_code,
              cwd=tmp_path)
    assert "FAIL" not in out
    assert out.splitlines()[-1] == "81 cases, 0 failed"
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe.h5").st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe.h5"]
    # Messages are the Python exception's class and message.
    assert "ok 3 pd_model_predict(m, &x, 1, &out, 1) -> ShapeError: " in out
    assert "ok 2 pd_model_get_param(m, \"nope\", &w) -> KeyError: pd_model_get_param: " in out


def test_e_two_threads_predict_at_once(programs, files, tmp_path):
    x = np.fromfile(files / "x.f32", np.float32).reshape(-1, 8, 8, 1)
    model = pd.load_model(files / "convnet.h5")
    for name, part in (("a", x[:40]), ("b", x[40:])):
        part.tofile(tmp_path / f"x{name}.f32")
        model.predict_on_batch(part).tofile(tmp_path / f"ref{name}.f32")
    out = run(programs["threads"], files / "convnet.h5", tmp_path / "xa.f32",
              tmp_path / "xb.f32", tmp_path / "refa.f32", tmp_path / "refb.f32", 20,
              cwd=tmp_path)
    assert out.splitlines() == ["wrong 0 0, errors 0 0"] * 2

