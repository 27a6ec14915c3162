"""Areas tensorboard, plots and export: what a model writes out (TensorBoard logs,
plot_model and plot_history pictures, ONNX files)."""

from .core import Setup, case


def watch_ship_cases():
    """TensorBoard, plot_model, plot_history and model.export on bad input (they need the
    tensorboard, plot and onnx extras; where one is missing its ImportError says so)."""
    prep = Setup("""
        import os, tempfile
        d = tempfile.mkdtemp()
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)], name="fuzzed")
        model.compile("sgd", "mse")
        x, y = np.ones((4, 4), np.float32), np.ones((4, 1), np.float32)
        open(os.path.join(d, "file"), "w").close()
    """)
    who = ["tensorboard", "log_dir", "histogram_freq", "update_freq", "write_graph"]
    for label, call in {
        "log-dir-is-a-file": "model.fit(x, y, verbose=0, callbacks=[pd.callbacks.TensorBoard(os.path.join(d, 'file'))])",
        "log-dir-under-a-file": "model.fit(x, y, verbose=0, callbacks=[pd.callbacks.TensorBoard(os.path.join(d, 'file', 'logs'))])",
        "log-dir-not-a-path": "pd.callbacks.TensorBoard(log_dir=3.5)",
        "histogram-freq-negative": "pd.callbacks.TensorBoard(d, histogram_freq=-2)",
        "update-freq-word": "pd.callbacks.TensorBoard(d, update_freq='step')",
        "update-freq-zero": "pd.callbacks.TensorBoard(d, update_freq=0)",
        "write-graph-string": "pd.callbacks.TensorBoard(d, write_graph='no')",
    }.items():
        case("tensorboard", label, prep + call, who)
    who = ["plot_model", "model_to_dot", "plot_history", "model", "history", "to_file",
           "rankdir", "fuzzed"]
    for label, call in {
        "unbuilt-sequential": "pd.utils.plot_model(pd.Sequential([pd.layers.Dense(2)]), os.path.join(d, 'm.png'))",
        "a-layer-not-a-model": "pd.utils.plot_model(pd.layers.Dense(2), os.path.join(d, 'm.png'))",
        "unknown-extension": "pd.utils.plot_model(model, os.path.join(d, 'm.bmp'))",
        "missing-folder": "pd.utils.plot_model(model, os.path.join(d, 'no', 'm.dot'))",
        "rankdir-word": "pd.utils.model_to_dot(model, rankdir='up')",
        "history-empty": "pd.utils.plot_history({}, os.path.join(d, 'h.png'))",
        "history-a-list": "pd.utils.plot_history([1.0, 0.5], os.path.join(d, 'h.png'))",
        "history-strings": "pd.utils.plot_history({'loss': ['a']}, os.path.join(d, 'h.png'))",
        "history-unknown-metric": "pd.utils.plot_history({'loss': [1.0]}, os.path.join(d, 'h.png'), metrics='auc')",
    }.items():
        case("plots", label, prep + call, who)
    who = ["export", "fuzzed", "format", "filepath", "opset", "layer", "model"]
    for label, call in {
        "unbuilt-sequential": "pd.Sequential([pd.layers.Dense(2)]).export(os.path.join(d, 'm.onnx'))",
        "unknown-format": "model.export(os.path.join(d, 'm.tflite'), format='tflite')",
        "path-not-a-path": "model.export(12)",
        "missing-folder": "model.export(os.path.join(d, 'no', 'm.onnx'))",
        "old-opset": "model.export(os.path.join(d, 'm.onnx'), opset_version=9)",
        "lambda-layer": "pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Lambda(lambda t: t * 2.0)], name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "attention-layer": "q = pd.Input(shape=(4, 8)); pd.Model(q, pd.layers.MultiHeadAttention(2, 4)(q, q), name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "custom-activation": "pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2, activation=lambda t: t * pd.sigmoid(t))], name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "ops-outside-layers": "i = pd.Input(shape=(3,)); pd.Model(i, pd.layers.Dense(2)(i) * 3.0, name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "transpose-conv-unknown-size": "i = pd.Input(shape=(None, None, 2)); pd.Model(i, pd.layers.Conv2DTranspose(2, 3)(i), name='fuzzed').export(os.path.join(d, 'm.onnx'))",
    }.items():
        case("export", label, prep + call + "\ncheck(not os.path.exists(os.path.join(d, 'm.onnx')), 'a partial file was left')", who)
