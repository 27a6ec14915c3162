"""Fit a line with the low-level API: the seeds' first example, on data made here.

Thirteen features and a price, as in the UCI housing data, but generated from a known
linear rule plus noise so that the example runs anywhere without a download. The model
is one `pd.fc` layer trained with SGD through `pd.eval`; at the end it predicts a few
held-out samples next to their true prices.

    python examples/fit_a_line.py
"""
import numpy as np

import paddle as pd


def make_data(n, rng):
    true_w = np.linspace(-2.0, 2.0, 13).astype(np.float32)
    x = rng.standard_normal((n, 13)).astype(np.float32)
    y = x @ true_w + 3.0 + 0.1 * rng.standard_normal(n).astype(np.float32)
    return x, y.reshape(-1, 1)


def main():
    pd.seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train = make_data(800, rng)
    x_test, y_test = make_data(200, rng)

    x = pd.data("x", shape=[None, 13])
    y = pd.data("y", shape=[None, 1])
    y_predict = pd.fc(x, size=1)
    cost = pd.mean(pd.square(y_predict - y))
    step = pd.optimizers.SGD(learning_rate=0.05).minimize(cost)

    for epoch in range(20):
        order = rng.permutation(len(x_train))
        for start in range(0, len(order), 32):
            idx = order[start:start + 32]
            loss, _ = pd.eval([cost, step], feeds={x: x_train[idx], y: y_train[idx]})
        test_loss = pd.eval(cost, feeds={x: x_test, y: y_test})
        if epoch % 5 == 4:
            print(f"epoch {epoch + 1:2d}  train loss {float(loss):.4f}  test loss "
                  f"{float(test_loss):.4f}")

    predicted = pd.eval(y_predict, feeds={x: x_test[:5]})
    for p, t in zip(predicted[:, 0], y_test[:5, 0]):
        print(f"predicted {p:7.3f}   true {t:7.3f}")
    assert float(test_loss) < 0.05, "the line was not fitted"


if __name__ == "__main__":
    main()
