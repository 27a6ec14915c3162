"""Two networks side by side on the same batch: an MLP and a CNN on the digits.

Both are built on the same `pd.data` inputs, each with its own loss, accuracy and
optimizer. There is no program object to choose between them: the graph is what the
Variables reach, so one `pd.eval` per batch runs both networks' forward passes and both
updates, and one more per epoch measures both on the test set. The MLP is two `pd.fc`
calls; the CNN is low-level ops on Variables it creates itself (`pd.conv2d`,
`pd.max_pool2d`) with a `pd.fc` on top, in its own namespace.

    python examples/two_networks.py
"""
import numpy as np

import paddle as pd


def mlp(image):
    with pd.namespace("mlp"):
        hidden = pd.fc(image, size=64, act="relu")
        return pd.fc(hidden, size=10)


def cnn(image):
    with pd.namespace("cnn"):
        x = pd.reshape(image, (-1, 8, 8, 1))                       # NHWC
        filters = pd.Variable("filters", shape=[3, 3, 1, 16])      # glorot_uniform
        bias = pd.Variable("bias", shape=[16])                     # zeros (rank < 2)
        x = pd.relu(pd.conv2d(x, filters, padding="same") + bias)  # (None, 8, 8, 16)
        x = pd.max_pool2d(x, 2)                                    # (None, 4, 4, 16)
        return pd.fc(pd.flatten(x), size=10)


def main():
    pd.seed(0)
    image = pd.data("image", shape=[None, 64])
    label = pd.data("label", shape=[None], dtype="int64")

    nets = {"mlp": mlp(image), "cnn": cnn(image)}
    losses = {k: pd.mean(pd.softmax_cross_entropy(v, label)) for k, v in nets.items()}
    accuracies = {k: pd.accuracy(v, label) for k, v in nets.items()}
    # Each optimizer updates the parameters its own loss depends on: the two sets are disjoint.
    steps = {k: pd.optimizers.Adam(learning_rate=3e-3).minimize(v) for k, v in losses.items()}

    train_reader = pd.reader.batch(pd.reader.shuffle(pd.dataset.digits.train(), buf_size=2000),
                                   batch_size=32)
    test_x, test_y = pd.reader.to_arrays(list(pd.dataset.digits.test()()))
    names = list(nets)
    targets = [losses[k] for k in names] + [steps[k] for k in names]

    for epoch in range(10):
        for samples in train_reader():
            x, y = pd.reader.to_arrays(samples)
            values = pd.eval(targets, feeds={image: x, label: y})   # both nets, one call
        test_acc = pd.eval([accuracies[k] for k in names], feeds={image: test_x, label: test_y})
        print(f"epoch {epoch + 1:2d}  " + "  ".join(
            f"{k}: batch loss {float(loss):.3f} test accuracy {float(acc):.3f}"
            for k, loss, acc in zip(names, values, test_acc)))

    final = dict(zip(names, (float(a) for a in test_acc)))
    print(f"MLP test accuracy {final['mlp']:.4f}, CNN test accuracy {final['cnn']:.4f}")
    assert min(final.values()) > 0.9, "a network did not learn the digits"
    return final


if __name__ == "__main__":
    main()
