"""The high level on a GPU: compile then fit / evaluate / predict / *_on_batch on the
current device, save and load across devices, the seeds' Trainer and Inferencer with
place="gpu". Each test runs on the simulated GPU (the CUDA backend's code on NumPy, in
CI) and on a real GPU (marked `gpu`), against the same model run on the CPU."""
import contextlib

import numpy as np
import pytest

import paddle as pd
from paddle.devices import cuda


@pytest.fixture(params=["simulated_gpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def gpu(request):
    """A context manager that makes the GPU (simulated or real) the default device."""
    @contextlib.contextmanager
    def on_gpu():
        before = pd.get_device()
        context = cuda.simulated() if request.param == "simulated_gpu" else \
            contextlib.nullcontext()
        with context:
            pd.set_device("gpu")
            try:
                yield
            finally:
                pd.set_device(before)
    return on_gpu


def data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 6)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 0.5)
    return x, y


def mlp(seed=0):
    pd.seed(seed)
    model = pd.Sequential([pd.layers.Input(shape=(6,)),
                           pd.layers.Dense(16, activation="relu"),
                           pd.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def close(a, b, rtol=2e-4, atol=1e-5):
    for u, v in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        np.testing.assert_allclose(u, v, rtol=rtol, atol=atol)


def test_fit_evaluate_predict_match_the_cpu(gpu):
    x, y = data()
    on_cpu = mlp()
    history_cpu = on_cpu.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False).history
    with gpu():
        on_gpu = mlp()
        history_gpu = on_gpu.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False).history
        evaluated = on_gpu.evaluate(x, y, batch_size=16, verbose=0)
        predicted = on_gpu.predict(x, batch_size=16)
    close(history_gpu["loss"], history_cpu["loss"])
    close(evaluated, on_cpu.evaluate(x, y, batch_size=16, verbose=0))
    assert isinstance(predicted, np.ndarray)
    close(predicted, on_cpu.predict(x, batch_size=16))
    # The weights and the optimizer's slots come back as NumPy arrays, current.
    close(on_gpu.get_weights(), on_cpu.get_weights())
    opt_gpu, opt_cpu = on_gpu.optimizer, on_cpu.optimizer
    w_gpu, w_cpu = on_gpu.trainable_weights[0], on_cpu.trainable_weights[0]
    close(opt_gpu.slots(w_gpu)["m"], opt_cpu.slots(w_cpu)["m"])
    assert opt_gpu.iterations == opt_cpu.iterations == 9


def test_on_batch_methods_run_on_the_current_device(gpu):
    x, y = data(16)
    on_cpu = mlp()
    expected = [on_cpu.train_on_batch(x, y), on_cpu.test_on_batch(x, y),
                on_cpu.predict_on_batch(x)]
    with gpu():
        on_gpu = mlp()
        got = [on_gpu.train_on_batch(x, y), on_gpu.test_on_batch(x, y),
               on_gpu.predict_on_batch(x)]
    for a, b in zip(got, expected):
        close(a, b)


def test_set_weights_on_the_host_reaches_the_device(gpu):
    x, y = data(16)
    model = mlp()
    with gpu():
        model.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
        zeros = [np.zeros_like(w) for w in model.get_weights()]
        model.set_weights(zeros)
        # All-zero weights: uniform probabilities on the device too.
        np.testing.assert_allclose(model.predict(x[:4]), np.full((4, 3), 1 / 3), rtol=1e-6)


def test_compiled_on_the_cpu_then_run_on_the_gpu_and_back(gpu):
    x, y = data()
    model, twin = mlp(), mlp()
    model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    twin.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    with gpu():
        # The same steps, planned again on the GPU.
        model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    twin.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    close(model.get_weights(), twin.get_weights())
    # And back on the CPU.
    model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    twin.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    close(model.get_weights(), twin.get_weights())


def test_save_on_the_gpu_load_on_the_cpu_and_back(gpu, tmp_path):
    x, y = data()
    with gpu():
        model = mlp()
        model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
        expected = model.predict(x)
        model.save(tmp_path / "model.h5")
    loaded = pd.load_model(tmp_path / "model.h5")
    close(loaded.predict(x), expected)
    loaded.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    after_cpu = loaded.predict(x)
    loaded.save_weights(tmp_path / "weights.h5")
    with gpu():
        model.load_weights(tmp_path / "weights.h5")
        close(model.predict(x), after_cpu)
        again = pd.load_model(tmp_path / "model.h5")
        close(again.predict(x), expected)


def reader_of(x, y, batch_size=16):
    samples = list(zip(x, y))
    return pd.reader.batch(lambda: iter(samples), batch_size)


def infer_net():
    x = pd.data("x", shape=[None, 6])
    return pd.fc(pd.fc(x, size=8, act="tanh"), size=3, act="softmax")


def train_net():
    y = pd.data("y", shape=[None], dtype="int64")
    predict = infer_net()
    return [pd.mean(pd.cross_entropy(predict, y)), pd.accuracy(predict, y)]


def test_trainer_and_inferencer_with_place_gpu(gpu, tmp_path):
    x, y = data()
    results = {}
    for place in ("cpu", "gpu"):
        with gpu() if place == "gpu" else contextlib.nullcontext():
            pd.seed(0)
            trainer = pd.Trainer(train_net, lambda: pd.optimizers.SGD(learning_rate=0.2),
                                 place=place)
            trainer.train(3, None, reader_of(x, y), ["x", "y"])
            tested = trainer.test(reader_of(x, y), ["x", "y"])
            trainer.save_params(tmp_path / place)
            inferencer = pd.Inferencer(infer_net, tmp_path / place, place=place)
            results[place] = (tested, inferencer.infer({"x": x}))
    close(results["gpu"][0], results["cpu"][0])
    assert isinstance(results["gpu"][1], np.ndarray)
    close(results["gpu"][1], results["cpu"][1])
    # Parameters saved on the GPU load on the CPU.
    on_cpu = pd.Inferencer(infer_net, tmp_path / "gpu", place="cpu")
    close(on_cpu.infer({"x": x}), results["gpu"][1])
