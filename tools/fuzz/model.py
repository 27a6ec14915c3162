"""Areas model.*: compile, fit, evaluate, predict and the on_batch methods with bad data."""

from .core import Setup, case


def _model(kind="reg"):
    if kind == "reg":
        return Setup("""
            model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3), pd.layers.Dense(1)])
            model.compile("sgd", "mse")
            x, y = rnd(16, 4), rnd(16, 1, seed=1)
        """)
    if kind == "cls":
        return Setup("""
            model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
            model.compile("adam", pd.losses.SparseCategoricalCrossentropy(from_logits=True),
                          metrics=["accuracy"])
            x, y = rnd(16, 4), np.arange(16) % 3
        """)
    if kind == "two":
        return Setup("""
            a, b = pd.layers.Input(shape=(4,)), pd.layers.Input(shape=(2,))
            model = pd.Model([a, b], pd.layers.Dense(1)(pd.layers.Concatenate()([a, b])))
            model.compile("sgd", "mse")
            x, y = [rnd(16, 4), rnd(16, 2)], rnd(16, 1, seed=1)
        """)
    raise ValueError(kind)


def model_cases():
    who = [
        "x",
        "y",
        "input",
        "target",
        "sample",
        "batch",
        "sequential",
        "model",
        "fit",
        "evaluate",
        "predict",
        "label",
    ]
    bad_x = {
        "ragged": "[[1, 2, 3, 4], [1, 2]]",
        "object": "np.array([[object()] * 4] * 16)",
        "strings": "np.array([['a'] * 4] * 16)",
        "empty": "np.zeros((0, 4), np.float32)",
        "none": "None",
        "scalar": "3.0",
        "dict": "{'a': x}",
        "width": "rnd(16, 5)",
        "rank3": "rnd(16, 4, 1)",
        "rank1": "rnd(16)",
        "complex": "x.astype(np.complex64)",
        "short": "x[:10]",
        "list-of-rows": "x.tolist()",
        "str": "'data.csv'",
        "generator-bad": "(i for i in range(3))",
        "int-object": "np.array([1, 'a'] * 32).reshape(16, 4)",
    }
    for method in (
        "fit",
        "evaluate",
        "predict",
        "train_on_batch",
        "test_on_batch",
        "predict_on_batch",
    ):
        takes_y = method in ("fit", "evaluate", "train_on_batch", "test_on_batch")
        for label, value in bad_x.items():
            expect = (
                "either"
                if label in ("list-of-rows",) or (not takes_y and label in ("short", "empty"))
                else "error"
            )
            call = (
                f"model.{method}({value}"
                + (", y" if takes_y else "")
                + (", verbose=0" if method in ("fit", "evaluate") else "")
                + ")"
            )
            case(
                "model.x",
                f"{method}-x-{label}",
                _model() + f"""
            r = {call}
            {'finite(r)' if method in ('predict', 'predict_on_batch') else ''}""",
                who,
                expect,
            )
    bad_y = {
        "ragged": "[[1.0], [1.0, 2.0]] * 8",
        "strings": "np.array([['a']] * 16)",
        "short": "y[:10]",
        "long": "np.concatenate([y, y])",
        "empty": "np.zeros((0, 1), np.float32)",
        "object": "np.array([[object()]] * 16)",
        "wide": "rnd(16, 3)",
        "rank1": "y[:, 0]",
        "rank3": "y[:, :, None]",
        "flat-mismatch": "rnd(16)",
        "list-two": "[y, y]",
        "nan": "np.full((16, 1), np.nan, np.float32)",
    }
    for method in ("fit", "evaluate", "train_on_batch"):
        for label, value in bad_y.items():
            expect = "either" if label in ("rank1", "flat-mismatch", "rank3", "nan") else "error"
            extra = ", verbose=0" if method != "train_on_batch" else ""
            check_loss = ""
            if label in ("rank1", "flat-mismatch", "rank3"):
                # (N,) or (N, 1, 1) targets against (N, 1) predictions: a loss of the right size
                check_loss = """
            p = model.predict(x)
            yy = np.asarray(%s, np.float64).reshape(16, -1)[:, :1]
            want = float(((p - yy) ** 2).mean())
            got = model.evaluate(x, %s, verbose=0)
            close(got, want, "mse of (N,) targets vs (N, 1) predictions", tol=1e-3)""" % (
                    value,
                    value,
                )
            case(
                "model.y",
                f"{method}-y-{label}",
                _model() + f"""
            r = model.{method}(x, {value}{extra})
            {check_loss}""",
                who + ["loss", "mean_squared_error"],
                expect,
            )
    cls = _model("cls")
    for label, value in {
        "labels-out": "np.arange(16) % 5",
        "labels-neg": "-(np.arange(16) % 3)",
        "labels-float": "(np.arange(16) % 3) + 0.5",
        "labels-onehot": "np.eye(3)[np.arange(16) % 3]",
        "labels-huge": "np.full(16, 2**40)",
        "labels-nan": "np.full(16, np.nan)",
        "labels-bool": "np.ones(16, bool)",
    }.items():
        case(
            "model.cls",
            f"fit-{label}",
            cls + f"r = model.fit(x, {value}, verbose=0, epochs=1)",
            who + ["softmax_cross_entropy", "sparse", "class", "labels"],
            "either" if label in ("labels-bool",) else "error",
        )
    for label, kw in {
        "batch-0": "batch_size=0",
        "batch-neg": "batch_size=-4",
        "batch-float": "batch_size=2.5",
        "batch-bool": "batch_size=True",
        "batch-str": "batch_size='4'",
        "epochs-neg": "epochs=-1",
        "epochs-float": "epochs=1.5",
        "epochs-str": "epochs='2'",
        "vsplit-big": "validation_split=1.5",
        "vsplit-neg": "validation_split=-0.2",
        "vsplit-one": "validation_split=1.0",
        "vsplit-str": "validation_split='a'",
        "vdata-bad": "validation_data=(x,)",
        "vdata-width": "validation_data=(rnd(4, 5), rnd(4, 1))",
        "vdata-str": "validation_data='abc'",
        "steps-0": "steps_per_epoch=0",
        "steps-neg": "steps_per_epoch=-1",
        "steps-float": "steps_per_epoch=1.5",
        "sw-short": "sample_weight=np.ones(3)",
        "sw-nan": "sample_weight=np.full(16, np.nan)",
        "sw-neg": "sample_weight=-np.ones(16)",
        "sw-2d": "sample_weight=np.ones((16, 2))",
        "sw-str": "sample_weight=np.array(['a'] * 16)",
        "class-weight-list": "class_weight=[1, 2]",
        "class-weight-neg-key": "class_weight={-1: 2.0}",
        "class-weight-str": "class_weight={'a': 2.0}",
        "class-weight-nan": "class_weight={0: float('nan')}",
        "callbacks-bad": "callbacks=[1]",
        "callbacks-not-list": "callbacks=5",
        "initial-epoch-big": "initial_epoch=5",
        "vfreq-0": "validation_freq=0, validation_split=0.25",
        "shuffle-str": "shuffle='x'",
        "vbatch-0": "validation_data=(x, y), validation_batch_size=0",
    }.items():
        expect = (
            "either"
            if label
            in (
                "sw-neg",
                "initial-epoch-big",
                "shuffle-str",
                "sw-nan",
                "class-weight-nan",
                "class-weight-list",
            )
            else "error"
        )
        base = cls if label.startswith("class-weight") else _model()
        case(
            "model.fit",
            label,
            base + f"""
            h = model.fit(x, y, verbose=0, {kw})
            for k, v in h.history.items():
                {'finite(v, k)' if expect == 'error' else 'pass'}""",
            who
            + [
                "epochs",
                "validation",
                "steps",
                "callback",
                "class_weight",
                "sample_weight",
                "verbose",
                "initial_epoch",
                "shuffle",
                "batch_size",
            ],
            expect,
        )
    for label, kw in {
        "batch-0": "batch_size=0",
        "steps-0": "steps=0",
        "steps-neg": "steps=-2",
    }.items():
        case(
            "model.predict",
            label,
            _model() + f"model.predict(x, {kw})",
            who + ["batch_size", "steps"],
        )
        case(
            "model.evaluate",
            label,
            _model() + f"model.evaluate(x, y, verbose=0, {kw})",
            who + ["batch_size", "steps"],
        )
    two = _model("two")
    for label, call in {
        "one-input": "model.fit(x[0], y, verbose=0)",
        "three-inputs": "model.fit(x + [x[1]], y, verbose=0)",
        "batch-mismatch": "model.fit([x[0], x[1][:8]], y, verbose=0)",
        "swapped": "model.fit([x[1], x[0]], y, verbose=0)",
        "predict-one": "model.predict(x[0])",
        "predict-mismatch": "model.predict([x[0][:3], x[1][:5]])",
        "predict_on_batch-mismatch": "model.predict_on_batch([x[0][:3], x[1][:5]])",
        "tuple": "model.fit(tuple(x), y, verbose=0)",
        "call-mismatch": "model([x[0][:3], x[1][:5]])",
    }.items():
        case(
            "model.inputs",
            label,
            two + call,
            who + ["inputs", "arrays"],
            "either" if label == "tuple" else "error",
        )
    case(
        "model.compile",
        "loss-bad",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "nope"')) + "",
        ["loss", "nope"],
    )
    case(
        "model.compile",
        "optimizer-bad",
        Setup(_model().replace('"sgd", "mse"', '"nope", "mse"')),
        ["optimizer", "nope"],
    )
    case(
        "model.compile",
        "metrics-bad",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "mse", metrics=["nope"]')),
        ["metric", "nope"],
    )
    case(
        "model.compile",
        "metrics-not-list",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "mse", metrics=5')),
        ["metric"],
    )
    case(
        "model.compile",
        "loss-weights-bad",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "mse", loss_weights=["a"]'))
        + "model.fit(x, y, verbose=0)",
        ["loss_weights", "weight"],
    )
    case(
        "model.compile",
        "not-compiled",
        """
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        model.fit(rnd(4, 4), rnd(4, 1), verbose=0)""",
        ["compile"],
    )
    case("model.compile", "fit-no-y", _model() + "model.fit(x, verbose=0)", ["target", "y", "loss"])
    case(
        "model.compile",
        "crossentropy-on-regression",
        """
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        model.compile("sgd", "sparse_categorical_crossentropy")
        model.fit(rnd(8, 4), np.arange(8) % 3, verbose=0)""",
        ["softmax_cross_entropy", "label", "class", "sparse"],
    )
    case(
        "model.compile",
        "categorical-label-width",
        """
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3, activation="softmax")])
        model.compile("sgd", "categorical_crossentropy")
        model.fit(rnd(8, 4), np.eye(4)[np.arange(8) % 4], verbose=0)""",
        ["categorical", "shape", "broadcast", "y", "target"],
    )
    case(
        "model.stream",
        "iterable-bad-batches",
        _model() + """
        model.fit([(x[:4], y[:4]), (x[:4],), "abc"], verbose=0)""",
        who + ["batch"],
    )
    case(
        "model.stream",
        "reader-ragged",
        _model() + """
        def reader():
            yield from [(np.ones(4), np.ones(1)), (np.ones(3), np.ones(1))]
        model.fit(pd.reader.batch(reader, 2), verbose=0)""",
        who + ["sample", "field", "shape"],
    )
    case(
        "model.stream",
        "reader-returns-none",
        _model() + """
        model.fit(lambda: None, verbose=0)""",
        who + ["reader", "iterator", "iterable"],
    )
    case(
        "model.stream",
        "generator-of-nan",
        _model()
        + """
        h = model.fit(((np.full((4, 4), np.nan, np.float32), y[:4]) for _ in range(2)), verbose=0)""",
        who,
        "either",
    )
    case(
        "model.stream",
        "empty-iterable",
        _model() + "model.fit([], verbose=0)",
        who + ["no batch", "empty"],
    )
    case(
        "model.stream",
        "batches-mismatch",
        _model() + """
        model.fit([(x[:4], y[:3])], verbose=0)""",
        who + ["targets"],
    )
    case(
        "model.misc",
        "predict-nan-row",
        _model() + """
        a = x.copy(); a[0, 0] = np.nan
        r = model.predict(a)
        finite(r[1:], "rows without NaN")""",
        who,
        "ok",
    )
    case(
        "model.misc",
        "fit-nan-x-loss",
        _model() + """
        a = x.copy(); a[3, 1] = np.inf
        h = model.fit(a, y, verbose=0)""",
        who,
        "either",
    )
    case("model.misc", "get_layer-bad", _model() + "model.get_layer('nope')", ["get_layer", "nope"])
    case(
        "model.misc",
        "get_layer-index",
        _model() + "model.get_layer(index=10)",
        ["get_layer", "index", "layer"],
    )
    case(
        "model.misc",
        "model-outputs-not-variable",
        "pd.Model(pd.layers.Input(shape=(2,)), 5)",
        ["Model", "output"],
    )
    case(
        "model.misc",
        "model-inputs-not-data",
        """
        i = pd.layers.Input(shape=(2,))
        d = pd.layers.Dense(1)(i)
        pd.Model(d, d)""",
        ["Model", "input"],
    )
    case("model.misc", "sequential-not-layer", "pd.Sequential([5])", ["Sequential", "Layer"])
    case("model.misc", "sequential-pop-empty", "pd.Sequential().pop()", ["Sequential", "pop"])
    case(
        "model.misc",
        "set_weights-bad",
        _model() + "model.set_weights([1, 2])",
        ["set_weights", "sequential"],
    )
    case(
        "model.misc",
        "summary-unbuilt",
        "pd.Sequential([pd.layers.Dense(2)]).summary()",
        ["sequential", "built", "input"],
        "either",
    )
    case(
        "model.misc",
        "callback-raises",
        _model() + """
        class Boom(pd.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                raise RuntimeError("boom")
        model.fit(x, y, verbose=0, callbacks=[Boom()])""",
        ["boom"],
    )
    for label, call in {
        "quantize-unknown-mode": "model.quantize('int3')",
        "quantize-no-mode": "model.quantize()",
        "quantize-int4": "model.quantize('int4')",
        "quantize-config-dict": "model.quantize(config={'mode': 'int8'})",
        "quantize-contradiction": "model.quantize('float8', "
                                  "config=pd.quantizers.Int8QuantizationConfig())",
        "quantize-filters-int": "model.quantize('int8', filters=3)",
        "quantize-kwarg": "model.quantize('int8', block_size=4)",
        "quantize-twice": "model.quantize('int8'); model.quantize('int8')",
        "quantize-unbuilt": "pd.layers.Dense(2).quantize('int8')",
    }.items():
        case("model.quantize", label, _model() + call,
             ["quantiz", "mode", "config", "filters", "keyword", "built", "int4"])
    case("model.quantize", "quantize-then-fit", _model() + """
        model.quantize('int8')
        h = model.fit(x, y, verbose=0)
        finite(h.history['loss'], 'loss')""", ["quantize"], "ok")
