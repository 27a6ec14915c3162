"""Recognize digits with the seeds' Trainer and Inferencer (PaddlePaddle #10248).

The network is a Python function; `pd.Trainer` builds it, trains it over a reader and
reports progress as events; `pd.Inferencer` builds the same function again and loads
the parameters the trainer saved. Two networks, as in the seed's example: a multilayer
perceptron and a small convolutional network. The data are the 8x8 handwritten digits
that scikit-learn ships (`pd.dataset.digits`), so it runs offline in seconds.

    python examples/recognize_digits.py            # both networks
    python examples/recognize_digits.py conv       # one of them: mlp or conv
"""
import sys
import tempfile

import numpy as np

import paddle as pd

BATCH_SIZE = 64
FEED_ORDER = ["image", "label"]


# ---- the networks: functions that build the graph -------------------------------------

def mlp_inference():
    image = pd.data("image", shape=[None, 64])
    hidden = pd.fc(image, size=64, act="relu")
    hidden = pd.fc(hidden, size=64, act="relu")
    return pd.fc(hidden, size=10, act="softmax")


def conv_inference():
    """The seed's conv_network: conv + pool, dropout, batch normalization, softmax."""
    image = pd.data("image", shape=[None, 8, 8, 1])
    with pd.namespace("conv"):  # parameters conv/filters, conv/bias, conv/moving_mean...
        filters = pd.Variable("filters", shape=[3, 3, 1, 16])
        bias = pd.Variable("bias", shape=[16])
        moving_mean = pd.Variable("moving_mean", shape=[16], initializer="zeros",
                                  trainable=False)
        moving_variance = pd.Variable("moving_variance", shape=[16], initializer="ones",
                                      trainable=False)
    hidden = pd.relu(pd.conv2d(image, filters, padding="same") + bias)   # (N, 8, 8, 16)
    hidden = pd.max_pool2d(hidden, pool_size=2)                           # (N, 4, 4, 16)
    hidden = pd.dropout(hidden, 0.1)                                      # training only
    hidden = pd.batch_norm(hidden, None, None, moving_mean, moving_variance, momentum=0.9)
    return pd.fc(pd.flatten(hidden), size=10, act="softmax")


def train_program(inference):
    """The loss first, then the metrics; the label is the reader's second field."""
    def program():
        label = pd.data("label", shape=[None], dtype="int64")
        predict = inference()
        cost = pd.mean(pd.cross_entropy(predict, label))   # cross_entropy takes probabilities
        return [cost, pd.accuracy(predict, label)]
    return program


# ---- the data: batched reader creators -------------------------------------------------

def as_image(sample):
    """The 64 pixels as an 8x8 image with one channel, for conv2d (NHWC)."""
    pixels, label = sample
    return pixels.reshape(8, 8, 1), label


def readers(as_images):
    train, test = pd.dataset.digits.train(), pd.dataset.digits.test()
    if as_images:
        train = pd.reader.map_readers(as_image, train)
        test = pd.reader.map_readers(as_image, test)
    train = pd.reader.batch(pd.reader.shuffle(train, buf_size=2000), BATCH_SIZE)
    return train, pd.reader.batch(test, BATCH_SIZE)


# ---- training and inference ------------------------------------------------------------

def run(name, inference, num_epochs, params_dir):
    print(f"== {name} ==")
    pd.seed(0)
    train_reader, test_reader = readers(as_images=name == "conv")
    trainer = pd.Trainer(train_func=train_program(inference),
                         optimizer_func=lambda: pd.optimizers.Adam(learning_rate=3e-3),
                         place="cpu")

    def event_handler(event):
        if isinstance(event, pd.EndStepEvent) and event.epoch == 0 and event.step % 10 == 0:
            loss, accuracy = event.metrics
            print(f"  epoch 0 step {event.step:2d}  batch loss {loss:.3f}  "
                  f"accuracy {accuracy:.3f}")
        elif isinstance(event, pd.EndEpochEvent):
            loss, accuracy = trainer.test(reader=test_reader, feed_order=FEED_ORDER)
            print(f"epoch {event.epoch}  test loss {loss:.4f}  test accuracy {accuracy:.4f}")
            trainer.save_params(params_dir)

    trainer.train(num_epochs=num_epochs, event_handler=event_handler,
                  reader=train_reader, feed_order=FEED_ORDER)

    inferencer = pd.Inferencer(infer_func=inference, param_path=params_dir, place="cpu")
    samples = [sample for batch in test_reader() for sample in batch]
    images = np.stack([image for image, _ in samples])
    labels = np.array([label for _, label in samples])
    probs = inferencer.infer({"image": images})
    accuracy = float((probs.argmax(axis=1) == labels).mean())
    print(f"inferencer: {len(labels)} test digits, accuracy {accuracy:.4f}; "
          f"first ten predicted {probs[:10].argmax(axis=1).tolist()}, "
          f"true {labels[:10].tolist()}")
    return accuracy


def main(argv):
    networks = {"mlp": (mlp_inference, 10), "conv": (conv_inference, 8)}
    chosen = argv or list(networks)
    unknown = [n for n in chosen if n not in networks]
    if unknown:
        sys.exit(f"unknown network {unknown}; choose from {list(networks)}")
    for name in chosen:
        inference, epochs = networks[name]
        with tempfile.TemporaryDirectory() as params_dir:
            accuracy = run(name, inference, epochs, params_dir)
        assert accuracy > 0.9, f"{name}: the digits were not learned ({accuracy:.3f})"


if __name__ == "__main__":
    main(sys.argv[1:])
