#!/usr/bin/env python3
"""Runs paddle's and Keras's versions of the same feature on the same data, side by side.

The behaviour checks behind the "same" rows of docs/keras.md: activations, losses,
metrics, weightless layers, layers whose Keras weights are copied into paddle's, schedules
and regularizers, each on random data, printing `ok` or `DIFF` and the largest difference.
It needs paddle and Keras 3 in one interpreter (it is not part of the test suite, which
has no Keras):

    PYTHONPATH=$PWD KERAS_BACKEND=jax /path/to/keras-venv/bin/python tools/keras_spotcheck.py

(name sections to run only those: `... tools/keras_spotcheck.py callbacks members`).
"""
import sys
import traceback

import numpy as np

import keras
import paddle as pd

RNG = np.random.default_rng(0)
RESULTS = []


def value(x):
    """A NumPy array from a paddle Variable, a Keras tensor or a number."""
    if isinstance(x, pd.Variable):
        return np.asarray(pd.eval(x))
    if isinstance(x, (int, float, np.ndarray, np.generic)):
        return np.asarray(x)
    return np.asarray(keras.ops.convert_to_numpy(x))


def check(category, name, ours, theirs, tol=1e-5):
    try:
        a, b = value(ours()), value(theirs())
        if a.shape != b.shape:
            RESULTS.append((category, name, "DIFF", f"shapes {a.shape} vs {b.shape}"))
            return
        err = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0
        ok = a.shape == b.shape and err <= tol * max(1.0, float(np.max(np.abs(b))))
        detail = f"err {err:.2e}"
        if not ok and a.size <= 40:  # which entries: paddle's, then Keras's
            detail += f" paddle {np.round(a.ravel(), 4).tolist()} keras {np.round(b.ravel(), 4).tolist()}"
        RESULTS.append((category, name, "ok" if ok else "DIFF", detail))
    except Exception as e:  # a crash on one side is a finding, not the end of the run
        RESULTS.append((category, name, "ERROR", f"{type(e).__name__}: {e}".splitlines()[0]))


def activations():
    x = RNG.standard_normal((4, 5)).astype("float32") * 3
    for name in dir(pd.activations):
        fn, kfn = getattr(pd.activations, name), getattr(keras.activations, name, None)
        if kfn is None or name in ("get", "serialize", "deserialize") or not callable(fn) \
                or name.upper() == name or isinstance(fn, type):
            continue
        check("activations", name, lambda: fn(x), lambda: kfn(x))


