"""Whole models on the simulated GPU against the CPU: a convnet (convolution, batch
normalization, both poolings, Adam) and a recurrent text model (embedding, LSTM, GRU,
RMSprop) trained a few steps from the same weights reach the same weights; dropout draws
on the device and trains; the digits convnet of examples/ reaches the CPU's accuracy."""
import contextlib
import os
import sys

import numpy as np
import pytest

import paddle as pd
from paddle.devices import cuda

L = pd.layers


def convnet():
    return pd.Sequential([
        L.Input(shape=(10, 10, 3)), L.Conv2D(6, 3, padding="same", activation="relu"),
        L.BatchNormalization(), L.MaxPooling2D(2), L.Conv2D(8, 3, groups=2),
        L.AveragePooling2D(2, padding="same"), L.Flatten(), L.Dense(4)])


def text_model():
    return pd.Sequential([
        L.Input(shape=(7,), dtype="int64"), L.Embedding(20, 6),
        L.LSTM(5, return_sequences=True), L.GRU(4), L.Dense(3)])


def _train(build, x, y, optimizer, device, steps=3):
    pd.seed(0)
    model = build()
    model.compile(optimizer=optimizer, loss=pd.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    with cuda.simulated():
        before = pd.get_device()
        pd.set_device(device)
        try:
            losses = [float(np.asarray(model.train_on_batch(x, y)).ravel()[0])
                      for _ in range(steps)]
            predictions = model.predict_on_batch(x)
        finally:
            pd.set_device(before)
    return losses, predictions, model.get_weights()


@pytest.mark.parametrize("build,x,y,optimizer", [
    (convnet, np.random.default_rng(0).standard_normal((8, 10, 10, 3)).astype(np.float32),
     np.random.default_rng(1).integers(0, 4, 8), "adam"),
    (text_model, np.random.default_rng(2).integers(0, 20, (6, 7)),
     np.random.default_rng(3).integers(0, 3, 6), "rmsprop")], ids=["convnet", "text"])
def test_training_on_the_simulated_gpu_matches_the_cpu(build, x, y, optimizer):
    cpu = _train(build, x, y, optimizer, "cpu")
    gpu = _train(build, x, y, optimizer, "gpu")
    np.testing.assert_allclose(gpu[0], cpu[0], rtol=1e-4)
    np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-4, atol=1e-5)
    for g, c in zip(gpu[2], cpu[2]):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)


def test_dropout_trains_on_the_simulated_gpu_and_draws_anew_each_step():
    pd.seed(0)
    x = pd.data("sim_drop_x", shape=[None, 50])
    y = pd.dropout(x, 0.5)
    ones = np.ones((4, 50), np.float32)
    with cuda.simulated():
        first = pd.eval(y, {x: ones}, training=True, device="gpu")
        second = pd.eval(y, {x: ones}, training=True, device="gpu")
        pd.seed(5)
        a = pd.eval(y, {x: ones}, training=True, device="gpu")
        pd.seed(5)
        b = pd.eval(y, {x: ones}, training=True, device="gpu")
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(first).tolist()) == {0.0, 2.0}


def digits_accuracy(device, simulated=False):
    """The test accuracy of examples/digits_convnet.py's model trained 15 epochs on `device`
    (on the simulated one with `simulated`)."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples"))
    import digits_convnet as example
    x_train, y_train = example.load(pd.dataset.digits.train())
    x_test, y_test = example.load(pd.dataset.digits.test())
    with cuda.simulated() if simulated else contextlib.nullcontext():
        before = pd.get_device()
        pd.set_device(device)
        try:
            pd.seed(0)
            model = example.build_model()
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                          metrics=["accuracy"])
            model.fit(x_train, y_train, batch_size=32, epochs=15, verbose=0)
            return model.evaluate(x_test, y_test, batch_size=256, return_dict=True,
                                  verbose=0)["accuracy"]
        finally:
            pd.set_device(before)


@pytest.mark.slow
def test_the_digits_convnet_on_the_simulated_gpu_reaches_the_cpus_accuracy():
    cpu, gpu = digits_accuracy("cpu"), digits_accuracy("gpu", simulated=True)
    assert gpu >= cpu - 0.01 and cpu > 0.9, (cpu, gpu)
