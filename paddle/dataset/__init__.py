"""Ready-made data sets as reader creators: mnist, uci_housing, cifar, digits.

Each module's `train()`/`test()` (`train10()`/`test10()` for cifar) returns a reader
creator of `(features, label)` samples, to decorate with `paddle.reader` and hand to `fit`:

    >>> from paddle import dataset, reader
    >>> batches = reader.batch(reader.shuffle(dataset.digits.train(), 2000), 64)
    >>> x, y = next(reader.iter_batches(batches))
    >>> x.shape, y.dtype
    ((64, 64), dtype('int64'))

Files are cached under `$PADDLE_DATA_HOME` (default `~/.cache/paddle/dataset`); see
`paddle.dataset.common` and docs/data.md.
"""
from paddle.dataset import cifar, common, digits, mnist, uci_housing  # noqa: F401
from paddle.dataset.common import DatasetError  # noqa: F401

__all__ = ["DatasetError", "cifar", "common", "digits", "mnist", "uci_housing"]