def losses_and_metric_functions():
    prob = RNG.uniform(0.05, 0.95, (6, 4)).astype("float32")
    prob /= prob.sum(-1, keepdims=True)
    onehot = np.eye(4, dtype="float32")[RNG.integers(0, 4, 6)]
    ids = RNG.integers(0, 4, 6)
    real_t, real_p = RNG.standard_normal((6, 4)).astype("float32"), RNG.standard_normal(
        (6, 4)).astype("float32")
    pos_t, pos_p = RNG.uniform(0.1, 2, (6, 4)).astype("float32"), RNG.uniform(
        0.1, 2, (6, 4)).astype("float32")
    binary = RNG.integers(0, 2, (6, 4)).astype("float32")
    data = {
        "binary_crossentropy": (binary, prob), "categorical_crossentropy": (onehot, prob),
        "sparse_categorical_crossentropy": (ids, prob), "cosine_similarity": (real_t, real_p),
        "huber": (real_t, real_p), "kl_divergence": (pos_t, pos_p), "log_cosh": (real_t, real_p),
        "mean_absolute_error": (real_t, real_p), "mean_squared_error": (real_t, real_p),
        "mean_absolute_percentage_error": (real_t, real_p),
        "mean_squared_logarithmic_error": (pos_t, pos_p), "poisson": (pos_t, pos_p),
        "binary_accuracy": (binary, prob), "categorical_accuracy": (onehot, prob),
        "sparse_categorical_accuracy": (ids, prob),
        "top_k_categorical_accuracy": (onehot, prob),
        "sparse_top_k_categorical_accuracy": (ids, prob),
    }
    for module, kmodule, category in ((pd.losses, keras.losses, "losses"),
                                      (pd.metrics, keras.metrics, "metrics")):
        for name, (t, p) in data.items():
            if hasattr(module, name) and hasattr(kmodule, name):
                fn, kfn = getattr(module, name), getattr(kmodule, name)
                check(category, name, lambda: fn(t, p), lambda: kfn(t, p))
    classes = {
        "BinaryCrossentropy": (binary, prob), "CategoricalCrossentropy": (onehot, prob),
        "SparseCategoricalCrossentropy": (ids, prob), "CosineSimilarity": (real_t, real_p),
        "Huber": (real_t, real_p), "KLDivergence": (pos_t, pos_p), "LogCosh": (real_t, real_p),
        "MeanAbsoluteError": (real_t, real_p), "MeanSquaredError": (real_t, real_p),
        "MeanAbsolutePercentageError": (real_t, real_p),
        "MeanSquaredLogarithmicError": (pos_t, pos_p), "Poisson": (pos_t, pos_p),
    }
    weights = RNG.uniform(0, 1, 6).astype("float32")
    for name, (t, p) in classes.items():
        if hasattr(pd.losses, name):
            ours, theirs = getattr(pd.losses, name)(), getattr(keras.losses, name)()
            check("losses", name, lambda: ours(t, p, sample_weight=weights),
                  lambda: theirs(t, p, sample_weight=weights))
    metric_classes = dict(classes, Accuracy=(binary, np.round(prob)), BinaryAccuracy=(
        binary, prob), CategoricalAccuracy=(onehot, prob), SparseCategoricalAccuracy=(ids, prob),
        TopKCategoricalAccuracy=(onehot, prob), SparseTopKCategoricalAccuracy=(ids, prob),
        LogCoshError=(real_t, real_p), AUC=(binary, prob), Precision=(binary, prob),
        Recall=(binary, prob), F1Score=(binary, prob), FBetaScore=(binary, prob))
    for name in ("LogCosh", "Huber"):
        metric_classes.pop(name)
    for name, (t, p) in metric_classes.items():
        if not (hasattr(pd.metrics, name) and hasattr(keras.metrics, name)):
            continue

        def run(module, name=name, t=t, p=p):
            metric = getattr(module, name)()
            metric.update_state(t[:3], p[:3])
            metric.update_state(t[3:], p[3:], sample_weight=weights[3:])
            return metric.result()
        check("metrics", name, lambda: run(pd.metrics), lambda: run(keras.metrics), tol=1e-4)

    def mean(module):
        m = module.Mean()
        m.update_state(real_t[0])
        m.update_state(real_t[1], sample_weight=weights[:4])
        return m.result()
    check("metrics", "Mean", lambda: mean(pd.metrics), lambda: mean(keras.metrics))


def layer_pair(name, args=(), kwargs=None, inputs=None, weights_from_keras=True):
    kwargs = kwargs or {}

    def theirs():
        layer = getattr(keras.layers, name)(*args, **kwargs)
        out = layer(*inputs) if isinstance(inputs, list) and name[0].isupper() and \
            name not in MERGES else layer(inputs)
        layer_pair.weights = [np.asarray(w) for w in layer.get_weights()]
        return out

    def ours():
        layer = getattr(pd.layers, name)(*args, **kwargs)
        out = layer(*inputs) if isinstance(inputs, list) and name[0].isupper() and \
            name not in MERGES else layer(inputs)
        if layer_pair.weights:
            layer.set_weights(layer_pair.weights)
            out = layer(*inputs) if isinstance(inputs, list) and name not in MERGES \
                else layer(inputs)
        return out
    # Keras first: its weights are copied into paddle's layer.
    try:
        b = value(theirs())
        a = value(ours())
        err = float(np.max(np.abs(a - b))) if a.shape == b.shape and a.size else float("nan")
        ok = a.shape == b.shape and err <= 1e-4 * max(1.0, float(np.max(np.abs(b))))
        RESULTS.append(("layers", name + (f" {kwargs}" if kwargs else ""),
                        "ok" if ok else "DIFF", f"err {err:.2e} shapes {a.shape} {b.shape}"))
    except Exception as e:
        RESULTS.append(("layers", name, "ERROR", f"{type(e).__name__}: {e}".splitlines()[0]))


