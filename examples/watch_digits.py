"""Watch and ship the digits convnet: TensorBoard logs, a picture of the model and of its
learning curves, then an ONNX file checked against ONNX Runtime.

Needs the optional extras: pip install "paddle-graph[tensorboard,plot,onnx]" and
Graphviz's `dot` program (apt-get install graphviz). Everything is written under the
folder given as the first argument (default: digits_run/).

    python examples/watch_digits.py [out_dir]
    tensorboard --logdir digits_run/logs
"""
import os
import sys

import numpy as np

import paddle as pd
from digits_convnet import build_model, load


def main(out_dir="digits_run"):
    pd.seed(0)
    os.makedirs(out_dir, exist_ok=True)
    x_train, y_train = load(pd.dataset.digits.train())
    x_test, y_test = load(pd.dataset.digits.test())

    model = build_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    pd.utils.plot_model(model, to_file=os.path.join(out_dir, "model.png"), show_shapes=True)
    tensorboard = pd.callbacks.TensorBoard(os.path.join(out_dir, "logs"), histogram_freq=5)
    history = model.fit(x_train, y_train, batch_size=32, epochs=15, validation_split=0.1,
                        verbose=2, callbacks=[tensorboard])
    pd.utils.plot_history(history, to_file=os.path.join(out_dir, "history.png"))

    path = os.path.join(out_dir, "digits.onnx")
    model.export(path, format="onnx")
    import onnxruntime
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    (probs,) = session.run(None, {session.get_inputs()[0].name: x_test})
    gap = float(np.abs(probs - model.predict(x_test, verbose=0)).max())
    print(f"ONNX Runtime vs predict on {len(x_test)} test digits: max difference {gap:.2e}; "
          f"accuracy {(probs.argmax(axis=1) == y_test).mean():.4f}")
    assert gap < 1e-5
    print(f"pictures, logs and digits.onnx in {out_dir}/")
    return model


if __name__ == "__main__":
    main(*sys.argv[1:])
