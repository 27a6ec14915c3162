"""UCI (Boston) housing: predict a median house price from 13 features of its district.

Reads `$PADDLE_DATA_HOME/uci_housing/housing.data` (506 lines of 14 whitespace-separated
numbers), downloading it when missing. As in PaddlePaddle, each feature is normalized over
the whole file as `(x - mean) / (max - min)`, and the first 80% of the lines (in file
order) are the training set, the rest the test set. Samples are `(features, price)`: a
float32 vector of 13, and a float32 array of shape (1,) in thousands of dollars.
"""
import numpy as np

from paddle.dataset import common
from paddle.dataset.common import DatasetError

URLS = ("https://archive.ics.uci.edu/ml/machine-learning-databases/housing/housing.data",
        "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data")
MD5 = "d4accdce7a25600298819f8e28e8d593"

feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX",
                 "PTRATIO", "B", "LSTAT"]

_COLUMNS = len(feature_names) + 1
_TRAIN_FRACTION = 0.8


def train():
    """The first 80% of the housing data as a reader creator.

    Returns:
        A reader creator yielding `(float32 array (13,), float32 array (1,))`.

    Raises:
        DatasetError: the file is missing and cannot be downloaded (now), or a line does
            not hold 14 numbers (when iterated).

    Example:
        >>> from paddle import dataset
        >>> features, price = next(dataset.uci_housing.train()())  # doctest: +SKIP
        >>> features.shape, price.shape  # doctest: +SKIP
        ((13,), (1,))
    """
    return _reader(train=True)


def test():
    """The last 20% of the housing data as a reader creator.

    Returns:
        A reader creator yielding `(float32 array (13,), float32 array (1,))`.

    Raises:
        DatasetError: as for `train`.

    Example:
        >>> from paddle import dataset
        >>> len(list(dataset.uci_housing.test()()))  # doctest: +SKIP
        102
    """
    return _reader(train=False)


def _reader(train):
    path = common.fetch("uci_housing", "housing.data", urls=URLS, md5=MD5)

    def housing_reader():
        data = load(path)
        split = int(len(data) * _TRAIN_FRACTION)
        for row in (data[:split] if train else data[split:]):
            yield row[:-1].copy(), row[-1:].copy()

    return housing_reader


def load(path):
    """Parse a housing.data file and normalize its features.

    Args:
        path: the file.

    Returns:
        A float32 array of shape (lines, 14): 13 normalized features, then the price.

    Raises:
        DatasetError: the file is unreadable, empty, or a line does not hold 14 numbers.

    Example:
        >>> import os, tempfile
        >>> from paddle.dataset import uci_housing
        >>> path = os.path.join(tempfile.mkdtemp(), "housing.data")
        >>> with open(path, "w") as f:
        ...     _ = f.write(" ".join(["1"] * 14) + "\\n" + " ".join(["3"] * 14) + "\\n")
        >>> uci_housing.load(path)[:, [0, 13]].tolist()
        [[-0.5, 1.0], [0.5, 3.0]]
    """
    rows = []
    with common.reading(path):
        with open(path, encoding="ascii", errors="replace") as lines:
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    rows.append(_parse_line(line, number, path))
    if not rows:
        raise DatasetError(f"uci_housing: {path} holds no data")
    data = np.array(rows, dtype=np.float64)
    features = data[:, :-1]
    spread = features.max(axis=0) - features.min(axis=0)
    # A constant column (possible in a cut-down file) would divide by zero; it becomes 0.
    spread[spread == 0] = 1.0
    data[:, :-1] = (features - features.mean(axis=0)) / spread
    return data.astype(np.float32)


def _parse_line(line, number, path):
    fields = line.split()
    if len(fields) != _COLUMNS:
        raise DatasetError(f"uci_housing: line {number} of {path} holds {len(fields)} values, "
                           f"expected {_COLUMNS}")
    try:
        return [float(field) for field in fields]
    except ValueError:
        raise DatasetError(f"uci_housing: line {number} of {path} holds a value that is not "
                           f"a number: {line.strip()!r:.80}") from None