layer_pair.weights = []
MERGES = {"Add", "Average", "Concatenate", "Maximum", "Minimum", "Multiply", "Subtract", "Dot",
          "add", "average", "concatenate", "maximum", "minimum", "multiply", "subtract", "dot"}


def layers():
    x2 = RNG.standard_normal((3, 6)).astype("float32")
    y2 = RNG.standard_normal((3, 6)).astype("float32")
    x3 = RNG.standard_normal((2, 5, 4)).astype("float32")
    x4 = RNG.standard_normal((2, 6, 6, 3)).astype("float32")
    cases = [
        ("Activation", ("tanh",), {}, x2), ("ELU", (), {}, x2), ("LeakyReLU", (), {}, x2),
        ("ReLU", (), {"max_value": 1.0, "negative_slope": 0.1, "threshold": 0.2}, x2),
        ("ReLU", (), {}, x2), ("Softmax", (), {}, x2), ("PReLU", (), {}, x2),
        ("Dense", (4,), {"activation": "relu"}, x2), ("Flatten", (), {}, x4),
        ("Permute", ((2, 1),), {}, x3), ("RepeatVector", (3,), {}, x2),
        ("Reshape", ((3, 2),), {}, x2), ("Cropping1D", ((1, 2),), {}, x3),
        ("Cropping2D", (((1, 0), (2, 1)),), {}, x4), ("ZeroPadding1D", (2,), {}, x3),
        ("ZeroPadding2D", ((1, 2),), {}, x4), ("UpSampling1D", (2,), {}, x3),
        ("UpSampling2D", ((2, 3),), {}, x4), ("Masking", (), {"mask_value": 0.0}, x3),
        ("GaussianDropout", (0.3,), {}, x2), ("GaussianNoise", (0.3,), {}, x2),
        ("SpatialDropout1D", (0.3,), {}, x3), ("SpatialDropout2D", (0.3,), {}, x4),
        ("Dropout", (0.3,), {}, x2),
        ("Conv1D", (4, 3), {"padding": "same"}, x3), ("Conv2D", (4, 3), {"strides": 2}, x4),
        ("Conv2DTranspose", (4, 3), {"strides": 2}, x4), ("DepthwiseConv2D", (3,), {}, x4),
        ("MaxPooling1D", (), {}, x3), ("MaxPooling2D", (), {}, x4),
        ("AveragePooling1D", (2,), {}, x3), ("AveragePooling2D", (2,), {"padding": "same"}, x4),
        ("GlobalAveragePooling1D", (), {}, x3), ("GlobalAveragePooling2D", (), {}, x4),
        ("GlobalMaxPooling1D", (), {}, x3), ("GlobalMaxPooling2D", (), {"keepdims": True}, x4),
        ("BatchNormalization", (), {}, x4), ("LayerNormalization", (), {}, x3),
        ("SimpleRNN", (3,), {}, x3), ("LSTM", (3,), {"return_sequences": True}, x3),
        ("GRU", (3,), {}, x3), ("Embedding", (10, 3), {}, RNG.integers(0, 10, (2, 4))),
        ("Add", (), {}, [x2, y2]), ("Subtract", (), {}, [x2, y2]),
        ("Multiply", (), {}, [x2, y2]), ("Average", (), {}, [x2, y2]),
        ("Maximum", (), {}, [x2, y2]), ("Minimum", (), {}, [x2, y2]),
        ("Concatenate", (), {}, [x2, y2]), ("Dot", (1,), {}, [x2, y2]),
    ]
    for name, args, kwargs, inputs in cases:
        layer_pair.weights = []
        layer_pair(name, args, kwargs, inputs)
    for name in ("add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate"):
        check("layers", name, lambda n=name: getattr(pd.layers, n)([x2, y2]),
              lambda n=name: getattr(keras.layers, n)([x2, y2]))
    check("layers", "dot", lambda: pd.layers.dot([x2, y2], axes=1),
          lambda: keras.layers.dot([x2, y2], axes=1))

    def wrapped(module):
        inner = module.layers.Dense(2)
        layer = module.layers.TimeDistributed(inner)
        layer(x3)
        inner.set_weights([np.ones((4, 2), "float32"), np.arange(2, dtype="float32")])
        return layer(x3)
    check("layers", "TimeDistributed(Dense)", lambda: wrapped(pd), lambda: wrapped(keras))


