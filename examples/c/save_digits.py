"""Trains a small convnet on the 8x8 digits and writes what predict.c reads:
digits.h5 (the model, as model.save writes it) and digits.f32 (the first 10 test images,
float32, 8x8x1 each); prints their labels.

    python save_digits.py && ./predict digits.h5 digits.f32 8 8 1
"""
import numpy as np

import paddle as pd


def main():
    pd.seed(0)
    x, y = pd.reader.to_arrays(list(pd.dataset.digits.train()()))
    x_test, y_test = pd.reader.to_arrays(list(pd.dataset.digits.test()()))
    model = pd.Sequential([
        pd.layers.Input(shape=(8, 8, 1)),
        pd.layers.Conv2D(16, 3, padding="same", activation="relu"),
        pd.layers.MaxPooling2D(2),
        pd.layers.Flatten(),
        pd.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x.reshape(-1, 8, 8, 1), y, batch_size=32, epochs=5, verbose=0)
    model.save("digits.h5")
    x_test[:10].astype(np.float32).tofile("digits.f32")
    print("labels", y_test[:10].tolist())


if __name__ == "__main__":
    main()
