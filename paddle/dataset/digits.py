"""The 8x8 handwritten digits that scikit-learn ships: 1,797 images, no download needed.

Small enough for an example to train in seconds on any machine, offline. Needs
scikit-learn (`pip install scikit-learn`), imported only when a reader is created. The
split is fixed: a permutation drawn with seed 0 (not paddle's random state, so `pd.seed`
does not move samples between the sets), the first 80% for training. Samples are
`(image, label)`: a float32 vector of 64 pixels scaled to [0, 1], and an int in 0..9.
"""
import numpy as np

_SPLIT_SEED = 0
_TRAIN_FRACTION = 0.8
_MAX_PIXEL = 16.0  # the digits' pixels count dark cells of a 4x4 block: 0..16


def train():
    """The training part of the digits (1,437 samples) as a reader creator.

    Returns:
        A reader creator yielding `(float32 array of shape (64,) in [0, 1], int label)`.

    Raises:
        ImportError: scikit-learn is not installed.

    Example:
        >>> from paddle import dataset
        >>> image, label = next(dataset.digits.train()())
        >>> image.shape, image.dtype, 0 <= label <= 9
        ((64,), dtype('float32'), True)
    """
    return _reader(train=True)


def test():
    """The test part of the digits (360 samples) as a reader creator.

    Returns:
        A reader creator yielding `(float32 array of shape (64,) in [0, 1], int label)`.

    Raises:
        ImportError: scikit-learn is not installed.

    Example:
        >>> from paddle import dataset
        >>> sum(1 for _ in dataset.digits.test()())
        360
    """
    return _reader(train=False)


def _reader(train):
    load_digits = _load_digits_function()

    def digits_reader():
        digits = load_digits()
        images = (digits.data / _MAX_PIXEL).astype(np.float32)
        order = np.random.default_rng(_SPLIT_SEED).permutation(len(images))
        split = int(len(images) * _TRAIN_FRACTION)
        for i in (order[:split] if train else order[split:]):
            yield images[i], int(digits.target[i])

    return digits_reader


def _load_digits_function():
    try:
        from sklearn.datasets import load_digits  # optional: only this dataset needs it
    except ImportError as error:
        raise ImportError("paddle.dataset.digits reads the digits that scikit-learn ships, and "
                          "scikit-learn is not installed: pip install scikit-learn") from error
    return load_digits