def schedules():
    cases = [("ExponentialDecay", (0.1, 10, 0.5), {"staircase": True}),
             ("PiecewiseConstantDecay", ([5, 10], [0.1, 0.05, 0.01]), {}),
             ("CosineDecay", (0.1, 20), {"alpha": 0.1, "warmup_target": 0.2,
                                         "warmup_steps": 5}),
             ("CosineDecayRestarts", (0.1, 7), {"t_mul": 2.0, "m_mul": 0.5}),
             ("InverseTimeDecay", (0.1, 10, 0.5), {}),
             ("PolynomialDecay", (0.1, 20, 0.01), {"power": 2.0, "cycle": True})]
    for name, args, kwargs in cases:
        ours = getattr(pd.optimizers.schedules, name)(*args, **kwargs)
        theirs = getattr(keras.optimizers.schedules, name)(*args, **kwargs)
        steps = [0, 1, 4, 5, 9, 10, 17, 33]
        check("optimizers.schedules", name, lambda: np.array([float(value(ours(s)))
                                                              for s in steps]),
              lambda: np.array([float(value(theirs(s))) for s in steps]))


def regularizers():
    x = RNG.standard_normal((4, 3)).astype("float32")
    for name, args in (("L1", (0.1,)), ("L2", (0.1,)), ("L1L2", (0.1, 0.2)), ("l1", (0.1,)),
                       ("l2", (0.1,)), ("l1_l2", (0.1, 0.2))):
        check("regularizers", name, lambda: getattr(pd.regularizers, name)(*args)(
            pd.constant(x)), lambda: getattr(keras.regularizers, name)(*args)(x))


def optimizers():
    """Ten steps of each optimizer on one quadratic, from the same start."""
    target = RNG.standard_normal(5).astype("float32")
    start = RNG.standard_normal(5).astype("float32")
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "Nadam", "Lion",
                 "Ftrl"):
        if not hasattr(pd.optimizers, name):
            continue

        def ours(name=name):
            w = pd.Variable(f"spot_{name}", shape=[5], initializer=pd.initializers.Constant(0))
            w.set_value(start.copy())
            loss = pd.sum(pd.square(w - pd.constant(target)))
            step = getattr(pd.optimizers, name)(learning_rate=0.05).minimize(loss, [w])
            for _ in range(10):
                pd.eval(step)
            return w.val()

        def theirs(name=name):
            w = keras.Variable(start.copy())
            opt = getattr(keras.optimizers, name)(learning_rate=0.05)
            for _ in range(10):
                grad = 2 * (np.asarray(w) - target)
                opt.apply([keras.ops.convert_to_tensor(grad)], [w])
            return np.asarray(w)
        check("optimizers", name, ours, theirs, tol=1e-4)


def _tiny_model(module):
    inp = module.Input(shape=(3,), name="x")
    hidden = module.layers.Dense(4, activation="relu", name="hidden")(inp)
    out = module.layers.Dense(2, name="out")(module.layers.BatchNormalization(name="bn")(hidden))
    model = module.Model(inp, out, name="tiny")
    model.compile(optimizer=module.optimizers.SGD(learning_rate=0.1), loss="mse",
                  metrics=["mae"])
    return model


