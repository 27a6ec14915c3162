"""A Keras-style convnet on the 8x8 handwritten digits that scikit-learn ships.

The whole high-level API in one page: a `Sequential` of Conv2D / MaxPooling2D / Flatten /
Dropout / Dense layers, `compile` with names, `fit` with a validation split, `evaluate` and
`predict`. The digits come from `pd.dataset.digits` (a reader creator of 64-pixel vectors
and integer labels), so the example runs offline in a few seconds; the images are reshaped
to 8x8x1 (NHWC) for the convolutions.

    python examples/digits_convnet.py
"""
import numpy as np

import paddle as pd


def load(creator):
    """All samples of a reader creator as (images (n, 8, 8, 1), labels (n,))."""
    pixels, labels = pd.reader.to_arrays(list(creator()))
    return pixels.reshape(-1, 8, 8, 1), labels


def build_model():
    return pd.Sequential([
        pd.layers.Input(shape=(8, 8, 1)),
        pd.layers.Conv2D(32, 3, padding="same", activation="relu"),
        pd.layers.MaxPooling2D(2),
        pd.layers.Conv2D(64, 3, padding="same", activation="relu"),
        pd.layers.MaxPooling2D(2),
        pd.layers.Flatten(),
        pd.layers.Dropout(0.3),
        pd.layers.Dense(10, activation="softmax"),
    ])


def main():
    pd.seed(0)
    x_train, y_train = load(pd.dataset.digits.train())
    x_test, y_test = load(pd.dataset.digits.test())
    print(f"train {x_train.shape}, test {x_test.shape}")

    model = build_model()
    model.summary()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=32, epochs=15, validation_split=0.1, verbose=2)

    results = model.evaluate(x_test, y_test, batch_size=256, return_dict=True, verbose=0)
    print(f"test loss {results['loss']:.4f}  test accuracy {results['accuracy']:.4f}")

    probs = model.predict(x_test[:8], batch_size=256)
    print("predicted", probs.argmax(axis=1).tolist())
    print("true     ", y_test[:8].tolist())
    assert results["accuracy"] >= 0.95, "the convnet did not learn the digits"
    return results["accuracy"]


if __name__ == "__main__":
    main()
