"""Offline stand-ins for `keras.datasets.mnist.load_data()` and
`keras.datasets.cifar10.load_data()`, for the ported keras-io programs.

MNIST's files are not in the package and the tests run offline, so `mnist.load_data()`
gives the 8x8 digits that scikit-learn ships (`paddle.dataset.digits`: 1,437 training and
360 test images of real handwriting), each pixel blown up to 3x3 and padded by 2 to
MNIST's 28x28, as uint8 in [0, 255] with uint8 labels: the same shapes, dtypes and
ranges as Keras's arrays, only fewer of them. `cifar10.load_data()` gives (32, 32, 3)
uint8 images whose class sets which colour channel is bright, with (n, 1) labels as
Keras's are: learnable, shaped like CIFAR-10, and made in milliseconds.
"""
import functools

import numpy as np

from paddle.dataset import digits


def _images_and_labels(reader):
    pairs = list(reader())
    images = np.stack([image for image, _ in pairs]).reshape(-1, 8, 8)
    labels = np.array([label for _, label in pairs], dtype=np.uint8)
    big = np.kron(images, np.ones((3, 3), np.float32))           # 24 x 24
    big = np.pad(big, ((0, 0), (2, 2), (2, 2)))                  # 28 x 28, as MNIST
    return np.round(big * 255).astype(np.uint8), labels


class mnist:  # noqa: N801  (spelled as the module it stands for: keras.datasets.mnist)
    @staticmethod
    def load_data():
        """((x_train, y_train), (x_test, y_test)): uint8 images (n, 28, 28), uint8 labels."""
        (x_train, y_train), (x_test, y_test) = _digits_28x28()
        return (x_train.copy(), y_train.copy()), (x_test.copy(), y_test.copy())


@functools.lru_cache(maxsize=None)
def _digits_28x28():  # read once per process: several ported programs load "MNIST"
    return _images_and_labels(digits.train()), _images_and_labels(digits.test())


class cifar10:  # noqa: N801
    @staticmethod
    def load_data(n_train=1000, n_test=200, seed=0):
        """((x_train, y_train), (x_test, y_test)): uint8 images (n, 32, 32, 3), labels
        (n, 1) in 0..9; the class picks a channel and a brightness band."""
        rng = np.random.default_rng(seed)

        def make(n):
            labels = rng.integers(0, 10, size=(n, 1)).astype(np.uint8)
            images = rng.integers(0, 64, size=(n, 32, 32, 3))
            cls = labels[:, 0]
            images[np.arange(n), :, :, cls % 3] += (40 + 60 * (cls // 3))[:, None, None]
            return images.clip(0, 255).astype(np.uint8), labels

        return make(n_train), make(n_test)