def callbacks():
    """Callbacks driven by the same sequence of epoch logs on a compiled model."""
    losses = [1.0, 0.9, 0.95, 0.93, 0.97, 0.99, 0.98, 0.5]

    def drive(module, make):
        model = _tiny_model(module)
        callback = make(module)
        callback.set_model(model)
        callback.on_train_begin({})
        trace = []
        for epoch, loss in enumerate(losses):
            callback.on_epoch_begin(epoch, {})
            callback.on_epoch_end(epoch, {"loss": loss, "val_loss": loss})
            lr = model.optimizer.learning_rate
            trace.append([float(model.stop_training), float(value(lr))])
            if model.stop_training:
                break
        callback.on_train_end({})
        return np.array(trace)
    makers = {
        "EarlyStopping": lambda m: m.callbacks.EarlyStopping(patience=2, min_delta=0.01),
        "EarlyStopping(baseline)": lambda m: m.callbacks.EarlyStopping(
            patience=1, baseline=0.92, start_from_epoch=1),
        "ReduceLROnPlateau": lambda m: m.callbacks.ReduceLROnPlateau(
            patience=1, factor=0.5, cooldown=1, min_lr=0.02),
        "LearningRateScheduler": lambda m: m.callbacks.LearningRateScheduler(
            lambda epoch, lr: lr * 0.9 if epoch > 1 else lr),
    }
    for name, make in makers.items():
        check("callbacks", name, lambda make=make: drive(pd, make),
              lambda make=make: drive(keras, make))

    def history(module):
        model = _tiny_model(module)
        x = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
        history = model.fit(x, x[:, :2], epochs=2, batch_size=4, verbose=0,
                            validation_split=0.25, shuffle=False)
        return np.array([sorted(history.history) == sorted(["loss", "mae", "val_loss",
                                                             "val_mae"]), history.epoch == [0, 1]],
                        dtype=float)
    check("callbacks", "History (keys, epoch)", lambda: history(pd), lambda: history(keras))

    def hooks(module):
        calls = []

        class Recorder(module.callbacks.Callback):
            def __getattribute__(self, name):
                if name.startswith("on_"):
                    return lambda *a, **k: calls.append((name, a + tuple(k.values())))
                return super().__getattribute__(name)
        cbs = module.callbacks.CallbackList([Recorder()], False, False, _tiny_model(module),
                                            epochs=1, steps=1, verbose=0)
        cbs.on_train_begin()
        cbs.on_epoch_begin(0)
        cbs.on_train_batch_begin(0)
        cbs.on_train_batch_end(0, {"loss": 1.0})
        cbs.on_epoch_end(0, {"loss": 1.0})
        cbs.on_test_begin()
        cbs.on_test_batch_begin(0)
        cbs.on_test_batch_end(0)
        cbs.on_test_end()
        cbs.on_train_end()
        return calls
    check("callbacks", "CallbackList (hooks and logs)", lambda: np.array(
        [hooks(pd) == hooks(keras)], float), lambda: np.array([1.0]))


def members():
    """Model and Layer members on the same small model: counts, names, shapes, flags."""
    def facts(module):
        model = _tiny_model(module)
        dense = model.get_layer("hidden")
        return np.array([
            model.count_params(), len(model.weights), len(model.trainable_weights),
            len(model.non_trainable_weights), len(model.variables),
            len(model.trainable_variables), len(model.non_trainable_variables),
            len(model.layers), model.layers.index(model.get_layer("out")),
            model.get_layer(index=1) is dense, dense.count_params(), len(dense.weights),
            model.built, dense.built, model.stop_training, model.compiled,
            dense.supports_masking, model.name == "tiny", dense.name == "hidden",
            model.outputs[0].shape[-1], model.inputs[0].shape[-1], str(dense.dtype) == "float32",
            [tuple(w.shape) for w in model.get_weights()] == [(3, 4), (4,), (4,), (4,), (4,),
                                                             (4,), (4, 2), (2,)],
            type(model.optimizer).__name__ == "SGD", model.output_names == ["out"],
            len(model.losses), dense.compute_output_shape((None, 3))[-1],
        ], dtype=float)
    check("Model", "counts, names, flags", lambda: facts(pd), lambda: facts(keras))

    def trainable(module):
        model = _tiny_model(module)
        model.get_layer("hidden").trainable = False
        model.compile(optimizer="sgd", loss="mse")
        return np.array([len(model.trainable_weights), len(model.non_trainable_weights)])
    check("Model", "trainable = False", lambda: trainable(pd), lambda: trainable(keras))

    def set_get(module):
        model = _tiny_model(module)
        for name in ("hidden", "bn", "out"):  # layer by layer: the lists' orders differ
            layer = model.get_layer(name)
            layer.set_weights([np.full(w.shape, 0.1 * (len(name) + j), "float32")
                               for j, w in enumerate(layer.get_weights())])
        x = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
        return np.concatenate([model.predict(x, verbose=0).ravel(),
                               model.predict_on_batch(x).ravel(),
                               np.ravel(model.test_on_batch(x, x[:, :2])),
                               np.ravel(model.train_on_batch(x, x[:, :2])),
                               np.ravel(model.evaluate(x, x[:, :2], verbose=0))])
    check("Model", "set_weights, predict, *_on_batch, evaluate", lambda: set_get(pd),
          lambda: set_get(keras), tol=1e-4)

    def add_loss(module):
        class Penalty(module.layers.Layer):
            def call(self, inputs):
                self.add_loss(module.ops.sum(inputs) * 0.0 + 0.5)
                return inputs
        inp = module.Input(shape=(3,))
        model = module.Model(inp, module.layers.Dense(1)(Penalty()(inp)))
        model.compile(optimizer="sgd", loss="mse")
        x = np.ones((4, 3), "float32")
        model.set_weights([np.zeros((3, 1), "float32"), np.zeros(1, "float32")])
        return np.array([len(model.losses), model.evaluate(x, np.zeros((4, 1)), verbose=0)])
    check("Model", "add_loss, losses", lambda: add_loss(pd), lambda: add_loss(keras))

    def config(module):
        model = _tiny_model(module)
        clone = module.Model.from_config(model.get_config())
        js = module.models.model_from_json(model.to_json())
        return np.array([len(clone.layers), clone.count_params(), len(js.layers),
                         sorted(model.get_config()) == sorted(["name", "trainable", "layers",
                                                               "input_layers",
                                                               "output_layers"])])
    check("Model", "get_config, from_config, to_json", lambda: config(pd),
          lambda: config(keras))

    def metrics(module):
        model = _tiny_model(module)
        x = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
        model.fit(x, x[:, :2], epochs=1, verbose=0)
        names = [m.name for m in model.metrics]
        model.reset_metrics()
        return np.array([names == ["loss", "compile_metrics"], len(model.metrics)])
    check("Model", "metrics, reset_metrics", lambda: metrics(pd), lambda: metrics(keras))


def random_and_utils():
    """Distributions by their statistics (the streams differ, as between Keras's own
    backends), and the array helpers exactly."""
    def stats(module):
        n = module.random.normal((20000,), mean=2.0, stddev=3.0, seed=1)
        u = module.random.uniform((20000,), minval=-1.0, maxval=3.0, seed=2)
        t = module.random.truncated_normal((20000,), mean=1.0, stddev=2.0, seed=3)
        r = module.random.randint((20000,), 2, 7, seed=4)
        d = module.random.dropout(np.ones((20000,), "float32"), 0.25, seed=5)
        sh = module.random.shuffle(np.arange(100), seed=6)
        n, u, t, r, d, sh = (value(v) for v in (n, u, t, r, d, sh))
        return np.round([n.mean(), n.std(), u.min(), u.max(), t.min() >= -3.0, t.max() <= 5.0,
                         r.min(), r.max(), (d == 0).mean(), d.max(), sorted(sh) == list(
                             range(100))], 1)
    check("random", "normal, uniform, truncated_normal, randint, dropout, shuffle",
          lambda: stats(pd), lambda: stats(keras), tol=0.05)
    labels = np.array([0, 2, 1, 2])
    check("utils", "to_categorical", lambda: pd.utils.to_categorical(labels, 4),
          lambda: keras.utils.to_categorical(labels, 4))
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8, 9]]
    for kwargs in ({}, {"maxlen": 4, "padding": "post", "truncating": "post", "value": -1}):
        check("utils", f"pad_sequences {kwargs}", lambda: pd.utils.pad_sequences(seqs, **kwargs),
              lambda: keras.utils.pad_sequences(seqs, **kwargs))
    x = RNG.standard_normal((3, 4)).astype("float32")
    check("utils", "normalize", lambda: pd.utils.normalize(x, order=1),
          lambda: keras.utils.normalize(x, order=1))

    def dataset(module):
        class Batches(module.utils.PyDataset):
            def __len__(self):
                return 3

            def __getitem__(self, i):
                return np.full((2, 3), i, "float32"), np.full((2, 2), i, "float32")
        model = _tiny_model(module)
        history = model.fit(Batches(), epochs=2, verbose=0)
        return np.array([len(history.history["loss"])])
    check("utils", "PyDataset in fit", lambda: dataset(pd), lambda: dataset(keras))


def saving():
    def config(module):
        layer = module.layers.Dense(3, activation="relu", name="d")
        out = module.saving.serialize_keras_object(layer)
        back = module.saving.deserialize_keras_object(out)

        @module.saving.register_keras_serializable(package="spot")
        class Twice(module.layers.Layer):
            def call(self, inputs):
                return inputs * 2
        return np.array([sorted(out) == ["build_config", "class_name", "config", "module",
                                         "registered_name"] or sorted(out) == [
                                             "class_name", "config", "module",
                                             "registered_name"],
                         out["class_name"] == "Dense", back.units == 3,
                         module.saving.get_registered_name(Twice) == "spot>Twice",
                         module.saving.get_registered_object("spot>Twice") is Twice])
    check("saving", "serialize/deserialize, register", lambda: config(pd), lambda: config(keras))


def more_callbacks():
    import os
    import tempfile

    def run(module):
        folder = tempfile.mkdtemp()
        calls = []
        model = _tiny_model(module)
        x = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
        model.fit(x, x[:, :2], epochs=3, batch_size=4, verbose=0, validation_split=0.25,
                  callbacks=[module.callbacks.CSVLogger(os.path.join(folder, "log.csv")),
                             module.callbacks.ModelCheckpoint(
                                 os.path.join(folder, "m{epoch:02d}.weights.h5"),
                                 save_weights_only=True),
                             module.callbacks.LambdaCallback(
                                 on_epoch_end=lambda epoch, logs: calls.append(epoch),
                                 on_train_batch_end=lambda batch, logs: calls.append(batch))])
        with open(os.path.join(folder, "log.csv")) as f:
            rows = [line.strip().split(",") for line in f]
        return np.array([rows[0] == ["epoch", "loss", "mae", "val_loss", "val_mae"],
                         [r[0] for r in rows[1:]] == ["0", "1", "2"],
                         sorted(os.listdir(folder)) == ["log.csv", "m01.weights.h5",
                                                        "m02.weights.h5", "m03.weights.h5"],
                         calls == [0, 1, 0, 0, 1, 1, 0, 1, 2]])
    check("callbacks", "CSVLogger, ModelCheckpoint, LambdaCallback", lambda: run(pd),
          lambda: run(keras))


def initializers():
    """Draws by their statistics (mean, std, range): the generators differ."""
    for name in ("GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "LecunNormal",
                 "LecunUniform", "RandomNormal", "RandomUniform", "TruncatedNormal",
                 "VarianceScaling", "Orthogonal", "Zeros", "Ones", "Constant"):
        if not hasattr(pd.initializers, name):
            continue

        def stats(module, name=name):
            draw = value(getattr(module.initializers, name)(seed=1)((200, 300), "float32")
                         if name not in ("Zeros", "Ones", "Constant") else
                         getattr(module.initializers, name)()((200, 300), "float32"))
            return np.array([draw.mean(), draw.std(), draw.min(), draw.max()])
        check("initializers", name, lambda: stats(pd), lambda: stats(keras), tol=0.02)


def main():
    sections = [activations, losses_and_metric_functions, layers, schedules, regularizers,
                optimizers, callbacks, more_callbacks, members, random_and_utils, saving,
                initializers]
    wanted = sys.argv[1:]
    for section in sections:
        if wanted and section.__name__ not in wanted:
            continue
        try:
            section()
        except Exception:
            traceback.print_exc()
    for category, name, verdict, detail in RESULTS:
        print(f"{verdict:5} {category:22} {name:40} {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
